/* preprocess.c - the token layer between the lexer and the parser.
 *
 * It resolves, in token order:
 *   %( COND %? tokens [%: tokens] %)   conditional compilation, nested;
 *                                      skipped branches are never expanded
 *   @define name[(a, b)] %( body %)    macro definitions (file-local; the
 *                                      *.stpm files of the tapset dirs give
 *                                      the library macros every file sees)
 *   @name / @name(x, y)                macro uses, @a parameter references
 *   $N @N $# @#                        script arguments: $N is replaced by the
 *                                      tokens of argument N, @N by it as a
 *                                      string literal
 *
 * Input comes from a stack of frames: the file's lexer at the bottom, then
 * macro bodies, macro arguments and $N argument texts pushed on top. Tokens
 * copied out of a macro body get token->chain set to the @use token, so an
 * error inside an expansion can be traced back.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strverscmp, vasprintf */
#endif
#include "lexer.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "diag.h"
#include "session.h"

#define MAX_FRAMES 200          /* macro / argument expansion depth */

typedef VEC(struct token *) tokvec;

struct macro {
	char *name;
	VEC(char *) params;
	tokvec body;
	bool has_params;
};

struct macro_table {
	VEC(struct macro *) v;
};

/* Parameter bindings of one macro expansion. Arguments are token lists that
 * are read in the environment of the caller. */
struct env {
	const struct macro *m;
	tokvec *args;
	struct env *caller;
};

struct frame {
	struct lexer *lx;        /* file or $N text; NULL for a token list */
	struct token **toks;
	int ntoks, pos;
	struct env *env;         /* @param lookup for tokens of this frame */
	struct token *origin;    /* chain for copied tokens (macro use), or NULL */
	bool from_arg;           /* $N text: no further $N/@N inside */
};

enum { C_THEN, C_ELSE };

struct cond {
	int state;
	struct frame *frame;     /* conditionals must close where they opened */
	struct srcpos pos;
};

struct pp {
	struct session *s;
	const struct srcfile *file;
	VEC(struct frame *) frames;
	VEC(struct cond *) conds;
	struct macro_table local;
	struct macro_table *lib;
	bool failed;
	bool version_seen;       /* a systemtap_v condition was evaluated since the
				  * last token returned (--check-version) */
	struct token *slab;      /* kept tokens are carved from blocks */
	int slab_left, slab_size;
	struct token scratch;    /* what raw_next returns: see there */
};

#define TOK_SLAB_MAX 1024

/* ---- library macros and kernel config: loaded once per session --------- */

static struct {
	struct session *s;
	struct macro_table tab;
	bool failed;
} lib;

struct kconfig_entry {
	char *name, *value;
};

/* The target's configuration text, and the values asked of it so far. */
static struct {
	struct session *s;
	bool loaded;
	const char *text;
	VEC(struct kconfig_entry) asked;
} kconfig;

static struct macro *find_macro(struct macro_table *t, const char *name)
{
	for (int i = t->v.len - 1; i >= 0; i--)
		if (strcmp(t->v.items[i]->name, name) == 0)
			return t->v.items[i];
	return NULL;
}

static const char *kernel_release(struct session *s)
{
	static struct utsname u;

	if (s && s->kernel_release)
		return s->kernel_release;
	if (!u.release[0])
		uname(&u);
	return u.release;
}

static const char *arch_name(struct session *s)
{
	static struct utsname u;

	if (s && s->arch)
		return s->arch;
	if (!u.machine[0])
		uname(&u);
	return u.machine;
}

/* .config of the target kernel; a missing file means every CONFIG_ is "".
 * Each name is looked for once in the text (the syscall tapset asks the
 * same two hundreds of times). */
