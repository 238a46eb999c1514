/* analyze.c - pass 2's last step: the decisions about the annotated tree
 * that pass 3 only reads, so that pass 3 just writes C.
 *
 *   - which globals are lock-free counters (sym->atomic);
 */
#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "probes/provider.h"
#include "session.h"
#include "walk.h"

/* ---- lock-free counters ------------------------------------------------------ */

struct sym *bumped_global(const struct expr *e)
{
	if (!e || !e->lhs || e->lhs->kind != EXPR_VAR || !e->lhs->sym || e->lhs->sym->kind != SYM_GLOBAL)
		return NULL;
	if (e->kind == EXPR_PREINC || e->kind == EXPR_POSTINC ||
	    (e->kind == EXPR_ASSIGN && (!strcmp(e->op, "+=") || !strcmp(e->op, "-="))))
		return e->lhs->sym;
	return NULL;
}

/* The expression of the expression statement being walked: a bump there
 * is a whole statement. */
struct non_atomic {
	const struct expr *stmt_expr;
};

/* delete, foreach keys and values, catch variables write whole values. */
static enum walk_action non_atomic_stmt(struct stmt *st, void *ctx)
{
	struct non_atomic *n = ctx;

	if (st->kind == STMT_EXPR)
		n->stmt_expr = st->expr;
	if (st->kind == STMT_DELETE && st->expr && st->expr->sym)
		st->expr->sym->atomic = false;
	for (int i = 0; i < st->keys.len; i++)
		if (st->keys.items[i]->sym)
			st->keys.items[i]->sym->atomic = false;
	if (st->value && st->value->sym)
		st->value->sym->atomic = false;
	if (st->catch_var && st->catch_var->sym)
		st->catch_var->sym->atomic = false;
	return WALK_DESCEND;
}

/* Any write to a global other than a bump statement makes it an ordinary,
 * locked variable; reads are fine either way. */
static enum walk_action non_atomic_expr(struct expr *e, void *ctx)
{
	struct non_atomic *n = ctx;

	if (e->kind == EXPR_ASSIGN || e->kind == EXPR_PREINC || e->kind == EXPR_POSTINC) {
		if (!(e == n->stmt_expr && bumped_global(e)) && e->lhs && e->lhs->sym)
			e->lhs->sym->atomic = false;
	}
	return WALK_DESCEND;
}

/* Decide which globals are lock-free counters: long scalars whose only
 * writes are bump statements. They need no lock: every update is one
 * atomic64 operation and a read sees a whole value. */
static void choose_atomic_counters(struct session *s)
{
	struct non_atomic n = { 0 };
	struct walker w = { .stmt = non_atomic_stmt, .expr = non_atomic_expr, .ctx = &n };

	for (int i = 0; i < s->globals.len; i++) {
		struct sym *v = s->globals.items[i];
		v->atomic = v->type == TYPE_LONG && !v->is_array && !getenv("CSTAP_NO_ATOMIC");
	}
	for (int i = 0; i < s->probes.len; i++)
		walk_stmt(&w, s->probes.items[i]->probe->body);
	for (int i = 0; i < s->funcs.len; i++)
		walk_stmt(&w, s->funcs.items[i]->body);
}

void analyze(struct session *s)
{
	choose_atomic_counters(s);
}
