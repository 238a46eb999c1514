/* parse_test.c - CUnit tests of pass 1: preprocessor, parser, unparser.
 *
 * Trees are checked through unparse_expr / unparse_script (whose format is
 * fully parenthesized, so precedence shows) and through direct field checks;
 * errors by the tag and position of the diagnostic on stderr; round trips
 * by comparing the trees of a script and of its printed form.
 */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ast.h"
#include "session.h"

static struct session *sess;
static char errbuf[8192];

static struct session *new_session(void)
{
	sess = xcalloc(1, sizeof(*sess));
	sess->kernel_release = "6.1.0-56-cloud-amd64";
	sess->arch = "x86_64";
	sess->kernel_build = "/nonexistent";
	return sess;
}

/* Parse text with the current session, capturing stderr in errbuf. */
static struct script *parse_in(const char *text)
{
	struct srcfile *f = srcfile_new("<input>", xstrdup(text), strlen(text));
	char path[] = "/tmp/cstap-parse-test.XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	struct script *sc;
	ssize_t n;

	fflush(stderr);
	dup2(fd, 2);
	sc = parse_script(sess, f);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, errbuf, sizeof(errbuf) - 1);
	errbuf[n > 0 ? n : 0] = 0;
	close(fd);
	unlink(path);
	return sc;
}

static struct script *parse_text(const char *text)
{
	new_session();
	return parse_in(text);
}

static struct script *parse_guru(const char *text)
{
	new_session()->guru = true;
	return parse_in(text);
}

/* The printed form of the first statement of the first probe. */
static char *first_stmt(struct script *sc)
{
	struct strbuf sb = STRBUF_INIT;

	if (!sc || !sc->probes.len || !sc->probes.items[0]->body->stmts.len)
		return xstrdup("<no statement>");
	unparse_stmt(&sb, sc->probes.items[0]->body->stmts.items[0], 0);
	return strbuf_detach(&sb);
}

static char *stmt_of(const char *body)
{
	char *text = xasprintf("probe begin { %s }", body);
	char *r = first_stmt(parse_guru(text));

	free(text);
	return r;
}

static void check_stmt(const char *body, const char *want)
{
	char *got = stmt_of(body);

	if (strcmp(got, want))
		fprintf(stderr, "\n  %s\n  got:  %s\n  want: %s\n%s", body, got, want, errbuf);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
}

static void test_precedence(void)
{
	check_stmt("x = 1 + 2 * 3 - 4", "(x) = (((1) + ((2) * (3))) - (4));");
	check_stmt("x = a | b ^ c & d == e < f << g . h + i * j",
		   "(x) = ((a) | ((b) ^ ((c) & (((d) == (e)) < ((f) << ((g) . ((h) + ((i) * (j)))))))));");
	check_stmt("x = a . b << c", "(x) = (((a) . (b)) << (c));");
	check_stmt("x = a == b in c", "(x) = ([(a) == (b)] in c);");
	check_stmt("x = a & b in c", "(x) = ((a) & ([b] in c));");
	check_stmt("x = -a in c", "(x) = ([-(a)] in c);");
	check_stmt("x = a && b || c && d", "(x) = (((a) && (b)) || ((c) && (d)));");
	check_stmt("x = a || b ? c : d", "(x) = (((a) || (b))?(c):(d));");
	check_stmt("x = a ? b = 1 : c", "(x) = ((a)?((b) = (1)):(c));");
	check_stmt("x = a ? b : c ? d : e", "(x) = ((a)?(b):((c)?(d):(e)));");
	check_stmt("x = y = z", "(x) = ((y) = (z));");
	check_stmt("x = -a++", "(x) = (-((a)++));");
	check_stmt("x = !a * b", "(x) = ((!(a)) * (b));");
	check_stmt("x = a++ + ++b", "(x) = (((a)++) + (++(b)));");
	check_stmt("x = a >>> 2 >> 1", "(x) = (((a) >>> (2)) >> (1));");
	check_stmt("x = -5 - -3", "(x) = ((-5) - (-3));");
	check_stmt("x = - (5)", "(x) = (-(5));");
	check_stmt("x = ~ ! - + a", "(x) = (~(!(-(+(a)))));");
	check_stmt("s <<< 1 + 2", "(s) <<< ((1) + (2));");
	check_stmt("x .= \"a\" \"b\"", "(x) .= (\"ab\");");
	check_stmt("x = a =~ \"^a.*\" \"b\"", "(x) = ((a) =~ \"^a.*b\");");
	check_stmt("x = a !~ \"b\"", "(x) = ((a) !~ \"b\");");
}