static const char *kconfig_value(struct session *s, const char *name)
{
	if (!kconfig.loaded || kconfig.s != s) {
		kconfig.loaded = true;
		kconfig.s = s;
		kconfig.text = s && s->kernel_config ? s->kernel_config(s) : NULL;
		for (int i = 0; i < kconfig.asked.len; i++) {
			free(kconfig.asked.items[i].name);
			free(kconfig.asked.items[i].value);
		}
		kconfig.asked.len = 0;
	}
	for (int i = 0; i < kconfig.asked.len; i++)
		if (!strcmp(kconfig.asked.items[i].name, name))
			return kconfig.asked.items[i].value;
	char *v = kconfig.text ? config_value(kconfig.text, name) : xstrdup("");
	vec_push(&kconfig.asked, ((struct kconfig_entry){ xstrdup(name), v }));
	return v;
}

/* ---- frames ------------------------------------------------------------ */

static void fail(struct pp *pp, enum diag_tag tag, struct srcpos pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void fail(struct pp *pp, enum diag_tag tag, struct srcpos pos, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (pp->failed)
		return;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	diag(pp->s, tag, pos, "%s", msg);
	free(msg);
	pp->failed = true;
}

static struct frame *push_frame(struct pp *pp, struct srcpos pos)
{
	struct frame *f;

	if (pp->frames.len >= MAX_FRAMES) {
		fail(pp, P_NESTING, pos, "macro or argument expansion nested too deeply (recursive macro?)");
		return NULL;
	}
	f = xcalloc(1, sizeof(*f));
	vec_push(&pp->frames, f);
	return f;
}

static struct frame *top(struct pp *pp)
{
	return pp->frames.items[pp->frames.len - 1];
}

static bool frame_has_conds(struct pp *pp, struct frame *f)
{
	return pp->conds.len && pp->conds.items[pp->conds.len - 1]->frame == f;
}

static struct token *error_token(void)
{
	struct token *t = xcalloc(1, sizeof(*t));

	t->kind = TK_ERROR;
	t->text = (char *)"";
	return t;
}

/* A copy of t that lives as long as the parse (macro bodies, macro
 * arguments and conditions keep token pointers). One allocation per block
 * of tokens, not per token. */
static struct token *keep_tok(struct pp *pp, const struct token *t)
{
	if (!pp->slab_left) {
		/* most files keep no token or a few: start small, then double */
		pp->slab_size = pp->slab_size ? pp->slab_size * 2 : 8;
		if (pp->slab_size > TOK_SLAB_MAX)
			pp->slab_size = TOK_SLAB_MAX;
		pp->slab = xmalloc((size_t)pp->slab_size * sizeof(*pp->slab));
		pp->slab_left = pp->slab_size;
	}
	pp->slab_left--;
	*pp->slab = *t;
	return pp->slab++;
}

/* Next raw token of the current input, popping exhausted frames but never
 * below keep frames: a conditional or a macro argument list must be complete
 * inside the macro body or file it starts in. NULL when frame number keep is
 * exhausted (the bottom frame gives TK_EOF instead).
 * The token is pp->scratch, valid until the next call: a caller that keeps
 * it copies it (keep_tok). The library expands macros into millions of
 * tokens, and allocating each cost more than all the rest of parsing. */
static struct token *raw_next(struct pp *pp, int keep)
{
	for (;;) {
		struct frame *f;
		struct token *t;

		if (pp->failed)
			return error_token();
		f = top(pp);
		if (f->lx) {
			t = &pp->scratch;
			lexer_next(f->lx, t);
			if (t->kind == TK_ERROR)
				pp->failed = true;
			if (t->kind != TK_EOF)
				goto got;
			if (pp->frames.len <= keep)
				return pp->frames.len == 1 ? t : NULL;
		} else if (f->pos < f->ntoks) {
			t = &pp->scratch;
			*t = *f->toks[f->pos++];
			if (f->origin)
				t->chain = f->origin;
			goto got;
		} else if (pp->frames.len <= keep) {
			return NULL;
		}
		/* frame exhausted */
		if (frame_has_conds(pp, f)) {
			struct cond *c = pp->conds.items[pp->conds.len - 1];

			fail(pp, P_PREPROC, c->pos, "%%( conditional is not closed with %%) "
			     "before the end of its macro body or argument");
			return error_token();
		}
		pp->frames.len--;
		continue;
got:
		if (f->origin && !t->chain)
			t->chain = f->origin;
		return t;
	}
}

/* ---- conditions: %( COND %? ------------------------------------------ */

struct cev {
	struct pp *pp;
	struct token **t;
	int n, i;
};

static struct token *cev_peek(struct cev *c)
{
	return c->t[c->i < c->n ? c->i : c->n];
}

static bool is_op(const struct token *t, const char *op)
{
	return t && t->kind == TK_OP && strcmp(t->text, op) == 0;
}

static int cmp_result(const char *op, int cmp)
{
	if (!strcmp(op, "==")) return cmp == 0;
	if (!strcmp(op, "!=")) return cmp != 0;
	if (!strcmp(op, "<")) return cmp < 0;
	if (!strcmp(op, "<=")) return cmp <= 0;
	if (!strcmp(op, ">")) return cmp > 0;
	return cmp >= 0;
}

static const char *script_arg(struct pp *pp, const struct token *t)
{
	int n = atoi(t->text + 1);

	if (!pp->s || n > pp->s->args.len) {
		fail(pp, P_PARAM_MISSING, t->pos, "script argument %s was not given", t->text);
		return NULL;
	}
	return pp->s->args.items[n - 1];
}

/* Version strings compare piece by piece ("6.1.0" > "2.6.32"); == and !=
 * accept shell wildcards ("6.1*"). */
static int version_cond(const char *op, const char *have, const char *want)
{
	if (!strcmp(op, "==") || !strcmp(op, "!="))
		return (fnmatch(want, have, 0) == 0) == !strcmp(op, "==");
	return cmp_result(op, strverscmp(have, want));
}

/* kernel_v, arch, CONFIG_X, $#, "a" ... compared with a literal. */
static int cond_compare(struct cev *c)
{
	struct pp *pp = c->pp;
	struct token *lhs = cev_peek(c), *op, *rhs;
	const char *name = lhs->text;
	bool neg = false, eqne;
	int64_t rnum;

	if (c->i >= c->n || lhs->kind == TK_OP) {
		fail(pp, P_PREPROC_COND, lhs->pos, "expected a condition, saw '%s'", lhs->text);
		return -1;
	}
	c->i++;
	op = cev_peek(c);
	if (op->kind != TK_OP || !(is_op(op, "==") || is_op(op, "!=") || is_op(op, "<") ||
				   is_op(op, "<=") || is_op(op, ">") || is_op(op, ">="))) {
		fail(pp, P_PREPROC_COND, op->pos, "expected a comparison operator after '%s'", name);
		return -1;
	}
	c->i++;
	eqne = is_op(op, "==") || is_op(op, "!=");
	rhs = cev_peek(c);
	if (is_op(rhs, "-")) {
		neg = true;
		c->i++;
		rhs = cev_peek(c);
	}
	if (!neg && rhs->kind == TK_IDENT && !strncmp(rhs->text, "CONFIG_", 7) &&
	    lhs->kind == TK_IDENT && !strncmp(name, "CONFIG_", 7)) {
		/* CONFIG_A >= CONFIG_B: numbers if both are, else strings */
		const char *a = kconfig_value(pp->s, name), *b = kconfig_value(pp->s, rhs->text);
		int64_t x, y;

		c->i++;
		if (lex_number(a, &x) && lex_number(b, &y))
			return cmp_result(op->text, x < y ? -1 : x > y);
		return cmp_result(op->text, strcmp(a, b));
	}
	if (rhs->kind != TK_NUMBER && (rhs->kind != TK_STRING || neg)) {
		fail(pp, P_PREPROC_COND, rhs->pos, "expected a number or string to compare with");
		return -1;
	}
	c->i++;
	rnum = neg ? -rhs->num : rhs->num;

#define WANT_STRING(what) do { if (rhs->kind != TK_STRING) { \
		fail(pp, P_PREPROC_COND, rhs->pos, "%s must be compared with a string", what); \
		return -1; } } while (0)
