#!/bin/bash
# probe-hit.sh - what one probe hit costs with cstap and with SystemTap 4.8,
# measured in the same QEMU guest boot on the same workload.
#
# The scripts are ../shared/anchor/bench/{kprobe_count,kprobe_agg,tp_count}.stp: a
# kernel.function("__do_sys_getppid") probe doing `c++`, or `a[execname()] <<< 1`,
# and a kernel.trace("sys_enter") probe doing `if ($id == 110) c++` (every
# system call hits it, getppid's count); kretprobe_count: the
# kernel.function("__do_sys_getppid").return probe doing `c++`, and
# kretprobe_empty the same doing nothing, and kretprobe_raw a kretprobe of
# a C module of its own whose handler counts (bench/kretprobe_raw.c: the
# kernel's cost, the floor under any translator's kretprobe_count; its
# ratio is against SystemTap's kretprobe_count, so list it after that)
# (kretprobe_empty is not in the default cases);
# and uprobe_count: a process("...").function("hot") probe doing `c++` on
# bench/ucall_loop.c (N/10 calls of a small function: a uprobe hit traps and
# single-steps, each costs far more than a kprobe on an ftrace site), built
# static at a host path the guest gets it at (both translators read it).
# The workload is the anchor's syscall_loop: N getppid() calls, timed inside
# the guest, printing ns_per_call. Each round runs the bare loop (base), then
# every module under `staprun -c LOOP` (cstap's staprun for cstap's modules,
# SystemTap's own staprun/stapio for its modules). Rounds alternate the cases so
# that drift hits all alike; the table shows medians. Both are built with
# MAXSKIPPED raised and STP_NO_OVERLOAD (both have the overload abort, which
# the loop can trip under TCG), so that no run stops early; skipped probes are reported. overhead = median - base
# median = the cost of one hit. Under TCG absolute numbers are inflated: only
# the ratio between the two implementations in one run means anything: the
# last line gives each case's cstap/SystemTap ratio of overheads. Each case
# BPF can run is also built with --runtime=bpf and run by stapbpf ("bpf"
# rows; the bpf/module line compares it with cstap's module), and built
# again through BTF with the debuginfo hidden, where a kernel.function
# probe is a BPF trampoline ("fentry" rows; fentry/kprobe compares the two).
#
# usage: bench/probe-hit.sh [-N CALLS] [-r ROUNDS] [-s CPUS] [-i]
#   -s 2 runs two loops at once on a 2-vCPU guest (single-threaded TCG).
#   -i counts guest instructions instead of time (QEMU -icount shift=0: the
#      guest clock advances 1 ns per instruction): the same figures from run
#      to run whatever the host's load, but what a hit executes, not what it
#      costs (atomics, memory, helper calls weigh the same as an add).
# env: CSTAP_BUILD (build dir), SYSTEMTAP (default /usr/bin/stap), ANCHOR_DIR (default
#   ../shared/anchor beside the source tree), CASES (a subset of the cases, in
#   the order given)
set -u
export CSTAP_DEFAULT_RUNTIME=kernel   # modules (for the guest) where this host loads none: what SystemTap is compared with
N=1000000; R=3; SMP=1; ICOUNT=0
while getopts "N:r:s:ih" o; do
	case $o in
	N) N=$OPTARG;; r) R=$OPTARG;; s) SMP=$OPTARG;; i) ICOUNT=1;;
	*) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2;;
	esac
done
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CSTAP_BUILD:-$src}
anchor=${ANCHOR_DIR:-$src/../shared/anchor}
systemtap=${SYSTEMTAP:-/usr/bin/stap}
rel=$("$build/translator/stap-vm" --default-release) || { echo "no kernel for the guest" >&2; exit 1; }
work=$(mktemp -d); [ "${KEEP:-0}" = 1 ] && echo "keeping $work" || trap 'rm -rf "$work"' EXIT
if [ $ICOUNT = 1 ]; then	# stap-vm runs $CSTAP_QEMU
	printf '#!/bin/sh\nexec %s "$@" -icount shift=0,sleep=off\n' "${CSTAP_QEMU:-qemu-system-x86_64}" > "$work/qemu-icount"
	chmod +x "$work/qemu-icount"
	export CSTAP_QEMU=$work/qemu-icount
