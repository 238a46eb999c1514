/* d_parse_test.c - the D lexer, parser and type table.
 *
 * (a) Inline D snippets, checked through their dump (d_dump.c): precedence,
 *     casts against parenthesized expressions, probe descriptions with globs
 *     and macros, declarations and types, self/this, aggregations, and the
 *     errors with DTrace's tags and wording.
 * (b) DTrace's own test suite (../shared/dtrace-testsuite beside the
 *     source, or the directory given as argv[1]; the test is skipped, exit
 *     77, when it is absent): every tst.*.d must parse, every err.D_TAG.*.d
 *     whose error the parser reports must fail with that tag and with the
 *     message its .r file holds, and the other err.*.d must parse. Tests
 *     that need cpp (-C) are left out, and the few known differences are
 *     listed below with why.
 *
 * d_parse_test -e 'TEXT' and d_parse_test -f FILE print a program's dump.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "d/d_diag.h"
#include "d/d_parse.h"
#include "d/d_types.h"
#include "util.h"

#ifndef D_TESTSUITE_DIR
#define D_TESTSUITE_DIR "../shared/dtrace-testsuite"
#endif

static int failures, checks;

/* ---- running the parser ----------------------------------------------------------- */

struct outcome {
	struct d_program *prog;  /* NULL when it failed */
	const char *tag;         /* the error's tag */
	char *err;               /* what d_error printed */
	char *dump;              /* the program's dump */
};

/* A resolver standing for the kernel's types (BTF does this in stap):
 * enough kernel typedefs and structs for the suite's scripts. */
static struct d_type *test_resolver(void *arg, struct d_types *ts, const char *module,
				    const char *name)
{
	static const char *const ints[] = {
		"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64", "__u8", "__u16", "__u32",
		"__u64", "__s32", "__s64", "loff_t", "umode_t", "sector_t", "ktime_t", "gfp_t",
		"fmode_t", "blkcnt_t", "clockid_t", "uint", "ulong", "ipaddr_t", "in_port_t",
		"in_addr_t", "bool", "dev_t", "rwlock_t", "spinlock_t", "atomic_t", "pointer",
	};
	/* D library (/usr/lib/dtrace) typedefs of structs */
	static const char *const library[] = {
		"psinfo_t", "lwpsinfo_t", "cpuinfo_t", "vfs_t", "fileinfo_t", "devinfo_t",
		"bufinfo_t", "conninfo_t", "ipinfo_t", "tcpinfo_t", "tcpsinfo_t", "csinfo_t",
		"pktinfo_t", "udpinfo_t", "udpsinfo_t", "ifinfo_t", "ipv4info_t", "ipv6info_t",
		"tcplsinfo_t", "taskq_ent_t",
	};

	for (size_t i = 0; i < sizeof(library) / sizeof(library[0]); i++)
		if (!strcmp(name, library[i])) {
			struct d_type *t = d_sou_begin(ts, DT_STRUCT, name);

			d_sou_add(ts, t, "__dummy", d_type_lookup(ts, "long"), 0);
			d_sou_end(ts, t);
			return d_typedef_declare(ts, name, t);
		}
	static const char *const structs[] = {
		"struct task_struct", "struct file", "struct inode", "struct sk_buff", "struct sock",
		"struct mutex", "struct path", "struct dentry", "struct pid", "struct cgroup_root",
		"struct in6_addr", "struct vfsmount", "struct bio", "struct page",
		"struct bpf_raw_tracepoint_args", "struct pt_regs", "struct socket",
		"struct rq", "struct timespec64", "struct request", "struct super_block",
		"struct buffer_head", "struct file_operations", "struct linux_binprm",
		"struct siginfo", "struct kiocb", "struct iov_iter", "struct qstr",
	};

	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		if (!strcmp(name, ints[i]))
			return d_typedef_declare(ts, name, d_type_lookup(ts, "unsigned long"));
	for (size_t i = 0; i < sizeof(structs) / sizeof(structs[0]); i++)
		if (!strcmp(name, structs[i])) {
			struct d_type *t = d_sou_begin(ts, DT_STRUCT, name + 7);

			d_sou_add(ts, t, "__dummy", d_type_lookup(ts, "long"), 0);
			d_sou_end(ts, t);
			return t;
		}
	return NULL;
}

/* Parse text as DTrace would parse the file name (script: how the
 * messages name it), capturing what is printed on stderr. */
static struct outcome run(const char *script, const char *text, const struct d_parse_args *args)
{
	struct outcome o = { 0 };
	struct d_types *types = d_types_new();
	struct d_diag dg = { 0 };
	jmp_buf jb;
	char path[] = "/tmp/d-parse-test.XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	size_t len;

	d_types_set_resolver(types, test_resolver, NULL);
	dg.errtags = true;   /* the messages as -xerrtags shows them */
	dg.what = xasprintf("failed to compile script %s", script);
	dg.text = text;
	dg.abort = &jb;
	fflush(stderr);
	dup2(fd, 2);
	if (!setjmp(jb))
		o.prog = d_parse(&dg, types, script, text, args);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	o.err = read_file(path, &len);
	unlink(path);
	o.tag = dg.tag;
	if (o.prog) {
		char *buf = NULL;
		size_t n = 0;
		FILE *f = open_memstream(&buf, &n);

		d_dump_program(f, o.prog);
		fclose(f);
		o.dump = buf;
	}
	return o;
}