#define WANT_NUMBER(what) do { if (rhs->kind != TK_NUMBER) { \
		fail(pp, P_PREPROC_COND, rhs->pos, "%s must be compared with a number", what); \
		return -1; } } while (0)
#define WANT_EQNE(what) do { if (!eqne) { \
		fail(pp, P_PREPROC_COND, op->pos, "%s can only be compared with == or !=", what); \
		return -1; } } while (0)

	if (lhs->kind == TK_IDENT) {
		if (!strcmp(name, "kernel_v") || !strcmp(name, "kernel_vr")) {
			char *rel = xstrdup(kernel_release(pp->s));
			int r;

			WANT_STRING(name);
			if (!strcmp(name, "kernel_v"))
				rel[strcspn(rel, "-")] = 0;
			r = version_cond(op->text, rel, rhs->str);
			free(rel);
			return r;
		}
		if (!strcmp(name, "systemtap_v")) {
			/* the language version: --compatible=V, else ours */
			const char *v = pp->s && pp->s->compatible ? pp->s->compatible : "4.8";

			WANT_STRING(name);
			c->pp->version_seen = true;
			return version_cond(op->text, v, rhs->str);
		}
		if (!strcmp(name, "arch") || !strcmp(name, "runtime") ||
		    !strcmp(name, "systemtap_privilege")) {
			const char *v = !strcmp(name, "arch") ? arch_name(pp->s)
					: !strcmp(name, "runtime") ? (pp->s && pp->s->runtime_bpf ? "bpf" : "kernel")
					: "stapdev";

			WANT_STRING(name);
			WANT_EQNE(name);
			return (fnmatch(rhs->str, v, 0) == 0) == is_op(op, "==");
		}
		if (!strcmp(name, "guru_mode")) {
			WANT_NUMBER(name);
			WANT_EQNE(name);
			if (rnum != 0 && rnum != 1) {
				fail(pp, P_PREPROC_COND, rhs->pos, "guru_mode is 0 or 1");
				return -1;
			}
			return ((pp->s && pp->s->guru) == (rnum == 1)) == is_op(op, "==");
		}
		if (!strncmp(name, "CONFIG_", 7)) {
			const char *v = kconfig_value(pp->s, name);
			int64_t have;

			if (rhs->kind == TK_STRING) {
				WANT_EQNE(name);
				return (fnmatch(rhs->str, v, 0) == 0) == is_op(op, "==");
			}
			if (!*v)
				have = 0; /* unset options are "" and 0 */
			else if (!lex_number(v, &have))
				return 0;
			return cmp_result(op->text, have < rnum ? -1 : have > rnum);
		}
	} else if (lhs->kind == TK_PARAM) {
		int nargs = pp->s ? pp->s->args.len : 0;
		const char *arg;
		int64_t have;

		if (!strcmp(name, "$#")) {
			WANT_NUMBER("$#");
			return cmp_result(op->text, nargs < rnum ? -1 : nargs > rnum);
		}
		if (!strcmp(name, "@#")) {
			char buf[16];

			WANT_STRING("@#");
			snprintf(buf, sizeof(buf), "%d", nargs);
			return cmp_result(op->text, strcmp(buf, rhs->str));
		}
		arg = script_arg(pp, lhs);
		if (!arg)
			return -1;
		if (rhs->kind == TK_STRING)
			return cmp_result(op->text, strcmp(arg, rhs->str));
		if (name[0] == '@') {
			fail(pp, P_PREPROC_COND, rhs->pos, "%s must be compared with a string", name);
			return -1;
		}
		if (!lex_number(arg, &have)) {
			fail(pp, P_PARAM_NOT_NUMBER, lhs->pos, "script argument %s ('%s') is not a number",
			     name, arg);
			return -1;
		}
		return cmp_result(op->text, have < rnum ? -1 : have > rnum);
	} else if (lhs->kind == TK_NUMBER) {
		WANT_NUMBER("a number");
		return cmp_result(op->text, lhs->num < rnum ? -1 : lhs->num > rnum);
	} else if (lhs->kind == TK_STRING) {
		WANT_STRING("a string");
		return cmp_result(op->text, strcmp(lhs->str, rhs->str));
	}
	fail(pp, P_PREPROC_COND, lhs->pos, "unknown preprocessor condition '%s' (expected kernel_v, "
	     "kernel_vr, arch, runtime, systemtap_v, systemtap_privilege, guru_mode, CONFIG_..., "
	     "$#, @# or a literal)", name);
	return -1;
