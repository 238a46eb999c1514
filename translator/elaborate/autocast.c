/* autocast.c - pass 2: give `expr->field` (autocast) the type its operand
 * carries, as SystemTap does, by rewriting it before target expressions are
 * resolved:
 *
 *   ($x->a)->b, (@cast(p, "T")->a)->b   the longer chain $x->a->b
 *   f()->b, v->b, a value of @cast(p, "T") (or & of one)   @cast(f(), "T")->b
 *   @choose_defined(a, b)->c           @choose_defined(a->c, b->c)
 *   v->b, f()->b otherwise             an EXPR_CAST "typed like" the $target,
 *                                      @var or @cast chain (or & of one) v or
 *                                      f's returns hold (type_src), whose DWARF
 *                                      type pass 2 finds per probe
 *
 * An operand carries a type when it is one of those, a conditional whose
 * branches carry the same type, an assignment (of what it assigns), a call of a function
 * whose every return value carries the same type (as task_current():
 * `return @task(...)`), or a local variable whose every assignment does.
 * Anything else is an error that suggests @cast, except under @defined and
 * @choose_defined, where it is merely undefined (as in SystemTap).
 */
#include <string.h>

#include "diag.h"
#include "passes.h"
#include "session.h"
#include "walk.h"

/* The type an expression carries: a @cast type, or "follow this $target
 * chain" (its DWARF type, known only per probe). */
struct ctype {
	/* EXPR_CAST (a bare one: type in str/module), EXPR_TARGET,
	 * EXPR_ATVAR, EXPR_ADDROF of one, EXPR_CHOOSE, or NULL */
	const struct expr *src;
	bool via_func;            /* it came out of a function's return */
};

/* Whether two sources carry one type as far as can be told before DWARF:
 * the same node, or bare @casts (maybe under &) to the same type. */
static bool ctype_same(const struct expr *a, const struct expr *b)
{
	if (a == b)
		return true;
	if (a->kind != b->kind)
		return false;
	if (a->kind == EXPR_ADDROF)
		return ctype_same(a->lhs, b->lhs);
	return a->kind == EXPR_CAST && a->str && b->str && !a->chain.len && !b->chain.len &&
	       !strcmp(a->str, b->str) && !a->module == !b->module && (!a->module || !strcmp(a->module, b->module));
}

/* Whether src's DWARF type depends on the probe ($target inside): such a
 * type cannot come out of a function, shared by every probe. */
static bool src_per_probe(const struct expr *src)
{
	switch (src->kind) {
	case EXPR_TARGET:
		return true;
	case EXPR_ADDROF:
		return src_per_probe(src->lhs);
	case EXPR_CHOOSE:
		return src_per_probe(src->args.items[0]) || src_per_probe(src->args.items[1]);
	case EXPR_CAST:
		return !src->str && src->type_src && src_per_probe(src->type_src);
	default:
		return false;
	}
}

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
	if (e->kind != EXPR_ASSIGN || e->op != OP_ASSIGN)
		return WALK_STOP;
	struct ctype u = type_of(a->sc, e->rhs);
	if (!u.src)
		return WALK_STOP;
	if (!a->t.src)
		a->t = u;
	else if (!ctype_same(a->t.src, u.src))
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
	if (!u.src || src_per_probe(u.src) || (r->t.src && !ctype_same(r->t.src, u.src)))
		return WALK_STOP;
	r->t = u;
	r->t.via_func = true;
	return WALK_SKIP;
}

/* Every `return e` of a function body carries the same @cast or @var
 * type (one that does not depend on the probe): that type, or none. A
 * return's local variables are the function's. */
