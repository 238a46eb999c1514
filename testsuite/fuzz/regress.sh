#!/bin/sh
# regress.sh - feed every input that once broke pass 1 to the fuzz harness
# built without libFuzzer, under ASan+UBSan, and fail on any crash, hang or
# sanitizer report.
#
# Inputs: testsuite/fuzz/regressions/* (kept from fuzzing runs), plus deeply
# nested scripts generated here (too big to keep): the parser must give an
# error (P_NESTING) or parse them, never run out of stack.
#
# Environment: CC (default cc; needs -fsanitize=address,undefined),
#              VERBOSE=1 shows the harness output of failures.
# Usage: regress.sh [FILE...]   (default: all of the above)

here=$(cd "$(dirname "$0")/../.." && pwd)
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cstap-regress.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

srcs=
for f in util diag ast parse/lexer parse/preprocess parse/parse parse/unparse; do
	srcs="$srcs $here/translator/$f.c"
done
# shellcheck disable=SC2086 # srcs is a list
if ! "$cc" -g -O1 -std=gnu11 -D_GNU_SOURCE -DPARSE_FUZZ_MAIN -fsanitize=address,undefined \
	-fno-sanitize-recover=undefined -fno-omit-frame-pointer -I"$here/translator" \
	-DTAPSET_DIR="\"$here/tapsets\"" "$here/testsuite/fuzz/parse_fuzz.c" $srcs \
	-o "$tmp/parse_fuzz" 2>"$tmp/cc.err"; then
	if grep -q -e 'asan' -e 'ubsan' -e 'sanitize' "$tmp/cc.err"; then
		echo "regress: $cc cannot build with -fsanitize=address,undefined; skipped" >&2
		exit 77
	fi
	cat "$tmp/cc.err" >&2
	exit 1
fi

# N copies of a string
rep() {
	awk -v s="$1" -v n="$2" 'BEGIN { for (i = 0; i < n; i++) printf "%s", s }'
}

# deeply nested inputs, one per recursive rule of the grammar
gen() {
	{ printf '%s' "$2"; rep "$3" 20000; printf '%s' "$4"; echo; } >"$tmp/deep-$1.stp"
}
if [ $# -eq 0 ]; then
	gen parens 'probe begin { x = ' '(' '1 }'
	gen unary 'probe begin { x = ' '-!~+' '1 }'
	gen blocks 'probe begin ' '{' ''
	gen if 'probe begin { ' 'if (1) ' 'x = 1 }'
	gen while 'probe begin { ' 'while (1) ' 'x = 1 }'
	gen for 'probe begin { ' 'for (;;) ' 'x = 1 }'
	gen foreach 'probe begin { ' 'foreach (k in a) ' 'x = 1 }'
	gen try 'probe begin { ' 'try { ' '}'
	gen ternary 'probe begin { x = 1' ' ? 1 : 1' ' }'
	gen assign 'probe begin { x = ' 'a = ' '1 }'
	gen call 'probe begin { x = ' 'f(' ' }'
	gen index 'probe begin { x = ' 'a[' ' }'
	gen cast 'probe begin { x = ' '@cast(' ' }'
	gen defined 'probe begin { x = ' '@defined(' ' }'
	gen stat 'probe begin { x = ' '@count(' ' }'
	gen chain 'probe begin { x = 1' ' + 1' ' }'
	gen concat 'probe begin { x = "a"' ' . "a"' ' }'
	gen cond-paren '%( ' '(' '1 %? probe begin {} %)'
	gen cond-nest '' '%( 1 == 1 %? ' 'probe begin {}'
	gen macro '@define a %( (@a) %) probe begin { x = @a' '' ' }'
	gen ppoint 'probe ' 'a.a.' 'b {}'  # was quadratic: 2.5 GB, 20 s under ASan at 20000
	gen comps 'probe a' '{b,' '} {}'
	set -- "$tmp"/deep-*.stp "$here"/testsuite/fuzz/regressions/*
fi

passed=0
failed=0
for f in "$@"; do
	[ -f "$f" ] || continue
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
		timeout 30 "$tmp/parse_fuzz" "$f" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && ! grep -q -e 'Sanitizer' -e 'runtime error:' "$tmp/out"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $(basename "$f") (exit $rc)"
		[ -n "$VERBOSE" ] && head -n 30 "$tmp/out" | sed 's/^/    | /'
	fi
done
echo "$passed passed, $failed failed"
[ $failed -eq 0 ] && [ $passed -gt 0 ]