fi
cases=${CASES:-kprobe_count kprobe_agg tp_count kretprobe_count kretprobe_raw uprobe_count}

gcc -O2 -static -o "$work/syscall_loop" "$anchor/bench/syscall_loop.c" || exit 1
gcc -O2 -g -static -o "$work/ucall_loop" "$src/bench/ucall_loop.c" || exit 1
cat > "$work/uprobe_count.stp" <<EOS
global c
probe process("$work/ucall_loop").function("hot") { c++ }
probe end { printf("hits=%d\\n", c) }
EOS
cat > "$work/kretprobe_count.stp" <<EOS
global c
probe kernel.function("__do_sys_getppid").return { c++ }
probe end { printf("hits=%d\\n", c) }
EOS
# the same probe doing nothing: what the kernel's kretprobe costs either
# translator's module before its handler's own work
cat > "$work/kretprobe_empty.stp" <<EOS
probe kernel.function("__do_sys_getppid").return { }
probe end { printf("hits=-\\n") }
EOS
have_st=0
if [ -x "$systemtap" ] && "$systemtap" -V 2>&1 | grep -qi "systemtap translator"; then
	have_st=1
	cp -a /usr/share/systemtap/runtime "$work/st-runtime"
	patch -s -d "$work/st-runtime" -p1 < "$anchor/patches/runtime-task_work_cancel_func.patch" || true
fi
files=(-f "$work/syscall_loop:/opt/bench/syscall_loop" -f "$work/ucall_loop"
	-f "$build/stapbpf/stapbpf:/bin/stapbpf")
for c in $cases; do
	if [ "$c" = kretprobe_raw ]; then	# a C module of its own (kbuild), no translator
		mkdir -p "$work/kraw" && cp "$src/bench/kretprobe_raw.c" "$work/kraw/" &&
			echo 'obj-m := kretprobe_raw.o' > "$work/kraw/Makefile" &&
			make -s -C "/lib/modules/$rel/build" M="$work/kraw" modules > "$work/kraw/log" 2>&1 ||
			{ echo "kretprobe_raw: kbuild failed:"; tail -5 "$work/kraw/log"; exit 1; } >&2
		files+=(-f "$work/kraw/kretprobe_raw.ko:/ko/kretprobe_raw.ko")
		continue
	fi
	[ -f "$work/$c.stp" ] || cp "$anchor/bench/$c.stp" "$work/"
	(cd "$work" && "$build/translator/stap" -p4 -DSTP_NO_OVERLOAD -DMAXSKIPPED=100000000 -m "c_$c" "$c.stp" > /dev/null) ||
		{ echo "cstap build of $c failed" >&2; exit 1; }
	files+=(-f "$work/c_$c.ko:/ko/c_$c.ko")
	if (cd "$work" && "$build/translator/stap" --runtime=bpf -r "$rel" -p4 -m "b_$c" "$c.stp" > /dev/null 2>&1); then
		files+=(-f "$work/b_$c.bo:/ko/b_$c.bo")
		eval "bpf_$c=1"
	fi
	# the same through BTF (no debuginfo): a BPF trampoline (fentry/fexit)
	# where the BPF row has a kprobe: which costs less per hit
	mkdir -p "$work/nodebug"
	if (cd "$work" && CSTAP_DEBUGINFO_DIR="$work/nodebug" DEBUGINFOD_URLS= "$build/translator/stap" \
		--runtime=bpf -r "$rel" -p4 -m "f_$c" "$c.stp" > /dev/null 2>&1) &&
	   grep -qE '^prog [0-9]+ (fentry|fexit) ' "$work/f_$c.bo"; then
		files+=(-f "$work/f_$c.bo:/ko/f_$c.bo")
		eval "fentry_$c=1"
	fi
	if [ $have_st = 1 ]; then
		(cd "$work" && "$systemtap" -p4 -r "$rel" -R "$work/st-runtime" -DSTP_NO_OVERLOAD \
			-DMAXSKIPPED=100000000 -m "s_$c" "$c.stp" > /dev/null 2>&1) ||
			{ echo "SystemTap build of $c failed" >&2; exit 1; }
		files+=(-f "$work/s_$c.ko:/ko/s_$c.ko")
	fi
