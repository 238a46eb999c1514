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
#include "walk.h"

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

/* What `assigned` looks for: v, the type its values carry so far, and
 * whether one did not carry it. */
struct assigned {
	struct scope *sc;
	const struct sym *v;
	struct ctype t;
};

/* Each `v = e` must carry the type the others do; any other write to v
 * (v++, v += e) carries none. */
static enum walk_action assigned_expr(struct expr *e, void *ctx)
{
	struct assigned *a = ctx;

	if ((e->kind != EXPR_ASSIGN && e->kind != EXPR_PREINC && e->kind != EXPR_POSTINC) || !e->lhs ||
	    e->lhs->kind != EXPR_VAR || e->lhs->sym != a->v)
		return WALK_DESCEND;
	if (e->kind != EXPR_ASSIGN || strcmp(e->op, "="))
		return WALK_STOP;
	struct ctype u = type_of(a->sc, e->rhs);
	if (!u.src)
		return WALK_STOP;
	if (!a->t.src)
		a->t = u;
	else if (a->t.src->kind != u.src->kind || (u.src->kind == EXPR_CAST && strcmp(a->t.src->str, u.src->str)))
		return WALK_STOP;
	return WALK_DESCEND;
}

/* A foreach key or value variable takes values that carry no type. */
static enum walk_action assigned_stmt(struct stmt *st, void *ctx)
{
	struct assigned *a = ctx;

	for (int i = 0; i < st->keys.len; i++)
		if (st->keys.items[i]->sym == a->v)
			return WALK_STOP;
	if (st->value && st->value->sym == a->v)
		return WALK_STOP;
	return WALK_DESCEND;
}

/* All values assigned to v (x = e) in a body must carry one type: that
 * type, or none. */
static struct ctype assigned(struct scope *sc, struct stmt *body, const struct sym *v)
{
	struct assigned a = { .sc = sc, .v = v };
	struct walker w = { .stmt = assigned_stmt, .expr = assigned_expr, .ctx = &a };

	return walk_stmt(&w, body) ? a.t : (struct ctype){ 0 };
}

/* What `returned` looks for: the type every `return e` carries so far. */
struct returned {
	struct scope *sc;
	struct ctype t;
};

static enum walk_action returned_stmt(struct stmt *st, void *ctx)
{
	struct returned *r = ctx;

	if (st->kind != STMT_RETURN)
		return WALK_DESCEND;
	struct ctype u = st->expr ? type_of(r->sc, st->expr) : (struct ctype){ 0 };
	if (!u.src || u.src->kind != EXPR_CAST || (r->t.src && strcmp(r->t.src->str, u.src->str)))
		return WALK_STOP;
	r->t = u;
	return WALK_SKIP;
}

/* Every `return e` of a function body carries the same @cast type: that
 * type, or none. */
static struct ctype returned(struct scope *sc, struct stmt *body)
{
	struct returned r = { .sc = sc };
	struct walker w = { .stmt = returned_stmt, .ctx = &r };

	return walk_stmt(&w, body) ? r.t : (struct ctype){ 0 };
}

static struct ctype type_of(struct scope *sc, const struct expr *e)
{
	struct ctype t = { 0 };

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
		t = returned(sc, e->func->body);
		sc->depth--;
		return t;
	case EXPR_VAR:
		if (!e->sym || e->sym->kind != SYM_LOCAL || !sc->body)
			return t;
		sc->depth++;
		t = assigned(sc, sc->body, e->sym);
		sc->depth--;
		return t;
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

/* What the rewriting walk carries: the session for diagnostics, the body. */
struct rewriting {
	struct session *s;
	struct scope sc;
};

/* After its operand, so that (a->b)->c sees a->b already rewritten. */
static void rewrite_post(struct expr *e, void *ctx)
{
	struct rewriting *r = ctx;

	if (e->kind == EXPR_AUTOCAST)
		rewrite(r->s, &r->sc, e);
}

static void rewrite_body(struct session *s, struct stmt *body)
{
	struct rewriting r = { .s = s, .sc = { .body = body } };
	struct walker w = { .expr_post = rewrite_post, .ctx = &r };

	walk_stmt(&w, body);
}

void autocast_rewrite(struct session *s, struct probe **probes, int nprobes)
{
	for (int i = 0; i < nprobes; i++)
		rewrite_body(s, probes[i]->body);
	for (int i = 0; i < s->funcs.len; i++)
		rewrite_body(s, s->funcs.items[i]->body);
}
