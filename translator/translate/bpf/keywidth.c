/* keywidth.c - which string keys of a BPF map hold 16 bytes, not 64.
 *
 * A string is BPF_STRSZ (64) bytes (-D MAXSTRINGLEN: more), and so is a
 * string key: every lookup hashes and compares all 64. `a[execname()] <<< 1`, the commonest
 * aggregate there is, then spends most of its time on the 48 zero bytes
 * after a 15-character name. When every key the script gives position k
 * of array v is at most 15 characters - execname() (a task's comm), a
 * literal that short, a foreach variable over position k of v that nothing
 * else assigns - the map's key holds BG_KEY_NARROW bytes there (bundle
 * letter c). Such a key cannot be longer, so the narrow copy loses nothing.
 */
#include <string.h>

#include "gen.h"
#include "probes/provider.h"
#include "walk.h"

/* What the walk learns: per global, its string key positions still narrow;
 * the foreach variables bound to (global, position); the locals assigned. */
struct kw_bind {
	const struct sym *var, *arr;   /* foreach's key variable var, over arr's key k */
	int k;
};

struct kw {
	struct session *s;
	unsigned *narrow;
	VEC(struct kw_bind) binds;
	VEC(const struct sym *) assigned;
	bool second;            /* the second walk: keys judged */
};

/* Is e, given as key k of arr, at most 15 characters for sure? */
static bool short_key(struct kw *w, const struct sym *arr, int k, const struct expr *e)
{
	if (e->kind == EXPR_STAR)
		return true;
	if (e->kind == EXPR_STR)
		return e->str_len < BG_KEY_NARROW;
	if (e->kind == EXPR_CALL)
		return bg_intrinsic_str_bound(e) > 0 && bg_intrinsic_str_bound(e) <= BG_KEY_NARROW;
	if (e->kind != EXPR_VAR || !e->sym || e->sym->kind == SYM_GLOBAL)
		return false;
	for (int i = 0; i < w->assigned.len; i++)
		if (w->assigned.items[i] == e->sym)
			return false;
	for (int i = 0; i < w->binds.len; i++)
		if (w->binds.items[i].var == e->sym)
			return w->binds.items[i].arr == arr && w->binds.items[i].k == k;
	return false;
}

/* Keys args given to array arr: the long ones make their positions wide. */
static void judge(struct kw *w, const struct sym *arr, struct expr **args, int n)
{
	if (!arr || !arr->is_array || arr->kind != SYM_GLOBAL)
		return;
	for (int k = 0; k < n && k < arr->nkeys && k < 32; k++)
		if (arr->key_types[k] == TYPE_STRING && !short_key(w, arr, k, args[k]))
			w->narrow[arr->index] &= ~(1u << k);
}

static enum walk_action on_expr(struct expr *e, void *ctx)
{
	struct kw *w = ctx;

	if (!w->second) {   /* the locals anything assigns */
		if ((e->kind == EXPR_ASSIGN || e->kind == EXPR_PREINC || e->kind == EXPR_POSTINC) && e->lhs &&
		    e->lhs->kind == EXPR_VAR && e->lhs->sym)
			vec_push(&w->assigned, e->lhs->sym);
		return WALK_DESCEND;
	}
	if (e->kind == EXPR_INDEX && e->sym)
		judge(w, e->sym, e->args.items, e->args.len);
	else if (e->kind == EXPR_IN && e->lhs && e->lhs->kind != EXPR_HIST)
		judge(w, e->lhs->sym, e->args.items, e->args.len);
	return WALK_DESCEND;
}

static enum walk_action on_stmt(struct stmt *st, void *ctx)
{
	struct kw *w = ctx;

	if (w->second || st->kind != STMT_FOREACH || !st->array || !st->array->sym)
		return WALK_DESCEND;
	const struct sym *arr = st->array->sym;
	for (int k = 0; k < st->keys.len; k++) {
		const struct sym *v = st->keys.items[k]->sym;
		for (int i = 0; i < w->binds.len; i++)   /* a variable of two foreach: not bound */
			if (w->binds.items[i].var == v && (w->binds.items[i].arr != arr || w->binds.items[i].k != k))
				vec_push(&w->assigned, v);
		vec_push(&w->binds, ((struct kw_bind){ v, arr, k }));
	}
	return WALK_DESCEND;
}

/* Walk every probe body and every used function with w. */
static void walk_all(struct kw *w)
{
	struct walker wk = { .stmt = on_stmt, .expr = on_expr, .ctx = w };
	struct probe *p;

	for (int i = 0; (p = probe_bodies_next(w->s, &i));)
		walk_stmt(&wk, p->body);
	for (int i = 0; i < w->s->funcs.len; i++)
		walk_stmt(&wk, w->s->funcs.items[i]->body);
}

void bg_key_widths(struct bgen *g)
{
	struct session *s = g->s;
	struct kw w = { .s = s };

	g->knarrow = xcalloc(s->globals.len ? s->globals.len : 1, sizeof(unsigned));
	w.narrow = g->knarrow;
	for (int i = 0; i < s->globals.len; i++) {
		const struct sym *v = s->globals.items[i];
		for (int k = 0; v->is_array && k < v->nkeys && k < 32; k++)
			if (v->key_types[k] == TYPE_STRING)
				g->knarrow[i] |= 1u << k;
	}
	walk_all(&w);
	w.second = true;
	walk_all(&w);
	free(w.binds.items);
	free(w.assigned.items);
}

int bg_key_width(const struct bgen *g, const struct sym *v, int k)
{
	if (v->key_types[k] != TYPE_STRING)
		return 8;
	return k < 32 && g->knarrow && v->kind == SYM_GLOBAL && (g->knarrow[v->index] >> k & 1) ? BG_KEY_NARROW
												    : g->strsz;
}

char bg_key_letter(const struct bgen *g, const struct sym *v, int k)
{
	return v->key_types[k] != TYPE_STRING ? 'l' : bg_key_width(g, v, k) == g->strsz ? 's' : 'c';
}