static const struct d_parse_args file_args = { .spec = D_PSPEC_NAME, .is_file = true };

/* ---- inline tests ---------------------------------------------------------------------- */

static void fail(const char *what, const char *text, const char *want, const char *got)
{
	failures++;
	printf("FAIL %s\n  input: %s\n  want:  %s\n  got:   %s\n", what, text, want, got);
}

/* text must parse; its dump must be want (lines joined by '|'). */
static void ok(const char *text, const char *want)
{
	struct outcome o = run("t.d", text, &file_args);
	struct strbuf sb = STRBUF_INIT;

	checks++;
	if (!o.prog) {
		fail("parse", text, want, o.err);
		return;
	}
	for (const char *s = o.dump; *s; s++)
		strbuf_addch(&sb, *s == '\n' ? (s[1] ? '|' : 0) : *s);
	if (strcmp(sb.buf, want))
		fail("dump", text, want, sb.buf);
}

/* The same with its own arguments (macros, -n/-P parsing). */
static void ok_args(const char *text, const struct d_parse_args *args, const char *want)
{
	struct outcome o = run("t.d", text, args);

	checks++;
	if (!o.prog) {
		fail("parse", text, want, o.err);
		return;
	}
	o.dump[strcspn(o.dump, "\n")] = 0;
	if (strcmp(o.dump, want))
		fail("dump", text, want, o.dump);
}

/* text must fail with tag, its message starting with msg ("[TAG] line N: ..."). */
static void bad_args(const char *text, const struct d_parse_args *args, const char *tag,
		     const char *msg)
{
	struct outcome o = run("t.d", text, args);
	const char *m;

	checks++;
	if (o.prog || !o.tag || strcmp(o.tag, tag)) {
		fail("error tag", text, tag, o.tag ? o.tag : o.dump);
		return;
	}
	m = strstr(o.err, "t.d: ");
	if (!m || strncmp(m + 5, msg, strlen(msg)))
		fail("error message", text, msg, m ? m + 5 : o.err);
}

static void bad(const char *text, const char *tag, const char *msg)
{
	bad_args(text, &file_args, tag, msg);
}

static const char *const argv3[] = { "t.d", "97", "foo" };
static const struct d_parse_args two_args = {
	.spec = D_PSPEC_NAME, .is_file = true, .argc = 3, .argv = argv3, .target_pid = 1234,
};

static void test_expressions(void)
{
	ok("BEGIN { x = 1 + 2 * 3 - 4; }", "(clause (:::BEGIN) (= x (- (+ 1 (* 2 3)) 4)))");
	ok("BEGIN { x = a || b ^^ c && d | e ^ f & g == h < i << j; }",
	   "(clause (:::BEGIN) (= x (|| a (^^ b (&& c (| d (^ e (& f (== g (< h (<< i j)))))))))))");
	ok("BEGIN { x = a ? b : c ? d : e; y = (a, b); }",
	   "(clause (:::BEGIN) (= x (? a b (? c d e))) (= y (, a b)))");
	ok("BEGIN { a = b = c; a += 1; a <<= 2; a ^= 3 }",
	   "(clause (:::BEGIN) (= a (= b c)) (+= a 1) (<<= a 2) (^= a 3))");
	ok("BEGIN { x = -a++ + !b - ~c * *p & &q; ++y; z--; }",
	   "(clause (:::BEGIN) (= x (& (- (+ (- (a++)) (! b)) (* (~ c) (* p))) (& q))) (++ y) (z--))");
	ok("BEGIN { x = (int)y; x = (y) - 1; x = (char *)p + 1; x = (uint64_t)-1; }",
	   "(clause (:::BEGIN) (= x (cast <int> y)) (= x (- y 1)) (= x (+ (cast <char *> p) 1)) "
	   "(= x (cast <uint64_t> (- 1))))");
	ok("BEGIN { x = sizeof (int); x = sizeof (y); x = sizeof y + 1; x = sizeof(struct foo *); }",
	   "(clause (:::BEGIN) (= x (sizeof <int>)) (= x (sizeof y)) (= x (+ (sizeof y) 1)) "
	   "(= x (sizeof <struct foo *>)))");
	ok("BEGIN { x = stringof(y); x = offsetof(struct s, f); x = xlate<psinfo_t *>(curthread); }",
	   "(clause (:::BEGIN) (= x (stringof y)) (= x (offsetof <struct s> f)) "
	   "(= x (xlate <psinfo_t *> curthread)))");
	ok("BEGIN { self->x = this->y; a[1, \"k\"] = args[0]->f.g; }",
	   "(clause (:::BEGIN) (= (-> self x) (-> this y)) (= ([] a 1 \"k\") (. (-> ([] args 0) f) g)))");
	ok("BEGIN { @ = count(); @a[pid, execname] = sum(1); @b = quantize(x); printa(@a); }",
	   "(clause (:::BEGIN) (= @ (call count)) (= ([] @a pid execname) (call sum 1)) "
	   "(= @b (call quantize x)) (call printa @a))");
	ok("BEGIN { x = 'a'; y = 'ab'; z = \"a\\tb\\\"\\101\\x41\\n\"; w = 0x10 + 010 + 10UL; }",
	   "(clause (:::BEGIN) (= x 97) (= y 24930) (= z \"a\\tb\\\"AA\\n\") (= w (+ (+ 16 8) 10)))");
	ok("BEGIN { x = `max_pfn; y = vmlinux`jiffies; trace(x->self.this); }",
	   "(clause (:::BEGIN) (= x `max_pfn) (= y vmlinux`jiffies) (call trace (. (-> x self) this)))");
	ok_args("BEGIN { x = $1 + $$2; y = $pid; }", &two_args,
		"(clause (:::BEGIN) (= x (+ $1 $$2)) (= y $pid))");
	ok("BEGIN { if (x) y = 1; else { z = 2; w = 3 } ; }",
	   "(clause (:::BEGIN) (if x (= y 1) (block (= z 2) (= w 3))) (;))");
	ok("BEGIN { if (a) if (b) c = 1; else d = 2; }",
	   "(clause (:::BEGIN) (if a (if b (= c 1) (= d 2))))");
	ok("BEGIN /x / 2 > 1/ { trace(1) }",
	   "(clause (:::BEGIN) (pred (> (/ x 2) 1)) (call trace 1))");
}

