/* optimize.c - what SystemTap's pass 2 leaves out of a script before it
 * resolves target variables and infers types (unless -u): expression
 * statements that have no effect (`$x;`, `a[k] + 1;`, a side-effect-free
 * `if` with empty branches, the branch of an `if (0)` / `if (1)` not taken), and `=` / `<<<` into locals that are never
 * read (`a = b + 2` becomes `b + 2`, then goes too). Scripts rely on it: a `$var`
 * in such a statement is never resolved, and a never-read local gets no
 * type. Repeated until nothing changes, as one elision can make a local
 * unread.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "passes.h"
#include "probes/provider.h"
#include "session.h"
#include "walk.h"

/* ---- side effects ---------------------------------------------------------- */

/* open: the functions whose bodies are being looked at (a recursive call is
 * taken as an effect) */
static bool func_effect_free(struct func *f, funcvec *open);

/* A local or parameter of the function being looked at: storing into it
 * is no effect outside. */
static bool is_own_var(const struct expr *e)
{
	return e && e->kind == EXPR_VAR && e->sym &&
	       (e->sym->kind == SYM_LOCAL || e->sym->kind == SYM_PARAM);
}

/* sprintf and the sprint family make a string and print nothing: no effect,
 * as in SystemTap (its print_format is one only when it prints). */
static bool is_sprint(const struct expr *e)
{
	return !e->func && e->print && e->print->to_string;
}

/* An embedded-C expression that says it is pure (SystemTap's / * pure * /
 * pragma, as task_current()'s %{ (long)current %}). */
static bool is_pure_embedded(const struct expr *e)
{
	return e->str && strstr(e->str, "/* pure */");
}

/* Inside a called function's body, as SystemTap's side-effect analysis:
 * stores into its own locals are no effect; anything else that writes,
 * prints, calls an impure function or runs embedded C is. */
static enum walk_action callee_effect_expr(struct expr *e, void *ctx)
{
	switch (e->kind) {
	case EXPR_ASSIGN:
	case EXPR_PREINC:
	case EXPR_POSTINC:
		return is_own_var(e->lhs) ? WALK_DESCEND : WALK_STOP;
	case EXPR_CALL:
		return is_sprint(e) || (e->func && func_effect_free(e->func, ctx)) ? WALK_DESCEND : WALK_STOP;
	case EXPR_EMBEDDED:
		return is_pure_embedded(e) ? WALK_DESCEND : WALK_STOP;
	case EXPR_ENTRY:
	case EXPR_REGEX:
	case EXPR_STATOP:
		return WALK_STOP;
	case EXPR_BINARY:
		if (e->op == OP_DIV || e->op == OP_MOD)
			return WALK_STOP;
		return WALK_DESCEND;
	default:
		return WALK_DESCEND;
	}
}

static enum walk_action callee_effect_stmt(struct stmt *st, void *ctx)
{
	switch (st->kind) {
	case STMT_EMBEDDED:
	case STMT_NEXT:
		return WALK_STOP;
	case STMT_DELETE:
		return is_own_var(st->expr) ? WALK_DESCEND : WALK_STOP;
	default:
		return WALK_DESCEND;
	}
}

/* Is a call to f without effect, so that `f(x);` may go? An embedded-C
 * function says so with its pure pragma (SystemTap's / * pure * /); a
 * script function is when its body is. */
static bool func_effect_free(struct func *f, funcvec *open)
{
	const struct walker w = { .expr = callee_effect_expr, .stmt = callee_effect_stmt, .ctx = open };
	bool free_of_effect;

	if (f->embedded) {
		for (int i = 0; i < f->pragmas.len; i++)
			if (!strcmp(f->pragmas.items[i], "pure"))
				return true;
		return false;
	}
	if (!f->body)
		return false;
	for (int i = 0; i < open->len; i++)
		if (open->items[i] == f)
			return false;
	vec_push(open, f);
	free_of_effect = walk_stmt(&w, f->body);
	open->len--;
	return free_of_effect;
}

/* A call to f (not a print-family builtin) has no effect. */
static bool call_effect_free(struct func *f)
{
	funcvec open = { 0 };
	bool r = func_effect_free(f, &open);

	free(open.items);
	return r;
}

