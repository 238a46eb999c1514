/* elaborate_test.c - pass 2: name resolution and type inference, and the
 * tags of its errors. Each test parses a script and runs pass2_elaborate. */
#include <CUnit/Basic.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "lowered.h"
#include "elaborate/tvars.h"
#include "passes.h"
#include "probes/provider.h"
#include "session.h"
#include "target/btf.h"
#include "target/debuginfo.h"
#include "target/dwarf_types.h"
#include "target/kernel.h"
#include "parse/tapset_index.h"
#include "target/releases.h"
#include "target/sdt.h"
#include "translate/module/lowered_c.h"
#include "translate/module/module.h"
#include "translate/bpf/bpf.h"
#include "translate/bpf/unit.h"
#include "translate/translate.h"
#include "walk.h"

static struct session S;

/* A fresh session S for text as the user's script, up to pass 2, for a
 * kernel that is not there (the tests need no debuginfo). */
static void session_for(const char *text)
{
	memset(&S, 0, sizeof(S));
	S.last_pass = 2;
	S.arch = "x86_64";
	S.kernel_release = "6.1.0-1-amd64";
	S.kernel_build = "/nonexistent";
	S.script_text = text;
}

/* Passes 1 and 2 of S with stderr kept quiet; pass 2's status. */
static int quiet_passes(void)
{
	fflush(stderr);
	FILE *saved = stderr;
	stderr = fopen("/dev/null", "w");
	int rc = pass1_parse(&S);
	if (rc == 0)
		rc = pass2_elaborate(&S);
	fclose(stderr);
	stderr = saved;
	return rc;
}

/* Parse text as the user's script, with the source tree's tapsets, and
 * elaborate it (with -u if keep_unused); returns pass 2's status. stderr
 * is kept quiet. */
static int elaborate_opts(const char *text, bool keep_unused)
{
	session_for(text);
	S.keep_unused = keep_unused;
	vec_push(&S.include_dirs, TAPSET_DIR);
	return quiet_passes();
}

/* With -u: the tests' scripts store into locals to see their types. */
static int elaborate(const char *text)
{
	return elaborate_opts(text, true);
}

static struct sym *global(const char *name)
{
	for (int i = 0; i < S.globals.len; i++)
		if (!strcmp(S.globals.items[i]->name, name))
			return S.globals.items[i];
	return NULL;
}

static struct func *function(const char *name)
{
	for (int i = 0; i < S.funcs.len; i++)
		if (!strcmp(S.funcs.items[i]->name, name))
			return S.funcs.items[i];
	return NULL;
}

static struct sym *probe_local(int probe, const char *name)
{
	struct probe *p = S.probes.items[probe]->probe;

	for (int i = 0; i < p->locals.len; i++)
		if (!strcmp(p->locals.items[i]->name, name))
			return p->locals.items[i];
	return NULL;
}

static void test_literals_and_operators(void)
{
	CU_ASSERT_EQUAL_FATAL(elaborate("global n, s\nprobe begin { n = 1 + 2; s = \"a\" . \"b\" }"), 0);
	CU_ASSERT_EQUAL(global("n")->type, TYPE_LONG);
	CU_ASSERT_EQUAL(global("s")->type, TYPE_STRING);
}

/* types flow through assignments in either order, across probes */
static void test_inference_across_uses(void)
{
	CU_ASSERT_EQUAL_FATAL(elaborate("global a, b\nprobe timer.s(1) { a = b }\n"
					"probe begin { b = \"x\" . b }"), 0);
	CU_ASSERT_EQUAL(global("a")->type, TYPE_STRING);
	CU_ASSERT_EQUAL(global("b")->type, TYPE_STRING);
}

static void test_function_signatures(void)
{
	CU_ASSERT_EQUAL_FATAL(elaborate("function f(x, y) { return x . sprint(y + 1) }\n"
					"function g:long(s:string) { return strlen_(s) }\n"
					"function strlen_(s) { return 3 }\n"
					"probe begin { println(f(\"a\", 2), g(\"q\")) }"), 0);
	struct func *f = function("f");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(f->ret, TYPE_STRING);
	CU_ASSERT_EQUAL(f->params.items[0]->type, TYPE_STRING);
	CU_ASSERT_EQUAL(f->params.items[1]->type, TYPE_LONG);
	CU_ASSERT_EQUAL(function("strlen_")->params.items[0]->type, TYPE_STRING);
	CU_ASSERT_EQUAL(function("strlen_")->ret, TYPE_LONG);
}

