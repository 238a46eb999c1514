# guest.sh - staprun-tests.sh's steps, run by busybox sh in the guest (one
# batch job each). Each prints lines the host compares with what it expects.
#   detach  -L, then -A twice detached again with SIGQUIT, then -A ended
#           with SIGINT (end probe); the module goes only at the end
#   remove  -L, then -d removes the running module
#   daemon  -D -o FILE: the pid printed; SIGTERM ends the session
#   rotate  -o FILE -S 1,3: the output files as SystemTap names them
#   rename  -R -L twice: two sessions of one module under names of their own
#   bulk    a stap -b module with -o FILE: FILE_0, FILE_1 (no FILE), sent
#           back in base64 for stap-merge on the host (2 CPUs)
ko=/ko/session.ko
mod=session

loaded() { [ -d /sys/module/$mod ] && echo "$1: loaded" || echo "$1: not loaded"; }

# staprun -A in the background; after $1 s, signal $2 to its stapio
attach_then() {
	staprun -A $mod > /tmp/a.out 2> /tmp/a.err &
	a=$!
	sleep $1
	kill -$2 $(pidof stapio)
	wait $a
	echo "attach ($2): rc=$?"
	cat /tmp/a.out
	grep -v '^To reconnect' /tmp/a.err
}

case $1 in
rename)
	staprun -R -L $ko > /dev/null 2>&1
	staprun -R -L $ko > /dev/null 2>&1
	echo "loaded: $(grep -c "^${mod}_[0-9]" /proc/modules)"
	for m in $(grep -o "^${mod}_[0-9]*" /proc/modules); do
		[ -e /proc/cstap_$m ] && echo "control file: yes"
	done
	staprun -d '*'
	echo "-d: rc=$?"
	echo "left: $(grep -c "^$mod" /proc/modules)"
	;;
bulk)
	cd /tmp && staprun -o /tmp/b /ko/bulk.ko
	echo "-b: rc=$?"
	ls /tmp | grep '^b' | tr '\n' ' '
	echo
	for f in /tmp/b_*; do echo "== $f"; base64 "$f"; done
	;;
detach)
	staprun -L $ko > /tmp/l.out 2> /tmp/l.err
	echo "-L: rc=$?"
	cat /tmp/l.out
	grep -c "staprun -A $mod" /tmp/l.err
	loaded "after -L"
	attach_then 1 QUIT
	loaded "after detach 1"
	attach_then 1 QUIT
	loaded "after detach 2"
	attach_then 1 INT
	loaded "after SIGINT"
	;;
remove)
	staprun -L $ko > /dev/null 2>&1
	loaded "after -L"
	staprun -d $mod
	echo "-d: rc=$?"
	loaded "after -d"
	staprun -d nosuch_module_xyz 2>&1 | sed 's/(.*//'
	;;
daemon)
	pid=$(staprun -D -o /tmp/d.out $ko)
	echo "-D: rc=$?"
	sleep 2
	[ -n "$pid" ] && kill -0 $pid && echo "daemon running"
	kill -TERM $pid
	for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 $pid 2>/dev/null || break; sleep 0.5; done
	kill -0 $pid 2>/dev/null && echo "daemon still running"
	cat /tmp/d.out
	loaded "after SIGTERM"
	;;
rotate)
	mod=rotate
	staprun -o /tmp/r.out -S 1,3 /ko/rotate.ko
	echo "-S: rc=$?"
	ls /tmp | grep '^r\.out' | sort -t. -k3 -n > /tmp/files
	echo "files: $(wc -l < /tmp/files)"
	prev=""
	ok=yes
	for f in $(cat /tmp/files); do
		[ $(wc -c < /tmp/$f) -le 1048576 ] || ok="no: /tmp/$f is bigger than 1 MiB"
		first=$(head -1 /tmp/$f | sed 's/^0*//')
		[ -z "$prev" ] || [ "$first" = $((prev + 1)) ] || ok="no: /tmp/$f starts at $first after $prev"
		prev=$(grep -v end /tmp/$f | tail -1 | sed 's/^0*//')
	done
	echo "numbered, consecutive, at most 1 MiB each: $ok"
	tail -1 /tmp/$(tail -1 /tmp/files)
	n=$(sed 's/^r\.out\.//' /tmp/files | tr '\n' ' ')
	echo "last three of a sequence from r.out.0: $(echo $n | awk '{ ok = $1 > 0 && $2 == $1 + 1 && $3 == $2 + 1; print ok ? "yes" : "no" }')"
	;;
esac