static enum walk_action effect_expr(struct expr *e, void *ctx)
{
	switch (e->kind) {
	case EXPR_ASSIGN:
	case EXPR_PREINC:
	case EXPR_POSTINC:
	case EXPR_CALL:        /* print family, impure functions: kept */
		if (e->kind == EXPR_CALL && is_sprint(e))
			return WALK_DESCEND;
		if (e->func && call_effect_free(e->func))
			return WALK_DESCEND;
		return WALK_STOP;
	case EXPR_EMBEDDED:
		return is_pure_embedded(e) ? WALK_DESCEND : WALK_STOP;
	case EXPR_ENTRY:
	case EXPR_REGEX:
		return WALK_STOP;
	case EXPR_BINARY:      /* checked division can fail: kept, as SystemTap */
		if (e->op == OP_DIV || e->op == OP_MOD)
			return WALK_STOP;
		return WALK_DESCEND;
	case EXPR_STATOP:      /* @avg of an empty aggregate is an error */
		return WALK_STOP;
	default:
		return WALK_DESCEND;
	}
}

static bool has_effect(struct expr *e)
{
	const struct walker w = { .expr = effect_expr };

	return e && !walk_expr(&w, e);
}

/* ---- reads of locals -------------------------------------------------------- */

struct reads {
	VEC(struct sym *) read;         /* locals read somewhere in the body */
};

static enum walk_action reads_expr(struct expr *e, void *ctx)
{
	struct reads *r = ctx;

	if (e->kind == EXPR_VAR && e->sym && e->sym->kind == SYM_LOCAL)
		vec_push(&r->read, e->sym);
	if (expr_is_update(e) && e->lhs && e->lhs->kind == EXPR_VAR) {
		/* the stored-to local itself is not a read */
		const struct walker w = { .expr = reads_expr, .ctx = r };
		walk_expr(&w, e->rhs);
		for (int i = 0; i < e->args.len; i++)
			walk_expr(&w, e->args.items[i]);
		return WALK_SKIP;
	}
	return WALK_DESCEND;
}

static bool is_read(const struct reads *r, const struct sym *v)
{
	for (int i = 0; i < r->read.len; i++)
		if (r->read.items[i] == v)
			return true;
	return false;
}

/* ---- elision ------------------------------------------------------------------ */

struct elide {
	struct session *s;
	struct reads reads;
	bool changed;
	bool in_tapset;
};

/* Is an elision at pos said? Not in the tapset library: neither in its
 * functions nor in an alias's prologue copied into the user's probe. */
static bool elision_said(const struct elide *el, struct srcpos pos)
{
	return !el->in_tapset && !(pos.file && pos.file->is_tapset);
}

/* e, with `x = v` and `x <<< v` into unread locals replaced by v (as
 * SystemTap: x++, x += v, x .= v are kept). */
static struct expr *without_dead_stores(struct elide *el, struct expr *e)
{
	while (e && e->kind == EXPR_ASSIGN && (e->op == OP_ASSIGN || e->op == OP_STAT_ADD) &&
	       e->lhs && e->lhs->kind == EXPR_VAR && e->lhs->sym && e->lhs->sym->kind == SYM_LOCAL &&
	       !is_read(&el->reads, e->lhs->sym)) {
		if (elision_said(el, e->pos))
			diag(el->s, W_ELIDED, e->pos, "eliding assignment to '%s'", e->lhs->name);
		e = e->rhs;
		el->changed = true;
	}
	return e;
}

static bool empty_stmt(const struct stmt *st)
{
	if (!st || st->kind == STMT_NULL)
		return true;
	if (st->kind != STMT_BLOCK)
		return false;
	for (int i = 0; i < st->stmts.len; i++)
		if (!empty_stmt(st->stmts.items[i]))
			return false;
	return true;
}

static void make_null(struct elide *el, struct stmt *st)
{
	struct srcpos pos = st->pos;

	memset(st, 0, sizeof(*st));   /* nothing of it is walked any more */
	st->kind = STMT_NULL;
	st->pos = pos;
	el->changed = true;
}

static enum walk_action elide_stmt(struct stmt *st, void *ctx)
{
	struct elide *el = ctx;

	switch (st->kind) {
	case STMT_EXPR:
		st->expr = without_dead_stores(el, st->expr);
		if (!has_effect(st->expr)) {
			if (st->expr && elision_said(el, st->expr->pos))
				diag(el->s, W_ELIDED, st->expr->pos, "eliding side-effect-free expression");
			make_null(el, st);
		}
		return WALK_SKIP;
	case STMT_IF:
		if (!has_effect(st->expr) && empty_stmt(st->body) && empty_stmt(st->els)) {
			make_null(el, st);
			return WALK_SKIP;
		}
		if (st->expr && st->expr->kind == EXPR_NUM) {   /* if (0), if (1): the branch taken */
			struct stmt *taken = st->expr->num ? st->body : st->els;
			struct srcpos pos = st->pos;
			if (taken)
				*st = *taken;
			else
				make_null(el, st);
			st->pos = pos;
			el->changed = true;
			return WALK_SKIP;   /* (walked in the next round) */
		}
		return WALK_DESCEND;
	case STMT_FOREACH:
		/* walking an array for nothing (after its body was elided) */
		if (empty_stmt(st->body) && !has_effect(st->limit)) {
			make_null(el, st);
			return WALK_SKIP;
		}
		return WALK_DESCEND;
	case STMT_FOR:
		st->init = without_dead_stores(el, st->init);
		st->step = without_dead_stores(el, st->step);
		if (st->init && !has_effect(st->init)) {
			st->init = NULL;
			el->changed = true;
		}
		if (st->step && !has_effect(st->step)) {
			st->step = NULL;
			el->changed = true;
		}
		return WALK_DESCEND;
	default:
		return WALK_DESCEND;
	}
}