/* d_parse_pdesc(): text as -P/-m/-f/-n give it splits into want (NULL: an error) */
static void check_pdesc(const char *text, enum d_pspec spec, const char *want)
{
	struct d_parse_args a = two_args;
	struct d_diag dg = { .what = text };
	jmp_buf jb;
	struct d_pdesc *volatile pd = NULL;
	char *got;
	int saved = dup(2), null = open("/dev/null", O_WRONLY);

	a.spec = spec;
	dg.abort = &jb;
	dup2(null, 2);
	if (!setjmp(jb))
		pd = d_parse_pdesc(&dg, text, &a);
	dup2(saved, 2);
	close(saved);
	close(null);
	checks++;
	got = pd ? xasprintf("%s:%s:%s:%s", pd->prov, pd->mod, pd->func, pd->name) : NULL;
	if (want ? !got || strcmp(got, want) : got != NULL)
		fail("probe description", text, want ? want : "D_PDESC_INVAL", got ? got : dg.tag);
}

static void test_descriptions(void)
{
	struct d_parse_args a = two_args;
	struct d_parse_args n = { .spec = D_PSPEC_NAME };
	struct d_parse_args pv = { .spec = D_PSPEC_PROVIDER };

	ok("BEGIN, END {}", "(clause (:::BEGIN :::END))");
	ok("syscall::open*:entry, fbt:vmlinux:vfs_*:return /pid != 1/ { }",
	   "(clause (syscall::open*:entry fbt:vmlinux:vfs_*:return) (pred (!= pid 1)))");
	ok("tick-1s{exit(0);}\nprofile:::profile-97hz\n{}",
	   "(clause (:::tick-1s) (call exit 0))|(clause (profile:::profile-97hz))");
	ok("syscall::read:entry,syscall::[rw]*:entry,io:::?art,a:b:c:d\n{}",
	   "(clause (syscall::read:entry syscall::[rw]*:entry io:::?art a:b:c:d))");
	ok_args("profile-$1, pid$target::$2:entry, pid$$1:::x { trace($1) }", &a,
		"(clause (:::profile-97 pid1234::foo:entry pid97:::x) (call trace $1))");
	ok_args("BEGIN", &n, "(clause (:::BEGIN))");
	ok_args("syscall", &pv, "(clause (syscall:::))");
	ok_args("syscall::open:entry", &n, "(clause (syscall::open:entry))");
	bad_args("BEGIN { x = 1 }\n}", &n, "D_SYNTAX", "[D_SYNTAX] line 2: syntax error near \"}\"");
	ok_args("BEGIN END", &n, "(clause (:::BEGIN))");
	check_pdesc("syscall", D_PSPEC_PROVIDER, "syscall:::");
	check_pdesc("vmlinux", D_PSPEC_MODULE, ":vmlinux::");
	check_pdesc("a:b", D_PSPEC_MODULE, "a:b::");
	check_pdesc("do_sys_open", D_PSPEC_FUNCTION, "::do_sys_open:");
	check_pdesc("fbt::do_sys_open", D_PSPEC_FUNCTION, "fbt::do_sys_open:");
	check_pdesc("BEGIN", D_PSPEC_NAME, ":::BEGIN");
	check_pdesc("pid$target:a.out::entry", D_PSPEC_NAME, "pid1234:a.out::entry");
	check_pdesc("a:b", D_PSPEC_PROVIDER, NULL);
	bad("profile::::tick-1sec {}", "D_PDESC_INVAL",
	    "[D_PDESC_INVAL] line 1: invalid probe description \"profile::::tick-1sec\": "
	    "Overspecified probe description");
	bad("pid$3::main:entry {}", "D_PDESC_INVAL",
	    "[D_PDESC_INVAL] line 1: invalid probe description \"pid$3::main:entry\": "
	    "Undefined macro variable in probe description");
	bad("BEGIN", "D_SYNTAX",
	    "[D_SYNTAX] line 1: expected predicate and/or actions following probe description");
	bad("BEGIN\n/x/;", "D_SYNTAX",
	    "[D_SYNTAX] line 2: expected actions { } following probe description and predicate");
}

