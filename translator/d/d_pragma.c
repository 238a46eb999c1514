/* d_pragma.c - D's control lines (see d_pragma.h).
 *
 * A control line is split into words, integers and strings; its first
 * words pick the directive as DTrace's dt_pragma() does: "pragma" then "D"
 * narrow the set (option, attributes, binding and depends_on are D
 * pragmas; error, ident and line may be written bare), an unknown bare
 * directive is D_PRAGCTL_INVAL, an unknown #pragma is ignored, an unknown
 * #pragma D is D_PRAGMA_INVAL. Errors are reported on the directive's line
 * (a first token that is not a word, on the next line, as DTrace does).
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "d/d_parse.h"
#include "d/d_pragma.h"
#include "util.h"

enum ctl_kind { CT_WORD, CT_INT, CT_STR };

struct ctl_tok {
	enum ctl_kind kind;
	char *text;              /* the word, the string decoded, the int as written */
	uint64_t value;
	const char *start, *end; /* in the source */
};

typedef VEC(struct ctl_tok *) ctl_toks;

struct ctl {
	struct d_lexer *lx;
	struct d_pos pos;        /* the '#' */
	ctl_toks toks;
};

__attribute__((noreturn, format(printf, 3, 4)))
static void ctl_error(struct ctl *c, const char *tag, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	d_error(c->lx->dg, tag, c->pos, "%s", msg);
}

/* The source text of toks[from..] (a pragma's arguments as written). */
static char *ctl_rest(struct ctl *c, int from)
{
	if (from >= c->toks.len)
		return NULL;
	return xstrndup(c->toks.items[from]->start,
			c->toks.items[c->toks.len - 1]->end - c->toks.items[from]->start);
}

static struct d_pragma *add_pragma(struct ctl *c, int kind, const char *name, char *value)
{
	struct d_pragma *pr = xcalloc(1, sizeof(*pr));

	pr->kind = kind;
	pr->name = xstrdup(name);
	pr->value = value;
	pr->pos = c->pos;
	vec_push(&c->lx->prog->pragmas, pr);
	return pr;
}

static bool is_word(struct ctl *c, int i)
{
	return i < c->toks.len && c->toks.items[i]->kind == CT_WORD;
}

/* #pragma D option name[=value]: recorded for the caller to set; the few
 * options that change how the rest is read take effect here. */
static void pragma_option(struct ctl *c, const char *prname, int i)
{
	char *opt, *val;

	if (!is_word(c, i))
		ctl_error(c, "D_PRAGMA_MALFORM", "malformed #pragma %s <option>=<val>", prname);
	if (i + 1 < c->toks.len)
		ctl_error(c, "D_PRAGMA_MALFORM", "superfluous arguments specified for #pragma %s", prname);
	opt = xstrdup(c->toks.items[i]->text);
	if ((val = strchr(opt, '=')))
		*val++ = 0;
	add_pragma(c, DP_OPTION, opt, val ? xstrdup(val) : NULL);
	if (!strcmp(opt, "pspec"))
		c->lx->pspec = true;
	else if (!strcmp(opt, "defaultargs"))
		c->lx->defaultargs = true;
	else if (!strcmp(opt, "version") && val && d_version_number(val) > 0)
		c->lx->version = d_version_number(val);
	else if (!strcmp(opt, "strsize") && val && isdigit((unsigned char)*val)) {
		char *end;
		long long n = strtoll(val, &end, 0);

		switch (tolower((unsigned char)*end)) {
		case 'k': n <<= 10; break;
		case 'm': n <<= 20; break;
		case 'g': n <<= 30; break;
		}
		if (n > 0)
			d_types_set_strsize(c->lx->types, n);
	}
}

/* DTrace's stability and class names, as its attributes strings use them */
static const char *const stabilities[] = {
	"Internal", "Private", "Obsolete", "External", "Unstable", "Evolving", "Stable", "Standard",
};
static const char *const classes[] = { "Unknown", "CPU", "Platform", "Group", "ISA", "Common" };

static bool one_of(const char *s, size_t n, const char *const *names, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (strlen(names[i]) == n && !strncasecmp(s, names[i], n))
			return true;
	return false;
}

/* name/data/class, each part optional from the right */
static bool valid_attributes(const char *s)
{
	for (int part = 0; *s; part++) {
		size_t n = strcspn(s, "/");

		if (part > 2)
			return false;
		if (part < 2 ? !one_of(s, n, stabilities, 8) : !one_of(s, n, classes, 6))
			return false;
		s += n;
		if (*s == '/')
			s++;
	}
	return true;
}

/* major[.minor[.micro]] within DTrace's limits */
static bool valid_version(const char *s)
{
	long n[3] = { 0, 0, 0 };
	int i = 0;

	for (; *s; s++) {
		if (isdigit((unsigned char)*s))
			n[i] = n[i] * 10 + (*s - '0');
		else if (*s != '.' || ++i > 2)
			return false;
		if (n[0] > 0xff || n[1] > 0xfff || n[2] > 0xfff)
			return false;
	}
	return true;
}

