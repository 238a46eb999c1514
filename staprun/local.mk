# staprun/: staprun (loads the module, runs stapio, unloads) and stapio (the
# session: control channel, output relay). Both static: the same binaries go
# into the QEMU guest's initramfs.
bin_PROGRAMS += staprun/staprun
staprun_staprun_SOURCES = staprun/staprun.c staprun/modinfo.c staprun/modinfo.h \
	staprun/module_file.c staprun/module_file.h staprun/modsig.c staprun/modsig.h \
	staprun/modsig_format.h staprun/trusted_path.c staprun/trusted_path.h
staprun_staprun_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/runtime
staprun_staprun_LDFLAGS = -static
staprun_staprun_LDADD = $(CRYPTO_LIBS)

# stap-exporter: the running scripts' Prometheus metrics over HTTP (static too:
# it runs where the modules run; a thread per client)
bin_PROGRAMS += staprun/stap-exporter
staprun_stap_exporter_SOURCES = staprun/stap_exporter.c
staprun_stap_exporter_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/runtime
staprun_stap_exporter_CFLAGS = $(AM_CFLAGS) -pthread
staprun_stap_exporter_LDFLAGS = -static -pthread

# stap-merge: the per-CPU files of stap -b in one stream
bin_PROGRAMS += staprun/stap-merge
staprun_stap_merge_SOURCES = staprun/stap_merge.c

pkglibexec_PROGRAMS += staprun/stapio
staprun_stapio_SOURCES = staprun/stapio.c staprun/stapio_cmd.c staprun/stapio_cmd.h \
	staprun/stapio_system.c staprun/stapio_system.h staprun/stapio_bulk.c staprun/stapio_bulk.h \
	staprun/write_all.h
staprun_stapio_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/runtime
staprun_stapio_LDFLAGS = -static

# End-to-end test of runtime + staprun/stapio in a QEMU guest (needs a kernel
# build tree, qemu-system-x86_64, busybox-static; ~30 s). Not part of `make check`.
EXTRA_DIST += testsuite/runtime-module/run.sh testsuite/runtime-module/rtmod.c
check-runtime-module: staprun/staprun staprun/stapio
	STAPRUN=$(abs_builddir)/staprun/staprun STAPIO=$(abs_builddir)/staprun/stapio \
	CSTAP_RUNTIME=$(abs_srcdir)/runtime $(srcdir)/testsuite/runtime-module/run.sh
.PHONY: check-runtime-module

# staprun runs setuid root for the members of stapusr alone, as SystemTap
# installs it (04110 root:stapusr): done when installing as root and the
# group exists (groupadd -r stapusr); otherwise the command is printed.
# A package (DESTDIR) sets the mode in its own metadata.
install-exec-hook: install-staprun-setuid
install-staprun-setuid:
	@f="$(DESTDIR)$(bindir)/staprun"; \
	if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && getent group stapusr > /dev/null; then \
		chown root:stapusr "$$f" && chmod 04110 "$$f" && echo "staprun: installed 04110 root:stapusr"; \
	else \
		echo "NOTE: for users of the groups stapusr/stapsys/stapdev, as root: chown root:stapusr $$f && chmod 04110 $$f"; \
	fi
.PHONY: install-staprun-setuid
