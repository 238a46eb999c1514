/* sem_mutate.c - makes scripts for the pass 2/3 fuzzer (sem-fuzz.sh): real
 * scripts mutated at the token level, and scripts generated from the grammar.
 *
 *   sem_mutate [-q] -s SEED -n COUNT [-i FIRST] -o DIR FILE...
 *
 * writes DIR/SEED-I.stp for I = FIRST .. FIRST+COUNT-1. Mutant I depends only
 * on SEED, I and the FILE list (in order), so one input can be made again
 * with -i I -n 1. Every fourth input is generated from the grammar; the
 * others take one FILE and apply 1-4 of: swap, delete or duplicate tokens;
 * replace an identifier by another one (of any FILE) or by a literal of
 * another type; replace a number, string or operator by an "interesting"
 * one; splice a statement or a whole declaration from another FILE.
 *
 * Line 1 of each output is "#! stap -p3 OPTIONS" (conformance-parse.sh's
 * convention): guru mode, -u, -w, --compatible=V are picked at random, or
 * kept from the FILE's own "#! stap" line.
 *
 * -q (quick): probe points other than begin/end/error/never/timer/perf/procfs
 * in the script are replaced by cheap ones, because elaborating
 * kernel.function probes against the kernel's DWARF costs seconds per run.
 * Tapset aliases' bodies are still pulled in through the functions they use.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum kind { T_ID, T_NUM, T_STR, T_OP, T_EMBED, T_DOLLAR, T_AT };

struct tok {
	enum kind kind;
	const char *s;
	int len;
};

struct file {
	const char *name;
	char *text;
	char opts[256];       /* options from its "#! stap" line (no -p) */
	struct tok *toks;
	int ntoks;
};

static struct file *files;
static int nfiles;
static struct tok **pool;    /* every identifier, number, string, $/@ name */
static int npool, apool;
static struct tok **ids;     /* every identifier */
static int nids, aids;

/* ---- random numbers: splitmix64, one stream per input ------------------- */

static uint64_t rng;

static uint64_t next64(void)
{
	uint64_t z = (rng += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static int rnd(int n)
{
	return n <= 0 ? 0 : (int)(next64() % (uint64_t)n);
}

static const char *pick(const char *const *v, int n)
{
	return v[rnd(n)];
}
#define PICK(v) pick(v, (int)(sizeof(v) / sizeof((v)[0])))

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		perror("sem_mutate");
		exit(2);
	}
	return p;
}

/* ---- a rough lexer: enough to cut SystemTap source into tokens ---------- */

static const char *const ops[] = {
	"<<<", ">>=", "<<=", "...", "->", "++", "--", "==", "!=", "<=", ">=", "&&",
	"||", "<<", ">>", "+=", "-=", "*=", "/=", "%=", ".=", "&=", "|=", "^=", "!~",
	"=~", "%(", "%?", "%:", "%)", "::",
};

static void add_tok(struct file *f, enum kind k, const char *s, int len, int *alloc)
{
	if (f->ntoks == *alloc) {
		*alloc = *alloc ? 2 * *alloc : 256;
		f->toks = xrealloc(f->toks, *alloc * sizeof(*f->toks));
	}
	f->toks[f->ntoks++] = (struct tok){ k, s, len };
}

static void lex(struct file *f)
{
	const char *p = f->text;
	int alloc = 0;

	while (*p) {
		const char *b = p;

		if (isspace((unsigned char)*p)) {
			p++;
		} else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
			while (*p && *p != '\n')
				p++;
		} else if (p[0] == '/' && p[1] == '*') {
			const char *e = strstr(p + 2, "*/");
			p = e ? e + 2 : p + strlen(p);
		} else if (p[0] == '%' && p[1] == '{') {
			const char *e = strstr(p + 2, "%}");
			p = e ? e + 2 : p + strlen(p);
			add_tok(f, T_EMBED, b, (int)(p - b), &alloc);
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
			if (*p)
				p++;
			add_tok(f, T_STR, b, (int)(p - b), &alloc);
		} else if (isdigit((unsigned char)*p)) {
			while (isalnum((unsigned char)*p))
				p++;
			add_tok(f, T_NUM, b, (int)(p - b), &alloc);
		} else if (isalpha((unsigned char)*p) || *p == '_' || *p == '$' || *p == '@') {
			enum kind k = *p == '$' ? T_DOLLAR : *p == '@' ? T_AT : T_ID;

			p++;
			while (isalnum((unsigned char)*p) || *p == '_' || *p == '$')
				p++;
			add_tok(f, k, b, (int)(p - b), &alloc);
		} else {
			int len = 1;

			for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
				if (!strncmp(p, ops[i], strlen(ops[i]))) {
					len = (int)strlen(ops[i]);
					break;
				}
			p += len;
			add_tok(f, T_OP, b, len, &alloc);
		}
	}
}

