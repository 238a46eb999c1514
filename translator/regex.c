/* regex.c - SystemTap regular expressions to a backtracking program
 * (regex.h). Each construct compiles to a fragment whose jumps are relative,
 * so fragments concatenate and repeat without relocation:
 *
 *   e*   SPLIT +1,+n+2; e; JMP -(n+1)      e+   e; SPLIT -n,+1
 *   e?   SPLIT +1,+n+1; e                  a|b  SPLIT +1,+na+2; a; JMP +nb+1; b
 *   (e)  SAVE 2k; e; SAVE 2k+1             e{m,n}  m copies of e, then n-m of e?
 *
 * The opcodes and struct stp_re_insn match runtime/regex.h.
 */
#include "regex.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

enum { RE_CHAR = REGEX_CHAR, RE_ANY = REGEX_ANY, RE_CLASS = REGEX_CLASS, RE_SPLIT = REGEX_SPLIT,
       RE_JMP = REGEX_JMP, RE_SAVE = REGEX_SAVE, RE_BOL = REGEX_BOL, RE_EOL = REGEX_EOL, RE_MATCH = REGEX_MATCH };

#define RE_MAX_INSNS 4096
#define RE_MAX_CLASSES 255
#define RE_MAX_GROUPS 9


struct frag {
	struct regex_insn *v;
	int n, cap;
};

struct rparser {
	const char *p;
	const char *err;
	int groups;
	VEC(unsigned char *) classes;   /* 32-byte bitmaps */
};

static void emit(struct frag *f, int op, int arg, int x, int y)
{
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 8;
		f->v = xrealloc(f->v, (size_t)f->cap * sizeof(*f->v));
	}
	f->v[f->n++] = (struct regex_insn){ (unsigned char)op, (unsigned char)arg, x, y };
}

static void append(struct frag *to, const struct frag *from)
{
	for (int i = 0; i < from->n; i++)
		emit(to, from->v[i].op, from->v[i].arg, from->v[i].x, from->v[i].y);
}

static bool fail(struct rparser *r, const char *msg)
{
	if (!r->err)
		r->err = msg;
	return false;
}

static bool parse_alt(struct rparser *r, struct frag *out);

/* [:name:] inside a bracket: sets the class's characters. */
static bool named_class(struct rparser *r, unsigned char *bits)
{
	static const struct { const char *name; int (*fn)(int); } names[] = {
		{ "alpha", isalpha }, { "digit", isdigit }, { "alnum", isalnum }, { "upper", isupper },
		{ "lower", islower }, { "space", isspace }, { "punct", ispunct }, { "print", isprint },
		{ "graph", isgraph }, { "cntrl", iscntrl }, { "xdigit", isxdigit }, { "blank", isblank },
	};
	const char *end = strstr(r->p, ":]");

	if (!end)
		return fail(r, "unterminated [: :] class");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i].name) == (size_t)(end - r->p) && !strncmp(r->p, names[i].name, (size_t)(end - r->p))) {
			for (int c = 1; c < 256; c++)
				if (names[i].fn(c))
					bits[c / 8] |= (unsigned char)(1 << (c % 8));
			r->p = end + 2;
			return true;
		}
	}
	return fail(r, "unknown [: :] character class");
}

/* bracket := '[' ['^'] [']'] {char | char '-' char | '[:' name ':]'} ']' */
static bool parse_bracket(struct rparser *r, struct frag *out)
{
	unsigned char *bits = xcalloc(32, 1);
	bool neg = false, first = true;

	if (*r->p == '^') {
		neg = true;
		r->p++;
	}
	while (*r->p && (*r->p != ']' || first)) {
		first = false;
		if (r->p[0] == '[' && r->p[1] == ':') {
			r->p += 2;
			if (!named_class(r, bits))
				return false;
			continue;
		}
		unsigned char lo = (unsigned char)*r->p++, hi = lo;
		if (lo == '\\' && *r->p)
			lo = hi = (unsigned char)*r->p++;
		if (r->p[0] == '-' && r->p[1] && r->p[1] != ']') {
			hi = (unsigned char)r->p[1];
			r->p += 2;
			if (hi < lo)
				return fail(r, "invalid range in [ ]");
		}
		for (int c = lo; c <= hi; c++)
			bits[c / 8] |= (unsigned char)(1 << (c % 8));
	}
	if (*r->p != ']')
		return fail(r, "unterminated [ ]");
	r->p++;
	if (neg)
		for (int i = 0; i < 32; i++)
			bits[i] = (unsigned char)~bits[i];
	bits[0] &= 0xfe;   /* never the terminating NUL */
	if (r->classes.len >= RE_MAX_CLASSES)
		return fail(r, "too many [ ] classes");
	emit(out, RE_CLASS, r->classes.len, 0, 0);
	vec_push(&r->classes, bits);
	return true;
}

