/* stmt.c - statements and probes for the BPF backend, and its entry:
 * bpf_lower() lowers the script to BPF (unit.h) at the end of pass 2, so
 * that what BPF cannot do is refused there (E_BPF_UNSUPPORTED). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "probes/provider.h"
#include "elaborate/tvars.h"
#include "target/ksyms.h"
#include "translate/bpf/bpf.h"
#include "options.h"
#include "translate/bpf/gen.h"
#include "translate/translate.h"
#include "walk.h"

static void block(struct bgen *g, struct stmt *st)
{
	for (int i = 0; i < st->stmts.len; i++)
		bg_stmt(g, st->stmts.items[i]);
}

/* Does this read kernel data ($target, @cast, @var, a string reader), itself
 * or in a function it calls? */
struct kread_walk {
	int depth;
	bool found;
	bool scans;     /* ... or looks at a string's bytes (stringat, substr) */
};

static enum walk_action kread_expr(struct expr *e, void *ctx)
{
	struct kread_walk *k = ctx;

	if (e->kind == EXPR_TARGET || e->kind == EXPR_CAST || e->kind == EXPR_ATVAR)
		return k->found = true, WALK_STOP;
	if (e->kind == EXPR_CALL && e->func) {
		if (bpf_intrinsic_reads_string(e->func))
			return k->found = true, WALK_STOP;
		if (bpf_intrinsic_scans_string(e->func))
			k->scans = true;
		if (e->func->body && k->depth < 8) {
			struct walker w = { .expr = kread_expr, .ctx = k };
			k->depth++;
			walk_stmt(&w, e->func->body);
			k->depth--;
			if (k->found)
				return WALK_STOP;
		}
	}
	return WALK_DESCEND;
}

/* Does a kernel probe's loop chase kernel data (a list, a path)? The
 * verifier would walk every round of it up to MAXACTION's and give up
 * ("too large") after a long time: bpf_loop runs it (callback.c). Loops
 * over the script's own values (counters) it follows and accepts; not
 * those that scan a string's bytes (a string's length bounds them, each
 * round's branches multiply), where the kernel has bpf_loop. */
static bool kernel_loop(struct bgen *g, struct stmt *st)
{
	struct kread_walk k = { 0 };
	struct walker w = { .expr = kread_expr, .ctx = &k };

	if (g->user)
		return false;
	walk_expr(&w, st->expr);
	if (!k.found)
		walk_stmt(&w, st->body);
	if (!k.found)
		walk_expr(&w, st->step);
	return k.found || (k.scans && bg_kernel_at_least(g->s, 5, 17));
}

/* The body of a loop; a round that ends normally counts one action more. */
void bg_loop_body(struct bgen *g, struct stmt *st, int brk, int cont)
{
	vec_push(&g->brk, brk);
	vec_push(&g->cont, cont);
	bg_stmt(g, st->body);
	if (has_statements(st->body))
		bg_action(g, st->body);
	g->brk.len--;
	g->cont.len--;
}

/* One round of a while or for loop: its condition (false: to brk), body,
 * and step (where continue goes: cont). */
void bg_loop_round(struct bgen *g, struct stmt *st, int brk, int cont)
{
	if (!has_statements(st->body))
		bg_action(g, st);
	if (st->expr) {
		bg_long(g, st->expr);
		bg_jmp(g, J_EQ, R0, -1, 0, brk);
	}
	bg_loop_body(g, st, brk, cont);
	bg_place(g, cont);
	if (st->step)
		bg_effect(g, st->step);
}

static void loop(struct bgen *g, struct stmt *st)
{
	int top = bg_label(g), cont = bg_label(g), brk = bg_label(g);

	if (kernel_loop(g, st)) {
		bg_loop_callback(g, st);
		return;
	}
	if (st->init)
		bg_effect(g, st->init);
	bg_place(g, top);
	bg_loop_round(g, st, brk, cont);
	bg_ja(g, top);
	bg_place(g, brk);
}

/* foreach ([v =] b in @hist_log(s)): every bucket number in order, empty
 * ones too, as the module runtime walks them (a sort is ignored there as
 * in SystemTap 4.8); v is the bucket's count */
