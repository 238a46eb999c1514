/* lexer_test.c - CUnit tests of the pass 1 tokenizer (translator/parse/lexer.c). */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "parse/lexer.h"
#include "session.h"

static struct session sess;
static struct lexer lx;
static struct token tok;

static void start(const char *text)
{
	struct srcfile *f = srcfile_new("t.stp", xstrdup(text), strlen(text));

	memset(&sess, 0, sizeof(sess));
	lexer_init(&lx, &sess, f);
}

static struct token *next_tok(void)
{
	lexer_next(&lx, &tok);
	return &tok;
}

/* Expect the next token to have this kind and text. */
#define EXPECT(k, txt) do { \
	struct token *t_ = next_tok(); \
	CU_ASSERT_EQUAL(t_->kind, (k)); \
	CU_ASSERT_STRING_EQUAL(t_->text, (txt)); \
} while (0)

static void test_identifiers_and_keywords(void)
{
	start("probe foo_1 a$b$ if _x");
	EXPECT(TK_IDENT, "probe");
	EXPECT(TK_IDENT, "foo_1");
	EXPECT(TK_IDENT, "a$b$");
	EXPECT(TK_IDENT, "if");
	EXPECT(TK_IDENT, "_x");
	EXPECT(TK_EOF, "end of input");
	EXPECT(TK_EOF, "end of input"); /* EOF repeats */
	CU_ASSERT_TRUE(is_keyword("foreach"));
	CU_ASSERT_TRUE(is_keyword("private"));
	CU_ASSERT_FALSE(is_keyword("foo"));
}

static void test_numbers(void)
{
	int64_t v;

	start("42 0x2a 052 0 18446744073709551615 9223372036854775808");
	CU_ASSERT_EQUAL(next_tok()->num, 42);
	CU_ASSERT_EQUAL(next_tok()->num, 42);
	CU_ASSERT_EQUAL(next_tok()->num, 42);
	CU_ASSERT_EQUAL(next_tok()->num, 0);
	CU_ASSERT_EQUAL(next_tok()->num, -1);          /* wraps, as in SystemTap */
	CU_ASSERT_EQUAL(next_tok()->num, INT64_MIN);
	CU_ASSERT_EQUAL(tok.kind, TK_NUMBER);

	CU_ASSERT_TRUE(lex_number("0X1F", &v) && v == 31);
	CU_ASSERT_FALSE(lex_number("0x", &v));
	CU_ASSERT_FALSE(lex_number("08", &v));
	CU_ASSERT_FALSE(lex_number("12a", &v));
	CU_ASSERT_FALSE(lex_number("18446744073709551616", &v));
	CU_ASSERT_FALSE(lex_number("0xzoopoo", &v));
}

static void test_bad_numbers(void)
{
	const char *bad[] = { "0880", "2015a", "0var", "0x", "99999999999999999999999" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		start(bad[i]);
		CU_ASSERT_EQUAL(next_tok()->kind, TK_ERROR);
		CU_ASSERT_EQUAL(sess.errors, 1);
		CU_ASSERT_EQUAL(next_tok()->kind, TK_EOF); /* parked at the end */
	}
}

static void test_operators(void)
{
	start("<<<>>><<= >>= -> =~ !~ .= %( %? %: %) a%b ++ -- && || == != <= >= { } $ $$ .");
	EXPECT(TK_OP, "<<<");
	EXPECT(TK_OP, ">>>");
	EXPECT(TK_OP, "<<=");
	EXPECT(TK_OP, ">>=");
	EXPECT(TK_OP, "->");
	EXPECT(TK_OP, "=~");
	EXPECT(TK_OP, "!~");
	EXPECT(TK_OP, ".=");
	EXPECT(TK_OP, "%(");
	EXPECT(TK_OP, "%?");
	EXPECT(TK_OP, "%:");
	EXPECT(TK_OP, "%)");
	EXPECT(TK_IDENT, "a");
	EXPECT(TK_OP, "%");
	EXPECT(TK_IDENT, "b");
	EXPECT(TK_OP, "++");
	EXPECT(TK_OP, "--");
	EXPECT(TK_OP, "&&");
	EXPECT(TK_OP, "||");
	EXPECT(TK_OP, "==");
	EXPECT(TK_OP, "!=");
	EXPECT(TK_OP, "<=");
	EXPECT(TK_OP, ">=");
	EXPECT(TK_OP, "{");
	EXPECT(TK_OP, "}");
	EXPECT(TK_OP, "$");
	EXPECT(TK_OP, "$$");
	EXPECT(TK_OP, ".");
	EXPECT(TK_EOF, "end of input");
}

