#!/bin/bash
# cstap-examples.sh - cstap's own example scripts (examples/NAME.stp, each
# with its NAME.meta in SystemTap's format) on every installed kernel
# (stap-vm --releases, or $RELEASES):
#   - every examples/*.stp has a NAME.meta naming it, with a title, a
#     description and a test_check line;
#   - every example builds (stap -p4 -r REL) with the arguments of its
#     .meta's test_check line ("stap -p4 NAME.stp ARG ...");
#   - every example with a test_installcheck line runs in ONE guest boot per
#     kernel, as that line says: "stap NAME.stp [ARG ...] [-G VAR=VALUE ...]
#     [-c CMD]" (the words are read as a shell reads them). The guest is
#     busybox; where the host line needs what the guest lacks, the .meta has a
#     test_installcheck_guest line of the same form, used instead. The module
#     is built with the ARGs (stap -p4 -m ex_NAME) and run by staprun with
#     the VAR=VALUEs and -c CMD. Absolute paths among the ARGs and CMD's
#     first word that are host files are put in the guest at the same path
#     (programs with their shared libraries). The guest has brd's ram disks
#     (/dev/ram0 ...), its loopback device down until a CMD brings it up.
#     Each run must exit 0, print no ERROR on stderr, and its output (the
#     report and CMD's standard output) must have, for every line of
#     examples/NAME.expect-re (an extended regular expression; blank lines
#     and lines starting with # ignored), a line it matches. Every example
#     run in the guest must have its .expect-re.
#   - ufunc_latency also runs on a program with debuginfo (gcc -g -O0 of
#     testsuite/run/uprogs/uprobe_test.c), where it must count the 3 calls
#     of work().
# usage: cstap-examples.sh [NAME ...]      (default: every example)
# env: CSTAP_BUILD (build dir), RELEASES, KEEP=1 (keep the work directory and
# say where). Without qemu the guest part is skipped: exit 77 when the
# builds passed.
set -u
export CSTAP_DEFAULT_RUNTIME=kernel   # modules in a guest where this host loads none (native-tests.sh: the default)
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CSTAP_BUILD:-$(pwd)}
[ -x "$build/translator/stap" ] || build=$src
STAP=$build/translator/stap
STAPVM=$build/translator/stap-vm
ex=$src/examples
work=$(mktemp -d "${TMPDIR:-/tmp}/cstap-own-examples.XXXXXX")
[ "${KEEP:-0}" = 1 ] && echo "work dir: $work" || trap 'rm -rf "$work"' EXIT
pass=0 fail=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; shift; [ $# = 0 ] || printf '%s\n' "$@" | sed 's/^/    /'; fail=$((fail + 1)); }

if [ $# -gt 0 ]; then names=("$@")
else names=(); for f in "$ex"/*.stp; do names+=("$(basename "$f" .stp)"); done; fi

# field FILE NAME: the value of the .meta field NAME ("" when there is none)
field() { sed -n "s/^$2:[[:space:]]*//p" "$1" | head -1; }

# parse NAME LINE: split a "stap ... NAME.stp ..." line of a .meta into
# ARGS (the script's arguments), GVARS (-G VAR=VALUE) and CMD (-c);
# 1 (and WHY) when it is not of that form
parse() {
	local name=$1 line=$2 w seen=0
	ARGS=(); GVARS=(); CMD=""; WHY=""
	eval "w=($line)" 2>/dev/null || { WHY="cannot split: $line"; return 1; }
	[ "${w[0]:-}" = stap ] || { WHY="does not start with stap: $line"; return 1; }
	set -- "${w[@]:1}"
	while [ $# -gt 0 ]; do
		case $1 in
		-p4) ;;
		-c) [ $# -ge 2 ] || { WHY="-c without a command"; return 1; }; CMD=$2; shift;;
		-G) [ $# -ge 2 ] || { WHY="-G without VAR=VALUE"; return 1; }; GVARS+=("$2"); shift;;
		"$name.stp") seen=1;;
		-*) WHY="option $1 not supported here: $line"; return 1;;
		*) [ $seen = 1 ] || { WHY="argument $1 before $name.stp"; return 1; }; ARGS+=("$1");;
		esac
		shift
	done
	[ $seen = 1 ] || { WHY="$name.stp not named: $line"; return 1; }
}

