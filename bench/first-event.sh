#!/bin/bash
# first-event.sh - from `stap` starting to the script's first event, on a
# warm machine: with --runtime=bpf the passes end in a bundle that stapbpf
# loads at once (no kbuild), on this host's own kernel (its BPF; a timer
# probe, which needs no debuginfo); beside it what a module costs before it
# can even load: cstap's passes 1-4 (--disable-cache, the guest kernel) and
# SystemTap 4.8's (a fresh cache directory), for the same script.
# Prints each median and the ratios.
# usage: bench/first-event.sh [-r ROUNDS]     env: CSTAP_BUILD, SYSTEMTAP
set -u
R=5
while getopts "r:h" o; do
	case $o in r) R=$OPTARG;; *) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2;; esac
done
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CSTAP_BUILD:-$src}
STAP=$build/translator/stap
systemtap=${SYSTEMTAP:-/usr/bin/stap}
rel=$("$build/translator/stap-vm" --default-release 2>/dev/null)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
script='probe timer.ms(1) { printf("first\n"); exit() }'

now() { date +%s.%N; }
# median of the numbers on stdin
median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "nan" }'; }
# seconds from start to the first line of output of "$@" (its first event)
to_first_line() {
	local t0 t1 line
	t0=$(now)
	line=$("$@" 2>"$work/err" | head -1)
	t1=$(now)
	[ "$line" = first ] || { echo "no event from: $* ($(head -3 "$work/err"))" >&2; echo nan; return; }
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
seconds() {
	local t0 t1
	t0=$(now)
	"$@" > /dev/null 2>"$work/err" || { echo "failed: $* ($(head -3 "$work/err"))" >&2; echo nan; return; }
	t1=$(now)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}

"$STAP" --runtime=bpf -r "$(uname -r)" -e "$script" > /dev/null 2>&1   # warm: files in the page cache
bpf=$(for i in $(seq "$R"); do (cd "$work" && to_first_line "$STAP" --runtime=bpf -r "$(uname -r)" -e "$script"); done | median)
mod=nan st=nan
if [ -n "$rel" ]; then
	mod=$(for i in $(seq "$R"); do (cd "$work" && seconds "$STAP" -p4 --disable-cache -r "$rel" -e "$script"); done | median)
fi
anchor=${ANCHOR_DIR:-$src/../shared/anchor}
if [ -n "$rel" ] && [ -x "$systemtap" ] && "$systemtap" -V 2>&1 | grep -qi "systemtap translator"; then
	# its runtime as the anchor builds it for this kernel (probe-hit.sh does the same)
	cp -a /usr/share/systemtap/runtime "$work/st-runtime"
	patch -s -d "$work/st-runtime" -p1 < "$anchor/patches/runtime-task_work_cancel_func.patch" 2>/dev/null || true
	st=$(for i in $(seq "$R"); do
		d=$(mktemp -d)
		(cd "$work" && SYSTEMTAP_DIR=$d seconds "$systemtap" -p4 -r "$rel" -R "$work/st-runtime" -e "$script")
		rm -rf "$d"
	done | median)
fi
echo "first event: timer.ms(1) script, $R rounds, medians (warm machine)"
printf '%-52s %8s s\n' "cstap --runtime=bpf: stap start to first event ($(uname -r))" "$bpf"
printf '%-52s %8s s\n' "cstap module: passes 1-4 alone (kernel ${rel:-none})" "$mod"
printf '%-52s %8s s\n' "SystemTap 4.8 module: passes 1-4 alone" "$st"
awk -v b="$bpf" -v m="$mod" -v s="$st" 'BEGIN {
	printf "ratios: module passes 1-4 / bpf first event = %s, SystemTap / bpf = %s\n",
		(b > 0 && m == m + 0) ? sprintf("%.0f", m / b) : "nan", (b > 0 && s == s + 0) ? sprintf("%.0f", s / b) : "nan" }'