/* Every local named anywhere in the body, stores and foreach keys too. */
static enum walk_action named_expr(struct expr *e, void *ctx)
{
	struct reads *r = ctx;

	if (e->kind == EXPR_VAR && e->sym && e->sym->kind == SYM_LOCAL)
		vec_push(&r->read, e->sym);
	return WALK_DESCEND;
}

/* Locals that no statement names any more are gone (as SystemTap's
 * "eliding unused variable"): they get no type and no frame slot. */
static void drop_unnamed_locals(struct stmt *body, symvec *locals)
{
	struct reads named = { 0 };
	const struct walker w = { .expr = named_expr, .ctx = &named };
	int n = 0;

	walk_stmt(&w, body);
	for (int i = 0; i < locals->len; i++)
		if (is_read(&named, locals->items[i]))
			locals->items[n++] = locals->items[i];
	locals->len = n;
	free(named.read.items);
}

/* ---- constant folding -------------------------------------------------------- */

/* "a" . "b" is "ab", as SystemTap's constant folder makes it (literals
 * joined by a $1 that holds an expression fold into one). */
static void fold_concat(struct expr *e)
{
	if (e->kind != EXPR_BINARY || e->op != OP_CAT)
		return;
	fold_concat(e->lhs);
	fold_concat(e->rhs);
	if (e->lhs->kind != EXPR_STR || e->rhs->kind != EXPR_STR)
		return;
	struct expr *l = e->lhs, *r = e->rhs;
	char *str = xmalloc(l->str_len + r->str_len + 1);
	memcpy(str, l->str, l->str_len);
	memcpy(str + l->str_len, r->str, r->str_len);
	str[l->str_len + r->str_len] = 0;
	e->kind = EXPR_STR;
	e->str = str;
	e->str_len = l->str_len + r->str_len;
	e->lhs = e->rhs = NULL;
	e->op = OP_NONE;
}

static enum walk_action fold_expr(struct expr *e, void *ctx)
{
	(void)ctx;
	fold_concat(e);
	return WALK_DESCEND;
}

static void optimize_body(struct session *s, struct stmt *body, symvec *locals, const struct srcfile *file)
{
	struct elide el = { .s = s, .in_tapset = file && file->is_tapset };
	const struct walker fw = { .expr = fold_expr };

	walk_stmt(&fw, body);
	do {
		const struct walker rw = { .expr = reads_expr, .ctx = &el.reads };
		const struct walker ew = { .stmt = elide_stmt, .ctx = &el };
		el.reads.read.len = 0;
		walk_stmt(&rw, body);
		el.changed = false;
		walk_stmt(&ew, body);
	} while (el.changed);
	free(el.reads.read.items);
	drop_unnamed_locals(body, locals);
}

/* A global some kept statement still names stays "read" (kept in the
 * module); one that only elided statements named is elided with them. */
static enum walk_action global_expr(struct expr *e, void *ctx)
{
	if (e->sym && e->sym->kind == SYM_GLOBAL)
		e->sym->read = true;
	if (e->kind == EXPR_IN && e->lhs && e->lhs->sym)
		e->lhs->sym->read = true;
	return WALK_DESCEND;
}

static void mark_named_globals(struct session *s)
{
	const struct walker w = { .expr = global_expr };
	struct probe *p;

	for (int i = 0; i < s->globals.len; i++)
		s->globals.items[i]->read = false;
	for (int i = 0; (p = probe_bodies_next(s, &i));)
		walk_stmt(&w, p->body);
	for (int i = 0; i < s->funcs.len; i++)
		walk_stmt(&w, s->funcs.items[i]->body);
}

/* Functions still called from some kept statement, through other called
 * functions too. */
static enum walk_action called_expr(struct expr *e, void *ctx)
{
	funcvec *called = ctx;

	if (e->kind == EXPR_CALL && e->func) {
		for (int i = 0; i < called->len; i++)
			if (called->items[i] == e->func)
				return WALK_DESCEND;
		vec_push(called, e->func);
	}
	return WALK_DESCEND;
}