done
if [ $have_st = 1 ]; then
	files+=(-f "$(readlink -f /usr/bin/staprun):/opt/st/staprun"
		-f "$(readlink -f /usr/lib/systemtap/stapio):/usr/lib/systemtap/stapio")
fi

loop="/opt/bench/syscall_loop $N"
[ "$SMP" -gt 1 ] && loop="$loop & $loop & wait"
uloop="$work/ucall_loop $((N / 10))"
[ "$SMP" -gt 1 ] && uloop="$uloop & $uloop & wait"
printf '%s\n' "$loop" > "$work/loop.sh"
printf '%s\n' "$uloop" > "$work/uloop.sh"
files+=(-f "$work/loop.sh:/opt/bench/loop.sh" -f "$work/uloop.sh:/opt/bench/uloop.sh")
jobs=$work/jobs; : > "$jobs"
tmo=$((60 + N / 10000))
for r in $(seq "$R"); do
	printf 'base.%d\t%d\tsh /opt/bench/loop.sh\n' "$r" "$tmo" >> "$jobs"
	printf 'ubase.%d\t%d\tsh /opt/bench/uloop.sh\n' "$r" "$tmo" >> "$jobs"
	for c in $cases; do
		if [ "$c" = kretprobe_raw ]; then
			printf 'raw_%s.%d\t%d\tinsmod /ko/kretprobe_raw.ko && sh /opt/bench/loop.sh; rmmod kretprobe_raw; dmesg | sed -n "s/.*kretprobe_raw //p" | tail -1\n' \
				"$c" "$r" "$tmo" >> "$jobs"
			continue
		fi
		l=loop; [ "${c#uprobe}" != "$c" ] && l=uloop
		printf 'cstap_%s.%d\t%d\texec staprun -c "sh /opt/bench/%s.sh" /ko/c_%s.ko\n' "$c" "$r" "$tmo" "$l" "$c" >> "$jobs"
		[ "$(eval echo "\${bpf_$c:-0}")" = 1 ] &&
			printf 'bpf_%s.%d\t%d\texec stapbpf -c "sh /opt/bench/%s.sh" /ko/b_%s.bo\n' "$c" "$r" "$tmo" "$l" "$c" >> "$jobs"
		[ "$(eval echo "\${fentry_$c:-0}")" = 1 ] &&
			printf 'fentry_%s.%d\t%d\texec stapbpf -c "sh /opt/bench/%s.sh" /ko/f_%s.bo\n' "$c" "$r" "$tmo" "$l" "$c" >> "$jobs"
		[ $have_st = 1 ] &&
			printf 'systemtap_%s.%d\t%d\t/opt/st/staprun -c "sh /opt/bench/%s.sh" /ko/s_%s.ko; rc=$?; rmmod s_%s 2>/dev/null; exit $rc\n' \
				"$c" "$r" "$tmo" "$l" "$c" "$c" >> "$jobs"
	done
done
"$build/translator/stap-vm" -s "$SMP" -m 1024 "${files[@]}" -b "$jobs" -O "$work/out" > "$work/vm.log" 2>&1 ||
	{ echo "guest run failed:"; tail -20 "$work/vm.log"; exit 1; }

