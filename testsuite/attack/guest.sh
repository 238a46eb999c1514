# guest.sh - attack-tests.sh's step, run as root by busybox sh in the
# guest. staprun is installed as SystemTap's is (04110 root:stapusr), one
# signer is trusted (/etc/cstap/staprun/trusted.pem), one module is
# installed in /lib/modules/RELEASE/systemtap/. Users: alice (stapusr),
# bob (stapsys), carol (stapdev), all three also in stapusr as SystemTap
# wants; dave (no group); mallory (stapusr, the attacker). Each line
# printed is compared by the host: first the legitimate paths, then each
# attack, refused with its tag, leaving nothing loaded.
# usage: guest.sh main | enforce
cat > /etc/passwd <<PW
root:x:0:0:root:/:/bin/sh
alice:x:1001:1001::/tmp:/bin/sh
bob:x:1002:1002::/tmp:/bin/sh
carol:x:1003:1003::/tmp:/bin/sh
dave:x:1004:1004::/tmp:/bin/sh
mallory:x:1005:1005::/home/mallory:/bin/sh
PW
cat > /etc/group <<GR
root:x:0:
stapusr:x:2001:alice,bob,carol,mallory
stapsys:x:2002:bob
stapdev:x:2003:carol
alice:x:1001:
bob:x:1002:
carol:x:1003:
dave:x:1004:
mallory:x:1005:
GR
chown root:stapusr /usr/bin/staprun
chmod 04110 /usr/bin/staprun
chmod 755 /ko
chmod 644 /ko/*.ko
mkdir -p /etc/cstap/staprun
cp /ko/trusted.pem /etc/cstap/staprun/trusted.pem
chmod 644 /etc/cstap/staprun/trusted.pem
inst=/lib/modules/$(uname -r)/systemtap
mkdir -p $inst
cp /ko/p_inst.ko $inst/p_inst.ko
chmod 644 $inst/p_inst.ko
chmod 1777 /tmp
mkdir -p /home/mallory
chown mallory:mallory /home/mallory

# as USER, run the shell command; print its status, output and errors
# (without the hint in parentheses that ends a tagged error)
as() {
	user=$1
	shift
	su -s /bin/sh $user -c "$*" > /tmp/o 2> /tmp/e
	echo "$user: $*: rc=$?"
	cat /tmp/o
	sed 's/ (man staprun[^)]*)$//' /tmp/e
}
# how many of the test modules are loaded (each attack must leave none)
loaded() {
	echo "loaded: $(grep -c '^p_' /proc/modules)"
}

if [ "$1" = enforce ]; then
	# module.sig_enforce=1: root loads neither an unsigned module nor one
	# signed with a key the kernel does not trust (ours: it trusts Debian's)
	staprun /ko/p_dev.ko > /tmp/o 2> /tmp/e
	echo "unsigned: rc=$?"
	cat /tmp/o /tmp/e
	staprun /ko/p_dev_signed.ko > /tmp/o 2> /tmp/e
	echo "signed, key not enrolled: rc=$?"
	cat /tmp/o /tmp/e
	dmesg | grep -c 'Loading of module with unavailable key is rejected' | sed 's/^/kernel: unavailable key: /'
	loaded
	exit 0
fi

echo "== legitimate"
as alice timeout -s INT 1 staprun /ko/p_usr.ko
(for i in 1 2 3 4 5 6; do sleep 0.3; done) &
as alice "timeout -s INT 3 staprun /ko/p_usr.ko g=7 & sleep 1; sleep 0.5; wait"
wait
as alice staprun p_inst
as bob timeout -s INT 1 staprun /ko/p_sys.ko
as carol staprun /ko/p_dev.ko
as carol "printf 'one\ntwo\n' | staprun /ko/p_input.ko"
as alice timeout -s INT 1 staprun -o /tmp/alice.out /ko/p_usr.ko
ls -ln /tmp/alice.out | awk '{ print "output file owned by uid " $3 }'
loaded

echo "== the module's own word: unsigned, built claiming stapusr"
as mallory staprun /ko/p_forged.ko
echo "== signed by a signer root does not trust"
as mallory staprun /ko/p_evil_signed.ko
echo "== signed by the trusted signer, then altered"
cp /ko/p_usr.ko /home/mallory/altered.ko
chown mallory /home/mallory/altered.ko
as mallory "printf 'X' | dd of=/home/mallory/altered.ko bs=1 seek=300 conv=notrunc 2>/dev/null; staprun /home/mallory/altered.ko"
echo "== signed by the trusted signer, but built for stapdev / for stapsys"
as mallory staprun /ko/p_dev_signed.ko
as mallory timeout -s INT 1 staprun /ko/p_sys.ko
echo "== the installed module, copied out of its directory"
as mallory "cp /lib/modules/\$(uname -r)/systemtap/p_inst.ko /home/mallory/p_inst.ko; staprun /home/mallory/p_inst.ko"
echo "== a symlink to the installed module"
as mallory "ln -s /lib/modules/\$(uname -r)/systemtap/p_inst.ko /home/mallory/link.ko; staprun /home/mallory/link.ko"
echo "== the installed modules' directory writable by a group"
chmod g+w $inst
as mallory staprun p_inst
chmod g-w $inst
loaded

echo "== the trusted signers' directory left writable by others"
chmod 777 /etc/cstap/staprun
as mallory "cp /ko/mallory.pem /etc/cstap/staprun/mallory.pem; staprun /ko/p_evil_signed.ko"
rm -f /etc/cstap/staprun/mallory.pem
chmod 755 /etc/cstap/staprun
echo "== output and command run as the caller, not root"
as mallory "timeout -s INT 1 staprun -o /etc/owned /ko/p_usr.ko; ls /etc/owned"
as mallory staprun -c "'id -u'" /ko/p_usr.ko
loaded

echo "== a file only root may open (a FIFO whose open has effects)"
mkdir -p /root/priv
chmod 700 /root/priv
mkfifo /root/priv/f.ko
(echo x > /root/priv/f.ko && echo "root opened it for a user" > /tmp/fifo-opened) &
writer=$!
as mallory staprun /root/priv/f.ko
as dave staprun /root/priv/f.ko
sleep 0.2
kill $writer 2>/dev/null
wait $writer 2>/dev/null
cat /tmp/fifo-opened 2>/dev/null || echo "the FIFO was not opened"

echo "== module parameters the kernel would split"
as mallory "staprun /ko/p_usr.ko \"\$(printf 'g=1\\v_stp_bufsize=100000')\""
as mallory "staprun /ko/p_usr.ko \"\$(printf 'g=2\\240_stp_bufsize=100000')\""
as mallory "staprun /ko/p_usr.ko \"\$(printf 'g\\v_stp_bufsize=1')\""
as mallory staprun /ko/p_usr.ko _stp_uid=0
as mallory staprun /ko/p_usr.ko -stp-uid=0
loaded

echo "== the environment: CSTAP_STAPIO is root's to set"
printf '#!/bin/sh\necho "mallory ran as $(id -u)" > /tmp/stapio-ran\n' > /home/mallory/fake-stapio
chmod 755 /home/mallory/fake-stapio
as mallory "CSTAP_STAPIO=/home/mallory/fake-stapio IFS=x timeout -s INT 1 staprun /ko/p_usr.ko"
cat /tmp/stapio-ran 2>/dev/null || echo "the fake stapio did not run"

echo "== the file swapped between check and load"
as mallory "cd /home/mallory; cp /ko/p_usr.ko good.ko; cp /ko/p_forged.ko evil.ko; cp good.ko cur.ko;
	(while [ ! -e stop ]; do cp evil.ko t1 && mv -f t1 cur.ko; cp good.ko t2 && mv -f t2 cur.ko; done) &
	for i in 1 2 3 4 5 6; do timeout -s INT 1 staprun cur.ko; done > runs.out 2>&1; touch stop; wait;
	echo \"evil loaded: \$(grep -c 'reads' runs.out)\""
loaded

echo "== another user's session"
as alice staprun -L /ko/p_usr.ko
as mallory staprun -d p_usr
as mallory staprun -A p_usr
as alice staprun -d p_usr
loaded

echo "== no group: staprun cannot even be run"
as dave staprun /ko/p_usr.ko
chmod 4755 /usr/bin/staprun
as dave staprun /ko/p_usr.ko
echo "== staprun not setuid"
chmod 755 /usr/bin/staprun
as alice staprun /ko/p_usr.ko
loaded