static void test_declarations(void)
{
	ok("int x; self int y; this string z; int a[string, int]; int b[5]; char *c[2][3]; BEGIN {}",
	   "(var global <int> x)|(var self <int> y)|(var this <string> z)|"
	   "(var global <int> a [<string> <int>])|(var global <int [5]> b)|"
	   "(var global <char *[2][3]> c)|(clause (:::BEGIN))");
	ok("struct s { int a; char b : 3; long c; } v; typedef struct s s_t; s_t *p; "
	   "BEGIN { x = (s_t *)p; y = sizeof (s_t); }",
	   "(var global <struct s> v)|(typedef s_t <struct s>)|"
	   "(var global <s_t *> p)|(clause (:::BEGIN) (= x (cast <s_t *> p)) (= y (sizeof <s_t>)))");
	ok("enum e { A, B = 5, C }; inline int N = C + 1; int arr[C + 1];",
	   "(type <enum e>)|(inline <int> N (+ C 1))|(var global <int [7]> arr)");
	ok("unsigned long long a; long double b; signed char c; unsigned d; short int e; "
	   "const char *f; int (*g)[4]; int *h[4]; volatile int i; BEGIN {}",
	   "(var global <unsigned long long> a)|(var global <long double> b)|"
	   "(var global <signed char> c)|(var global <unsigned> d)|(var global <short> e)|"
	   "(var global <const char *> f)|(var global <int (*)[4]> g)|(var global <int *[4]> h)|"
	   "(var global <volatile int> i)|(clause (:::BEGIN))");
	ok("translator struct out < struct in *p > { a = p->x; b = 1; };",
	   "(translator <struct out> <struct in *> p (a (-> p x)) (b 1))");
	ok("void f(int, char *); extern int k; inline string h[int a] = \"x\";",
	   "(extern func <void ()> f)|(extern global <int> k)|(inline <string> h [<int> a] \"x\")");
	ok("provider foo { probe bar(int, char *); probe baz__qux() : (long); };",
	   "(provider foo (probe bar (<int> <char *>)) (probe baz-qux () (<long>)))");
	ok("#pragma D option quiet\n#pragma D option bufsize=16k\nBEGIN {}",
	   "(pragma option quiet)|(pragma option bufsize 16k)|(clause (:::BEGIN))");
	ok("uint64_t*x; BEGIN {}", "(var global <uint64_t *> x)|(clause (:::BEGIN))");
	ok("BEGIN { x = (struct vmlinux`task_struct *)p; y = (vmlinux`u64)z; w = (D`uint64_t)v; }",
	   "(clause (:::BEGIN) (= x (cast <struct task_struct *> p)) (= y (cast <u64> z)) "
	   "(= w (cast <uint64_t> v)))");
	ok("typedef int foo_t; struct s { foo_t *p; foo_t foo_t; }; BEGIN { x = sizeof(struct s); }",
	   "(typedef foo_t <int>)|(type <struct s>)|(clause (:::BEGIN) (= x (sizeof <struct s>)))");
	ok("# 5 \"foo.d\"\nint x;\n#line 10\nBEGIN {}", "(var global <int> x)|(clause (:::BEGIN))");
	bad("# 5 \"foo.d\"\nint x;\n#line 10\nBEGIN", "D_SYNTAX", "[D_SYNTAX] line 11: expected predicate");
}