# the metadata of each example
declare -A check_line run_line
for n in "${names[@]}"; do
	m=$ex/$n.meta
	[ -f "$ex/$n.stp" ] || { bad "example $n" "no $ex/$n.stp"; continue; }
	if [ ! -f "$m" ]; then bad "meta of $n" "no $m"; continue; fi
	why=""
	[ "$(field "$m" name)" = "$n.stp" ] || why+="name: is not $n.stp"$'\n'
	for f in title description test_check; do
		[ -n "$(field "$m" $f)" ] || why+="no $f: line"$'\n'
	done
	check_line[$n]=$(field "$m" test_check)
	parse "$n" "${check_line[$n]}" || why+="test_check: $WHY"$'\n'
	run_line[$n]=$(field "$m" test_installcheck_guest)
	[ -n "${run_line[$n]}" ] || run_line[$n]=$(field "$m" test_installcheck)
	if [ -n "${run_line[$n]}" ]; then
		parse "$n" "${run_line[$n]}" || why+="test_installcheck: $WHY"$'\n'
		[ -f "$ex/$n.expect-re" ] || why+="runs in the guest but has no $n.expect-re"$'\n'
	fi
	if [ -z "$why" ]; then ok "meta of $n"; else bad "meta of $n" "$why"; check_line[$n]=""; run_line[$n]=""; fi
done

have_qemu=1
command -v qemu-system-x86_64 >/dev/null || have_qemu=0
releases=${RELEASES:-$("$STAPVM" --releases 2>/dev/null)}
[ -n "$releases" ] || { echo "cstap-examples: SKIP: no kernel to build for"; exit 77; }

# the program with debuginfo for ufunc_latency (the guest gets it at this path)
uprog=""
if [ $have_qemu = 1 ] && [ -n "${run_line[ufunc_latency]:-}" ]; then
	mkdir -p "$work/uprogs"
	if gcc -g -O0 -o "$work/uprogs/uprobe_test" "$src/testsuite/run/uprogs/uprobe_test.c"; then
		uprog=$work/uprogs/uprobe_test
	else
		bad "build of uprobe_test for ufunc_latency"
	fi
fi

# the guest's files and jobs, for release directory $d
declare -A shipped
ship() {   # a host file at the same path in the guest, once
	[ -f "$1" ] && [ -z "${shipped[$1]:-}" ] || return 0
	shipped[$1]=1; files+=(-f "$1")
}
addjob() {   # job name, module name, staprun's -c command, then VAR=VALUEs
	local j=$1 mod=$2 cmd=$3
	shift 3
	{
		printf 'cd /tmp\n'
		if [ -n "$cmd" ]; then
			printf '%s\n' "$cmd" > "$d/t/$j.cmd"
			files+=(-f "$d/t/$j.cmd:/t/$j.cmd")
			printf 'exec staprun -c "$(cat /t/%s.cmd)" /ko/%s.ko' "$j" "$mod"
		else
			printf 'exec staprun /ko/%s.ko' "$mod"
		fi
		for g in "$@"; do printf " '%s'" "$g"; done
		printf '\n'
	} > "$d/t/$j.sh"
	files+=(-f "$d/t/$j.sh:/t/$j.sh")
	printf '%s\t120\tsh /t/%s.sh\n' "$j" "$j" >> "$d/jobs"
	jobs+=("$j")
}

