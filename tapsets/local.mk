# tapsets/: the .stp library, installed under $(pkgdatadir)/tapsets
tapsetdir = $(pkgdatadir)/tapsets
dist_tapset_DATA = tapsets/logging.stp tapsets/context.stp tapsets/time.stp tapsets/string.stp \
	tapsets/conversions.stp tapsets/null.stp tapsets/regex.stp tapsets/argv.stp tapsets/task.stpm \
	tapsets/indent.stp tapsets/random.stp tapsets/errno.stp tapsets/ansi.stp \
	tapsets/uconversions.stp tapsets/tokenize.stp tapsets/cmdline.stp tapsets/stopwatch.stp \
	tapsets/context-symbols.stp tapsets/ucontext-symbols.stp tapsets/symlines.stp tapsets/tz_ctime.stp \
	tapsets/json.stp tapsets/json.stpm tapsets/cast.stpm tapsets/uprobes.stp tapsets/bpf_intrinsics.stp
# IEEE doubles in longs, without the FPU
dist_tapset_DATA += tapsets/floatingpoint.stp
# the kernel subsystem tapsets (vfs, scheduler, signal, kprocess, memory ...)
dist_tapset_DATA += tapsets/vfs.stp tapsets/scheduler.stp tapsets/memory.stp tapsets/signal.stp tapsets/kprocess.stp \
	tapsets/irq.stp tapsets/tty.stp tapsets/perf.stp tapsets/timers.stp tapsets/procfs.stp tapsets/prometheus.stp tapsets/prometheus.stpm tapsets/input.stp tapsets/speculative.stp
# block I/O: ioblock, the I/O scheduler, the SCSI mid-layer; named queues' statistics
dist_tapset_DATA += tapsets/ioblock.stp tapsets/ioscheduler.stp tapsets/scsi.stp tapsets/queue_stats.stp
# the network tapsets (netdev, tcp, udp, socket and the SNMP counters)
dist_tapset_DATA += tapsets/netdev.stp tapsets/tcp.stp tapsets/udp.stp tapsets/socket.stp \
	tapsets/ipmib.stp tapsets/tcpmib.stp tapsets/linuxmib.stp tapsets/netfilter.stp
# @this1 ... @this8
dist_tapset_DATA += tapsets/this.stp tapsets/this.stpm
# functions on kernel objects (tasks, paths, block devices, network, ...)
dist_tapset_DATA += tapsets/task.stp tapsets/dentry.stp tapsets/inet.stp tapsets/dev.stp tapsets/kmisc.stp \
	tapsets/proc_mem.stp tapsets/regargs.stp tapsets/target_set.stp tapsets/guru.stp tapsets/aux_syscalls.stp
# system calls beyond the generated syscall.* (nd_syscall, syscall_any, decoders)
dist_tapset_DATA += tapsets/syscall_args.stp tapsets/syscall_decode.stp \
	tapsets/syscall_ustructs.stp tapsets/syscalls.stp tapsets/syscall_any.stp
# the NFS client and server and Sun RPC (nfs.fop/aop, nfs.proc, nfsd, sunrpc)
dist_tapset_DATA += tapsets/nfs.stp tapsets/nfs_proc.stp tapsets/nfsd.stp tapsets/rpc.stp
# process.syscall: $syscall, $argN, $return
dist_tapset_DATA += tapsets/process_syscall.stp