#undef WANT_STRING
#undef WANT_NUMBER
#undef WANT_EQNE
}

static int cond_or(struct cev *c, int depth);
static bool expand_at(struct pp *pp, struct token *t);

/* primary := '(' or ')' | comparison */
static int cond_primary(struct cev *c, int depth)
{
	if (is_op(cev_peek(c), "(")) {
		int r;

		if (depth > 50) {
			fail(c->pp, P_NESTING, cev_peek(c)->pos, "preprocessor condition nested too deeply");
			return -1;
		}
		c->i++;
		r = cond_or(c, depth + 1);
		if (r < 0)
			return r;
		if (!is_op(cev_peek(c), ")")) {
			fail(c->pp, P_PREPROC_COND, cev_peek(c)->pos, "expected ')' in preprocessor condition");
			return -1;
		}
		c->i++;
		return r;
	}
	return cond_compare(c);
}

/* and := primary ('&&' primary)* */
static int cond_and(struct cev *c, int depth)
{
	int r = cond_primary(c, depth);

	while (r >= 0 && is_op(cev_peek(c), "&&")) {
		int r2;

		c->i++;
		r2 = cond_primary(c, depth);
		r = r2 < 0 ? r2 : (r && r2);
	}
	return r;
}

/* or := and ('||' and)* */
static int cond_or(struct cev *c, int depth)
{
	int r = cond_and(c, depth);

	while (r >= 0 && is_op(cev_peek(c), "||")) {
		int r2;

		c->i++;
		r2 = cond_and(c, depth);
		r = r2 < 0 ? r2 : (r || r2);
	}
	return r;
}