static void test_recursion(void)
{
	CU_ASSERT_EQUAL_FATAL(elaborate("function fib(n) { return n < 2 ? n : fib(n-1) + fib(n-2) }\n"
					"probe begin { x = fib(10) }"), 0);
	CU_ASSERT_EQUAL(function("fib")->ret, TYPE_LONG);
	CU_ASSERT_EQUAL(probe_local(0, "x")->type, TYPE_LONG);
}

static void test_arrays_keys_and_foreach(void)
{
	CU_ASSERT_EQUAL_FATAL(elaborate("global a\nprobe begin { a[\"k\", 1] = \"v\" }\n"
					"probe end { foreach ([x, y] in a-) v = a[x, y] }"), 0);
	struct sym *a = global("a");
	CU_ASSERT(a->is_array);
	CU_ASSERT_EQUAL(a->nkeys, 2);
	CU_ASSERT_EQUAL(a->key_types[0], TYPE_STRING);
	CU_ASSERT_EQUAL(a->key_types[1], TYPE_LONG);
	CU_ASSERT_EQUAL(a->type, TYPE_STRING);
	CU_ASSERT_EQUAL(probe_local(1, "x")->type, TYPE_STRING);
	CU_ASSERT_EQUAL(probe_local(1, "y")->type, TYPE_LONG);
	CU_ASSERT_EQUAL(probe_local(1, "v")->type, TYPE_STRING);
}

/* printf arguments take their types from the format */
static void test_format_types(void)
{
	CU_ASSERT_EQUAL_FATAL(elaborate("probe begin { printf(\"%s %d %*s\\n\", a, b, c, d) }"), 0);
	CU_ASSERT_EQUAL(probe_local(0, "a")->type, TYPE_STRING);
	CU_ASSERT_EQUAL(probe_local(0, "b")->type, TYPE_LONG);
	CU_ASSERT_EQUAL(probe_local(0, "c")->type, TYPE_LONG);
	CU_ASSERT_EQUAL(probe_local(0, "d")->type, TYPE_STRING);
}

static void test_unused_global_elided(void)
{
	CU_ASSERT_EQUAL_FATAL(elaborate_opts("global used, unused\nprobe begin { used = 1 }", false), 0);
	CU_ASSERT_PTR_NOT_NULL(global("used"));
	CU_ASSERT_PTR_NULL(global("unused"));
}

static void test_tapset_function_pulled_in(void)
{
	CU_ASSERT_EQUAL_FATAL(elaborate("probe begin { exit() }"), 0);
	CU_ASSERT_PTR_NOT_NULL(function("exit"));
	CU_ASSERT_PTR_NULL(function("warn"));   /* only what is used */
	CU_ASSERT(S.library_files >= 1);
}

/* Pass 1 indexes the library without parsing it (parse/tapset_index.c):
 * every function, global and alias each file defines, parsed, is found
 * in the index for that file; and a script parses only what it needs. */
static void test_tapset_index(void)
{
	CU_ASSERT_EQUAL_FATAL(elaborate("probe begin { exit() }"), 0);
	CU_ASSERT(S.library.len >= 1 && S.library.len < S.library_files / 4);
	library_need_all(&S);
	CU_ASSERT_EQUAL(S.library.len, S.library_files);
	struct tapset_index *ix = library_index(&S);
	int missing = 0, names = 0;
	for (int k = 0; k < S.library.len; k++) {
		const struct script *sc = S.library.items[k];
		CU_ASSERT_EQUAL(sc->library_file, k);   /* in library order */
		for (int kind = TN_FUNC; kind <= TN_ALIAS; kind++) {
			strvec defined = { 0 };
			if (kind == TN_FUNC)
				for (int i = 0; i < sc->funcs.len; i++)
					vec_push(&defined, sc->funcs.items[i]->name);
			else if (kind == TN_GLOBAL)
				for (int i = 0; i < sc->globals.len; i++)
					vec_push(&defined, sc->globals.items[i]->name);
			else
				for (int i = 0; i < sc->probes.len; i++)
					for (int j = 0; sc->probes.items[i]->is_alias && j < sc->probes.items[i]->alias_names.len; j++)
						vec_push(&defined, sc->probes.items[i]->alias_names.items[j]->comps.items[0]->name);
			for (int i = 0; i < defined.len; i++) {
				intvec files = { 0 };
				bool found = false;
				tapset_index_files(ix, kind, defined.items[i], &files);
				for (int f = 0; f < files.len; f++)
					found |= files.items[f] == sc->library_file;
				if (!found && missing++ < 5)
					fprintf(stderr, "not indexed: %s in %s\n", defined.items[i], sc->file->name);
				names++;
				free(files.items);
			}
			free(defined.items);
		}
	}
	CU_ASSERT_EQUAL(missing, 0);
	CU_ASSERT(names > 1000);
}

