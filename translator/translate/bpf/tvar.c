/* tvar.c - $target variables and @cast for the BPF backend. Pass 2
 * resolves them through DWARF or BTF into the lowered form (lowered.h),
 * compiled here: registers from the probe's pt_regs (r6), memory through
 * bpf_probe_read_kernel/user; what BPF has no form of (module globals) is
 * refused. Pretty-printed values are still module C statements
 * (target/tvars.h); the C expressions in them are read back here
 * (bg_cexpr, for pretty.c). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "target/tvars.h"
#include "translate/bpf/gen.h"

/* x86-64 DWARF register numbers -> offsets in struct pt_regs */
static const int dwarf_pt_regs[] = { 80, 96, 88, 40, 104, 112, 32, 152, 72, 64, 56, 48, 24, 16, 8, 0, 128 };

struct cparse {
	struct bgen *g;
	const char *p;
	bool bad;
	struct expr *te;        /* for messages, and @@P@@ / @@I@@ operands */
	struct expr **ops;      /* @cast's pointer, then the [index] values */
	int nops;
	bool has_ptr;
	const char *const *names;   /* the pretty printer's v_ ...: r10 slots */
	const int *slots;
	int nnames;
};

int bg_pt_regs_off(int dwarf_reg)
{
	return dwarf_reg >= 0 && dwarf_reg < (int)(sizeof(dwarf_pt_regs) / sizeof(int)) ? dwarf_pt_regs[dwarf_reg] : 0;
}

static void skip_ws(struct cparse *c)
{
	while (isspace((unsigned char)*c->p))
		c->p++;
}

static bool eat(struct cparse *c, const char *tok)
{
	size_t n = strlen(tok);

	skip_ws(c);
	if (strncmp(c->p, tok, n))
		return false;
	c->p += n;
	return true;
}

static void cexpr(struct cparse *c, int prec);

/* r0 = the value of a read of size bytes at address r0; a fault is the
 * script's error, as the module runtime reports it; false if it cannot be
 * made (reported, or *bad set) */
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

/* r0 = DWARF register r of the probe's context; false if it has none */
static bool read_reg(struct bgen *g, int64_t r)
{
	if (r < 0 || r >= (int64_t)(sizeof(dwarf_pt_regs) / sizeof(int)))
		return false;
	if (g->user)   /* begin/end have no registers */
		return false;
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

static void zext(struct bgen *g, int bits)
{
	if (bits == 32)
		bg_emit(g, B_ALU | A_MOV | B_X, R0, R0, 0, 0);
	else if (bits < 32)
		bg_emit(g, B_ALU64 | A_AND | B_K, R0, 0, 0, (int32_t)((1u << bits) - 1));
}

static int64_t number(struct cparse *c)
{
	char *end;
	int64_t v = (int64_t)strtoull(c->p, &end, 0);

	c->p = end;
	while (*c->p == 'U' || *c->p == 'L' || *c->p == 'u' || *c->p == 'l')
		c->p++;
	return v;
}

/* A cast's type: bits and signedness; false if it is not a type we know. */
static bool cast_type(struct cparse *c, int *bits, bool *sign)
{
	static const struct { const char *name; int bits; bool sign; } types[] = {
		{ "int64_t", 64, true }, { "uint64_t", 64, false }, { "int32_t", 32, true },
		{ "uint32_t", 32, false }, { "int16_t", 16, true }, { "uint16_t", 16, false },
		{ "int8_t", 8, true }, { "uint8_t", 8, false }, { "unsigned long long", 64, false },
		{ "unsigned long", 64, false }, { "long long", 64, true }, { "long", 64, true },
		{ "u64", 64, false }, { "s64", 64, true }, { "u32", 32, false }, { "s32", 32, true },
	};
	const char *save = c->p;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		c->p = save;
		if (eat(c, "(") && eat(c, types[i].name) && eat(c, ")")) {
			*bits = types[i].bits;
			*sign = types[i].sign;
			return true;
		}
	}
	c->p = save;
	return false;
}