static void foreach_hist(struct bgen *g, struct stmt *st)
{
	struct expr *h = st->array;
	const struct sym *a = h->lhs->sym;
	int b = bg_stack(g), lim = bg_stack(g), top = bg_label(g), cont = bg_label(g), brk = bg_label(g);
	int nbh = a->hist_kind == 1 ? 128 : bg_hist_buckets(a);
	struct bloc *k = bg_local(g, st->keys.items[0]->sym);

	if (st->limit)
		bg_long(g, st->limit);
	else
		bg_mov_imm(g, R0, nbh);
	bg_emit(g, B_STX | B_MEM | B_DW, R10, R0, lim, 0);
	bg_emit(g, B_ST | B_MEM | B_DW, R10, 0, b, 0);
	bg_place(g, top);
	bg_emit(g, B_LDX | B_MEM | B_DW, R1, R10, b, 0);
	bg_jmp(g, J_SGE, R1, -1, nbh, brk);
	bg_emit(g, B_LDX | B_MEM | B_DW, R2, R10, lim, 0);
	bg_jmp(g, J_SGE, R1, R2, 0, brk);
	if (!has_statements(st->body))
		bg_action(g, st);
	bg_emit(g, B_STX | B_MEM | B_DW, R10, R1, k->off, 0);
	vec_push(&g->hist_walks, a->index);
	if (st->value) {   /* @hist_log(s)[b], read as the body would */
		struct expr idx = { .kind = EXPR_VAR, .pos = st->pos, .type = TYPE_LONG,
				    .name = st->keys.items[0]->name, .sym = st->keys.items[0]->sym };
		struct expr ix = { .kind = EXPR_INDEX, .pos = st->pos, .type = TYPE_LONG, .lhs = h };
		struct expr *ip = &idx;
		ix.args.items = &ip;
		ix.args.len = 1;
		bg_long(g, &ix);
		bg_emit(g, B_STX | B_MEM | B_DW, R10, R0, bg_local(g, st->value->sym)->off, 0);
	}
	bg_loop_body(g, st, brk, cont);
	g->hist_walks.len--;
	bg_place(g, cont);
	bg_emit(g, B_LDX | B_MEM | B_DW, R1, R10, b, 0);
	bg_emit(g, B_ALU64 | A_ADD | B_K, R1, 0, 0, 1);
	bg_emit(g, B_STX | B_MEM | B_DW, R10, R1, b, 0);
	bg_ja(g, top);
	bg_place(g, brk);
}

/* Go to miss unless the key of v at r7+key matches slice e's pattern at
 * r7+pat. */
static void slice_match(struct bgen *g, const struct sym *v, const struct expr *e, int pat, int key,
			int miss)
{
	for (int i = 0, at = 0; i < e->args.len && i < v->nkeys; i++) {
		int n = bg_key_width(g, v, i);
		for (int w = 0; w < n && e->args.items[i]->kind != EXPR_STAR; w += 8) {
			ldx(g, R1, R7, key + at + w);
			ldx(g, R2, R7, pat + at + w);
			bg_jmp(g, J_NE, R1, R2, 0, miss);
		}
		at += n;
	}
}

/* foreach over a global array, in the interpreter only: stapbpf's
 * foreach_start/foreach_next give the keys in the order asked for */