/* Read the condition up to %? (all in the frame of the %( ) and evaluate it:
 * 1 true, 0 false, -1 error (reported). */
static int eval_condition(struct pp *pp, struct token *start)
{
	tokvec toks = { 0 };
	struct cev c = { .pp = pp };
	struct token *t;
	int keep = pp->frames.len, r;

	for (;;) {
		t = raw_next(pp, keep);
		if (t && t->kind == TK_AT_OP && expand_at(pp, t))
			continue; /* a condition may come from a macro */
		if (!t || t->kind == TK_EOF || is_op(t, "%)") || is_op(t, "%:") || is_op(t, "%(")) {
			fail(pp, P_PREPROC, t ? t->pos : start->pos,
			     "expected %%? after the %%( condition");
			return -1;
		}
		if (t->kind == TK_ERROR)
			return -1;
		if (is_op(t, "%?"))
			break;
		vec_push(&toks, keep_tok(pp, t));
	}
	vec_push(&toks, keep_tok(pp, t)); /* the %? ends the list: never matches an operand */
	c.t = toks.items;
	c.n = toks.len - 1;
	r = cond_or(&c, 0);
	if (r >= 0 && c.i != c.n) {
		fail(pp, P_PREPROC_COND, cev_peek(&c)->pos, "unexpected '%s' in preprocessor condition",
		     cev_peek(&c)->text);
		return -1;
	}
	return r;
}

/* Skip a branch that is not taken. Returns the token that ended it:
 * %: (only when stop_at_else) or %), or NULL after an error. Nested
 * conditionals inside are skipped whole, unevaluated. */
static struct token *skip_branch(struct pp *pp, struct cond *c, bool stop_at_else)
{
	int depth = 0;

	for (;;) {
		struct token *t = raw_next(pp, pp->frames.len);

		if (!t || t->kind == TK_EOF) {
			fail(pp, P_PREPROC, c->pos, "%%( conditional is not closed with %%)");
			return NULL;
		}
		if (t->kind == TK_ERROR)
			return NULL;
		if (is_op(t, "%("))
			depth++;
		else if (is_op(t, "%)") && depth-- == 0)
			return t;
		else if (depth == 0 && is_op(t, "%:")) {
			if (stop_at_else)
				return t;
			fail(pp, P_PREPROC, t->pos, "a second %%: in one conditional");
			return NULL;
		} else if (depth == 0 && is_op(t, "%?")) {
			fail(pp, P_PREPROC, t->pos, "a second %%? in one conditional");
			return NULL;
		}
	}
}

