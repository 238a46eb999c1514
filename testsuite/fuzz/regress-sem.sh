#!/bin/bash
# regress-sem.sh - a make check test of passes 2 and 3: every script in
# testsuite/fuzz/regressions-sem/ (inputs that once crashed the translator,
# tripped a sanitizer, hung it, or got an untagged error) goes through
# `stap -p3` with the options on its line 1 ("#! stap -p3 -g ..."), then a
# short seeded run of the pass 2/3 fuzzer (sem-fuzz.sh -n $SEMFUZZ_SMOKE -s 1,
# deterministic); also generated scripts calling every tapset function. Fails
# on a crash, sanitizer report, hang or an error without a tag; a script that
# passes -p3 is fine too (the point is that the translator judges it without
# crashing), except that a NAME-ok.stp must pass.
#
# env: STAP (default: the build's translator/stap; make check-asan gives the
#      ASan+UBSan one), SEMFUZZ_SMOKE (inputs of the smoke run, default 150;
#      0: none), VERBOSE=1 shows the stderr of failures.
# usage: regress-sem.sh [FILE...]   (default: all of regressions-sem/, then the smoke run)
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${CSTAP_BUILD:-$(pwd)}
[ -x "$build/translator/stap" ] || build=$src
stap=${STAP:-$build/translator/stap}
case $stap in /*) ;; *) stap=$(pwd)/$stap ;; esac
[ -x "$stap" ] || { echo "regress-sem: no stap at $stap (set STAP)" >&2; exit 1; }
export CSTAP_TAPSETS=${CSTAP_TAPSETS:-$src/tapsets} CSTAP_RUNTIME=${CSTAP_RUNTIME:-$src/runtime}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cstap-regress-sem.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

smoke=${SEMFUZZ_SMOKE:-150}
[ $# -gt 0 ] && smoke=0
if [ $# -eq 0 ]; then
	# Generated: a call of every tapset function (arguments of the declared
	# types), so that each one's body gets through passes 2-3; as statements,
	# then with one argument too many, then with strings for numbers. Names
	# declared under a %( %) condition or over two lines may not resolve:
	# they are left out after a first run.
	cat "$src"/tapsets/*.stp | grep -oE '^function +[A-Za-z][A-Za-z0-9_]*(:[a-z]+)? *\([^)]*\)' |
		sed -E 's/^function +//' | sort -u | awk '{
			name = $0; sub(/[:( ].*/, "", name); args = $0; sub(/^[^(]*\(/, "", args); sub(/\).*/, "", args)
			n = split(args, a, ","); s = ""
			for (i = 1; i <= n; i++) if (a[i] !~ /^ *$/) s = s (s == "" ? "" : ", ") (a[i] ~ /string/ ? "\"x\"" : "0")
			printf "probe begin { try { %s(%s) } catch {} }\n", name, s }' >"$tmp/calls.stp"
	(cd "$tmp" && "$stap" -p2 -g calls.stp) 2>&1 >/dev/null | sed -n "s/.*unresolved function '\(.*\)'.*/\1(/p" >"$tmp/unresolved"
	grep -v -F -f "$tmp/unresolved" "$tmp/calls.stp" >"$tmp/tapset-calls.stp"
	{ echo '#! stap -p3 -g'; cat "$tmp/tapset-calls.stp"; } >"$tmp/tapset-calls-ok.stp"
	{ echo '#! stap -p3 -g'; sed -E 's/\(\)/(1)/; t; s/\) \}/, 1) }/' "$tmp/tapset-calls.stp"; } >"$tmp/tapset-calls-args.stp"
	{ echo '#! stap -p3 -g'; sed -E 's/"x"/0/g; s/\(0/("s"/' "$tmp/tapset-calls.stp"; } >"$tmp/tapset-calls-types.stp"
	set -- "$src"/testsuite/fuzz/regressions-sem/*.stp "$tmp"/tapset-calls-*.stp
fi

passed=0 failed=0
for f in "$@"; do
	[ -f "$f" ] || continue
	opts=$(sed -n '1s/^#! stap//p' "$f")
	# shellcheck disable=SC2086 # options are split on purpose
	(cd "$tmp" && timeout -k 5 120 "$stap" $opts "$f" 1 2) >/dev/null 2>"$tmp/err" </dev/null
	rc=$? why=
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then why=hang
	elif [ $rc -gt 128 ]; then why="signal $((rc - 128))"
	elif grep -q -e 'Sanitizer' -e 'runtime error:' "$tmp/err"; then why=sanitizer
	elif [ $rc -ne 0 ] && ! grep -q '\[[PETBRWO]_[A-Z0-9_]*\]: ' "$tmp/err"; then why="untagged error"
	elif [ $rc -ne 0 ] && [ "${f%-ok.stp}" != "$f" ]; then why="not translated"
	elif [ "$(basename "$f")" = tapset-calls-ok.stp ] && [ "$(grep -c . "$f")" -lt 300 ]; then
		why="too few tapset functions found"
	fi
	if [ -z "$why" ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $(basename "$f") ($why, exit $rc)"
		[ -n "${VERBOSE:-}" ] && head -n 30 "$tmp/err" | sed 's/^/    | /'
	fi
done
echo "regressions-sem: $passed passed, $failed failed"

if [ "$smoke" -gt 0 ]; then
	CSTAP_SEMFUZZ_DIR=$tmp/fuzz STAP=$stap "$src/testsuite/fuzz/sem-fuzz.sh" -n "$smoke" -s 1 -k
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then   # 77: no seed scripts here
		failed=$((failed + 1))
		for e in "$tmp"/fuzz/findings/*.err; do   # the log keeps what the temporary directory loses
			[ -f "$e" ] || continue
			echo "--- ${e%.err}:"; sed 's/^/    | /' "${e%.err}"
			echo "--- stderr:"; head -n 20 "$e" | sed 's/^/    | /'
		done
	fi
fi
[ $failed -eq 0 ]