static int is(const struct tok *t, const char *s)
{
	return t->len == (int)strlen(s) && !memcmp(t->s, s, t->len);
}

static char *read_file(const char *path)
{
	FILE *fp = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!fp)
		return NULL;
	do {
		cap += 65536;
		buf = xrealloc(buf, cap + 1);
		r = fread(buf + n, 1, cap - n, fp);
		n += r;
	} while (r > 0);
	fclose(fp);
	buf[n] = 0;
	return buf;
}

/* The "#! stap" line's options that matter at -p3 (-g, -u, --compatible...). */
static void first_line_opts(struct file *f)
{
	const char *p = f->text, *e;
	char word[128];

	f->opts[0] = 0;
	if (strncmp(p, "#!", 2))
		return;
	p += 2;
	while (*p == ' ')
		p++;
	if (strncmp(p, "stap", 4))
		return;
	p += 4;
	e = strchr(p, '\n');
	if (!e)
		e = p + strlen(p);
	while (p < e) {
		int n = 0;

		while (p < e && *p == ' ')
			p++;
		while (p < e && *p != ' ' && n < (int)sizeof(word) - 1)
			word[n++] = *p++;
		word[n] = 0;
		if (!strcmp(word, "-g") || !strcmp(word, "-u") || !strcmp(word, "-w") ||
		    !strncmp(word, "--compatible", 12) || !strcmp(word, "--skip-badvars")) {
			strcat(f->opts, " ");
			strncat(f->opts, word, sizeof(f->opts) - strlen(f->opts) - 2);
		}
	}
}

/* ---- the output --------------------------------------------------------- */

static struct tok *out;
static int nout, aout;

static void emit(struct tok t)
{
	if (nout == aout) {
		aout = aout ? 2 * aout : 1024;
		out = xrealloc(out, aout * sizeof(*out));
	}
	out[nout++] = t;
}

static struct tok lit(enum kind k, const char *s)
{
	return (struct tok){ k, s, (int)strlen(s) };
}

static const char *const numbers[] = {
	"0", "1", "-1", "2", "63", "64", "65", "255", "256", "4096", "0x7fffffffffffffff",
	"9223372036854775807", "-9223372036854775808", "18446744073709551615",
	"18446744073709551616", "0x8000000000000000", "0777", "08", "1000000000", "-2147483648",
	"4294967296", "0xffffffff", "100000",
};
static const char *const strings[] = {
	"\"\"", "\"%s\"", "\"%d%d%d%d\"", "\"%*s\"", "\"%-*.*d\"", "\"%p%x%X%o%u%c%b\"",
	"\"%\"", "\"%%\"", "\"%10000000000d\"", "\"%M\"", "\"%m\"", "\"%.*M\"", "\"\\x\"",
	"\"\\777\"", "\"a\\0b\"", "\"kernel\"", "\"*\"", "\"task_struct\"", "\"<linux/sched.h>\"",
	"\"kernel<linux/sched.h>\"", "\"(\"", "\"[a-\"", "\"^(a|b)*$\"", "\"\\\\\"",
	"\"%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s\"",
	"\"vfs_read\"", "\"sys_*\"", "\"@1\"", "\"$1\"",
};
static const char *const operators[] = {
	"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "&&", "||", "==", "!=", "<",
	">", "<=", ">=", "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "|=", "^=",
	".=", ".", "<<<", "=~", "!~", "!", "~", "++", "--", "?", ":", ",", ";", "->", "in",
	"(", ")", "[", "]", "{", "}", "$", "@", "...",
};
static const char *const specials[] = {
	"$$vars", "$$parms", "$$locals", "$$return", "$return", "$task", "$1", "$2", "$#",
	"@1", "@2", "@#", "$$vars$$", "$var->field", "@entry", "@var", "@cast", "@defined",
	"@probewrite", "@count", "@sum", "@min", "@max", "@avg", "@variance", "@hist_linear",
	"@hist_log", "@const", "@kregister", "@uregister", "@choose_defined", "@module",
	"@perf", "@this",
};
static const char *const keywords[] = {
	"probe", "global", "private", "function", "if", "else", "while", "for", "foreach",
	"in", "limit", "try", "catch", "delete", "return", "break", "continue", "next",
	"string", "long", "%{ STAP_RETVALUE = 0; %}", "%{ /* pure */ %}",
};