static void foreach(struct bgen *g, struct stmt *st)
{
	struct expr *arr = st->array;
	const struct sym *a = arr->sym;
	int h = bg_stack(g), key, size = 0, top = bg_label(g), brk = bg_label(g);
	int dir = st->sort_dir > 0 ? 1 : st->sort_dir < 0 ? 2 : 0;

	if (!g->user) {
		bg_fail_user_only(g, st->pos, "foreach");
		return;
	}
	if (arr->kind == EXPR_HIST && arr->lhs && arr->lhs->sym && st->keys.len == 1) {
		foreach_hist(g, st);
		return;
	}
	if ((arr->kind != EXPR_VAR && arr->kind != EXPR_INDEX) || !a || !a->is_array) {
		bg_fail(g, st->pos, "foreach over this has no BPF form yet");
		return;
	}
	size = bg_key_size(g, a);
	/* a slice a[k, *]: the keys that match its pattern, of those the
	 * limit gives (as SystemTap 4.8: the limit counts every key) */
	int pat = arr->kind == EXPR_INDEX ? bg_key_pattern(g, a, arr->args.items, arr->args.len) : -1;
	key = bg_scratch(g, size);
	if (st->limit)
		bg_long(g, st->limit);
	else
		bg_mov_imm(g, R0, 0);
	bg_emit(g, B_ALU64 | A_MOV | B_X, R3, R0, 0, 0);
	bg_ld_map(g, R1, g->gmap[a->index]);
	bg_mov_imm(g, R2, (st->sort_column < 0 ? 0 : st->sort_column) | dir << 8 |
		   (int)st->sort_op << 16);
	bg_call(g, HU_FOREACH_START);
	bg_emit(g, B_STX | B_MEM | B_DW, R10, R0, h, 0);
	bg_place(g, top);
	bg_emit(g, B_LDX | B_MEM | B_DW, R1, R10, h, 0);
	bg_emit(g, B_ALU64 | A_MOV | B_X, R2, R7, 0, 0);
	bg_emit(g, B_ALU64 | A_ADD | B_K, R2, 0, 0, key);
	bg_call(g, HU_FOREACH_NEXT);
	bg_jmp(g, J_EQ, R0, -1, 0, brk);
	if (pat >= 0)
		slice_match(g, a, arr, pat, key, top);
	if (!has_statements(st->body))
		bg_action(g, st);
	for (int i = 0, at = key; i < st->keys.len && i < a->nkeys; i++) {
		struct bloc *l = bg_local(g, st->keys.items[i]->sym);
		if (l->str) {   /* a narrow key: its bytes, then zeros */
			int n = bg_key_width(g, a, i);
			bg_str_copy_n(g, (struct bstr){ R7, l->off }, (struct bstr){ R7, at }, n);
			for (int z = n; z < g->strsz; z += 8)
				bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, l->off + z, 0);
			at += n;
		} else {
			bg_emit(g, B_LDX | B_MEM | B_DW, R1, R7, at, 0);
			bg_emit(g, B_STX | B_MEM | B_DW, R10, R1, l->off, 0);
			at += 8;
		}
	}
	if (st->value) {
		struct bloc *l = bg_local(g, st->value->sym);
		int none = bg_label(g), have = bg_label(g);
		if (a->type == TYPE_STATS) {
			bg_fail(g, st->value->pos, "foreach's value of an aggregate has no BPF form yet");
			return;
		}
		bg_ld_map(g, R1, g->gmap[a->index]);
		bg_emit(g, B_ALU64 | A_MOV | B_X, R2, R7, 0, 0);
		bg_emit(g, B_ALU64 | A_ADD | B_K, R2, 0, 0, key);
		bg_call(g, H_MAP_LOOKUP);
		bg_jmp(g, J_EQ, R0, -1, 0, none);
		if (l->str) {
			bg_str_copy(g, (struct bstr){ R7, l->off }, (struct bstr){ R0, 0 });
		} else {
			bg_emit(g, B_LDX | B_MEM | B_DW, R1, R0, 0, 0);
			bg_emit(g, B_STX | B_MEM | B_DW, R10, R1, l->off, 0);
		}
		bg_ja(g, have);
		bg_place(g, none);
		bg_local_zero(g, l);
		bg_place(g, have);
	}
	bg_loop_body(g, st, brk, top);
	bg_ja(g, top);
	bg_place(g, brk);
}

int bg_key_size(const struct bgen *g, const struct sym *v)
{
	int size = 0;

	for (int i = 0; i < v->nkeys; i++)
		size += bg_key_width(g, v, i);
	return size;
}

static bool is_slice(const struct expr *e)
{
	for (int i = 0; e->kind == EXPR_INDEX && i < e->args.len; i++)
		if (e->args.items[i]->kind == EXPR_STAR)
			return true;
	return false;
}

/* A walk of v's keys in user space, unsorted: each round starts at the
 * label returned (the caller's jump back to it is the next round), with
 * the key at r7+key; at the end it goes to done. */
static int key_walk(struct bgen *g, const struct sym *v, int key, int done)
{
	int h = bg_stack(g), top = bg_label(g);

	bg_ld_map(g, R1, g->gmap[v->index]);
	bg_mov_imm(g, R2, 0);
	bg_mov_imm(g, R3, 0);
	bg_call(g, HU_FOREACH_START);
	stx(g, R10, h, R0);
	bg_place(g, top);
	ldx(g, R1, R10, h);
	str_addr(g, R2, (struct bstr){ R7, key });
	bg_call(g, HU_FOREACH_NEXT);
	bg_jmp(g, J_EQ, R0, -1, 0, done);
	return top;
}

/* [k, *] in a (e's args the keys, lhs the array): whether a key matches
 * the slice; in user space a walk of the keys, as foreach's. */
void bg_slice_in(struct bgen *g, struct expr *e)
{
	const struct sym *v = e->lhs->sym;
	int size = bg_key_size(g, v), pat, key, top, res = bg_stack(g), done = bg_label(g);

	if (!g->user) {
		bg_fail_user_only(g, e->pos, "an array slice's membership ([k, *] in a)");
		return;
	}
	pat = bg_key_pattern(g, v, e->args.items, e->args.len);
	key = bg_scratch(g, size);
	bg_emit(g, B_ST | B_MEM | B_DW, R10, 0, res, 0);
	top = key_walk(g, v, key, done);
	slice_match(g, v, e, pat, key, top);
	bg_emit(g, B_ST | B_MEM | B_DW, R10, 0, res, 1);   /* the walk's handle goes with the run */
	bg_place(g, done);
	ldx(g, R0, R10, res);
}