static void test_primaries(void)
{
	check_stmt("x = [1, \"a\"] in arr", "(x) = ([1, \"a\"] in arr);");
	check_stmt("x = [*, 1] in arr", "(x) = ([*, 1] in arr);");
	check_stmt("a[1, *]", "a[1, *];");
	check_stmt("x = f(1, g(), \"s\")", "(x) = (f(1, g(), \"s\"));");
	check_stmt("x = @count(s) + @variance(s, 3)", "(x) = ((@count(s)) + (@variance(s, 3)));");
	check_stmt("print(@hist_linear(s, 0, 100, 10))", "print(@hist_linear(s, 0, 100, 10));");
	check_stmt("x = @hist_log(s)[3]", "(x) = (@hist_log(s)[3]);");
	check_stmt("x = $p->a[i + 1]->b$", "(x) = ($p->a[(i) + (1)]->b$);");
	check_stmt("x = $$parms$$", "(x) = ($$parms$$);");
	check_stmt("x = &$p->f", "(x) = (&$p->f);");
	check_stmt("x = &a[1]", "(x) = (&(a[1]));");
	check_stmt("x = @cast(p, \"task_struct\", \"kernel\")->pid",
		   "(x) = (@cast(p, \"task_struct\", \"kernel\")->pid);");
	check_stmt("x = @var(\"foo@bar.c\")->x", "(x) = (@var(\"foo@bar.c\")->x);");
	check_stmt("x = @defined($a) ? @choose_defined($a, 1) : @entry($b)",
		   "(x) = ((@defined($a))?(@choose_defined($a, 1)):(@entry($b)));");
	check_stmt("x = @perf(\"cycles\")", "(x) = (@perf(\"cycles\"));");
	check_stmt("x = (p)->foo[1]$", "(x) = ((p)->foo[1]$);");
	check_stmt("x = f() $$", "(x) = ((f())$$);");
	check_stmt("x = a[1][2]", "(x) = ((a[1])[2]);");
	check_stmt("x = (foo)[1] in bar", "(x) = ([(foo)[1]] in bar);");
	check_stmt("x = %{ 1 %}", "(x) = (%{ 1 %});");
	check_stmt("x = @kderef(4, p)", "(x) = (@kderef(4, p));");
	check_stmt("x = \"q\\\"\\n\\001\"", "(x) = (\"q\\\"\\n\\001\");");
	check_stmt("x = 0x10 + 010", "(x) = ((16) + (8));");
}

static void test_statements(void)
{
	struct script *sc;
	struct stmt *st;

	check_stmt("if (x) y = 1 else { z = 2 }", "if (x) (y) = (1);\nelse {\n(z) = (2);\n}");
	check_stmt("while (i < 3) i++", "while ((i) < (3)) (i)++;");
	check_stmt("for (;;) break", "for (; ; ) break;");
	check_stmt("for (i = 0; i < 5; i++) continue", "for ((i) = (0); (i) < (5); (i)++) continue;");
	check_stmt("foreach ([a, b+] in x limit 5) next", "foreach ([a, b+] in x limit 5) next;");
	check_stmt("foreach (v = [k] in x-) ;", "foreach (v = [k] in x-) ;");
	check_stmt("foreach (k in @hist_log(s)) ;", "foreach ([k] in @hist_log(s)) ;");
	check_stmt("foreach ([a, b] in s[*, 1] @count+) ;", "foreach ([a, b] in s[*, 1] @count+) ;");
	check_stmt("delete a[*, 1]", "delete a[*, 1];");
	check_stmt("try { error(\"x\") } catch (m) { print(m) }",
		   "try {\nerror(\"x\");\n} catch (m) {\nprint(m);\n}");
	check_stmt("try { } catch { }", "try {\n} catch {\n}");
	check_stmt("%{ /* c */ %}", "%{ /* c */ %};");

	sc = parse_text("probe begin { foreach (v = [a, b-] in arr @sum- limit 3) ; }");
	CU_ASSERT_PTR_NULL(sc); /* two sort orders */
	sc = parse_text("probe begin { foreach (v = [a, b-] in arr limit n + 2) ; }");
	CU_ASSERT_PTR_NOT_NULL_FATAL(sc);
	st = sc->probes.items[0]->body->stmts.items[0];
	CU_ASSERT_EQUAL(st->kind, STMT_FOREACH);
	CU_ASSERT_EQUAL(st->keys.len, 2);
	CU_ASSERT_STRING_EQUAL(st->value->name, "v");
	CU_ASSERT_EQUAL(st->sort_column, 2);
	CU_ASSERT_EQUAL(st->sort_dir, -1);
	CU_ASSERT_EQUAL(st->limit->kind, EXPR_BINARY);
	sc = parse_text("probe begin { foreach (k in arr) ; foreach (k in a @max+) ; }");
	CU_ASSERT_PTR_NOT_NULL_FATAL(sc);
	st = sc->probes.items[0]->body->stmts.items[0];
	CU_ASSERT_EQUAL(st->sort_column, -1);
	CU_ASSERT_EQUAL(st->sort_dir, 0);
	st = sc->probes.items[0]->body->stmts.items[1];
	CU_ASSERT_EQUAL(st->sort_column, 0);
	CU_ASSERT_STRING_EQUAL(st->sort_aggr, "max");
}

static char *script_text(struct script *sc)
{
	struct strbuf sb = STRBUF_INIT;

	if (!sc)
		return xstrdup("<parse failed>");
	unparse_script(&sb, sc);
	return strbuf_detach(&sb);
}

