#!/bin/bash
# conformance-build.sh - SystemTap's buildok / buildko files (read from
# ../shared/conformance, never copied) through stap -p4, judged as
# ../shared/conformance/README.md says:
#   buildok  exit 0 (a module is built)
#   buildko  exit non-zero with a diagnostic, without crashing; for a
#            "#! stap" file a tagged one ("[P_...", "[E_...", "[B_..." ...)
# Line 1 "#! stap ARGS" runs "stap ARGS FILE"; a "#! /bin/sh" file is run by
# that shell with our stap first on PATH. Each file runs in a scratch
# directory (-p4 leaves the module in the current directory).
#
#   conformance-build.sh            the test: every buildok file SystemTap 4.8
#                                   accepts at -p4 on the target kernel
#                                   (testsuite/conformance-build-systemtap.txt) must
#                                   build, and every buildko file be refused,
#                                   except those in testsuite/conformance-xfail.txt
#                                   (DIR/FILE REASON); a listed file that passes
#                                   fails the test, so the list only shrinks
#   conformance-build.sh FILE ...   the test for these files only (buildok/x.stp,
#                                   or a buildok file's base name)
#   conformance-build.sh --list     "FILE ok" or "FILE fail FIRST-ERROR" for every
#                                   buildok file with $STAP at -p4, to remake the
#                                   accepted list with SystemTap 4.8:
#       STAP=/usr/bin/stap STAP_OPTS="-R PATCHED-RUNTIME --disable-cache" \
#           testsuite/conformance-build.sh --list | sed -n 's/ ok$//p'
# Fast: a "#! stap" buildko file runs at -p2 first, and at -p4 only if that
# passes (refused at -p2 is refused); a buildok file runs as written, and at
# -p2 only when it fails (to say which pass); two files build at a time
# (JOBS=N to change it).
# env: STAP (default: the build's translator/stap), STAP_OPTS (more options
# for every stap run), CSTAP_BUILD, CSTAP_SHARED (the conformance directory,
# default ../shared/conformance), REL (the target kernel release, default
# stap-vm's), VERBOSE=1 (show the errors of failing files), JOBS.
# Without REL, the test runs on the default kernel (stap-vm
# --default-release) in make check, and on every installed kernel (stap-vm
# --releases; $RELEASES overrides), one after the other, with CSTAP_FULL=1
# (make check-full): on the other series the run tests build and run their
# modules, and this suite's 125 modules (syscall.stp alone takes 75
# CPU-seconds) are make check's heaviest compile load (testsuite/README.md). The accepted list is SystemTap's
# on the default kernel: on a kernel SystemTap 4.8 cannot build for (6.12),
# the same files must build with cstap.
set -u
export CSTAP_DEFAULT_RUNTIME=kernel   # modules in a guest where this host loads none (native-tests.sh: the default)
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CSTAP_BUILD:-$(pwd)}
[ -x "$build/translator/stap" ] || build=$src
stap=${STAP:-$build/translator/stap}
case $stap in /*) ;; *) stap=$(pwd)/$stap ;; esac
shared=${CSTAP_SHARED:-$src/../shared/conformance}
suite=$shared/systemtap-testsuite
if [ -z "${REL:-}" ] && [ "${1:-}" != --list ]; then
	if [ "${CSTAP_FULL:-0}" = 1 ]; then
		releases=${RELEASES:-$("$build/translator/stap-vm" --releases 2>/dev/null)}
	else
		releases=${RELEASES:-$("$build/translator/stap-vm" --default-release 2>/dev/null)}
		echo "(the default kernel only: make check-full, or CSTAP_FULL=1, runs every installed one)"
	fi
	if [ -n "$releases" ]; then
		rc=0
		for r in $releases; do
			echo "== kernel $r"
			REL=$r "$BASH" "$0" "$@" || rc=1
		done
		exit $rc
	fi
fi
rel=${REL:-$("$build/translator/stap-vm" --default-release 2>/dev/null)}
accepted=$src/testsuite/conformance-build-systemtap.txt
xfail_list=$src/testsuite/conformance-xfail.txt

if [ ! -d "$suite/buildok" ]; then
	echo "SKIP: no test suite at $suite (set CSTAP_SHARED)"
	exit 77
fi
if [ ! -x "$stap" ]; then
	echo "conformance-build: no stap binary at $stap (set STAP)" >&2
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cstap-confbuild.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
# the stap the shell-script files find first on PATH: ours, for the release
mkdir "$tmp/bin"
{
	echo '#!/bin/sh'
	printf 'exec "%s"%s %s "$@"\n' "$stap" "${rel:+ -r $rel}" "${STAP_OPTS:-}"
} > "$tmp/bin/stap"
chmod +x "$tmp/bin/stap"

# run_one DIR/FILE PASS: run the file (a "#! stap" one with its -pN made
# -pPASS; PASS empty: as written) in the scratch directory $work; sets rc
# and kind, leaves stderr in $work/err
run_one() {
	local file=$suite/$1 pass=$2 first args words=() w cmd=()
	first=$(head -n 1 "$file")
	case $first in
	"#! stap"* | "#!stap"*)
		kind=stap
		args=${first#\#!}
		args=${args# }
		args=${args#stap}
		read -r -a words <<< "$args"
		cmd=("$tmp/bin/stap")
		for w in "${words[@]}"; do
			if [ -n "$pass" ] && [[ $w =~ ^-[a-zA-Z]*p[0-9]$ ]]; then
				w=${w%p[0-9]}p$pass
			fi
			cmd+=("$w")
		done
		(cd "$work" && timeout 600 "${cmd[@]}" "$file") > "$work/out" 2> "$work/err" < /dev/null
		rc=$?
		;;
	"#!"*sh*)
		kind=shell
		local sh=${first#\#!}
		sh=${sh# }
		sh=${sh%% *}
		(cd "$work" && PATH="$tmp/bin:$PATH" timeout 900 "$sh" "$file") > "$work/out" 2> "$work/err" < /dev/null
		rc=$?
		;;
	*)
		kind=unknown
		rc=255
		echo "unknown first line: $first" > "$work/err"
		;;
	esac
}

crashed() {
	[ "$rc" -ge 124 ] || grep -q -e 'Sanitizer' -e 'runtime error:' "$work/err"
}

# refused: a buildko file failed as it should (tagged, for "#! stap" ones)
refused() {
	[ "$rc" -ne 0 ] && ! crashed && [ -s "$work/err" ] &&
		{ [ "$kind" != stap ] || grep -q -e '\[[PETBRW]_[A-Z_]*\]' "$work/err"; }
}

# judge DIR/FILE: one line "PASS|FAIL|XFAIL: DIR/FILE ..." (and a failure's
# first errors) into $tmp/res/DIR_FILE
judge() {
	local name=$1 out ok=false reason why=-p4
	out=$tmp/res/${name//\//_}
	work=$tmp/w.${name//\//_}
	mkdir -p "$work"
	case $name in
	buildok/*)   # -p4 as written; -p2 only to say where a failure is
		run_one "$name" ""
		if [ "$kind" = stap ] && [ "$rc" -ne 0 ]; then
			local rc4=$rc
			mv "$work/err" "$work/err4"
			run_one "$name" 2
			[ "$rc" -ne 0 ] && why=-p2
			rc=$rc4
			mv "$work/err4" "$work/err"
		fi ;;
	*)
		run_one "$name" 2
		if [ "$kind" = stap ] && [ "$rc" -ne 0 ]; then
			why=-p2
		else
			run_one "$name" ""
		fi ;;
	esac
	case $name in
	buildok/*) [ "$rc" -eq 0 ] && ! crashed && ok=true ;;
	*) refused && ok=true ;;
	esac
	reason=$(grep "^$name " "$xfail_list" 2>/dev/null | cut -d' ' -f2-)
	if $ok && [ -z "$reason" ]; then
		echo "PASS: $name" > "$out"
	elif $ok; then
		echo "FAIL: $name passes now (XPASS): take it off $(basename "$xfail_list")" > "$out"
	elif [ -n "$reason" ]; then
		echo "XFAIL: $name ($reason)" > "$out"
	else
		{
			echo "FAIL: $name ($why, exit $rc)"
			if [ -n "${VERBOSE:-}" ]; then
				grep -m5 -E 'error|ERROR' "$work/err" | cut -c1-200 | sed 's/^/    | /'
			fi
		} > "$out"
	fi
	rm -rf "$work"
}

if [ "${1:-}" = --list ]; then
	for f in "$suite"/buildok/*.stp; do
		n=buildok/$(basename "$f")
		work=$tmp/w.list
		mkdir -p "$work"
		run_one "$n" ""
		if [ "$rc" = 0 ]; then echo "$(basename "$f") ok"; else
			echo "$(basename "$f") fail $(grep -m1 -E 'error|ERROR' "$work/err" | cut -c1-160)"
		fi
		rm -rf "$work"
	done
	exit 0
fi

names=()
if [ $# -gt 0 ]; then
	for a in "$@"; do
		case $a in
		*/*) names+=("$a") ;;
		*) names+=("buildok/$a") ;;
		esac
	done
else
	while read -r n; do
		names+=("buildok/$n")
	done < <(grep -v '^#' "$accepted" | sed '/^$/d')
	for f in "$suite"/buildko/*.stp; do
		names+=("buildko/$(basename "$f")")
	done
fi

mkdir -p "$tmp/res"
export -f judge run_one crashed refused
export tmp suite xfail_list
printf '%s\n' "${names[@]}" | xargs -P "${JOBS:-2}" -I{} bash -c 'judge {}'

passed=0 failed=0 xfailed=0 failures=""
for n in "${names[@]}"; do
	r=$tmp/res/${n//\//_}
	case $(head -c 5 "$r") in
	PASS:) passed=$((passed + 1)) ;;
	XFAIL) xfailed=$((xfailed + 1)); cat "$r" ;;
	*) failed=$((failed + 1)); failures="$failures $n"; cat "$r" ;;
	esac
done
echo "$passed passed, $failed failed, $xfailed expected failures${rel:+ (kernel $rel)}"
[ -n "$failures" ] && echo "failed:$failures"
[ "$failed" = 0 ]
