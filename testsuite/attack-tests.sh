#!/bin/bash
# attack-tests.sh - nobody gets root through staprun (installed setuid root,
# 04110 root:stapusr). In the guest (testsuite/attack/guest.sh), as members
# of stapusr, stapsys and stapdev and as a user in no group: the legitimate
# paths work (a signed --privilege=stapusr module loads for stapusr and its
# process probes see only the user's processes; a signed stapsys module for
# stapsys; an installed unsigned module for stapusr; anything for stapdev),
# and every attack is refused with its tag and leaves nothing loaded: a
# module's own unsigned privilege claim, a signer root does not trust, a
# signed module altered, a signed module of a higher level, the installed
# module copied or symlinked out of its directory, that directory made
# group-writable, a file only root may open (a FIFO: root must not open it
# for a user), parameters the kernel would split (\v, 0xA0) or that are
# staprun's own, a fake stapio through the environment, the module file
# swapped between check and load, another user's session, no group at all,
# staprun not setuid, the signers' directory left writable (certificates
# there ignored), -o into root's files and -c run as the caller. A second
# boot with module.sig_enforce=1: the kernel refuses an unsigned module and
# one signed with a key it does not trust, and staprun says what to do (tag
# R_MODSIG). On the host: the signature is
# the kernel's format (modinfo shows the signer and key id; it verifies
# against the certificate with openssl cms). Pass 2's refusals (E_PRIVILEGE)
# are the semko tests.
# usage: attack-tests.sh    env: CSTAP_BUILD (build dir)
set -u
. "$(dirname "$0")/lib.sh"
command -v qemu-system-x86_64 >/dev/null || { echo "attack-tests: SKIP: no qemu"; exit 77; }
command -v openssl >/dev/null || { echo "attack-tests: SKIP: no openssl"; exit 77; }
rel=$("$STAPVM" --default-release)
d=$src/testsuite/attack

# the administrator's signer (trusted in the guest) and the attacker's own
keys() {
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/$1.key" -out "$work/$1.pem" \
		-subj "/CN=$2" -days 2 2>/dev/null
}
build() {   # NAME SCRIPT [stap options]
	local name=$1 script=$2
	shift 2
	"$STAP" -p4 -r "$rel" -m "$name" "$@" "$d/$script"
}
if ! (cd "$work" && keys trusted "cstap test signer" && keys mallory "mallory" &&
	T="--sign-key $work/trusted.key --sign-cert $work/trusted.pem" &&
	build p_usr p_usr.stp --privilege=stapusr $T && build p_sys p_usr.stp --privilege=stapsys $T &&
	build p_dev p_dev.stp && build p_inst p_dev.stp && build p_input p_input.stp &&
	build p_dev_signed p_dev.stp $T &&
	build p_forged p_dev.stp -D STP_PRIVILEGE_USR &&
	build p_evil_signed p_dev.stp -D STP_PRIVILEGE_USR --sign-key "$work/mallory.key" --sign-cert "$work/mallory.pem") \
	> "$work/build.log" 2>&1; then
	echo "FAIL: build"; cat "$work/build.log"; exit 1
fi

# the signature is the kernel's: modinfo reads signer and key id, and the
# PKCS#7 appendix verifies against the certificate over the bytes before it
sig_check() {
	local ko=$1 want=$2 n total
	total=$(stat -c %s "$ko")
	n=$(tail -c 32 "$ko" | head -c 4 | od -An -tu1 | awk '{ print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4 }')
	head -c $((total - 28 - 12 - n)) "$ko" > "$work/content"
	tail -c $((28 + 12 + n)) "$ko" | head -c "$n" > "$work/sig.der"
	openssl cms -verify -inform DER -in "$work/sig.der" -content "$work/content" -binary -noverify \
		-nointern -certfile "$want" -out /dev/null 2>/dev/null
}
signer=$(modinfo -F signer "$work/p_usr.ko" 2>/dev/null)
keyid=$(modinfo -F sig_key "$work/p_usr.ko" 2>/dev/null)
if [ "$signer" = "cstap test signer" ] && [ -n "$keyid" ] && sig_check "$work/p_usr.ko" "$work/trusted.pem" &&
	! sig_check "$work/p_usr.ko" "$work/mallory.pem"; then
	ok "signature: modinfo reads signer '$signer' and key $keyid; it verifies with its certificate, not another"