void bg_slice_match_delete(struct bgen *g, struct stmt *st, int pat, int key)
{
	const struct expr *e = st->expr;
	const struct sym *v = e->sym;
	int skip = bg_label(g);

	slice_match(g, v, e, pat, key, skip);
	int locked = v->wrap ? bg_wrap_forget(g, v, key, st->pos) : 0;
	bg_ld_map(g, R1, g->gmap[v->index]);
	str_addr(g, R2, (struct bstr){ R7, key });
	bg_call(g, H_MAP_DELETE);
	bg_wrap_release(g, locked);
	bg_place(g, skip);
}

/* delete a[k, *]: every element whose keys match the ones given. In user
 * space a walk of the keys; in a kernel probe bpf_for_each_map_elem's. */
static void slice_delete(struct bgen *g, struct stmt *st)
{
	struct expr *e = st->expr;
	const struct sym *v = e->sym;
	int size = bg_key_size(g, v), key, top, done = bg_label(g);
	int pat = bg_key_pattern(g, v, e->args.items, e->args.len);

	if (!g->user) {
		bg_slice_delete_callback(g, st, pat, size);
		return;
	}
	key = bg_scratch(g, size);
	top = key_walk(g, v, key, done);
	bg_slice_match_delete(g, st, pat, key);
	bg_ja(g, top);
	bg_place(g, done);
}

static void delete(struct bgen *g, struct stmt *st)
{
	struct expr *e = st->expr;
	const struct sym *v = e->sym;

	if (is_slice(e) && v && v->kind == SYM_GLOBAL && v->is_array) {
		slice_delete(g, st);
		return;
	}

	if (e->kind == EXPR_INDEX && v && v->kind == SYM_GLOBAL) {
		int key = bg_key_build(g, v, e->args.items, e->args.len);
		int locked = v->wrap ? bg_wrap_forget(g, v, key, st->pos) : 0;
		bg_ld_map(g, R1, g->gmap[v->index]);
		bg_emit(g, B_ALU64 | A_MOV | B_X, R2, R7, 0, 0);
		bg_emit(g, B_ALU64 | A_ADD | B_K, R2, 0, 0, key);
		bg_call(g, H_MAP_DELETE);
		bg_wrap_release(g, locked);
		return;
	}
	if (e->kind == EXPR_VAR && v && (v->is_array || v->type == TYPE_STATS)) {
		if (!g->user) {
			bg_fail_user_only(g, st->pos, "deleting a whole array or aggregate");
			return;
		}
		if (!v->is_array) {   /* a scalar aggregate: its one record zeroed (S or V, buckets) */
			int size = bg_stat_bytes(v) + 8 * bg_hist_buckets(v), rec = bg_scratch(g, size);
			for (int i = 0; i < size; i += 8)
				bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, rec + i, 0);
			bg_ld_map(g, R1, g->gmap[v->index]);
			bg_emit(g, B_ALU64 | A_MOV | B_X, R2, R10, 0, 0);
			bg_emit(g, B_ALU64 | A_ADD | B_K, R2, 0, 0, -8);
			bg_emit(g, B_ALU64 | A_MOV | B_X, R3, R7, 0, 0);
			bg_emit(g, B_ALU64 | A_ADD | B_K, R3, 0, 0, rec);
			bg_mov_imm(g, R4, 0);
			bg_call(g, H_MAP_UPDATE);
			return;
		}
		if (v->wrap)   /* its keys' slots first (wrap.c) */
			bg_wrap_clear(g, v);
		bg_ld_map(g, R1, g->gmap[v->index]);
		bg_call(g, HU_MAP_CLEAR);
		return;
	}
	if (e->kind == EXPR_VAR && v) {
		if (v->kind == SYM_GLOBAL) {
			if (v->type == TYPE_STRING)
				bg_str_zero(g, (struct bstr){ R8, g->goff[v->index] });
			else
				bg_emit(g, B_ST | B_MEM | B_DW, R8, 0, g->goff[v->index], 0);
		} else {
			bg_local_zero(g, bg_local(g, v));
		}
		return;
	}
	bg_fail(g, st->pos, "this delete has no BPF form yet");
}

