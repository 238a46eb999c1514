# guest.sh - privilege-tests.sh's step, run as root by busybox sh in the
# guest: users in each group run staprun (installed setuid root) with
# modules of each privilege; each line printed is compared by the host.
cat > /etc/passwd <<PW
root:x:0:0:root:/:/bin/sh
alice:x:1001:1001::/tmp:/bin/sh
bob:x:1002:1002::/tmp:/bin/sh
carol:x:1003:1003::/tmp:/bin/sh
dave:x:1004:1004::/tmp:/bin/sh
PW
cat > /etc/group <<GR
root:x:0:
stapusr:x:2001:alice
stapsys:x:2002:bob
stapdev:x:2003:carol
alice:x:1001:
bob:x:1002:
carol:x:1003:
dave:x:1004:
GR
chmod 4755 /usr/bin/staprun
chmod 755 /ko
chmod 644 /ko/*.ko
inst=/lib/modules/$(uname -r)/systemtap
mkdir -p $inst
cp /ko/p_inst.ko $inst/p_inst.ko
chmod 1777 /tmp

# as USER, run the shell command; print its status, output and errors
as() {
	user=$1
	shift
	su -s /bin/sh $user -c "$*" > /tmp/o 2> /tmp/e
	echo "$user: $*: rc=$?"
	cat /tmp/o
	sed 's/ (man staprun)$//' /tmp/e
}

as dave staprun /ko/p_usr.ko
as alice staprun /ko/p_dev.ko
as alice staprun p_inst
as alice staprun /ko/p_usr.ko _stp_uid=0
(for i in 1 2 3 4 5 6; do sleep 0.3; done) &
as alice "timeout -s INT 3 staprun /ko/p_usr.ko & sleep 1; sleep 0.5; wait"
wait
as bob timeout -s INT 1 staprun /ko/p_usr.ko
as bob staprun /ko/p_dev.ko
as carol staprun /ko/p_dev.ko
as carol "printf 'one\ntwo\n' | staprun /ko/p_input.ko"
as alice timeout -s INT 1 staprun -o /tmp/alice.out /ko/p_usr.ko
ls -ln /tmp/alice.out | awk '{ print "output file owned by uid " $3 }'
chmod 755 /usr/bin/staprun
as alice staprun /ko/p_usr.ko
