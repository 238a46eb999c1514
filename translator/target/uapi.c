/* uapi.c - the target kernel's constants, read from its headers (uapi.h).
 *
 * A preprocessor just big enough for the uapi headers: object-like
 * #defines (function-like ones count only for #ifdef), #undef, the
 * conditionals (#if expressions with defined(), numbers and the macros
 * read so far; unknown names are 0 as in cpp), #include of headers found
 * in the uapi folders, and the `enum { A = 1, B, ... }` constants of the
 * code that survives. Values are evaluated on demand, macros expanded
 * recursively; a body that is not an integer expression (casts, strings,
 * function-like macros) has no value. It reads as user space does:
 * __KERNEL__ is not defined; the target is x86-64.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "target/sysroot.h"
#include "kernel.h"
#include "uapi.h"

#define ARCH "x86"

struct cdef {
	char *name;
	char *body;        /* object-like macro's body; NULL: an enum constant */
	int64_t value;     /* enum constants */
	bool func;         /* function-like macro: defined, no value */
	bool dead;         /* #undef'd */
};

struct uapi {
	VEC(struct cdef *) defs;   /* definition order */
	struct cdef **tab;         /* open-addressing index by name (latest wins) */
	size_t tabsize;
	strvec roots;              /* the header tree's top folders */
	char *system;              /* no kbuild tree: the target system's root, whose
				      /usr/include has the uapi headers; else NULL */
	strvec seen;               /* files read (each once: include guards aside) */
	struct strbuf code;        /* the text outside directives, for enums */
};

static size_t hash(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

static struct cdef *lookup(struct uapi *u, const char *name, size_t len)
{
	size_t h = 5381;

	for (size_t i = 0; i < len; i++)
		h = h * 33 + (unsigned char)name[i];
	for (size_t i = h & (u->tabsize - 1);; i = (i + 1) & (u->tabsize - 1)) {
		struct cdef *d = u->tab[i];
		if (!d)
			return NULL;
		if (!strncmp(d->name, name, len) && !d->name[len])
			return d->dead ? NULL : d;
	}
}

static void define(struct uapi *u, struct cdef *d)
{
	if (2 * (size_t)(u->defs.len + 1) > u->tabsize) {
		free(u->tab);
		u->tabsize = u->tabsize ? 2 * u->tabsize : 1024;
		u->tab = xcalloc(u->tabsize, sizeof(*u->tab));
		for (int k = 0; k < u->defs.len; k++) {
			size_t i = hash(u->defs.items[k]->name) & (u->tabsize - 1);
			while (u->tab[i])
				i = (i + 1) & (u->tabsize - 1);
			u->tab[i] = u->defs.items[k];
		}
	}
	vec_push(&u->defs, d);
	size_t i = hash(d->name) & (u->tabsize - 1);
	while (u->tab[i] && strcmp(u->tab[i]->name, d->name))
		i = (i + 1) & (u->tabsize - 1);
	u->tab[i] = d;   /* a redefinition shadows the older entry */
}

/* ---- expressions ---------------------------------------------------- */

struct ev {
	struct uapi *u;
	const char *p;
	bool in_if;    /* #if: unknown names are 0; else they make it fail */
	bool bad;
	int depth;
};

static bool eval_text(struct uapi *u, const char *text, bool in_if, int depth, int64_t *out);
static int64_t ev_ternary(struct ev *e);

static void skip_ws(struct ev *e)
{
	while (isspace((unsigned char)*e->p))
		e->p++;
}

static bool ev_is(struct ev *e, const char *op)
{
	skip_ws(e);
	size_t n = strlen(op);
	if (strncmp(e->p, op, n))
		return false;
	/* "|" is not "||", "<" is not "<<" or "<=", "&" is not "&&" */
	if (n == 1 && strchr("|&<>", op[0]) && (e->p[1] == op[0] || e->p[1] == '='))
		return false;
	if (n == 1 && strchr("!=", op[0]) && e->p[1] == '=')
		return false;
	e->p += n;
	return true;
}

static int64_t ev_ident(struct ev *e)
{
	const char *s = e->p;

	while (isalnum((unsigned char)*e->p) || *e->p == '_')
		e->p++;
	size_t len = (size_t)(e->p - s);
	if (len == 7 && !strncmp(s, "defined", 7)) {
		skip_ws(e);
		bool paren = *e->p == '(';
		if (paren)
			e->p++;
		skip_ws(e);
		const char *n = e->p;
		while (isalnum((unsigned char)*e->p) || *e->p == '_')
			e->p++;
		bool def = lookup(e->u, n, (size_t)(e->p - n)) != NULL;
		skip_ws(e);
		if (paren && *e->p == ')')
			e->p++;
		return def;
	}
	struct cdef *d = lookup(e->u, s, len);
	int64_t v = 0;
	if (d && !d->body && !d->func)
		return d->value;
	if (d && d->body && !d->func && e->depth < 32 && eval_text(e->u, d->body, e->in_if, e->depth + 1, &v))
		return v;
	if (!e->in_if)
		e->bad = true;
	skip_ws(e);
	if (*e->p == '(')   /* a function-like macro's call, or a cast */
		e->bad = true;
	return 0;
}

/* After a '(': is this a cast, `(__force __poll_t)`, `(unsigned long)`?
 * Words that are no constants, maybe a '*', then ')' and an operand: step
 * past it (the value is taken as it is). */
static bool skip_cast(struct ev *e)
{
	const char *p = e->p;
	int words = 0;

	for (;;) {
		while (isspace((unsigned char)*p))
			p++;
		if (!(isalpha((unsigned char)*p) || *p == '_'))
			break;
		const char *w = p;
		while (isalnum((unsigned char)*p) || *p == '_')
			p++;
		struct cdef *d = lookup(e->u, w, (size_t)(p - w));
		if (d && (!d->body || (*d->body && !d->func)))
			return false;   /* a constant: a parenthesised expression (`__force` is empty) */
		words++;
	}
	while (*p == '*' || isspace((unsigned char)*p))
		p++;
	if (!words || *p != ')')
		return false;
	p++;
	while (isspace((unsigned char)*p))
		p++;
	if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '(' || *p == '-' || *p == '~'))
		return false;
	e->p = p;
	return true;
}