/* A pragma may not change what DTrace itself defines. */
static void check_scope(struct ctl *c, const char *prname, const char *name)
{
	if (d_builtin_kind(name, c->lx->version))
		ctl_error(c, "D_PRAGMA_SCOPE",
			  "#pragma %s cannot modify entity defined outside program scope", prname);
}

/* #pragma D attributes <attributes> <ident> | provider <name> <part> */
static void pragma_attributes(struct ctl *c, const char *prname, int i)
{
	if (!is_word(c, i) || !is_word(c, i + 1))
		ctl_error(c, "D_PRAGMA_MALFORM", "malformed #pragma %s <attributes> <ident>", prname);
	if (!valid_attributes(c->toks.items[i]->text))
		ctl_error(c, "D_PRAGMA_INVAL", "invalid attributes specified by #pragma %s", prname);
	if (strcmp(c->toks.items[i + 1]->text, "provider"))
		check_scope(c, prname, c->toks.items[i + 1]->text);
	add_pragma(c, DP_OTHER, prname, ctl_rest(c, i));
}

/* #pragma D binding "version" <ident> */
static void pragma_binding(struct ctl *c, const char *prname, int i)
{
	if (i >= c->toks.len || c->toks.items[i]->kind != CT_STR || !is_word(c, i + 1))
		ctl_error(c, "D_PRAGMA_MALFORM", "malformed #pragma %s \"version\" <ident>", prname);
	if (!valid_version(c->toks.items[i]->text))
		ctl_error(c, "D_PRAGMA_INVAL", "invalid version string specified by #pragma %s", prname);
	check_scope(c, prname, c->toks.items[i + 1]->text);
	add_pragma(c, DP_OTHER, prname, ctl_rest(c, i));
}

/* #pragma D depends_on provider|module|library <name>: whether it is
 * there is the caller's to decide */
static void pragma_depends(struct ctl *c, const char *prname, int i)
{
	const char *cls;

	if (!is_word(c, i) || !is_word(c, i + 1))
		ctl_error(c, "D_PRAGMA_MALFORM", "malformed #pragma %s <class> <name>", prname);
	cls = c->toks.items[i]->text;
	if (strcmp(cls, "provider") && strcmp(cls, "module") && strcmp(cls, "library"))
		ctl_error(c, "D_PRAGMA_INVAL", "invalid class %s specified by #pragma %s", cls, prname);
	add_pragma(c, DP_OTHER, prname, ctl_rest(c, i));
}

/* #error words... : the words, each followed by a blank */
static void pragma_error(struct ctl *c, const char *prname, int i)
{
	struct strbuf sb = STRBUF_INIT;

	for (; i < c->toks.len; i++)
		if (c->toks.items[i]->kind != CT_INT)
			strbuf_addf(&sb, "%s ", c->toks.items[i]->text);
	ctl_error(c, "D_PRAGERR", "#%s: %s", prname, sb.buf);
}

/* #line N ["file" [flags]] and cpp's # N "file" flags: the next line is
 * line N (N + 1 after #line, as DTrace counts). */
static void pragma_line(struct ctl *c, const char *prname, int i, bool marker)
{
	struct d_pos pos = c->pos;

	if (marker)
		c->pos.line++;   /* DTrace reports these one line on */
	if (i >= c->toks.len || c->toks.items[i]->kind != CT_INT ||
	    (i + 1 < c->toks.len && c->toks.items[i + 1]->kind != CT_STR))
		ctl_error(c, "D_PRAGMA_MALFORM", "malformed #%s <line> [ [\"file\"] state ]", prname);
	for (int j = i + 2; j < c->toks.len; j++)
		if (c->toks.items[j]->kind != CT_INT)
			ctl_error(c, "D_PRAGMA_MALFORM", "malformed #%s <line> [ [\"file\"] state ]", prname);
	c->pos = pos;
	c->lx->line = (int)c->toks.items[i]->value + (marker ? 0 : 1);
}

/* #ident: nothing to do */
static void ignore(struct ctl *c, const char *prname, int i)
{
}

/* The directives: the least specific prefix each may follow. */
enum { AFTER_HASH, AFTER_PRAGMA, AFTER_PRAGMA_D };

static const struct {
	const char *name;
	void (*fn)(struct ctl *c, const char *prname, int i);
	int after;
} directives[] = {
	{ "attributes", pragma_attributes, AFTER_PRAGMA_D },
	{ "binding", pragma_binding, AFTER_PRAGMA_D },
	{ "depends_on", pragma_depends, AFTER_PRAGMA_D },
	{ "error", pragma_error, AFTER_HASH },
	{ "ident", ignore, AFTER_HASH },
	{ "option", pragma_option, AFTER_PRAGMA_D },
};

