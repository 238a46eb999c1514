#!/bin/bash
# pass2-dwarf.sh - pass 2 (elaboration against the kernel's DWARF and the
# tapset library) of
#   probe kernel.function("vfs_*") {}
#   the same with target variables ($$parms$ in every probe)
#   probe syscall.* {}                            (the syscall tapset)
#   probe vfs.*, scheduler.*, signal.* {}         (subsystem tapsets)
# cstap beside Debian's SystemTap 4.8 (/usr/bin/stap) when installed; median
# of N runs (default 5) of the "Pass 2: ... Nreal ms" figure of -v, the
# ratio cstap / SystemTap and how many times faster cstap is.
# usage: bench/pass2-dwarf.sh [N]     env: CSTAP_BUILD (build dir), SYSTEMTAP
set -u
export CSTAP_DEFAULT_RUNTIME=kernel   # modules (for the guest) where this host loads none: what SystemTap is compared with
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
printf '%-40s %10s %14s %8s %8s\n' "pass 2, ms (median of $n)" cstap "SystemTap 4.8" ratio faster
for script in 'probe kernel.function("vfs_*") {}' \
	      'probe kernel.function("vfs_*") { println($$parms$) }' \
	      'probe syscall.* {}' \
	      'probe vfs.*, scheduler.*, signal.* {}'; do
	c=$(p2 "$cstap" -v -p2 -e "$script")
	s=-
	[ "$have_st" = 1 ] && s=$(p2 "$systemtap" -v -r "$rel" -p2 --disable-cache -e "$script")
	r=- x=-
	if [ "$s" != - ] && [ "$c" != - ] && [ "$s" -gt 0 ]; then
		r=$(awk -v a="$c" -v b="$s" 'BEGIN { printf "%.3f", a / b }')
		x=$(awk -v a="$c" -v b="$s" 'BEGIN { if (a > 0) printf "%.0fx", b / a; else printf ">%dx", b }')
	fi
	label=${script#probe }
	label=${label% \{*}
	case $script in *'$$parms$'*) label="$label \$\$parms\$";; esac
	printf '%-40s %10s %14s %8s %8s\n' "$label" "$c" "$s" "$r" "$x"
done
