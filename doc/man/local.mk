# doc/man/: the manual pages. stap.1, staprun.8, stapbpf.8, stap-vm.1,
# stapprobes.3stap and stapex.3stap are written by hand; gen-man.sh makes the
# others at build time, into doc/man/gen/: error::TAG.7stap (every diagnostic
# tag, and error::pass1-5), function::NAME.3stap and probe::NAME.3stap (from
# the tapsets' doc comments). make install puts each in $(mandir)/manN by its
# section (the digit of its extension).
MAN_WRITTEN = doc/man/stap.1 doc/man/staprun.8 doc/man/stap-vm.1 doc/man/stapprobes.3stap \
	doc/man/stapex.3stap doc/man/stap-exporter.8 doc/man/stap-merge.1 doc/man/stapbpf.8 doc/man/dtrace.1
EXTRA_DIST += $(MAN_WRITTEN) doc/man/gen-man.sh

doc/man/gen/.stamp: $(srcdir)/doc/man/gen-man.sh $(srcdir)/translator/diag_tags.def $(dist_tapset_DATA)
	$(SHELL) $(srcdir)/doc/man/gen-man.sh $(srcdir) doc/man/gen > /dev/null && touch $@

all-local: doc/man/gen/.stamp

install-data-local: doc/man/gen/.stamp
	@for f in $(MAN_WRITTEN:%=$(srcdir)/%) doc/man/gen/*; do \
		b=$${f##*/}; sec=$${b##*.}; d="$(DESTDIR)$(mandir)/man$${sec%%[a-z]*}"; \
		$(MKDIR_P) "$$d" && $(INSTALL_DATA) "$$f" "$$d/$$b" || exit 1; \
	done

uninstall-local:
	@for f in $(MAN_WRITTEN:%=$(srcdir)/%) doc/man/gen/*; do \
		b=$${f##*/}; sec=$${b##*.}; rm -f "$(DESTDIR)$(mandir)/man$${sec%%[a-z]*}/$$b"; \
	done

clean-local:
	rm -rf doc/man/gen
