#!/bin/sh
# dtrace-kernel-tests.sh - DTrace's language tests (dtrace-tests.sh's
# language group) with the module runtime: each test's module built for an
# installed kernel and run in a QEMU guest of it, as dtrace does on a host
# that loads no modules. make check runs every 8th test (DTRACE_SAMPLE,
# default 8; 1 runs all 346, some 20 minutes on 2 cores); their known
# failures are testsuite/dtrace/known-kernel.txt.
DTRACE_RUNTIME=kernel DTRACE_SAMPLE=${DTRACE_SAMPLE:-8} exec sh "$(dirname "$0")/dtrace-tests.sh" "$@"
