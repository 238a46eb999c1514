#!/bin/sh
# roundtrip.sh - the -p1 output of a script parses again to the same output.
#
# For every SystemTap parseok file run by stap ("#! stap ..." on line 1, with
# its options), every other "#! stap" script of that test suite (semok, semko,
# transok, transko, buildok, buildko, runok, with its options and -p1: cstap
# has no examples/ directory, these are the example scripts), every
# examples/*.stp, tapsets/*.stp (in guru mode, as tapsets
# may hold embedded C) and testsuite/run/*.stp:
#   stap -p1 FILE > A;  stap -p1 A > B;  A and B must be identical
# (but for the "# file NAME" line naming the file parsed).
#
# Environment:
#   STAP          the stap to test (default: translator/stap in the build tree)
#   CSTAP_SHARED  the conformance directory (default ../shared/conformance)
#   VERBOSE=1     show a diff for each failure
# Usage: roundtrip.sh [FILE...]   (a FILE is run with -p1, or its "#! stap" options)

here=$(cd "$(dirname "$0")/.." && pwd)
shared=${CSTAP_SHARED:-$here/../shared/conformance}
stap=${STAP:-translator/stap}
case $stap in /*) ;; *) stap=$(pwd)/$stap ;; esac
if [ ! -x "$stap" ]; then
	echo "roundtrip: no stap binary at $stap (set STAP)" >&2
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cstap-roundtrip.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

passed=0
failed=0
skipped=0
skip_unknown_options=

# options for FILE: those of its "#! stap" line, else DEFAULT
options() {
	first=$(head -n 1 "$1")
	case $first in
	"#! stap"* | "#!stap"*)
		args=${first#\#!}
		args=${args# }
		echo "${args#stap}"
		;;
	*) echo "$2" ;;
	esac
}

# check FILE OPTIONS [ARGS]: one round trip (ARGS, the script arguments, only
# for FILE: its output has them substituted). OPTIONS and ARGS are
# shell-quoted strings, as in testsuite/run/NAME.opts.
check() {
	file=$1
	opts=$2
	sargs=$3
	name=${file#"$shared"/systemtap-testsuite/}
	name=${name#"$here"/}
	if ! (cd "$(dirname "$file")" && eval "timeout 60 \"\$stap\" $opts \"\$file\" $sargs") \
		>"$tmp/a.stp" 2>"$tmp/err" </dev/null; then
		# an option cstap does not have (-t, --suppress-time-limits: not pass 1)
		if [ -n "$skip_unknown_options" ] && grep -q "unknown option '" "$tmp/err"; then
			skipped=$((skipped + 1))
			echo "SKIP: $name (stap $opts: $(grep -m1 "unknown option '" "$tmp/err" | sed 's/^[^:]*: //'))"
			return
		fi
		failed=$((failed + 1))
		echo "FAIL: $name (stap $opts FILE failed)"
		[ -n "$VERBOSE" ] && sed 's/^/    | /' "$tmp/err" | head -n 10
		return
	fi
	# -T N added its timer probe to A already: not again
	reopts=$(printf '%s\n' "$opts" | sed -E 's/(^|[[:space:]])-T[[:space:]]*[0-9]+/ /g')
	if ! eval "timeout 60 \"\$stap\" $reopts \"\$tmp/a.stp\"" >"$tmp/b.stp" 2>"$tmp/err" </dev/null; then
		failed=$((failed + 1))
		echo "FAIL: $name (its -p1 output does not parse)"
		[ -n "$VERBOSE" ] && sed 's/^/    | /' "$tmp/err" | head -n 10
		return
	fi
	# the "# file NAME" header names the file parsed, and a blank line
	# separates files (-T's probe is one): not part of the tree
	grep -v -e '^# file ' -e '^$' "$tmp/a.stp" >"$tmp/a.tree"
	grep -v -e '^# file ' -e '^$' "$tmp/b.stp" >"$tmp/b.tree"
	if cmp -s "$tmp/a.tree" "$tmp/b.tree"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $name (re-parsed -p1 output differs)"
		[ -n "$VERBOSE" ] && diff "$tmp/a.tree" "$tmp/b.tree" | head -n 20 | sed 's/^/    | /'
	fi
}

if [ $# -gt 0 ]; then
	for f in "$@"; do
		check "$f" "$(options "$f" -p1)"
	done
else
	if [ -d "$shared/systemtap-testsuite/parseok" ]; then
		for f in "$shared"/systemtap-testsuite/parseok/*.stp; do
			case $(head -n 1 "$f") in
			"#! stap"* | "#!stap"*) check "$f" "$(options "$f")" ;;
			esac
		done
		skip_unknown_options=1
		for d in semok semko transok transko buildok buildko runok; do
			for f in "$shared"/systemtap-testsuite/$d/*.stp; do
				case $(head -n 1 "$f") in
				"#! stap"* | "#!stap"*) check "$f" "$(options "$f") -p1" ;;
				esac
			done
		done
		skip_unknown_options=
	else
		echo "roundtrip: no parseok files at $shared (set CSTAP_SHARED); checking the rest" >&2
	fi
	for f in "$here"/examples/*.stp; do
		[ -f "$f" ] && check "$f" -p1
	done
	# run tests: with their NAME.opts and NAME.args, as run-tests.sh runs them
	for f in "$here"/testsuite/run/*.stp; do
		[ -f "$f" ] || continue
		t=${f%.stp}
		opts="-p1 $(cat "$t.opts" 2>/dev/null)"
		check "$f" "$opts" "$(cat "$t.args" 2>/dev/null)"
	done
	for f in "$here"/tapsets/*.stp; do
		[ -f "$f" ] && check "$f" -gp1
	done
fi

[ "$skipped" -gt 0 ] && echo "$skipped skipped (options cstap does not have)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