/* atom := '(' alt ')' | bracket | '.' | '^' | '$' | '\' char | char */
static bool parse_atom(struct rparser *r, struct frag *out)
{
	char c = *r->p;

	switch (c) {
	case '(': {
		int k = ++r->groups;
		if (k > RE_MAX_GROUPS)
			return fail(r, "more than 9 ( ) groups");
		r->p++;
		emit(out, RE_SAVE, 2 * k, 0, 0);
		if (!parse_alt(r, out))
			return false;
		if (*r->p != ')')
			return fail(r, "unbalanced (");
		r->p++;
		emit(out, RE_SAVE, 2 * k + 1, 0, 0);
		return true;
	}
	case '[':
		r->p++;
		return parse_bracket(r, out);
	case '.':
		r->p++;
		emit(out, RE_ANY, 0, 0, 0);
		return true;
	case '^':
		r->p++;
		emit(out, RE_BOL, 0, 0, 0);
		return true;
	case '$':
		r->p++;
		emit(out, RE_EOL, 0, 0, 0);
		return true;
	case '\\':
		if (!r->p[1])
			return fail(r, "trailing backslash");
		emit(out, RE_CHAR, (unsigned char)r->p[1], 0, 0);
		r->p += 2;
		return true;
	case '*': case '+': case '?': case '{':
		return fail(r, "repetition operator with nothing to repeat");
	case ')':
		return fail(r, "unbalanced )");
	default:
		r->p++;
		emit(out, RE_CHAR, (unsigned char)c, 0, 0);
		return true;
	}
}

static void star(struct frag *out, const struct frag *e)
{
	emit(out, RE_SPLIT, 0, 1, e->n + 2);
	append(out, e);
	emit(out, RE_JMP, 0, -(e->n + 1), 0);
}

static void optional(struct frag *out, const struct frag *e)
{
	emit(out, RE_SPLIT, 0, 1, e->n + 1);
	append(out, e);
}

/* {m}, {m,}, {m,n} after an atom */
static bool parse_count(struct rparser *r, int *m, int *n)
{
	char *end;

	*m = (int)strtol(r->p, &end, 10);
	if (end == r->p)
		return fail(r, "invalid { } count");
	r->p = end;
	*n = *m;
	if (*r->p == ',') {
		r->p++;
		*n = -1;
		if (isdigit((unsigned char)*r->p))
			*n = (int)strtol(r->p, (char **)&r->p, 10);
	}
	if (*r->p != '}' || *m > 255 || *n > 255 || (*n >= 0 && *n < *m))
		return fail(r, "invalid { } count");
	r->p++;
	return true;
}

/* repeat := atom {'*' | '+' | '?' | '{' count '}'} */
static bool parse_repeat(struct rparser *r, struct frag *out)
{
	struct frag e = { 0 };

	if (!parse_atom(r, &e))
		return false;
	while (*r->p == '*' || *r->p == '+' || *r->p == '?' || *r->p == '{') {
		struct frag q = { 0 };
		char op = *r->p++;
		int m, n;
		if (op == '*') {
			star(&q, &e);
		} else if (op == '+') {
			append(&q, &e);
			emit(&q, RE_SPLIT, 0, -e.n, 1);
		} else if (op == '?') {
			optional(&q, &e);
		} else {
			if (!parse_count(r, &m, &n))
				return false;
			for (int i = 0; i < m; i++)
				append(&q, &e);
			if (n < 0)
				star(&q, &e);
			for (int i = m; i < n; i++)
				optional(&q, &e);
		}
		free(e.v);
		e = q;
		if (e.n > RE_MAX_INSNS)
			return fail(r, "regular expression too large");
	}
	append(out, &e);
	free(e.v);
	return true;
}

/* alt := concat {'|' concat};  concat := {repeat} */
static bool parse_alt(struct rparser *r, struct frag *out)
{
	struct frag a = { 0 };

	while (*r->p && *r->p != '|' && *r->p != ')')
		if (!parse_repeat(r, &a))
			return false;
	if (*r->p != '|') {
		append(out, &a);
		free(a.v);
		return true;
	}
	r->p++;
	struct frag b = { 0 };
	if (!parse_alt(r, &b))
		return false;
	emit(out, RE_SPLIT, 0, 1, a.n + 2);
	append(out, &a);
	emit(out, RE_JMP, 0, b.n + 1, 0);
	append(out, &b);
	free(a.v);
	free(b.v);
	return true;
}

bool regex_compile(const char *re, struct regex_prog *out, const char **err)
{
	struct rparser r = { .p = re };
	struct frag f = { 0 };

	memset(out, 0, sizeof(*out));
	emit(&f, RE_SAVE, 0, 0, 0);
	if (!parse_alt(&r, &f) || (*r.p == ')' && fail(&r, "unbalanced )"))) {
		*err = r.err;
		free(f.v);
		return false;
	}
	emit(&f, RE_SAVE, 1, 0, 0);
	emit(&f, RE_MATCH, 0, 0, 0);
	if (f.n > RE_MAX_INSNS) {
		*err = "regular expression too large";
		free(f.v);
		return false;
	}
	for (int i = 0; i < f.n; i++)
		strbuf_addf(&out->insns, "\t{ %d, %d, %d, %d },\n", f.v[i].op, f.v[i].arg, f.v[i].x, f.v[i].y);
	out->cls = xcalloc((size_t)r.classes.len + 1, sizeof(*out->cls));
	for (int i = 0; i < r.classes.len; i++) {
		strbuf_addstr(&out->classes, "\t{");
		for (int b = 0; b < 32; b++)
			strbuf_addf(&out->classes, "%s0x%02x", b ? "," : " ", r.classes.items[i][b]);
		strbuf_addstr(&out->classes, " },\n");
		memcpy(out->cls[i], r.classes.items[i], 32);
		free(r.classes.items[i]);
	}
	out->ninsns = f.n;
	out->nclasses = r.classes.len;
	out->ngroups = r.groups;
	out->prog = f.v;   /* kept: the BPF backend runs it its own way */
	free(r.classes.items);
	return true;
}
