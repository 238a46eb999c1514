# examples/: cstap's example scripts, NAME.stp with NAME.meta (SystemTap's
# .meta format), installed under $(pkgdatadir)/examples; NAME.expect-re is
# what testsuite/cstap-examples.sh checks in the output of a guest run.
exampledir = $(pkgdatadir)/examples
dist_example_DATA = examples/README \
	examples/cpu_top.stp examples/cpu_top.meta \
	examples/disk_io.stp examples/disk_io.meta \
	examples/exec_trace.stp examples/exec_trace.meta \
	examples/io_bytes.stp examples/io_bytes.meta \
	examples/page_faults.stp examples/page_faults.meta \
	examples/sched_latency.stp examples/sched_latency.meta \
	examples/signals_sent.stp examples/signals_sent.meta \
	examples/slow_reads.stp examples/slow_reads.meta \
	examples/syscalls_top.stp examples/syscalls_top.meta \
	examples/tcp_connections.stp examples/tcp_connections.meta \
	examples/ufunc_latency.stp examples/ufunc_latency.meta \
	examples/who_opens.stp examples/who_opens.meta
EXTRA_DIST += examples/local.mk \
	examples/cpu_top.expect-re \
	examples/disk_io.expect-re \
	examples/exec_trace.expect-re \
	examples/io_bytes.expect-re \
	examples/page_faults.expect-re \
	examples/sched_latency.expect-re \
	examples/signals_sent.expect-re \
	examples/slow_reads.expect-re \
	examples/syscalls_top.expect-re \
	examples/tcp_connections.expect-re \
	examples/ufunc_latency.expect-re \
	examples/who_opens.expect-re
# (testsuite/cstap-examples.sh is in testsuite/local.mk's TESTS, in its place by length)
EXTRA_DIST += testsuite/cstap-examples.sh
