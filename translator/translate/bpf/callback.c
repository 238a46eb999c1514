/* callback.c - loops over kernel data in kernel probes, run by bpf_loop.
 *
 * The verifier walks a plain loop round by round, and a loop that chases
 * kernel data (a list, the dentries of a path) has no bound it can see:
 * it gives up. bpf_loop (Linux 5.17) calls a callback up to N times, and
 * the verifier checks the callback once. So such a loop's condition, body
 * and step become a callback, made after the program's exit (BPF wants
 * its functions after the main one):
 *  - the probe puts its long locals in @scratch before bpf_loop and takes
 *    them back after it; the callback copies them in to its own frame at
 *    entry (packed: its code finds them there), and back before it
 *    returns. Through a map the verifier sees values it does not know,
 *    where through the probe's frame it would see each round's constants
 *    and, checking the callback for any number of rounds (Linux 6.7),
 *    never be done. Strings are in @scratch, which both see; r6 comes
 *    from the probe's frame, whose address bpf_loop passes, r7 and r8
 *    from their maps again;
 *  - it returns 0 for another round, 1 to stop (the condition false, a
 *    break); what leaves the loop for elsewhere (next, an error, exit(), a
 *    function's return, a catch) sets a code in the probe's frame, which
 *    the probe reads after bpf_loop to jump where it says;
 *  - rounds: MAXACTION + 1 at most, each one an action, so that the
 *    MAXACTION error comes first, as in the module.
 */
#include "translate/bpf/gen.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "walk.h"

struct bcallback {
	struct stmt *st;                /* the loop, or the delete of a slice */
	const struct sym *arr;          /* a slice's array (bpf_for_each_map_elem's) */
	int pat, key, kp;               /* @scratch: its pattern, a key's copy; r10: the key's address */
	int label;                      /* its first instruction */
	int xfer;                       /* @scratch: the exit code, then the copied slots */
	int spill;                      /* r10 offset: r6 in the probe's frame */
	int scratch;                    /* the probe's, at the loop */
	intvec copy;                    /* the long slots copied in and out */
	int *mine;                      /* where each is in the callback's frame */
	VEC(struct bloc) locs;          /* copies (a try's variable points into them) */
	int act, bias, *entry;          /* the probe's offsets of these at the loop */
	VEC(struct btry) tries;
	VEC(struct binline) inl;        /* copies: their return labels change */
	int parent;                     /* the callback it is in (its index), or -1 */
	int lock_map, flag;             /* a lock's spin: its map (or -1), the probe's r10 slot */
	int depth;                      /* its stack, rounded as the verifier rounds it */
};

/* Escape codes: 1 the probe's exit, then one per enclosing try, then one
 * per function being inlined. */
enum { ESC_EXIT = 1 };

/* The copied slots between the frame (at offs) and @scratch: out (frame
 * to scratch) or in. */
static void transfer(struct bgen *g, const struct bcallback *cb, bool out, const int *offs)
{
	for (int i = 0; i < cb->copy.len; i++) {
		int at = cb->xfer + 8 + 8 * i;
		ldx(g, R1, out ? R10 : R7, out ? offs[i] : at);
		stx(g, out ? R7 : R10, out ? at : offs[i], R1);
	}
}

/* The variables a loop names, and whether it returns from the function
 * it is in: what of the probe's frame its callback needs. */
struct uses {
	VEC(const struct sym *) v;
	bool ret;
};

static enum walk_action use_expr(struct expr *e, void *ctx)
{
	if (e->kind == EXPR_VAR && e->sym)
		vec_push(&((struct uses *)ctx)->v, e->sym);
	return WALK_DESCEND;
}

static enum walk_action use_stmt(struct stmt *st, void *ctx)
{
	if (st->kind == STMT_RETURN)
		((struct uses *)ctx)->ret = true;
	return WALK_DESCEND;
}

static bool used(const struct uses *u, const struct sym *v)
{
	for (int i = 0; i < u->v.len; i++)
		if (u->v.items[i] == v)
			return true;
	return false;
}

/* A copied slot's offset in the callback's frame. */
static int remap(const struct bcallback *cb, int off)
{
	for (int i = 0; i < cb->copy.len; i++)
		if (cb->copy.items[i] == off)
			return cb->mine[i];
	return off;
}

/* A callback of the probe at this point, which reads and writes the
 * variables u names: r6 spilled, the slots it copies put in @scratch. */
static struct bcallback *new_callback(struct bgen *g, struct stmt *st, const struct uses *u)
{
	struct bcallback *cb = xcalloc(1, sizeof(*cb));