static void primary(struct cparse *c)
{
	struct bgen *g = c->g;
	int bits;
	bool sign;

	skip_ws(c);
	if (cast_type(c, &bits, &sign)) {
		cexpr(c, 11);
		if (bits < 64)
			sign ? bg_sext(g, bits) : zext(g, bits);
		return;
	}
	if (eat(c, "(")) {
		cexpr(c, 0);
		if (!eat(c, ")"))
			c->bad = true;
		return;
	}
	if (eat(c, "-")) {
		primary(c);
		bg_emit(g, B_ALU64 | A_NEG | B_K, R0, 0, 0, 0);
		return;
	}
	if (eat(c, "~")) {
		primary(c);
		bg_emit(g, B_ALU64 | A_XOR | B_K, R0, 0, 0, -1);
		return;
	}
	if (isdigit((unsigned char)*c->p)) {
		bg_mov_imm(g, R0, number(c));
		return;
	}
	if (eat(c, "@@P@@")) {
		if (!c->has_ptr)
			c->bad = true;
		else
			bg_long(g, c->ops[0]);
		return;
	}
	if (eat(c, "@@I")) {
		int i = (int)number(c) + (c->has_ptr ? 1 : 0);
		if (!eat(c, "@@") || i >= c->nops)
			c->bad = true;
		else
			bg_long(g, c->ops[i]);
		return;
	}
	if (eat(c, "stp_kaslr_offset")) {
		kaslr_offset(g);
		return;
	}
	if (eat(c, "c->ubias")) {   /* a process probe's load bias */
		if (g->user)
			c->bad = true;
		else
			bg_ubias(g);
		return;
	}
	if (eat(c, "stp_dwarf_reg(c,")) {
		int64_t r = (skip_ws(c), number(c));
		if (!eat(c, ")") || !read_reg(g, r))
			c->bad = true;
		return;
	}
	bool user = false;
	if (eat(c, "stp_kread(c,") || (user = eat(c, "stp_uread(c,"))) {
		int size;
		cexpr(c, 0);
		if (!eat(c, ","))
			c->bad = true;
		skip_ws(c);
		size = (int)number(c);
		if (!eat(c, ")"))
			c->bad = true;
		if (!c->bad)
			read_mem(g, c->te, size, user, &c->bad);
		return;
	}
	if (eat(c, "stp_sext(")) {
		int b;
		cexpr(c, 0);
		if (!eat(c, ","))
			c->bad = true;
		skip_ws(c);
		b = (int)number(c);
		if (!eat(c, ")"))
			c->bad = true;
		bg_sext(g, b);
		return;
	}
	for (int i = 0; i < c->nnames; i++) {
		size_t n = strlen(c->names[i]);
		if (!strncmp(c->p, c->names[i], n) && !isalnum((unsigned char)c->p[n]) && c->p[n] != '_') {
			c->p += n;
			ldx(g, R0, R10, c->slots[i]);
			return;
		}
	}
	c->bad = true;
}

static int binop(struct cparse *c, int *op)
{
	static const struct { const char *tok; int prec, op; } ops[] = {
		{ "<<", 8, A_LSH }, { ">>", 8, A_ARSH }, { "*", 10, A_MUL }, { "+", 9, A_ADD },
		{ "-", 9, A_SUB }, { "&", 7, A_AND }, { "^", 6, A_XOR }, { "|", 5, A_OR },
	};

	skip_ws(c);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strncmp(c->p, ops[i].tok, strlen(ops[i].tok)) &&
		    !(ops[i].tok[0] == '&' && c->p[1] == '&') && !(ops[i].tok[0] == '|' && c->p[1] == '|')) {
			*op = ops[i].op;
			return ops[i].prec;
		}
	return -1;
}

/* precedence climbing over the binary operators; the value in r0 */
static void cexpr(struct cparse *c, int min)
{
	struct bgen *g = c->g;
	int op = 0, prec;

	primary(c);
	while (!c->bad && (prec = binop(c, &op)) > min) {
		int t = bg_stack(g);
		c->p += op == A_LSH || op == A_ARSH ? 2 : 1;
		bg_emit(g, B_STX | B_MEM | B_DW, R10, R0, t, 0);
		cexpr(c, prec);
		bg_emit(g, B_ALU64 | A_MOV | B_X, R1, R0, 0, 0);
		bg_emit(g, B_LDX | B_MEM | B_DW, R0, R10, t, 0);
		bg_emit(g, B_ALU64 | op | B_X, R0, R1, 0, 0);
	}
}

