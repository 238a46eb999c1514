# testsuite/: CUnit tests of pass 1 (lexer, preprocessor, parser, unparser).
# They link the pass-1 objects themselves, not the stap program.
# (The parseok/parseko conformance run, testsuite/conformance-parse.sh, is
# listed in testsuite/local.mk.)
PARSER_UNIT_TESTS = testsuite/unit/lexer_test testsuite/unit/parse_test testsuite/unit/d_parse_test
check_PROGRAMS += $(PARSER_UNIT_TESTS)
TESTS += $(PARSER_UNIT_TESTS)

PARSER_TEST_DEPS = translator/util.c translator/util.h translator/diag.c translator/diag.h \
	translator/diag_tags.def translator/ast.h translator/session.h $(PARSER_SOURCES)

testsuite_unit_lexer_test_SOURCES = testsuite/unit/lexer_test.c $(PARSER_TEST_DEPS)
testsuite_unit_lexer_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/translator
testsuite_unit_lexer_test_LDADD = $(CUNIT_LIBS)

testsuite_unit_parse_test_SOURCES = testsuite/unit/parse_test.c $(PARSER_TEST_DEPS)
testsuite_unit_parse_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/translator
testsuite_unit_parse_test_LDADD = $(CUNIT_LIBS)

# the D front end's lexer, parser and type table, on snippets and on
# DTrace's own test suite (../shared/dtrace-testsuite; skipped without it)
testsuite_unit_d_parse_test_SOURCES = testsuite/unit/d_parse_test.c translator/util.c translator/util.h \
	$(D_PARSE_SOURCES)
testsuite_unit_d_parse_test_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/translator \
	-DD_TESTSUITE_DIR='"$(abs_top_srcdir)/../shared/dtrace-testsuite"'