static void begin_conditional(struct pp *pp, struct token *start)
{
	struct cond *c = xcalloc(1, sizeof(*c));
	int r;

	c->frame = top(pp);
	c->pos = start->pos;
	r = eval_condition(pp, start);
	if (r < 0)
		return;
	if (r) {
		c->state = C_THEN;
		vec_push(&pp->conds, c);
		return;
	}
	struct token *end = skip_branch(pp, c, true);

	if (end && is_op(end, "%:")) {
		c->state = C_ELSE;
		vec_push(&pp->conds, c);
	}
}

/* %: or %) reached while emitting a branch. */
static void end_branch(struct pp *pp, struct token *t)
{
	struct cond *c;

	if (!frame_has_conds(pp, top(pp))) {
		fail(pp, P_PREPROC, t->pos, "'%s' without a matching %%(", t->text);
		return;
	}
	c = pp->conds.items[pp->conds.len - 1];
	if (is_op(t, "%)")) {
		pp->conds.len--;
		return;
	}
	if (c->state == C_ELSE) {
		fail(pp, P_PREPROC, t->pos, "a second %%: in one conditional");
		return;
	}
	if (skip_branch(pp, c, false))
		pp->conds.len--;
}

/* ---- macros ------------------------------------------------------------ */

/* @define name[(p1, p2)] %( body %) */
static void define_macro(struct pp *pp, struct token *at)
{
	struct macro *m = xcalloc(1, sizeof(*m));
	struct token *t = raw_next(pp, pp->frames.len);
	int depth = 0;

	if (!t || t->kind != TK_IDENT) {
		fail(pp, P_MACRO, t && t->kind != TK_EOF ? t->pos : at->pos,
		     "expected a macro name after @define");
		return;
	}
	if (!strcmp(t->text, "define")) {
		fail(pp, P_MACRO, t->pos, "@define cannot be redefined");
		return;
	}
	m->name = t->text;
	t = raw_next(pp, pp->frames.len);
	if (t && is_op(t, "(")) {
		m->has_params = true;
		for (;;) {
			t = raw_next(pp, pp->frames.len);
			if (t && t->kind == TK_IDENT) {
				vec_push(&m->params, t->text);
				t = raw_next(pp, pp->frames.len);
				if (t && is_op(t, ","))
					continue;
			}
			if (t && is_op(t, ")"))
				break;
			fail(pp, P_MACRO, t && t->kind != TK_EOF ? t->pos : at->pos,
			     "malformed parameter list of macro @%s", m->name);
			return;
		}
		t = raw_next(pp, pp->frames.len);
	}
	if (!t || !is_op(t, "%(")) {
		fail(pp, P_MACRO, t && t->kind != TK_EOF ? t->pos : at->pos,
		     "expected %%( to start the body of macro @%s", m->name);
		return;
	}
	for (;;) {
		t = raw_next(pp, pp->frames.len);
		if (!t || t->kind == TK_EOF) {
			fail(pp, P_MACRO, at->pos, "the body of macro @%s is not closed with %%)", m->name);
			return;
		}
		if (t->kind == TK_ERROR)
			return;
		if (is_op(t, "%("))
			depth++;
		else if (is_op(t, "%)") && depth-- == 0)
			break;
		vec_push(&m->body, keep_tok(pp, t));
	}
	vec_push(&pp->local.v, m);
}

