# testsuite/: CUnit tests of the pure runtime headers (runtime/format.h,
# map.h, strings.h, softfp.h), compiled in user space through runtime/userspace_shim.h.
RUNTIME_UNIT_TESTS = testsuite/unit/format_test testsuite/unit/map_test \
	testsuite/unit/strings_test testsuite/unit/softfp_test
check_PROGRAMS += $(RUNTIME_UNIT_TESTS)
TESTS += $(RUNTIME_UNIT_TESTS)

RUNTIME_PURE_HDRS = runtime/format.h runtime/map.h runtime/strings.h \
	runtime/userspace_shim.h

testsuite_unit_format_test_SOURCES = testsuite/unit/format_test.c $(RUNTIME_PURE_HDRS)
testsuite_unit_format_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/runtime
testsuite_unit_format_test_LDADD = $(CUNIT_LIBS)

testsuite_unit_map_test_SOURCES = testsuite/unit/map_test.c $(RUNTIME_PURE_HDRS)
testsuite_unit_map_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/runtime
testsuite_unit_map_test_LDADD = $(CUNIT_LIBS)

testsuite_unit_strings_test_SOURCES = testsuite/unit/strings_test.c $(RUNTIME_PURE_HDRS)
testsuite_unit_strings_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/runtime
testsuite_unit_strings_test_LDADD = $(CUNIT_LIBS)

testsuite_unit_softfp_test_SOURCES = testsuite/unit/softfp_test.c runtime/softfp.h runtime/userspace_shim.h
testsuite_unit_softfp_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/runtime
testsuite_unit_softfp_test_LDADD = $(CUNIT_LIBS) -lm