else
	bad "signature" "modinfo signer '$signer', key '$keyid'"
fi
# the same module again, from the cache: signed by whoever asks, or not at all
mkdir "$work/again" "$work/plain"
(cd "$work/again" && build p_usr p_usr.stp --privilege=stapusr --sign-key "$work/mallory.key" \
	--sign-cert "$work/mallory.pem") > /dev/null 2>&1
(cd "$work/plain" && build p_usr p_usr.stp --privilege=stapusr) > /dev/null 2>&1
signer2=$(modinfo -F signer "$work/again/p_usr.ko" 2>/dev/null)
if [ "$signer2" = mallory ] && sig_check "$work/again/p_usr.ko" "$work/mallory.pem" &&
	[ -s "$work/plain/p_usr.ko" ] && ! tail -c 28 "$work/plain/p_usr.ko" | grep -q 'Module signature appended'; then
	ok "signature: the cached module signed again carries the new signer only; unsigned when not asked"
else
	bad "signature: cache" "signer of the second build '$signer2'; third build: $(tail -c 28 "$work/plain/p_usr.ko" 2>&1)"
fi
out=$(cd "$work" && "$STAP" -p4 -r "$rel" --sign-key "$work/trusted.key" --sign-cert "$work/mallory.pem" -u -e 'probe begin {}' 2>&1)
if grep -q '\[B_SIGN\].*is not the certificate' <<<"$out"; then
	ok "signature: a key that is not the certificate's is refused (B_SIGN)"
else
	bad "signature: key/certificate mismatch" "$out"
fi

tab=$(printf '\t')
printf 'attack%s400%ssh /t/guest.sh main\n' "$tab" "$tab" > "$work/jobs"
files=(-f "$d/guest.sh:/t/guest.sh" -f "$work/trusted.pem:/ko/trusted.pem" -f "$work/mallory.pem:/ko/mallory.pem")
for m in p_usr p_sys p_dev p_inst p_input p_dev_signed p_forged p_evil_signed; do
	files+=(-f "$work/$m.ko:/ko/$m.ko")
done
"$STAPVM" -r "$rel" -t 500 "${files[@]}" -b "$work/jobs" -O "$work/res" > "$work/vm.log" 2>&1 ||
	{ echo "FAIL: guest"; tail -20 "$work/vm.log"; exit 1; }
printf 'enforce%s60%ssh /t/guest.sh enforce\n' "$tab" "$tab" > "$work/jobs2"
"$STAPVM" -r "$rel" -t 200 -a "module.sig_enforce=1" "${files[@]}" -b "$work/jobs2" -O "$work/res" \
	> "$work/vm2.log" 2>&1 || { echo "FAIL: guest (sig_enforce)"; tail -20 "$work/vm2.log"; exit 1; }

