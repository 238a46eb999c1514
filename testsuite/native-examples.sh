#!/bin/bash
# native-examples.sh - SystemTap's packaged examples that build with
# --runtime=bpf on this host, natively (no guest), each run as its .meta's
# test_installcheck line says with --bpf added: each must end with status
# 0 (probes this kernel cannot attach only warned of), but those listed
# below, which end as said and why. Prints how many build and how many run.
# Skipped (77) without root, BTF or the examples (systemtap's package).
# usage: native-examples.sh    env: CSTAP_BUILD (build dir), KEEP=1
set -u
. "$(dirname "$0")/lib.sh"
unset CSTAP_DEFAULT_RUNTIME   # natively; --bpf is given anyway
exdir=/usr/share/systemtap/examples
[ "$(id -u)" = 0 ] || { echo "native-examples: SKIP: needs root"; exit 77; }
[ -r /sys/kernel/btf/vmlinux ] || { echo "native-examples: SKIP: no BTF"; exit 77; }
[ -d "$exdir" ] || { echo "native-examples: SKIP: no $exdir"; exit 77; }

# NAME -> "STATUS PATTERN WHY": the status it ends with, a line its stderr
# has, and why (where the host decides, the other outcome is a pass too)
declare -A known=(
	[key]="1 B_ATTACH|kbd_event: kernel.function only, and this kernel attaches neither kprobes nor trampolines"
	[auditbt]="1 B_ATTACH|audit_log_end: kernel.function only (its print_ubacktrace() has a BPF form), the same"
	[interrupts-by-dev]="1 kernel string copy fault|kernel_string() in a timer probe stapbpf runs in user space (for its foreach), where kernel memory is not"
	[accept2close-nd]="1 cannot access function args|int_arg() reads registers, which a syscalls trace event (no kprobes here) does not have"
	[syscallbypid-nd]="1 Array overflow|an array keyed by every process of the host: a busy one (make check's other suites) fills MAXMAPENTRIES, as SystemTap's would"
	[thread-business]="1 Array overflow|an array keyed by every thread of the host: the same"
	[killsnoop-nd]="1 cannot access function args|uint_arg()/int_arg() read registers, which a syscalls trace event (no kprobes here) does not have: when a process of the host calls kill in its second"
	[eventcount]="1 division by 0|its timer.s(1) resets start_ms on a 10-second boundary; when that firing and sleep 3's end (both at 3 s) fall in one millisecond, its end probe divides by an elapsed 0 ms, as SystemTap's would"
	[errno]="1 Array overflow|an array keyed by the pid, errno and system call of every failing call on the host in its second: the same"
)
nbuild=0 nrun=0 nknown=0 fails=()
for stp in $(find "$exdir" -name '*.stp' | sort); do
	meta=${stp%.stp}.meta n=$(basename "$stp" .stp) d=$(dirname "$stp")
	line=$(sed -n 's/^test_installcheck: stap //p' "$meta" 2>/dev/null | head -1)
	[ -n "$line" ] || continue
	(cd "$d" && timeout -k 5 60 "$STAP" --bpf -p4 -m "ex_$$" "$n.stp" > /dev/null 2>&1) || continue
	nbuild=$((nbuild + 1))
	limit=60   # one known to run until killed: not that long
	[ "${known[$n]:-}" ] && [ "${known[$n]%% *}" = 124 ] && limit=5
	(cd "$d" && eval "timeout -k 5 $limit \"\$STAP\" --bpf $line" > "$work/$n.out" 2> "$work/$n.err" < /dev/null)
	rc=$?
	if [ -n "${known[$n]:-}" ]; then
		want=${known[$n]%% *} pat=${known[$n]#* } pat=${pat%%|*}
		if [ "$rc" = 0 ] || { [ "$rc" = "$want" ] && grep -qE "$pat" "$work/$n.err"; }; then
			nknown=$((nknown + 1))
			continue
		fi
	elif [ "$rc" = 0 ] && ! grep -q '^ERROR' "$work/$n.err"; then
		nrun=$((nrun + 1))
		continue
	fi
	fails+=("$n (status $rc): $line" "    $(head -2 "$work/$n.err" | tr '\n' ' ' | cut -c1-200)")
done
if [ ${#fails[@]} = 0 ] && [ "$nbuild" -gt 0 ]; then
	ok "of SystemTap's examples with a test_installcheck line, $nbuild build with --bpf here; $nrun run natively with status 0, $nknown end as known (${!known[*]})"
else
	bad "SystemTap's examples natively ($nbuild build, $nrun run)" "${fails[@]}"
fi
for k in "${!known[@]}"; do echo "    $k: ${known[$k]#*|}"; done
finish
