#!/bin/bash
# pass2-dwarf.sh - pass 2 (elaboration against the kernel's DWARF and the
# tapset library) of
#   probe kernel.function("vfs_*") {}
#   the same with target variables ($$parms$ in every probe)
#   probe syscall.* {}                            (the syscall tapset)
#   probe vfs.*, scheduler.*, signal.* {}         (subsystem tapsets)
#   global n; probe kernel.trace("*") { n++ }     (every tracepoint: both
#                                                  with their caches warm)
# cstap beside Debian's SystemTap 4.8 (/usr/bin/stap) when installed; median
# of N runs (default 5) of the "Pass 2: ... Nreal ms" figure of -v, the
# ratio cstap / SystemTap, how many times faster cstap is, and the median
# peak memory of each whole process (MiB, /usr/bin/time's maximum RSS).
# SystemTap runs with --disable-cache but for the tracepoints, where both
# are measured as a user sees them the second time (each run twice first).
# usage: bench/pass2-dwarf.sh [N]     env: CSTAP_BUILD (build dir), SYSTEMTAP
set -u
export CSTAP_DEFAULT_RUNTIME=kernel   # modules (for the guest) where this host loads none: what SystemTap is compared with
n=${1:-5}
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CSTAP_BUILD:-$src}
cstap=$build/translator/stap
systemtap=${SYSTEMTAP:-/usr/bin/stap}
rel=$("$build/translator/stap-vm" --default-release 2>/dev/null)

median() { sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}'; }
timer=/usr/bin/time
[ -x "$timer" ] || timer=

# one run of the command: pass 2's real ms and the peak MiB ("-" unknown)
measure() {
	if [ -n "$timer" ]; then
		"$timer" -f 'maxrss %M' "$@" 2>&1 >/dev/null
	else
		"$@" 2>&1 >/dev/null
	fi | awk '/^Pass 2:.*real ms/ { ms = $0; sub(/real ms.*/, "", ms); sub(/.*\//, "", ms) }
		  /^maxrss [0-9]+$/ { mib = int($2 / 1024) }
		  END { print (ms == "" ? "-" : ms), (mib == "" ? "-" : mib) }'
}

# median real ms of pass 2 and median peak MiB over n runs of the command
p2() {
	local runs
	runs=$(for i in $(seq "$n"); do measure "$@"; done)
	echo "$(awk '$1 != "-" { print $1 }' <<< "$runs" | median) $(awk '$2 != "-" { print $2 }' <<< "$runs" | median)"
}

have_st=0
[ -x "$systemtap" ] && "$systemtap" -V 2>&1 | grep -qi "systemtap translator" && have_st=1
printf '%-40s %10s %14s %8s %8s %10s %14s\n' "pass 2, ms (median of $n)" cstap "SystemTap 4.8" ratio faster \
       "cstap MiB" "SystemTap MiB"
for script in 'probe kernel.function("vfs_*") {}' \
	      'probe kernel.function("vfs_*") { println($$parms$) }' \
	      'probe syscall.* {}' \
	      'probe vfs.*, scheduler.*, signal.* {}' \
	      'global n; probe kernel.trace("*") { n++ }'; do
	cache=--disable-cache
	case $script in *kernel.trace*)   # warm: each with its cache filled first
		cache=
		"$cstap" -p2 -e "$script" > /dev/null 2>&1
		[ "$have_st" = 1 ] && for i in 1 2; do "$systemtap" -r "$rel" -p2 -e "$script" > /dev/null 2>&1; done;;
	esac
	read -r c cm <<< "$(p2 "$cstap" -v -p2 -e "$script")"
	s=- sm=-
	[ "$have_st" = 1 ] && read -r s sm <<< "$(p2 "$systemtap" -v -r "$rel" -p2 $cache -e "$script")"
	r=- x=-
	if [ "$s" != - ] && [ "$c" != - ] && [ "$s" -gt 0 ]; then
		r=$(awk -v a="$c" -v b="$s" 'BEGIN { printf "%.3f", a / b }')
		x=$(awk -v a="$c" -v b="$s" 'BEGIN { if (a > 0) printf "%.0fx", b / a; else printf ">%dx", b }')
	fi
	label=${script#global n; }
	label=${label#probe }
	label=${label% \{*}
	case $script in *'$$parms$'*) label="$label \$\$parms\$";; *kernel.trace*) label="$label { n++ }, warm";; esac
	printf '%-40s %10s %14s %8s %8s %10s %14s\n' "$label" "$c" "$s" "$r" "$x" "$cm" "$sm"
done