/* Compiling a lowered value: te is the target expression it is (for
 * messages), ops its operands (@cast's pointer first, then the [index]
 * values). */
struct lxgen {
	struct bgen *g;
	const struct expr *te;
	struct expr **ops;
	int nops;
	bool has_ptr;
	bool bad;               /* a step BPF has no form of */
};

/* r0 = x, the operands' values evaluated where x names them; every binary
 * step keeps its left value in a stack slot of its own while the right
 * one is made (both may read memory, which takes r1-r5) */
static void emit_lx(struct lxgen *c, const struct lx *x)
{
	static const int alu[] = {
		[LX_ADD] = A_ADD, [LX_SUB] = A_SUB, [LX_MUL] = A_MUL, [LX_AND] = A_AND, [LX_OR] = A_OR,
		[LX_XOR] = A_XOR, [LX_SHL] = A_LSH, [LX_SHR] = A_ARSH, [LX_SAR] = A_ARSH,
	};
	struct bgen *g = c->g;

	if (c->bad)
		return;
	switch (x->op) {
	case LX_CONST:
		if (!x->hex && x->k < 0 && x->k != INT64_MIN) {
			bg_mov_imm(g, R0, -x->k);
			bg_emit(g, B_ALU64 | A_NEG | B_K, R0, 0, 0, 0);
		} else {
			bg_mov_imm(g, R0, x->k);
		}
		return;
	case LX_REG:
		if (!read_reg(g, x->k))
			c->bad = true;
		return;
	case LX_PTR:
	case LX_INDEX: {
		int i = x->op == LX_PTR ? 0 : (int)x->k + (c->has_ptr ? 1 : 0);
		if ((x->op == LX_PTR && !c->has_ptr) || i >= c->nops)
			c->bad = true;
		else
			bg_long(g, c->ops[i]);
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
	case LX_MODSYM:
	case LX_LOCAL:
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
		emit_lx(c, x->a);
		int t = bg_stack(g);
		bg_emit(g, B_STX | B_MEM | B_DW, R10, R0, t, 0);
		bool shift = x->op == LX_SHL || x->op == LX_SHR || x->op == LX_SAR;
		if (shift && !(x->b->op == LX_CONST && x->b->k >= 0 && x->b->k < 64))
			emit_lx(c, lx_bin(LX_AND, x->b, lx_const(63)));   /* the count modulo 64 */
		else
			emit_lx(c, x->b);
		bg_emit(g, B_ALU64 | A_MOV | B_X, R1, R0, 0, 0);
		bg_emit(g, B_LDX | B_MEM | B_DW, R0, R10, t, 0);
		bg_emit(g, B_ALU64 | alu[x->op] | B_X, R0, R1, 0, 0);
		return;
	}
	}
}

/* r0 = the value x for te, with @cast's pointer and the [index] values
 * ops; false after reporting */
static bool compile_lx(struct bgen *g, const struct lx *x, const struct expr *te, struct expr **ops, int nops,
		       bool has_ptr)
{
	struct lxgen c = { .g = g, .te = te, .ops = ops, .nops = nops, .has_ptr = has_ptr };

	emit_lx(&c, x);
	if (c.bad) {
		struct strbuf sb = STRBUF_INIT;
		lx_dump(&sb, x);
		bg_fail(g, te->pos, "this target expression has no BPF form yet (%s)", sb.buf);
		strbuf_release(&sb);
		return false;
	}
	return true;
}

/* te's operands the code names: @cast's pointer (@@P@@), then the [index]
 * values (@@I0@@ ...); free ops->items */