	cb->st = st;
	cb->lock_map = -1;
	cb->parent = g->in_callback ? g->making : -1;
	cb->spill = bg_stack(g);
	stx(g, R10, cb->spill, R6);
	vec_push(&cb->copy, g->act_slot);
	cb->act = g->act_slot;
	cb->bias = g->bias_off;
	cb->entry = xcalloc(g->entries.len + 1, sizeof(int));
	for (int i = 0; i < g->entries.len; i++)
		cb->entry[i] = g->entries.items[i].off;
	for (int i = 0; i < g->locs.len; i++) {
		struct bloc *l = g->locs.items[i];
		if (l->str || used(u, l->sym))
			vec_push(&cb->locs, *l);
		if (!l->str && used(u, l->sym))
			vec_push(&cb->copy, l->off);
	}
	for (int i = 0; i < g->inl.len; i++) {
		vec_push(&cb->inl, *g->inl.items[i]);
		if (!g->inl.items[i]->ret.str && u->ret && i == g->inl.len - 1)
			vec_push(&cb->copy, g->inl.items[i]->ret.off);
	}
	for (int i = 0; i < g->entries.len && !g->in_entry && g->entry_map >= 0; i++)
		if (!g->entries.items[i].str)   /* the return program's copies */
			vec_push(&cb->copy, g->entries.items[i].off);
	if (g->bias_voff >= 0 && !g->in_entry && g->entry_map >= 0)
		vec_push(&cb->copy, g->bias_off);
	for (int i = 0; i < g->tries.len; i++)
		vec_push(&cb->tries, g->tries.items[i]);
	cb->xfer = bg_scratch(g, 8 + 8 * cb->copy.len);
	bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, cb->xfer, 0);
	transfer(g, cb, true, cb->copy.items);
	return cb;
}

/* helper(r1, the callback, the probe's frame, 0); the callback's label */
static void call_helper(struct bgen *g, struct bcallback *cb, int helper)
{
	cb->label = bg_label(g);
	vec_push(&g->fix_func_insn, g->n);
	vec_push(&g->fix_func_label, cb->label);
	bg_emit(g, B_LD | B_DW | B_IMM, R2, B_PSEUDO_FUNC, 0, 0);
	bg_emit(g, 0, 0, 0, 0, 0);
	mov(g, R3, R10);
	bg_mov_imm(g, R4, 0);
	bg_call(g, helper);
}

/* The helper's call (its arguments before the callback in r1, the probe's
 * frame its context), then the slots back and the jump its exit code
 * says: the callback is made after the program's exit. */
static void call(struct bgen *g, struct bcallback *cb, int helper)
{
	cb->scratch = g->scratch;
	call_helper(g, cb, helper);
	transfer(g, cb, false, cb->copy.items);
	ldx(g, R1, R7, cb->xfer);
	bg_jmp(g, J_EQ, R1, -1, ESC_EXIT, g->exit_label);
	for (int i = 0; i < cb->tries.len; i++)
		bg_jmp(g, J_EQ, R1, -1, ESC_EXIT + 1 + i, cb->tries.items[i].catch_label);
	for (int i = 0; i < cb->inl.len; i++)
		bg_jmp(g, J_EQ, R1, -1, ESC_EXIT + 1 + cb->tries.len + i, cb->inl.items[i].ret_label);
	vec_push(&g->callbacks, cb);
}

bool bg_loop_callback(struct bgen *g, struct stmt *st)
{
	struct uses u = { 0 };
	struct walker w = { .stmt = use_stmt, .expr = use_expr, .ctx = &u };
	struct bcallback *cb;

	if (!bg_kernel_at_least(g->s, 5, 17)) {
		bg_fail(g, st->pos, "a loop over kernel data in a kernel probe: bpf_loop (Linux 5.17) "
			"runs one, and the kernel is older");
		return false;
	}
	if (st->init)
		bg_effect(g, st->init);
	/* what the loop may read or change of the probe's frame */
	walk_expr(&w, st->expr);
	walk_stmt(&w, st->body);
	walk_expr(&w, st->step);
	cb = new_callback(g, st, &u);
	free(u.v.items);
	/* bpf_loop(rounds, the callback, the probe's frame, 0) */
	bg_mov_imm(g, R1, g->s->no_time_limits ? 1 << 23 : g->maxaction + 1);
	call(g, cb, H_LOOP);
	return true;
}

/* delete a[k, *] in a kernel probe: bpf_for_each_map_elem(a, the callback,
 * the probe's frame, 0), the callback deleting each element whose keys
 * match the pattern (the keys that are no '*', at r7+pat). */
