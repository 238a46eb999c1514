# translator/: the stap program (and stap-vm, the guest runner), one folder
# per pass, probes/ the probe families, target/ the target-kernel library,
# remote/ the QEMU runner. doc/architecture.md says which does what.

COMMON_SOURCES = translator/util.c translator/util.h translator/env.c translator/env.h \
	translator/env.def translator/diag.c translator/diag.h translator/diag_tags.def \
	translator/ast.h translator/session.h \
	translator/regex.c translator/regex.h

# pass 1: lexer, preprocessor, parser, unparser (the unit tests link these alone)
PARSER_SOURCES = translator/ast.c translator/parse/lexer.c translator/parse/lexer.h \
	translator/parse/preprocess.c translator/parse/parse.c translator/parse/unparse.c

# the QEMU guest runner (stap --remote=qemu, stap-vm): entry points and
# config, the guest's /init, the initramfs (cpio, cache), one boot (qemu,
# channels, signals, verdict)
REMOTE_SOURCES = translator/remote/qemu.c translator/remote/qemu.h translator/remote/internal.h \
	translator/remote/guest.c translator/remote/modules.c translator/remote/cpio.c \
	translator/remote/boot.c

# the target kernel: its facts and files (kernel.c, once per run; target.h the
# per-run state off the session; releases.c the installed releases, stap-vm
# links it too), debuginfo (installed or debuginfod), symbols,
# the image, DWARF functions, types, lines and locations, the syscall tapset generator
TARGET_SOURCES = translator/target/kernel.c translator/target/kernel.h translator/target/target.h \
	translator/target/releases.c translator/target/releases.h \
	translator/target/debuginfo.c translator/target/debuginfo.h translator/target/cast_headers.c \
	translator/target/uimage.c translator/target/uimage.h translator/target/sysroot.c translator/target/sysroot.h translator/target/sdt.c translator/target/sdt.h \
	translator/target/debuginfod.c translator/target/debuginfod.h \
	translator/target/ksyms.c translator/target/ksyms.h translator/target/kimage.c translator/target/btf.c translator/target/btf_chain.c translator/target/btf.h \
	translator/target/blacklist.c translator/target/blacklist.h \
	translator/target/ktracepoints.c translator/target/ktracepoints.h translator/target/tpmeta.c translator/target/tpmeta.h translator/target/tpmeta_cache.c translator/target/tracefs.c translator/target/tracefs.h translator/target/attach.c translator/target/attach.h \
	translator/target/kimage.h translator/target/dwarf_funcs.c translator/target/dwarf_funcs.h \
	translator/target/dwarf_stmt.c translator/target/dwarf_stmt.h translator/target/dwarf_inlines.c translator/target/dwarf_inlines.h translator/target/dwarf_scope.c \
	translator/target/dwarf_scope.h translator/target/dwarf_types.c translator/target/dwarf_types.h \
	translator/target/syscalls_gen.c \
	translator/target/syscalls_gen.h translator/target/uapi.c translator/target/uapi.h \
	translator/target/klines.c translator/target/klines.h \
	translator/target/ustack.c translator/target/ustack.h \
	translator/target/ftrace_sites.c translator/target/ftrace_sites.h

# the probe families, one file each, behind struct provider (providers.c lists them)
PROBE_SOURCES = translator/probes/provider.h translator/probes/providers.c \
	translator/probes/begin_end.c translator/probes/timer.c translator/probes/perf.c translator/probes/procfs.c translator/probes/hwbkpt.c translator/probes/netfilter.c translator/probes/ctxvars.c translator/probes/kprobe.c translator/probes/kfunc_btf.c translator/probes/kfunc_btf.h \
	translator/probes/dwarf.c translator/probes/tracepoint.c translator/probes/uprobes.c translator/probes/uprobes.h translator/probes/process.c \
	translator/probes/kpoint.c translator/probes/kpoint.h translator/probes/kpsites.c \
	translator/probes/kpsites.h

STAP_PASS_SOURCES = translator/passes.h translator/options.c translator/options.h \
	translator/spawn.c translator/spawn.h translator/parse/library.c translator/parse/tapset_index.c translator/parse/tapset_index.h \
	translator/elaborate/elaborate.c translator/elaborate/autocast.c \
	translator/walk.c translator/walk.h translator/elaborate/analyze.c \
	translator/elaborate/alias.c translator/elaborate/checks.c translator/elaborate/dump.c \
	translator/elaborate/optimize.c translator/elaborate/context_funcs.c translator/elaborate/target_exprs.c \
	translator/elaborate/tvars.c translator/elaborate/tvars.h translator/elaborate/doubleglob.c \
	translator/elaborate/listing.c translator/elaborate/listing.h translator/elaborate/updates.c translator/elaborate/dumps.c translator/elaborate/privilege.c \
	translator/translate/translate.c translator/translate/translate.h \
	translator/translate/module/module.c translator/translate/module/module.h \
	translator/translate/module/lowered_c.c translator/translate/module/lowered_c.h \
	translator/translate/bpf/bpf.h translator/translate/bpf/gen.h translator/translate/bpf/insn.h \
	translator/translate/bpf/prog.c translator/translate/bpf/expr.c translator/translate/bpf/stmt.c \
	translator/translate/bpf/kfmt.c translator/translate/bpf/rematch.c translator/translate/bpf/entry.c translator/translate/bpf/pretty.c \
	translator/translate/bpf/tvar.c translator/translate/bpf/wrap.c translator/translate/bpf/keywidth.c translator/translate/bpf/ksym.c translator/translate/bpf/ustack.c translator/translate/bpf/callback.c \
	translator/translate/bpf/intrinsics.c translator/translate/bpf/unit.h translator/translate/bpf/bundle.c \
	translator/build/build.c translator/build/recipe.c translator/build/recipe.h translator/build/pch.c translator/build/pch.h translator/build/kfeatures.c translator/build/kfeatures.h \
	translator/build/modsign.c translator/build/modsign.h \
	translator/run/run.c translator/run/ssh.c translator/cache/modcache.c translator/cache/modcache.h \
	translator/inputs.c translator/inputs.h translator/lowered.c translator/lowered.h \
	$(TARGET_SOURCES) $(PROBE_SOURCES)