static int find_matching(const struct file *f, int i, int limit);

static int keyword(const struct tok *t)
{
	for (size_t k = 0; k < sizeof(keywords) / sizeof(keywords[0]); k++)
		if (is(t, keywords[k]))
			return 1;
	return 0;
}

static void mutate_one(const struct file *self)
{
	int n = nout, i, j, len;

	if (!n)
		return;
	i = rnd(n);
	/* weights: most mutations keep the syntax, so that pass 2 sees them */
	switch (rnd(22)) {
	case 0: /* swap two tokens */
		j = rnd(n);
		{
			struct tok t = out[i];
			out[i] = out[j];
			out[j] = t;
		}
		break;
	case 1: /* delete a run */
		len = 1 + rnd(rnd(4) ? 2 : 12);
		if (i + len > n)
			len = n - i;
		memmove(out + i, out + i + len, (n - i - len) * sizeof(*out));
		nout -= len;
		break;
	case 2: /* duplicate a run */
		len = 1 + rnd(rnd(4) ? 3 : 30);
		if (i + len > n)
			len = n - i;
		for (j = 0; j < len; j++)
			emit(out[i + j]);
		memmove(out + i + 2 * len, out + i + len, (n - i - len) * sizeof(*out));
		memcpy(out + i + len, out + i, len * sizeof(*out));
		break;
	case 3: case 4: case 12: case 13: case 14: case 15:
		/* an identifier becomes another name (of this file: still resolves;
		 * of any file: tapset functions, other types) or a literal */
		for (j = 0; j < n && (out[(i + j) % n].kind != T_ID || keyword(&out[(i + j) % n])); j++)
			;
		i = (i + j) % n;
		if (i + 1 < n && is(&out[i + 1], "(")) { /* a call: another function */
			out[i] = *ids[rnd(nids)];
			break;
		}
		switch (rnd(10)) {
		case 0: case 1: case 2: out[i] = self->toks[rnd(self->ntoks)]; break;
		case 3: out[i] = *pool[rnd(npool)]; break;
		case 4: out[i] = *ids[rnd(nids)]; break;
		case 5: case 6: out[i] = lit(T_NUM, PICK(numbers)); break;
		case 7: out[i] = lit(T_STR, PICK(strings)); break;
		case 8: out[i] = lit(T_DOLLAR, PICK(specials)); break;
		default: out[i] = lit(T_ID, PICK(keywords)); break;
		}
		break;
	case 16: case 17: { /* a whole statement goes */
		int a, b;

		for (j = 0; j < n && !is(&out[(i + j) % n], ";") && !is(&out[(i + j) % n], "{"); j++)
			;
		a = (i + j) % n + 1;
		for (b = a, j = 0; b < n; b++) {
			if (is(&out[b], "{") || is(&out[b], "(") || is(&out[b], "["))
				j++;
			else if ((is(&out[b], "}") || is(&out[b], ")") || is(&out[b], "]")) && --j < 0)
				break;
			else if (is(&out[b], ";") && !j) {
				b++;
				break;
			}
		}
		if (a < b && b <= n) {
			memmove(out + a, out + b, (n - b) * sizeof(*out));
			nout -= b - a;
		}
		break;
	}
	case 18: case 19: /* a binary operator becomes another */
		for (j = 0; j < n; j++) {
			static const char *const bin[] = { "+", "-", "*", "/", "%", "<<", ">>", "&", "|",
				"^", "&&", "||", "==", "!=", "<", ">", "<=", ">=", ".", "=~", "!~" };
			struct tok *t = &out[(i + j) % n];

			for (size_t k = 0; k < sizeof(bin) / sizeof(bin[0]); k++)
				if (t->kind == T_OP && is(t, bin[k])) {
					*t = lit(T_OP, PICK(bin));
					return;
				}
		}
		break;
	case 5: case 20: case 21: /* a literal changes type or value */
		for (j = 0; j < n && out[(i + j) % n].kind != T_NUM && out[(i + j) % n].kind != T_STR; j++)
			;
		i = (i + j) % n;
		out[i] = rnd(2) ? lit(T_NUM, PICK(numbers)) : lit(T_STR, PICK(strings));
		break;
	case 6: /* an operator becomes another */
		for (j = 0; j < n && out[(i + j) % n].kind != T_OP; j++)
			;
		out[(i + j) % n] = lit(T_OP, PICK(operators));
		break;
	case 7: /* any token becomes a $/@ thing */
		out[i] = lit(T_DOLLAR, PICK(specials));
		break;
	case 8: case 9: { /* splice a statement of another file after a ';' or '{' */
		const struct file *g = &files[rnd(nfiles)];
		int a, b;

		if (!g->ntoks)
			break;
		for (j = 0; j < n && !is(&out[(i + j) % n], ";") && !is(&out[(i + j) % n], "{"); j++)
			;
		i = (i + j) % n + 1;
		a = rnd(g->ntoks);
		for (j = 0; j < g->ntoks && !is(&g->toks[(a + j) % g->ntoks], ";") &&
			    !is(&g->toks[(a + j) % g->ntoks], "{"); j++)
			;
		a = (a + j) % g->ntoks + 1;
		b = find_matching(g, a, 80);
		for (j = a; j < b; j++)
			emit(g->toks[j]);
		len = b - a;
		if (len <= 0 || i > n)
			break;
		memmove(out + i + len, out + i, (n - i) * sizeof(*out));
		memcpy(out + i, g->toks + a, len * sizeof(*out));
		break;
	}
	default: { /* append a whole declaration of another file */
		const struct file *g = &files[rnd(nfiles)];
		int a, d = 0;

		if (!g->ntoks)
			break;
		a = rnd(g->ntoks);
		for (j = 0; j < g->ntoks; j++) {
			const struct tok *t = &g->toks[(a + j) % g->ntoks];
			if (is(t, "probe") || is(t, "function") || is(t, "global"))
				break;
		}
		a = (a + j) % g->ntoks;
		/* up to the brace that closes its body (or a few tokens for a global) */
		for (j = a; j < g->ntoks && j < a + 400; j++) {
			emit(g->toks[j]);
			if (is(&g->toks[j], "{"))
				d++;
			else if (is(&g->toks[j], "}") && --d <= 0)
				break;
			else if (!d && j > a && (is(&g->toks[j], "probe") || is(&g->toks[j], "function")))
				break;
		}
		break;
	}
	}
}

