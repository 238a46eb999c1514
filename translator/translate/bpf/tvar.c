/* tvar.c - $target variables and @cast for the BPF backend. Pass 2
 * resolves them through DWARF or BTF into the lowered form (lowered.h),
 * compiled here: registers from the probe's pt_regs (r6), memory through
 * bpf_probe_read_kernel/user; what BPF has no form of (module globals) is
 * refused. Pretty-printed values, the items pass 2 lowers them to
 * (elaborate/tvars.h), are compiled by pretty.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elaborate/tvars.h"
#include "translate/bpf/gen.h"

/* x86-64 DWARF register numbers -> offsets in struct pt_regs */
static const int dwarf_pt_regs[] = { 80, 96, 88, 40, 104, 112, 32, 152, 72, 64, 56, 48, 24, 16, 8, 0, 128 };

int bg_pt_regs_off(int dwarf_reg)
{
	return dwarf_reg >= 0 && dwarf_reg < (int)(sizeof(dwarf_pt_regs) / sizeof(int)) ? dwarf_pt_regs[dwarf_reg] : 0;
}

/* r0 = the value of a read of size bytes at address r0; a fault is the
 * script's error, as the module runtime reports it; *bad when it cannot
 * be made (reported) */
static void read_mem(struct bgen *g, const struct expr *te, int size, bool user, bool *bad)
{
	const char *what = te->kind == EXPR_TARGET ? "identifier" : "operator";
	const char *name = te->kind == EXPR_TARGET ? te->name : te->kind == EXPR_CAST ? "@cast" : "@var";

	if (g->user && !user) {   /* stapbpf's interpreter cannot read the kernel */
		bg_fail(g, te->pos, "reading kernel memory in a begin, end, error or procfs probe "
			"(stapbpf runs them in user space)");
		return;
	}
	if (!bg_read_mem(g, size, user, "read fault [man error::fault] at 0x%x", what, name, te->pos))
		*bad = true;
}

/* r0 = DWARF register r at a BPF trampoline: the argument registers are
 * its args[0..5], rax at fexit the return value, read with the helpers the
 * verifier inlines (a pointer argument read from the context directly
 * would be a typed pointer, which takes no arithmetic); the stack's
 * arguments follow in args[] (read as memory). */
static bool trampoline_reg(struct bgen *g, int64_t r)
{
	static const int arg_of[] = { [5] = 1, [4] = 2, [1] = 3, [2] = 4, [8] = 5, [9] = 6 };
	int a = r >= 0 && r < 10 ? arg_of[r] : 0, slot;
	bool ret = r == 0 && g->ctx.trampoline == 2;

	if (r == 7) {
		/* sp: as the kprobe's, 8 bytes below where the stack's
		 * arguments start, the seventh's on (param_lx): args[6...] */
		mov(g, R0, R6);
		alu_k(g, A_ADD, R0, 8 * 6 - 8);
		return true;
	}
	if (!a && !ret)
		return false;
	slot = bg_stack(g);
	mov(g, R1, R6);
	if (!ret)
		bg_mov_imm(g, R2, a - 1);
	mov(g, ret ? R2 : R3, R10);
	alu_k(g, A_ADD, ret ? R2 : R3, slot);
	bg_call(g, ret ? H_FUNC_RET : H_FUNC_ARG);
	ldx(g, R0, R10, slot);
	return true;
}