/* Act on a control line's tokens (DTrace's dt_pragma()). */
static void directive(struct ctl *c)
{
	int kind = AFTER_HASH;

	for (int i = 0; i < c->toks.len; i++) {
		struct ctl_tok *t = c->toks.items[i];
		size_t d;

		if (t->kind == CT_INT) {
			pragma_line(c, "line", i, true);
			return;
		}
		if (t->kind != CT_WORD) {
			c->pos.line++;
			ctl_error(c, "D_PRAGCTL_INVAL", "invalid control directive");
		}
		if (kind == AFTER_HASH && !strcmp(t->text, "pragma")) {
			kind = AFTER_PRAGMA;
			continue;
		}
		if (kind == AFTER_PRAGMA && !strcmp(t->text, "D")) {
			kind = AFTER_PRAGMA_D;
			continue;
		}
		if (!strcmp(t->text, "line")) {
			pragma_line(c, "line", i + 1, false);
			return;
		}
		for (d = 0; d < sizeof(directives) / sizeof(directives[0]); d++)
			if (directives[d].after <= kind && !strcmp(directives[d].name, t->text))
				break;
		if (d < sizeof(directives) / sizeof(directives[0])) {
			directives[d].fn(c, directives[d].name, i + 1);
			return;
		}
		if (kind == AFTER_HASH)
			ctl_error(c, "D_PRAGCTL_INVAL", "invalid control directive: #%s", t->text);
		if (kind == AFTER_PRAGMA_D)
			ctl_error(c, "D_PRAGMA_INVAL", "invalid D pragma: %s", t->text);
		return;   /* an unknown #pragma: ignored, as C does */
	}
}

/* A control-line word that is all an integer constant is one (DTrace's
 * lexer matches RGX_INT before its word rule). */
static bool all_int(const char *s, size_t n)
{
	const char *q = s;

	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && isxdigit((unsigned char)s[2]))
		for (q = s + 2; q < s + n && isxdigit((unsigned char)*q); q++)
			;
	else
		while (q < s + n && isdigit((unsigned char)*q))
			q++;
	if (q == s)
		return false;
	if (q < s + n && (*q == 'u' || *q == 'U'))
		q++;
	for (int i = 0; i < 2 && q < s + n && (*q == 'l' || *q == 'L'); i++)
		q++;
	return q == s + n;
}

void d_control_line(struct d_lexer *lx)
{
	struct ctl c = { .lx = lx };
	const char *p;

	c.pos.line = lx->line;
	c.pos.col = (int)(lx->p - lx->line_start) + 1;
	lx->p++;
	for (;;) {
		struct ctl_tok *t;

		for (p = lx->p; p < lx->end && strchr(" \f\t\v", *p); p++)
			;
		lx->p = p;
		if (p >= lx->end) {
			struct d_pos pos = { lx->line, (int)(p - lx->line_start) + 1 };

			d_error(lx->dg, "D_SYNTAX", pos, "end-of-file encountered before end of control line");
		}
		if (*p == '\n') {
			lx->p++;
			lx->line++;
			lx->line_start = lx->p;
			break;
		}
		t = xcalloc(1, sizeof(*t));
		t->start = p;
		if (*p == '"') {
			struct d_token st = { 0 };

			d_lex_string(lx, &st);
			t->kind = CT_STR;
			t->text = st.str;
		} else {
			size_t n = strcspn(p, " \f\n\t\v\"");
			struct d_pos pos = { lx->line, (int)(p - lx->line_start) + 1 };

			t->text = xstrndup(p, n);
			t->kind = CT_WORD;
			if (all_int(p, n)) {
				t->kind = CT_INT;
				t->value = d_lex_int_value(lx, p, n, pos);
			}
			lx->p = p + n;
		}
		t->end = lx->p;
		vec_push(&c.toks, t);
	}
	directive(&c);
}

void d_pragma_check_unused(struct d_lexer *lx)
{
	struct d_program *prog = lx->prog;

	for (int i = 0; i < prog->pragmas.len; i++) {
		struct d_pragma *pr = prog->pragmas.items[i];
		const char *name;
		char *val;

		if (pr->kind != DP_OTHER || !pr->value ||
		    (strcmp(pr->name, "attributes") && strcmp(pr->name, "binding")))
			continue;
		/* the identifier: the second word (after the attributes or version) */
		val = xstrdup(pr->value);
		strtok(val, " \t\f\v");
		name = strtok(NULL, " \t\f\v");
		if (!name || !strcmp(name, "provider"))
			continue;
		if (d_types_decl(lx->types, DSC_GLOBAL, name) ||
		    d_types_enumerator(lx->types, name, NULL, NULL))
			continue;
		d_error(lx->dg, "D_PRAGMA_UNUSED", pr->pos, "unused #pragma %s", pr->name);
	}
}