static void test_probe_points(void)
{
	CU_ASSERT_EQUAL_FATAL(elaborate("probe begin(5), end, timer.ms(10).randomize(2), timer.jiffies(3), never { }"), 0);
	CU_ASSERT_EQUAL_FATAL(S.probes.len, 5);
	CU_ASSERT_EQUAL(S.probes.items[0]->kind, STP_PK_BEGIN);
	CU_ASSERT_EQUAL(S.probes.items[1]->kind, STP_PK_END);
	CU_ASSERT_STRING_EQUAL(S.probes.items[2]->pp, "timer.ms(10).randomize(2)");
	CU_ASSERT_EQUAL(S.probes.items[4]->kind, STP_PK_NEVER);
	/* what the families made of the points reaches the module: periods
	 * in ns (jiffies converted in C), begin(N) ordering the calls */
	struct strbuf c = STRBUF_INIT;
	CU_ASSERT_EQUAL_FATAL(translate_module(&S, &c), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(c.buf, "stp_timers[0].period_ns = 10000000ULL;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.buf, "stp_timers[0].rand_ns = 2000000ULL;"));
	CU_ASSERT_PTR_NOT_NULL(strstr(c.buf, "stp_timers[1].period_ns = (u64)jiffies_to_nsecs(3ULL);"));
	strbuf_release(&c);
	CU_ASSERT_EQUAL_FATAL(elaborate("probe begin(5) { } probe begin(-1) { } probe begin { }"), 0);
	CU_ASSERT_EQUAL_FATAL(translate_module(&S, &c), 0);
	const char *start = strstr(c.buf, "stp_script_start(void)");
	CU_ASSERT_PTR_NOT_NULL_FATAL(start);
	const char *b1 = strstr(start, "dp_1();"), *b2 = strstr(start, "dp_2();"), *b0 = strstr(start, "dp_0();");
	CU_ASSERT_FATAL(b0 && b1 && b2);
	CU_ASSERT(b1 < b2 && b2 < b0);   /* begin(-1), begin (0), begin(5) */
	strbuf_release(&c);
}

/* without -u, stores nobody reads and statements with no effect go, with
 * what only they named (as SystemTap's pass 2): a $var there is never
 * resolved, a local there gets no type */
static void test_elision(void)
{
	const char *text = "global g, h\nprobe begin { a = g + 2; $no_such_var; b = 1; println(b); "
			   "if (a) {} h = 1 }";

	CU_ASSERT_EQUAL_FATAL(elaborate_opts(text, false), 0);
	CU_ASSERT_PTR_NULL(probe_local(0, "a"));        /* its store and its if: gone */
	CU_ASSERT_PTR_NOT_NULL(probe_local(0, "b"));    /* read by println */
	CU_ASSERT_PTR_NULL(global("g"));                /* only the elided store named it */
	CU_ASSERT_PTR_NOT_NULL(global("h"));
	CU_ASSERT_NOT_EQUAL(elaborate(text), 0);        /* -u: $no_such_var is resolved, and fails */
}

/* errors: the run fails and exactly these counts are seen */
static void test_errors(void)
{
	static const char *const bad[] = {
		"probe begin { x = 1; x = \"s\" }",                 /* mismatch */
		"probe begin { foo() }",                            /* unresolved function */
		"probe begin { a[1] = 1 }",                         /* local array */
		"global a\nprobe begin { a[1] = 1; a[1,2] = 1 }",   /* key count */
		"probe begin { x = y }",                            /* unresolved type */
		"function f(a) {}\nprobe begin { f(1, 2) }",        /* argument count */
		"probe begin { printf(\"%d\", \"s\") }",            /* format type */
		"probe nosuch { }",                                 /* probe point */
		"probe timer.ms(-1) { }",                           /* bad parameter */
		NULL,
	};
	for (int i = 0; bad[i]; i++) {
		CU_ASSERT_NOT_EQUAL(elaborate(bad[i]), 0);
		CU_ASSERT(S.errors > 0);
	}
}

/* A tapset from a -I directory is the user's code: with --privilege its
 * embedded C is refused though marked unprivileged (options.c refuses -I
 * with --privilege too; pass 2 does not rely on it), while the library's
 * marked functions stay allowed. Without --privilege it is a tapset. */
static void test_privilege_include_dir(void)
{
	char dir[] = "/tmp/cstap-elab-XXXXXX";
	CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
	char *file = xasprintf("%s/mylib.stp", dir);
	FILE *f = fopen(file, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs("function mylib:long() %{ /* unprivileged */ STAP_RETVALUE = 1; %}\n", f);
	fclose(f);
	const char *script = "probe begin { println(mylib(), pid()) }";
	for (int priv = 0; priv < 2; priv++) {
		struct strbuf out = STRBUF_INIT;
		session_for(script);
		S.privilege = priv ? PRIV_STAPUSR : PRIV_STAPDEV;
		vec_push(&S.include_dirs, dir);
		vec_push(&S.include_dirs, TAPSET_DIR);
		diag_capture(&out);
		int rc = quiet_passes();
		diag_capture(NULL);
		if (priv) {
			CU_ASSERT_NOT_EQUAL(rc, 0);
			CU_ASSERT(out.buf && strstr(out.buf, "[E_PRIVILEGE]: function 'mylib'"));
			CU_ASSERT(out.buf && !strstr(out.buf, "'pid'"));
		} else {
			CU_ASSERT_EQUAL(rc, 0);
		}
		strbuf_release(&out);
	}
	unlink(file);
	rmdir(dir);
	free(file);
}

/* ---- the lowered form (lowered.h) ---------------------------------------- */

/* x as lx_dump writes it (a static buffer: one at a time) */
static const char *dumped(const struct lx *x)
{
	static struct strbuf sb = STRBUF_INIT;

	strbuf_reset(&sb);
	if (x)
		lx_dump(&sb, x);
	return x ? sb.buf : "(null)";
}

/* An SDT marker's operands (gas syntax, as the note stores them) lowered:
 * registers cut to their size, memory as user reads, the sign from the
 * size prefix. */
static void test_lowered_sdt(void)
{
	char *why = NULL;

	/* %edi: rdi (DWARF 5) cut to 32 bits, signed */
	CU_ASSERT_STRING_EQUAL(dumped(sdt_arg_lx("/nonexistent", "-4@%edi", 1, &why)),
			       "(sext 32 (& (>> (reg 5) 0) 0xffffffff))");
	/* %ah: bits 8-15 of rax, unsigned */
	CU_ASSERT_STRING_EQUAL(dumped(sdt_arg_lx("/nonexistent", "1@%ah", 1, &why)),
			       "(& (& (>> (reg 0) 8) 0xff) 0xff)");
	/* -16(%rbp,%rax,8): a user read at rbp (6) - 16 + rax * 8 */
	CU_ASSERT_STRING_EQUAL(dumped(sdt_arg_lx("/nonexistent", "8@%rsi 8@-16(%rbp,%rax,8)", 2, &why)),
			       "(load 8 u (+ (+ -16 (reg 6)) (* (reg 0) 8)))");
	/* a constant, a second argument of three, unsigned 2 bytes */
	CU_ASSERT_STRING_EQUAL(dumped(sdt_arg_lx("/nonexistent", "8@%rdi 2@$70000 4@%eax", 2, &why)),
			       "(& 70000 0xffff)");
	CU_ASSERT_PTR_NULL(sdt_arg_lx("/nonexistent", "8@%rdi", 2, &why));   /* no second argument */
	CU_ASSERT_PTR_NOT_NULL(why);
	free(why);
	why = NULL;
	CU_ASSERT_PTR_NULL(sdt_arg_lx("/nonexistent", "8@sym(%rip)", 1, &why));   /* no such file */
	free(why);
}

/* The module backend's C of a few trees: operands pasted, constants
 * typed, shifts of the right kind, counts taken modulo 64. */
static void test_lowered_c(void)
{
	const struct lx *idx = lx_bin(LX_ADD, lx_leaf(LX_PTR, 0), lx_bin(LX_MUL, lx_leaf(LX_INDEX, 0), lx_const(16)));
	char *ops[] = { "l_i" };
	char *c = lx_to_c(lx_load(idx, 4, false), "l_p", ops, 1);

	CU_ASSERT_STRING_EQUAL(c, "((int64_t)stp_kread(c, (((int64_t)(l_p)) + (((int64_t)(l_i)) * 16LL)), 4))");
	free(c);
	c = lx_to_c(lx_leaf(LX_INDEX, 3), NULL, ops, 1);   /* an operand it does not have */
	CU_ASSERT_STRING_EQUAL(c, "((int64_t)(0))");
	free(c);
	c = lx_to_c(lx_bin(LX_SHR, lx_leaf(LX_REG, 1), lx_leaf(LX_REG, 2)), NULL, NULL, 0);
	CU_ASSERT_STRING_EQUAL(c, "((int64_t)((u64)((int64_t)stp_dwarf_reg(c, 1)) >> (((int64_t)stp_dwarf_reg(c, 2)) & 63)))");
	free(c);
	c = lx_to_c(lx_sext(lx_bin(LX_SAR, lx_load(lx_hex(0xffffffff81000000ULL), 8, true), lx_const(3)), 5), NULL, NULL, 0);
	CU_ASSERT_STRING_EQUAL(c, "stp_sext(((int64_t)((int64_t)stp_uread(c, 0xffffffff81000000ULL, 8)) >> 3), 5)");
	free(c);
	CU_ASSERT(lx_has(idx, LX_INDEX) && !lx_has(idx, LX_UBIAS));
}

/* A kernel function's parameter and a member through it, lowered from the
 * default target kernel's DWARF: at vfs_read's entry $file is rdi, and
 * ->f_flags a 4-byte kernel read at the member's offset. Needs that
 * kernel's debuginfo (setup.sh installs it). */
static void test_lowered_dwarf(void)
{
	const char *rel = releases_default();
	const char *why = NULL;

	session_for("probe kernel.function(\"vfs_read\") { a = $file; b = $file->f_flags; c = &$file->f_pos; d = $file$ }");
	S.kernel_release = rel;
	S.kernel_build = NULL;
	S.keep_unused = true;
	vec_push(&S.include_dirs, TAPSET_DIR);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rel);
	S.kernel_build = target_kernel(&S)->build;
	struct dw_image *img = dw_kernel(&S, &why);
	CU_ASSERT_PTR_NOT_NULL_FATAL(img);   /* the default kernel's -dbg is installed */
	long off = dw_member_offset(img, "struct file", "f_flags");
	long pos = dw_member_offset(img, "struct file", "f_pos");
	CU_ASSERT_FATAL(off > 0 && pos > 0);
	CU_ASSERT_EQUAL_FATAL(quiet_passes(), 0);
	CU_ASSERT_EQUAL_FATAL(S.probes.len, 1);
	const struct derived_probe *dp = S.probes.items[0];
	const struct stmt *body = dp->probe->body;
	CU_ASSERT_PTR_NOT_NULL_FATAL(body);
	char want[96];
	int seen = 0;
	for (int i = 0; i < body->stmts.len; i++) {
		const struct expr *e = body->stmts.items[i]->expr;
		if (!e || e->kind != EXPR_ASSIGN)
			continue;
		const struct tvar *tv = tvar_find(&S, dp, e->rhs);
		CU_ASSERT_PTR_NOT_NULL_FATAL(tv);
		if (!strcmp(e->lhs->name, "d")) {
			/* the pointer read once, the struct's members printed
			 * over it: f_flags at its offset, unsigned */
			struct strbuf sb = STRBUF_INIT;
			CU_ASSERT_EQUAL_FATAL(tv->kind, TV_PRETTY);
			lp_dump(&sb, tv->pretty);
			CU_ASSERT(!strncmp(sb.buf, "(deref 0 (reg 5) [(struct ", 26));
			CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, " (local 0) [\"{\" \""));
			snprintf(want, sizeof(want), "\", .f_flags=\" (udec (load 4 k (+ (local -1) %ld)))", off);
			CU_ASSERT_PTR_NOT_NULL(strstr(sb.buf, want));
			CU_ASSERT(sb.len > 3 && !strcmp(sb.buf + sb.len - 7, "\"}\"])])"));
			strbuf_release(&sb);
			seen++;
			continue;
		}
		CU_ASSERT_EQUAL(tv->kind, TV_VALUE);
		if (!strcmp(e->lhs->name, "a")) {
			CU_ASSERT_STRING_EQUAL(dumped(tv->value), "(reg 5)");
			CU_ASSERT_EQUAL(tv->reg, 5);   /* its home, for a write */
		} else if (!strcmp(e->lhs->name, "b")) {
			snprintf(want, sizeof(want), "(load 4 k (+ (reg 5) %ld))", off);
			CU_ASSERT_STRING_EQUAL(dumped(tv->value), want);
		} else {
			snprintf(want, sizeof(want), "(+ (reg 5) %ld)", pos);
			CU_ASSERT_STRING_EQUAL(dumped(tv->value), want);
		}
		CU_ASSERT(tv->kernel);
		seen++;
	}
	CU_ASSERT_EQUAL(seen, 4);
}

