#!/bin/bash
# passes.sh - time passes 1-4 of cstap's stap on the hello script, beside
# Debian's SystemTap 4.8 (/usr/bin/stap) when it is installed.
#
# Each is run N times (default 3) cold: both with --disable-cache (cstap keeps
# its kbuild recipe: a "plain kbuild" row runs without it; bench/cache-hit.sh
# times the module caches). Printed: the median "real ms" of each pass from `-v`, and
# the ratios. SystemTap 4.8 needs a runtime patched for kernels with
# task_work_cancel_func (../shared/anchor/patches); this script makes that copy.
# usage: bench/passes.sh [N]     env: CSTAP_BUILD (build dir), SYSTEMTAP=/usr/bin/stap
set -u
export CSTAP_DEFAULT_RUNTIME=kernel   # modules (for the guest) where this host loads none: what SystemTap is compared with
n=${1:-3}
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CSTAP_BUILD:-$src}
cstap=$build/translator/stap
systemtap=${SYSTEMTAP:-/usr/bin/stap}
script='probe begin { printf("hello %s %d\n", "world", 42); exit() }'
rel=$("$build/translator/stap-vm" --default-release 2>/dev/null)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

# median of the "Pass K: ... Nreal ms" figures in the given logs
median() {
	local k=$1; shift
	for f in "$@"; do sed -n "s/^Pass $k:.*\/\([0-9]*\)real ms.*/\1/p" "$f"; done | sort -n |
		awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}'
}

run_many() {   # name, then the command
	local name=$1; shift
	for i in $(seq "$n"); do
		(cd "$work" && "$@" > /dev/null 2> "$work/$name.$i.log")
	done
}

run_many cstap "$cstap" -v -p4 --disable-cache -m bench_hello -e "$script"
CSTAP_NO_RECIPE=1 run_many cstap_kbuild "$cstap" -v -p4 --disable-cache -m bench_hello -e "$script"
have_st=0
if [ -x "$systemtap" ] && "$systemtap" -V 2>&1 | grep -qi "systemtap translator"; then
	rt=$work/st-runtime
	cp -a /usr/share/systemtap/runtime "$rt"
	patch -s -d "$rt" -p1 < "$src/../shared/anchor/patches/runtime-task_work_cancel_func.patch" 2>/dev/null || true
	run_many systemtap "$systemtap" -v -p4 --disable-cache -R "$rt" -r "$rel" -m st_hello -e "$script"
	"$systemtap" -p4 -R "$rt" -r "$rel" -m st_hello -e "$script" > /dev/null 2>&1   # fill its cache
	run_many systemtap_warm "$systemtap" -v -p4 -R "$rt" -r "$rel" -m st_hello -e "$script"
	have_st=1
fi

printf '%-22s %10s %10s %10s %10s %10s\n' "hello script, ms" "pass 1" "pass 2" "pass 3" "pass 4" "p1-p3"
row() {
	local name=$1 a b c d
	a=$(median 1 "$work/$name".*.log); b=$(median 2 "$work/$name".*.log)
	c=$(median 3 "$work/$name".*.log); d=$(median 4 "$work/$name".*.log)
	printf '%-22s %10s %10s %10s %10s %10s\n' "$2" "$a" "$b" "$c" "$d" "$((a + b + c))"
	eval "${name}_p13=$((a + b + c)) ${name}_p4=$d"
}
row cstap "cstap (recipe cached)"
row cstap_kbuild "cstap (plain kbuild)"
if [ $have_st = 1 ]; then
	row systemtap "SystemTap 4.8 (cold)"
	row systemtap_warm "SystemTap 4.8 (warm)"
	awk -v a="$cstap_p13" -v b="$systemtap_p13" -v c="$cstap_p4" -v d="$systemtap_p4" 'BEGIN {
		printf "%-22s %10s %10s %10s %10s %10s\n", "SystemTap cold / cstap", "", "", "",
		       (c ? sprintf("%.1fx", d / c) : "-"), (a ? sprintf("%.0fx", b / a) : ">" b "x") }'
else
	echo "(SystemTap 4.8 not installed: apt-get install systemtap to compare)"
fi

# passes 1-3 are below -v's 1 ms resolution: time 20 runs of -p3 as a whole
t0=$(date +%s%N)
for i in $(seq 20); do "$cstap" -p3 -e "$script" > /dev/null; done
t1=$(date +%s%N)
echo "cstap -p3 (passes 1-3, process start to exit): $(( (t1 - t0) / 20000 )) us per run, mean of 20"
# the whole -p3 process as a user waits for it, and its peak memory: the
# median of 9 runs (/usr/bin/time's maximum resident set), SystemTap with
# its cache warm (its second run)
whole() {   # prints "MS MIB": the median run's wall ms and peak MiB
	for i in $(seq 9); do
		local t0 t1
		t0=$(date +%s%N)
		/usr/bin/time -f %M -o "$work/rss" "$@" > /dev/null 2>&1
		t1=$(date +%s%N)
		echo "$(( (t1 - t0) / 1000 )) $(tail -1 "$work/rss")"
	done | sort -n | sed -n 5p | awk '{ printf "%.1f %.1f\n", $1 / 1000, $2 / 1024 }'
}
if [ -x /usr/bin/time ]; then
	read -r cms cmib <<< "$(whole "$cstap" -p3 -e "$script")"
	printf '%-40s %10s %10s\n' "stap -p3 hello, whole process" "ms" "MiB"
	printf '%-40s %10s %10s\n' "cstap" "$cms" "$cmib"
	if [ $have_st = 1 ]; then
		read -r sms smib <<< "$(whole "$systemtap" -p3 -R "$rt" -r "$rel" -e "$script")"
		printf '%-40s %10s %10s\n' "SystemTap 4.8 (cache warm)" "$sms" "$smib"
		awk -v a="$cms" -v b="$sms" -v c="$cmib" -v d="$smib" 'BEGIN {
			printf "%-40s %10.3f %10.3f\n", "ratio cstap / SystemTap", a / b, c / d }'
	fi
fi
echo "medians of $n runs; 'cold' SystemTap = --disable-cache; all on this machine, same kernel"