static void test_errors(void)
{
	bad("BEGIN { x = 1 }\n}", "D_SYNTAX", "[D_SYNTAX] line 2: syntax error near \"}\"");
	bad("BEGIN { x = 1;", "D_SYNTAX", "[D_SYNTAX] line 1: syntax error near end of input");
	bad("BEGIN { x = 1.5; }", "D_SYNTAX", "[D_SYNTAX] line 1: floating-point constants are not permitted");
	bad("BEGIN { x = \"ab\ncd\"; }", "D_STR_NL", "[D_STR_NL] line 2: newline encountered in string literal");
	bad("BEGIN { x = ''; }", "D_CHR_NULL", "[D_CHR_NULL] line 1: empty character constant");
	bad("BEGIN { x = 'abcdefghi'; }", "D_CHR_OFLOW", "[D_CHR_OFLOW] line 1: character constant is too long");
	bad("BEGIN { x = 99999999999999999999; }", "D_INT_OFLOW",
	    "[D_INT_OFLOW] line 1: constant 99999999999999999999 results in integer overflow");
	bad("BEGIN { x = $1; }", "D_MACRO_UNDEF", "[D_MACRO_UNDEF] line 1: macro argument $1 is not defined");
	bad("BEGIN { x = $foo; }", "D_MACRO_UNDEF", "[D_MACRO_UNDEF] line 1: macro variable $foo is not defined");
	bad("BEGIN { x = (foo_t)1; }", "D_SYNTAX", "[D_SYNTAX] line 1: syntax error near \"1\"");
	/* a name once taken for a variable by what follows it stays one (DTrace's lexer) */
	bad("BEGIN { size_t = 1; x = (size_t)2; }", "D_SYNTAX", "[D_SYNTAX] line 1: syntax error near \"2\"");
	bad("BEGIN { x = (1)(2); }", "D_FUNC_IDENT",
	    "[D_FUNC_IDENT] line 1: function designator is not of function type");
	bad("int int x;", "D_DECL_COMBO", "[D_DECL_COMBO] line 1: invalid type combination");
	bad("self this int x;", "D_DECL_CLASS",
	    "[D_DECL_CLASS] line 1: only one storage class allowed in a declaration");
	bad("int x; char x;", "D_DECL_IDRED",
	    "[D_DECL_IDRED] line 1: identifier redeclared: x\n\t current: scalar char\n\tprevious: scalar int");
	bad("int timestamp;", "D_DECL_IDRED", "[D_DECL_IDRED] line 1: built-in identifier redeclared: timestamp");
	bad("struct s { int a; }; struct s { int b; };", "D_DECL_TYPERED",
	    "[D_DECL_TYPERED] line 1: type redeclared: struct s");
	bad("struct s { struct t x; };", "D_DECL_INCOMPLETE",
	    "[D_DECL_INCOMPLETE] line 1: incomplete struct/union/enum struct t: x");
	bad("struct s { int a : 40; };", "D_DECL_BFSIZE", "[D_DECL_BFSIZE] line 1: bit-field too big for type: a");
	bad("int a[0];", "D_DECL_ARRSUB", "[D_DECL_ARRSUB] line 1: positive integral constant expression");
	bad("int a[\nFOO];", "D_IDENT_UNDEF", "[D_IDENT_UNDEF] line 2: failed to resolve FOO: Unknown variable name");
	bad("enum e { A = 1, B = \"x\" };", "D_DECL_ENCONST",
	    "[D_DECL_ENCONST] line 1: enumerator 'B' must be assigned to an integral constant expression");
	bad("enum e { A }; enum f { A };", "D_DECL_IDRED", "[D_DECL_IDRED] line 1: identifier redeclared: A");
	bad("int f(void, int);", "D_DECL_PROTO_VOID", "[D_DECL_PROTO_VOID] line 1: void must be sole parameter");
	bad("int a[void];", "D_DECL_PROTO_TYPE", "[D_DECL_PROTO_TYPE] line 1: array prototype may not use "
	    "parameter of type void: (anonymous), parameter #1");
	bad("this int a[int];", "D_DECL_LOCASSC",
	    "[D_DECL_LOCASSC] line 1: associative arrays may not be declared as local variables: a");
	bad("BEGIN { x = (short char)1; }", "D_DECL_CHARATTR",
	    "[D_DECL_CHARATTR] line 1: invalid type declaration: short and long may not be used with char type");
	bad("BEGIN { x = (unsigned double)1; }", "D_DECL_SIGNINT", "[D_DECL_SIGNINT] line 1: invalid type "
	    "declaration: signed and unsigned may only be used with integer type");
	bad("BEGIN { x = (long long long)1; }", "D_UNKNOWN",
	    "[D_UNKNOWN] line 1: failed to resolve type long long long : Unknown type name");
	bad("typedef int t; typedef long t;", "D_DECL_IDRED", "[D_DECL_IDRED] line 1: typedef redeclared: t");
	bad("static int x;", "D_DECL_BADCLASS", "[D_DECL_BADCLASS] line 1: specified storage class not appropriate in D");
	bad("#pragma D option quiet extra\n", "D_PRAGMA_MALFORM",
	    "[D_PRAGMA_MALFORM] line 1: superfluous arguments specified for #pragma option");
	bad("#pragma D frobnicate\n", "D_PRAGMA_INVAL", "[D_PRAGMA_INVAL] line 1: invalid D pragma: frobnicate");
	bad("#define X 1\n", "D_PRAGCTL_INVAL", "[D_PRAGCTL_INVAL] line 1: invalid control directive: #define");
	bad("#pragma D attributes Stable/Stable/Common timestamp\n", "D_PRAGMA_SCOPE",
	    "[D_PRAGMA_SCOPE] line 1: #pragma attributes cannot modify entity defined outside program scope");
	bad("", "D_EMPTY", "[D_EMPTY] line 1: empty D program translation unit");
	bad("int x;\n", "D_EMPTY", "[D_EMPTY] line 2: empty D program translation unit");
}