/* End of the statement starting at token i of f: the ';' or unbalanced '}'
 * at its own nesting level, at most limit tokens on. */
static int find_matching(const struct file *f, int i, int limit)
{
	int d = 0, j;

	for (j = i; j < f->ntoks && j < i + limit; j++) {
		const struct tok *t = &f->toks[j];

		if (is(t, "{") || is(t, "(") || is(t, "["))
			d++;
		else if (is(t, "}") || is(t, ")") || is(t, "]")) {
			if (--d < 0)
				return j;
		} else if (is(t, ";") && !d)
			return j + 1;
	}
	return j;
}

static const char *const cheap_points[] = {
	"begin", "end", "error", "never", "begin(-1)", "end(5)", "timer.ms(100)",
	"timer.s(1)", "timer.jiffies(10)", "timer.profile", "timer.us(50).randomize(10)",
	"perf.sw.cpu_clock.sample(1000000)", "procfs(\"f\").read", "procfs.write",
	"timer.hz(1000000000000)", "timer.ns(-1)", "begin, end", "end?", "timer.ms(0)",
};

/* A cheap point, half the time with edge-case numbers and strings in it. */
static const char *cheap_point(void)
{
	static const char *const shapes[] = {
		"timer.s(%s)", "timer.ms(%s).randomize(%s)", "timer.jiffies(%s).randomize(%s)",
		"timer.hz(%s)", "timer.ns(%s)", "timer.profile.freq.hz(%s)", "begin(%s)", "end(%s)",
		"error(%s)", "perf.type(%s).config(%s).sample(%s)", "perf.sw.cpu_clock.hz(%s)",
		"perf.hw.cpu_cycles.sample(%s)", "procfs(%S).read.maxsize(%s)", "procfs(%S).umask(%s).write",
	};
	const char *f = PICK(shapes);
	char buf[512];
	size_t n = 0;

	if (rnd(2))
		return PICK(cheap_points);
	for (; *f && n < sizeof(buf) - 128; f++) {
		if (f[0] == '%' && (f[1] == 's' || f[1] == 'S')) {
			n += snprintf(buf + n, sizeof(buf) - n, "%s", f[1] == 's' ? PICK(numbers) : PICK(strings));
			f++;
		} else
			buf[n++] = *f;
	}
	buf[n] = 0;
	return strdup(buf);   /* kept until exit: inputs are small */
}