/* r0 = DWARF register r of the probe's context; false if it has none */
static bool read_reg(struct bgen *g, int64_t r)
{
	if (r < 0 || r >= (int64_t)(sizeof(dwarf_pt_regs) / sizeof(int)))
		return false;
	if (g->user)   /* begin/end have no registers */
		return false;
	if (g->ctx.trampoline)
		return trampoline_reg(g, r);
	if (g->ctx_args) {   /* a raw tracepoint: si, dx, cx, r8, r9 are args[0..4] */
		static const int arg_of[] = { [4] = 1, [1] = 2, [2] = 3, [8] = 4, [9] = 5 };
		int a = r < 10 ? arg_of[r] : 0;
		if (r == 7) {
			/* sp: the module's handler points it at a return
			 * address slot before the arguments after the fifth
			 * (probes/tracepoint.c), which are args[5...] here */
			mov(g, R0, R6);
			alu_k(g, A_ADD, R0, 8 * 5 - 8);
			return true;
		}
		if (!a)
			return false;
		bg_emit(g, B_LDX | B_MEM | B_DW, R0, R6, 8 * (a - 1), 0);
		return true;
	}
	bg_emit(g, B_LDX | B_MEM | B_DW, R0, R6, dwarf_pt_regs[r], 0);
	return true;
}

/* r0 = the kernel's load offset: @config's third field */
static void kaslr_offset(struct bgen *g)
{
	int none = bg_label(g);

	bg_lookup0(g, g->config_map);
	bg_jmp(g, J_EQ, R0, -1, 0, none);
	ldx(g, R0, R0, 16);
	bg_place(g, none);
}

/* Compiling a lowered value: te is the target expression it is (for
 * messages), sc what its leaves stand for. */
struct lxgen {
	struct bgen *g;
	const struct expr *te;
	const struct bg_lxscope *sc;
	int nself;              /* LX_LOCAL -1 is sc->self[nself - 1] */
	bool bad;               /* a step BPF has no form of */
};

/* r0 = x, the operands' values evaluated where x names them; every binary
 * step keeps its left value in a stack slot of its own while the right
 * one is made (both may read memory, which takes r1-r5) */
static void emit_lx(struct lxgen *c, const struct lx *x)
{
	static const int alu[] = {
		[LX_ADD] = A_ADD, [LX_SUB] = A_SUB, [LX_MUL] = A_MUL, [LX_AND] = A_AND, [LX_OR] = A_OR,
		[LX_XOR] = A_XOR, [LX_SHL] = A_LSH, [LX_SHR] = A_RSH, [LX_SAR] = A_ARSH,
	};
	struct bgen *g = c->g;
	const struct bg_lxscope *sc = c->sc;

	if (c->bad)
		return;
	switch (x->op) {
	case LX_CONST:
		bg_mov_imm(g, R0, x->k);
		return;
	case LX_REG:
		if (!read_reg(g, x->k))
			c->bad = true;
		return;
	case LX_PTR:
	case LX_INDEX: {
		int i = x->op == LX_PTR ? 0 : (int)x->k + (sc->has_ptr ? 1 : 0);
		if ((x->op == LX_PTR && !sc->has_ptr) || i >= sc->nops)
			c->bad = true;
		else
			bg_long(g, sc->ops[i]);
		return;
	}
	case LX_KASLR:
		kaslr_offset(g);
		return;
	case LX_UBIAS:   /* a process probe's load bias */
		if (g->user)
			c->bad = true;
		else
			bg_ubias(g);
		return;
	case LX_LOCAL:
		if (x->k < 0 && c->nself > 0) {   /* the struct printed: its address, made here */
			c->nself--;
			emit_lx(c, sc->self[c->nself]);
			c->nself++;
		} else if (x->k >= 0 && x->k < BG_LX_LOCALS && sc->slots[x->k]) {
			ldx(g, R0, R10, sc->slots[x->k]);
		} else {
			c->bad = true;
		}
		return;
	case LX_MODSYM:
		c->bad = true;
		return;
	case LX_LOAD:
		emit_lx(c, x->a);
		if (!c->bad)
			read_mem(g, c->te, (int)x->k, x->user, &c->bad);
		return;
	case LX_SEXT:
		emit_lx(c, x->a);
		bg_sext(g, (int)x->k);
		return;
	case LX_NEG:
		emit_lx(c, x->a);
		bg_emit(g, B_ALU64 | A_NEG | B_K, R0, 0, 0, 0);
		return;
	case LX_NOT:
		emit_lx(c, x->a);
		bg_emit(g, B_ALU64 | A_XOR | B_K, R0, 0, 0, -1);
		return;
	default: {
		bool shift = x->op == LX_SHL || x->op == LX_SHR || x->op == LX_SAR;
		emit_lx(c, x->a);
		if (shift ? lx_small_shift(x->b) : x->b->op == LX_CONST && x->b->k == (int32_t)x->b->k) {
			alu_k(g, alu[x->op], R0, (int32_t)x->b->k);   /* an immediate (sign-extended) */
			return;
		}
		int t = bg_stack(g);
		bg_emit(g, B_STX | B_MEM | B_DW, R10, R0, t, 0);
		emit_lx(c, x->b);
		if (shift)
			alu_k(g, A_AND, R0, 63);   /* the count modulo 64, as the module's C */
		bg_emit(g, B_ALU64 | A_MOV | B_X, R1, R0, 0, 0);
		bg_emit(g, B_LDX | B_MEM | B_DW, R0, R10, t, 0);
		bg_emit(g, B_ALU64 | alu[x->op] | B_X, R0, R1, 0, 0);
		return;
	}
	}
}

