#!/bin/bash
# privilege-table.sh - pass 2 under --privilege=stapusr, construct by
# construct: each line of testsuite/privilege/table.txt (VERDICT, SystemTap
# 4.8's verdict as a comment, OPTIONS, SCRIPT) is run through
# `stap -p2 --privilege=stapusr [OPTIONS] -e SCRIPT` and must pass (ok) or
# fail with its tag, a position and a caret line (O_USAGE: no position).
# Host only, pass 2 only: seconds, no guest, no kbuild.
# usage: privilege-table.sh    env: CSTAP_BUILD (build dir)
set -u
. "$(dirname "$0")/lib.sh"
table=$src/testsuite/privilege/table.txt
# the user's own program (process probes with $vars) and a -I tapset
gcc -g -O0 -o "$work/prog" "$src/testsuite/privilege/prog.c" || { echo "FAIL: cannot build prog"; exit 1; }
mkdir -p "$work/inc"
printf 'function mylib:long() %%{ /* unprivileged */ STAP_RETVALUE = 1; %%}\n' > "$work/inc/mylib.stp"
export XDG_CACHE_HOME=$work/cache

# check VERDICT OPTIONS SCRIPT: one PASS/FAIL line
check() {
	local want=$1 opts=$2 script=${3//@WORK@/$work} out rc
	local -a o=()
	[ "$opts" = - ] || read -r -a o <<< "${opts//@WORK@/$work}"
	out=$(cd "$work" && "$STAP" -p2 --privilege=stapusr "${o[@]}" -e "$script" 2>&1 >/dev/null); rc=$?
	if [ "$want" = ok ]; then
		if [ $rc = 0 ]; then ok "ok: $3"; else bad "ok: $3" "rc=$rc" "$out"; fi
	elif [ $rc = 0 ] || [ $rc -ge 128 ] || ! grep -q "\[$want\]" <<< "$out"; then
		bad "$want: $3" "rc=$rc, expected [$want]; got:" "$out"
	elif [ "$want" != O_USAGE ] && ! { grep -q 'at <input>:[0-9]*:[0-9]*' <<< "$out" && grep -q '^ *\^$' <<< "$out"; }; then
		bad "$want: $3" "no <input>:line:col and caret line in:" "$out"
	else
		ok "$want: $3"
	fi
}

while IFS=$'\t' read -r verdict stap48 opts script; do
	case $verdict in '#'*|'') continue;; esac
	: "$stap48"   # SystemTap 4.8's verdict: a comment
	check "$verdict" "$opts" "$script"
done < "$table"
finish
