#!/bin/bash
# native-bpf.sh - cstap's BPF runtime on this host, natively, side by side
# with Debian's bpftrace in the same run (the reference for native BPF):
# the cost of one probe hit of a counter on a system call tracepoint
# (syscalls:sys_enter_getppid: cstap's syscall.getppid where the kernel has
# no kprobes, and kernel.trace of it), on a uprobe, and on kernel.function
# through a BPF trampoline (fentry: kfunc in bpftrace) where the kernel has
# them; and the time from starting the tool to its first event (a 1 ms
# timer). Per hit: the workload's ns per call traced minus untraced, median
# of ROUNDS; ratios cstap / bpftrace (below 1: cstap costs less).
# usage: bench/native-bpf.sh [-r ROUNDS] [-n CALLS]   env: CSTAP_BUILD, BPFTRACE
set -u
R=5 N=2000000
while getopts "r:n:h" o; do
	case $o in r) R=$OPTARG;; n) N=$OPTARG;; *) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2;; esac
done
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CSTAP_BUILD:-$src}
STAP=$build/translator/stap
BT=${BPFTRACE:-$(command -v bpftrace)}
[ "$(id -u)" = 0 ] || { echo "native-bpf: needs root"; exit 77; }
[ -x "$BT" ] || { echo "native-bpf: no bpftrace (apt-get install bpftrace)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
gcc -O2 -o "$work/sc_loop" "$src/bench/sc_loop.c" && gcc -O2 -o "$work/ucall_loop" "$src/bench/ucall_loop.c" ||
	{ echo "native-bpf: cannot build the workloads"; exit 1; }

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "nan" }'; }
ns_of() { sed -n 's/.*ns_per_call=\([0-9.]*\).*/\1/p' | tail -1; }
# ns per call of the workload (PROG ARGS) under "$@" (a tracer's command
# line taking -c CMD), or alone when no tracer is given
traced_ns() {
	local prog=$1 n=$N; shift
	[ "$prog" = ucall_loop ] && n=$((N / 20))   # a uprobe costs microseconds
	if [ $# = 0 ]; then
		"$work/$prog" "$n" | ns_of
	else
		"$@" -c "$work/$prog $n" 2> "$work/err" | ns_of
	fi
}
# per-hit ns: median over R rounds of (traced - untraced), each round both
hit_cost() {
	local prog=$1; shift
	for i in $(seq "$R"); do
		local base t
		base=$(traced_ns "$prog")
		t=$(traced_ns "$prog" "$@")
		[ -n "$t" ] || { echo "nan"; continue; }
		awk -v a="$base" -v b="$t" 'BEGIN { printf "%.1f\n", b - a }'
	done | median
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "nan" || b == "nan" || b <= 0) print "n/a"; else printf "%.2f", a / b }'; }
row() { printf '%-52s %9s %9s %7s\n' "$1" "$2" "$3" "$(ratio "$2" "$3")"; }

export CSTAP_DEFAULT_RUNTIME=   # (natively: --bpf is given anyway)
echo "native BPF on $(uname -r): cstap --bpf against $("$BT" --version), $R rounds, medians"
printf '%-52s %9s %9s %7s\n' "" cstap bpftrace ratio

c=$(hit_cost sc_loop "$STAP" --bpf -e 'global n probe kernel.trace("syscalls:sys_enter_getppid") { n++ }')
b=$(hit_cost sc_loop "$BT" -e 'tracepoint:syscalls:sys_enter_getppid { @n = count(); }')
row "ns per hit: counter on syscalls:sys_enter_getppid" "$c" "$b"
s=$(hit_cost sc_loop "$STAP" --bpf -e 'global n probe syscall.getppid { n++ }')
row "ns per hit: syscall.getppid (tapset) vs the same" "$s" "$b"
c=$(hit_cost ucall_loop "$STAP" --bpf -e "global n probe process(\"$work/ucall_loop\").function(\"hot\") { n++ }")
b=$(hit_cost ucall_loop "$BT" -e "uprobe:$work/ucall_loop:hot { @n = count(); }")
row "ns per hit: counter on a uprobe" "$c" "$b"
if "$BT" -e 'kfunc:vfs_read { exit(); }' -c true > /dev/null 2>&1; then
	c=$(hit_cost sc_loop "$STAP" --bpf -e 'global n probe kernel.function("__x64_sys_getppid") { n++ }')
	b=$(hit_cost sc_loop "$BT" -e 'kfunc:__x64_sys_getppid { @n = count(); }')
	row "ns per hit: kernel.function (fentry) vs kfunc" "$c" "$b"
else
	row "ns per hit: kernel.function (fentry): no trampolines here" nan nan
fi

now() { date +%s.%N; }
first() {   # seconds from start to the line "first" (bpftrace says "Attaching" before)
	local t0 t1 line
	t0=$(now)
	line=$("$@" 2> "$work/err" | grep -m1 -x first)
	t1=$(now)
	[ "$line" = first ] || { echo nan; return; }
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
"$STAP" --bpf -e 'probe timer.ms(1) { println("first"); exit() }' > /dev/null 2>&1   # warm
"$BT" -e 'interval:ms:1 { printf("first\n"); exit(); }' > /dev/null 2>&1
c=$(for i in $(seq "$R"); do first "$STAP" --bpf -e 'probe timer.ms(1) { println("first"); exit() }'; done | median)
b=$(for i in $(seq "$R"); do first "$BT" -e 'interval:ms:1 { printf("first\n"); exit(); }'; done | median)
row "seconds from start to the first event (timer 1 ms)" "$c" "$b"