# compare the guest's lines, section by section
check() {   # NAME EXPECTED-FILE ACTUAL-FILE
	local diff
	if diff=$(diff "$2" "$3"); then
		ok "$1"
	else
		bad "$1" "$(printf '%s\n' "$diff" | head -40)"
	fi
}
cat > "$work/main.expect" <<'EXPECT'
== legitimate
alice: timeout -s INT 1 staprun /ko/p_usr.ko: rc=0
begin g=0
alice: timeout -s INT 3 staprun /ko/p_usr.ko g=7 & sleep 1; sleep 0.5; wait: rc=0
begin g=7
sleep started by uid 1001
alice: staprun p_inst: rc=0
reads yes
bob: timeout -s INT 1 staprun /ko/p_sys.ko: rc=0
begin g=0
carol: staprun /ko/p_dev.ko: rc=0
reads yes
carol: printf 'one\ntwo\n' | staprun /ko/p_input.ko: rc=0
got one
got two
alice: timeout -s INT 1 staprun -o /tmp/alice.out /ko/p_usr.ko: rc=0
output file owned by uid 1001
loaded: 0
== the module's own word: unsigned, built claiming stapusr
mallory: staprun /ko/p_forged.ko: rc=1
run error [R_UNTRUSTED]: staprun: /ko/p_forged.ko is neither signed by a trusted signer (/etc/cstap/staprun/) nor installed by root in /lib/modules/RELEASE/systemtap/: as a member of stapusr you may run only those (or join stapdev)
== signed by a signer root does not trust
mallory: staprun /ko/p_evil_signed.ko: rc=1
run error [R_UNTRUSTED]: staprun: /ko/p_evil_signed.ko is refused: it is not signed by a trusted signer; as a member of stapusr you may run modules signed by a signer the administrator trusts (/etc/cstap/staprun/) or installed by root in /lib/modules/RELEASE/systemtap/
== signed by the trusted signer, then altered
mallory: printf 'X' | dd of=/home/mallory/altered.ko bs=1 seek=300 conv=notrunc 2>/dev/null; staprun /home/mallory/altered.ko: rc=1
run error [R_UNTRUSTED]: staprun: /home/mallory/altered.ko is refused: its signature does not match its content (altered after signing?); as a member of stapusr you may run modules signed by a signer the administrator trusts (/etc/cstap/staprun/) or installed by root in /lib/modules/RELEASE/systemtap/
== signed by the trusted signer, but built for stapdev / for stapsys
mallory: staprun /ko/p_dev_signed.ko: rc=1
run error [R_UNTRUSTED]: staprun: /ko/p_dev_signed.ko is signed by a trusted signer (/CN=cstap test signer) but built for stapdev: as a member of stapusr you may run modules built with --privilege=stapusr
mallory: timeout -s INT 1 staprun /ko/p_sys.ko: rc=1
run error [R_UNTRUSTED]: staprun: /ko/p_sys.ko is signed by a trusted signer (/CN=cstap test signer) but built for stapsys: as a member of stapusr you may run modules built with --privilege=stapusr
== the installed module, copied out of its directory
mallory: cp /lib/modules/$(uname -r)/systemtap/p_inst.ko /home/mallory/p_inst.ko; staprun /home/mallory/p_inst.ko: rc=1
run error [R_UNTRUSTED]: staprun: /home/mallory/p_inst.ko is neither signed by a trusted signer (/etc/cstap/staprun/) nor installed by root in /lib/modules/RELEASE/systemtap/: as a member of stapusr you may run only those (or join stapdev)
== a symlink to the installed module
mallory: ln -s /lib/modules/$(uname -r)/systemtap/p_inst.ko /home/mallory/link.ko; staprun /home/mallory/link.ko: rc=1
ERROR: staprun: cannot open module /home/mallory/link.ko: it is a symbolic link (name the file itself)
== the installed modules' directory writable by a group
mallory: staprun p_inst: rc=1
run error [R_UNTRUSTED]: staprun: /lib/modules/RELEASE/systemtap/p_inst.ko is not an installed module: /lib/modules/RELEASE/systemtap is not owned by root or is writable by others
loaded: 0
== the trusted signers' directory left writable by others
mallory: cp /ko/mallory.pem /etc/cstap/staprun/mallory.pem; staprun /ko/p_evil_signed.ko: rc=1
run error [R_UNTRUSTED]: staprun: /ko/p_evil_signed.ko is refused: no trusted signer is installed (/etc/cstap/staprun/*.pem); as a member of stapusr you may run modules signed by a signer the administrator trusts (/etc/cstap/staprun/) or installed by root in /lib/modules/RELEASE/systemtap/
== output and command run as the caller, not root
mallory: timeout -s INT 1 staprun -o /etc/owned /ko/p_usr.ko; ls /etc/owned: rc=1
ERROR: cannot open output file /etc/owned: Permission denied
ls: /etc/owned: No such file or directory
mallory: staprun -c 'id -u' /ko/p_usr.ko: rc=0
begin g=0
1005
loaded: 0
== a file only root may open (a FIFO whose open has effects)
mallory: staprun /root/priv/f.ko: rc=1
ERROR: staprun: cannot open module /root/priv/f.ko: Permission denied
dave: staprun /root/priv/f.ko: rc=126
sh: staprun: Permission denied
the FIFO was not opened
== module parameters the kernel would split
mallory: staprun /ko/p_usr.ko "$(printf 'g=1\v_stp_bufsize=100000')": rc=1
ERROR: cannot load module /ko/p_usr.ko: invalid parameter value or module (see dmesg)
mallory: staprun /ko/p_usr.ko "$(printf 'g=2\240_stp_bufsize=100000')": rc=1
ERROR: cannot load module /ko/p_usr.ko: invalid parameter value or module (see dmesg)
mallory: staprun /ko/p_usr.ko "$(printf 'g\v_stp_bufsize=1')": rc=1
run error [R_PARAM]: staprun: module parameter 'g\x0b_stp_bufsize': a name is letters, digits and '_'
mallory: staprun /ko/p_usr.ko _stp_uid=0: rc=1
run error [R_PARAM]: staprun: module parameter '_stp_uid' is staprun's own
mallory: staprun /ko/p_usr.ko -stp-uid=0: rc=1
run error [R_PARAM]: staprun: module parameter '-stp-uid': a name is letters, digits and '_'
loaded: 0
== the environment: CSTAP_STAPIO is root's to set
mallory: CSTAP_STAPIO=/home/mallory/fake-stapio IFS=x timeout -s INT 1 staprun /ko/p_usr.ko: rc=0
begin g=0
the fake stapio did not run
== the file swapped between check and load
mallory: cd /home/mallory; cp /ko/p_usr.ko good.ko; cp /ko/p_forged.ko evil.ko; cp good.ko cur.ko;
	(while [ ! -e stop ]; do cp evil.ko t1 && mv -f t1 cur.ko; cp good.ko t2 && mv -f t2 cur.ko; done) &
	for i in 1 2 3 4 5 6; do timeout -s INT 1 staprun cur.ko; done > runs.out 2>&1; touch stop; wait;
	echo "evil loaded: $(grep -c 'reads' runs.out)": rc=0
evil loaded: 0
loaded: 0
== another user's session
alice: staprun -L /ko/p_usr.ko: rc=0
begin g=0
Disconnecting from systemtap module.
To reconnect, type "staprun -A p_usr"
mallory: staprun -d p_usr: rc=1
run error [R_PRIVILEGE]: staprun: module p_usr was not loaded for uid 1005: only root, stapdev and that user may attach to or remove it
mallory: staprun -A p_usr: rc=1
run error [R_PRIVILEGE]: staprun: module p_usr was not loaded for uid 1005: only root, stapdev and that user may attach to or remove it
alice: staprun -d p_usr: rc=0
loaded: 0
== no group: staprun cannot even be run
dave: staprun /ko/p_usr.ko: rc=126
sh: staprun: Permission denied
dave: staprun /ko/p_usr.ko: rc=1
run error [R_PRIVILEGE]: staprun: only root and the members of the groups stapdev, stapsys and stapusr may run cstap modules (uid 1004 is in none of them)
== staprun not setuid
alice: staprun /ko/p_usr.ko: rc=1
run error [R_PRIVILEGE]: staprun: staprun is not setuid root here, so it cannot load modules for uid 1001 (an administrator installs it 04110 root:stapusr)
loaded: 0
EXPECT
# the release in paths is the guest's: written RELEASE above
sed "s|/lib/modules/$rel/|/lib/modules/RELEASE/|g" "$work/res/attack.out" > "$work/main.out"
check "attacks refused, legitimate paths work (guest, staprun 04110 root:stapusr)" "$work/main.expect" "$work/main.out"
cat > "$work/enforce.expect" <<'EXPECT'
unsigned: rc=1
run error [R_MODSIG]: staprun: the kernel refused /ko/p_dev.ko: the kernel loads only signed modules (module.sig_enforce, lockdown or Secure Boot) and this one is not signed: build it with stap --sign-key KEY --sign-cert CERT, with a key the kernel trusts (mokutil --import CERT, then reboot to enroll it) (man staprun: SIGNING)
signed, key not enrolled: rc=1
run error [R_MODSIG]: staprun: the kernel refused /ko/p_dev_signed.ko: it is signed, but not with a key the kernel trusts (or it was altered after signing): enroll the signer's certificate (mokutil --import CERT, then reboot) or sign with a key the kernel trusts (man staprun: SIGNING)
kernel: unavailable key: 1
loaded: 0
EXPECT
check "module.sig_enforce=1: unsigned and untrusted-key modules refused, with what to do (R_MODSIG)" \
	"$work/enforce.expect" "$work/res/enforce.out"
[ $fail = 0 ] || { echo "guest errors:"; cat "$work/res/attack.err" "$work/res/enforce.err" 2>/dev/null | head -20; }
finish