/* Each statement's temporaries (stack and scratch) are free after it. */
void bg_stmt(struct bgen *g, struct stmt *st)
{
	int stack = g->stack, scratch = g->scratch;

	if (!st)
		return;
	bg_pos(g, st->pos);
	if (st->kind != STMT_BLOCK && st->kind != STMT_NULL)
		bg_action(g, st);
	switch (st->kind) {
	case STMT_BLOCK:
		block(g, st);
		break;
	case STMT_EXPR:
		bg_effect(g, st->expr);
		break;
	case STMT_NULL:
		break;
	case STMT_IF: {
		int els = bg_label(g), done = bg_label(g);
		int live = tvars_static_cond(g->s, g->dp, st->expr);
		if (live >= 0) {   /* @defined decided it: the other branch is not made */
			bg_stmt(g, live ? st->body : st->els);
			break;
		}
		bg_long(g, st->expr);
		bg_jmp(g, J_EQ, R0, -1, 0, els);
		bg_stmt(g, st->body);
		bg_ja(g, done);
		bg_place(g, els);
		bg_stmt(g, st->els);
		bg_place(g, done);
		break;
	}
	case STMT_WHILE:
	case STMT_FOR:
		loop(g, st);
		break;
	case STMT_FOREACH:
		foreach(g, st);
		break;
	case STMT_BREAK:
	case STMT_CONTINUE:
		if ((st->kind == STMT_BREAK ? g->brk.len : g->cont.len) == 0)
			bg_fail(g, st->pos, "break or continue outside a loop");
		else
			bg_ja(g, st->kind == STMT_BREAK ? g->brk.items[g->brk.len - 1]
				: g->cont.items[g->cont.len - 1]);
		break;
	case STMT_NEXT:
		bg_ja(g, g->exit_label);
		break;
	case STMT_RETURN: {
		struct binline *in = g->inl.len ? g->inl.items[g->inl.len - 1] : NULL;
		if (!in) {
			bg_ja(g, g->exit_label);
			break;
		}
		if (st->expr) {
			if (in->ret.str) {
				bg_str_copy(g, (struct bstr){ R7, in->ret.off }, bg_str(g, st->expr));
			} else {
				bg_long(g, st->expr);
				bg_emit(g, B_STX | B_MEM | B_DW, R10, R0, in->ret.off, 0);
			}
		}
		bg_ja(g, in->ret_label);
		break;
	}
	case STMT_DELETE:
		delete(g, st);
		break;
	case STMT_TRY: {   /* the errors of its body (bg_raise) go to the catch */
		struct btry t = { .catch_label = bg_label(g) };
		int done = bg_label(g);
		if (st->catch_var && st->catch_var->sym && st->catch_var->sym->type == TYPE_STRING)
			t.var = bg_local(g, st->catch_var->sym);
		vec_push(&g->tries, t);
		bg_stmt(g, st->body);
		g->tries.len--;
		bg_ja(g, done);
		bg_place(g, t.catch_label);
		if (st->els)
			bg_stmt(g, st->els);
		bg_place(g, done);
		break;
	}
	case STMT_EMBEDDED:
		bg_fail(g, st->pos, "embedded C, which BPF cannot run");
		break;
	}
	g->stack = stack;
	g->scratch = scratch;
}

/* ---- the maps -------------------------------------------------------- */

static char type_letter(enum type t)
{
	return t == TYPE_STRING ? 's' : t == TYPE_STATS ? 'S' : 'l';
}

/* A value's letter: an aggregate whose @variance is read is a V */
static char spec_letter(const struct sym *v)
{
	return v->type == TYPE_STATS && v->var_used ? 'V' : type_letter(v->type);
}

