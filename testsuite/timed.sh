#!/bin/sh
# timed.sh - make check's LOG_COMPILER: runs one suite (a script or a unit
# test program) and ends its log with two lines that testsuite/times.sh
# reads back: its wall time, and the guest boots it made (stap-vm appends
# one line per boot to $CSTAP_VM_TIMES: release, vCPUs, jobs, seconds).
# usage: timed.sh SUITE [ARGS...]      exit status: the suite's
boots=$(mktemp "${TMPDIR:-/tmp}/cstap-boots.XXXXXX") || exit 99
t0=$(date +%s.%N)
case $1 in
*.sh) CSTAP_VM_TIMES=$boots bash "$@";;
*) CSTAP_VM_TIMES=$boots "$@";;
esac
rc=$?
t1=$(date +%s.%N)
# one line per boot: "TIME-BOOT: release cpus jobs seconds"
sed 's/^/TIME-BOOT: /' "$boots"
rm -f "$boots"
echo "TIME-SUITE: $(basename "$1") $(echo "$t0 $t1" | awk '{ printf "%.0f s, exit '$rc', from %.0f to %.0f", $2 - $1, $1, $2 }')"
exit $rc