/* The BPF intrinsics' table is sorted (bsearch finds each), and every
 * / * bpf:NAME * / pragma in the tapset library names one of them. */
static void test_bpf_intrinsic_table(void)
{
	const char *prev = NULL, *name;
	DIR *d = opendir(TAPSET_DIR);
	struct dirent *ent;
	int pragmas = 0;

	for (size_t i = 0; (name = bpf_intrinsic_name(i)); prev = name, i++) {
		CU_ASSERT(!prev || strcmp(prev, name) < 0);
		CU_ASSERT_PTR_NOT_NULL(bpf_intrinsic_find(name));
	}
	CU_ASSERT_PTR_NOT_NULL(prev);
	CU_ASSERT_PTR_NULL(bpf_intrinsic_find("nosuch"));
	CU_ASSERT_FATAL(d != NULL);
	while ((ent = readdir(d))) {
		size_t n = strlen(ent->d_name), len;
		char *path, *text;
		const char *p, *w;
		FILE *f;

		if (n < 4 || strcmp(ent->d_name + n - 4, ".stp"))
			continue;
		path = xasprintf("%s/%s", TAPSET_DIR, ent->d_name);
		f = fopen(path, "r");
		CU_ASSERT_FATAL(f != NULL);
		text = xcalloc(1, 1 << 20);
		CU_ASSERT(fread(text, 1, (1 << 20) - 1, f) > 0);
		fclose(f);
		for (p = text; (w = pragma_next(&p, &len));) {
			if (len <= 4 || strncmp(w, "bpf:", 4))
				continue;
			char *in = xstrndup(w + 4, len - 4);
			if (!bpf_intrinsic_find(in))
				fprintf(stderr, "%s: bpf:%s names no intrinsic\n", ent->d_name, in);
			CU_ASSERT_PTR_NOT_NULL(bpf_intrinsic_find(in));
			free(in);
			pragmas++;
		}
		free(text);
		free(path);
	}
	closedir(d);
	CU_ASSERT(pragmas > 50);
}