static void operands(struct expr *te, struct cparse *c, void *vec)
{
	VEC(struct expr *) *ops = vec;

	if (te->kind == EXPR_CAST)
		vec_push(ops, te->lhs);
	for (int i = 0; i < te->chain.len; i++)
		if (te->chain.items[i]->kind == TS_INDEX)
			vec_push(ops, te->chain.items[i]->index);
	c->ops = ops->items;
	c->nops = ops->len;
	c->has_ptr = te->kind == EXPR_CAST;
}

bool bg_cexpr(struct bgen *g, const char **p, struct expr *te, const char *const *names, const int *slots, int n)
{
	struct cparse c = { .g = g, .te = te, .p = *p, .names = names, .slots = slots, .nnames = n };
	VEC(struct expr *) ops = { 0 };

	operands(te, &c, &ops);
	cexpr(&c, 0);
	skip_ws(&c);
	*p = c.p;
	free(ops.items);
	return !c.bad;
}

/* e ($x, $p->f, @cast(p, "t")->f, &$x ...) in r0; false when it has no BPF
 * form (reported) */
bool bg_tvar(struct bgen *g, struct expr *e)
{
	struct expr *te = e->kind == EXPR_ADDROF ? e->lhs : e;
	const struct tvar *tv = tvar_find(g->s, g->dp, e);
	VEC(struct expr *) ops = { 0 };
	bool ok;

	if (!tv || tv->kind != TV_VALUE || !tv->value) {
		bg_fail(g, e->pos, "%s", tv && tv->kind == TV_PRETTY ? "pretty-printing a target variable has no BPF form yet"
		      : "this target expression has no BPF form");
		return false;
	}
	if (tv->at_entry && !g->in_entry) {   /* its copy, read by the entry program */
		if (bg_entry_value(g, e, NULL))
			return true;
		bg_fail(g, e->pos, "a parameter in a .return probe (the value at entry) has no BPF form here");
		return false;
	}
	struct cparse c = { 0 };
	operands(te, &c, &ops);
	ok = compile_lx(g, tv->value, te, c.ops, c.nops, c.has_ptr);
	free(ops.items);
	return ok;
}

char *bg_c_literal(const char *p, const char **end, size_t *n)
{
	struct strbuf sb = STRBUF_INIT;

	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		if (*p != '\\') {
			strbuf_addch(&sb, *p++);
			continue;
		}
		p++;
		switch (*p) {
		case 'n': strbuf_addch(&sb, '\n'); p++; break;
		case 't': strbuf_addch(&sb, '\t'); p++; break;
		case 'r': strbuf_addch(&sb, '\r'); p++; break;
		case 'x': {
			char *e;
			strbuf_addch(&sb, (char)strtol(p + 1, &e, 16));
			p = e;
			break;
		}
		default:
			if (*p >= '0' && *p <= '7') {
				int v = 0;
				for (int i = 0; i < 3 && *p >= '0' && *p <= '7'; i++)
					v = v * 8 + *p++ - '0';
				strbuf_addch(&sb, (char)v);
			} else if (*p) {
				strbuf_addch(&sb, *p++);
			}
		}
	}
	if (*p != '"') {
		strbuf_release(&sb);
		return NULL;
	}
	*end = p;
	*n = sb.len;
	return strbuf_detach(&sb);
}

bool bg_tvar_const(struct bgen *g, struct expr *e, char **s, size_t *n)
{
	const struct tvar *tv = e->kind == EXPR_TARGET ? tvar_find(g->s, g->dp, e) : NULL;
	const char *p, *end;
	char *t;

	if (!tv || tv->kind != TV_PRETTY || !tv->code || strncmp(tv->code, "stp_str_append(@@S@@, ", 22))
		return false;
	p = tv->code + 22;
	if (!(t = bg_c_literal(p, &end, n)))
		return false;
	if (strcmp(end, "\");\n")) {
		free(t);
		return false;
	}
	*s = t;
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
	char *pretty = NULL;

	snprintf(name, sizeof(name), "$arg%d", i);
	if (!g->dp->prov->tvar_code || g->dp->prov->tvar_code(g->s, g->dp, &arg, &value, &pretty, why) != 1 ||
	    pretty) {
		free(pretty);
		return NULL;
	}
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
	ok = compile_lx(g, x, e, NULL, 0, false);
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