static int64_t ev_primary(struct ev *e)
{
	skip_ws(e);
	if (ev_is(e, "(")) {
		if (skip_cast(e))
			return ev_primary(e);
		int64_t v = ev_ternary(e);
		if (!ev_is(e, ")"))
			e->bad = true;
		return v;
	}
	if (ev_is(e, "-"))
		return -ev_primary(e);
	if (ev_is(e, "+"))
		return ev_primary(e);
	if (ev_is(e, "~"))
		return ~ev_primary(e);
	if (ev_is(e, "!"))
		return !ev_primary(e);
	if (isdigit((unsigned char)*e->p)) {
		char *end;
		uint64_t v = strtoull(e->p, &end, 0);
		e->p = end;
		while (*e->p == 'u' || *e->p == 'U' || *e->p == 'l' || *e->p == 'L')
			e->p++;
		return (int64_t)v;
	}
	if (isalpha((unsigned char)*e->p) || *e->p == '_')
		return ev_ident(e);
	e->bad = true;
	return 0;
}

/* binary operators, loosest first */
static const char *const levels[][5] = {
	{ "||" }, { "&&" }, { "|" }, { "^" }, { "&" }, { "==", "!=" },
	{ "<=", ">=", "<", ">" }, { "<<", ">>" }, { "+", "-" }, { "*", "/", "%" },
};
#define NLEVELS ((int)(sizeof(levels) / sizeof(levels[0])))

static int64_t apply(const char *op, int64_t a, int64_t b, bool *bad)
{
	switch (op[0]) {
	case '|': return op[1] ? (a || b) : (a | b);
	case '&': return op[1] ? (a && b) : (a & b);
	case '^': return a ^ b;
	case '=': return a == b;
	case '!': return a != b;
	case '<': return op[1] == '<' ? (int64_t)((uint64_t)a << (b & 63)) : op[1] ? a <= b : a < b;
	case '>': return op[1] == '>' ? a >> (b & 63) : op[1] ? a >= b : a > b;
	case '+': return (int64_t)((uint64_t)a + (uint64_t)b);
	case '-': return (int64_t)((uint64_t)a - (uint64_t)b);
	case '*': return (int64_t)((uint64_t)a * (uint64_t)b);
	default:
		if (!b) {
			*bad = true;
			return 0;
		}
		return op[0] == '/' ? a / b : a % b;
	}
}