/* Passes 1 and 2 of script (guru mode), then, with --runtime=bpf, the
 * bundle; diagnostics into out. 0: the bundle was made. */
static int bpf_passes(const char *script, bool bpf, struct strbuf *out)
{
	int rc;

	session_for(script);
	S.guru = true;
	S.runtime_bpf = bpf;
	S.module_name = "stap_test";
	vec_push(&S.include_dirs, TAPSET_DIR);
	diag_capture(out);
	rc = quiet_passes();
	if (rc == 0 && bpf) {
		FILE *saved = stderr;
		fflush(stderr);
		stderr = fopen("/dev/null", "w");
		rc = (S.bpf_unit = bpf_lower(&S)) ? 0 : 1;
		fclose(stderr);
		stderr = saved;
	}
	diag_capture(NULL);
	return rc;
}

/* A function's / * bpf:NAME * / pragma makes it the intrinsic NAME in BPF
 * (its embedded C is not refused; a name no intrinsic has leaves it
 * refused); __bpf_NAME are script functions with --runtime=bpf only: the
 * module runtime refuses a call of one with its tag. */
static void test_bpf_intrinsic_calls(void)
{
	static const char mine[] = "function mine:long() %{ /* bpf:tgid */ STAP_RETVALUE = 1; %}\n"
				   "probe begin { println(mine()) }";
	static const char other[] = "function other:long() %{ /* bpf:nosuch */ STAP_RETVALUE = 1; %}\n"
				    "probe begin { println(other()) }";
	static const char direct[] = "probe begin { println(__bpf_tgid(), __bpf_user_program() ? 1 : 2) }";
	struct strbuf out = STRBUF_INIT;

	CU_ASSERT_EQUAL(bpf_passes(mine, true, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(S.bpf_unit);
	strbuf_release(&out);
	CU_ASSERT_NOT_EQUAL(bpf_passes(other, true, &out), 0);
	CU_ASSERT(out.buf && strstr(out.buf, "[E_BPF_UNSUPPORTED]") && strstr(out.buf, "other() is embedded C"));
	strbuf_release(&out);
	CU_ASSERT_EQUAL(bpf_passes(direct, true, &out), 0);
	CU_ASSERT_PTR_NOT_NULL(S.bpf_unit);
	strbuf_release(&out);
	CU_ASSERT_NOT_EQUAL(bpf_passes(direct, false, &out), 0);
	CU_ASSERT(out.buf && strstr(out.buf, "[E_BPF_INTRINSIC]") && strstr(out.buf, "'__bpf_tgid'"));
	strbuf_release(&out);
	CU_ASSERT_EQUAL(bpf_passes(mine, false, &out), 0);   /* the module runs its C */
	strbuf_release(&out);
}

/* ---- updates lowered (lowered.h's struct lupdate) ----------------------- */

static const struct lupdate *updates[16];
static int nupdates;

static enum walk_action collect_update(struct expr *e, void *ctx)
{
	(void)ctx;
	if (e->upd && nupdates < 16)
		updates[nupdates++] = e->upd;
	return WALK_DESCEND;
}

/* Each kind of update of a script, as pass 2 lowers it for both backends:
 * where it writes, how, its operator and step, its type. */
static void test_lowered_updates(void)
{
	static const char script[] =
		"global g, gs, arr, st, names\n"
		"probe begin { l = 1; g += 2; gs .= \"x\"; arr[1]++; st <<< 3; g--; l *= 3; names[2] = \"y\"; x = l++ }";
	struct walker w = { .expr = collect_update };

	CU_ASSERT_EQUAL_FATAL(elaborate(script), 0);
	nupdates = 0;
	walk_stmt(&w, S.probes.items[0]->probe->body);
	CU_ASSERT_EQUAL_FATAL(nupdates, 10);
	/* l = 1 */
	CU_ASSERT(updates[0]->home == LU_LOCAL && updates[0]->how == LU_SET && !updates[0]->string);
	/* g += 2: an addition an atomic add serves */
	CU_ASSERT(updates[1]->home == LU_GLOBAL && updates[1]->how == LU_COMBINE && updates[1]->op == OP_ADD &&
		  updates[1]->adds);
	/* gs .= "x" */
	CU_ASSERT(updates[2]->home == LU_GLOBAL && updates[2]->how == LU_APPEND && updates[2]->string);
	/* arr[1]++: the element, a step of +1 whose value is the old one */
	CU_ASSERT(updates[3]->home == LU_ELEMENT && updates[3]->how == LU_STEP && updates[3]->step == 1 &&
		  updates[3]->post && updates[3]->adds);
	/* st <<< 3 */
	CU_ASSERT(updates[4]->home == LU_AGGREGATE && updates[4]->how == LU_STAT_ADD);
	/* g-- (postfix: its value is the old one) */
	CU_ASSERT(updates[5]->home == LU_GLOBAL && updates[5]->how == LU_STEP && updates[5]->step == -1 &&
		  updates[5]->post);
	/* l *= 3: no atomic add serves */
	CU_ASSERT(updates[6]->how == LU_COMBINE && updates[6]->op == OP_MUL && !updates[6]->adds);
	/* names[2] = "y": a string element */
	CU_ASSERT(updates[7]->home == LU_ELEMENT && updates[7]->how == LU_SET && updates[7]->string);
	/* x = l++: the assignment, then the step inside it */
	CU_ASSERT(updates[8]->home == LU_LOCAL && updates[8]->how == LU_SET);
	CU_ASSERT(updates[9]->how == LU_STEP && updates[9]->post);
}

/* ---- the script lowered to BPF (translate/bpf/unit.h) ------------------- */

/* the unit's map named name, or NULL */
static const struct bpf_map *unit_map(const struct bpf_unit *u, const char *name)
{
	for (int i = 0; u && i < u->maps.len; i++)
		if (!strcmp(u->maps.items[i]->name, name))
			return u->maps.items[i];
	return NULL;
}

/* the unit's program of probe point pp, or NULL */
static const struct bpf_prog *unit_prog(const struct bpf_unit *u, const char *pp)
{
	for (int i = 0; u && i < u->progs.len; i++)
		if (u->progs.items[i].pp && !strcmp(u->progs.items[i].pp, pp))
			return &u->progs.items[i];
	return NULL;
}

/* the id of the unit's format of types and text, or -1 */
static int unit_fmt(const struct bpf_unit *u, const char *types, const char *text)
{
	for (int i = 0; u && i < u->fmts.len; i++)
		if (!strcmp(u->fmts.items[i].types, types) && u->fmts.items[i].len == strlen(text) &&
		    !memcmp(u->fmts.items[i].text, text, strlen(text)))
			return i;
	return -1;
}

/* A few scripts lowered: an array's map typed by its key and value, a
 * printf's format shared by the probes that print it, a timer probe that
 * BPF runs in the kernel and one only stapbpf's interpreter can run (a
 * foreach), each program's line table naming the script's lines. */
static void test_bpf_unit(void)
{
	static const char script[] =
		"global a, n, e, w\n"
		"probe begin { a[\"x\"] = 1; printf(\"%d\\n\", a[\"x\"]) }\n"
		"probe timer.ms(100) { n++; printf(\"%d\\n\", n); e[execname()] <<< 1; w[sprint(n)] = 1 }\n"
		"probe timer.s(1) {\n"
		"  foreach (k in a) println(k)\n"
		"}\n";
	struct strbuf out = STRBUF_INIT;
	const struct bpf_unit *u;
	const struct bpf_map *m;
	const struct bpf_prog *p;
	bool line4 = false;

	CU_ASSERT_EQUAL(bpf_passes(script, true, &out), 0);
	strbuf_release(&out);
	u = S.bpf_unit;
	CU_ASSERT_PTR_NOT_NULL_FATAL(u);
	m = unit_map(u, "a");   /* string keys, long values; every key short: 16 bytes */
	CU_ASSERT(m && !strcmp(m->kind, "hash") && !strcmp(m->keyspec, "c") && !strcmp(m->valspec, "l"));
	m = unit_map(u, "e");   /* execname(): at most 15 characters */
	CU_ASSERT(m && !strcmp(m->kind, "percpu_hash") && !strcmp(m->keyspec, "c"));
	m = unit_map(u, "w");   /* a string of any length: 64 bytes */
	CU_ASSERT(m && !strcmp(m->keyspec, "s"));
	CU_ASSERT_PTR_NULL(unit_map(u, "n"));   /* a scalar lives in @globals */
	CU_ASSERT_PTR_NOT_NULL(unit_map(u, "@globals"));
	CU_ASSERT(unit_fmt(u, "l", "%d\n") >= 0);
	for (int i = 0, seen = 0; i < u->fmts.len; i++)   /* made once for both probes */
		CU_ASSERT((seen += unit_fmt(u, "l", "%d\n") == i) <= 1);
	p = unit_prog(u, "begin");
	CU_ASSERT(p && p->at.kind == BA_BEGIN && p->n > 0);
	p = unit_prog(u, "timer.ms(100)");
	CU_ASSERT(p && p->at.kind == BA_TIMER && p->at.period == 100000000);
	p = unit_prog(u, "timer.s(1)");
	CU_ASSERT_FATAL(p && p->at.kind == BA_UTIMER && p->at.period == 1000000000);
	for (int i = 0; i < p->lines.len; i++) {
		CU_ASSERT(p->lines.items[i].insn >= 0 && p->lines.items[i].insn <= p->n);
		line4 |= p->lines.items[i].pos.line == 4;
	}
	CU_ASSERT(line4);
	CU_ASSERT_EQUAL(p->insn[p->n - 1].code, B_JMP | J_EXIT);
}

/* What BPF cannot do is refused while lowering, with its tag: no unit. */
static void test_bpf_unit_refused(void)
{
	struct strbuf out = STRBUF_INIT;

	CU_ASSERT_NOT_EQUAL(bpf_passes("function f(x) { return x ? f(x - 1) : 0 }\n"
				       "probe begin { println(f(3)) }", true, &out), 0);
	CU_ASSERT_PTR_NULL(S.bpf_unit);
	CU_ASSERT(out.buf && strstr(out.buf, "[E_BPF_UNSUPPORTED]") && strstr(out.buf, "calls itself"));
	strbuf_release(&out);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("elaborate", NULL, NULL);
	CU_add_test(s, "literals and operators", test_literals_and_operators);
	CU_add_test(s, "inference across uses", test_inference_across_uses);
	CU_add_test(s, "function signatures", test_function_signatures);
	CU_add_test(s, "elision without -u", test_elision);
	CU_add_test(s, "recursion", test_recursion);
	CU_add_test(s, "arrays, keys, foreach", test_arrays_keys_and_foreach);
	CU_add_test(s, "printf argument types", test_format_types);
	CU_add_test(s, "unused globals elided", test_unused_global_elided);
	CU_add_test(s, "tapset functions on demand", test_tapset_function_pulled_in);
	CU_add_test(s, "probe points", test_probe_points);
	CU_add_test(s, "errors", test_errors);
	CU_add_test(s, "-I tapsets are the user's code to --privilege", test_privilege_include_dir);
	CU_add_test(s, "lowered form: SDT operands", test_lowered_sdt);
	CU_add_test(s, "lowered form: the module's C", test_lowered_c);
	CU_add_test(s, "lowered form: DWARF target variables", test_lowered_dwarf);
	CU_add_test(s, "BPF intrinsics: the table, the tapsets' pragmas", test_bpf_intrinsic_table);
	CU_add_test(s, "BPF intrinsics: calls, refused in the module runtime", test_bpf_intrinsic_calls);
	CU_add_test(s, "lowered form: updates", test_lowered_updates);
	CU_add_test(s, "BPF lowering: maps, formats, programs", test_bpf_unit);
	CU_add_test(s, "BPF lowering: a refusal makes no unit", test_bpf_unit_refused);
	CU_add_test(s, "tapset index: what each file defines, parsed when needed", test_tapset_index);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	int failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
