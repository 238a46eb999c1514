/* ctxvars.c - a family's context variables that are not DWARF: procfs's
 * $value, netfilter's $hooknum ... $verdict. At derive time the probe
 * body's uses become calls of the family's tapset functions (reading,
 * `= v`, `.= v`); writes that are not allowed are reported here.
 */
#include "provider.h"

#include <string.h>

#include "diag.h"
#include "walk.h"

struct rewrite {
	struct session *s;
	const struct ctx_var *vars;
	int n;
	struct srcpos *guru_reported;
};

static struct expr *as_call(struct expr *e, const char *fn)
{
	e->name = xstrdup(fn);
	if (e->kind == EXPR_ASSIGN) {
		vec_push(&e->args, e->rhs);
		e->lhs = e->rhs = NULL;
		e->op = OP_NONE;
	}
	e->kind = EXPR_CALL;
	return e;
}

static enum walk_action rewrite_var(struct expr *e, void *ctx)
{
	struct rewrite *rw = ctx;
	struct expr *t = e->kind == EXPR_ASSIGN ? e->lhs : e;
	const struct ctx_var *v = NULL;

	if (!t || t->kind != EXPR_TARGET || t->chain.len || t->suffix)
		return WALK_DESCEND;
	for (int k = 0; k < rw->n && !v; k++)
		if (!strcmp(t->name, rw->vars[k].name))
			v = &rw->vars[k];
	if (!v)
		return WALK_DESCEND;
	if (e->kind != EXPR_ASSIGN) {
		if (!v->get) {
			diag(rw->s, E_TARGET_VAR, t->pos, "%s", v->write_only);
			return WALK_SKIP;
		}
		as_call(e, v->get);
		return WALK_DESCEND;
	}
	if (!v->set) {
		diag(rw->s, E_TARGET_VAR, e->pos, "%s", v->read_only);
		return WALK_SKIP;
	}
	/* an alias's copies of one body: the guru-mode error once */
	struct srcpos *last = rw->guru_reported;
	if (v->guru && !rw->s->guru &&
	    (!last || last->file != t->pos.file || last->line != t->pos.line || last->col != t->pos.col)) {
		diag(rw->s, E_GURU, t->pos, "writing to a target variable needs guru mode (-g)");
		if (last)
			*last = t->pos;
	}
	bool append = e->op == OP_CAT;
	if ((e->op != OP_ASSIGN && !append) || (append && !v->append)) {
		diag(rw->s, E_TARGET_VAR, e->pos, "%s takes =%s, not %s", v->name, v->append ? " or .=" : "",
		     expr_op_text(e));
		return WALK_SKIP;
	}
	as_call(e, append ? v->append : v->set);
	return WALK_DESCEND;
}

void ctx_vars_rewrite(struct session *s, struct stmt *body, const struct ctx_var *vars, int n,
		      struct srcpos *guru_reported)
{
	struct rewrite rw = { s, vars, n, guru_reported };
	struct walker w = { .expr = rewrite_var, .ctx = &rw };

	walk_stmt(&w, body);
}