static int64_t ev_binary(struct ev *e, int level)
{
	if (level == NLEVELS)
		return ev_primary(e);
	int64_t v = ev_binary(e, level + 1);
	for (;;) {
		const char *op = NULL;
		for (int i = 0; i < 5 && levels[level][i] && !op; i++)
			if (ev_is(e, levels[level][i]))
				op = levels[level][i];
		if (!op)
			return v;
		v = apply(op, v, ev_binary(e, level + 1), &e->bad);
	}
}

static int64_t ev_ternary(struct ev *e)
{
	int64_t c = ev_binary(e, 0);

	if (!ev_is(e, "?"))
		return c;
	int64_t a = ev_ternary(e);
	if (!ev_is(e, ":"))
		e->bad = true;
	int64_t b = ev_ternary(e);
	return c ? a : b;
}

static bool eval_text(struct uapi *u, const char *text, bool in_if, int depth, int64_t *out)
{
	struct ev e = { .u = u, .p = text, .in_if = in_if, .depth = depth };

	skip_ws(&e);
	if (!*e.p)
		return false;
	*out = ev_ternary(&e);
	skip_ws(&e);
	return !e.bad && !*e.p;
}

/* ---- files ------------------------------------------------------------ */

/* Where <rel> is: the uapi folders first (generated ones too), then,
 * when kernel is set, the kernel's own include folders. */
static char *find_header(struct uapi *u, const char *rel, bool kernel)
{
	/* kernel: the kernel's own folders only (a header that has a uapi
	 * namesake, as linux/socket.h), else the uapi folders */
	static const char *const uapi_dirs[] = { "arch/" ARCH "/include/generated/uapi", "arch/" ARCH "/include/uapi",
		"include/generated/uapi", "include/uapi", NULL };
	static const char *const kernel_dirs[] = { "arch/" ARCH "/include", "include", NULL };
	/* this system's copy of the kernel's uapi headers (linux-libc-dev),
	 * and the C library's for the two kernel-only ones */
	static const char *const system_dirs[] = { "/usr/include/x86_64-linux-gnu", "/usr/include", NULL };
	static const char *const system_for[][2] = { { "linux/socket.h", "bits/socket.h" },
						     { "linux/net.h", "bits/socket_type.h" } };
	struct stat st;

	if (u->system) {
		for (size_t i = 0; kernel && i < sizeof(system_for) / sizeof(system_for[0]); i++)
			if (!strcmp(rel, system_for[i][0]))
				rel = system_for[i][1];
		for (const char *const *d = system_dirs; *d; d++) {
			char *p = xasprintf("%s%s/%s", u->system, *d, rel);
			if (!stat(p, &st))
				return p;
			free(p);
		}
		return NULL;
	}
	for (int pass = kernel; pass < 2; pass++)
		for (int r = 0; r < u->roots.len; r++)
			for (const char *const *d = pass ? kernel_dirs : uapi_dirs; *d; d++) {
				char *p = xasprintf("%s/%s/%s", u->roots.items[r], *d, rel);
				if (!stat(p, &st))
					return p;
				free(p);
			}
	return NULL;
}

/* The text with comments and line continuations gone. */
static char *clean(const char *t)
{
	struct strbuf o = STRBUF_INIT;

	for (const char *p = t; *p; p++) {
		if (p[0] == '\\' && p[1] == '\n') {
			p++;
			continue;
		}
		if (p[0] == '/' && p[1] == '*') {
			const char *end = strstr(p + 2, "*/");
			strbuf_addch(&o, ' ');
			if (!end)
				break;
			for (const char *q = p; q < end; q++)   /* keep the lines */
				if (*q == '\n')
					strbuf_addch(&o, '\n');
			p = end + 1;
			continue;
		}
		if (p[0] == '/' && p[1] == '/') {
			while (p[1] && p[1] != '\n')
				p++;
			continue;
		}
		if (*p == '"' || *p == '\'') {   /* copy literals whole */
			char q = *p;
			strbuf_addch(&o, *p);
			while (p[1] && p[1] != q && p[1] != '\n') {
				if (p[1] == '\\' && p[2])
					strbuf_addch(&o, *++p);
				strbuf_addch(&o, *++p);
			}
			if (p[1] == q)
				strbuf_addch(&o, *++p);
			continue;
		}
		strbuf_addch(&o, *p);
	}
	return strbuf_detach(&o);
}

static char *word(const char **pp)
{
	const char *p = *pp, *s;

	while (isspace((unsigned char)*p))
		p++;
	s = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	*pp = p;
	return xstrndup(s, (size_t)(p - s));
}

