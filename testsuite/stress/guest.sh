# guest.sh - the stress test's steps, run by busybox sh in the guest (one
# batch job each, see testsuite/stress.sh). Each prints lines the host
# compares with what it expects; anything unexpected is printed as is.
#   arm ROUNDS  load and unload /ko/stress_hot.ko ROUNDS times (probes armed
#               for 2 s each) while /stress/load runs on both CPUs
#   kill        SIGKILL stapio mid-run under the same load: staprun must still
#               remove the module, its probes must be gone, and the next run
#               must work
mod=${MOD:-stress_hot}
ko=/ko/$mod.ko
kplist=/sys/kernel/debug/kprobes/list
# an entry probe at an ftrace call site is armed through cstap's ftrace_ops
# (runtime/fentry.h): it shows in ftrace's list, not the kprobes'
ftlist=/sys/kernel/tracing/enabled_functions

# Where the vfs_read probe shows while it is armed, or nothing.
probed() {
	grep -hw vfs_read $kplist $ftlist 2>/dev/null
}

# Start the workload on both CPUs; $load is its pid.
start_load() {
	/stress/load 2 > /tmp/load.out &
	load=$!
}

# Stop the workload and say whether it ran on both CPUs all along.
stop_load() {
	kill $load
	wait $load
	echo "load ran: $(grep -c rounds /tmp/load.out) processes"
}

# Is the module gone, its probes with it? Waits up to 10 s.
check_unloaded() {
	for i in $(seq 1 50); do
		[ -d /sys/module/$mod ] || break
		sleep 0.2
	done
	left=""
	[ -d /sys/module/$mod ] && left="$left, /sys/module/$mod"
	lsmod | grep -q "^$mod " && left="$left, in lsmod"
	[ -n "$(probed)" ] && left="$left, probe $(probed)"
	[ -z "$left" ] && echo "$1: unloaded" || echo "$1: still loaded$left"
}

# One timed run (2 s, then SIGINT); prints its output and status.
timed_run() {
	timeout -s INT 2 staprun $ko > /tmp/run.out 2> /tmp/run.err
	rc=$?
	echo "$1: rc=$rc"
	cat /tmp/run.out /tmp/run.err
}

case $1 in
arm)
	echo "module: $mod"
	start_load
	for r in $(seq 1 $2); do
		timed_run "round $r"
		check_unloaded "round $r"
	done
	stop_load
	;;
kill)
	start_load
	staprun $ko > /tmp/kill.out 2> /tmp/kill.err &
	run=$!
	# wait until the probes are live, let them fire, then kill stapio
	for i in $(seq 1 150); do
		[ -n "$(probed)" ] && break
		sleep 0.2
	done
	[ -n "$(probed)" ] && echo "probes armed"
	sleep 2
	kill -9 $(pidof stapio)
	wait $run
	echo "staprun: rc=$?"
	cat /tmp/kill.err
	check_unloaded "after SIGKILL"
	timed_run "next run"
	check_unloaded "next run"
	stop_load
	;;
esac
