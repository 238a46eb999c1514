/* checks.c - what SystemTap refuses in pass 2 that name resolution and type
 * inference let through: a global used both as an array and as a scalar,
 * an assignment to something that is not a variable, an array modified
 * while a foreach walks it (directly or in a function called there),
 * sorting a foreach by an aggregate of an array that holds none, and a
 * probe condition that writes a variable, names one that is not global or
 * calls a function.
 * They run once every body is resolved and typed.
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "passes.h"
#include "probes/provider.h"
#include "session.h"
#include "walk.h"

/* ---- arrays and scalars --------------------------------------------------- */

/* One global, two arities: SystemTap's "inconsistent arity". */
static void check_scalar_arrays(struct session *s)
{
	for (int i = 0; i < s->globals.len; i++) {
		struct sym *g = s->globals.items[i];
		if (g->is_array && g->scalar_use)
			diag(s, E_NOT_SCALAR, g->scalar_use->pos,
			     "array '%s' used as a scalar (inconsistent arity)", g->name);
	}
}

/* ---- lvalues -------------------------------------------------------------- */

static enum walk_action lvalue_expr(struct expr *e, void *ctx)
{
	struct session *s = ctx;

	if (!expr_is_update(e) || !e->lhs)
		return WALK_DESCEND;
	switch (e->lhs->kind) {
	case EXPR_VAR:
	case EXPR_INDEX:
	case EXPR_TARGET:
	case EXPR_CAST:
	case EXPR_ATVAR:
	case EXPR_AUTOCAST:
		break;
	default:
		diag(s, E_NOT_LVALUE, e->pos, "expecting a variable, array element or target variable on the left of '%s'",
		     expr_op_text(e));
		break;
	}
	return WALK_DESCEND;
}

/* ---- foreach: no changes to the array being walked ------------------------ */

struct modifies {
	const struct sym *array;        /* the array a foreach walks */
	const struct expr *where;       /* the first change found */
	bool *seen;                     /* functions walked, by index */
};

static bool changes_element(const struct expr *lhs, const struct sym *a)
{
	return lhs && lhs->kind == EXPR_INDEX && lhs->name && lhs->sym == a;
}

static enum walk_action modifies_stmt(struct stmt *st, void *ctx)
{
	struct modifies *m = ctx;

	if (st->kind == STMT_DELETE && changes_element(st->expr, m->array)) {
		m->where = st->expr;
		return WALK_STOP;
	}
	return WALK_DESCEND;
}

static bool body_modifies(struct modifies *m, struct stmt *body);

static enum walk_action modifies_expr(struct expr *e, void *ctx)
{
	struct modifies *m = ctx;

	if (expr_is_update(e) && changes_element(e->lhs, m->array)) {
		m->where = e->lhs;
		return WALK_STOP;
	}
	if (e->kind == EXPR_CALL && e->func && e->func->body && !m->seen[e->func->index]) {
		m->seen[e->func->index] = true;
		if (body_modifies(m, e->func->body)) {
			m->where = e;   /* report the call */
			return WALK_STOP;
		}
	}
	return WALK_DESCEND;
}

static bool body_modifies(struct modifies *m, struct stmt *body)
{
	const struct walker w = { .stmt = modifies_stmt, .expr = modifies_expr, .ctx = m };

	return !walk_stmt(&w, body);
}

static enum walk_action foreach_stmt(struct stmt *st, void *ctx)
{
	struct session *s = ctx;
	const struct sym *a = st->array ? st->array->sym : NULL;

	if (st->kind != STMT_FOREACH || !a || st->array->kind == EXPR_HIST)
		return WALK_DESCEND;
	if (st->sort_aggr && a->type != TYPE_STATS)
		diag(s, E_STATS, st->array->pos, "foreach sorted by @%s needs an array of aggregates; '%s' holds %ss",
		     st->sort_aggr, a->name, type_name(a->type));
	struct modifies m = { .array = a, .seen = xcalloc(s->funcs.len + 1, sizeof(bool)) };
	if (body_modifies(&m, st->body)) {
		if (m.where->kind == EXPR_CALL)
			diag(s, E_FOREACH_MODIFY, m.where->pos,
			     "function call modifies '%s' during the foreach over it", a->name);
		else
			diag(s, E_FOREACH_MODIFY, m.where->pos,
			     "'%s' modified during the foreach over it", a->name);
	}
	free(m.seen);
	return WALK_DESCEND;   /* foreach loops inside are checked too */
}

/* ---- probe conditions ------------------------------------------------------- */

