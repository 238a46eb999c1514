/* autocast.c - pass 2: give `expr->field` (autocast) the type its operand
 * carries, as SystemTap does, by rewriting it into @cast or a longer $target
 * chain before target expressions are resolved.
 *
 * An operand carries a type when it is a @cast or $target expression, a
 * call of a function whose every return value carries the same type (as
 * task_current(): `return @task(...)`), or a local variable whose every
 * assignment does. Everything else is an error that suggests @cast.
 */
#include <string.h>

#include "diag.h"
#include "passes.h"
#include "session.h"

/* The type an expression carries: a @cast type, or "follow this $target
 * chain" (its DWARF type, known only per probe). */
struct ctype {
	const struct expr *src;   /* EXPR_CAST (type in str/module) or EXPR_TARGET/EXPR_ATVAR, or NULL */
};

struct scope {
	struct stmt *body;
	int depth;
};

static struct ctype type_of(struct scope *sc, const struct expr *e);

/* All values assigned to v (x = e) in a body must carry one type. */
static void assigned(struct scope *sc, const struct stmt *st, const struct sym *v, struct ctype *t,
		     bool *bad);

static void assigned_expr(struct scope *sc, const struct expr *e, const struct sym *v, struct ctype *t,
			  bool *bad)
{
	if (!e || *bad)
		return;
	if ((e->kind == EXPR_ASSIGN || e->kind == EXPR_PREINC || e->kind == EXPR_POSTINC) && e->lhs &&
	    e->lhs->kind == EXPR_VAR && e->lhs->sym == v) {
		if (e->kind != EXPR_ASSIGN || strcmp(e->op, "=")) {
			*bad = true;
			return;
		}
		struct ctype u = type_of(sc, e->rhs);
		if (!u.src) {
			*bad = true;
			return;
		}
		if (!t->src)
			*t = u;
		else if (t->src->kind != u.src->kind || (u.src->kind == EXPR_CAST && strcmp(t->src->str, u.src->str)))
			*bad = true;
	}
	assigned_expr(sc, e->lhs, v, t, bad);
	assigned_expr(sc, e->rhs, v, t, bad);
	for (int i = 0; i < e->args.len; i++)
		assigned_expr(sc, e->args.items[i], v, t, bad);
}

static void assigned(struct scope *sc, const struct stmt *st, const struct sym *v, struct ctype *t,
		     bool *bad)
{
	if (!st || *bad)
		return;
	for (int i = 0; i < st->stmts.len; i++)
		assigned(sc, st->stmts.items[i], v, t, bad);
	assigned_expr(sc, st->expr, v, t, bad);
	assigned_expr(sc, st->init, v, t, bad);
	assigned_expr(sc, st->step, v, t, bad);
	assigned(sc, st->body, v, t, bad);
	assigned(sc, st->els, v, t, bad);
	for (int i = 0; i < st->keys.len; i++)
		if (st->keys.items[i]->sym == v)
			*bad = true;
	if (st->value && st->value->sym == v)
		*bad = true;
}

/* Every `return e` of a function body carries the same type? */
static void returned(struct scope *sc, const struct stmt *st, struct ctype *t, bool *bad)
{
	if (!st || *bad)
		return;
	if (st->kind == STMT_RETURN) {
		struct ctype u = st->expr ? type_of(sc, st->expr) : (struct ctype){ 0 };
		if (!u.src || u.src->kind != EXPR_CAST || (t->src && strcmp(t->src->str, u.src->str)))
			*bad = true;
		else
			*t = u;
		return;
	}
	for (int i = 0; i < st->stmts.len; i++)
		returned(sc, st->stmts.items[i], t, bad);
	returned(sc, st->body, t, bad);
	returned(sc, st->els, t, bad);
}

static struct ctype type_of(struct scope *sc, const struct expr *e)
{
	struct ctype t = { 0 };
	bool bad = false;