bool bg_lx(struct bgen *g, const struct lx *x, const struct expr *te, const struct bg_lxscope *sc)
{
	struct lxgen c = { .g = g, .te = te, .sc = sc, .nself = sc->nself };

	emit_lx(&c, x);
	return !c.bad;
}

void bg_lx_operands(struct expr *te, struct bg_lxscope *sc)
{
	sc->nops = tvar_operands(te, &sc->ops, &sc->has_ptr);
}

/* r0 = the value x for te, in scope sc; false after reporting */
static bool compile_lx(struct bgen *g, const struct lx *x, const struct expr *te, const struct bg_lxscope *sc)
{
	if (bg_lx(g, x, te, sc))
		return true;
	struct strbuf sb = STRBUF_INIT;
	lx_dump(&sb, x);
	bg_fail(g, te->pos, "this target expression has no BPF form yet (%s)", sb.buf);
	strbuf_release(&sb);
	return false;
}

/* e ($x, $p->f, @cast(p, "t")->f, &$x ...) in r0; false when it has no BPF
 * form (reported) */
bool bg_tvar(struct bgen *g, struct expr *e)
{
	struct expr *te = e->kind == EXPR_ADDROF ? e->lhs : e;
	const struct tvar *tv = tvar_find(g->s, g->dp, e);
	struct bg_lxscope sc = { 0 };
	bool ok;

	if (!tv || tv->kind != TV_VALUE || !tv->value) {
		bg_fail(g, e->pos, "%s", tv && tv->kind == TV_PRETTY ? "pretty-printing a target variable has no BPF form yet"
		      : "this target expression has no BPF form");
		return false;
	}
	if (tv->at_entry && !g->in_entry && !bg_fexit_reads(g, tv)) {   /* its copy, read by the entry program */
		if (bg_entry_value(g, e, NULL))
			return true;
		bg_fail(g, e->pos, "a parameter in a .return probe (the value at entry) has no BPF form here");
		return false;
	}
	bg_lx_operands(te, &sc);
	ok = compile_lx(g, tv->value, te, &sc);
	free(sc.ops);
	return ok;
}

bool bg_tvar_const(struct bgen *g, struct expr *e, char **s, size_t *n)
{
	const struct tvar *tv = e->kind == EXPR_TARGET ? tvar_find(g->s, g->dp, e) : NULL;
	const char *text;

	if (!tv || tv->kind != TV_PRETTY || !lp_constant(tv->pretty, &text))
		return false;
	*s = xstrdup(text);
	*n = strlen(text);
	return true;
}

