# runtime/: kernel-side headers that generated modules include; installed
# under $(pkgdatadir)/runtime (stap passes -I<that dir> to kbuild).
runtimedir = $(pkgdatadir)/runtime
dist_runtime_DATA = runtime/config.h runtime/kheaders.h runtime/context.h runtime/ctl_proto.h \
	runtime/deref.h runtime/regex.h runtime/tracepoints.h runtime/format.h runtime/kprobes.h runtime/fentry.h runtime/lock.h runtime/map.h runtime/ops.h \
	runtime/print.h runtime/ustack.h runtime/runtime.h runtime/runtime_main.h runtime/run_state.h runtime/probe_kind.h runtime/stat.h runtime/hist.h runtime/variance.h runtime/bpf_proto.h \
	runtime/strings.h runtime/timer.h runtime/perf.h runtime/procfs.h runtime/hwbkpt.h runtime/netfilter.h runtime/transport.h runtime/userspace_shim.h \
	runtime/symbols.h runtime/timing.h runtime/kobjects.h runtime/syscall_decode.h runtime/kcompat.h runtime/klines.h runtime/uprobes.h runtime/process.h \
	runtime/softfp.h