static void test_declarations(void)
{
	struct script *sc = parse_guru(
		"global a, b = -5, c = \"s\" \"t\", d[100], e%[10], f%;\n"
		"private global g\nprivate h\n"
		"function f1(x, y:long):string { return x . y }\n"
		"function f2:long(x:string) : 3 { return 1 }\n"
		"private function f3() %{ /* pure */ /* unprivileged */ STAP_RETURN(1); %}\n"
		"probe p.q = kernel.function(\"x\") { a = 1 }, { a = 2 }\n"
		"probe r += s { }\n"
		"%{ #include <x.h> %}\n");
	char *txt;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sc);
	CU_ASSERT_EQUAL(sc->globals.len, 8);
	CU_ASSERT_EQUAL(sc->globals.items[1]->init->num, -5);
	CU_ASSERT_STRING_EQUAL(sc->globals.items[2]->init->str, "st");
	CU_ASSERT_EQUAL(sc->globals.items[3]->max_entries, 100);
	CU_ASSERT_TRUE(sc->globals.items[3]->is_array);
	CU_ASSERT_TRUE(sc->globals.items[4]->wrap);
	CU_ASSERT_TRUE(sc->globals.items[5]->wrap && sc->globals.items[5]->is_array);
	CU_ASSERT_TRUE(sc->globals.items[6]->is_private && sc->globals.items[7]->is_private);
	CU_ASSERT_EQUAL(sc->funcs.len, 3);
	CU_ASSERT_EQUAL(sc->funcs.items[0]->ret, TYPE_STRING);
	CU_ASSERT_EQUAL(sc->funcs.items[0]->params.items[0]->type, TYPE_UNKNOWN);
	CU_ASSERT_EQUAL(sc->funcs.items[0]->params.items[1]->type, TYPE_LONG);
	CU_ASSERT_EQUAL(sc->funcs.items[1]->ret, TYPE_LONG);
	CU_ASSERT_EQUAL(sc->funcs.items[1]->priority, 3);
	CU_ASSERT_EQUAL(sc->funcs.items[1]->params.items[0]->type, TYPE_STRING);
	CU_ASSERT_PTR_NOT_NULL(sc->funcs.items[2]->embedded);
	CU_ASSERT_TRUE(sc->funcs.items[2]->is_private);
	CU_ASSERT_EQUAL_FATAL(sc->funcs.items[2]->pragmas.len, 2);
	CU_ASSERT_STRING_EQUAL(sc->funcs.items[2]->pragmas.items[0], "pure");
	CU_ASSERT_STRING_EQUAL(sc->funcs.items[2]->pragmas.items[1], "unprivileged");
	CU_ASSERT_EQUAL(sc->probes.len, 2);
	CU_ASSERT_TRUE(sc->probes.items[0]->is_alias);
	CU_ASSERT_FALSE(sc->probes.items[0]->alias_epilogue);
	CU_ASSERT_PTR_NOT_NULL(sc->probes.items[0]->epilogue);
	CU_ASSERT_TRUE(sc->probes.items[1]->alias_epilogue);
	CU_ASSERT_EQUAL(sc->embeds.len, 1);
	txt = script_text(sc);
	CU_ASSERT_PTR_NOT_NULL(strstr(txt, "# file <input>\n%{ #include <x.h> %}\nglobal a\nglobal b = -5\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(txt, "global d[100]\nglobal e%[10]\nglobal f%\nprivate global g\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(txt, "function f1:string (x, y:long)\n{\nreturn (x) . (y);\n}\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(txt, "function f2:long (x:string) : 3\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(txt, "probe p.q = kernel.function(\"x\"){\n(a) = (1);\n},{\n"));
	free(txt);
}

static void test_probe_points(void)
{
	struct script *sc = parse_text(
		"probe begin, end?, kernel.function(\"vfs_*\").return!, timer.ms(-5) if (x > 1),"
		" *abc*, a*b.c*, process(\"/bin/ls\").statement(\"*@main.c:10\") {}\n"
		"probe {a,b}.{c,{d,e}}.f! {}\n");
	struct probe *pr;
	char *txt;

	CU_ASSERT_PTR_NOT_NULL_FATAL(sc);
	pr = sc->probes.items[0];
	CU_ASSERT_EQUAL(pr->points.len, 7);
	CU_ASSERT_TRUE(pr->points.items[1]->optional);
	CU_ASSERT_TRUE(pr->points.items[2]->sufficient);
	CU_ASSERT_STRING_EQUAL(pr->points.items[2]->comps.items[1]->arg->str, "vfs_*");
	CU_ASSERT_EQUAL(pr->points.items[3]->comps.items[1]->arg->num, -5);
	CU_ASSERT_PTR_NOT_NULL(pr->points.items[3]->cond);
	CU_ASSERT_STRING_EQUAL(pr->points.items[4]->comps.items[0]->name, "*abc*");
	CU_ASSERT_STRING_EQUAL(pr->points.items[5]->comps.items[0]->name, "a*b");
	CU_ASSERT_STRING_EQUAL(pr->points.items[5]->comps.items[1]->name, "c*");
	CU_ASSERT_EQUAL(sc->probes.items[1]->points.len, 6);
	txt = script_text(sc);
	CU_ASSERT_PTR_NOT_NULL(strstr(txt, "probe a.c.f!,a.d.f!,a.e.f!,b.c.f!,b.d.f!,b.e.f!{\n}\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(txt, "timer.ms(-5) if ((x) > (1)),*abc*,a*b.c*,"));
	free(txt);
	/* the '*' in an expression is multiplication */
	check_stmt("f(x* x*y *y)", "f((((x) * (x)) * (y)) * (y));");
}

/* Expect parsing to fail with tag at line:col. */
static void check_error(struct script *sc, const char *tag, int line, int col)
{
	char want_tag[64], want_pos[64];

	snprintf(want_tag, sizeof(want_tag), "[%s]", tag);
	snprintf(want_pos, sizeof(want_pos), ":%d:%d\n", line, col);
	CU_ASSERT_PTR_NULL(sc);
	if (!strstr(errbuf, want_tag) || (line && !strstr(errbuf, want_pos)))
		fprintf(stderr, "\n  want %s at %d:%d, got:\n%s", tag, line, col, errbuf);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, want_tag));
	if (line)
		CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, want_pos));
}

