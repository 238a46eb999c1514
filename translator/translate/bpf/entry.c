/* entry.c - values a .return probe reads at entry, for the BPF backend:
 * @entry(expr), $parameters (pass 2 marks them at_entry), and a process
 * probe's load bias (a uretprobe's context has no address of the
 * function). A BPF return program has no per-call data of its own, so a
 * second program, on the function's entry (a kretprobe's: a kprobe where
 * it is; a uretprobe's: a uprobe past the prologue, as the module's),
 * evaluates them into an LRU hash keyed by the thread and the call's
 * frame address, and the return program finds them there by its stack
 * pointer, copies them and deletes the entry, as runtime/uprobes.h does
 * for the module. Recursion meets the right frame; a frame left without a
 * return (longjmp) ages out of the LRU. A return whose entry was not seen
 * (the probe armed in between) skips its body, as a kretprobe's missed
 * instance. */
#include <string.h>

#include "elaborate/tvars.h"
#include "translate/bpf/gen.h"
#include "walk.h"

#define PT_REGS_IP 128
#define PT_REGS_SP 152

struct prewalk {
	struct bgen *g;
	bool bias;      /* the body reads the load bias at return */
	int vsize;
};

static void add_entry(struct prewalk *w, struct expr *e, bool str)
{
	struct bgen *g = w->g;

	for (int i = 0; i < g->entries.len; i++)
		if (g->entries.items[i].e == e)
			return;
	vec_push(&g->entries, ((struct bentry){ .e = e, .str = str, .voff = w->vsize }));
	w->vsize += str ? g->strsz : 8;
}

/* Is tv (a value at entry, or one at the probe) read at a BPF trampoline's
 * fexit as it was at entry? The trampoline keeps the arguments: a value
 * of registers alone, with no read of memory, is. */
bool bg_fexit_reads(const struct bgen *g, const struct tvar *tv)
{
	return g->ctx.trampoline == 2 && tv->kind == TV_VALUE && tv->value && !lx_has(tv->value, LX_LOAD);
}

/* Does x read nothing but the function's parameters themselves (and
 * constants)? At a BPF trampoline's fexit those are the values at entry:
 * @entry(x) is then read at the return, with no entry program. */
static bool params_only(struct bgen *g, const struct expr *x)
{
	const struct tvar *tv;

	switch (x->kind) {
	case EXPR_NUM:
		return true;
	case EXPR_TARGET:
		tv = tvar_find(g->s, g->dp, x);
		return tv && bg_fexit_reads(g, tv);
	case EXPR_UNARY:
		return params_only(g, x->lhs);
	case EXPR_BINARY:
		return params_only(g, x->lhs) && params_only(g, x->rhs);
	default:
		return false;
	}
}

/* @entry(...) and at_entry target expressions, in the order the body has
 * them; a bias read at return */
static enum walk_action visit(struct expr *e, void *ctx)
{
	struct prewalk *w = ctx;
	const struct tvar *tv;

	switch (e->kind) {
	case EXPR_ENTRY:
		if (!(w->g->ctx.trampoline == 2 && params_only(w->g, e->lhs)))
			add_entry(w, e, e->type == TYPE_STRING);
		return WALK_SKIP;
	case EXPR_ADDROF:
		if (e->lhs->kind != EXPR_TARGET && e->lhs->kind != EXPR_CAST && e->lhs->kind != EXPR_ATVAR)
			return WALK_DESCEND;
		/* fall through */
	case EXPR_TARGET:
	case EXPR_CAST:
	case EXPR_ATVAR:
		tv = tvar_find(w->g->s, w->g->dp, e);
		if (tv && tv->at_entry && !bg_fexit_reads(w->g, tv))
			add_entry(w, e, tv->kind == TV_PRETTY);   /* $$parms: its text */
		else if (tv && tv->value && lx_has(tv->value, LX_UBIAS))
			w->bias = true;
		return WALK_DESCEND;   /* @cast's operand, [index] values */
	default:
		return WALK_DESCEND;
	}
}

/* The key at r10+k: the thread (pid_tgid) and the frame address, DWARF
 * register reg + off (reg < 0: the stack pointer + off). */
static void make_key(struct bgen *g, int k, int reg, int64_t off)
{
	bg_call(g, H_PID_TGID);
	stx(g, R10, k, R0);
	ldx(g, R0, R6, reg < 0 ? PT_REGS_SP : bg_pt_regs_off(reg));
	alu_k(g, A_ADD, R0, (int32_t)off);
	stx(g, R10, k + 8, R0);
}