static void read_header(struct uapi *u, const char *rel, bool kernel, bool follow);


/* One directive line (after the '#'); active: the enclosing conditionals
 * hold. The conditional stack: bit 0 this branch is on, bit 1 a branch
 * of this #if was taken already, bit 2 the #if itself is live. */
static void directive(struct uapi *u, const char *p, uint8_t *stack, int *sp, bool kernel, bool follow)
{
	bool live = *sp == 0 || (stack[*sp - 1] & 1);
	char *dir = word(&p);
	int64_t v = 0;

	if (!strcmp(dir, "if") || !strcmp(dir, "ifdef") || !strcmp(dir, "ifndef")) {
		bool on = false;
		if (live && dir[2] == 0) {
			on = eval_text(u, p, true, 0, &v) && v;
		} else if (live) {
			char *n = word(&p);
			on = (lookup(u, n, strlen(n)) != NULL) == (dir[2] == 'd');
			free(n);
		}
		if (*sp < 64)
			stack[(*sp)++] = (uint8_t)(on | (on << 1) | (live << 2));
	} else if (!strcmp(dir, "elif") && *sp) {
		uint8_t *t = &stack[*sp - 1];
		bool on = (*t & 4) && !(*t & 2) && eval_text(u, p, true, 0, &v) && v;
		*t = (uint8_t)((*t & ~1) | on | (on << 1));
	} else if (!strcmp(dir, "else") && *sp) {
		uint8_t *t = &stack[*sp - 1];
		bool on = (*t & 4) && !(*t & 2);
		*t = (uint8_t)((*t & ~1) | on | 2);
	} else if (!strcmp(dir, "endif") && *sp) {
		(*sp)--;
	} else if (!live) {
		/* nothing else counts in a skipped branch */
	} else if (!strcmp(dir, "define")) {
		struct cdef *d = xcalloc(1, sizeof(*d));
		d->name = word(&p);
		d->func = *p == '(';
		while (*p == ' ' || *p == '\t')
			p++;
		d->body = xstrdup(d->func ? "" : p);
		if (*d->name)
			define(u, d);
	} else if (!strcmp(dir, "undef")) {
		char *n = word(&p);
		struct cdef *d = lookup(u, n, strlen(n));
		if (d)
			d->dead = true;
		free(n);
	} else if (!strcmp(dir, "include") && follow) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '<' || *p == '"') {
			const char *e = strchr(p + 1, *p == '<' ? '>' : '"');
			if (e) {
				char *rel = xstrndup(p + 1, (size_t)(e - p - 1));
				read_header(u, rel, kernel, true);
				free(rel);
			}
		}
	}
	free(dir);
}

static void read_header(struct uapi *u, const char *rel, bool kernel, bool follow)
{
	char *path = find_header(u, rel, kernel);

	if (!path)
		return;
	for (int i = 0; i < u->seen.len; i++)
		if (!strcmp(u->seen.items[i], path)) {
			free(path);
			return;
		}
	vec_push(&u->seen, path);
	char *raw = read_file(path, NULL);
	if (!raw)
		return;
	char *text = clean(raw);
	free(raw);
	uint8_t stack[64];
	int sp = 0;
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		char *p = line;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#')
			directive(u, p + 1, stack, &sp, kernel, follow);
		else if (sp == 0 || (stack[sp - 1] & 1)) {
			strbuf_addstr(&u->code, p);
			strbuf_addch(&u->code, '\n');
		}
	}
	free(text);
}

/* The constants of every `enum [tag] { ... }` in the code read. */
static void read_enums(struct uapi *u)
{
	const char *p = u->code.buf;

	while ((p = strstr(p, "enum"))) {
		bool word_start = p == u->code.buf || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
		p += 4;
		if (!word_start || (isalnum((unsigned char)*p) || *p == '_'))
			continue;
		const char *q = p;   /* enum [tag] { : only a word may come between */
		while (isalnum((unsigned char)*q) || *q == '_' || isspace((unsigned char)*q))
			q++;
		if (*q != '{')
			continue;
		const char *end = strchr(q, '}');
		if (!end)
			return;
		int64_t next = 0;
		for (const char *item = q + 1; item < end;) {
			const char *comma = memchr(item, ',', (size_t)(end - item));
			const char *stop = comma ? comma : end;
			char *it = xstrndup(item, (size_t)(stop - item));
			const char *ip = it;
			char *name = word(&ip);
			while (isspace((unsigned char)*ip))
				ip++;
			if (*name) {
				int64_t v = next;
				bool ok = true;
				if (*ip == '=')
					ok = eval_text(u, ip + 1, false, 0, &v);
				if (ok) {
					struct cdef *d = xcalloc(1, sizeof(*d));
					d->name = name;
					d->value = v;
					define(u, d);
					next = v + 1;
					name = NULL;
				}
			}
			free(name);
			free(it);
			item = stop + 1;
		}
		p = end;
	}
}