/* A map for each array and aggregate; every scalar in @globals. */
static void layout_globals(struct bgen *g)
{
	struct session *s = g->s;
	int n = s->globals.len;

	g->gmap = xcalloc(n ? n : 1, sizeof(int));
	g->goff = xcalloc(n ? n : 1, sizeof(int));
	g->wrap = xcalloc(n ? n : 1, sizeof(*g->wrap));
	for (int i = 0; i < n; i++)
		s->globals.items[i]->index = i;
	bg_key_widths(g);
	bg_map(g, "ringbuf", "-", "-", 1 << 18, "@ring");
	for (int i = 0; i < n; i++) {
		struct sym *v = s->globals.items[i];
		char key[16] = "", *val = xcalloc(2 + bg_hist_buckets(v), 1);
		val[0] = spec_letter(v);
		memset(val + 1, 'l', bg_hist_buckets(v));   /* S, then the histogram's buckets */
		int64_t max = v->max_entries > 0 ? v->max_entries : g->maxmapentries;

		v->index = i;
		g->gmap[i] = -1;
		if (v->is_array) {
			for (int k = 0; k < v->nkeys && k < 9; k++)
				key[k] = bg_key_letter(g, v, k);
			if (!key[0]) {
				diag(s, E_BPF_UNSUPPORTED, v->pos, "array '%s' has no keys BPF can type", v->name);
				g->failed = true;
				continue;
			}
			g->gmap[i] = bg_map(g, v->type == TYPE_STATS ? "percpu_hash" : "hash", key, val,
					    v->wrap ? max + 8 : max, v->name);
			if (v->wrap)
				bg_wrap_maps(g, v, key, max);
		} else if (v->type == TYPE_STATS) {
			g->gmap[i] = bg_map(g, "percpu_array", "i", val, 1, v->name);
		} else {
			g->goff[i] = g->globals_size;
			g->globals_size += v->type == TYPE_STRING ? g->strsz : 8;
			strbuf_addch(&g->globals_spec, val[0]);
		}
	}
	g->globals_map = g->globals_size ? bg_map(g, "array", "i", g->globals_spec.buf, 1, "@globals") : -1;
	g->config_map = bg_map(g, "array", "i", "lllllll", 1, "@config");
	g->rodata_map = -1;
	g->timing_map = g->s->timing ? bg_map(g, "percpu_array", "i", "llllll",
					      g->s->probes.len ? g->s->probes.len : 1, "@timing") : -1;
	g->scratch_map = bg_map(g, "percpu_array", "i", "s", 1, "@scratch");
}

/* The global initialisers (global x = 5, -G x=5): a begin program that
 * runs before every other. */
static void init_program(struct bgen *g)
{
	struct session *s = g->s;
	bool any = false;

	bg_prog_start(g, NULL, true);
	for (int i = 0; i < s->globals.len; i++) {
		struct sym *v = s->globals.items[i];
		struct expr *init = v->init;
		const char *set = NULL;
		size_t nl = strlen(v->name);

		for (int k = 0; k < s->globals_set.len; k++)
			if (!strncmp(s->globals_set.items[k], v->name, nl) && s->globals_set.items[k][nl] == '=')
				set = s->globals_set.items[k] + nl + 1;
		if ((!init && !set) || v->is_array || v->type == TYPE_STATS)
			continue;
		any = true;
		if (v->type == TYPE_STRING) {
			const char *t = set ? set : init->str;
			bg_str_literal(g, (struct bstr){ R8, g->goff[i] }, t, set ? strlen(t) : init->str_len);
		} else {
			bg_mov_imm(g, R0, set ? strtoll(set, NULL, 0) : init->num);
			bg_emit(g, B_STX | B_MEM | B_DW, R8, R0, g->goff[i], 0);
		}
	}
	if (any)
		bg_prog_end(g, &(struct bpf_attach){ .kind = BA_BEGIN }, NULL);
}

/* The body of dp's program, after its prologue: false if it has no BPF form
 * (reported unless the session is muted). */
static bool probe_body(struct bgen *g, struct derived_probe *dp, bool user, bool user_timer)
{
	bool failed = g->failed;

	g->failed = false;
	bg_prog_start(g, dp, user);
	bg_timing_start(g, dp);
	g->user_timer = user_timer;
	bg_entry_load(g);
	for (int i = 0; i < dp->probe->locals.len; i++)
		bg_local_zero(g, bg_local_new(g, dp->probe->locals.items[i]));
	if (dp->probe->cond) {
		bg_long(g, dp->probe->cond);
		bg_jmp(g, J_EQ, R0, -1, 0, g->exit_label);
	}
	bg_stmt(g, dp->probe->body);
	bool ok = !g->failed;
	g->failed |= failed;
	return ok;
}

/*
 * A timer probe whose body BPF can run only in user space (a periodic
 * report: foreach, aggregates, delete of a whole array) runs in stapbpf's
 * interpreter, on a timer of its own (BA_UTIMER), if it reads nothing
 * of the task or CPU the timer interrupted. The kernel program is tried
 * first, quietly; true when either is made (at's kind says which), false
 * when neither (or dp is no timer): then the refusals to report are the
 * interpreter's if all the kernel program's were of what it can run
 * (*as_user), else the kernel program's. A randomized timer (a perf event
 * has one period) can only be the interpreter's.
 */