bool bg_mark_parms(struct bgen *g, struct expr *e, int *nargs)
{
	const struct tvar *tv = e->kind == EXPR_TARGET ? tvar_find(g->s, g->dp, e) : NULL;

	return tv && tv->kind == TV_PRETTY && (!strcmp(e->name, "$$parms") || !strcmp(e->name, "$$vars")) &&
	       !e->suffix && g->ctx.mark_args >= 0 && (*nargs = g->ctx.mark_args, true);
}

/* Marker argument i, as its family's tvar_code gives $argI; NULL with
 * *why (allocated, or NULL) when it has none. */
static const struct lx *mark_arg(struct bgen *g, int i, char **why)
{
	char name[24];
	struct expr arg = { .kind = EXPR_TARGET, .name = name };
	const struct lx *value = NULL;
	lpvec *pretty = NULL;

	snprintf(name, sizeof(name), "$arg%d", i);
	if (!g->dp->prov->tvar_code || g->dp->prov->tvar_code(g->s, g->dp, &arg, &value, &pretty, why) != 1 ||
	    pretty)
		return NULL;
	return value;
}

void bg_mark_parms_fmt(struct strbuf *fmt, int nargs)
{
	for (int i = 1; i <= nargs; i++)
		strbuf_addf(fmt, "%s$arg%d=%%s", i > 1 ? " " : "", i);
}

bool bg_mark_arg_str(struct bgen *g, struct expr *e, int i, struct bstr d)
{
	char *why = NULL;
	const struct lx *x = mark_arg(g, i, &why);
	int v = bg_stack(g), fault = bg_label(g), done = bg_label(g);
	bool ok;

	if (!x) {
		bg_fail(g, e->pos, "%s: %s", e->name, why ? why : "an argument has no value");
		free(why);
		return false;
	}
	vec_push(&g->tries, ((struct btry){ .catch_label = fault }));
	ok = compile_lx(g, x, e, &(struct bg_lxscope){ 0 });
	g->tries.len--;
	stx(g, R10, v, R0);
	ok = ok && bg_kformat(g, "%#x", 3, "l", &v, NULL, d, e->pos);
	bg_ja(g, done);
	bg_place(g, fault);
	bg_str_literal(g, d, "?", 1);
	bg_place(g, done);
	return ok;
}

/* $$parms of an SDT marker as a string value: cut to BPF's 63 bytes
 * (printf splices it whole) */
static bool mark_parms(struct bgen *g, struct expr *e, int nargs, struct bstr d)
{
	struct strbuf fmt = STRBUF_INIT, types = STRBUF_INIT;
	struct bstr sv[12];
	bool ok = true;

	if (nargs > 12) {
		bg_fail(g, e->pos, "%s of a marker of more than 12 arguments has no BPF form", e->name);
		return false;
	}
	for (int i = 1; i <= nargs && ok; i++) {
		sv[i - 1] = scratch_str(g);
		ok = bg_mark_arg_str(g, e, i, sv[i - 1]);
		strbuf_addch(&types, 's');
	}
	bg_mark_parms_fmt(&fmt, nargs);
	if (ok)
		ok = bg_kformat(g, fmt.buf, fmt.len, types.buf, NULL, sv, d, e->pos);
	strbuf_release(&fmt);
	strbuf_release(&types);
	return ok;
}

bool bg_tvar_str(struct bgen *g, struct expr *e, struct bstr d)
{
	char *s;
	size_t n;
	int nargs;

	if (bg_tvar_const(g, e, &s, &n)) {
		bool ok = bg_str_fits(g, n, e->name, e->pos);
		if (ok)
			bg_str_literal(g, d, s, n);
		free(s);
		return ok;
	}
	if (bg_mark_parms(g, e, &nargs))
		return mark_parms(g, e, nargs, d);
	return bg_pretty_value(g, e, d);
}

/* @defined(e) / @choose_defined(a, b): as pass 2 decided for this probe */
bool bg_tvar_defined(struct bgen *g, struct expr *e)
{
	const struct tvar *tv = tvar_find(g->s, g->dp, e);

	return tv && tv->defined;
}