static void test_errors(void)
{
	check_error(parse_text("probe begin { printf(\"%d\\n\", 1 ; }"), "P_EXPECT_RPAREN", 1, 32);
	check_error(parse_text("probe foo {\n  a +\n}"), "P_EXPECT_EXPR", 3, 1);
	check_error(parse_text("probe begin {\n x = 1"), "P_EXPECT_RBRACE", 1, 13);
	check_error(parse_text("\"not a probe\""), "P_TOPLEVEL", 1, 1);
	check_error(parse_text("global 123"), "P_EXPECT_IDENT", 1, 8);
	check_error(parse_text("global a\nglobal a"), "P_DUPLICATE", 2, 8);
	check_error(parse_text("function function() {}"), "P_RESERVED", 1, 10);
	check_error(parse_text("function f(x, x) {}"), "P_DUPLICATE", 1, 15);
	check_error(parse_text("function f(a:foo) {}"), "P_EXPECT_TYPE", 1, 14);
	check_error(parse_text("probe begin { return 1 }"), "P_BAD_CONTEXT", 1, 15);
	check_error(parse_text("probe begin { x = 0x }"), "P_BAD_NUMBER", 1, 19);
	check_error(parse_text("probe begin { x = \"abc }"), "P_BAD_STRING", 1, 19);
	check_error(parse_text("%{ int x; %}"), "P_EMBEDDED_NOT_GURU", 1, 1);
	check_error(parse_text("probe begin { foreach (k- in a-) ; }"), "P_BAD_FOREACH", 1, 31);
	check_error(parse_text("probe begin { foreach (k a) ; }"), "P_EXPECT_IN", 1, 26);
	check_error(parse_text("probe foo ? = begin {}"), "P_ALIAS", 1, 7);
	check_error(parse_text("probe a * b {}"), "P_EXPECT_LBRACE", 1, 9);
	check_error(parse_text("probe begin { x = a =~ b }"), "P_EXPECT_LITERAL", 1, 24);
	check_error(parse_text("probe begin { printd(1, 2, 3) }"), "P_PRINT_ARGS", 1, 22);
	/* every delimited form wants a literal delimiter, sprintdln too */
	check_error(parse_text("probe begin { d = \",\"; x = sprintdln(d, 1, 2) }"), "P_PRINT_ARGS", 1, 38);
	check_error(parse_text("probe begin { x = @kregister(0) }"), "P_GURU_ONLY", 1, 19);
	check_error(parse_text("probe begin { x = @nosuch(0) }"), "P_MACRO_UNDEFINED", 1, 19);
	check_error(parse_text("probe begin { $0 }"), "P_BAD_PARAM", 1, 15);
	check_error(parse_text("probe begin { x = $1 }"), "P_PARAM_MISSING", 1, 19);
	check_error(parse_text("# nothing\n"), "P_EMPTY", 0, 0);
	check_error(parse_text("global a[0]"), "P_SYNTAX", 1, 10);
	check_error(parse_text("private probe begin {}"), "P_BAD_PRIVATE", 1, 9);
	check_error(parse_text("probe begin { x = a->->b }"), "P_BAD_TARGET", 1, 22);
}

static void test_preprocessor(void)
{
	check_stmt("%( kernel_v >= \"2.6.32\" && kernel_v < \"6.2\" %? x = 1 %: x = 2 %)", "(x) = (1);");
	check_stmt("%( kernel_vr == \"6.1.0-56-*\" %? x = 1 %: x = 2 %)", "(x) = (1);");
	check_stmt("%( kernel_v == \"6.1.0\" && kernel_vr != \"6.1.0\" %? x = 1 %: x = 2 %)", "(x) = (1);");
	check_stmt("%( arch == \"i386\" || arch == \"x86_64\" %? x = 1 %: x = 2 %)", "(x) = (1);");
	check_stmt("%( runtime != \"kernel\" %? x = 1 %: x = 2 %)", "(x) = (2);");
	check_stmt("%( systemtap_v >= \"4.0\" %? x = 1 %: x = 2 %)", "(x) = (1);");
	check_stmt("%( guru_mode == 1 %? x = 1 %: x = 2 %)", "(x) = (1);");
	/* cstap has no --privilege: scripts are always compiled as stapdev */
	check_stmt("%( systemtap_privilege == \"stapdev\" && systemtap_privilege != \"stapusr\" "
		   "%? x = 1 %: x = 2 %)", "(x) = (1);");
	check_stmt("%( systemtap_privilege == \"stap*\" %? x = 1 %: x = 2 %)", "(x) = (1);");
	check_error(parse_text("%( systemtap_privilege < \"x\" %? probe begin {} %)"), "P_PREPROC_COND", 1, 24);
	check_stmt("%( $# == 0 && @# == \"0\" %? x = 1 %: x = 2 %)", "(x) = (1);");
	check_stmt("%( CONFIG_NOPE == \"\" && CONFIG_NOPE == 0 %? x = 1 %: x = 2 %)", "(x) = (1);");
	check_stmt("%( (1 == 2 || 2 == 2) && \"a\" < \"b\" %? x = 1 %)", "(x) = (1);");
	/* nested, and the untaken branch is never evaluated ($9 is missing) */
	check_stmt("%( 1 == 0 %? x = $9 %: %( 2 == 2 %? x = 3 %: x = $9 %) %)", "(x) = (3);");
	check_error(parse_text("%( arch >= \"x\" %? probe begin {} %)"), "P_PREPROC_COND", 1, 9);
	check_error(parse_text("%( foo == \"x\" %? probe begin {} %)"), "P_PREPROC_COND", 1, 4);
	check_error(parse_text("%( 1 == 1 %? probe begin {}"), "P_PREPROC", 1, 1);
	check_error(parse_text("probe begin { %( 1 == 0 %? a %? b %) }"), "P_PREPROC", 1, 30);
}

/* The configuration text the target kernel's would be (target/kernel.c
 * finds the real one): a longer name sharing a prefix, one inside another
 * line, a string. */