/* The program on the function's entry: each value into the map. */
static void entry_program(struct bgen *g, const struct bpf_attach *at, int reg, int64_t off, int vsize)
{
	int vbase, k;

	bg_prog_start(g, g->dp, false);
	g->in_entry = true;
	for (int i = 0; i < g->dp->probe->locals.len; i++)   /* @entry(local): its value before the body */
		bg_local_zero(g, bg_local_new(g, g->dp->probe->locals.items[i]));
	vbase = bg_scratch(g, vsize);
	for (int i = 0; i < g->entries.len; i++) {
		struct bentry *b = &g->entries.items[i];
		struct expr *x = b->e->kind == EXPR_ENTRY ? b->e->lhs : b->e;
		if (b->str) {
			struct bstr s = bg_str(g, x);
			bg_str_copy(g, (struct bstr){ R7, vbase + b->voff }, s);
		} else {
			bg_long(g, x);
			stx(g, R7, vbase + b->voff, R0);
		}
	}
	if (g->bias_voff >= 0) {
		bg_ubias(g);
		stx(g, R7, vbase + g->bias_voff, R0);
	}
	bg_stack(g);
	k = bg_stack(g);   /* 16 bytes at r10+k */
	make_key(g, k, reg, off);
	bg_ld_map(g, R1, g->entry_map);
	mov(g, R2, R10);
	alu_k(g, A_ADD, R2, k);
	str_addr(g, R3, (struct bstr){ R7, vbase });
	bg_mov_imm(g, R4, 0);
	bg_call(g, H_MAP_UPDATE);
	bg_prog_end(g, at, g->dp->pp);   /* its callbacks made as on entry too */
	g->in_entry = false;
}

bool bg_entry_prepare(struct bgen *g, const struct derived_probe *dp)
{
	struct prewalk w = { .g = g };
	struct walker wk = { .expr = visit, .ctx = &w };
	struct bpf_attach at;
	const char *why = NULL;
	int reg;
	int64_t off;
	bool ok = true;

	g->entries.len = 0;
	g->entry_map = -1;
	g->bias_voff = -1;
	bg_set_probe(g, dp);
	if (dp->probe->cond)
		walk_expr(&wk, dp->probe->cond);
	walk_stmt(&wk, dp->probe->body);
	if (w.bias && g->ctx.bias_at_entry) {
		g->bias_voff = w.vsize;
		w.vsize += 8;
	}
	if (!g->entries.len && g->bias_voff < 0)
		return true;
	if (g->as_trampoline) {   /* an entry program's frame key is a kprobe's */
		bg_fail(g, dp->probe->pos, "values at entry of '%s' through a BPF trampoline", dp->pp);
		return false;
	}
	if (!dp->prov->bpf_entry_attach ||
	    dp->prov->bpf_entry_attach(g->s, dp, &at, &reg, &off, &g->entry_ret_off, &why) < 0) {
		bg_fail(g, dp->probe->pos, "values at entry of '%s' have no BPF form%s%s", dp->pp,
			why ? ": " : "", why ? why : "");
		ok = false;
	} else {
		struct strbuf spec = STRBUF_INIT;
		for (int i = 0; i < g->entries.len; i++)
			strbuf_addch(&spec, g->entries.items[i].str ? 's' : 'l');
		if (g->bias_voff >= 0)
			strbuf_addch(&spec, 'l');
		g->entry_map = bg_map(g, "lru_hash", "ll", spec.buf, g->maxmapentries, "@entry");
		at.optional = true;   /* the return program reports a refusal */
		entry_program(g, &at, reg, off, w.vsize);
		strbuf_release(&spec);
	}
	return ok;
}

void bg_entry_load(struct bgen *g)
{
	int k;

	if (g->entry_map < 0)
		return;
	bg_stack(g);
	k = bg_stack(g);
	make_key(g, k, -1, g->entry_ret_off);
	bg_ld_map(g, R1, g->entry_map);
	mov(g, R2, R10);
	alu_k(g, A_ADD, R2, k);
	bg_call(g, H_MAP_LOOKUP);
	bg_jmp(g, J_EQ, R0, -1, 0, g->exit_label);
	for (int i = 0; i < g->entries.len; i++) {
		struct bentry *b = &g->entries.items[i];
		if (b->str) {
			b->off = bg_scratch(g, g->strsz);
			bg_str_copy(g, (struct bstr){ R7, b->off }, (struct bstr){ R0, b->voff });
		} else {
			b->off = bg_stack(g);
			ldx(g, R1, R0, b->voff);
			stx(g, R10, b->off, R1);
		}
	}
	if (g->bias_voff >= 0) {
		g->bias_off = bg_stack(g);
		ldx(g, R1, R0, g->bias_voff);
		stx(g, R10, g->bias_off, R1);
	}
	bg_ld_map(g, R1, g->entry_map);
	mov(g, R2, R10);
	alu_k(g, A_ADD, R2, k);
	bg_call(g, H_MAP_DELETE);
}

bool bg_entry_value(struct bgen *g, struct expr *e, struct bstr *out)
{
	if (g->in_entry || g->entry_map < 0)
		return false;
	for (int i = 0; i < g->entries.len; i++) {
		struct bentry *b = &g->entries.items[i];
		if (b->e != e)
			continue;
		if (b->str && out)
			*out = (struct bstr){ R7, b->off };
		else
			ldx(g, R0, R10, b->off);
		return true;
	}
	return false;
}

void bg_ubias(struct bgen *g)
{
	if (!g->in_entry && g->ctx.bias_at_entry) {
		if (g->bias_voff < 0) {
			bg_fail(g, g->last_pos, "the load bias of a process probe's file has no BPF form here");
			return;
		}
		ldx(g, R0, R10, g->bias_off);
		return;
	}
	ldx(g, R0, R6, PT_REGS_IP);
	bg_mov_imm(g, R1, (int64_t)(g->in_entry ? g->ctx.entry_vaddr : g->ctx.vaddr));
	alu_x(g, A_SUB, R0, R1);
}