/* the type table alone: layouts, names, member lookup */
static void test_types(void)
{
	struct d_types *ts = d_types_new();
	struct d_type *s = d_sou_begin(ts, DT_STRUCT, "bits"), *i = d_type_lookup(ts, "int");
	struct d_type *l = d_type_lookup(ts, "long");
	int64_t off;
	const struct d_member *m;

	d_sou_add(ts, s, "a", i, 3);
	d_sou_add(ts, s, "b", i, 30);   /* does not fit with a: the next int */
	d_sou_add(ts, s, "c", l, 35);
	d_sou_add(ts, s, "d", d_type_lookup(ts, "char"), 0);
	d_sou_end(ts, s);
	checks++;
	if (s->size != 16 || s->members.items[1]->offset != 4 || s->members.items[1]->bitoff != 0 ||
	    s->members.items[2]->offset != 8 || s->members.items[2]->bitoff != 0 ||
	    s->members.items[3]->offset != 13) {
		failures++;
		printf("FAIL layout: size %lld b@%lld.%d c@%lld.%d d@%lld\n", (long long)s->size,
		       (long long)s->members.items[1]->offset, s->members.items[1]->bitoff,
		       (long long)s->members.items[2]->offset, s->members.items[2]->bitoff,
		       (long long)s->members.items[3]->offset);
	}
	checks++;
	m = d_type_member(s, "c", &off);
	if (!m || off != 8 || m->bits != 35) {
		failures++;
		printf("FAIL member lookup\n");
	}
	checks++;
	if (strcmp(d_type_name(d_type_lookup(ts, "struct bits *")), "struct bits *") ||
	    strcmp(d_type_name(d_type_pointer(ts, d_type_array(ts, i, 4))), "int (*)[4]") ||
	    d_type_lookup(ts, "uint64_t")->size != 8 || d_type_lookup(ts, "string")->size != 256 ||
	    d_type_resolve(d_type_lookup(ts, "size_t")) != d_type_lookup(ts, "unsigned long") ||
	    d_type_pointer(ts, i) != d_type_lookup(ts, "int*") ||
	    d_type_lookup(ts, "unsigned  long   long") != d_type_lookup(ts, "unsigned long long") ||
	    d_type_lookup(ts, "D`struct bits") != s || d_type_lookup(ts, "struct nosuch")) {
		failures++;
		printf("FAIL type names and lookups\n");
	}
}

/* ---- the DTrace test suite ------------------------------------------------------------ */

/* The error tags the parser reports (the rest are the checker's). */
static const char *const parser_tags[] = {
	"D_SYNTAX", "D_STR_NL", "D_CHR_NL", "D_CHR_NULL", "D_CHR_OFLOW", "D_INT_OFLOW",
	"D_INT_DIGIT", "D_EMPTY", "D_PRAGERR", "D_PRAGMA_INVAL", "D_PRAGMA_MALFORM",
	"D_PRAGMA_UNUSED", "D_PRAGMA_SCOPE", "D_PRAGCTL_INVAL", "D_MACRO_UNDEF",
	"D_MACRO_UNUSED", "D_PDESC_INVAL", "D_FUNC_IDENT", "D_PROV_BADNAME", "D_UNKNOWN",
};

/* err.D_TAG tests of those tags that are the checker's after all, and why */
static const char *const checker_tests[] = {
	"printf/err.D_SYNTAX.badconv1.d",          /* printf's format: the checker's */
	"printf/err.D_SYNTAX.badconv3.d",
	"arrays/err.D_UNKNOWN.uregs_toobig.aarch64.d",  /* uregs[] index: the checker's */
	"arrays/err.D_UNKNOWN.uregs_toobig.x86_64.d",
	"offsetof/err.D_UNKNOWN.OffsetofNULL.d",   /* offsetof's member: the checker's */
};

/* err.*.d without a tag: those with no .r whose error is the parser's
 * (and its tag), those with a compile error in their .r that is not (NULL:
 * they must parse). The others with one in their .r are the parser's. */
static const struct {
	const char *test, *tag;
} untagged[] = {
	{ "version/err.1.1.d", "D_DECL_IDRED" },   /* strstr is a built-in of D 1.1 */
	{ "dtrace-util/err.MultipleNonOptFlags.d", "D_MACRO_UNUSED" },  /* $1 $2 unused */
	{ "assocs/err.tupoflow.d", NULL },          /* code generation's */
	{ "speculation/err.NegativeNspec.d", NULL }, /* an option's value */
	{ "types/err.unloaded_var.d", NULL },       /* a symbol's module */
	{ NULL, NULL },
};

/* Tests whose outcome here is known to differ, and why. */
static const struct {
	const char *test, *why;
} known[] = {
	{ NULL, NULL },
};

static bool parser_tag(const char *tag)
{
	if (!strncmp(tag, "D_DECL_", 7))
		return true;
	for (size_t i = 0; i < sizeof(parser_tags) / sizeof(parser_tags[0]); i++)
		if (!strcmp(tag, parser_tags[i]))
			return true;
	return false;
}

static bool listed(const char *const *list, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}

/* The arguments and options of "@@runtest-opts: ..." and the directory's
 * test.options that change parsing; whether the test needs cpp (-C) or
 * compiles no D (-V, -h). */
enum { ARGS_OK, ARGS_CPP, ARGS_NOT_D };

