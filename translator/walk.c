/* walk.c - the one generic walk over the syntax tree (see walk.h for which
 * children are visited in which order).
 */
#include "walk.h"

/* Statements hold no statements inside expressions: without expression
 * callbacks there is nothing to see below a statement's expressions. */
static bool wants_exprs(const struct walker *w)
{
	return w->expr || w->expr_post;
}

bool walk_expr(const struct walker *w, struct expr *e)
{
	if (!e)
		return true;
	enum walk_action a = w->expr ? w->expr(e, w->ctx) : WALK_DESCEND;
	if (a != WALK_DESCEND)
		return a == WALK_SKIP;
	if (e->kind != EXPR_IN && !walk_expr(w, e->lhs))
		return false;
	if (!walk_expr(w, e->rhs))
		return false;
	for (int i = 0; i < e->args.len; i++)
		if (!walk_expr(w, e->args.items[i]))
			return false;
	if (e->kind == EXPR_IN && !walk_expr(w, e->lhs))
		return false;
	for (int i = 0; i < e->chain.len; i++)
		if (e->chain.items[i]->kind == TS_INDEX && !walk_expr(w, e->chain.items[i]->index))
			return false;
	if (w->expr_post)
		w->expr_post(e, w->ctx);
	return true;
}

/* A statement's expressions, only when the walker looks at expressions. */
static bool walk_part(const struct walker *w, struct expr *e)
{
	return !wants_exprs(w) || walk_expr(w, e);
}

bool walk_stmt(const struct walker *w, struct stmt *st)
{
	if (!st)
		return true;
	enum walk_action a = w->stmt ? w->stmt(st, w->ctx) : WALK_DESCEND;
	if (a != WALK_DESCEND)
		return a == WALK_SKIP;
	for (int i = 0; i < st->stmts.len; i++)
		if (!walk_stmt(w, st->stmts.items[i]))
			return false;
	if (!walk_part(w, st->init) || !walk_part(w, st->expr) || !walk_part(w, st->step) ||
	    !walk_part(w, st->value))
		return false;
	for (int i = 0; i < st->keys.len; i++)
		if (!walk_part(w, st->keys.items[i]))
			return false;
	if (!walk_part(w, st->array) || !walk_part(w, st->limit) || !walk_stmt(w, st->body) ||
	    !walk_part(w, st->catch_var) || !walk_stmt(w, st->els))
		return false;
	if (w->stmt_post)
		w->stmt_post(st, w->ctx);
	return true;
}