static bool timer_program(struct bgen *g, struct derived_probe *dp, struct bpf_attach *at, bool *as_user)
{
	bool ok, failed = g->failed, randomized;
	int nf = g->nfails, nu = g->nfails_user;

	*as_user = false;
	if (at->kind != BA_TIMER)
		return false;
	randomized = at->randomize != 0;
	g->timer_randomized = randomized;
	g->s->muted++;
	ok = !randomized && probe_body(g, dp, false, false);
	g->failed = failed;
	if (!ok) {
		*as_user = randomized || g->nfails - nf == g->nfails_user - nu;
		ok = probe_body(g, dp, true, true);
		g->failed = failed;
	}
	g->s->muted--;
	if (ok && g->user_timer)
		at->kind = BA_UTIMER;
	return ok;
}

/* A procfs file is a FIFO for stapbpf (doc/bpf-bundle.md): read or
 * written, not both, as SystemTap's stapbpf has it. at is a procfs
 * program's; false (reported) for a file that has probes of both ways. */
static bool procfs_one_way(struct bgen *g, struct derived_probe *dp, const struct bpf_attach *at)
{
	const char *path = at->symbol;
	bool write = at->kind == BA_PROCFS_WRITE;

	for (int i = 0; i < g->procfs.len; i++) {
		const char *o = g->procfs.items[i];
		if (strcmp(o + 1, path) || (o[0] == 'w') == write)
			continue;
		diag(g->s, E_BPF_UNSUPPORTED, dp->point ? dp->point->pos : dp->probe->pos,
		     "procfs file '%s' has read and write probes: with BPF it is a FIFO, read or written",
		     path);
		g->failed = true;
		return false;
	}
	vec_push(&g->procfs, xasprintf("%c%s", write ? 'w' : 'r', path));
	return true;
}

/* dp's program on the BPF trampoline its family offers (bpf_trampoline),
 * tried quietly: true when made; false, nothing said, when the probe reads
 * what a trampoline's context has not (registers, addr(), values at entry
 * through a pointer ...): then bpf_attach's point is used. */
static bool trampoline_program(struct bgen *g, struct derived_probe *dp)
{
	struct bpf_attach at;
	bool failed = g->failed, ok = false;
	int nf = g->nfails, nu = g->nfails_user;

	if (!dp->prov->bpf_trampoline || dp->prov->bpf_trampoline(g->s, dp, &at) < 0)
		return false;
	g->s->muted++;
	g->failed = false;
	g->as_trampoline = at.kind == BA_FEXIT ? 2 : 1;
	g->ctx_args = true;
	if (bg_entry_prepare(g, dp))
		ok = probe_body(g, dp, false, false);
	g->s->muted--;
	if (ok)
		bg_prog_end(g, &at, dp->pp);
	g->as_trampoline = 0;
	g->failed = failed;
	g->nfails = nf;
	g->nfails_user = nu;
	return ok;
}

/* One derived probe as one program. */
static void probe_program(struct bgen *g, struct derived_probe *dp)
{
	struct bpf_attach at = { 0 };
	const char *why = NULL;

	if (dp->kind == STP_PK_NEVER || trampoline_program(g, dp))
		return;
	if (!dp->prov->bpf_attach || dp->prov->bpf_attach(dp, &at, &why) < 0) {
		diag(g->s, E_BPF_UNSUPPORTED, dp->point ? dp->point->pos : dp->probe->pos,
		     "probe point '%s' has no BPF form%s%s", dp->pp, why ? ": " : " yet", why ? why : "");
		g->failed = true;
		return;
	}
	bool user = bpf_attach_in_user(at.kind);
	if ((at.kind == BA_PROCFS_READ || at.kind == BA_PROCFS_WRITE) && !procfs_one_way(g, dp, &at))
		return;
	/* its context: the arguments, u64 args[] (not pt_regs) */
	g->ctx_args = at.kind == BA_RAW_TRACEPOINT || at.kind == BA_TRACEPOINT || bpf_attach_trampoline(at.kind);
	if (!bg_entry_prepare(g, dp))
		return;
	bool as_user = false;
	if (user || !timer_program(g, dp, &at, &as_user))
		probe_body(g, dp, user || as_user, as_user);
	g->timer_randomized = false;
	bg_prog_end(g, &at, dp->pp);
}

/* -D NAME=VALUE: the limits BPF honours, and a refusal of the rest (they
 * tune the module runtime). BPF has no overload processing: STP_NO_OVERLOAD
 * says so, and with it the overload's tunables mean nothing either way. */