static int cheap(const struct tok *t)
{
	static const char *const ok[] = { "begin", "end", "error", "never", "timer", "perf", "procfs" };

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (is(t, ok[i]))
			return 1;
	return 0;
}

/* -q: "probe P, Q {" with expensive points becomes "probe CHEAP {"; alias
 * definitions (probe a = b) are left alone. */
static void cheapen(void)
{
	int n = 0;

	for (int i = 0; i < nout; i++) {
		out[n++] = out[i];
		if (!is(&out[i], "probe") || i + 1 >= nout)
			continue;
		int j = i + 1, costly = 0;
		while (j < nout && !is(&out[j], "{") && !is(&out[j], "=") && !is(&out[j], "+=")) {
			if (out[j].kind == T_ID && (j == i + 1 || is(&out[j - 1], ",")) && !cheap(&out[j]))
				costly = 1;
			j++;
		}
		if (j >= nout || !costly || !is(&out[j], "{"))
			continue;
		out[n++] = lit(T_ID, cheap_point());
		i = j - 1;
	}
	nout = n;
}

static void write_toks(FILE *fp)
{
	int col = 0;

	for (int i = 0; i < nout; i++) {
		const struct tok *t = &out[i];

		fprintf(fp, "%s%.*s", col ? " " : "", t->len, t->s);
		col += t->len + 1;
		if (is(t, ";") || is(t, "{") || is(t, "}") || col > 100 || t->kind == T_EMBED) {
			fputc('\n', fp);
			col = 0;
		}
	}
	fputc('\n', fp);
}

/* ---- scripts from the grammar ------------------------------------------- */

static FILE *g;
static int nglobals, nfuncs;

static const char *const tapset_funcs[] = {
	"pid()", "tid()", "execname()", "gettimeofday_ns()", "cpu()", "jiffies()",
	"get_cycles()", "pp()", "probefunc()", "backtrace()", "print_backtrace()",
	"ubacktrace()", "target()", "is_return()", "uid()", "pexecname()", "ppid()",
	"caller()", "stack_size()", "user_mode()", "module_name()", "exit()",
	"randint(10)", "strlen(\"abc\")", "substr(\"abcdef\", 2, 3)", "isinstr(\"a\", \"b\")",
	"strtol(\"12\", 10)", "kernel_string(0)", "user_string(0)", "kernel_long(0)",
	"text_str(\"x\")", "sprint(1)", "sprintf(\"%d\", 1)", "str_replace(\"a\", \"b\", \"c\")",
	"tokenize(\"a b\", \" \")", "ktime_get_ns()", "local_clock_ns()", "error(\"e\")",
	"warn(\"w\")", "abort()", "task_current()", "task_pid(task_current())", "usymname(0)",
	"symname(0)", "symdata(0)", "ansi_clear_screen()", "log(\"l\")", "env_var(\"PATH\")",
	"cmdline_str()", "set_kernel_long(0, 1)", "stp_pid()", "ns_pid()", "matched(0)",
	"ngroups()", "nsecs_to_string(5)", "errno_str(5)", "returnstr(1)", "u64_arg(1)",
	"register(\"rax\")", "proc_mem_size()", "MAJOR(5)", "json_output_data()",
};

static void gexpr(int d);