static const char *test_config_text(struct session *s)
{
	(void)s;
	return "# comment\nCONFIG_FOOBAR=n\nCONFIG_FOO=y\nCONFIG_NR=64\nXCONFIG_S=1\nCONFIG_S=\"abc\"\n";
}

static void test_config(void)
{
	new_session()->kernel_config = test_config_text;
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in(
		"probe begin { %( CONFIG_FOO == \"y\" && CONFIG_NR >= 8 && CONFIG_S == \"abc\" "
		"&& CONFIG_NONE == \"\" && CONFIG_FOOBAR == \"n\" %? x = 1 %: x = 2 %) }")), "(x) = (1);");
	new_session();   /* none: every CONFIG_ is "" */
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in(
		"probe begin { %( CONFIG_FOO == \"\" %? x = 1 %: x = 2 %) }")), "(x) = (1);");
}

static void test_macros(void)
{
	char dir[] = "/tmp/cstap-tapset.XXXXXX";
	char *stpm;
	FILE *f;

	check_stmt("@define} x = 1", "<no statement>");
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "[P_MACRO]"));
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_text(
		"@define add(a, b) %( (@a + @b) %)\n@define two %( 2 %)\n"
		"probe begin { x = @add(@two, f(1, 2)) }")), "(x) = ((2) + (f(1, 2)));");
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_text(
		"@define bar(b) %( @b %)\n@define foo(a) %( @bar(@a) %)\nprobe @foo(begin) { y = 1 }")),
		"(y) = (1);");
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_text(
		"@define c %( %( 1 == 1 %? 7 %: 8 %) %)\nprobe begin { x = @c }")), "(x) = (7);");
	check_error(parse_text("@define foo(a) %( @a %)\nprobe begin { x = @foo }"), "P_MACRO_ARGS", 2, 19);
	check_error(parse_text("@define foo(a) %( @a %)\nprobe begin { x = @foo(1, 2) }"),
		    "P_MACRO_ARGS", 2, 25);
	check_error(parse_text("@define r %( @r %)\nprobe begin { x = @r }"), "P_NESTING", 0, 0);
	check_error(parse_text("@define define %( x %)"), "P_MACRO", 1, 9);

	/* library macros from *.stpm files in the tapset directories */
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	stpm = xasprintf("%s/lib.stpm", dir);
	f = fopen(stpm, "w");
	fputs("%( 1 == 1 %? @define libm(x) %( (@x * 2) %) %: @define libn %( 0 %) %)\n"
	      "@define libcond %( arch == \"x86_64\" %)\n", f);
	fclose(f);
	new_session();
	vec_push(&sess->include_dirs, dir);
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in(
		"probe begin { x = @libm(3) %( @libcond %? + 1 %) }")), "(x) = (((3) * (2)) + (1));");
	check_error(parse_in("probe begin { x = @libn }"), "P_MACRO_UNDEFINED", 1, 19);
	unlink(stpm);
	rmdir(dir);
	free(stpm);
}

/* The session of a run with --compatible=version. */
static struct session *compat_session(const char *version)
{
	new_session()->compatible = version;
	sess->guru = true;
	return sess;
}

static int nstmts(struct script *sc)
{
	return sc && sc->probes.len ? sc->probes.items[0]->body->stmts.len : -1;
}

/* --compatible=V: constructs newer than V are refused, version-dependent
 * grammar follows V, and systemtap_v is V. */