/* Read "(a, b)" after a macro use, split at top-level commas. */
static tokvec *collect_args(struct pp *pp, const struct macro *m, struct token *use)
{
	tokvec *args = xcalloc((size_t)m->params.len + 1, sizeof(*args));
	int n = 0, depth = 0;
	struct token *t = raw_next(pp, pp->frames.len);

	if (!t || !is_op(t, "(")) {
		fail(pp, P_MACRO_ARGS, use->pos, "macro %s takes %d argument%s", use->text,
		     m->params.len, m->params.len == 1 ? "" : "s");
		return NULL;
	}
	for (;;) {
		t = raw_next(pp, pp->frames.len);
		if (!t || t->kind == TK_EOF) {
			fail(pp, P_MACRO_ARGS, use->pos, "the argument list of %s is not closed", use->text);
			return NULL;
		}
		if (t->kind == TK_ERROR)
			return NULL;
		if (depth == 0 && (is_op(t, ",") || is_op(t, ")"))) {
			n++;
			if (is_op(t, ")"))
				break;
			if (n >= m->params.len) {
				fail(pp, P_MACRO_ARGS, t->pos, "too many arguments to macro %s (it takes %d)",
				     use->text, m->params.len);
				return NULL;
			}
			continue;
		}
		if (is_op(t, "(") || is_op(t, "[") || is_op(t, "{"))
			depth++;
		else if (is_op(t, ")") || is_op(t, "]") || is_op(t, "}"))
			depth--;
		vec_push(&args[n], keep_tok(pp, t));
	}
	if (n != m->params.len) {
		fail(pp, P_MACRO_ARGS, use->pos, "macro %s takes %d argument%s, %d given", use->text,
		     m->params.len, m->params.len == 1 ? "" : "s", n);
		return NULL;
	}
	return args;
}

/* @name: a parameter of the macro being expanded, or a macro. Returns false
 * when it is neither (an @operator for the parser). */
static bool expand_at(struct pp *pp, struct token *t)
{
	struct frame *cur = top(pp), *f;
	struct macro *m;
	tokvec *args = NULL;
	struct env *env;
	struct token use;

	if (cur->env) {
		const struct macro *em = cur->env->m;

		for (int i = 0; i < em->params.len; i++) {
			if (strcmp(em->params.items[i], t->text + 1) == 0) {
				f = push_frame(pp, t->pos);
				if (f) {
					f->toks = cur->env->args[i].items;
					f->ntoks = cur->env->args[i].len;
					f->env = cur->env->caller;
				}
				return true;
			}
		}
	}
	m = find_macro(&pp->local, t->text + 1);
	if (!m && pp->lib)
		m = find_macro(pp->lib, t->text + 1);
	if (!m)
		return false;
	use = *t; /* t may be raw_next's token, which collect_args reuses */
	t = &use;
	if (m->has_params) {
		args = collect_args(pp, m, t);
		if (!args)
			return true;
	}
	env = xcalloc(1, sizeof(*env));
	env->m = m;
	env->args = args;
	env->caller = cur->env;
	f = push_frame(pp, t->pos);
	if (f) {
		f->toks = m->body.items;
		f->ntoks = m->body.len;
		f->env = env;
		f->origin = xmalloc(sizeof(*t));
		*f->origin = *t;
	}
	return true;
}

/* $N / @N / $# / @#. Returns a token to hand out, or NULL when a frame
 * was pushed (or on error). */
static struct token *substitute_param(struct pp *pp, struct token *t)
{
	int nargs = pp->s ? pp->s->args.len : 0;
	const char *arg;

	if (top(pp)->from_arg) {
		fail(pp, P_PARAM_RECURSIVE, t->pos, "script argument text refers to %s", t->text);
		return NULL;
	}
	if (t->text[1] == '#') {
		if (t->text[0] == '$') {
			t->kind = TK_NUMBER;
			t->num = nargs;
		} else {
			t->kind = TK_STRING;
			t->str = xasprintf("%d", nargs);
			t->str_len = strlen(t->str);
		}
		return t;
	}
	arg = script_arg(pp, t);
	if (!arg)
		return NULL;
	if (t->text[0] == '@') {
		t->kind = TK_STRING;
		t->str = xstrdup(arg);
		t->str_len = strlen(arg);
		return t;
	}
	struct frame *f = push_frame(pp, t->pos);

	if (f) {
		char *name = xasprintf("<argument %s>", t->text);
		struct srcfile *sf = srcfile_new(name, xstrdup(arg), strlen(arg));

		free(name);
		f->lx = xcalloc(1, sizeof(*f->lx));
		lexer_init(f->lx, pp->s, sf);
		f->from_arg = true;
		f->origin = xmalloc(sizeof(*t));
		*f->origin = *t;
	}
	return NULL;
}