static void gvar(void)
{
	int r = rnd(10);

	if (r < 4 && nglobals)
		fprintf(g, "g%d", rnd(nglobals));
	else if (r < 5 && nglobals)
		fprintf(g, "g%d[%d]", rnd(nglobals), rnd(3));
	else
		fprintf(g, "l%d", rnd(4));
}

static void gexpr(int d)
{
	if (d <= 0) {
		switch (rnd(6)) {
		case 0: fputs(PICK(numbers), g); break;
		case 1: fputs(PICK(strings), g); break;
		case 2: fputs(PICK(tapset_funcs), g); break;
		case 3: fputs(rnd(4) ? "$1" : "@1", g); break;
		default: gvar(); break;
		}
		return;
	}
	switch (rnd(18)) {
	case 0:
		fputc('(', g);
		gexpr(d - 1);
		fprintf(g, " %s ", PICK(operators) /* mostly nonsense: tagged errors */);
		gexpr(d - 1);
		fputc(')', g);
		break;
	case 1: case 2: case 3: {
		static const char *const bin[] = { "+", "-", "*", "/", "%", "<<", ">>", "&", "|",
			"^", "&&", "||", "==", "!=", "<", ">", "<=", ">=", ".", "=~" };
		fputc('(', g);
		gexpr(d - 1);
		fprintf(g, " %s ", PICK(bin));
		gexpr(d - 1);
		fputc(')', g);
		break;
	}
	case 4: {
		static const char *const un[] = { "-", "!", "~", "+", "++", "--", "&" };
		fprintf(g, "%s", PICK(un));
		gexpr(d - 1);
		break;
	}
	case 5:
		fputc('(', g);
		gexpr(d - 1);
		fputs(" ? ", g);
		gexpr(d - 1);
		fputs(" : ", g);
		gexpr(d - 1);
		fputc(')', g);
		break;
	case 6:
		if (nfuncs) {
			fprintf(g, "f%d(", rnd(nfuncs));
			for (int i = rnd(4); i > 0; i--) {
				gexpr(d - 1);
				if (i > 1)
					fputs(", ", g);
			}
			fputc(')', g);
		} else
			fputs(PICK(tapset_funcs), g);
		break;
	case 7: {
		static const char *const st[] = { "@count", "@sum", "@min", "@max", "@avg", "@variance" };
		fprintf(g, "%s(g%d)", PICK(st), rnd(nglobals ? nglobals : 1));
		break;
	}
	case 8:
		fputc('(', g);
		gvar();
		fprintf(g, " %s ", rnd(2) ? "=" : PICK(operators));
		gexpr(d - 1);
		fputc(')', g);
		break;
	case 9:
		fputs("sprintf(", g);
		fputs(PICK(strings), g);
		for (int i = rnd(4); i > 0; i--) {
			fputs(", ", g);
			gexpr(d - 1);
		}
		fputc(')', g);
		break;
	case 10:
		fprintf(g, "([");
		gexpr(d - 1);
		fprintf(g, "] in g%d)", rnd(nglobals ? nglobals : 1));
		break;
	case 11: {
		static const char *const casts[] = {
			"@cast(%s, \"task_struct\")->pid", "@cast(%s, \"task_struct\", \"kernel\")->comm",
			"@cast(%s, \"sockaddr_un\", \"<sys/un.h>\")->sun_family",
			"&@cast(%s, \"task_struct\")->fs", "@cast(%s, \"nosuchtype\")->x",
			"@cast(%s, \"task_struct\")->mm->mmap_base", "@cast(%s, \"int\")[3]",
			"@defined(%s)", "@choose_defined(%s, 1)", "@cast(%s, \"task_struct\")$",
			"@cast(%s, \"task_struct\")$$", "(%s)->foo", "@var(\"jiffies\")",
		};
		fputc('(', g);
		fprintf(g, PICK(casts), "0");
		fputc(')', g);
		break;
	}
	case 12:
		fputs(PICK(specials), g);
		break;
	default:
		gexpr(0);
		break;
	}
}

static void gstmt(int d, int in_loop, int in_func);

static void gblock(int d, int in_loop, int in_func)
{
	fputs("{\n", g);
	for (int i = rnd(4); i > 0; i--)
		gstmt(d - 1, in_loop, in_func);
	fputs("}\n", g);
}