for rel in $releases; do
	echo "== kernel $rel"
	d=$work/$rel
	mkdir -p "$d/check" "$d/guest" "$d/t"
	t0=$(date +%s)
	# pass 4 with the test_check arguments
	for n in "${names[@]}"; do
		[ -n "${check_line[$n]:-}" ] || continue
		parse "$n" "${check_line[$n]}"
		if (cd "$d/check" && "$STAP" -p4 -r "$rel" -m "ex_$n" "$ex/$n.stp" ${ARGS[@]+"${ARGS[@]}"}) > "$d/check/$n.log" 2>&1; then
			ok "$n builds on $rel"
		else
			bad "$n builds on $rel" "stap -p4 $n.stp${ARGS[*]+ ${ARGS[*]}}:" "$(tail -20 "$d/check/$n.log")"
		fi
	done
	echo "    (builds: $(( $(date +%s) - t0 )) s)"
	[ $have_qemu = 1 ] || continue

	# the guest runs: a module, a command file and a job each
	files=(); jobs=(); : > "$d/jobs"
	shipped=()
	for n in "${names[@]}"; do
		[ -n "${run_line[$n]:-}" ] || continue
		parse "$n" "${run_line[$n]}"
		if ! (cd "$d/guest" && "$STAP" -p4 -r "$rel" -m "ex_$n" "$ex/$n.stp" ${ARGS[@]+"${ARGS[@]}"}) > "$d/guest/$n.log" 2>&1; then
			bad "$n runs on $rel" "stap -p4 $n.stp${ARGS[*]+ ${ARGS[*]}}:" "$(tail -20 "$d/guest/$n.log")"
			continue
		fi
		files+=(-f "$d/guest/ex_$n.ko:/ko/ex_$n.ko")
		for a in ${ARGS[@]+"${ARGS[@]}"}; do case $a in /*) ship "$a";; esac; done
		first=${CMD%% *}
		case $first in /*) ship "$first";; esac
		addjob "$n" "ex_$n" "$CMD" ${GVARS[@]+"${GVARS[@]}"}
	done
	if [ -n "$uprog" ]; then
		if (cd "$d/guest" && "$STAP" -p4 -r "$rel" -m ex_ufunc_uprog "$ex/ufunc_latency.stp" "$uprog" work) > "$d/guest/ufunc_uprog.log" 2>&1; then
			files+=(-f "$d/guest/ex_ufunc_uprog.ko:/ko/ex_ufunc_uprog.ko")
			ship "$uprog"
			addjob ufunc_uprog ex_ufunc_uprog "$uprog"
		else
			bad "ufunc_latency on uprobe_test on $rel" "$(tail -20 "$d/guest/ufunc_uprog.log")"
		fi
	fi
	[ ${#jobs[@]} -gt 0 ] || continue
	t1=$(date +%s)
	"$STAPVM" -r "$rel" -M brd -t 900 "${files[@]}" -b "$d/jobs" -O "$d/res" > "$d/vm.log" 2>&1
	vmrc=$?
	echo "    (guest: $(( $(date +%s) - t1 )) s, ${#jobs[@]} jobs)"
	[ $vmrc = 0 ] || bad "guest boot on $rel" "stap-vm exit status $vmrc" "$(tail -30 "$d/vm.log")"
	for j in "${jobs[@]}"; do
		if [ "$j" = ufunc_uprog ]; then what="ufunc_latency on uprobe_test"; re_file=""
		else what=$j; re_file=$ex/$j.expect-re; fi
		out=$d/res/$j.out err=$d/res/$j.err
		if [ ! -f "$out" ]; then bad "$what runs on $rel" "no result"; continue; fi
		why=""
		rc=$(cat "$d/res/$j.rc" 2>/dev/null)
		[ "$rc" = 0 ] || why+="exit status ${rc:-unknown}"$'\n'
		grep -q ERROR "$err" && why+="stderr: $(head -20 "$err")"$'\n'
		if [ -n "$re_file" ]; then
			grep -v -e '^#' -e '^[[:space:]]*$' "$re_file" > "$d/t/$j.re"
		else
			printf '%s\n' "^3 calls of work in $uprog\$" '^work +3 +[0-9]+ +[0-9]+ +[0-9]+  uprobe_test\(3\)$' \
				'^Times of work \(ns\)$' > "$d/t/$j.re"
		fi
		while IFS= read -r re; do
			grep -Eq -e "$re" "$out" || why+="no line matches: $re"$'\n'
		done < "$d/t/$j.re"
		if [ -z "$why" ]; then ok "$what runs on $rel"
		else bad "$what runs on $rel" "$why" "output:" "$(head -60 "$out")"; fi
	done
done
echo "$pass passed, $fail failed"
[ $fail = 0 ] || exit 1
[ $have_qemu = 1 ] || { echo "cstap-examples: guest part: SKIP (no qemu-system-x86_64)"; exit 77; }
exit 0