static enum walk_action cond_expr(struct expr *e, void *ctx)
{
	struct session *s = ctx;

	if (expr_is_update(e)) {
		diag(s, E_PROBE_COND, e->pos, "a probe condition must not modify any variable");
		return WALK_SKIP;
	}
	if (e->kind == EXPR_CALL) {   /* as SystemTap: it runs where probes are armed */
		diag(s, E_PROBE_COND, e->pos, "a probe condition must not call a function ('%s')", e->name);
		return WALK_SKIP;
	}
	if ((e->kind == EXPR_VAR || e->kind == EXPR_INDEX) && e->sym && e->sym->kind != SYM_GLOBAL) {
		diag(s, E_PROBE_COND, e->pos, "a probe condition may only name globals; '%s' is not one", e->name);
		return WALK_SKIP;
	}
	return WALK_DESCEND;
}

/* ---- --check-version ------------------------------------------------------ */

/* Is this tapset construct's text version-dependent (a systemtap_v %( %)
 * condition was evaluated in it: what --compatible gives differs)? */
static bool version_dependent(bool flag, const struct srcfile *file)
{
	return flag && file && file->is_tapset;
}

/* --check-version: a warning (an error with -W) for each tapset alias,
 * function and global the script uses whose text depends on the SystemTap
 * version, as SystemTap's. Each alias once, however many probes it gave. */
void check_version_dependence(struct session *s)
{
	VEC(const struct probe *) seen = { 0 };

	for (int i = 0; i < s->probes.len; i++)
		for (const struct probe *p = s->probes.items[i]->probe; p; p = p->expanded) {
			const struct probe *a = p->alias;
			bool dup = false;
			if (!a || !version_dependent(a->version_dependent, a->file))
				continue;
			for (int j = 0; j < seen.len && !dup; j++)
				dup = seen.items[j] == a;
			if (dup)
				continue;
			vec_push(&seen, a);
			diag(s, W_VERSION_DEPENDENT, a->pos, "this alias uses tapset constructs that are "
			     "dependent on systemtap version");
		}
	free(seen.items);
	for (int i = 0; i < s->funcs.len; i++) {
		const struct func *f = s->funcs.items[i];
		if (version_dependent(f->version_dependent, f->file))
			diag(s, W_VERSION_DEPENDENT, f->pos, "this function uses tapset constructs that are "
			     "dependent on systemtap version: '%s'", f->name);
	}
	for (int i = 0; i < s->globals.len; i++) {
		const struct sym *g = s->globals.items[i];
		if (version_dependent(g->version_dependent, g->file))
			diag(s, W_VERSION_DEPENDENT, g->pos, "this global uses tapset constructs that are "
			     "dependent on systemtap version: '%s'", g->name);
	}
}

/* ---- driver ------------------------------------------------------------------- */

/* @perf reads of one derived probe (perf.c says which are wrong); each
 * expression reported once, whichever derived probe finds it. */
struct perf_reads {
	struct session *s;
	const struct derived_probe *dp;
	VEC(const struct expr *) reported;
};

static enum walk_action perf_expr(struct expr *e, void *ctx)
{
	struct perf_reads *pr = ctx;

	if (e->kind != EXPR_PERF)
		return WALK_DESCEND;
	for (int i = 0; i < pr->reported.len; i++)
		if (pr->reported.items[i] == e)
			return WALK_DESCEND;
	if (!counter_read_allowed(pr->s, pr->dp, e))
		vec_push(&pr->reported, e);
	return WALK_DESCEND;
}

void check_semantics(struct session *s)
{
	struct perf_reads pr = { .s = s };
	const struct walker perfs = { .expr = perf_expr, .ctx = &pr };
	const struct walker lvalues = { .expr = lvalue_expr, .ctx = s };
	const struct walker foreaches = { .stmt = foreach_stmt, .ctx = s };
	const struct walker conds = { .expr = cond_expr, .ctx = s };
	struct probe *p;

	check_scalar_arrays(s);
	for (int i = 0; (p = probe_bodies_next(s, &i));) {
		walk_stmt(&lvalues, p->body);
		walk_stmt(&foreaches, p->body);
		walk_expr(&conds, p->cond);
	}
	for (int i = 0; i < s->funcs.len; i++) {
		walk_stmt(&lvalues, s->funcs.items[i]->body);
		walk_stmt(&foreaches, s->funcs.items[i]->body);
	}
	for (int i = 0; i < s->probes.len; i++) {
		pr.dp = s->probes.items[i];
		walk_stmt(&perfs, pr.dp->probe->body);
	}
	free(pr.reported.items);
}