static void gstmt(int d, int in_loop, int in_func)
{
	if (d <= 0) {
		gvar();
		fputs(" = ", g);
		gexpr(1);
		fputs("\n", g);
		return;
	}
	switch (rnd(20)) {
	case 0:
		fputs("if (", g);
		gexpr(d - 1);
		fputs(") ", g);
		gstmt(d - 1, in_loop, in_func);
		if (rnd(2)) {
			fputs(" else ", g);
			gstmt(d - 1, in_loop, in_func);
		}
		break;
	case 1:
		fputs("while (", g);
		gexpr(d - 1);
		fputs(") ", g);
		gstmt(d - 1, 1, in_func);
		break;
	case 2:
		fputs("for (", g);
		gvar();
		fputs(" = 0; ", g);
		gexpr(d - 1);
		fputs("; ", g);
		gvar();
		fputs("++) ", g);
		gstmt(d - 1, 1, in_func);
		break;
	case 3: {
		int gl = rnd(nglobals ? nglobals : 1);
		static const char *const fe[] = {
			"foreach (k in g%d%s) ", "foreach ([k, v] in g%d%s) ", "foreach (x = [k] in g%d%s) ",
			"foreach (k in g%d%s limit 3) ", "foreach (k in g%d[*]%s) ", "foreach ([k] in g%d %s) ",
		};
		static const char *const so[] = { "", "+", "-" };
		fprintf(g, PICK(fe), gl, PICK(so));
		gstmt(d - 1, 1, in_func);
		break;
	}
	case 4:
		fputs("try ", g);
		gblock(d - 1, in_loop, in_func);
		fputs(rnd(2) ? "catch (msg) " : "catch ", g);
		gblock(d - 1, in_loop, in_func);
		break;
	case 5:
		fprintf(g, "delete %s\n", rnd(2) ? "g0" : rnd(2) ? "g0[1]" : "l0");
		break;
	case 6:
		fputs(in_loop && rnd(4) ? (rnd(2) ? "break\n" : "continue\n") : "next\n", g);
		break;
	case 7:
		fputs("return ", g);
		if (in_func || rnd(3) == 0)
			gexpr(d - 1);
		fputs("\n", g);
		break;
	case 8:
		fprintf(g, "g%d <<< ", rnd(nglobals ? nglobals : 1));
		gexpr(d - 1);
		fputs("\n", g);
		break;
	case 9: {
		static const char *const pr[] = {
			"print(@hist_linear(g%d, 0, 100, 10))", "print(@hist_log(g%d))",
			"println(@count(g%d))", "printf(\"%%d\\n\", @max(g%d))",
			"print(@hist_linear(g%d, 0, 0, 0))", "print(@hist_linear(g%d, 10, 0, -1))",
		};
		fprintf(g, PICK(pr), rnd(nglobals ? nglobals : 1));
		fputs("\n", g);
		break;
	}
	case 10: case 11:
		fputs(rnd(2) ? "printf(" : "println(", g);
		fputs(PICK(strings), g);
		for (int i = rnd(4); i > 0; i--) {
			fputs(", ", g);
			gexpr(d - 1);
		}
		fputs(")\n", g);
		break;
	case 12:
		gblock(d, in_loop, in_func);
		break;
	case 13:
		fputs(";\n", g);
		break;
	case 14:
		fputs(rnd(2) ? "%{ /* guru */ %}\n" : "%( $# > 1 %? l0 = 1 %: l1 = 2 %)\n", g);
		break;
	default:
		gexpr(d);
		fputs("\n", g);
		break;
	}
}