	if (!e || sc->depth > 16)
		return t;
	switch (e->kind) {
	case EXPR_CAST:
	case EXPR_TARGET:
	case EXPR_ATVAR:
		if (!e->suffix && (e->kind != EXPR_TARGET || strncmp(e->name, "$$", 2)))
			t.src = e;
		return t;
	case EXPR_CALL:
		if (!e->func || !e->func->body)
			return t;
		sc->depth++;
		returned(sc, e->func->body, &t, &bad);
		sc->depth--;
		return bad ? (struct ctype){ 0 } : t;
	case EXPR_VAR:
		if (!e->sym || e->sym->kind != SYM_LOCAL || !sc->body)
			return t;
		sc->depth++;
		assigned(sc, sc->body, e->sym, &t, &bad);
		sc->depth--;
		return bad ? (struct ctype){ 0 } : t;
	default:
		return t;
	}
}

/* Rewrite e (an EXPR_AUTOCAST) in place. */
static void rewrite(struct session *s, struct scope *sc, struct expr *e)
{
	struct ctype t = type_of(sc, e->lhs);

	if (!t.src) {
		diag(s, E_TARGET_VAR, e->pos, "the type of the expression before '->' is unknown (use @cast)");
		return;
	}
	if (t.src->kind == EXPR_CAST && t.src->chain.len == 0) {
		/* @cast(lhs, "type", "module")->chain */
		e->kind = EXPR_CAST;
		e->str = t.src->str;
		e->module = t.src->module;
		return;
	}
	if (e->lhs == t.src) {
		/* ($x->a)->b is $x->a->b */
		struct expr *src = e->lhs;
		struct expr copy = *src;
		VEC(struct target_step *) chain = { 0 };
		for (int i = 0; i < src->chain.len; i++)
			vec_push(&chain, src->chain.items[i]);
		for (int i = 0; i < e->chain.len; i++)
			vec_push(&chain, e->chain.items[i]);
		copy.pos = e->pos;
		copy.suffix = e->suffix;
		copy.chain.items = chain.items;
		copy.chain.len = chain.len;
		copy.chain.cap = chain.cap;
		*e = copy;
		return;
	}
	diag(s, E_TARGET_VAR, e->pos,
	     "'->' on a value whose type comes from a $target chain through a variable or function is not supported yet (use @cast)");
}

static void walk_expr(struct session *s, struct scope *sc, struct expr *e);

static void walk_stmt(struct session *s, struct scope *sc, struct stmt *st)
{
	if (!st)
		return;
	for (int i = 0; i < st->stmts.len; i++)
		walk_stmt(s, sc, st->stmts.items[i]);
	walk_expr(s, sc, st->expr);
	walk_expr(s, sc, st->init);
	walk_expr(s, sc, st->step);
	walk_expr(s, sc, st->limit);
	walk_stmt(s, sc, st->body);
	walk_stmt(s, sc, st->els);
}

static void walk_expr(struct session *s, struct scope *sc, struct expr *e)
{
	if (!e)
		return;
	walk_expr(s, sc, e->lhs);
	walk_expr(s, sc, e->rhs);
	for (int i = 0; i < e->args.len; i++)
		walk_expr(s, sc, e->args.items[i]);
	for (int i = 0; i < e->chain.len; i++)
		if (e->chain.items[i]->kind == TS_INDEX)
			walk_expr(s, sc, e->chain.items[i]->index);
	if (e->kind == EXPR_AUTOCAST)
		rewrite(s, sc, e);
}

void autocast_rewrite(struct session *s, struct probe **probes, int nprobes)
{
	for (int i = 0; i < nprobes; i++) {
		struct scope sc = { .body = probes[i]->body };
		walk_stmt(s, &sc, probes[i]->body);
	}
	for (int i = 0; i < s->funcs.len; i++) {
		struct scope sc = { .body = s->funcs.items[i]->body };
		walk_stmt(s, &sc, s->funcs.items[i]->body);
	}
}
