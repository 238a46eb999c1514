/* updates.c - pass 2's last step: each update of the script (assignment,
 * ++/--, <<<) lowered to what it writes and how (lowered.h's struct
 * lupdate), for both backends. */
#include "lowered.h"
#include "passes.h"
#include "probes/provider.h"
#include "walk.h"

/* Where e's left side lives. */
static enum lu_home home_of(const struct expr *lhs)
{
	switch (lhs->kind) {
	case EXPR_TARGET:
	case EXPR_CAST:
	case EXPR_ATVAR:
		return LU_TARGET;
	case EXPR_INDEX:
		return lhs->sym && lhs->sym->type == TYPE_STATS ? LU_AGGREGATE : LU_ELEMENT;
	default:
		if (lhs->sym && lhs->sym->type == TYPE_STATS)
			return LU_AGGREGATE;
		return lhs->sym && lhs->sym->kind == SYM_GLOBAL ? LU_GLOBAL : LU_LOCAL;
	}
}

/* The lowering of update e (EXPR_ASSIGN, PREINC, POSTINC). */
static struct lupdate *lower(const struct expr *e)
{
	struct lupdate *u = xcalloc(1, sizeof(*u));

	u->home = home_of(e->lhs);
	u->string = e->lhs->type == TYPE_STRING;
	u->op = e->op;
	if (e->kind != EXPR_ASSIGN) {
		u->how = LU_STEP;
		u->step = e->op == OP_INC ? 1 : -1;
		u->post = e->kind == EXPR_POSTINC;
		u->adds = true;
	} else if (e->op == OP_STAT_ADD) {
		u->how = LU_STAT_ADD;
	} else if (e->op == OP_ASSIGN) {
		u->how = LU_SET;
	} else {
		u->how = u->string && e->op == OP_CAT ? LU_APPEND : LU_COMBINE;
		u->adds = e->op == OP_ADD || e->op == OP_SUB;
	}
	return u;
}

static enum walk_action visit(struct expr *e, void *ctx)
{
	(void)ctx;
	if ((e->kind == EXPR_ASSIGN || e->kind == EXPR_PREINC || e->kind == EXPR_POSTINC) && e->lhs && !e->upd)
		e->upd = lower(e);
	return WALK_DESCEND;
}

/* Every body's updates, once (derived probes share their probe's body). */
void lower_updates(struct session *s)
{
	struct walker w = { .expr = visit };
	struct probe *p;

	for (int i = 0; (p = probe_bodies_next(s, &i));) {
		walk_expr(&w, p->cond);
		walk_stmt(&w, p->body);
	}
	for (int i = 0; i < s->funcs.len; i++)
		walk_stmt(&w, s->funcs.items[i]->body);
}
