/* context_funcs.c - pass 2: functions that read the probe's $target
 * variables.
 *
 * SystemTap lets a script function read $target variables (and call
 * functions that do): the function is then part of each probe that calls
 * it, its $vars resolved in that probe's context. cstap does the same
 * without copying the tree: such a function is marked in_context, every
 * probe reaching one gets a body of its own per derived probe, the $vars of
 * the functions it reaches are resolved per derived probe too (tvars.c),
 * and pass 3 writes one C function per (function, derived probe) pair,
 * called from that probe's body and from its other in_context functions.
 */
#include "passes.h"
#include "walk.h"

static enum walk_action find_target(struct expr *e, void *ctx)
{
	(void)ctx;
	if (e->kind == EXPR_TARGET || e->kind == EXPR_ENTRY)
		return WALK_STOP;
	if (e->kind == EXPR_CALL && e->func && e->func->in_context)
		return WALK_STOP;
	return WALK_DESCEND;
}

/* A function is in context when it reads a $target, @entry, or calls one
 * that is: marked until nothing changes (calls may run in any order). */
void context_funcs_mark(struct session *s)
{
	struct walker w = { .expr = find_target };
	bool changed = true;

	while (changed) {
		changed = false;
		for (int i = 0; i < s->funcs.len; i++) {
			struct func *f = s->funcs.items[i];
			if (f->in_context || !f->body)
				continue;
			if (!walk_stmt(&w, f->body))
				f->in_context = changed = true;
		}
	}
}

static enum walk_action collect_call(struct expr *e, void *ctx)
{
	funcvec *out = ctx;

	if (e->kind != EXPR_CALL || !e->func || !e->func->in_context)
		return WALK_DESCEND;
	for (int i = 0; i < out->len; i++)
		if (out->items[i] == e->func)
			return WALK_DESCEND;
	vec_push(out, e->func);
	return WALK_DESCEND;
}

void context_funcs_reached(struct stmt *body, funcvec *out)
{
	struct walker w = { .expr = collect_call, .ctx = out };
	int done = out->len;

	walk_stmt(&w, body);
	for (; done < out->len; done++)   /* out grows while its bodies are walked */
		walk_stmt(&w, out->items[done]->body);
}