static bool defines(struct bgen *g)
{
	static const char *const mine[] = { "MAXACTION", "MAXMAPENTRIES", "MAXSTRINGLEN", "MAXNESTING",
					    "MAXTRYLOCK", "TRYLOCKDELAY", "MAXKPROBES", "MAXSKIPPED",
					    "STP_NO_OVERLOAD", "STP_OVERLOAD_THRESHOLD", "STP_OVERLOAD_INTERVAL",
					    NULL };
	bool ok = true, no_overload = session_define(g->s, "STP_NO_OVERLOAD", LLONG_MIN) != LLONG_MIN;

	g->maxaction = 1000;
	g->maxmapentries = 2048;
	g->strsz = BPF_STRSZ;
	g->maxskipped = -1;
	for (int i = 0; i < g->s->defines.len; i++) {
		const char *d = g->s->defines.items[i], *eq = strchr(d, '=');
		size_t n = eq ? (size_t)(eq - d) : strlen(d);
		int64_t v = eq ? strtoll(eq + 1, NULL, 0) : 1;
		int k;
		for (k = 0; mine[k] && (strlen(mine[k]) != n || strncmp(d, mine[k], n)); k++)
			;
		if (!mine[k] || (k == 2 && v < BPF_STRSZ) || (k >= 9 && !no_overload)) {
			diag(g->s, E_BPF_UNSUPPORTED, (struct srcpos){0},
			     "-D %.*s tunes the module runtime; BPF has no such setting%s", (int)n, d,
			     k == 2 ? " below its own 64-byte strings"
			     : mine[k] && k >= 9 ? " (it has no overload processing: -DSTP_NO_OVERLOAD says so)" : "");
			ok = false;
		} else if (k == 2 && v > BPF_STRSZ_MAX) {
			diag(g->s, E_BPF_UNSUPPORTED, (struct srcpos){0},
			     "-D MAXSTRINGLEN=%lld: a BPF string value is %d bytes at the most", (long long)v,
			     BPF_STRSZ_MAX);
			ok = false;
		} else if (k == 2) {   /* longer strings: a power of 2 bytes (the verifier's bounds are masks) */
			while (g->strsz < v)
				g->strsz *= 2;
		} else if (k == 0 && v > 1000) {
			diag(g->s, E_BPF_UNSUPPORTED, (struct srcpos){0},
			     "-D MAXACTION=%lld: the BPF verifier walks every round of a loop, and cannot "
			     "walk more than MAXACTION 1000 allows", (long long)v);
			ok = false;
		} else if (k == 0) {
			g->maxaction = v;
		} else if (k == 1) {
			g->maxmapentries = v;
		} else if (k == 7) {   /* stapbpf counts the skipped probes */
			g->maxskipped = v < 0 ? 0 : v;
		}
	}
	g->maxaction *= 10;   /* MAXACTION_INTERRUPTIBLE, as the module runtime's handlers */
	return ok;
}

/* begin and end programs run in the order of their begin(N)/end(N), then
 * of the script; the rest as derived */
static int64_t probe_order(const struct derived_probe *dp)
{
	return (dp->kind == STP_PK_BEGIN || dp->kind == STP_PK_END || dp->kind == STP_PK_ERROR) && dp->prov->probe_order
	       ? dp->prov->probe_order(dp) : 0;
}

struct bpf_unit *bpf_lower(struct session *s)
{
	struct bpf_unit *u = xcalloc(1, sizeof(*u));
	struct bgen g = { .s = s, .u = u, .fmt_keys = STRBUF_INIT, .globals_spec = STRBUF_INIT,
			  .entry_map = -1, .bias_voff = -1 };
	int n = s->probes.len;
	struct derived_probe **order = xcalloc(n ? n : 1, sizeof(*order));

	if (!defines(&g))
		return NULL;
	layout_globals(&g);
	if (g.failed)
		return NULL;
	init_program(&g);
	/* a stable insertion sort by begin(N)/end(N) */
	for (int i = 0; i < n; i++) {
		int j = i;
		while (j > 0 && probe_order(order[j - 1]) > probe_order(s->probes.items[i])) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = s->probes.items[i];
	}
	for (int i = 0; i < n; i++)
		probe_program(&g, order[i]);
	free(order);
	if (g.failed)
		return NULL;
	/* the scratch value: the most any program used, and a string's room
	 * past it (the verifier's bound on a concatenation's copy) */
	{
		int slots = (g.scratch_size + g.strsz - 1) / g.strsz + 1;
		struct bpf_map *m = u->maps.items[g.scratch_map];
		free(m->valspec);
		m->valspec = xcalloc(slots + 1, 1);
		memset(m->valspec, 's', slots);
	}
	u->module = s->module_name;
	u->kaslr = ksyms_kaslr_ref(s, &u->kfree);
	u->maxskipped = g.maxskipped;
	u->strsz = g.strsz;
	bg_ksym_rodata(&g);
	bg_timing_names(&g);
	return u;
}
