# testsuite/: unit tests (CUnit), conformance over SystemTap's own
# parseok/parseko, semok/semko/transok/transko and buildok/buildko files
# (read from ../shared), and the run tests
# (testsuite/run/NAME.stp + NAME.expect) executed in one QEMU guest boot.
# The suites, longest first (make check runs them two at a time, in this
# order: see CHECK_JOBS below); the unit tests (unit-*.mk, elaborate_test) and
# the fuzz regressions (fuzz/local.mk) take seconds and come last.
TESTS += testsuite/dtrace-tests.sh testsuite/run-tests.sh testsuite/conformance-build.sh testsuite/bpf-run-tests.sh \
	testsuite/dtrace-kernel-tests.sh \
	testsuite/cstap-examples.sh testsuite/examples.sh testsuite/list-tests.sh testsuite/cli-tests.sh \
	testsuite/conformance-sem.sh testsuite/stress.sh testsuite/btf-tests.sh testsuite/debuginfod-tests.sh \
	testsuite/staprun-tests.sh testsuite/conformance-parse.sh testsuite/vm-smoke.sh \
	testsuite/remote-ssh-tests.sh testsuite/attack-tests.sh testsuite/cache-tests.sh \
	testsuite/exporter-tests.sh testsuite/sysroot-tests.sh testsuite/man-tests.sh \
	testsuite/stapbpf-tests.sh testsuite/native-tests.sh testsuite/native-examples.sh testsuite/tree-tests.sh testsuite/privilege-table.sh \
	testsuite/library-tests.sh testsuite/examples-run.sh testsuite/dtrace-usdt-tests.sh testsuite/dtrace-provider-tests.sh
EXTRA_DIST += testsuite/dtrace-tests.sh testsuite/dtrace-kernel-tests.sh testsuite/dtrace testsuite/dtrace-usdt-tests.sh testsuite/dtrace-provider-tests.sh testsuite/examples-run.sh testsuite/library-tests.sh testsuite/library testsuite/native-tests.sh testsuite/native-examples.sh testsuite/privilege-table.sh testsuite/README.md testsuite/tree-tests.sh testsuite/lib.sh testsuite/sysroot-tests.sh testsuite/remote-ssh-tests.sh testsuite/btf-tests.sh testsuite/btf testsuite/stress.sh testsuite/cache-tests.sh testsuite/man-tests.sh testsuite/exporter-tests.sh testsuite/exporter testsuite/attack-tests.sh testsuite/attack testsuite/privilege testsuite/staprun-tests.sh testsuite/staprun testsuite/stapbpf-tests.sh testsuite/stress testsuite/vm-smoke.sh testsuite/cli-tests.sh testsuite/list-tests.sh testsuite/debuginfod-tests.sh testsuite/list testsuite/conformance-parse.sh testsuite/conformance-sem.sh testsuite/conformance-build.sh testsuite/conformance-build-systemtap.txt testsuite/conformance-xfail.txt testsuite/examples.sh testsuite/examples testsuite/run-tests.sh testsuite/bpf-run-tests.sh testsuite/bpf-both-ways.txt \
	testsuite/run testsuite/semko
# DTrace's unit tests build their trigger programs here (dtrace-tests.sh)
clean-local: clean-dtrace-triggers
clean-dtrace-triggers:
	rm -rf testsuite/dtrace-triggers
.PHONY: clean-dtrace-triggers
include testsuite/unit-parser.mk
include testsuite/unit-runtime.mk
# the run tests need stap, stap-vm, staprun and stapio built first
check_SCRIPTS = translator/stap translator/stap-vm staprun/staprun staprun/stapio