static void test_compatible(void)
{
	const char *autocast = "probe begin { x = (a)->b }";

	/* autocast: from 2.6 on; versions compare as numbers ("2.10" > "2.6") */
	compat_session("2.5");
	check_error(parse_in(autocast), "P_COMPAT", 1, 22);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "--compatible=2.5"));
	compat_session("2.5.9");
	check_error(parse_in("probe begin { x = f() $ }"), "P_COMPAT", 1, 23);
	compat_session("1.0");
	check_error(parse_in("probe begin { x = %{ 42 %} $$ }"), "P_COMPAT", 1, 28);
	compat_session("2.5");
	check_error(parse_in("probe begin { x = a[1]->b }"), "P_COMPAT", 1, 23);
	compat_session("2.5");
	check_error(parse_in("probe begin { x = @hist_log(s)[1]->b }"), "P_COMPAT", 1, 34);
	compat_session("2.6");
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in(autocast)), "(x) = ((a)->b);");
	compat_session("2.10");
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in(autocast)), "(x) = ((a)->b);");
	new_session();
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in(autocast)), "(x) = ((a)->b);");

	/* '&' of anything but a target is autocast too */
	compat_session("2.5");
	check_error(parse_in("probe begin { x = &y }"), "P_COMPAT", 1, 19);
	compat_session("2.5");
	check_error(parse_in("probe begin { x = &(p) }"), "P_COMPAT", 1, 19);
	compat_session("2.5");
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in(
		"probe begin { x = &$y->z + &@cast(p, \"t\")->a[1] + @cast(p, \"t\")->b$ + $v$$ }")),
		"(x) = ((((&$y->z) + (&@cast(p, \"t\")->a[1])) + (@cast(p, \"t\")->b$)) + ($v$$));");

	/* before 2.6 an '[' after a value starts the next statement */
	compat_session("2.5");
	CU_ASSERT_EQUAL(nstmts(parse_in("probe begin { x = f() [1] in a }")), 2);
	compat_session("2.6");
	CU_ASSERT_EQUAL(nstmts(parse_in("probe begin { x = f() [1] in a }")), 1);
	compat_session("2.5");
	check_error(parse_in("probe begin { ( (foo)[1] in bar ) }"), "P_EXPECT_RPAREN", 1, 22);
	CU_ASSERT_PTR_NOT_NULL(strstr(errbuf, "autocast"));

	/* systemtap_v in %( %) is the --compatible version */
	compat_session("1.0");
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in(
		"probe begin { %( systemtap_v >= \"1.2\" %? x = 1 %: x = 2 %) }")), "(x) = (2);");
	compat_session("2.10");
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in(
		"probe begin { %( systemtap_v > \"2.9\" && systemtap_v < \"3.0\" %? x = 1 %: x = 2 %) }")),
		"(x) = (1);");
	compat_session("1.0");
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in(
		"probe begin { %( systemtap_v == \"1.*\" %? x = 1 %: x = 2 %) }")), "(x) = (1);");

	/* before 4.0 the third operand of ?: took in an assignment */
	compat_session("3.4");
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in("probe begin { x = a ? b : c = d }")),
			       "(x) = ((a)?(b):((c) = (d)));");
	compat_session("3.3");
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in("probe begin { x = a ? b : c ? d : e += 1 }")),
			       "(x) = ((a)?(b):((c)?(d):((e) += (1))));");
	compat_session("4.0");
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in("probe begin { x = a ? b : c = d }")),
			       "(x) = (((a)?(b):(c)) = (d));");

	/* before 3.0 'private' is an ordinary name */
	compat_session("2.9");
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in(
		"global private\nfunction private(x) { return x }\nprobe begin { private = private(1) }")),
		"(private) = (private(1));");
	compat_session("2.9");
	check_error(parse_in("private global x"), "P_TOPLEVEL", 1, 1);
	compat_session("3.0");
	check_error(parse_in("global private"), "P_RESERVED", 1, 8);

	/* before 2.6 '&' takes no parenthesized operand */
	compat_session("2.5");
	check_error(parse_in("probe begin { x = &($y->z) }"), "P_COMPAT", 1, 19);
	compat_session("2.6");
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in("probe begin { x = &($y->z) }")), "(x) = (&$y->z);");

	/* tapsets always get today's language, whatever --compatible says */
	{
		const char *text = "private global pg\nprobe begin { x = (a)->b ? 1 : y = 2 }";
		struct srcfile *f = srcfile_new("lib.stp", xstrdup(text), strlen(text));

		compat_session("1.0");
		f->is_tapset = true;
		CU_ASSERT_STRING_EQUAL(first_stmt(parse_script(sess, f)), "(x) = ((((a)->b)?(1):(y)) = (2));");
	}

	/* before 2.0, adjacent strings are glued only across blanks */
	compat_session("1.8");
	check_error(parse_in("probe kernel.function(\"sys_\" /* c */ \"open\") {}"),
		    "P_EXPECT_RPAREN", 1, 38);
	compat_session("1.8");
	CU_ASSERT_EQUAL(nstmts(parse_in("probe begin { x = \"a\" # c\n \"b\" }")), 2);
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in("probe begin { x = \"a\" // c\n \"b\" }")),
			       "(x) = (\"a\");");
	compat_session("1.8");
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in("probe begin { x = \"a\" \"b\"\n\t\"c\" }")),
			       "(x) = (\"abc\");");
	compat_session("1.8");
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in(
		"@define s %( \"b\" %)\nprobe begin { x = \"a\" @s }")), "(x) = (\"a\");");
	compat_session("2.0");
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in("probe begin { x = \"a\" /* c */ \"b\" }")),
			       "(x) = (\"ab\");");
}

/* tapsets/task.stpm: @task(p) is p cast to the kernel's task_struct. */
static void test_task_macro(void)
{
	const char *srcdir = getenv("srcdir");
	char *dir = xasprintf("%s/tapsets", srcdir ? srcdir : ".");

	new_session();
	vec_push(&sess->include_dirs, dir);
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in("probe begin { x = @task(task_current())->mm }")),
			       "(x) = (@cast(task_current(), \"task_struct\", \"kernel\")->mm);");
	if (errbuf[0])
		fprintf(stderr, "%s", errbuf);
	/* the macro exists only through the tapset directory */
	new_session();
	check_error(parse_in("probe begin { x = @task(0) }"), "P_MACRO_UNDEFINED", 1, 19);
	free(dir);
}

static void test_arguments(void)
{
	new_session();
	vec_push(&sess->args, "probe begin");
	vec_push(&sess->args, "a\"b");
	vec_push(&sess->args, "42");
	CU_ASSERT_STRING_EQUAL(first_stmt(parse_in("$1 { x = @2 . @# ; y = $3 + $# }")),
			       "(x) = ((\"a\\\"b\") . (\"3\"));");
	check_error(parse_in("$1 { x = $4 }"), "P_PARAM_MISSING", 1, 10);
	new_session();
	vec_push(&sess->args, "x $1");
	check_error(parse_in("probe begin { $1 }"), "P_PARAM_RECURSIVE", 0, 0);
	new_session();
	vec_push(&sess->args, "abc");
	check_error(parse_in("%( $1 == 1 %? probe begin {} %)"), "P_PARAM_NOT_NUMBER", 1, 4);
}

