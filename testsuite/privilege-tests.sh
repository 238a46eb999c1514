#!/bin/bash
# privilege-tests.sh - who may load what (staprun installed setuid root, in
# the guest, with users in the groups stapusr, stapsys, stapdev and none):
# a module built with --privilege=stapusr (testsuite/privilege/p_usr.stp)
# loads for stapusr and stapsys users and its process probes see only the
# user's processes; one needing stapdev (p_dev.stp, a kernel probe) is
# refused to them, allowed to stapdev, and allowed to anyone in a group
# when installed in /lib/modules/RELEASE/systemtap/; a user in no group is
# refused; _stp_ parameters are staprun's; stapio writes -o as the user;
# a stapdev user's stapio feeds the script's input probes (p_input.stp);
# a staprun that is not setuid says so. Pass 2's refusals (E_PRIVILEGE)
# are the semko tests. One guest boot on the default kernel.
# usage: privilege-tests.sh    env: CSTAP_BUILD (build dir)
set -u
. "$(dirname "$0")/lib.sh"
command -v qemu-system-x86_64 >/dev/null || { echo "privilege-tests: SKIP: no qemu"; exit 77; }
rel=$("$STAPVM" --default-release)
d=$src/testsuite/privilege
if ! (cd "$work" && "$STAP" -p4 -r "$rel" --privilege=stapusr -m p_usr "$d/p_usr.stp" &&
	"$STAP" -p4 -r "$rel" -m p_dev "$d/p_dev.stp" && "$STAP" -p4 -r "$rel" -m p_inst "$d/p_dev.stp" &&
	"$STAP" -p4 -r "$rel" -m p_input "$d/p_input.stp") \
	> "$work/build.log" 2>&1; then
	echo "FAIL: build"; cat "$work/build.log"; exit 1
fi
printf 'priv\t200\tsh /t/guest.sh\n' > "$work/jobs"
"$STAPVM" -r "$rel" -t 300 -f "$work/p_usr.ko:/ko/p_usr.ko" -f "$work/p_dev.ko:/ko/p_dev.ko" \
	-f "$work/p_inst.ko:/ko/p_inst.ko" -f "$work/p_input.ko:/ko/p_input.ko" -f "$d/guest.sh:/t/guest.sh" -b "$work/jobs" -O "$work/res" \
	> "$work/vm.log" 2>&1 || { echo "FAIL: guest"; tail -20 "$work/vm.log"; exit 1; }
cat > "$work/expect" <<'EXPECT'
dave: staprun /ko/p_usr.ko: rc=1
run error [R_PRIVILEGE]: staprun: only root and the members of the groups stapdev, stapsys and stapusr may run cstap modules (uid 1004 is in none of them)
alice: staprun /ko/p_dev.ko: rc=1
run error [R_PRIVILEGE]: staprun: /ko/p_dev.ko needs the group stapdev: as a member of stapusr you may run modules built with --privilege=stapusr, or installed in /lib/modules/RELEASE/systemtap/
alice: staprun p_inst: rc=0
reads yes
alice: staprun /ko/p_usr.ko _stp_uid=0: rc=1
ERROR: module parameter '_stp_uid' is staprun's own
alice: timeout -s INT 3 staprun /ko/p_usr.ko & sleep 1; sleep 0.5; wait: rc=0
begin
sleep started by uid 1001
bob: timeout -s INT 1 staprun /ko/p_usr.ko: rc=0
begin
bob: staprun /ko/p_dev.ko: rc=1
run error [R_PRIVILEGE]: staprun: /ko/p_dev.ko needs the group stapdev: as a member of stapsys you may run modules built with --privilege=stapusr, or installed in /lib/modules/RELEASE/systemtap/
carol: staprun /ko/p_dev.ko: rc=0
reads yes
carol: printf 'one\ntwo\n' | staprun /ko/p_input.ko: rc=0
got one
got two
alice: timeout -s INT 1 staprun -o /tmp/alice.out /ko/p_usr.ko: rc=0
output file owned by uid 1001
alice: staprun /ko/p_usr.ko: rc=1
run error [R_PRIVILEGE]: staprun: staprun is not setuid root here, so it cannot load modules for uid 1001 (an administrator installs it with chmod 4755)
EXPECT
if diff=$(diff "$work/expect" "$work/res/priv.out"); then
	echo "PASS: privilege groups, module privilege, installed modules, own processes only"
	echo "1 passed, 0 failed"
else
	echo "FAIL: privilege"; printf '%s\n' "$diff" | sed 's/^/    /'; cat "$work/res/priv.err" 2>/dev/null | head -20
	echo "0 passed, 1 failed"; exit 1
fi