# make bench, each beside SystemTap 4.8 when installed: passes 1-4 of the hello
# script, pass 2 against the kernel's DWARF, the cost of a probe hit in the guest
# (1 CPU, then 2: the two loops at once); natively on this host beside
# bpftrace (native-bpf.sh: skipped without it or root);
# with CSTAP_BASE_BUILD=DIR also passes 1-3 against that (earlier) build of stap
bench: all
	CSTAP_BUILD=$(abs_builddir) $(srcdir)/bench/passes.sh
	CSTAP_BUILD=$(abs_builddir) $(srcdir)/bench/cache-hit.sh
	CSTAP_BUILD=$(abs_builddir) $(srcdir)/bench/pass2-dwarf.sh
	CSTAP_BUILD=$(abs_builddir) $(srcdir)/bench/probe-hit.sh
	CSTAP_BUILD=$(abs_builddir) $(srcdir)/bench/probe-hit.sh -s 2 -N 300000
	CSTAP_BUILD=$(abs_builddir) $(srcdir)/bench/first-event.sh
	-CSTAP_BUILD=$(abs_builddir) $(srcdir)/bench/native-bpf.sh
	@if [ -n "$(CSTAP_BASE_BUILD)" ]; then \
		CSTAP_BUILD=$(abs_builddir) $(srcdir)/bench/compare-builds.sh $(CSTAP_BASE_BUILD); fi
.PHONY: bench

# CUnit tests of pass 2 (resolution, type inference, probe points)
check_PROGRAMS += testsuite/unit/elaborate_test
TESTS += testsuite/unit/elaborate_test
testsuite_unit_elaborate_test_SOURCES = testsuite/unit/elaborate_test.c $(COMMON_SOURCES) \
	$(PARSER_SOURCES) $(REMOTE_SOURCES) $(STAP_PASS_SOURCES)
testsuite_unit_elaborate_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/translator -I$(srcdir)/runtime -I$(srcdir)/staprun \
	-DTAPSET_DIR='"$(abs_srcdir)/tapsets"'
testsuite_unit_elaborate_test_LDADD = $(CUNIT_LIBS) -ldw -lelf $(DEBUGINFOD_LIBS) $(CRYPTO_LIBS)
include testsuite/fuzz/local.mk

# The suites run two at a time (CHECK_JOBS, default the CPU count; a make
# given -jN keeps its N): a guest's TCG keeps one core busy and most suites
# use one core, so two at once fill the machine. TESTS is in the order they
# start: the longest first (see the table at the end of make check).
CHECK_JOBS = $(shell nproc 2>/dev/null || echo 1)
AM_MAKEFLAGS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(CHECK_JOBS))

# make check-full: make check with CSTAP_FULL=1, what make check leaves out to
# stay under 45 minutes on 2 cores (testsuite/README.md says what, and why)
check-full:
	CSTAP_FULL=1 $(MAKE) $(AM_MAKEFLAGS) check
.PHONY: check-full

# make check-quick: the edit-compile-test loop, under 3 minutes: no guest and
# no kbuild (unit tests, parse and sem conformance on the default kernel, the
# CLI at passes 1-3, the fuzz regressions)
# (longest first; roundtrip.sh, 130 CPU-s, is make check's only)
QUICK_TESTS = testsuite/conformance-sem.sh testsuite/cli-tests.sh testsuite/conformance-parse.sh \
	testsuite/fuzz/regress-sem.sh testsuite/fuzz/regress.sh \
	testsuite/tree-tests.sh testsuite/privilege-table.sh $(PARSER_UNIT_TESTS) $(RUNTIME_UNIT_TESTS) testsuite/unit/elaborate_test
check-quick:
	CSTAP_QUICK=1 $(MAKE) $(AM_MAKEFLAGS) check TESTS="$(QUICK_TESTS)"
.PHONY: check-quick

# Every suite runs under testsuite/timed.sh, which ends its log with its wall
# time and its guest boots; after the suites, the table of where the time
# went (testsuite/times.sh; .ci/run prints it too when a suite failed)
LOG_COMPILER = $(SHELL) $(srcdir)/testsuite/timed.sh
EXTRA_DIST += testsuite/timed.sh testsuite/times.sh
check-local: check-TESTS
	@echo "== where make check's time went"
	@$(SHELL) $(srcdir)/testsuite/times.sh $(TEST_LOGS) 2>/dev/null || true