void pp_next(struct pp *pp, struct token *out)
{
	for (;;) {
		struct token cur, *t = raw_next(pp, 1);

		if (pp->failed || t->kind == TK_ERROR) {
			pp->failed = true;
			*out = *error_token();
			return;
		}
		cur = *t; /* the handlers below read on: raw_next reuses its token */
		t = &cur;
		if (t->kind == TK_EOF && pp->conds.len) {
			fail(pp, P_PREPROC, pp->conds.items[pp->conds.len - 1]->pos,
			     "%%( conditional is not closed with %%)");
			continue;
		}
		if (is_op(t, "%(") || is_op(t, "%?") || is_op(t, "%:") || is_op(t, "%)")) {
			if (is_op(t, "%("))
				begin_conditional(pp, t);
			else if (is_op(t, "%?"))
				fail(pp, P_PREPROC, t->pos, "%%? without a matching %%(");
			else
				end_branch(pp, t);
			continue;
		}
		if (t->kind == TK_AT_OP) {
			if (!strcmp(t->text, "@define")) {
				define_macro(pp, t);
				continue;
			}
			if (expand_at(pp, t))
				continue;
		}
		if (t->kind == TK_PARAM) {
			t = substitute_param(pp, t);
			if (!t)
				continue;
		}
		*out = *t;
		out->version_dependent = pp->version_seen;
		pp->version_seen = false;
		return;
	}
}

/* ---- setup ------------------------------------------------------------- */

static struct pp *pp_create(struct session *s, const struct srcfile *f)
{
	struct pp *pp = xcalloc(1, sizeof(*pp));
	struct frame *fr = xcalloc(1, sizeof(*fr));

	pp->s = s;
	pp->file = f;
	fr->lx = xcalloc(1, sizeof(*fr->lx));
	lexer_init(fr->lx, s, f);
	vec_push(&pp->frames, fr);
	return pp;
}

/* A .stpm file may hold only @define (and conditionals around them). */
static void load_macro_file(struct session *s, const char *path)
{
	struct srcfile *f = srcfile_read(path);
	struct pp *pp;
	struct token t;

	if (!f)
		return;
	f->is_macro = true;
	f->is_tapset = true;
	pp = pp_create(s, f);
	pp->lib = &lib.tab;
	pp_next(pp, &t);
	if (t.kind != TK_EOF && t.kind != TK_ERROR)
		fail(pp, P_MACRO, t.pos, "only @define may appear in a macro file");
	if (pp->failed) {
		lib.failed = true;
		return;
	}
	for (int i = 0; i < pp->local.v.len; i++)
		vec_push(&lib.tab.v, pp->local.v.items[i]);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.stpm below dir, in name order (bounded depth). */
static void scan_macro_dir(struct session *s, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	VEC(char *) names = { 0 };

	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			vec_push(&names, xstrdup(de->d_name));
	closedir(d);
	if (names.len)
		qsort(names.items, (size_t)names.len, sizeof(char *), name_cmp);
	for (int i = 0; i < names.len; i++) {
		char *path = xasprintf("%s/%s", dir, names.items[i]);
		size_t n = strlen(path);
		struct stat st;

		if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
			if (depth < 4)
				scan_macro_dir(s, path, depth + 1);
		} else if (n > 5 && !strcmp(path + n - 5, ".stpm")) {
			load_macro_file(s, path);
		}
		free(path);
		free(names.items[i]);
	}
	free(names.items);
}

struct pp *pp_new(struct session *s, const struct srcfile *f)
{
	struct pp *pp = pp_create(s, f);

	if (lib.s != s) {
		lib.s = s;
		lib.tab.v.len = 0;
		lib.failed = false;
		for (int i = 0; s && i < s->include_dirs.len; i++)
			scan_macro_dir(s, s->include_dirs.items[i], 0);
	}
	if (!f->is_macro)
		pp->lib = &lib.tab;
	if (lib.failed)
		pp->failed = true; /* already reported */
	return pp;
}