bool bg_slice_delete_callback(struct bgen *g, struct stmt *st, int pat, int keysize)
{
	struct uses u = { 0 };
	struct bcallback *cb;

	if (!bg_kernel_at_least(g->s, 5, 13)) {
		bg_fail(g, st->pos, "deleting an array slice in a kernel probe: bpf_for_each_map_elem "
			"(Linux 5.13) does it, and the kernel is older");
		return false;
	}
	cb = new_callback(g, st, &u);
	cb->arr = st->expr->sym;
	cb->pat = pat;
	cb->key = bg_scratch(g, keysize);
	cb->kp = bg_stack(g);   /* unused here: in the callback's frame */
	bg_ld_map(g, R1, g->gmap[cb->arr->index]);
	call(g, cb, H_FOR_EACH_MAP);
	return true;
}

/* Spin for the lock word at offset 0 of map's entry 0 (wrap.c) with
 * bpf_loop, up to 64K tries (a few ms), where a spin the verifier walks
 * would be a few hundred. r0 = 0 when taken. */
void bg_spin_lock(struct bgen *g, int map)
{
	struct bcallback *cb = xcalloc(1, sizeof(*cb));

	cb->parent = g->in_callback ? g->making : -1;
	cb->lock_map = map;
	cb->flag = bg_stack(g);
	bg_emit(g, B_ST | B_MEM | B_DW, R10, 0, cb->flag, 1);
	bg_mov_imm(g, R1, 1 << 16);
	call_helper(g, cb, H_LOOP);
	ldx(g, R0, R10, cb->flag);
	vec_push(&g->callbacks, cb);
}

/* One try: the flag in the probe's frame (1 while the word is not taken)
 * set to 0 and the loop stopped when the compare-and-exchange takes it. */
static int emit_spin(struct bgen *g, const struct bcallback *cb)
{
	int got = bg_label(g), none = bg_label(g);

	bg_place(g, cb->label);
	mov(g, R6, R2);
	bg_emit(g, B_ST | B_MEM | B_W, R10, 0, -8, 0);
	bg_lookup0(g, cb->lock_map);
	bg_jmp(g, J_EQ, R0, -1, 0, none);
	mov(g, R1, R0);
	bg_mov_imm(g, R0, 0);
	bg_mov_imm(g, R2, 1);
	bg_emit(g, B_STX | B_ATOMIC | B_DW, R1, R2, 0, AT_CMPXCHG);
	bg_jmp(g, J_EQ, R0, -1, 0, got);
	bg_mov_imm(g, R0, 0);
	bg_emit(g, B_JMP | J_EXIT, 0, 0, 0, 0);
	bg_place(g, got);
	bg_emit(g, B_ST | B_MEM | B_DW, R6, 0, cb->flag, 0);
	bg_place(g, none);
	bg_mov_imm(g, R0, 1);
	bg_emit(g, B_JMP | J_EXIT, 0, 0, 0, 0);
	return 8;
}

/* The callback's end: the locals back in the probe's frame, code (0: none)
 * there too, and bpf_loop told to go on (0) or stop (1). */
static void leave(struct bgen *g, const struct bcallback *cb, int code, int stop)
{
	if (code)
		bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, cb->xfer, code);
	transfer(g, cb, true, cb->mine);
	bg_mov_imm(g, R0, stop);
	bg_emit(g, B_JMP | J_EXIT, 0, 0, 0, 0);
}