static void test_dollar_and_at(void)
{
	start("$var $$vars $$$$provider $var$ $1 $# @12 @# @count @define");
	EXPECT(TK_DOLLAR_VAR, "$var");
	EXPECT(TK_DOLLAR_VAR, "$$vars");
	EXPECT(TK_DOLLAR_VAR, "$$$$provider");
	EXPECT(TK_DOLLAR_VAR, "$var$");
	EXPECT(TK_PARAM, "$1");
	EXPECT(TK_PARAM, "$#");
	EXPECT(TK_PARAM, "@12");
	EXPECT(TK_PARAM, "@#");
	EXPECT(TK_AT_OP, "@count");
	EXPECT(TK_AT_OP, "@define");

	start("$0");
	CU_ASSERT_EQUAL(next_tok()->kind, TK_ERROR);
	start("$12A3");
	CU_ASSERT_EQUAL(next_tok()->kind, TK_ERROR);
	start("@ x");
	CU_ASSERT_EQUAL(next_tok()->kind, TK_ERROR);
}

static void test_strings(void)
{
	static const char want[] = "a\n\t\\\"AAq?d\0z\001";

	start("\"a\\n\\t\\\\\\\"\\101\\x41\\q\\?\\d\\0z\\1\" \"\"");
	next_tok();
	CU_ASSERT_EQUAL(tok.kind, TK_STRING);
	CU_ASSERT_EQUAL(tok.str_len, sizeof(want) - 1);
	CU_ASSERT_EQUAL(memcmp(tok.str, want, sizeof(want) - 1), 0);
	next_tok();
	CU_ASSERT_EQUAL(tok.kind, TK_STRING);
	CU_ASSERT_EQUAL(tok.str_len, 0);

	start("\"unterminated\nx\"");
	CU_ASSERT_EQUAL(next_tok()->kind, TK_ERROR);
	CU_ASSERT_EQUAL(sess.errors, 1);
	start("\"eof");
	CU_ASSERT_EQUAL(next_tok()->kind, TK_ERROR);
}

static void test_comments_and_glue(void)
{
	start("#! stap\na // c++\n/* c\n */ b*c /**/d # end");
	EXPECT(TK_IDENT, "a");
	EXPECT(TK_IDENT, "b");
	CU_ASSERT_FALSE(tok.glued);
	EXPECT(TK_OP, "*");
	CU_ASSERT_TRUE(tok.glued);
	EXPECT(TK_IDENT, "c");
	CU_ASSERT_TRUE(tok.glued);
	EXPECT(TK_IDENT, "d");
	CU_ASSERT_FALSE(tok.glued); /* a comment separates too */
	EXPECT(TK_EOF, "end of input");

	start("a /* never closed");
	EXPECT(TK_IDENT, "a");
	CU_ASSERT_EQUAL(next_tok()->kind, TK_ERROR);
	CU_ASSERT_EQUAL(sess.errors, 1);
}

static void test_embedded(void)
{
	start("%{ int x; /* pure */ %} y %{ unclosed");
	next_tok();
	CU_ASSERT_EQUAL(tok.kind, TK_EMBEDDED);
	CU_ASSERT_STRING_EQUAL(tok.str, " int x; /* pure */ ");
	EXPECT(TK_IDENT, "y");
	CU_ASSERT_EQUAL(next_tok()->kind, TK_ERROR);
}

static void test_positions(void)
{
	start("probe\n  begin {\n\tx = \"s\"\n}");
	next_tok();
	CU_ASSERT_EQUAL(tok.pos.line, 1);
	CU_ASSERT_EQUAL(tok.pos.col, 1);
	next_tok();
	CU_ASSERT_EQUAL(tok.pos.line, 2);
	CU_ASSERT_EQUAL(tok.pos.col, 3);
	next_tok();
	CU_ASSERT_EQUAL(tok.pos.col, 9);
	next_tok();
	CU_ASSERT_EQUAL(tok.pos.line, 3);
	CU_ASSERT_EQUAL(tok.pos.col, 2); /* a tab is one byte */
	next_tok();
	next_tok();
	CU_ASSERT_EQUAL(tok.kind, TK_STRING);
	CU_ASSERT_EQUAL(tok.pos.col, 6);
	next_tok();
	CU_ASSERT_EQUAL(tok.pos.line, 4);
	CU_ASSERT_STRING_EQUAL(tok.pos.file->name, "t.stp");
}

static void test_bad_char(void)
{
	start("a ` b");
	EXPECT(TK_IDENT, "a");
	CU_ASSERT_EQUAL(next_tok()->kind, TK_ERROR);
	CU_ASSERT_EQUAL(sess.errors, 1);
}

int main(void)
{
	CU_pSuite s;
	unsigned failures;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("lexer", NULL, NULL);
	CU_add_test(s, "identifiers and keywords", test_identifiers_and_keywords);
	CU_add_test(s, "numbers", test_numbers);
	CU_add_test(s, "bad numbers", test_bad_numbers);
	CU_add_test(s, "operators", test_operators);
	CU_add_test(s, "$ and @ tokens", test_dollar_and_at);
	CU_add_test(s, "strings and escapes", test_strings);
	CU_add_test(s, "comments and glue", test_comments_and_glue);
	CU_add_test(s, "embedded C", test_embedded);
	CU_add_test(s, "positions", test_positions);
	CU_add_test(s, "bad characters", test_bad_char);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failures ? 1 : 0;
}