# median ns_per_call of a case over the rounds (mean of the loops in a run)
median() {
	for f in "$work/out/$1".*.out; do
		awk -F'[= ]' '/ns_per_call=/ { s += $2; n++ } END { if (n) printf "%.1f\n", s / n }' "$f"
	done | sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)]; else print "nan" }'
}
hits() { grep -h '^hits=' "$work/out/$1".*.out 2>/dev/null | sort | uniq -c | awk '{ printf "%s%s(x%d)", (NR > 1 ? " " : ""), $2, $1 }'; }
skips() { grep -h 'skipped probes\|Skipped too many' "$work/out/$1".*.err 2>/dev/null | head -1; }
base=$(median base)
ubase=$(median ubase)
echo "probe-hit cost: N=$N getppid calls per loop (N/10 calls of hot() for uprobe_*), $SMP CPU(s), $R rounds, kernel $rel (TCG)"
[ $ICOUNT = 1 ] && echo "(-i: guest instructions, not ns)"
printf '%-26s %12s %12s %14s\n' case "ns/call" "overhead ns" hits
printf '%-26s %12s %12s %14s\n' "base (no module)" "$base" 0 -
printf '%-26s %12s %12s %14s\n' "ubase (no module)" "$ubase" 0 -
for c in $cases; do
	b0=$base; [ "${c#uprobe}" != "$c" ] && b0=$ubase
	if [ "$c" = kretprobe_raw ]; then
		m=$(median "raw_$c")
		o=$(awk -v a="$m" -v b="$b0" 'BEGIN { printf "%.1f", a - b }')
		printf '%-26s %12s %12s %14s\n' "raw (no translator) $c" "$m" "$o" "$(hits "raw_$c")"
		if [ $have_st = 1 ] && [ -n "${ov_systemtap_kretprobe_count:-}" ]; then
			r=$(awk -v a="$o" -v b="$ov_systemtap_kretprobe_count" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }')
			printf '%-26s %12s %12s\n' "raw/SystemTap kretprobe_count" "" "$r"
			ratios="${ratios:-}${ratios:+ }kretprobe_raw=$r"
		fi
		continue
	fi
	for impl in cstap bpf fentry systemtap; do
		[ $impl = systemtap ] && [ $have_st = 0 ] && continue
		[ $impl = bpf ] && [ "$(eval echo "\${bpf_$c:-0}")" != 1 ] && continue
		[ $impl = fentry ] && [ "$(eval echo "\${fentry_$c:-0}")" != 1 ] && continue
		m=$(median "${impl}_$c")
		o=$(awk -v a="$m" -v b="$b0" 'BEGIN { printf "%.1f", a - b }')
		eval "ov_${impl}_$c=$o"
		printf '%-26s %12s %12s %14s\n' "${impl} $c" "$m" "$o" "$(hits "${impl}_$c")"
		k=$(skips "${impl}_$c"); [ -n "$k" ] && echo "    ($k)"
	done
	if [ "$(eval echo "\${bpf_$c:-0}")" = 1 ]; then
		a=$(eval echo "\$ov_bpf_$c"); b=$(eval echo "\$ov_cstap_$c")
		r=$(awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }')
		printf '%-26s %12s %12s\n' "bpf/module $c" "" "$r"
		bratios="${bratios:-}${bratios:+ }$c=$r"
	fi
	if [ "$(eval echo "\${fentry_$c:-0}")" = 1 ] && [ "$(eval echo "\${bpf_$c:-0}")" = 1 ]; then
		a=$(eval echo "\$ov_fentry_$c"); b=$(eval echo "\$ov_bpf_$c")
		r=$(awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }')
		printf '%-26s %12s %12s\n' "fentry/kprobe bpf $c" "" "$r"
		fratios="${fratios:-}${fratios:+ }$c=$r"
	fi
	if [ $have_st = 1 ]; then
		a=$(eval echo "\$ov_cstap_$c"); b=$(eval echo "\$ov_systemtap_$c")
		r=$(awk -v a="$a" -v b="$b" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "nan" }')
		printf '%-26s %12s %12s\n' "cstap/SystemTap $c" "" "$r"
		ratios="${ratios:-}${ratios:+ }$c=$r"
	fi
done
[ -n "${bratios:-}" ] && echo "bpf ratios ($SMP CPU(s), --runtime=bpf overhead / module overhead): $bratios"
[ -n "${fratios:-}" ] && echo "trampoline ratios (BPF through BTF's fentry/fexit overhead / BPF's kprobe overhead): $fratios"
if [ $have_st = 1 ]; then
	echo "ratios ($SMP CPU(s), cstap overhead / SystemTap overhead): $ratios"
else
	echo "(SystemTap 4.8 not installed: apt-get install systemtap to compare)"
fi
