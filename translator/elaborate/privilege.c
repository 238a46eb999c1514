/* privilege.c - pass 2's checks for a module users of the groups stapusr
 * and stapsys may load (--privilege=stapusr|stapsys, --unprivileged), as
 * SystemTap restricts them:
 *   - probes of the families that touch only the user's own processes or
 *     nothing of anyone's (begin, end, error, never, timer, process):
 *     provider->unprivileged; the runtime fires process probes only in the
 *     user's processes (runtime/run_state.h, stp_is_myproc);
 *   - no guru mode, hence no embedded C of the script's own;
 *   - only the tapset functions whose embedded C is marked unprivileged or
 *     myproc-unprivileged (the latter run only in the user's processes:
 *     translate.c checks that at run time), and script functions that call
 *     no other.
 * Each refusal is an E_PRIVILEGE error where the script asks for it.
 */
#include <string.h>

#include "diag.h"
#include "passes.h"
#include "probes/provider.h"
#include "walk.h"

static const char *level(const struct session *s)
{
	return s->privilege == PRIV_STAPSYS ? "stapsys" : "stapusr";
}

static bool marked_unprivileged(const struct func *f)
{
	for (int i = 0; i < f->pragmas.len; i++)
		if (!strcmp(f->pragmas.items[i], "unprivileged") ||
		    !strcmp(f->pragmas.items[i], "myproc-unprivileged"))
			return true;
	return false;
}

struct calls {
	struct session *s;
	const struct func *bad;   /* set: a call of a refused function was found */
	bool report;              /* diagnose each refused call (else: find one) */
	int depth;                /* of the function walked, through calls */
};

static bool refused(struct session *s, struct func *f, int depth);

static enum walk_action call_expr(struct expr *e, void *ctx)
{
	struct calls *c = ctx;

	if (e->kind != EXPR_CALL || !e->func || !refused(c->s, e->func, c->depth + 1))
		return WALK_DESCEND;
	c->bad = e->func;
	if (!c->report)
		return WALK_STOP;
	diag(c->s, E_PRIVILEGE, e->pos, "function '%s' is not allowed with --privilege=%s: %s",
	     e->func->name, level(c->s), e->func->embedded ? "its embedded C is not marked unprivileged"
							  : "it calls a function that is not allowed");
	return WALK_DESCEND;
}

/* May an unprivileged module not call f? Embedded C must be marked; a
 * script function must call only functions that may be called. */
static bool refused(struct session *s, struct func *f, int depth)
{
	if (f->embedded)
		return !marked_unprivileged(f);
	if (depth > 32)   /* recursion: what it calls is checked on the way in */
		return false;
	struct calls c = { .s = s, .depth = depth };
	const struct walker w = { .expr = call_expr, .ctx = &c };
	walk_stmt(&w, f->body);
	return c.bad != NULL;
}

void check_privilege(struct session *s)
{
	struct calls c = { .s = s, .report = true };
	const struct walker calls = { .expr = call_expr, .ctx = &c };
	const struct probe *last = NULL;

	if (s->privilege == PRIV_STAPDEV)
		return;
	for (int i = 0; i < s->probes.len; i++) {
		const struct derived_probe *dp = s->probes.items[i];
		if (!dp->prov->unprivileged && dp->probe != last) {
			diag(s, E_PRIVILEGE, dp->probe->pos, "probe point %s is not allowed with --privilege=%s "
			     "(only begin, end, error, never, timer and process probes are)", dp->pp, level(s));
			last = dp->probe;
		}
	}
	last = NULL;
	for (int i = 0; i < s->probes.len; i++) {
		struct probe *p = s->probes.items[i]->probe;
		if (p != last && !(p->file && p->file->is_tapset))
			walk_stmt(&calls, p->body);
		last = p;
	}
	for (int i = 0; i < s->funcs.len; i++) {
		struct func *f = s->funcs.items[i];
		if (!(f->file && f->file->is_tapset) && !f->embedded)
			walk_stmt(&calls, f->body);
	}
}