/* A function whose every call was elided (`f(x);` with f pure) is left
 * out of the module, as SystemTap does: its embedded C is never compiled. */
static void drop_uncalled_funcs(struct session *s)
{
	funcvec called = { 0 };
	const struct walker w = { .expr = called_expr, .ctx = &called };
	struct probe *p;
	int n = 0;

	for (int i = 0; (p = probe_bodies_next(s, &i));) {
		walk_stmt(&w, p->body);
		walk_expr(&w, p->cond);
		for (int j = 0; j < p->points.len; j++)
			walk_expr(&w, p->points.items[j]->cond);
	}
	for (int i = 0; i < called.len; i++)   /* grows while it is walked */
		walk_stmt(&w, ((struct func *)called.items[i])->body);
	for (int i = 0; i < s->funcs.len; i++) {
		struct func *f = s->funcs.items[i];
		bool kept = false;
		for (int j = 0; j < called.len && !kept; j++)
			kept = called.items[j] == f;
		if (!kept) {
			f->used = false;
			continue;
		}
		f->index = n;
		s->funcs.items[n++] = f;
	}
	s->funcs.len = n;
	free(called.items);
}

void optimize_bodies(struct session *s)
{
	struct probe *p;

	if (s->keep_unused)
		return;
	for (int i = 0; (p = probe_bodies_next(s, &i));)
		optimize_body(s, p->body, &p->locals, p->file);
	for (int i = 0; i < s->funcs.len; i++)
		if (s->funcs.items[i]->body)
			optimize_body(s, s->funcs.items[i]->body, &s->funcs.items[i]->locals,
				      s->funcs.items[i]->file);
	drop_uncalled_funcs(s);
	mark_named_globals(s);
}

/* A perf counter's point (perf....counter("name") {}): it defines what
 * @perf("name") reads, whatever its body. */
static bool is_counter(const struct probe_point *pp)
{
	for (int i = 0; pp && i < pp->comps.len; i++)
		if (!strcmp(pp->comps.items[i]->name, "counter"))
			return true;
	return false;
}

/* The point as script sc wrote it of the probe at pos, or NULL. */
static const struct probe_point *point_at(const struct script *sc, struct srcpos pos)
{
	for (int i = 0; sc && i < sc->probes.len; i++) {
		const struct probe *p = sc->probes.items[i];
		if (p->pos.file == pos.file && p->pos.line == pos.line && p->pos.col == pos.col && p->points.len)
			return p->points.items[0];
	}
	return NULL;
}

/* The point as the script wrote it, of the probe dp came from (dp's own
 * is an alias's expansion's). */
static const struct probe_point *written_point(struct session *s, const struct derived_probe *dp)
{
	const struct probe_point *pp = point_at(s->user, dp->probe->pos);

	for (int k = 0; !pp && k < s->user_more.len; k++)
		pp = point_at(s->user_more.items[k], dp->probe->pos);
	return pp ? pp : dp->point;
}

/* SystemTap's pass 2 drops a probe whose body does nothing once the
 * statements above are gone (`probe begin {}`): it registers nothing, with
 * a warning; a script left with no probe fails ("no probes found"). Not
 * with -u, nor for -l/-L. Not a probe through an alias either: whether
 * SystemTap's does anything depends on its tapset's prologue, not on
 * cstap's (its syscall.open and udp.* keep calls it takes for effects). */
int elide_empty_probes(struct session *s)
{
	const struct probe *last = NULL;
	int n = 0;

	if (s->keep_unused || s->list_mode || s->timing)   /* -t reports every probe */
		return 0;
	for (int i = 0; i < s->probes.len; i++) {
		struct derived_probe *dp = s->probes.items[i];
		if (!empty_stmt(dp->probe->body) || is_counter(dp->point) || dp->probe->alias) {
			dp->index = n;
			s->probes.items[n++] = dp;
			continue;
		}
		if (dp->probe != last && dp->probe->file && !dp->probe->file->is_tapset) {
			char *t = pp_text(written_point(s, dp));
			diag(s, W_PROBE_ELIDED, dp->probe->pos, "probe %s has been elided: its body does nothing", t);
			free(t);
		}
		last = dp->probe;
	}
	if (n == 0 && s->probes.len) {
		s->probes.len = 0;
		diag(s, E_NO_PROBES, s->user->probes.len ? s->user->probes.items[0]->pos : (struct srcpos){0},
		     "no probes found: no probe's body does anything (SystemTap elides such probes; -u keeps them)");
		return 1;
	}
	s->probes.len = n;
	return 0;
}