/* One callback, in the probe's state at its loop; its stack depth. */
static int emit_one(struct bgen *g, struct bcallback *cb)
{
	int ntries = cb->tries.len, ninl = cb->inl.len;
	int *catch_at = xcalloc(ntries + 1, sizeof(int)), *ret_at = xcalloc(ninl + 1, sizeof(int));
	struct binline **inl = xcalloc(ninl + 1, sizeof(*inl));
	int brk = bg_label(g), cont = bg_label(g), depth;
	int act_slot = g->act_slot, bias_off = g->bias_off, *entry_off = xcalloc(g->entries.len + 1, sizeof(int));

	/* the copied slots packed after key 0's, its temporaries after them */
	g->in_callback = true;
	cb->mine = xcalloc(cb->copy.len + 1, sizeof(int));
	for (int i = 0; i < cb->copy.len; i++)
		cb->mine[i] = -16 - 8 * i;
	g->stack = g->stack_max = 8 + 8 * cb->copy.len;
	g->scratch = cb->scratch;
	g->locs.len = 0;
	for (int i = 0; i < cb->locs.len; i++) {
		struct bloc *l = &cb->locs.items[i];
		if (!l->str)
			l->off = remap(cb, l->off);
		vec_push(&g->locs, l);
	}
	g->act_slot = remap(cb, cb->act);
	for (int i = 0; i < g->entries.len; i++) {
		entry_off[i] = g->entries.items[i].off;
		if (!g->entries.items[i].str)
			g->entries.items[i].off = remap(cb, cb->entry[i]);
	}
	if (g->bias_voff >= 0 && !g->in_entry && g->entry_map >= 0)
		g->bias_off = remap(cb, cb->bias);
	g->tries.len = 0;
	for (int i = 0; i < ntries; i++) {
		struct btry t = cb->tries.items[i];
		t.catch_label = catch_at[i] = bg_label(g);
		vec_push(&g->tries, t);
	}
	g->inl.len = 0;
	for (int i = 0; i < ninl; i++) {
		inl[i] = &cb->inl.items[i];
		inl[i]->ret_label = ret_at[i] = bg_label(g);
		if (!inl[i]->ret.str)
			inl[i]->ret.off = remap(cb, inl[i]->ret.off);
		vec_push(&g->inl, inl[i]);
	}
	g->exit_label = bg_label(g);
	g->act_label = bg_label(g);
	g->act_used = false;
	g->brk.len = g->cont.len = 0;

	bg_place(g, cb->label);
	if (cb->arr) {   /* (map, key, value, context) */
		stx(g, R10, cb->kp, R2);
		ldx(g, R6, R4, cb->spill);
	} else {         /* (index, context) */
		ldx(g, R6, R2, cb->spill);
	}
	bg_emit(g, B_ST | B_MEM | B_W, R10, 0, -8, 0);   /* key 0, as the prologue's */
	for (int i = 0; i < 2; i++) {
		int map = i ? g->globals_map : g->scratch_map, got = bg_label(g);
		if (map < 0)
			continue;
		bg_lookup0(g, map);
		bg_jmp(g, J_NE, R0, -1, 0, got);
		bg_mov_imm(g, R0, 1);   /* cannot be: the probe found them */
		bg_emit(g, B_JMP | J_EXIT, 0, 0, 0, 0);
		bg_place(g, got);
		mov(g, i ? R8 : R7, R0);
	}
	transfer(g, cb, false, cb->mine);
	if (cb->arr) {   /* the element's key to @scratch, then the match */
		ldx(g, R2, R10, cb->kp);
		for (int i = 0; i < bg_key_size(g, cb->arr); i += 8) {
			ldx(g, R1, R2, i);
			stx(g, R7, cb->key + i, R1);
		}
		bg_slice_match_delete(g, cb->st, cb->pat, cb->key);
	} else {
		bg_loop_round(g, cb->st, brk, cont);
	}
	leave(g, cb, 0, 0);
	bg_place(g, brk);
	leave(g, cb, 0, 1);
	bg_place(g, g->exit_label);
	leave(g, cb, ESC_EXIT, 1);
	for (int i = 0; i < ntries; i++) {
		bg_place(g, catch_at[i]);
		leave(g, cb, ESC_EXIT + 1 + i, 1);
	}
	for (int i = 0; i < ninl; i++) {
		bg_place(g, ret_at[i]);
		leave(g, cb, ESC_EXIT + 1 + ntries + i, 1);
	}
	if (g->act_used) {
		bg_place(g, g->act_label);
		bg_act_record(g);
		leave(g, cb, ESC_EXIT, 1);
	}
	depth = g->stack_max;
	g->act_slot = act_slot;
	g->bias_off = bias_off;
	for (int i = 0; i < g->entries.len; i++)
		g->entries.items[i].off = entry_off[i];
	g->locs.len = 0;
	free(entry_off);
	free(catch_at);
	free(ret_at);
	free(inl);
	return depth;
}

/* The stack depth the verifier counts for a function: a multiple of 32. */
static int frame(int depth)
{
	return (depth + 31) / 32 * 32;
}

/* Callbacks made while making one (a loop in a loop) join the list, and
 * the stack depth of each chain of calls is checked. */
void bg_emit_callbacks(struct bgen *g, int main_stack)
{
	bool deep = false;

	for (int i = 0; i < g->callbacks.len; i++) {
		struct bcallback *cb = g->callbacks.items[i];
		g->making = i;
		cb->depth = frame(cb->lock_map >= 0 ? emit_spin(g, cb) : emit_one(g, cb));
	}
	for (int i = 0; i < g->callbacks.len; i++) {
		int sum = frame(main_stack);
		for (int k = i; k >= 0; k = g->callbacks.items[k]->parent)
			sum += g->callbacks.items[k]->depth;
		deep |= sum > BPF_STACK;
	}
	if (deep && !g->failed)
		bg_fail(g, g->last_pos, "the probe and its loops over kernel data need more than BPF's "
			"512 bytes of stack (fewer local variables or simpler expressions)");
	for (int i = 0; i < g->callbacks.len; i++) {
		struct bcallback *cb = g->callbacks.items[i];
		free(cb->copy.items);
		free(cb->locs.items);
		free(cb->tries.items);
		free(cb->inl.items);
		free(cb->mine);
		free(cb->entry);
		free(cb);
	}
	g->callbacks.len = 0;
	g->in_callback = false;
	g->locs.len = g->tries.len = g->inl.len = 0;   /* the callbacks' copies are gone */
}
