#!/bin/bash
# pass2-dwarf.sh - pass 2 (elaboration against the kernel's DWARF) of
#   probe kernel.function("vfs_*") {}
# and of the same with target variables ($$parms$ in every probe), cstap beside
# Debian's SystemTap 4.8 (/usr/bin/stap) when installed; median of N runs
# (default 5) of the "Pass 2: ... Nreal ms" figure of -v, and the ratio.
# usage: bench/pass2-dwarf.sh [N]     env: CSTAP_BUILD (build dir), SYSTEMTAP
set -u
n=${1:-5}
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CSTAP_BUILD:-$src}
cstap=$build/translator/stap
systemtap=${SYSTEMTAP:-/usr/bin/stap}
rel=$("$build/translator/stap-vm" --default-release 2>/dev/null)

# median real ms of pass 2 over n runs of the command
p2() {
	for i in $(seq "$n"); do
		"$@" 2>&1 >/dev/null | sed -n 's/^Pass 2:.*\/\([0-9]*\)real ms.*/\1/p'
	done | sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}'
}

have_st=0
[ -x "$systemtap" ] && "$systemtap" -V 2>&1 | grep -qi "systemtap translator" && have_st=1
printf '%-34s %10s %14s %8s\n' "pass 2, ms (median of $n)" cstap "SystemTap 4.8" ratio
for script in 'probe kernel.function("vfs_*") {}' \
	      'probe kernel.function("vfs_*") { println($$parms$) }'; do
	c=$(p2 "$cstap" -v -p2 -e "$script")
	s=-
	[ "$have_st" = 1 ] && s=$(p2 "$systemtap" -v -r "$rel" -p2 --disable-cache -e "$script")
	r=-
	[ "$s" != - ] && [ "$c" != - ] && [ "$s" -gt 0 ] && r=$(awk -v a="$c" -v b="$s" 'BEGIN { printf "%.3f", a / b }')
	label=${script#probe kernel.function(\"vfs_*\") }
	printf '%-34s %10s %14s %8s\n' "vfs_* $label" "$c" "$s" "$r"
done
