#!/bin/bash
# timed.sh - make check's LOG_COMPILER: runs one suite (a script or a unit
# test program) and ends its log with the lines testsuite/times.sh reads
# back: its wall and CPU time (the CPU seconds of all it ran, guests
# included: what two suites at once share), and the guest boots it made
# (stap-vm appends one line per boot to $CSTAP_VM_TIMES: release, vCPUs,
# jobs, seconds).
# usage: timed.sh SUITE [ARGS...]      exit status: the suite's
export CSTAP_DEFAULT_RUNTIME=kernel   # the suites say so themselves too; native-tests.sh unsets it
boots=$(mktemp "${TMPDIR:-/tmp}/cstap-boots.XXXXXX") || exit 99
t0=$(date +%s.%N)
case $1 in
*.sh) CSTAP_VM_TIMES=$boots bash "$@";;
*) CSTAP_VM_TIMES=$boots "$@";;
esac
rc=$?
t1=$(date +%s.%N)
# the children's user and system time, from bash's `times` (second line)
times > "$boots.cpu"   # (in this shell: a $(...) would be a subshell without children)
cpu=$(sed -n 2p "$boots.cpu" | awk '{ n = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); n += a[1] * 60 + a[2] } printf "%.0f", n }')
sed 's/^/TIME-BOOT: /' "$boots"
rm -f "$boots" "$boots.cpu"
echo "TIME-SUITE: $(basename "$1") $(echo "$t0 $t1" | awk '{ printf "%.0f s, exit '$rc', from %.0f to %.0f", $2 - $1, $1, $2 }'), cpu $cpu s"
exit $rc