/* The header tree's folders: the kbuild directory and, for Debian's split
 * packages, the -common tree its Makefile includes. */
static void find_roots(struct session *s, struct uapi *u)
{
	const char *build = target_kernel(s)->build;
	char *mk = xasprintf("%s/Makefile", build);
	char *text = read_file(mk, NULL);

	vec_push(&u->roots, xstrdup(build));
	for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, "include ", 8))
			continue;
		char *e = strstr(l, "/Makefile");
		if (e)
			vec_push(&u->roots, xstrndup(l + 8, (size_t)(e - l - 8)));
		break;
	}
	free(text);
	free(mk);
}

struct uapi *uapi_load(struct session *s, const char *const *headers, const char **why)
{
	struct uapi *u = xcalloc(1, sizeof(*u));

	/* without the target kernel's kbuild tree (a host that runs BPF has
	 * none, often), the uapi headers this system has: the values are the
	 * kernel's ABI */
	const char *build = target_kernel(s)->build;
	if (!build) {
		*why = "no target kernel";
		uapi_free(u);
		return NULL;
	}
	if (!access(build, F_OK))
		find_roots(s, u);
	else
		u->system = xstrdup(sysroot_dir(s));
	static const char *const predef[][2] = { { "__x86_64__", "1" }, { "__BITS_PER_LONG", "64" },
		{ "__LITTLE_ENDIAN", "1234" }, { "__LITTLE_ENDIAN_BITFIELD", "1" },
		/* <limits.h>'s, which netfilter_ipv4.h's NF_IP_PRI_FIRST/LAST use */
		{ "INT_MAX", "2147483647" }, { "INT_MIN", "(-2147483647 - 1)" } };
	for (size_t i = 0; i < sizeof(predef) / sizeof(predef[0]); i++) {
		struct cdef *d = xcalloc(1, sizeof(*d));
		d->name = xstrdup(predef[i][0]);
		d->body = xstrdup(predef[i][1]);
		define(u, d);
	}
	for (int i = 0; headers[i]; i++) {
		bool kernel = headers[i][0] == '!';
		read_header(u, headers[i] + kernel, kernel, !kernel);
	}
	if (!u->seen.len) {
		*why = "the target kernel's headers are not installed (linux-headers)";
		uapi_free(u);
		return NULL;
	}
	read_enums(u);
	return u;
}

bool uapi_value(struct uapi *u, const char *name, int64_t *v)
{
	struct cdef *d = lookup(u, name, strlen(name));

	if (!d || d->func)
		return false;
	if (!d->body) {
		*v = d->value;
		return true;
	}
	return eval_text(u, d->body, false, 0, v);
}

void uapi_each(struct uapi *u, bool (*want)(void *arg, const char *name),
	       void (*fn)(void *arg, const char *name, int64_t v), void *arg)
{
	for (int i = 0; i < u->defs.len; i++) {
		struct cdef *d = u->defs.items[i];
		int64_t v;
		if (d->dead || !want(arg, d->name) || lookup(u, d->name, strlen(d->name)) != d)
			continue;   /* not wanted, or shadowed by a later definition */
		/* `#define IPPROTO_IP IPPROTO_IP` names an enum constant already listed */
		if (d->body && !strcmp(d->body, d->name))
			continue;
		if (uapi_value(u, d->name, &v))
			fn(arg, d->name, v);
	}
}

void uapi_free(struct uapi *u)
{
	if (!u)
		return;
	for (int i = 0; i < u->defs.len; i++) {
		free(u->defs.items[i]->name);
		free(u->defs.items[i]->body);
		free(u->defs.items[i]);
	}
	free(u->defs.items);
	free(u->tab);
	for (int i = 0; i < u->roots.len; i++)
		free(u->roots.items[i]);
	free(u->roots.items);
	free(u->system);
	for (int i = 0; i < u->seen.len; i++)
		free(u->seen.items[i]);
	free(u->seen.items);
	strbuf_release(&u->code);
	free(u);
}