/* Deep input: a diagnostic, not a stack overflow. */
static void test_nesting(void)
{
	const int n = 100000;
	struct strbuf sb = STRBUF_INIT;
	const char *shapes[][3] = {
		{ "probe begin { x = ", "(", "1" },
		{ "probe begin { x = ", "- ", "1" },
		{ "probe begin { x = ", "!", "1" },
		{ "probe begin ", "{", "" },
		{ "probe begin { ", "if (1) ", "x = 1" },
		{ "probe begin { x = 1", " + 1", "" },
		{ "probe begin { x = ", "a ? b : ", "c" },
		{ "probe begin { x = ", "y = ", "c" },
		{ "probe begin { x = ", "f(", "" },
		{ "probe ", "{", "" },
	};

	for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
		strbuf_reset(&sb);
		strbuf_addstr(&sb, shapes[s][0]);
		for (int i = 0; i < n; i++)
			strbuf_addstr(&sb, shapes[s][1]);
		strbuf_addstr(&sb, shapes[s][2]);
		check_error(parse_text(sb.buf), "P_NESTING", 0, 0);
	}
	/* moderate nesting is fine */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "probe begin { x = ");
	for (int i = 0; i < 100; i++)
		strbuf_addch(&sb, '(');
	strbuf_addch(&sb, '1');
	for (int i = 0; i < 100; i++)
		strbuf_addch(&sb, ')');
	strbuf_addstr(&sb, " }");
	CU_ASSERT_PTR_NOT_NULL(parse_text(sb.buf));
	strbuf_release(&sb);
}

/* ---- round trip: parse, print, parse again, compare the trees ---------- */

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static bool same_expr(const struct expr *a, const struct expr *b);

static bool same_exprs(struct expr *const *a, int na, struct expr *const *b, int nb)
{
	if (na != nb)
		return false;
	for (int i = 0; i < na; i++)
		if (!same_expr(a[i], b[i]))
			return false;
	return true;
}

static bool same_expr(const struct expr *a, const struct expr *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind || a->op != b->op || !same_str(a->name, b->name) ||
	    a->num != b->num || a->str_len != b->str_len || !same_str(a->suffix, b->suffix) ||
	    !same_str(a->module, b->module) || !same_expr(a->lhs, b->lhs) ||
	    !same_expr(a->rhs, b->rhs) || !same_exprs(a->args.items, a->args.len, b->args.items, b->args.len) ||
	    a->chain.len != b->chain.len)
		return false;
	if (a->str_len && memcmp(a->str, b->str, a->str_len))
		return false;
	if (a->kind == EXPR_CAST && !same_str(a->str, b->str))
		return false;
	for (int i = 0; i < a->chain.len; i++) {
		const struct target_step *x = a->chain.items[i], *y = b->chain.items[i];

		if (x->kind != y->kind || !same_str(x->field, y->field) || !same_expr(x->index, y->index))
			return false;
	}
	return true;
}

static bool same_stmt(const struct stmt *a, const struct stmt *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind || a->stmts.len != b->stmts.len || !same_expr(a->expr, b->expr) ||
	    !same_stmt(a->body, b->body) || !same_stmt(a->els, b->els) ||
	    !same_expr(a->init, b->init) || !same_expr(a->step, b->step) ||
	    !same_str(a->code, b->code) ||
	    !same_exprs(a->keys.items, a->keys.len, b->keys.items, b->keys.len) ||
	    !same_expr(a->value, b->value) || !same_expr(a->array, b->array) ||
	    a->sort_column != b->sort_column || a->sort_dir != b->sort_dir ||
	    !same_expr(a->limit, b->limit) || !same_expr(a->catch_var, b->catch_var) ||
	    !same_str(a->sort_aggr, b->sort_aggr))
		return false;
	for (int i = 0; i < a->stmts.len; i++)
		if (!same_stmt(a->stmts.items[i], b->stmts.items[i]))
			return false;
	return true;
}

static bool same_points(struct probe_point *const *a, int na, struct probe_point *const *b, int nb)
{
	if (na != nb)
		return false;
	for (int i = 0; i < na; i++) {
		if (a[i]->optional != b[i]->optional || a[i]->sufficient != b[i]->sufficient ||
		    !same_expr(a[i]->cond, b[i]->cond) || a[i]->comps.len != b[i]->comps.len)
			return false;
		for (int j = 0; j < a[i]->comps.len; j++)
			if (!same_str(a[i]->comps.items[j]->name, b[i]->comps.items[j]->name) ||
			    !same_expr(a[i]->comps.items[j]->arg, b[i]->comps.items[j]->arg))
				return false;
	}
	return true;
}

/* Probes are compared in printing order: aliases first, then probes. */
static const struct probe *nth_probe(const struct script *sc, int n)
{
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < sc->probes.len; i++)
			if (sc->probes.items[i]->is_alias == !pass && n-- == 0)
				return sc->probes.items[i];
	return NULL;
}

static bool same_script(const struct script *a, const struct script *b)
{
	if (a->globals.len != b->globals.len || a->funcs.len != b->funcs.len ||
	    a->probes.len != b->probes.len || a->embeds.len != b->embeds.len)
		return false;
	for (int i = 0; i < a->embeds.len; i++)
		if (!same_str(a->embeds.items[i]->code, b->embeds.items[i]->code))
			return false;
	for (int i = 0; i < a->globals.len; i++) {
		const struct sym *x = a->globals.items[i], *y = b->globals.items[i];

		if (!same_str(x->name, y->name) || x->is_array != y->is_array || x->wrap != y->wrap ||
		    x->max_entries != y->max_entries || x->is_private != y->is_private ||
		    !same_expr(x->init, y->init))
			return false;
	}
	for (int i = 0; i < a->funcs.len; i++) {
		const struct func *x = a->funcs.items[i], *y = b->funcs.items[i];

		if (!same_str(x->name, y->name) || x->ret != y->ret || x->ret_declared != y->ret_declared ||
		    x->is_private != y->is_private || x->priority != y->priority ||
		    !same_str(x->embedded, y->embedded) || !same_stmt(x->body, y->body) ||
		    x->params.len != y->params.len)
			return false;
		for (int j = 0; j < x->params.len; j++)
			if (!same_str(x->params.items[j]->name, y->params.items[j]->name) ||
			    x->params.items[j]->type != y->params.items[j]->type)
				return false;
	}
	for (int i = 0; i < a->probes.len; i++) {
		const struct probe *x = nth_probe(a, i), *y = nth_probe(b, i);

		if (x->is_alias != y->is_alias || x->alias_epilogue != y->alias_epilogue ||
		    !same_points(x->points.items, x->points.len, y->points.items, y->points.len) ||
		    !same_points(x->alias_names.items, x->alias_names.len, y->alias_names.items,
				 y->alias_names.len) ||
		    !same_stmt(x->body, y->body) || !same_stmt(x->epilogue, y->epilogue))
			return false;
	}
	return true;
}

