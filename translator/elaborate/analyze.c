/* analyze.c - pass 2's last step: the decisions about the annotated tree
 * that pass 3 only reads, so that pass 3 just writes C.
 *
 *   - which globals are lock-free counters (sym->atomic);
 *   - each global's index in s->globals (sym->index);
 *   - which globals each derived probe reads or writes, through the
 *     functions it calls too (dp->lock_modes): its handler takes their locks;
 *   - which derived probes share one body function (dp->body, dp->own_body).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "passes.h"
#include "probes/provider.h"
#include "session.h"
#include "tvars.h"
#include "walk.h"

/* ---- lock-free counters ------------------------------------------------------ */

struct sym *bumped_global(const struct expr *e)
{
	if (!e || !e->lhs || e->lhs->kind != EXPR_VAR || !e->lhs->sym || e->lhs->sym->kind != SYM_GLOBAL)
		return NULL;
	if (e->kind == EXPR_PREINC || e->kind == EXPR_POSTINC ||
	    (e->kind == EXPR_ASSIGN && (e->op == OP_ADD || e->op == OP_SUB)))
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

	if (expr_is_update(e)) {
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
		v->atomic = v->type == TYPE_LONG && !v->is_array && !env_get(ENV_CSTAP_NO_ATOMIC);
	}
	for (int i = 0; i < s->probes.len; i++)
		walk_stmt(&w, s->probes.items[i]->probe->body);
	for (int i = 0; i < s->funcs.len; i++)
		walk_stmt(&w, s->funcs.items[i]->body);
}

/* Globals are named and locked by their place in s->globals. */
static void number_globals(struct session *s)
{
	for (int i = 0; i < s->globals.len; i++)
		s->globals.items[i]->index = i;
}

/* ---- locks: which globals a probe reads or writes, through calls too -------- */

struct usage {
	unsigned char *mode;          /* per global index: 1 read, 2 write */
	bool *seen_func;              /* per function index: body walked */
	const struct expr *written;   /* the lhs of the assignment being walked */
	const struct walker *w;       /* to walk called functions' bodies */
};

static void mark(struct usage *u, struct sym *v, bool write)
{
	if (v && v->kind == SYM_GLOBAL && !v->atomic)
		u->mode[v->index] |= write ? 2 : 1;
}

/* A write needs the lock exclusively, a read shared. Aggregates are
 * exclusive where their CPUs' records are merged (@count ..., `in` and
 * foreach on them), shared where one CPU's record is added to (<<<). */
static enum walk_action use_expr(struct expr *e, void *ctx)
{
	struct usage *u = ctx;

	switch (e->kind) {
	case EXPR_VAR:
	case EXPR_INDEX:
		mark(u, e->sym, e == u->written);
		break;
	case EXPR_IN:
		mark(u, e->sym, e->sym && e->sym->type == TYPE_STATS);
		break;
	case EXPR_STATOP:
	case EXPR_HIST:
		mark(u, e->sym, true);
		break;
	case EXPR_ASSIGN:
	case EXPR_PREINC:
	case EXPR_POSTINC:
		if (e->op != OP_STAT_ADD)
			u->written = e->lhs;   /* walked next */
		break;
	case EXPR_CALL:
		if (e->func && !u->seen_func[e->func->index]) {
			u->seen_func[e->func->index] = true;
			walk_stmt(u->w, e->func->body);
		}
		break;
	default:
		break;
	}
	return WALK_DESCEND;
}

/* delete writes its operand; foreach writes its keys and value and reads
 * the array, exclusively when sorting reorders the map or aggregates are
 * merged first; catch writes its variable. */
static enum walk_action use_stmt(struct stmt *st, void *ctx)
{
	struct usage *u = ctx;

	if (st->kind == STMT_DELETE)
		u->written = st->expr;   /* walked next */
	if (st->kind == STMT_FOREACH && st->array) {
		mark(u, st->array->sym, st->sort_dir != 0 || (st->array->sym && st->array->sym->type == TYPE_STATS));
		for (int i = 0; i < st->keys.len; i++)
			mark(u, st->keys.items[i]->sym, true);
		if (st->value)
			mark(u, st->value->sym, true);
	}
	if (st->catch_var)
		mark(u, st->catch_var->sym, true);
	return WALK_DESCEND;
}

/* Each derived probe's lock modes, indexed like s->globals. */
static void choose_locks(struct session *s)
{
	struct usage u = { .seen_func = xcalloc(s->funcs.len + 1, 1) };
	struct walker w = { .stmt = use_stmt, .expr = use_expr, .ctx = &u };

	u.w = &w;
	for (int i = 0; i < s->probes.len; i++) {
		struct derived_probe *dp = s->probes.items[i];
		u.mode = dp->lock_modes = xcalloc(s->globals.len + 1, 1);
		u.written = NULL;
		memset(u.seen_func, 0, s->funcs.len + 1);
		walk_stmt(&w, dp->probe->body);
	}
	free(u.seen_func);
}

/* ---- probe bodies ------------------------------------------------------------ */

struct probe_at { const struct probe *p; int i; };

static int cmp_probe_at(const void *a, const void *b)
{
	const struct probe_at *x = a, *y = b;

	if (x->p != y->p)
		return (uintptr_t)x->p < (uintptr_t)y->p ? -1 : 1;
	return x->i - y->i;
}

/* Each script probe gets one body function, shared by its derived probes,
 * unless its target variables differ from probe to probe: then each derived
 * probe has its own. Bodies are numbered in order of first use. The first
 * derived probe of each script probe is found by sorting, not by a scan of
 * those before: kernel.function("*") derives ~70,000. */
static void share_bodies(struct session *s)
{
	int nbodies = 0, n = s->probes.len;
	struct probe_at *at = xmalloc((size_t)(n + 1) * sizeof(*at));
	int *first = xmalloc((size_t)(n + 1) * sizeof(*first));

	for (int i = 0; i < n; i++)
		at[i] = (struct probe_at){ s->probes.items[i]->probe, i };
	qsort(at, (size_t)n, sizeof(*at), cmp_probe_at);
	for (int k = 0; k < n; k++)
		first[at[k].i] = k && at[k - 1].p == at[k].p ? first[at[k - 1].i] : at[k].i;
	for (int i = 0; i < n; i++) {
		struct derived_probe *dp = s->probes.items[i];
		struct probe *p = dp->probe;
		bool own = tvars_per_probe(p);
		if (!own && first[i] < i) {
			dp->body = s->probes.items[first[i]]->body;
			continue;
		}
		dp->body = p->index = nbodies++;
		dp->own_body = own;
	}
	free(at);
	free(first);
}

void analyze(struct session *s)
{
	choose_atomic_counters(s);
	number_globals(s);
	choose_locks(s);
	share_bodies(s);
}