static void generate(void)
{
	int nprobes = 1 + rnd(3);

	nglobals = rnd(4);
	nfuncs = rnd(4);
	for (int i = 0; i < nglobals; i++) {
		static const char *const gl[] = { "", "[100]", " = 5", " = \"s\"", "%", "%[10]" };
		fprintf(g, "%sglobal g%d%s\n", rnd(5) ? "" : "private ", i, PICK(gl));
	}
	if (rnd(3) == 0)
		fputs("@define m(a) %( @a + 1 %)\n", g);
	for (int i = 0; i < nfuncs; i++) {
		static const char *const ty[] = { "", ":long", ":string" };
		int np = rnd(4);

		fprintf(g, "function f%d%s(", i, PICK(ty));
		for (int p = 0; p < np; p++)
			fprintf(g, "%sl%d%s", p ? ", " : "", p, rnd(3) ? "" : PICK(ty));
		fputs(") ", g);
		if (rnd(6) == 0)
			fputs("%{ STAP_RETURN(0); %}\n", g);
		else
			gblock(3 + rnd(3), 0, 1);
	}
	for (int i = 0; i < nprobes; i++) {
		fprintf(g, "probe %s%s ", cheap_point(), rnd(6) ? "" : " if (g0 > 0)");
		gblock(3 + rnd(3), 0, 0);
	}
}

/* ---- main --------------------------------------------------------------- */

static const char *const extra_opts[] = {
	"", "", "-g", "-u", "-g -u", "-w", "--compatible=1.8", "--compatible=2.5",
	"--compatible=3.3", "-u -w", "--skip-badvars", "-g --compatible=4.0",
	"--check-version", "-W", "-g --suppress-time-limits",
};

int main(int argc, char **argv)
{
	unsigned long long seed = 1;
	long count = 100, first = 0;
	const char *dir = ".";
	int quick = 0, c;

	while ((c = getopt(argc, argv, "qs:n:i:o:")) != -1) {
		switch (c) {
		case 'q': quick = 1; break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'n': count = strtol(optarg, NULL, 0); break;
		case 'i': first = strtol(optarg, NULL, 0); break;
		case 'o': dir = optarg; break;
		default:
			fprintf(stderr, "usage: sem_mutate [-q] -s SEED -n COUNT [-i FIRST] -o DIR FILE...\n");
			return 2;
		}
	}
	for (int i = optind; i < argc; i++) {
		char *text = read_file(argv[i]);
		struct file *f;

		if (!text)
			continue;
		files = xrealloc(files, (nfiles + 1) * sizeof(*files));
		f = &files[nfiles++];
		*f = (struct file){ .name = argv[i], .text = text };
		first_line_opts(f);
		lex(f);
		for (int k = 0; k < f->ntoks; k++) {
			if (f->toks[k].kind == T_OP || f->toks[k].kind == T_EMBED)
				continue;
			if (npool == apool) {
				apool = apool ? 2 * apool : 4096;
				pool = xrealloc(pool, apool * sizeof(*pool));
			}
			pool[npool++] = &f->toks[k];
			if (f->toks[k].kind != T_ID || keyword(&f->toks[k]))
				continue;
			if (nids == aids) {
				aids = aids ? 2 * aids : 4096;
				ids = xrealloc(ids, aids * sizeof(*ids));
			}
			ids[nids++] = &f->toks[k];
		}
	}
	if (!nfiles || !nids) {
		fprintf(stderr, "sem_mutate: no input files\n");
		return 2;
	}
	for (long i = first; i < first + count; i++) {
		char path[4096];
		FILE *fp;

		rng = seed * 0x100000001B3ull ^ (uint64_t)i * 0x9E3779B97F4A7C15ull;
		snprintf(path, sizeof(path), "%s/%llu-%ld.stp", dir, seed, i);
		fp = fopen(path, "w");
		if (!fp) {
			perror(path);
			return 2;
		}
		if (i % 4 == 3) {
			fprintf(fp, "#! stap -p3 %s\n# generated from the grammar\n", PICK(extra_opts));
			g = fp;
			generate();
		} else {
			struct file *f = &files[rnd(nfiles)];
			const char *more = rnd(3) ? "" : PICK(extra_opts), *guru = "";

			nout = 0;
			for (int k = 0; k < f->ntoks; k++)
				emit(f->toks[k]);
			for (int m = rnd(3) ? 1 : 2 + rnd(3); m > 0; m--)
				mutate_one(f);
			if (quick)
				cheapen();
			/* embedded C needs guru mode: without it most mutants stop at pass 1 */
			for (int k = 0; k < nout && !strstr(f->opts, "-g"); k++)
				if (out[k].kind == T_EMBED)
					guru = " -g";
			fprintf(fp, "#! stap -p3%s%s %s\n# mutant of %s\n", f->opts, guru, more, f->name);
			write_toks(fp);
		}
		fclose(fp);
	}
	return 0;
}