# the D front end (dtrace, stap --dtrace): D's tree, its errors (DTrace's D_*
# tags), its types, lexer and parser (the unit test links these alone), then
# the checks, the lowering onto cstap's tree and the command line
D_PARSE_SOURCES = translator/d/d_ast.h translator/d/d_diag.c translator/d/d_diag.h translator/d/d_types.c \
	translator/d/d_types.h translator/d/d_lex.c translator/d/d_lex.h translator/d/d_pragma.c \
	translator/d/d_pragma.h translator/d/d_parse.c translator/d/d_parse.h \
	translator/d/d_parse_int.h translator/d/d_parse_expr.c translator/d/d_parse_type.c \
	translator/d/d_parse_decl.c translator/d/d_dump.c
D_SOURCES = $(D_PARSE_SOURCES) \
	translator/d/d_main.c translator/d/d_main.h translator/d/d_sema.h \
	translator/d/d_funcs.c translator/d/d_funcs.h translator/d/d_check.c \
	translator/d/d_check_int.h translator/d/d_check_type.c translator/d/d_check_expr.c \
	translator/d/d_check_var.c \
	translator/d/d_check_call.c translator/d/d_check_fmt.c translator/d/d_check_xlate.c \
	translator/d/d_lib.c translator/d/d_lib.h translator/d/d_btf.c translator/d/d_btf.h \
	translator/d/d_lower.h translator/d/d_lower.c translator/d/d_lower_fmt.c \
	translator/d/d_lower_agg.c translator/d/d_lower_mem.c translator/d/d_provider.c translator/d/d_provider.h \
	translator/d/d_prov_list.c translator/d/d_prov_dtrace.c translator/d/d_prov_profile.c \
	translator/d/d_prov_syscall.c translator/d/d_prov_table.c translator/d/d_prov_psinfo.c \
	translator/d/d_prov_proc.c translator/d/d_prov_sched.c translator/d/d_prov_io.c \
	translator/d/d_prov_btf.c translator/d/d_prov_fbt.c translator/d/d_prov_rawtp.c \
	translator/d/d_prov_uproc.h translator/d/d_prov_uproc.c translator/d/d_prov_pid.c translator/d/d_prov_usdt.c \
	translator/d/d_prov_cpc.c translator/d/d_prov_lockstat.c translator/d/d_prov_lib.c \
	translator/d/d_usdt.c translator/d/d_usdt.h translator/d/d_usdt_header.c translator/d/d_usdt_object.c translator/d/d_usdt_elf.c

bin_PROGRAMS += translator/stap translator/stap-vm
translator_stap_SOURCES = translator/main.c $(COMMON_SOURCES) $(PARSER_SOURCES) $(REMOTE_SOURCES) \
	$(STAP_PASS_SOURCES) $(D_SOURCES)
translator_stap_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/translator -I$(srcdir)/runtime -I$(srcdir)/staprun
translator_stap_LDADD = -ldw -lelf $(DEBUGINFOD_LIBS) $(CRYPTO_LIBS)

translator_stap_vm_SOURCES = translator/remote/stap_vm_main.c translator/util.c translator/util.h \
	translator/spawn.c translator/spawn.h \
	translator/env.c translator/env.h translator/env.def $(REMOTE_SOURCES) \
	translator/target/releases.c translator/target/releases.h
translator_stap_vm_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/translator

# dtrace is stap by another name (main.c: dtrace_mode): a link in the build
# tree for the tests, and where stap is installed
all-local: translator/dtrace
translator/dtrace: translator/stap$(EXEEXT)
	$(AM_V_GEN)ln -sf stap$(EXEEXT) $@
CLEANFILES += translator/dtrace
install-exec-hook: install-dtrace-link
install-dtrace-link:
	ln -sf stap$(EXEEXT) "$(DESTDIR)$(bindir)/dtrace"
uninstall-local: uninstall-dtrace-link
uninstall-dtrace-link:
	rm -f "$(DESTDIR)$(bindir)/dtrace"
.PHONY: install-dtrace-link uninstall-dtrace-link