static struct ctype returned(struct scope *sc, struct stmt *body)
{
	struct scope inner = { .body = body, .depth = sc->depth };
	struct returned r = { .sc = &inner };
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
		if (!e->str && !e->type_src)   /* an autocast of unknown type */
			return t;
		/* fall through */
	case EXPR_TARGET:
	case EXPR_ATVAR:
		if (!e->suffix && (e->kind != EXPR_TARGET || strncmp(e->name, "$$", 2)))
			t.src = e;
		return t;
	case EXPR_ADDROF:
		if (e->lhs && (e->lhs->kind == EXPR_CAST || e->lhs->kind == EXPR_TARGET || e->lhs->kind == EXPR_ATVAR) &&
		    !e->lhs->suffix && type_of(sc, e->lhs).src)
			t.src = e;
		return t;
	case EXPR_CHOOSE: {
		/* both operands typed, the first one that resolves chosen per probe */
		struct ctype a = type_of(sc, e->args.items[0]), b = type_of(sc, e->args.items[1]);
		if (a.src && b.src)
			t.src = e;
		return t;
	}
	case EXPR_CALL:
		if (!e->func || !e->func->body)
			return t;
		sc->depth++;
		t = returned(sc, e->func->body);
		sc->depth--;
		return t;
	case EXPR_TERNARY: {   /* c ? &@cast(a, "T") : &@cast(b, "T"): both branches alike */
		struct ctype a = type_of(sc, e->args.items[1]), b = type_of(sc, e->args.items[2]);
		return a.src && b.src && ctype_same(a.src, b.src) ? a : t;
	}
	case EXPR_ASSIGN:      /* (v = &@cast(p, "T"))->f: what is assigned */
		return e->op == OP_ASSIGN ? type_of(sc, e->rhs) : t;
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

/* What the rewriting walk carries: the session for diagnostics, the body,
 * how deep under @defined / @choose_defined (where no type is no error). */
struct rewriting {
	struct session *s;
	struct scope sc;
	int quiet;
};

static void rewrite(struct rewriting *rw, struct expr *e);

/* e (an EXPR_AUTOCAST) becomes the longer chain of its operand src, a
 * $target, @cast or @var expression (or & of one). */
static void extend_chain(struct expr *e, const struct expr *src)
{
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
}

/* @choose_defined(a, b)->c is @choose_defined(a->c, b->c): each operand's
 * autocast typed on its own. */
static void distribute_choose(struct rewriting *rw, struct expr *e)
{
	struct expr *ch = e->lhs;
	struct expr *res = expr_new(EXPR_CHOOSE, ch->pos);

	for (int i = 0; i < 2; i++) {
		struct expr *ac = expr_new(EXPR_AUTOCAST, e->pos);
		ac->lhs = ch->args.items[i];
		for (int k = 0; k < e->chain.len; k++)
			vec_push(&ac->chain, step_clone(e->chain.items[k]));
		ac->suffix = e->suffix;
		rw->quiet += i == 0;   /* the first one only decides */
		rewrite(rw, ac);
		rw->quiet -= i == 0;
		vec_push(&res->args, ac);
	}
	res->type = e->type;
	*e = *res;
}

/* Rewrite e (an EXPR_AUTOCAST) in place. */
static void rewrite(struct rewriting *rw, struct expr *e)
{
	struct scope *sc = &rw->sc;
	const struct expr *lhs = e->lhs;

	if (lhs->kind == EXPR_CHOOSE && lhs->args.len == 2) {
		distribute_choose(rw, e);
		return;
	}
	struct ctype t = type_of(sc, lhs);
	if (!t.src) {
		if (!rw->quiet) {
			diag(rw->s, E_TARGET_VAR, e->pos, "the type of the expression before '->' is unknown (use @cast)");
			return;
		}
		e->kind = EXPR_CAST;   /* unresolvable: @defined says no */
		e->str = NULL;
		e->type_src = NULL;
		return;
	}
	const struct expr *src = t.src;
	if (src->kind == EXPR_ADDROF && src->lhs->kind == EXPR_CAST && src->lhs->str && !src->lhs->chain.len)
		src = src->lhs;   /* &@cast(p, "T") points to a T, as @cast(p, "T") */
	if (src->kind == EXPR_CAST && src->str && src->chain.len == 0) {
		/* @cast(lhs, "type", "module")->chain */
		e->kind = EXPR_CAST;
		e->str = src->str;
		e->module = src->module;
		return;
	}
	if (lhs == t.src && lhs->kind != EXPR_CHOOSE) {
		/* ($x->a)->b is $x->a->b; (&$x->a)->b too */
		extend_chain(e, lhs->kind == EXPR_ADDROF ? lhs->lhs : lhs);
		return;
	}
	/* through a variable or a function: typed like src, per probe */
	e->kind = EXPR_CAST;
	e->str = NULL;
	e->module = NULL;
	e->type_src = t.src;
}

/* Under @defined and @choose_defined an unknown type is no error. */
static enum walk_action rewrite_pre(struct expr *e, void *ctx)
{
	struct rewriting *r = ctx;

	if (e->kind == EXPR_DEFINED || e->kind == EXPR_CHOOSE)
		r->quiet++;
	return WALK_DESCEND;
}

/* After its operand, so that (a->b)->c sees a->b already rewritten. */
static void rewrite_post(struct expr *e, void *ctx)
{
	struct rewriting *r = ctx;

	if (e->kind == EXPR_DEFINED || e->kind == EXPR_CHOOSE)
		r->quiet--;
	if (e->kind == EXPR_AUTOCAST)
		rewrite(r, e);
}

static void rewrite_body(struct session *s, struct stmt *body)
{
	struct rewriting r = { .s = s, .sc = { .body = body } };
	struct walker w = { .expr = rewrite_pre, .expr_post = rewrite_post, .ctx = &r };

	walk_stmt(&w, body);
}

void autocast_rewrite(struct session *s, struct probe **probes, int nprobes)
{
	for (int i = 0; i < nprobes; i++)
		rewrite_body(s, probes[i]->body);
	for (int i = 0; i < s->funcs.len; i++)
		rewrite_body(s, s->funcs.items[i]->body);
}
