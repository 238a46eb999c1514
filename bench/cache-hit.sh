#!/bin/bash
# cache-hit.sh - what a run costs when its module is in the cache: the time
# from starting stap to the module being ready for pass 5 (stap -p4, process
# start to exit), cstap beside Debian's SystemTap 4.8 (/usr/bin/stap) when
# installed, on one tracepoint probe and on the hello script.
#
# cstap keys its cache before pass 1 (translator/cache/modcache.c), so a hit
# skips passes 1-4; SystemTap keys its cache after pass 2, so its hit still
# parses the tapsets and reads the kernel's debuginfo. Each tool's cache is
# its own, made fresh here (the first build is the "cold" figure).
# usage: bench/cache-hit.sh [N]   N hits timed, the median printed (default 5)
#        env: CSTAP_BUILD (build dir), SYSTEMTAP=/usr/bin/stap
set -u
export CSTAP_DEFAULT_RUNTIME=kernel   # modules (for the guest) where this host loads none: what SystemTap is compared with
n=${1:-5}
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CSTAP_BUILD:-$src}
cstap=$build/translator/stap
systemtap=${SYSTEMTAP:-/usr/bin/stap}
rel=$("$build/translator/stap-vm" --default-release 2>/dev/null)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# ms TIMES...: the median
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# timed CMD...: one run's wall time in ms, in $ms (output discarded)
timed() {
	local t0 t1
	t0=$(date +%s%N)
	(cd "$work" && "$@" > /dev/null 2>&1)
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
}

# bench NAME CMD...: cold (first) run, then the median of N hits
bench() {
	local name=$1 hits=()
	shift
	timed "$@"; cold=$ms
	for i in $(seq "$n"); do timed "$@"; hits+=("$ms"); done
	printf '%-34s %10s %10s\n' "$name" "$cold" "$(median "${hits[@]}")"
	hit=$(median "${hits[@]}")
}

tp='probe kernel.trace("sched_switch") { n++ } probe timer.s(1) { printf("%d\n", n > 0); exit() }'
hello='probe begin { printf("hello %s %d\n", "world", 42); exit() }'
printf '%-34s %10s %10s\n' "stap -p4, ms (kernel $rel)" "cold" "cache hit"
export XDG_CACHE_HOME=$work/cstap-cache
bench "cstap: one tracepoint" "$cstap" -p4 -r "$rel" -m c_tp -e "$tp"; c_tp=$hit
bench "cstap: hello" "$cstap" -p4 -r "$rel" -m c_hello -e "$hello"; c_hello=$hit
unset XDG_CACHE_HOME
if [ -x "$systemtap" ] && "$systemtap" -V 2>&1 | grep -qi "systemtap translator"; then
	rt=$work/st-runtime
	cp -a /usr/share/systemtap/runtime "$rt"
	patch -s -d "$rt" -p1 < "$src/../shared/anchor/patches/runtime-task_work_cancel_func.patch" 2>/dev/null || true
	export SYSTEMTAP_DIR=$work/st-dir
	bench "SystemTap 4.8: one tracepoint" "$systemtap" -p4 -R "$rt" -r "$rel" -m s_tp -e "$tp"; s_tp=$hit
	bench "SystemTap 4.8: hello" "$systemtap" -p4 -R "$rt" -r "$rel" -m s_hello -e "$hello"; s_hello=$hit
	awk -v a="$c_tp" -v b="$s_tp" -v c="$c_hello" -v d="$s_hello" 'BEGIN {
		printf "cache hit, SystemTap / cstap: one tracepoint %s, hello %s\n",
		       (a ? sprintf("%.0fx", b / a) : ">" b "x"), (c ? sprintf("%.0fx", d / c) : ">" d "x") }'
else
	echo "(SystemTap 4.8 not installed: apt-get install systemtap to compare)"
fi
echo "medians of $n hits; wall time from process start to exit, this machine"