static const char *const round_trip_scripts[] = {
	"global a = 1, b = \"x\\ty\\001\", c[10], d%[5], e%\nprivate global f = -3\n"
	"probe begin, end?, kernel.function(\"x*\").return!, timer.ms(100) if (a > 1) {\n"
	"  x = 1 + 2 * (3 - 4) - -5; y = \"a\" . \"b\" \"c\"; z = -(5); w = - x\n"
	"  if (x) if (y) z++ else --z\n  if (x) { } else if (y) ; else return_value = 1\n"
	"  while (x < 10) x++\n  for (;;) break\n  for (i = 0; i < 3; ) continue\n"
	"  foreach ([k1+, k2] in c limit 5) println(k1)\n  foreach (v = [k] in c-) next\n"
	"  foreach (k in @hist_log(s)) ;\n  foreach ([a, b] in c[*, 1] @count+ limit x + 1) { }\n"
	"  delete c[1]; delete c; delete c[*, 2]\n  c[1, \"x\"] = 3; s <<< 4\n"
	"  if ([1, *] in c && 2 in c) { print(@count(s), @sum(s)); print(@hist_linear(s, 0, 100, 10)) }\n"
	"  z = $var->field[3]->x$; z = $$vars$$; z = &$x->f; z = @cast(p, \"t\", \"m\")->a[2]$$\n"
	"  z = @defined($a) ? @choose_defined($a, 1) : @entry($b->c)\n"
	"  z = @var(\"foo@bar.c\", \"mod\")->x; z = @perf(\"cycles\"); z = @hist_log(s)[2]\n"
	"  z = (p)->foo->bar[1]$; z = &(q)[3]; z = f()$$; z = a[1][2]; z = ([1] in c)$\n"
	"  z = a ? b : c ? d : e; z = (a ? b : c) ? d : e; z = !a && ~b || -c\n"
	"  z = a =~ \"x.*\"; z .= \"x\"; z = a >>> 2; z <<= 1; z %= 3; z = 9223372036854775807\n"
	"  z = -9223372036854775808; z = 18446744073709551615; z = @variance(s, 2)\n"
	"  try { error(\"x\") } catch (msg) { print(msg) }\n  try { } catch { }\n"
	"  printf(\"%d\\n\", 1); printd(\",\", 1, 2); println()\n"
	"}\n"
	"function f(a, b:long):string { return a . b }\nfunction g:long(a:long, b:string) : 2 { return }\n"
	"private function h() %{ /* pure */ STAP_RETVALUE = 1; %}\n"
	"probe a.b = x.y { p = 1 }, { p = 2 }\nprobe a.c += x.z { %{ /* stmt */ %} }\n"
	"%{ #include <linux/sched.h> %}\n",
	"probe {a,b}.{c,{d,e}}.f!, *x*, a*b.c* {}\n",
	"probe begin { x = @kregister(1) + @kderef(4, p) + %{ 42 %}; ; ; {} {;} }\n",
};

static void test_round_trip(void)
{
	for (size_t i = 0; i < sizeof(round_trip_scripts) / sizeof(round_trip_scripts[0]); i++) {
		struct script *a = parse_guru(round_trip_scripts[i]), *b;
		char *t1, *t2;

		if (!a)
			fprintf(stderr, "%s", errbuf);
		CU_ASSERT_PTR_NOT_NULL_FATAL(a);
		t1 = script_text(a);
		b = parse_guru(t1);
		if (!b)
			fprintf(stderr, "\nreparse of:\n%s\nfailed:\n%s", t1, errbuf);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		CU_ASSERT_TRUE(same_script(a, b));
		t2 = script_text(b);
		CU_ASSERT_STRING_EQUAL(t1, t2);
		free(t1);
		free(t2);
	}
}

int main(void)
{
	CU_pSuite s;
	unsigned failures;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("parser", NULL, NULL);
	CU_add_test(s, "precedence", test_precedence);
	CU_add_test(s, "primary expressions", test_primaries);
	CU_add_test(s, "statements", test_statements);
	CU_add_test(s, "declarations", test_declarations);
	CU_add_test(s, "probe points", test_probe_points);
	CU_add_test(s, "errors: tags and positions", test_errors);
	CU_add_test(s, "preprocessor conditionals", test_preprocessor);
	CU_add_test(s, "CONFIG_ conditions", test_config);
	CU_add_test(s, "macros", test_macros);
	CU_add_test(s, "script arguments", test_arguments);
	CU_add_test(s, "--compatible versions", test_compatible);
	CU_add_test(s, "tapsets/task.stpm @task", test_task_macro);
	CU_add_test(s, "nesting bound", test_nesting);
	CU_add_test(s, "round trip", test_round_trip);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failures ? 1 : 0;
}