/* A line of text is a cpp directive (# then a word but pragma). */
static bool has_directive(const char *text)
{
	for (const char *l = text; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		l += strspn(l, " \t");
		if (*l == '#' && strncmp(l + 1 + strspn(l + 1, " \t"), "pragma", 6))
			return true;
	}
	return false;
}

static int test_args(const char *dir, const char *text, struct d_parse_args *a, strvec *argv)
{
	char *opts = read_file(xasprintf("%s/test.options", dir), NULL);
	const char *s;
	bool positional = false, cpp = false, macros = false;

	*a = file_args;
	a->target_pid = 1234;
	vec_push(argv, "script.d");
	for (int pass = 0; pass < 2; pass++) {
		const char *src = pass ? opts : text;

		if (!src || !(s = strstr(src, "@@runtest-opts:")))
			continue;
		s += strlen("@@runtest-opts:");
		char *line = xstrndup(s, strcspn(s, "\n")), *save, *w;

		if ((w = strstr(line, "*/")))
			*w = 0;
		for (w = strtok_r(line, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
			if (positional || w[0] != '-') {
				vec_push(argv, !strcmp(w, "$_pid") ? "1234" : w);
				continue;
			}
			if (!strcmp(w, "--")) {
				positional = true;
				continue;
			}
			if (strchr(w, 'C') && w[1] != 'x' && w[1] != 'D' && w[1] != 'U' && w[1] != 'I')
				cpp = true;
			if (w[1] == 'D' || w[1] == 'U' || w[1] == 'I')
				macros = true;
			if (!strcmp(w, "-V"))
				return ARGS_NOT_D;
			if (!strcmp(w, "-x") || !strcmp(w, "-c") || !strcmp(w, "-p") || !strcmp(w, "-I") ||
			    !strcmp(w, "-D") || !strcmp(w, "-U") || !strcmp(w, "-o") || !strcmp(w, "-b")) {
				char *v = strtok_r(NULL, " \t", &save);

				if (!strcmp(w, "-x") && v)
					w = xasprintf("-x%s", v);
				else
					continue;
			}
			if (!strncmp(w, "-x", 2)) {
				if (!strcmp(w + 2, "defaultargs"))
					a->defaultargs = true;
				else if (!strcmp(w + 2, "argref"))
					a->argref = true;
				else if (!strcmp(w + 2, "empty"))
					a->allow_empty = true;
				else if (!strcmp(w + 2, "pspec"))
					a->pspec = true;
				else if (!strncmp(w + 2, "version=", 8))
					a->version = w + 10;
			}
		}
	}
	a->argc = argv->len;
	a->argv = (const char *const *)argv->items;
	/* with -C, cpp changes nothing in a file without directives or -D */
	if (cpp && (macros || has_directive(text)))
		return ARGS_CPP;
	return ARGS_OK;
}

/* The message DTrace printed (the .r's stderr lines), with its sed
 * post-processing (.r.p) and the runner's 0x... -> {ptr}. */
static char *filtered(const char *rp, const char *msg)
{
	struct strbuf sb = STRBUF_INIT;
	char *first = read_file(rp, NULL);

	for (const char *s = msg; *s; s++) {
		if (s[0] == '0' && s[1] == 'x') {
			strbuf_addstr(&sb, "{ptr}");
			for (s += 2; s[1] && strchr("0123456789abcdefABCDEF", s[1]); s++)
				;
			continue;
		}
		strbuf_addch(&sb, *s);
	}
	if (first && strstr(first, "sed -f")) {
		char *in = xasprintf("/tmp/d-parse-test-rp.%d", getpid());
		char *cmd = xasprintf("sed -f %s %s", rp, in);
		FILE *f;
		char buf[4096];
		size_t n;

		write_file(in, sb.buf, sb.len);
		strbuf_reset(&sb);
		if ((f = popen(cmd, "r"))) {
			while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
				strbuf_add(&sb, buf, n);
			pclose(f);
		}
		unlink(in);
	}
	return strbuf_detach(&sb);
}

struct suite {
	int tst, tst_ok, err, err_ok, other_err, other_ok, skipped_cpp, not_d, known;
};

/* The message lines of DTrace's output (the .r's stderr), or NULL. */
static char *expected_message(const char *path)
{
	char *r = read_file(xasprintf("%.*s.r", (int)strlen(path) - 2, path), NULL), *m;

	if (!r || !(m = strstr(r, "-- @@stderr --\n")))
		return NULL;
	m += strlen("-- @@stderr --\n");
	return strstr(m, "failed to compile script") ? m : NULL;
}

/* What was printed, as DTrace would: without the [TAG] of a test run
 * without -xerrtags (the untagged err tests), post-processed as the .r. */
static char *printed(const char *path, const char *err, bool tagged)
{
	char *s = xstrdup(err), *b, *e;

	if (!tagged && (b = strstr(s, ": [")) && (e = strstr(b, "] ")))
		memmove(b + 2, e + 2, strlen(e + 2) + 1);
	return filtered(xasprintf("%.*s.r.p", (int)strlen(path) - 2, path), s);
}

/* One failure of the expected kind: its tag and its message checked. */
static void check_error(struct suite *st, const char *rel, const char *path, struct outcome *o,
			const char *tag, bool tagged)
{
	char *want = expected_message(path), *got;

	st->err++;
	if (o->prog || !o->tag || (tag && strcmp(o->tag, tag))) {
		failures++;
		printf("FAIL %s must fail with %s, %s\n%s", rel, tag ? tag : "an error",
		       o->prog ? "parsed" : o->tag, o->err ? o->err : "");
		return;
	}
	got = printed(path, o->err, tagged);
	if (want && strncmp(got, want, strlen(want))) {
		failures++;
		printf("FAIL %s message:\n  want: %s  got:  %s", rel, want, got);
		return;
	}
	st->err_ok++;
}

static void suite_file(struct suite *st, const char *root, const char *cat, const char *file)
{
	char *rel = xasprintf("%s/%s", cat, file), *dir = xasprintf("%s/test/unittest/%s", root, cat);
	char *path = xasprintf("%s/%s", dir, file), *text = read_file(path, NULL);
	char *script = xasprintf("test/unittest/%s", rel);
	bool is_err = !strncmp(file, "err.", 4);
	char tag[64] = "";
	const char *untagged_tag = NULL;
	struct d_parse_args a;
	strvec argv = { 0 };
	struct outcome o;

	if (!text)
		return;
	for (size_t i = 0; known[i].test; i++)
		if (!strcmp(known[i].test, rel)) {
			st->known++;
			return;
		}
	switch (test_args(dir, text, &a, &argv)) {
	case ARGS_CPP:
		st->skipped_cpp++;
		return;
	case ARGS_NOT_D:
		st->not_d++;
		return;
	default:
		break;
	}
	o = run(script, text, &a);
	if (is_err && !strncmp(file, "err.D_", 6)) {
		sscanf(file + 4, "%63[A-Z_0-9]", tag);
		if (tag[strlen(tag) - 1] == '_')
			tag[strlen(tag) - 1] = 0;
		if (parser_tag(tag) &&
		    !listed(checker_tests, sizeof(checker_tests) / sizeof(checker_tests[0]), rel)) {
			check_error(st, rel, path, &o, tag, true);
			return;
		}
	} else if (is_err) {
		bool listed_untagged = false;

		for (size_t i = 0; untagged[i].test; i++)
			if (!strcmp(untagged[i].test, rel)) {
				untagged_tag = untagged[i].tag;
				listed_untagged = true;
			}
		if (untagged_tag || (!listed_untagged && expected_message(path))) {
			check_error(st, rel, path, &o, untagged_tag, false);
			return;
		}
	}
	/* a tst, or an error that is the checker's: the parse gets through */
	if (is_err)
		st->other_err++;
	else
		st->tst++;
	if (o.prog) {
		if (is_err)
			st->other_ok++;
		else
			st->tst_ok++;
	} else {
		failures++;
		printf("FAIL %s must parse (%s):\n%s", rel, tag[0] ? tag : is_err ? "err" : "tst", o.err);
	}
}

static int run_suite(const char *root)
{
	char *unit = xasprintf("%s/test/unittest", root);
	strvec cats = { 0 };
	struct suite st = { 0 };

	if (!dir_entries(unit, &cats))
		return 77;
	for (int i = 0; i < cats.len; i++) {
		strvec files = { 0 };
		const char *cat = strrchr(cats.items[i], '/') + 1;

		dir_entries(cats.items[i], &files);
		for (int j = 0; j < files.len; j++) {
			const char *f = strrchr(files.items[j], '/') + 1;
			size_t n = strlen(f);

			if (n > 2 && !strcmp(f + n - 2, ".d") && (!strncmp(f, "tst.", 4) || !strncmp(f, "err.", 4)))
				suite_file(&st, root, cat, f);
		}
	}
	printf("dtrace suite: tst %d/%d parse; err of the parser %d/%d with DTrace's tag and "
	       "message; other err %d/%d parse; %d need cpp and %d compile no D (left out); "
	       "%d known differences\n", st.tst_ok, st.tst, st.err_ok, st.err, st.other_ok,
	       st.other_err, st.skipped_cpp, st.not_d, st.known);
	return 0;
}

int main(int argc, char **argv)
{
	const char *root;
	struct stat sb;
	int rc;

	if (argc == 3 && (!strcmp(argv[1], "-e") || !strcmp(argv[1], "-f"))) {
		const char *text = !strcmp(argv[1], "-e") ? argv[2] : read_file(argv[2], NULL);
		struct outcome o = run(argv[2], text ? text : "", &file_args);

		fputs(o.prog ? o.dump : o.err, stdout);
		return o.prog ? 0 : 1;
	}
	test_types();
	test_expressions();
	test_descriptions();
	test_declarations();
	test_errors();
	printf("inline: %d/%d\n", checks - failures, checks);
	root = argc > 1 ? argv[1] : D_TESTSUITE_DIR;
	if (stat(root, &sb) != 0) {
		printf("SKIP: no DTrace test suite at %s\n", root);
		return failures ? 1 : 77;
	}
	rc = run_suite(root);
	return failures ? 1 : rc;
}
