# translator/: the stap program (and stap-vm, the guest runner).
# Pass 1 sources are listed in parser.mk, the QEMU runner's in remote.mk.
include translator/parser.mk
include translator/remote.mk

COMMON_SOURCES = translator/util.c translator/util.h translator/diag.c translator/diag.h \
	translator/diag_tags.def translator/ast.h translator/session.h

bin_PROGRAMS += translator/stap translator/stap-vm
translator_stap_SOURCES = translator/main.c $(COMMON_SOURCES) $(PARSER_SOURCES) $(REMOTE_SOURCES) \
	$(STAP_PASS_SOURCES)
translator_stap_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/translator -I$(srcdir)/runtime
translator_stap_LDADD = -ldw -lelf $(DEBUGINFOD_LIBS)

translator_stap_vm_SOURCES = translator/stap_vm_main.c translator/util.c translator/util.h \
	$(REMOTE_SOURCES)
translator_stap_vm_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/translator

STAP_PASS_SOURCES = translator/options.c translator/options.h translator/library.c \
	translator/elaborate.c translator/elaborate.h translator/autocast.c translator/alias.c translator/translate.c translator/translate.h \
	translator/build.c translator/run.c translator/spawn.c translator/spawn.h translator/dump.c \
	translator/probes/provider.h translator/probes/providers.c translator/probes/begin_end.c \
	translator/probes/timer.c translator/recipe.c translator/recipe.h \
	translator/probes/ksyms.c translator/probes/ksyms.h translator/probes/kpsites.c \
	translator/probes/kpsites.h translator/probes/kpoint.c translator/probes/kpoint.h \
	translator/probes/kprobe.c translator/probes/dwarf.c translator/probes/dwarf_probes.h \
	translator/probes/dwarf_funcs.c translator/probes/dwarf_funcs.h translator/probes/dwarf_debuginfo.c \
	translator/probes/dwarf_debuginfo.h translator/probes/dwarf_tvars.c translator/probes/tracepoint.c translator/probes/syscalls_gen.c translator/probes/tvars.h \
	translator/listing.c translator/listing.h \
	translator/probes/kimage.c translator/probes/kimage.h translator/probes/debuginfod.c \
	translator/probes/debuginfod.h translator/probes/dwarf_stmt.c translator/probes/dwarf_stmt.h
