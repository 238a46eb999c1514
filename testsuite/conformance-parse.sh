#!/bin/sh
# conformance-parse.sh - run stap over SystemTap's parseok / parseko tests
# (and, named as arguments, semok / semko / transok / transko / buildok / buildko).
#
# Judged as ../shared/conformance/README.md says:
#   *ok      exit 0 at the pass named on line 1
#   *ko      exit non-zero, with a diagnostic, without crashing (no signal,
#            no sanitizer report); for "#! stap" files the diagnostic must be
#            tagged: a parse or semantic error ("[P_..." or "[E_...") for
#            parseko, any pass's error for the others; a shell parseko file
#            (stap or staprun with bad options) must print a tagged error
#            that is not "unknown option".
# Line 1 "#! stap ARGS" runs "stap ARGS FILE" (for at most 300 s: a hang, not a
# slow pass 2 on a busy machine; semok/thirtysix.stp takes 33 CPU-s on 6.12); a "#! /bin/sh" or "#!/bin/bash"
# file is run by that shell with our stap first on PATH.
#
# Environment:
#   STAP          the stap to test (default: translator/stap in the build tree)
#   CSTAP_SHARED  the conformance directory (default: ../shared/conformance
#                 next to the source tree)
#   VERBOSE=1     show the output of failing tests
#   JOBS          files judged at once (default 2)
#   CSTAP_CONF_SHELL_TIMEOUT  seconds a "#! /bin/sh" file may take (default
#                 300; parseok/unparser.stp runs stap -p1 twice over ~380 files:
#                 about a minute, several under ASan)
# Usage: conformance-parse.sh [parseok|parseko|semok|... ...]   (default: parseok parseko)

here=$(cd "$(dirname "$0")/.." && pwd)
shared=${CSTAP_SHARED:-$here/../shared/conformance}
suite=$shared/systemtap-testsuite
stap=${STAP:-translator/stap}
case $stap in /*) ;; *) stap=$(pwd)/$stap ;; esac

if [ ! -d "$suite/parseok" ]; then
	echo "conformance-parse: no test suite at $suite (set CSTAP_SHARED)" >&2
	exit 77 # automake: skipped
fi
if [ ! -x "$stap" ]; then
	echo "conformance-parse: no stap binary at $stap (set STAP)" >&2
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cstap-conf.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir "$tmp/bin" "$tmp/src"
ln -s "$stap" "$tmp/bin/stap"
# the cmdline parseko files run staprun by name: ours, not whatever PATH has
# (the one beside this stap, else the build tree's, e.g. for the asan stap)
staprun=$(dirname "$stap")/../staprun/staprun
[ -x "$staprun" ] || staprun=${CSTAP_BUILD:-$here}/staprun/staprun
ln -s "$staprun" "$tmp/bin/staprun"
ln -s "$suite" "$tmp/src/testsuite" # parseok/unparser.stp reads $SRCDIR/testsuite

xfail_list=$here/testsuite/conformance-xfail.txt

# is DIR/FILE in the expected-failure list?
expected_to_fail() {
	grep -q "^$1 " "$xfail_list" 2>/dev/null
}

# run_one DIR FILE: sets rc and leaves stderr in $tmp/err
run_one() {
	file=$1
	first=$(head -n 1 "$file")
	case $first in
	"#! stap"* | "#!stap"*)
		args=${first#\#!}
		args=${args# }
		args=${args#stap}
		# shellcheck disable=SC2086 # args are split on purpose
		# our stap first on PATH: process("stap") probes name the stap under test
		(cd "$(dirname "$file")" && PATH="$tmp/bin:$PATH" timeout 300 "$stap" $args "$file") \
			>"$tmp/out" 2>"$tmp/err" </dev/null
		rc=$?
		kind=stap
		;;
	"#!"*sh*)
		shell=${first#\#!}
		shell=${shell# }
		shell=${shell%% *}
		(cd "$(dirname "$file")" && PATH="$tmp/bin:$PATH" SRCDIR="$tmp/src" \
			timeout "${CSTAP_CONF_SHELL_TIMEOUT:-300}" "$shell" "$file") >"$tmp/out" 2>"$tmp/err" </dev/null
		rc=$?
		kind=shell
		;;
	*)
		rc=255
		kind=unknown
		echo "unknown first line: $first" >"$tmp/err"
		;;
	esac
}

crashed() {
	[ "$rc" -ge 124 ] || grep -q -e 'Sanitizer' -e 'runtime error:' "$tmp/err"
}

judge() {
	dir=$1
	file=$2
	run_one "$file"
	ok=false
	case $dir in
	parseok | semok | transok | buildok)
		[ "$rc" -eq 0 ] && ! crashed && ok=true
		;;
	parseko | semko | transko | buildko)
		if [ "$rc" -ne 0 ] && ! crashed && [ -s "$tmp/err" ]; then
			if [ "$kind" = stap ]; then
				case $dir in
				parseko) tags='\[[PE]_[A-Z_]*\]' ;;   # a parse or semantic error
				*) tags='\[[PETBRW]_[A-Z_]*\]' ;;   # any pass's, or a -W warning
				esac
				grep -q -e "$tags" "$tmp/err" && ok=true
			elif [ "$dir" = parseko ]; then
				# a shell file runs stap or staprun with bad options: refused
				# with a tag, and for its reason, not as an unknown option
				grep -q -e '\[[A-Z]_[A-Z_]*\]' "$tmp/err" &&
					! grep -q -e "unknown option" "$tmp/err" && ok=true
			else
				ok=true
			fi
		fi
		;;
	esac
	name=$dir/$(basename "$file")
	if expected_to_fail "$name"; then
		if $ok; then
			echo "XPASS: $name (remove it from $(basename "$xfail_list"))"
		else
			echo "XFAIL: $name"
		fi
	elif $ok; then
		echo "PASS: $name"
	else
		echo "FAIL: $name (exit $rc)"
		if [ -n "$VERBOSE" ]; then
			sed 's/^/    | /' "$tmp/err" | head -n 20
		fi
	fi
}

# --one DIR FILE: judge one file (what the workers below run)
if [ "${1:-}" = --one ]; then
	judge "$2" "$3"
	exit 0
fi

# every file of the directories, JOBS (default 2) at a time, each worker a
# --one run of this script with a scratch directory of its own; the verdicts
# in file order, PASS lines left out
dirs=${*:-parseok parseko}
for dir in $dirs; do
	for file in "$suite/$dir"/*.stp; do
		[ -f "$file" ] && printf '%s\n%s\n' "$dir" "$file"
	done
done | VERBOSE=$VERBOSE xargs -d '\n' -n 2 -P "${JOBS:-2}" sh -c \
	'sh "$0" --one "$2" "$3" > "$1/res.$(basename "$2").$(basename "$3")"' "$0" "$tmp"
passed=0 failed=0 xfailed=0
for dir in $dirs; do
	for file in "$suite/$dir"/*.stp; do
		[ -f "$file" ] || continue
		r=$tmp/res.$dir.$(basename "$file")
		case $(head -c 6 "$r" 2>/dev/null) in
		PASS:*) passed=$((passed + 1)); continue;;
		XFAIL:) xfailed=$((xfailed + 1));;
		*) failed=$((failed + 1)); [ -s "$r" ] || echo "FAIL: $dir/$(basename "$file") (no verdict)";;
		esac
		cat "$r"
	done
done

[ "$xfailed" -gt 0 ] && echo "$xfailed expected failures (testsuite/conformance-xfail.txt)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
