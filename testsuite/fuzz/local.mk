# testsuite/fuzz/: robustness of the translator (see testsuite/fuzz/README.md).
#   make check         runs regress.sh: every kept pass-1 fuzz regression input
#                      and generated deep-nesting inputs through the harness
#                      under ASan+UBSan; testsuite/roundtrip.sh (-p1 output
#                      re-parses to the same output); and regress-sem.sh: the
#                      pass 2/3 regression inputs and a short seeded pass 2/3
#                      fuzzing run through stap -p3
#   make check-asan    builds an ASan+UBSan stap in asan/ and runs with it the
#                      conformance tests (parse and sem), the round trip,
#                      regress.sh, regress-sem.sh and passes 1-3 of every run test
#   make fuzz          fuzzes pass 1 for FUZZ_SECONDS (default 600) with libFuzzer
#   make fuzz-sem      fuzzes passes 2-3 for FUZZ_SECONDS (default 600) with the
#                      ASan+UBSan stap (sem-fuzz.sh)
#   make bench-parse   times pass 1 over all tapsets plus a 1,000-line script

TESTS += testsuite/fuzz/regress.sh testsuite/roundtrip.sh testsuite/fuzz/regress-sem.sh
EXTRA_DIST += testsuite/fuzz/parse_fuzz.c testsuite/fuzz/run-fuzz.sh testsuite/fuzz/regress.sh \
	testsuite/fuzz/sem_mutate.c testsuite/fuzz/sem-fuzz.sh testsuite/fuzz/regress-sem.sh \
	testsuite/fuzz/regressions-sem testsuite/run-p3.sh \
	testsuite/fuzz/README.md testsuite/fuzz/regressions testsuite/roundtrip.sh \
	bench/parse.sh bench/parse_bench.c

ASAN_CC = $(CC)
ASAN_FLAGS = -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
ASAN_STAP = $(abs_builddir)/asan/translator/stap

# One compiler run over the .c files of stap's sources (rebuilt on every
# make check-asan, about a minute): no objects mixed with the normal build's.
asan-stap:
	@mkdir -p $(abs_builddir)/asan/translator
	srcs=; for f in $(translator_stap_SOURCES); do \
		case $$f in *.c) srcs="$$srcs $(srcdir)/$$f";; esac; \
	done; \
	$(ASAN_CC) $(ASAN_FLAGS) $(AM_CFLAGS) $(DEFS) $(AM_CPPFLAGS) -I$(srcdir)/translator \
		-I$(srcdir)/runtime $$srcs -o $(ASAN_STAP) $(translator_stap_LDADD)

check-asan: asan-stap
	CSTAP_TAPSETS=$(abs_srcdir)/tapsets CSTAP_RUNTIME=$(abs_srcdir)/runtime \
	ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
	CSTAP_CONF_SHELL_TIMEOUT=1200 STAP=$(ASAN_STAP) $(srcdir)/testsuite/conformance-parse.sh
	CSTAP_TAPSETS=$(abs_srcdir)/tapsets CSTAP_RUNTIME=$(abs_srcdir)/runtime \
	ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
	STAP=$(ASAN_STAP) $(srcdir)/testsuite/roundtrip.sh
	CC="$(ASAN_CC)" $(srcdir)/testsuite/fuzz/regress.sh
	CSTAP_TAPSETS=$(abs_srcdir)/tapsets CSTAP_RUNTIME=$(abs_srcdir)/runtime \
	ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
	STAP=$(ASAN_STAP) $(srcdir)/testsuite/conformance-sem.sh
	STAP=$(ASAN_STAP) SEMFUZZ_SMOKE=$${SEMFUZZ_SMOKE:-60} $(srcdir)/testsuite/fuzz/regress-sem.sh
	STAP=$(ASAN_STAP) $(srcdir)/testsuite/run-p3.sh

fuzz:
	$(srcdir)/testsuite/fuzz/run-fuzz.sh $${FUZZ_SECONDS:-600}

fuzz-sem: asan-stap
	STAP=$(ASAN_STAP) $(srcdir)/testsuite/fuzz/sem-fuzz.sh -t $${FUZZ_SECONDS:-600} -s $${FUZZ_SEED:-1} -k

bench-parse: translator/stap
	CSTAP_BUILD=$(abs_builddir) CC="$(CC)" $(srcdir)/bench/parse.sh

# doc/diagnostics.md: the header kept, the tables regenerated from diag_tags.def
update-diagnostics-doc:
	{ sed '/^## /,$$d' $(srcdir)/doc/diagnostics.md | sed -e :a -e '/^\n*$$/{$$d;N;ba' -e '}'; \
	  awk '/^\/\* .*\*\/$$/ && NR > 1 { \
		h = $$0; sub(/^\/\* */, "", h); sub(/ *\*\/$$/, "", h); \
		printf "\n## %s%s\n\n| Tag | Meaning |\n|---|---|\n", toupper(substr(h, 1, 1)), substr(h, 2); next } \
	  /^DIAG\(/ { line = $$0; sub(/^DIAG\( */, "", line); tag = line; sub(/,.*/, "", tag); \
		m = line; sub(/^[^"]*"/, "", m); sub(/"\) *$$/, "", m); gsub(/\|/, "\\|", m); \
		printf "| `%s` | %s |\n", tag, m }' $(srcdir)/translator/diag_tags.def; } > doc/diagnostics.md.tmp
	mv doc/diagnostics.md.tmp $(srcdir)/doc/diagnostics.md

clean-local: clean-asan
clean-asan:
	rm -rf $(abs_builddir)/asan

.PHONY: asan-stap check-asan fuzz fuzz-sem bench-parse clean-asan update-diagnostics-doc
