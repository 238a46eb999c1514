#!/bin/bash
# stress.sh - cstap under load on 2 CPUs: in one guest boot per installed
# kernel (stap-vm --releases, or $RELEASES), with 2 vCPUs (single-threaded
# TCG), probes on hot paths (testsuite/stress/hot.stp: vfs_read, the
# sched_switch tracepoint, timer.profile) are armed and disarmed repeatedly
# while testsuite/stress/load.c keeps both CPUs busy in read/getppid/fork,
# and stapio is killed with SIGKILL mid-run (the module must still unload and
# the next run work); see testsuite/stress/guest.sh. The same probes built
# with -DSTP_IRQOFF_HANDLERS (SystemTap's interrupts-off handlers) are armed
# and disarmed too, and --runtime=bpf's wrapping arrays are changed by
# programs on both CPUs at once (testsuite/stress/wrap.stp: their lock
# and list, wrap.c). Any trouble on the guest
# console (BUG, Oops, WARNING, RCU stall, lockup: translator/remote/boot.c)
# fails the boot and so the test. About 60-90 s of guest time per kernel.
# usage: stress.sh      env: CSTAP_BUILD (build dir), RELEASES, ROUNDS (arm rounds, 4)
set -u
export CSTAP_DEFAULT_RUNTIME=kernel   # modules in a guest where this host loads none (native-tests.sh: the default)
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CSTAP_BUILD:-$(pwd)}
[ -x "$build/translator/stap" ] || build=$src
STAP=$build/translator/stap
STAPVM=$build/translator/stap-vm
command -v qemu-system-x86_64 >/dev/null || { echo "stress: SKIP: no qemu-system-x86_64"; exit 77; }
releases=${RELEASES:-$("$STAPVM" --releases 2>/dev/null)}
[ -n "$releases" ] || { echo "stress: SKIP: no bootable kernel"; exit 77; }
rounds=${ROUNDS:-4}
work=$(mktemp -d "${TMPDIR:-/tmp}/cstap-stress.XXXXXX")
[ "${KEEP:-0}" = 1 ] && echo "work dir: $work" || trap 'rm -rf "$work"' EXIT

gcc -static -O -o "$work/load" "$src/testsuite/stress/load.c" || exit 1
tab=$(printf '\t')
printf 'arm%s240%ssh /stress/guest.sh arm %d\nkill%s120%ssh /stress/guest.sh kill\nirqoff%s120%sMOD=stress_irqoff sh /stress/guest.sh arm 2\n' \
	"$tab" "$tab" "$rounds" "$tab" "$tab" "$tab" "$tab" > "$work/jobs"
printf 'bpfwrap%s120%s/stress/load 2 600 > /dev/null & l=$!; /stress/stapbpf -T 10 /stress/wrap.bo 2>&1; echo rc=$?; kill $l 2>/dev/null; wait\n' \
	"$tab" "$tab" >> "$work/jobs"
printf 'sizes ok: 1 1, adds>1000: 1, deletes>0: 1\nrc=0\n' > "$work/bpfwrap.expect"

# What each job must print (the module's end probe, staprun's status, the
# checks of guest.sh), for ROUNDS rounds.
hot_ok='reads yes
switches on both cpus
ticks yes
load reads yes'
{
	echo "module: stress_hot"
	for r in $(seq 1 "$rounds"); do
		printf 'round %d: rc=0\n%s\nround %d: unloaded\n' "$r" "$hot_ok" "$r"
	done
	echo "load ran: 2 processes"
} > "$work/arm.expect"
printf 'module: stress_irqoff\n' > "$work/irqoff.expect"
printf 'round %d: rc=0\n%s\nround %d: unloaded\n' 1 "$hot_ok" 1 2 "$hot_ok" 2 >> "$work/irqoff.expect"
echo "load ran: 2 processes" >> "$work/irqoff.expect"
printf 'probes armed\nstaprun: rc=137\nERROR: stapio killed by signal 9\nafter SIGKILL: unloaded\nnext run: rc=0\n%s\nnext run: unloaded\nload ran: 2 processes\n' \
	"$hot_ok" > "$work/kill.expect"

pass=0 fail=0
for rel in $releases; do
	echo "== kernel $rel"
	d=$work/$rel; mkdir -p "$d"
	# a timer.profile tick that lands in a handler on its CPU, or a map lock
	# held by the other CPU past MAXTRYLOCK, is a skipped probe by design:
	# they are allowed (MAXSKIPPED raised), errors are not
	if ! (cd "$d" && "$STAP" -p4 -r "$rel" -m stress_hot -DMAXSKIPPED=1000000 "$src/testsuite/stress/hot.stp" &&
		"$STAP" -p4 -r "$rel" -m stress_irqoff -DMAXSKIPPED=1000000 -DSTP_IRQOFF_HANDLERS "$src/testsuite/stress/hot.stp" &&
		"$STAP" -p4 -r "$rel" --runtime=bpf -m wrap "$src/testsuite/stress/wrap.stp") > "$d/build.log" 2>&1; then
		echo "FAIL: stress on $rel: build failed"; sed 's/^/    /' "$d/build.log"; fail=$((fail + 1)); continue
	fi
	t0=$(date +%s)
	"$STAPVM" -r "$rel" -s 2 -t 300 -f "$d/stress_hot.ko:/ko/stress_hot.ko" -f "$d/stress_irqoff.ko:/ko/stress_irqoff.ko" -f "$work/load:/stress/load" \
		-f "$src/testsuite/stress/guest.sh:/stress/guest.sh" -f "$d/wrap.bo:/stress/wrap.bo" \
		-f "$build/stapbpf/stapbpf:/stress/stapbpf" -b "$work/jobs" -O "$d/res" > "$d/vm.log" 2>&1
	vmrc=$?
	echo "    (guest: $(( $(date +%s) - t0 )) s)"
	why=""
	[ $vmrc = 0 ] || why+="stap-vm failed (status $vmrc):"$'\n'"$(tail -40 "$d/vm.log")"$'\n'
	for j in arm kill irqoff bpfwrap; do
		if [ ! -f "$d/res/$j.out" ]; then why+="$j: no result"$'\n'; continue; fi
		grep -Ev '^WARNING: Number of errors: 0, skipped probes: [0-9]+$' "$d/res/$j.out" > "$d/res/$j.cmp"
		dd=$(diff "$work/$j.expect" "$d/res/$j.cmp") || why+="$j: output differs:"$'\n'"$dd"$'\n'
		[ -s "$d/res/$j.err" ] && why+="$j: stderr: $(cat "$d/res/$j.err")"$'\n'
	done
	if [ -z "$why" ]; then echo "PASS: stress on $rel"; pass=$((pass + 1))
	else echo "FAIL: stress on $rel"; printf '%s' "$why" | sed 's/^/    /'; fail=$((fail + 1)); fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
