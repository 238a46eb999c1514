# stapbpf/: stapbpf, the BPF runtime's loader (stap --runtime=bpf's NAME.bo:
# doc/bpf-bundle.md): maps and kernel programs through libbpf, begin and end
# programs in its own eBPF interpreter (bpf_interp.c), the output through
# stapio's command and system() handling (staprun/stapio_cmd.c,
# stapio_system.c, shared with stapio). Static, as staprun: the same binary
# goes into the QEMU guest.
bin_PROGRAMS += stapbpf/stapbpf
stapbpf_stapbpf_SOURCES = stapbpf/stapbpf.c stapbpf/bpf_bundle.c stapbpf/bpf_bundle.h \
	stapbpf/bpf_printf.c stapbpf/bpf_printf.h stapbpf/bpf_umap.c stapbpf/bpf_umap.h \
	stapbpf/bpf_interp.c stapbpf/bpf_interp.h stapbpf/bpf_helpers.c stapbpf/bpf_vm.h \
	stapbpf/bpf_procfs.c stapbpf/bpf_procfs.h \
	stapbpf/bpf_attach.c stapbpf/bpf_attach.h staprun/stapio_cmd.c staprun/stapio_cmd.h \
	staprun/stapio_system.c staprun/stapio_system.h stapbpf/bpf_funcinfo.c stapbpf/bpf_funcinfo.h \
	stapbpf/bpf_ksym.c stapbpf/bpf_ksym.h stapbpf/bpf_usym.c stapbpf/bpf_usym.h
stapbpf_stapbpf_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/runtime -I$(srcdir)/staprun
stapbpf_stapbpf_LDFLAGS = -static
stapbpf_stapbpf_LDADD = $(BPF_LIBS)

