/* expr.c - expressions for the BPF backend: a long ends in r0, a string in
 * a 64-byte slot (gen.h). Functions with embedded C have a BPF form here
 * or are refused (E_BPF_UNSUPPORTED); functions in the script language
 * are inlined at each call. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "probes/provider.h"
#include "target/syscalls_gen.h"
#include "target/tvars.h"
#include "translate/bpf/gen.h"

static void error_near(struct bgen *g, const char *msg, const char *what, const char *name,
		       struct srcpos pos)
{
	char *f = bg_near_fmt(msg, what, name, pos);

	bg_error(g, msg, f);
	free(f);
}

/* After a map update (r0 its result): a full map is the script's error,
 * in the module runtime's words. */
static void overflow_check(struct bgen *g, const struct expr *arr)
{
	int ok = bg_label(g);
	char *msg = arr->sym->max_entries > 0
		    ? xasprintf("Array overflow, check size limit (%lld)", (long long)arr->sym->max_entries)
		    : xstrdup("Array overflow, check MAXMAPENTRIES");

	bg_jmp(g, J_EQ, R0, -1, 0, ok);
	error_near(g, msg, "identifier", arr->name, arr->pos);
	bg_place(g, ok);
	free(msg);
}

static bool user_only(struct bgen *g, struct srcpos pos, const char *what)
{
	if (g->user)
		return true;
	bg_fail_user_only(g, pos, what);
	return false;
}

/* ---- variables ------------------------------------------------------- */

struct bloc *bg_local(struct bgen *g, const struct sym *v)
{
	for (int i = g->locs.len - 1; i >= 0; i--)
		if (g->locs.items[i]->sym == v)
			return g->locs.items[i];
	return bg_local_new(g, v);
}

struct bloc *bg_local_new(struct bgen *g, const struct sym *v)
{
	struct bloc *l = xcalloc(1, sizeof(*l));

	l->sym = v;
	l->str = v->type == TYPE_STRING;
	l->off = l->str ? bg_scratch(g, BPF_STRSZ) : bg_stack(g);
	vec_push(&g->locs, l);
	return l;
}

void bg_local_zero(struct bgen *g, struct bloc *l)
{
	if (l->str)
		bg_str_zero(g, (struct bstr){ R7, l->off });
	else
		bg_emit(g, B_ST | B_MEM | B_DW, R10, 0, l->off, 0);
}

static bool is_global(const struct sym *v)
{
	return v && v->kind == SYM_GLOBAL;
}

/* The key of arr[keys] built in scratch: its r7 offset. */
static int build_key(struct bgen *g, const struct sym *arr, struct expr **keys, int n)
{
	int size = 0, off, at;

	for (int i = 0; i < n; i++)
		size += keys[i]->type == TYPE_STRING ? BPF_STRSZ : 8;
	off = at = bg_scratch(g, size);
	for (int i = 0; i < n; i++) {
		if (keys[i]->kind == EXPR_STAR) {
			bg_fail(g, keys[i]->pos, "an array slice ([*]) has no BPF form yet");
			return off;
		}
		if (keys[i]->type == TYPE_STRING) {
			struct bstr k = bg_str(g, keys[i]);
			bg_str_copy(g, (struct bstr){ R7, at }, k);
			at += BPF_STRSZ;
		} else {
			bg_long(g, keys[i]);
			stx(g, R7, at, R0);
			at += 8;
		}
	}
	(void)arr;
	return off;
}

/* r0 = the element's value address, or 0: a lookup of arr[keys] */
static void lookup(struct bgen *g, const struct sym *arr, int key)
{
	bg_ld_map(g, R1, g->gmap[arr->index]);
	str_addr(g, R2, (struct bstr){ R7, key });
	bg_call(g, H_MAP_LOOKUP);
}

/* Scalar aggregates are a per-CPU array of one entry: key 0 at r10-8. */
static void lookup_stat_scalar(struct bgen *g, const struct sym *v)
{
	bg_lookup0(g, g->gmap[v->index]);
}

/* ---- reading values -------------------------------------------------- */

static void read_var_long(struct bgen *g, struct expr *e)
{
	const struct sym *v = e->sym;

	if (is_global(v))
		ldx(g, R0, R8, g->goff[v->index]);
	else
		ldx(g, R0, R10, bg_local(g, v)->off);
}

static struct bstr var_str(struct bgen *g, struct expr *e)
{
	const struct sym *v = e->sym;

	if (is_global(v))
		return (struct bstr){ R8, g->goff[v->index] };
	return (struct bstr){ R7, bg_local(g, v)->off };
}

static void read_index_long(struct bgen *g, struct expr *e)
{
	int key = build_key(g, e->sym, e->args.items, e->args.len);
	int found = bg_label(g), done = bg_label(g);

	lookup(g, e->sym, key);
	bg_jmp(g, J_NE, R0, -1, 0, found);
	bg_mov_imm(g, R0, 0);
	bg_ja(g, done);
	bg_place(g, found);
	ldx(g, R0, R0, 0);
	bg_place(g, done);
}

static struct bstr read_index_str(struct bgen *g, struct expr *e)
{
	int key = build_key(g, e->sym, e->args.items, e->args.len);
	struct bstr d = scratch_str(g);
	int found = bg_label(g), done = bg_label(g);

	lookup(g, e->sym, key);
	bg_jmp(g, J_NE, R0, -1, 0, found);
	bg_str_zero(g, d);
	bg_ja(g, done);
	bg_place(g, found);
	bg_str_copy(g, d, (struct bstr){ R0, 0 });
	bg_place(g, done);
	return d;
}

/* dst /= div, truncating toward zero, for a div known to be positive (a
 * count): BPF's division is unsigned, so it divides |dst| and puts the
 * sign back. Uses no other register. */
static void sdiv_by_count(struct bgen *g, int dst, int div)
{
	int pos = bg_label(g), done = bg_label(g);

	bg_jmp(g, J_SGE, dst, -1, 0, pos);
	alu_k(g, A_NEG, dst, 0);
	bg_emit(g, B_ALU64 | A_DIV | B_X, dst, div, 0, 0);
	alu_k(g, A_NEG, dst, 0);
	bg_ja(g, done);
	bg_place(g, pos);
	bg_emit(g, B_ALU64 | A_DIV | B_X, dst, div, 0, 0);
	bg_place(g, done);
}

/* @count(x) @sum @min @max @avg of an aggregate (begin/end only: the
 * interpreter's lookup merges the CPUs' values); an empty one gives 0 to
 * @count and @sum and is an error for the rest, as in the module runtime */
static void statop(struct bgen *g, struct expr *e)
{
	struct expr *x = e->lhs;
	const char *op = e->name;
	int empty = bg_label(g), done = bg_label(g);

	if (!user_only(g, e->pos, "reading an aggregate"))
		return;
	if (x->kind == EXPR_INDEX) {
		int key = build_key(g, x->sym, x->args.items, x->args.len);
		lookup(g, x->sym, key);
	} else {
		lookup_stat_scalar(g, x->sym);
	}
	bg_jmp(g, J_EQ, R0, -1, 0, empty);
	ldx(g, R1, R0, 0);
	bg_jmp(g, J_EQ, R1, -1, 0, empty);
	if (!strcmp(op, "count")) {
		mov(g, R0, R1);
	} else if (!strcmp(op, "sum")) {
		ldx(g, R0, R0, 8);
	} else if (!strcmp(op, "min")) {
		ldx(g, R0, R0, 16);
	} else if (!strcmp(op, "max")) {
		ldx(g, R0, R0, 24);
	} else if (!strcmp(op, "avg")) {   /* sum / count, signed */
		ldx(g, R0, R0, 8);
		sdiv_by_count(g, R0, R1);
	} else if (!strcmp(op, "variance") && x->sym->var_used) {
		int rec = bg_stack(g);   /* read again: user space merges it */
		stx(g, R10, rec, R0);
		mov(g, R1, R0);
		bg_call(g, HU_REREAD);
		ldx(g, R0, R10, rec);
		ldx(g, R0, R0, 56);
	} else {
		bg_fail(g, e->pos, "@%s has no BPF form yet", op);
	}
	bg_ja(g, done);
	bg_place(g, empty);
	if (!strcmp(op, "count") || !strcmp(op, "sum")) {
		bg_mov_imm(g, R0, 0);
	} else {
		char *at = xasprintf("@%s", op);
		error_near(g, "empty aggregate", "operator", at, e->pos);
		free(at);
	}
	bg_place(g, done);
}

/* ---- writing values -------------------------------------------------- */

/* dst(r0) = r0 OP r1 for a compound assignment's operator; division is
 * signed (BPF's is not) and checks for zero */
static void arith(struct bgen *g, const char *op, struct srcpos pos)
{
	switch (op[0]) {
	case '+': bg_emit(g, B_ALU64 | A_ADD | B_X, R0, R1, 0, 0); return;
	case '-': bg_emit(g, B_ALU64 | A_SUB | B_X, R0, R1, 0, 0); return;
	case '*': bg_emit(g, B_ALU64 | A_MUL | B_X, R0, R1, 0, 0); return;
	case '&': bg_emit(g, B_ALU64 | A_AND | B_X, R0, R1, 0, 0); return;
	case '|': bg_emit(g, B_ALU64 | A_OR | B_X, R0, R1, 0, 0); return;
	case '^': bg_emit(g, B_ALU64 | A_XOR | B_X, R0, R1, 0, 0); return;
	case '<': bg_emit(g, B_ALU64 | A_LSH | B_X, R0, R1, 0, 0); return;
	case '>':
		bg_emit(g, B_ALU64 | (!strncmp(op, ">>>", 3) ? A_RSH : A_ARSH) | B_X, R0, R1, 0, 0);
		return;
	case '/':
	case '%': {
		int nz = bg_label(g), a_pos = bg_label(g), b_pos = bg_label(g), fix = bg_label(g);
		char o[2] = { op[0], 0 };
		bg_jmp(g, J_NE, R1, -1, 0, nz);
		error_near(g, "division by 0", "operator", o, pos);
		bg_place(g, nz);
		bg_mov_imm(g, R2, 0);           /* r2: negate the result */
		bg_jmp(g, J_SGE, R0, -1, 0, a_pos);
		alu_k(g, A_NEG, R0, 0);
		bg_mov_imm(g, R2, 1);
		bg_place(g, a_pos);
		bg_jmp(g, J_SGE, R1, -1, 0, b_pos);
		alu_k(g, A_NEG, R1, 0);
		if (op[0] == '/')
			alu_k(g, A_XOR, R2, 1);
		bg_place(g, b_pos);
		bg_emit(g, B_ALU64 | (op[0] == '/' ? A_DIV : A_MOD) | B_X, R0, R1, 0, 0);
		bg_jmp(g, J_EQ, R2, -1, 0, fix);
		alu_k(g, A_NEG, R0, 0);
		bg_place(g, fix);
		return;
	}
	}
	bg_fail(g, pos, "operator '%s' has no BPF form", op);
}

/* The operator of a compound assignment "+=" -> "+", "<<=" -> "<<". */
static char *base_op(const char *op)
{
	size_t n = strlen(op);
	return n > 1 && op[n - 1] == '=' ? xasprintf("%.*s", (int)n - 1, op) : xstrdup(op);
}

/* Store r0 into the long lvalue e (a local or a scalar global). */
static void store_long(struct bgen *g, struct expr *e)
{
	if (is_global(e->sym))
		stx(g, R8, g->goff[e->sym->index], R0);
	else
		stx(g, R10, bg_local(g, e->sym)->off, R0);
}

/* The bytes of an aggregate's record before its buckets: an S (count,
 * sum, min, max), or a V when @variance is read (then also Welford's mean
 * and m2 on this CPU, the shift, and the variance user space puts there
 * when it merges the CPUs: doc/bpf-bundle.md). */
int bg_stat_bytes(const struct sym *v)
{
	return v->var_used ? 64 : 32;
}

/* The buckets of an aggregate's histogram after its count, sum, min, max:
 * 129 for @hist_log, (hi - lo) / step + 3 for @hist_linear, else none
 * (runtime/hist.h lays them out). */
int bg_hist_buckets(const struct sym *v)
{
	if (v->hist_kind == 1)
		return 129;
	if (v->hist_kind == 2 && v->hist_step > 0)
		return (int)((v->hist_hi - v->hist_lo) / v->hist_step) + 3;
	return 0;
}

/* r3 = the bucket of the value at r10+v, as stp_stat_bucket() (hist.h)
 * finds it, bounded for the verifier */
static void hist_bucket(struct bgen *g, const struct sym *a, int v)
{
	int nb = bg_hist_buckets(a), clamp = bg_label(g), ok = bg_label(g);

	ldx(g, R2, R10, v);
	if (a->hist_kind == 1) {   /* 64 +- fls64(|v|) */
		int pos = bg_label(g), posidx = bg_label(g);
		bg_mov_imm(g, R3, 64);
		bg_jmp(g, J_EQ, R2, -1, 0, clamp);
		mov(g, R5, R2);
		bg_jmp(g, J_SGT, R2, -1, 0, pos);
		alu_k(g, A_NEG, R5, 0);
		bg_place(g, pos);
		bg_mov_imm(g, R4, 0);
		for (int sh = 32; sh >= 1; sh /= 2) {
			int skip = bg_label(g);
			mov(g, R1, R5);
			alu_k(g, A_RSH, R1, sh);
			bg_jmp(g, J_EQ, R1, -1, 0, skip);
			alu_k(g, A_ADD, R4, sh);
			mov(g, R5, R1);
			bg_place(g, skip);
		}
		bg_emit(g, B_ALU64 | A_ADD | B_X, R4, R5, 0, 0);
		bg_jmp(g, J_SGT, R2, -1, 0, posidx);
		bg_mov_imm(g, R3, 64);
		bg_emit(g, B_ALU64 | A_SUB | B_X, R3, R4, 0, 0);
		bg_ja(g, clamp);
		bg_place(g, posidx);
		bg_mov_imm(g, R3, 64);
		bg_emit(g, B_ALU64 | A_ADD | B_X, R3, R4, 0, 0);
	} else {                   /* underflow 0, 1 + (v - lo) / step, overflow last */
		bg_mov_imm(g, R3, 0);
		bg_mov_imm(g, R1, a->hist_lo);
		bg_jmp(g, J_SLT, R2, R1, 0, clamp);
		bg_emit(g, B_ALU64 | A_SUB | B_X, R2, R1, 0, 0);
		bg_mov_imm(g, R1, a->hist_step);
		bg_emit(g, B_ALU64 | A_DIV | B_X, R2, R1, 0, 0);
		bg_mov_imm(g, R3, nb - 1);
		bg_jmp(g, J_GE, R2, -1, nb - 2, clamp);
		mov(g, R3, R2);
		alu_k(g, A_ADD, R3, 1);
	}
	bg_place(g, clamp);
	bg_jmp(g, J_LE, R3, -1, nb - 1, ok);
	bg_mov_imm(g, R3, nb - 1);
	bg_place(g, ok);
}

/* bucket r3 of the record of a at base+off, one more */
static void hist_bump(struct bgen *g, const struct sym *a, int base, int off)
{
	alu_k(g, A_LSH, R3, 3);
	bg_emit(g, B_ALU64 | A_ADD | B_X, R3, base, 0, 0);
	ldx(g, R1, R3, off + bg_stat_bytes(a));
	alu_k(g, A_ADD, R1, 1);
	stx(g, R3, off + bg_stat_bytes(a), R1);
}

/* Welford's step of the V record at r0, whose count already has the value
 * at r10+v, as runtime/stat.h's stp_stat_add: x = v << shift, delta the
 * low 32 bits of x - mean (signed, as SystemTap 4.8 has it), mean +=
 * delta / count (sdiv_by_count: BPF has no signed division), m2 +=
 * delta * (x - mean). Uses r1-r5. */
static void welford(struct bgen *g, const struct sym *a, int v)
{
	int first = bg_label(g), done = bg_label(g);

	ldx(g, R2, R10, v);
	alu_k(g, A_LSH, R2, a->var_shift);
	ldx(g, R1, R0, 0);
	bg_jmp(g, J_EQ, R1, -1, 1, first);
	ldx(g, R3, R0, 32);
	mov(g, R4, R2);
	bg_emit(g, B_ALU64 | A_SUB | B_X, R4, R3, 0, 0);
	alu_k(g, A_LSH, R4, 32);
	alu_k(g, A_ARSH, R4, 32);
	mov(g, R5, R4);
	sdiv_by_count(g, R5, R1);
	bg_emit(g, B_ALU64 | A_ADD | B_X, R3, R5, 0, 0);
	stx(g, R0, 32, R3);
	bg_emit(g, B_ALU64 | A_SUB | B_X, R2, R3, 0, 0);
	bg_emit(g, B_ALU64 | A_MUL | B_X, R2, R4, 0, 0);
	ldx(g, R1, R0, 40);
	bg_emit(g, B_ALU64 | A_ADD | B_X, R1, R2, 0, 0);
	stx(g, R0, 40, R1);
	bg_ja(g, done);
	bg_place(g, first);
	stx(g, R0, 32, R2);
	bg_emit(g, B_ST | B_MEM | B_DW, R0, 0, 40, 0);
	bg_place(g, done);
	bg_emit(g, B_ST | B_MEM | B_DW, R0, 0, 48, a->var_shift);
}

/* x <<< v on an aggregate (scalar or element): count, sum, min, max and
 * its histogram's bucket on this CPU's record; v in r0 */
static void stat_add(struct bgen *g, struct expr *lhs)
{
	const struct sym *a = lhs->sym;
	int v = bg_stack(g), have = bg_label(g), first = bg_label(g), nomin = bg_label(g),
	    nomax = bg_label(g), bump = bg_label(g), done = bg_label(g);
	int key = -1, nb = bg_hist_buckets(a), sb = bg_stat_bytes(a);

	stx(g, R10, v, R0);
	if (lhs->kind == EXPR_INDEX) {
		key = build_key(g, lhs->sym, lhs->args.items, lhs->args.len);
		lookup(g, lhs->sym, key);
	} else {
		lookup_stat_scalar(g, lhs->sym);
	}
	bg_jmp(g, J_NE, R0, -1, 0, have);
	if (key >= 0) {   /* a new element: {1, v, v, v}, its bucket 1 */
		int rec = bg_scratch(g, sb + 8 * nb);
		for (int i = 32; i < sb + 8 * nb; i += 8)
			bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, rec + i, 0);
		ldx(g, R1, R10, v);
		bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, rec, 1);
		for (int i = 1; i < 4; i++)
			stx(g, R7, rec + 8 * i, R1);
		if (a->var_used) {   /* mean x, m2 0 */
			mov(g, R0, R7);
			alu_k(g, A_ADD, R0, rec);
			welford(g, a, v);
		}
		if (nb) {
			hist_bucket(g, a, v);
			hist_bump(g, a, R7, rec);
		}
		int locked = a->wrap ? bg_wrap_admit(g, a, key, lhs->pos) : 0;
		bg_ld_map(g, R1, g->gmap[lhs->sym->index]);
		str_addr(g, R2, (struct bstr){ R7, key });
		str_addr(g, R3, (struct bstr){ R7, rec });
		bg_mov_imm(g, R4, 0);
		bg_call(g, H_MAP_UPDATE);
		bg_wrap_release(g, locked);
		overflow_check(g, lhs);
	}
	bg_ja(g, done);
	bg_place(g, have);
	ldx(g, R2, R10, v);
	ldx(g, R1, R0, 0);
	bg_jmp(g, J_EQ, R1, -1, 0, first);
	alu_k(g, A_ADD, R1, 1);
	stx(g, R0, 0, R1);
	ldx(g, R1, R0, 8);
	bg_emit(g, B_ALU64 | A_ADD | B_X, R1, R2, 0, 0);
	stx(g, R0, 8, R1);
	ldx(g, R1, R0, 16);
	bg_jmp(g, J_SLE, R1, R2, 0, nomin);
	stx(g, R0, 16, R2);
	bg_place(g, nomin);
	ldx(g, R1, R0, 24);
	bg_jmp(g, J_SGE, R1, R2, 0, nomax);
	stx(g, R0, 24, R2);
	bg_place(g, nomax);
	bg_ja(g, bump);
	bg_place(g, first);
	bg_emit(g, B_ST | B_MEM | B_DW, R0, 0, 0, 1);
	for (int i = 1; i < 4; i++)
		stx(g, R0, 8 * i, R2);
	bg_place(g, bump);
	if (a->var_used)
		welford(g, a, v);
	if (nb) {
		mov(g, R9, R0);
		hist_bucket(g, a, v);
		hist_bump(g, a, R9, 0);
	}
	bg_place(g, done);
	ldx(g, R0, R10, v);
}

/* r0 = the merged record of the aggregate operand x (x or x[keys]), or 0 */
static void stat_record(struct bgen *g, struct expr *x)
{
	if (x->kind == EXPR_INDEX) {
		int key = build_key(g, x->sym, x->args.items, x->args.len);
		lookup(g, x->sym, key);
	} else {
		lookup_stat_scalar(g, x->sym);
	}
}

/* print(@hist_log(x)): the interpreter prints it (an empty one is an
 * error, as in the module runtime) */
static void print_hist(struct bgen *g, struct expr *h, const char *fn, struct srcpos pos)
{
	const struct sym *a = h->lhs->sym;
	int empty = bg_label(g), ok = bg_label(g);

	stat_record(g, h->lhs);
	bg_jmp(g, J_EQ, R0, -1, 0, empty);
	ldx(g, R1, R0, 0);
	bg_jmp(g, J_NE, R1, -1, 0, ok);
	bg_place(g, empty);
	error_near(g, "empty aggregate", "identifier", fn, pos);
	bg_place(g, ok);
	mov(g, R1, R0);   /* the helper finds the buckets 32 bytes on */
	alu_k(g, A_ADD, R1, bg_stat_bytes(a) - 32);
	bg_mov_imm(g, R2, a->hist_kind);
	bg_mov_imm(g, R3, a->hist_lo);
	bg_mov_imm(g, R4, a->hist_hi);
	bg_mov_imm(g, R5, a->hist_step);
	bg_call(g, HU_PRINT_HIST);
}

/* @hist_log(x)[i] (and i in @hist_log(x)): bucket i's count; an empty
 * aggregate is an error outside a foreach over its buckets, and so is an
 * index SystemTap has no bucket of */
static void hist_index(struct bgen *g, struct expr *h, struct expr *idx, struct srcpos pos)
{
	const struct sym *a = h->lhs->sym;
	int i = bg_stack(g), empty = bg_label(g), have = bg_label(g), bad = bg_label(g), done = bg_label(g);
	int nbh = a->hist_kind == 1 ? 128 : bg_hist_buckets(a);
	bool walked = false;
	char *at = xasprintf("@%s", h->name);

	if (!user_only(g, pos, "reading a histogram"))
		return;
	for (int k = 0; k < g->hist_walks.len; k++)
		walked |= g->hist_walks.items[k] == a->index;
	bg_long(g, idx);
	stx(g, R10, i, R0);
	stat_record(g, h->lhs);
	bg_jmp(g, J_EQ, R0, -1, 0, empty);
	ldx(g, R1, R0, 0);
	bg_jmp(g, J_NE, R1, -1, 0, have);
	bg_place(g, empty);
	if (walked) {   /* a foreach over its buckets: every one 0 */
		bg_mov_imm(g, R0, 0);
		bg_ja(g, done);
	} else {
		error_near(g, "empty aggregate", "operator", at, h->pos);
	}
	bg_place(g, have);
	ldx(g, R1, R10, i);
	bg_jmp(g, J_SLT, R1, -1, 0, bad);
	bg_jmp(g, J_SGE, R1, -1, nbh, bad);
	alu_k(g, A_LSH, R1, 3);
	bg_emit(g, B_ALU64 | A_ADD | B_X, R1, R0, 0, 0);
	ldx(g, R0, R1, bg_stat_bytes(a));
	bg_ja(g, done);
	bg_place(g, bad);
	error_near(g, "histogram index out of range", "operator", at, h->pos);
	bg_place(g, done);
	free(at);
}

/* lhs OP= value for an array element; the new value in r0 (longs).
 * += and -= on an element that exists are atomic adds. */
static void update_index_long(struct bgen *g, struct expr *lhs, const char *op, int vslot)
{
	int key = build_key(g, lhs->sym, lhs->args.items, lhs->args.len);
	int have = bg_label(g), done = bg_label(g), nv = bg_stack(g);
	bool plain = !strcmp(op, "=");
	bool add = !strcmp(op, "+=") || !strcmp(op, "-=");
	char *bop = base_op(op);

	if (!plain) {
		lookup(g, lhs->sym, key);
		bg_jmp(g, J_NE, R0, -1, 0, have);
	}
	/* a new element (or plain =): old value 0 */
	if (plain) {
		ldx(g, R0, R10, vslot);
	} else {
		bg_mov_imm(g, R0, 0);
		ldx(g, R1, R10, vslot);
		arith(g, bop, lhs->pos);
	}
	stx(g, R10, nv, R0);
	int locked = lhs->sym->wrap ? bg_wrap_admit(g, lhs->sym, key, lhs->pos) : 0;
	bg_ld_map(g, R1, g->gmap[lhs->sym->index]);
	str_addr(g, R2, (struct bstr){ R7, key });
	mov(g, R3, R10);
	alu_k(g, A_ADD, R3, nv);
	bg_mov_imm(g, R4, 0);
	bg_call(g, H_MAP_UPDATE);
	bg_wrap_release(g, locked);
	overflow_check(g, lhs);
	ldx(g, R0, R10, nv);
	if (!plain) {
		bg_ja(g, done);
		bg_place(g, have);
		if (add) {
			ldx(g, R1, R10, vslot);
			if (op[0] == '-')
				alu_k(g, A_NEG, R1, 0);
			mov(g, R2, R1);
			bg_emit(g, B_STX | B_ATOMIC | B_DW, R0, R1, 0, AT_ADD | AT_FETCH);
			bg_emit(g, B_ALU64 | A_ADD | B_X, R1, R2, 0, 0);
			mov(g, R0, R1);
		} else {
			mov(g, R3, R0);
			stx(g, R10, nv, R3);     /* keep the element's address */
			ldx(g, R0, R3, 0);
			ldx(g, R1, R10, vslot);
			arith(g, bop, lhs->pos);
			ldx(g, R3, R10, nv);
			stx(g, R3, 0, R0);
		}
		bg_place(g, done);
	}
	free(bop);
}

/* e = lhs OP rhs (any assignment operator); longs end in r0 */
static void assign(struct bgen *g, struct expr *e, struct bstr *out)
{
	struct expr *lhs = e->lhs, *rhs = e->rhs;
	const char *op = e->op;

	if (!strcmp(op, "<<<")) {
		bg_long(g, rhs);
		stat_add(g, lhs);
		return;
	}
	if (lhs->kind == EXPR_TARGET || lhs->kind == EXPR_CAST || lhs->kind == EXPR_ATVAR) {
		bg_fail(g, e->pos, "writing a target variable has no BPF form");
		return;
	}
	if (lhs->type == TYPE_STRING) {
		struct bstr v, d;
		if (!strcmp(op, ".=")) {
			struct expr cat = *e;
			cat.kind = EXPR_BINARY;
			cat.op = ".";
			v = bg_str(g, &cat);
		} else if (!strcmp(op, "=")) {
			v = bg_str(g, rhs);
		} else {
			bg_fail(g, e->pos, "operator '%s' on a string", op);
			return;
		}
		if (lhs->kind == EXPR_INDEX) {
			int key;
			struct bstr t = scratch_str(g);
			bg_str_copy(g, t, v);
			key = build_key(g, lhs->sym, lhs->args.items, lhs->args.len);
			int locked = lhs->sym->wrap ? bg_wrap_admit(g, lhs->sym, key, lhs->pos) : 0;
			bg_ld_map(g, R1, g->gmap[lhs->sym->index]);
			str_addr(g, R2, (struct bstr){ R7, key });
			str_addr(g, R3, t);
			bg_mov_imm(g, R4, 0);
			bg_call(g, H_MAP_UPDATE);
			bg_wrap_release(g, locked);
			overflow_check(g, lhs);
			d = t;
		} else {
			d = var_str(g, lhs);
			bg_str_copy(g, d, v);
		}
		if (out)
			*out = d;
		return;
	}
	if (lhs->kind == EXPR_INDEX) {
		int vslot = bg_stack(g);
		bg_long(g, rhs);
		stx(g, R10, vslot, R0);
		update_index_long(g, lhs, op, vslot);
		return;
	}
	if (lhs->kind != EXPR_VAR) {
		bg_fail(g, e->pos, "this assignment has no BPF form");
		return;
	}
	if (!strcmp(op, "=")) {
		bg_long(g, rhs);
		store_long(g, lhs);
		return;
	}
	if (is_global(lhs->sym) && (!strcmp(op, "+=") || !strcmp(op, "-="))) {
		bg_long(g, rhs);           /* atomic on the shared value */
		if (op[0] == '-')
			alu_k(g, A_NEG, R0, 0);
		mov(g, R1, R0);
		mov(g, R2, R0);
		bg_emit(g, B_STX | B_ATOMIC | B_DW, R8, R1, g->goff[lhs->sym->index], AT_ADD | AT_FETCH);
		bg_emit(g, B_ALU64 | A_ADD | B_X, R1, R2, 0, 0);
		mov(g, R0, R1);
		return;
	}
	char *bop = base_op(op);
	int t = bg_stack(g);
	bg_long(g, rhs);
	stx(g, R10, t, R0);
	read_var_long(g, lhs);
	ldx(g, R1, R10, t);
	arith(g, bop, e->pos);
	store_long(g, lhs);
	free(bop);
}

/* ++x, x++, --x, x-- */
static void incdec(struct bgen *g, struct expr *e)
{
	struct expr *x = e->lhs;
	bool post = e->kind == EXPR_POSTINC;
	int d = !strcmp(e->op, "++") ? 1 : -1;

	if (x->kind == EXPR_INDEX) {
		int vslot = bg_stack(g);
		bg_mov_imm(g, R0, d);
		stx(g, R10, vslot, R0);
		update_index_long(g, x, "+=", vslot);
		if (post)
			alu_k(g, A_ADD, R0, -d);
		return;
	}
	if (x->kind != EXPR_VAR) {
		bg_fail(g, e->pos, "'%s' on this has no BPF form", e->op);
		return;
	}
	if (is_global(x->sym)) {
		bg_mov_imm(g, R0, d);
		bg_emit(g, B_STX | B_ATOMIC | B_DW, R8, R0, g->goff[x->sym->index], AT_ADD | AT_FETCH);
		if (!post)
			alu_k(g, A_ADD, R0, d);
		return;
	}
	read_var_long(g, x);
	alu_k(g, A_ADD, R0, d);
	store_long(g, x);
	if (post)
		alu_k(g, A_ADD, R0, -d);
}

/* ---- operators --------------------------------------------------------- */

/* r0 = strcmp-like order of two strings: -1, 0, 1 (NUL-padded slots
 * compare as big-endian words) */
static void str_order(struct bgen *g, struct bstr a, struct bstr b)
{
	int diff = bg_label(g), done = bg_label(g);

	for (int i = 0; i < BPF_STRSZ; i += 8) {
		ldx(g, R1, a.base, a.off + i);
		ldx(g, R2, b.base, b.off + i);
		bg_jmp(g, J_NE, R1, R2, 0, diff);
	}
	bg_mov_imm(g, R0, 0);
	bg_ja(g, done);
	bg_place(g, diff);
	bg_emit(g, B_ALU | A_END | 0x08, R1, 0, 0, 64);
	bg_emit(g, B_ALU | A_END | 0x08, R2, 0, 0, 64);
	bg_mov_imm(g, R0, -1);
	bg_jmp(g, J_LT, R1, R2, 0, done);
	bg_mov_imm(g, R0, 1);
	bg_place(g, done);
}

static int cmp_op(const char *op)
{
	if (!strcmp(op, "==")) return J_EQ;
	if (!strcmp(op, "!=")) return J_NE;
	if (!strcmp(op, "<")) return J_SLT;
	if (!strcmp(op, "<=")) return J_SLE;
	if (!strcmp(op, ">")) return J_SGT;
	if (!strcmp(op, ">=")) return J_SGE;
	return -1;
}

/* r0 = (r0 OP r1) as 0 or 1 */
static void compare(struct bgen *g, int jop)
{
	int yes = bg_label(g);

	mov(g, R2, R0);
	bg_mov_imm(g, R0, 1);
	bg_jmp(g, jop, R2, R1, 0, yes);
	bg_mov_imm(g, R0, 0);
	bg_place(g, yes);
}

/* a . b: a copied, then b after it, both with probe_read_kernel_str (its
 * length bounds what the verifier must allow) */
static struct bstr concat(struct bgen *g, struct expr *e)
{
	struct bstr a = bg_str(g, e->lhs);
	struct bstr ta = scratch_str(g);
	bg_str_copy(g, ta, a);
	struct bstr b = bg_str(g, e->rhs);
	struct bstr d = scratch_str(g);
	int pos = bg_label(g);

	bg_scratch(g, BPF_STRSZ);   /* room the verifier counts past d */
	bg_str_zero(g, d);
	str_addr(g, R1, d);
	bg_mov_imm(g, R2, BPF_STRSZ);
	str_addr(g, R3, ta);
	bg_call(g, H_READ_KERNEL_STR);
	bg_jmp(g, J_SGT, R0, -1, 0, pos);
	bg_mov_imm(g, R0, 1);
	bg_place(g, pos);
	alu_k(g, A_ADD, R0, -1);
	alu_k(g, A_AND, R0, BPF_STRSZ - 1);
	str_addr(g, R1, d);
	bg_emit(g, B_ALU64 | A_ADD | B_X, R1, R0, 0, 0);
	bg_mov_imm(g, R2, BPF_STRSZ);
	bg_emit(g, B_ALU64 | A_SUB | B_X, R2, R0, 0, 0);
	str_addr(g, R3, b);
	bg_call(g, H_READ_KERNEL_STR);
	return d;
}

static void binary(struct bgen *g, struct expr *e)
{
	const char *op = e->op;
	int jop = cmp_op(op);

	if (!strcmp(op, "&&") || !strcmp(op, "||")) {
		int short_c = bg_label(g), done = bg_label(g);
		bool and = op[0] == '&';
		bg_long(g, e->lhs);
		bg_jmp(g, and ? J_EQ : J_NE, R0, -1, 0, short_c);
		bg_long(g, e->rhs);
		bg_jmp(g, and ? J_EQ : J_NE, R0, -1, 0, short_c);
		bg_mov_imm(g, R0, and ? 1 : 0);
		bg_ja(g, done);
		bg_place(g, short_c);
		bg_mov_imm(g, R0, and ? 0 : 1);
		bg_place(g, done);
		return;
	}
	if (jop >= 0 && e->lhs->type == TYPE_STRING) {
		struct bstr a = bg_str(g, e->lhs), ta = scratch_str(g);
		bg_str_copy(g, ta, a);
		struct bstr b = bg_str(g, e->rhs);
		str_order(g, ta, b);
		bg_mov_imm(g, R1, 0);
		compare(g, jop);
		return;
	}
	int t = bg_stack(g);
	bg_long(g, e->lhs);
	stx(g, R10, t, R0);
	bg_long(g, e->rhs);
	mov(g, R1, R0);
	ldx(g, R0, R10, t);
	if (jop >= 0)
		compare(g, jop);
	else
		arith(g, op, e->pos);
}

static void unary(struct bgen *g, struct expr *e)
{
	bg_long(g, e->lhs);
	switch (e->op[0]) {
	case '-': alu_k(g, A_NEG, R0, 0); break;
	case '~': alu_k(g, A_XOR, R0, -1); break;
	case '!': {
		int z = bg_label(g), done = bg_label(g);
		bg_jmp(g, J_EQ, R0, -1, 0, z);
		bg_mov_imm(g, R0, 0);
		bg_ja(g, done);
		bg_place(g, z);
		bg_mov_imm(g, R0, 1);
		bg_place(g, done);
		break;
	}
	}
}

/* ---- calls ------------------------------------------------------------- */

bool bg_str_fits(struct bgen *g, size_t n, const char *what, struct srcpos pos)
{
	if (n < BPF_STRSZ)
		return true;
	bg_fail(g, pos, "%s is %zu bytes here, and a BPF string value holds 63 (printf prints it whole)", what, n);
	return false;
}

/* The name in a .plt("NAME") point (the last one in pp), or NULL. */
static const char *plt_name(const char *pp, size_t *n)
{
	const char *p = NULL, *q;

	for (q = strstr(pp, ".plt(\""); q; q = strstr(q + 1, ".plt(\""))
		p = q + 6;
	if (!p)
		return NULL;
	*n = strcspn(p, "\"");
	return p;
}

/* A string known in pass 3: a literal, pp(), $$name ... (text allocated). */
static bool const_str(struct bgen *g, struct expr *e, char **s, size_t *n)
{
	const char *t = NULL;

	if (e->kind == EXPR_STR) {
		t = e->str;
		*n = e->str_len;
	} else if (e->kind == EXPR_TARGET) {
		return bg_tvar_const(g, e, s, n);
	} else if (e->kind == EXPR_CALL && e->func && e->func->file && e->func->file->is_tapset && !e->args.len &&
		   g->dp) {
		if (!strcmp(e->func->name, "pp") || !strcmp(e->func->name, "pn")) {
			t = g->dp->pp;
			*n = strlen(t);
		} else if (!strcmp(e->func->name, "__uprobe_plt_name")) {
			t = plt_name(g->dp->pp, n);
		}
	}
	if (!t || memchr(t, '\0', *n))
		return false;
	*s = xstrndup(t, *n);
	return true;
}

/* The %s conversions of fmt whose value is a constant string made part of
 * the format (so that it is not cut to a BPF string's 63 bytes): each
 * formatted here as runtime/format.h does, its argument marked folded (1);
 * a plain %s of a marker's $$parms becomes "$arg1=%s $arg2=%s ...", its
 * argument marked 2 (each argument a string of its own). */
static void fold_consts(struct bgen *g, struct strbuf *fmt, struct expr **args, int n, int *folded)
{
	struct strbuf out = STRBUF_INIT;
	const char *p = fmt->buf, *end = fmt->buf + fmt->len;
	int k = 0;

	while (p < end) {
		struct stp_fmt_spec sp;
		char *cs = NULL;
		size_t cn;
		int len, nparms, np;
		bool plain;   /* "%s": no flag, width or precision */

		if (*p != '%') {
			strbuf_addch(&out, *p++);
			continue;
		}
		len = stp_format_parse_spec(p + 1, &sp);
		if (len < 0) {   /* refused in pass 2 */
			strbuf_add(&out, p, (size_t)(end - p));
			break;
		}
		plain = sp.conv == 's' && !sp.flags && sp.width < 0 && sp.prec < 0 && !sp.width_star && !sp.prec_star;
		if (sp.conv == 's' && !sp.width_star && !sp.prec_star && !(sp.flags & STP_FMT_ZEROPAD) && k < n &&
		    const_str(g, args[k], &cs, &cn)) {
			char *conv = xasprintf("%%%.*s", len, p + 1), *buf;
			union stp_val v = { .s = cs };
			size_t m = stp_format(NULL, 0, conv, 1, &v);
			buf = xmalloc(m + 1);
			stp_format(buf, m + 1, conv, 1, &v);
			for (size_t i = 0; i < m; i++) {
				if (buf[i] == '%')
					strbuf_addch(&out, '%');
				strbuf_addch(&out, buf[i]);
			}
			folded[k] = 1;
			free(buf);
			free(conv);
			free(cs);
		} else if (plain && k < n && bg_mark_parms(g, args[k], &nparms) && nparms <= 12) {
			bg_mark_parms_fmt(&out, nparms);
			folded[k] = 2;
		} else if (plain && k < n && (np = bg_pretty_pieces(g, args[k], NULL)) >= 0 && np + n <= 32) {
			bg_pretty_pieces(g, args[k], &out);
			folded[k] = 3;
		} else {
			strbuf_add(&out, p, (size_t)(1 + len));
		}
		k += stp_fmt_spec_nargs(&sp);
		p += 1 + len;
	}
	strbuf_release(fmt);
	*fmt = out;
}

/* print, println, printf, printd, printdln: a record the loader formats;
 * their s- forms (begin/end only) the same values formatted into a string
 * by the interpreter */
static void print(struct bgen *g, struct expr *e, struct bstr *out)
{
	const char *n = e->name;
	struct expr **args = e->args.items;
	int nargs = e->args.len, first = 0;
	struct strbuf fmt = STRBUF_INIT, types = STRBUF_INIT;
	int lv[32], nl = 0, ns = 0;
	struct bstr sv[32];

	bool to_str = n[0] == 's';

	if (to_str)
		n++;
	if (!strcmp(n, "printf")) {
		strbuf_add(&fmt, args[0]->str, args[0]->str_len);
		first = 1;
	} else {
		bool delim = !strncmp(n, "printd", 6);
		struct strbuf d = STRBUF_INIT;
		if (delim) {
			if (args[0]->kind != EXPR_STR) {
				bg_fail(g, args[0]->pos, "the delimiter of %s() must be a literal", n);
				return;
			}
			for (size_t i = 0; i < args[0]->str_len; i++) {
				if (args[0]->str[i] == '%')
					strbuf_addch(&d, '%');
				strbuf_addch(&d, args[0]->str[i]);
			}
			first = 1;
		}
		for (int i = first; i < nargs; i++) {
			if (i > first)
				strbuf_addstr(&fmt, d.buf);
			strbuf_addstr(&fmt, args[i]->type == TYPE_STRING ? "%s" : "%d");
		}
		if (!strcmp(n + strlen(n) - 2, "ln"))
			strbuf_addch(&fmt, '\n');
		strbuf_release(&d);
	}
	if (nargs - first > 32) {
		bg_fail(g, e->pos, "more than 32 values in one print");
		return;
	}
	for (int i = first; i < nargs; i++) {
		if (args[i]->kind != EXPR_HIST)
			continue;
		/* a histogram among the values: each value printed on its own */
		if (to_str || first || !user_only(g, args[i]->pos, "printing a histogram")) {
			if (to_str || first)
				bg_fail(g, args[i]->pos, "%s of a histogram has no BPF form yet", n);
			return;
		}
		for (int k = 0; k < nargs; k++) {
			if (args[k]->kind == EXPR_HIST) {
				print_hist(g, args[k], e->name, e->pos);
			} else {
				struct expr one = *e;
				one.name = "print";
				one.args.items = &args[k];
				one.args.len = 1;
				print(g, &one, out);
			}
		}
		if (!strcmp(n + strlen(n) - 2, "ln"))
			bg_record(g, REC_PRINTF, bg_fmt(g, "", "\n", 1), "", NULL, NULL);
		return;
	}
	int folded[32] = { 0 };
	fold_consts(g, &fmt, args + first, nargs - first, folded);
	for (int i = first; i < nargs; i++) {
		if (folded[i - first] == 1)
			continue;
		if (folded[i - first] == 3) {   /* $x$ ..., a piece at a time */
			int np = bg_pretty_pieces(g, args[i], NULL);
			if (ns + np > 32) {
				bg_fail(g, e->pos, "more than 32 values in one print");
				return;
			}
			bg_pretty_values(g, args[i], &sv[ns]);
			for (int k = 0; k < np; k++)
				strbuf_addch(&types, 's');
			ns += np;
			continue;
		}
		if (folded[i - first] == 2) {   /* $$parms, an argument at a time */
			int np = 0;
			bg_mark_parms(g, args[i], &np);
			for (int k = 1; k <= np; k++) {
				if (ns >= 32) {
					bg_fail(g, e->pos, "more than 32 values in one print");
					return;
				}
				sv[ns] = scratch_str(g);
				bg_mark_arg_str(g, args[i], k, sv[ns++]);
				strbuf_addch(&types, 's');
			}
			continue;
		}
		if (args[i]->type == TYPE_STATS) {
			bg_fail(g, args[i]->pos, "printing an aggregate has no BPF form yet");
			return;
		}
		if (args[i]->type == TYPE_STRING) {
			struct bstr s = bg_str(g, args[i]);
			sv[ns] = scratch_str(g);
			bg_str_copy(g, sv[ns++], s);
			strbuf_addch(&types, 's');
		} else {
			bg_long(g, args[i]);
			lv[nl] = bg_stack(g);
			stx(g, R10, lv[nl++], R0);
			strbuf_addch(&types, 'l');
		}
	}
	if (to_str && !g->user) {   /* made by BPF code */
		struct bstr d = scratch_str(g);
		if (bg_kformat(g, fmt.buf, fmt.len, types.buf, lv, sv, d, e->pos))
			*out = d;
	} else if (to_str) {   /* the values laid out as in a record, then formatted by stapbpf */
		int size = 0, at, li = 0, si = 0;
		struct bstr d = scratch_str(g);
		for (const char *t = types.buf; *t; t++)
			size += *t == 's' ? BPF_STRSZ : 8;
		at = bg_scratch(g, size ? size : 8);
		for (const char *t = types.buf, *p0 = types.buf; *t; t++) {
			int o = at;
			for (const char *u = p0; u < t; u++)
				o += *u == 's' ? BPF_STRSZ : 8;
			if (*t == 's') {
				bg_str_copy(g, (struct bstr){ R7, o }, sv[si++]);
			} else {
				ldx(g, R1, R10, lv[li++]);
				stx(g, R7, o, R1);
			}
		}
		str_addr(g, R1, d);
		bg_mov_imm(g, R2, bg_fmt(g, types.buf, fmt.buf, fmt.len));
		str_addr(g, R3, (struct bstr){ R7, at });
		bg_call(g, HU_SPRINTF);
		*out = d;
	} else {
		bg_record(g, REC_PRINTF, bg_fmt(g, types.buf, fmt.buf, fmt.len), types.buf, lv, sv);
	}
	strbuf_release(&fmt);
	strbuf_release(&types);
}

/* A call of a function in the script language: its body inlined, its
 * parameters and locals fresh slots, return a jump to its end. */
static void inline_call(struct bgen *g, struct expr *e, struct bstr *out)
{
	struct func *f = e->func;
	struct binline *in;
	int mark = g->locs.len;
	struct bloc *params[16];

	for (int i = 0; i < g->inl.len; i++)
		if (g->inl.items[i]->f == f) {
			bg_fail(g, e->pos, "'%s' calls itself: BPF has no recursion", f->name);
			return;
		}
	if (g->inl.len >= 8 || e->args.len > 16) {
		bg_fail(g, e->pos, "calls nested too deep for BPF");
		return;
	}
	/* the result first: what comes after it (arguments, locals) is free
	 * again once the call is done */
	int stack = g->stack;
	in = xcalloc(1, sizeof(*in));
	in->f = f;
	in->ret_label = bg_label(g);
	in->ret.str = f->ret == TYPE_STRING;
	in->ret.off = in->ret.str ? bg_scratch(g, BPF_STRSZ) : bg_stack(g);
	int scratch = g->scratch;
	/* the arguments, in the caller's frame */
	for (int i = 0; i < e->args.len; i++) {
		struct sym *p = f->params.items[i];
		struct bloc *l = xcalloc(1, sizeof(*l));
		l->sym = p;
		l->str = p->type == TYPE_STRING;
		l->off = l->str ? bg_scratch(g, BPF_STRSZ) : bg_stack(g);
		if (l->str)
			bg_str_copy(g, (struct bstr){ R7, l->off }, bg_str(g, e->args.items[i]));
		else {
			bg_long(g, e->args.items[i]);
			stx(g, R10, l->off, R0);
		}
		params[i] = l;
	}
	for (int i = 0; i < e->args.len; i++)
		vec_push(&g->locs, params[i]);
	for (int i = 0; i < f->locals.len; i++)
		bg_local_zero(g, bg_local_new(g, f->locals.items[i]));
	if (in->ret.str)
		bg_str_zero(g, (struct bstr){ R7, in->ret.off });
	else
		bg_emit(g, B_ST | B_MEM | B_DW, R10, 0, in->ret.off, 0);
	vec_push(&g->inl, in);
	bg_stmt(g, f->body);
	g->inl.len--;
	bg_place(g, in->ret_label);
	g->locs.len = mark;
	if (in->ret.str) {
		if (out)
			*out = (struct bstr){ R7, in->ret.off };
	} else {
		ldx(g, R0, R10, in->ret.off);
	}
	g->stack = stack;   /* a number's result is in R0 */
	g->scratch = scratch;
}

bool bg_read_mem(struct bgen *g, int size, bool user, const char *fault_msg, const char *what,
		 const char *name, struct srcpos pos)
{
	int slot = bg_stack(g), addr = bg_stack(g), ok = bg_label(g);
	static const int sz[] = { [1] = B_B, [2] = B_H, [4] = B_W, [8] = B_DW };
	int lv[1] = { addr };

	if (size != 1 && size != 2 && size != 4 && size != 8)
		return false;
	stx(g, R10, addr, R0);
	bg_emit(g, B_ST | B_MEM | B_DW, R10, 0, slot, 0);
	mov(g, R1, R10);
	alu_k(g, A_ADD, R1, slot);
	bg_mov_imm(g, R2, size);
	mov(g, R3, R0);
	bg_call(g, user ? H_READ_USER : H_READ_KERNEL);
	bg_jmp(g, J_EQ, R0, -1, 0, ok);
	{
		char *f = bg_near_fmt(fault_msg, what, name, pos);
		bg_raise(g, fault_msg, bg_fmt(g, "l", f, strlen(f)), "l", lv, NULL);
		free(f);
	}
	bg_place(g, ok);
	bg_emit(g, B_LDX | B_MEM | sz[size], R0, R10, slot, 0);
	return true;
}

/* user_int_error(addr) and its kin of a fixed size (not long, ulong: 32
 * bits in a 32-bit task): one read of the current task's memory, the
 * module's fault as the error (tapsets/uconversions.stp's STP_UREAD) */
static bool user_read(struct bgen *g, struct expr *e, const char *name)
{
	static const struct { const char *name; int size; bool sign; } t[] = {
		{ "char_error", 1, true }, { "short_error", 2, true }, { "ushort_error", 2, false },
		{ "int_error", 4, true }, { "int8_error", 1, true }, { "uint8_error", 1, false },
		{ "int16_error", 2, true }, { "uint16_error", 2, false }, { "int32_error", 4, true },
		{ "uint32_error", 4, false }, { "int64_error", 8, true },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]) && strcmp(t[i].name, name); i++)
		;
	if (i == sizeof(t) / sizeof(t[0]) || e->args.len != 1)
		return false;
	bg_long(g, e->args.items[0]);
	bg_read_mem(g, t[i].size, true, "read fault [man error::fault] at 0x%x", "identifier", e->name, e->pos);
	if (t[i].sign)
		bg_sext(g, 8 * t[i].size);
	return true;
}

/* kernel_long(addr) and its kin: one read of the type's size,
 * sign-extended but for the pointer's, as the tapset's STP_KREAD */
static bool kernel_read(struct bgen *g, struct expr *e, const char *type)
{
	static const struct { const char *type; int size; } t[] = {
		{ "long", 8 }, { "int", 4 }, { "short", 2 }, { "char", 1 }, { "pointer", 8 },
	};
	char msg[64];
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]) && strcmp(t[i].type, type); i++)
		;
	if (i == sizeof(t) / sizeof(t[0]) || e->args.len != 1)
		return false;
	snprintf(msg, sizeof(msg), "kernel %s copy fault at 0x%%x [man error::fault]", type);
	bg_long(g, e->args.items[0]);
	bg_read_mem(g, t[i].size, false, msg, "identifier", e->name, e->pos);
	bg_sext(g, 8 * t[i].size);   /* 64 bits: nothing */
	return true;
}

/* kernel_string(addr[, err]), kernel_string_n(addr, n), user_string ...:
 * a string read with bpf_probe_read_{kernel,user}_str; a fault is the
 * script's error (or err, when given) */
static void read_string(struct bgen *g, struct expr *e, struct bstr d, bool user, bool has_n)
{
	struct expr **a = e->args.items;
	int addr = bg_stack(g), ok = bg_label(g), size = bg_stack(g);
	int erri = has_n ? 2 : 1;
	bool has_err = e->args.len > erri;

	bg_long(g, a[0]);
	stx(g, R10, addr, R0);
	bg_mov_imm(g, R0, BPF_STRSZ);
	if (has_n) {   /* at most n bytes and the NUL: n + 1 in 1..64 */
		int lo = bg_label(g), hi = bg_label(g);
		bg_long(g, a[1]);
		bg_jmp(g, J_SGE, R0, -1, 0, lo);
		bg_mov_imm(g, R0, 0);
		bg_place(g, lo);
		bg_jmp(g, J_SLT, R0, -1, BPF_STRSZ - 1, hi);
		bg_mov_imm(g, R0, BPF_STRSZ - 1);
		bg_place(g, hi);
		alu_k(g, A_ADD, R0, 1);
	}
	stx(g, R10, size, R0);
	bg_str_zero(g, d);
	str_addr(g, R1, d);
	ldx(g, R2, R10, size);
	alu_k(g, A_AND, R2, 127);    /* the verifier's bound: 1..64 */
	ldx(g, R3, R10, addr);
	bg_call(g, user ? H_READ_USER_STR : H_READ_KERNEL_STR);
	bg_jmp(g, J_SGE, R0, -1, 0, ok);
	if (has_err) {
		bg_str_copy(g, d, bg_str(g, a[erri]));
	} else if (user) {   /* the tapset's message, with the helper's -errno */
		const char *m = "user string copy fault %d at 0x%x [man error::fault]";
		char *f = bg_near_fmt(m, "identifier", e->name, e->pos);
		int lv[2] = { size, addr };
		stx(g, R10, size, R0);
		bg_raise(g, m, bg_fmt(g, "ll", f, strlen(f)), "ll", lv, NULL);
		free(f);
	} else {
		const char *m = "kernel string copy fault at 0x%x [man error::fault]";
		char *f = bg_near_fmt(m, "identifier", e->name, e->pos);
		int lv[1] = { addr };
		bg_raise(g, m, bg_fmt(g, "l", f, strlen(f)), "l", lv, NULL);
		free(f);
	}
	bg_place(g, ok);
}

/* substr(str, start, length): the bytes from start, at most length, as
 * the tapset's (nothing for a start outside the string); the copy is a
 * probe_read_kernel_str from inside the source slot, bounded for the
 * verifier */
static void substr(struct bgen *g, struct expr *e, struct bstr d)
{
	struct expr **a = e->args.items;
	struct bstr s = bg_str(g, a[0]), ts = scratch_str(g);
	int start = bg_stack(g), n = bg_stack(g), done = bg_label(g);

	bg_str_copy(g, ts, s);
	bg_long(g, a[1]);
	stx(g, R10, start, R0);
	bg_long(g, a[2]);
	stx(g, R10, n, R0);
	bg_str_zero(g, d);
	ldx(g, R1, R10, start);
	bg_jmp(g, J_SLT, R1, -1, 0, done);
	bg_jmp(g, J_SGE, R1, -1, BPF_STRSZ - 1, done);
	ldx(g, R2, R10, n);
	bg_jmp(g, J_SLE, R2, -1, 0, done);
	{
		int fits = bg_label(g);
		bg_jmp(g, J_SLT, R2, -1, BPF_STRSZ, fits);
		bg_mov_imm(g, R2, BPF_STRSZ - 1);
		bg_place(g, fits);
	}
	alu_k(g, A_ADD, R2, 1);             /* the NUL: 2..64 */
	alu_k(g, A_AND, R2, 127);
	str_addr(g, R3, ts);
	bg_emit(g, B_ALU64 | A_ADD | B_X, R3, R1, 0, 0);
	str_addr(g, R1, d);
	bg_call(g, H_READ_KERNEL_STR);
	bg_place(g, done);
}

static struct bstr ctx_str(struct bgen *g, struct expr *e, const char *n, bool *done)
{
	struct bstr d = scratch_str(g);

	*done = true;
	bg_scratch(g, BPF_STRSZ);   /* room past d for the verifier's bound */
	if (!strcmp(n, "kernel_string") || !strcmp(n, "kernel_string_n") || !strcmp(n, "user_string_n")) {
		read_string(g, e, d, n[0] == 'u', !strcmp(n + strlen(n) - 2, "_n"));
	} else if (!strcmp(n, "execname")) {
		bg_str_zero(g, d);
		str_addr(g, R1, d);
		bg_mov_imm(g, R2, 16);
		bg_call(g, H_COMM);
	} else if (!strcmp(n, "pp") || !strcmp(n, "pn")) {
		const char *pp = g->dp->pp;
		if (bg_str_fits(g, strlen(pp), n[1] == 'p' ? "pp()" : "pn()", e->pos))
			bg_str_literal(g, d, pp, strlen(pp));
	} else if (!strcmp(n, "__uprobe_plt_name") && !e->args.len && g->dp) {
		size_t len = 0;
		const char *p = plt_name(g->dp->pp, &len);
		if (bg_str_fits(g, len, "$$name", e->pos))
			bg_str_literal(g, d, p ? p : "", len);
	} else if (!strcmp(n, "ppfunc")) {   /* the function the point names: a constant */
		const char *pp = g->dp->pp, *p = strstr(pp, "function(\"");
		if (!p)
			p = strstr(pp, "statement(\"");
		p = p ? strchr(p, '"') : strchr(pp, '"');
		p = p ? p + 1 : "";
		bg_str_literal(g, d, p, strcspn(p, "\"@"));
	} else if (!strcmp(n, "substr")) {
		substr(g, e, d);
	} else if (!strcmp(n, "__procfs_value") && !e->args.len) {   /* at most 63 bytes of it */
		bg_str_zero(g, d);
		if (g->user) {
			bg_mov_imm(g, R1, PROCFS_VALUE);
			str_addr(g, R2, d);
			bg_call(g, HU_PROCFS);
		}
	} else if (!strcmp(n, "__tz_name") && !e->args.len) {   /* 15 bytes at @config's 40 */
		int none = bg_label(g);
		bg_str_zero(g, d);
		bg_lookup0(g, g->config_map);
		bg_jmp(g, J_EQ, R0, -1, 0, none);
		for (int i = 0; i < 16; i += 8) {
			ldx(g, R1, R0, 40 + i);
			stx(g, d.base, d.off + i, R1);
		}
		bg_emit(g, B_ST | B_MEM | B_B, d.base, 0, d.off + 15, 0);
		bg_place(g, none);
	} else if ((!strcmp(n, "symname") || !strcmp(n, "symdata")) && e->args.len == 1) {
		bg_ksym(g, e->args.items[0], n[3] == 'd', d, e->pos);
	} else if ((!strcmp(n, "text_str") && e->args.len == 1) ||
		   (!strcmp(n, "text_strn") && e->args.len == 3 && e->args.items[1]->kind == EXPR_NUM &&
		    !e->args.items[1]->num && e->args.items[2]->kind == EXPR_NUM)) {
		bg_text_str(g, bg_str(g, e->args.items[0]), e->args.len == 3 && e->args.items[2]->num, d);
	} else if (!strncmp(n, "__sc_t_", 7) && e->args.len == 2 && e->args.items[1]->kind == EXPR_NUM &&
		   syscalls_decoder_table(g->s, n + 7)) {   /* a decoding table, walked in BPF */
		int v = bg_stack(g);
		bg_long(g, e->args.items[0]);
		stx(g, R10, v, R0);
		bg_sc_decode(g, syscalls_decoder_table(g->s, n + 7), v, e->args.items[1]->num, d);
	} else if (!strcmp(n, "probemod") && !e->args.len) {   /* a kprobe's: a constant */
		size_t len = g->ctx.module_len;
		bool none = (g->user && !g->user_timer) || g->ctx.user;
		const char *mod = !g->user ? g->ctx.module : NULL;
		if (none)   /* the module's error: no registers, or user-mode ones */
			error_near(g, "Cannot determine the module of this probe point", "identifier", n,
				   e->pos);
		else if (!mod)
			bg_fail(g, e->pos, "probemod() in a %s probe has no BPF form yet",
				g->dp ? g->dp->prov->name : "begin");
		else
			bg_str_literal(g, d, mod, len);
	} else if (!strcmp(n, "probe_type") && !e->args.len) {   /* a constant of the probe */
		const char *type = probe_type_name(g->dp);
		bg_str_literal(g, d, type, strlen(type));
	} else if (!strcmp(n, "module_name") && !e->args.len) {   /* the bundle's name */
		bg_str_literal(g, d, g->s->module_name, strlen(g->s->module_name));
	} else if ((!strcmp(n, "tolower") || !strcmp(n, "toupper")) && e->args.len == 1) {
		/* a copy, then each byte in range flipped: no loop for the verifier */
		int lo = n[2] == 'l' ? 'A' : 'a';
		bg_str_copy(g, d, bg_str(g, e->args.items[0]));
		for (int i = 0; i < BPF_STRSZ - 1; i++) {
			int skip = bg_label(g);
			bg_emit(g, B_LDX | B_MEM | B_B, R1, d.base, d.off + i, 0);
			bg_jmp(g, J_LT, R1, -1, lo, skip);
			bg_jmp(g, J_GT, R1, -1, lo + 25, skip);
			alu_k(g, A_XOR, R1, 0x20);
			bg_emit(g, B_STX | B_MEM | B_B, d.base, R1, d.off + i, 0);
			bg_place(g, skip);
		}
	} else {
		*done = false;
	}
	(void)e;
	return d;
}

/* The embedded-C functions BPF has a form of; false if n is not one. */
/* An error without a "near" part, the module's when its code clears
 * last_stmt: msg, its one %d the long in slot v. */
static void error_value(struct bgen *g, const char *msg, int v)
{
	char *text = xasprintf("%s\n", msg);
	int lv[1] = { v };

	bg_raise(g, msg, bg_fmt(g, "l", text, strlen(text)), "l", lv, NULL);
	free(text);
}

/* __reg_arg(n): argument n of the probed function, as regargs.stp's
 * stp_reg_arg on x86_64: di si dx cx r8 r9 of the probe's pt_regs, then
 * the stack above the return address (a process probe's in user memory);
 * in a 32-bit task (a process probe's, user code segment 0x23) every one
 * on the stack, 4 bytes each. Not a tracepoint's (no registers). */
static void reg_arg(struct bgen *g, struct expr *e)
{
	static const int regs[] = { 112, 104, 96, 88, 72, 64 };   /* offsets in pt_regs */
	int v = bg_stack(g), done = bg_label(g), bad = bg_label(g), wide = bg_label(g), r = bg_stack(g);
	bool user = g->ctx.user;

	if (g->user || g->ctx_args) {
		bg_error(g, "cannot access function args in this context",
			 "cannot access function args in this context\n");
		return;
	}
	if (!g->ctx.reg_args) {
		bg_fail(g, e->pos, "function arguments of a %s probe have no BPF form yet", g->dp->prov->name);
		return;
	}
	bg_long(g, e->args.items[0]);
	stx(g, R10, v, R0);
	bg_jmp(g, J_SLT, R0, -1, 1, bad);
	if (user) {   /* a 32-bit task: sp + 4n */
		ldx(g, R1, R6, 136);   /* cs */
		bg_jmp(g, J_NE, R1, -1, 0x23, wide);
		ldx(g, R3, R6, 152);
		ldx(g, R0, R10, v);
		alu_k(g, A_LSH, R0, 2);
		alu_x(g, A_ADD, R3, R0);
		bg_emit(g, B_ST | B_MEM | B_DW, R10, 0, r, 0);
		mov(g, R1, R10);
		alu_k(g, A_ADD, R1, r);
		bg_mov_imm(g, R2, 4);
		bg_call(g, H_READ_USER);
		bg_jmp(g, J_NE, R0, -1, 0, bad);
		ldx(g, R0, R10, r);
		bg_ja(g, done);
		bg_place(g, wide);
		ldx(g, R0, R10, v);
	}
	for (int i = 0; i < 6; i++) {
		int next = bg_label(g);
		bg_jmp(g, J_NE, R0, -1, i + 1, next);
		ldx(g, R0, R6, regs[i]);
		bg_ja(g, done);
		bg_place(g, next);
	}
	ldx(g, R1, R6, 152);   /* sp */
	ldx(g, R0, R10, v);
	alu_k(g, A_ADD, R0, -6);
	alu_k(g, A_LSH, R0, 3);
	alu_x(g, A_ADD, R0, R1);
	/* the stack above the return address */
	mov(g, R3, R0);
	mov(g, R1, R10);
	alu_k(g, A_ADD, R1, r);
	bg_mov_imm(g, R2, 8);
	bg_call(g, user ? H_READ_USER : H_READ_KERNEL);
	bg_jmp(g, J_NE, R0, -1, 0, bad);
	ldx(g, R0, R10, r);
	bg_ja(g, done);
	bg_place(g, bad);
	error_value(g, "cannot access arg(%d)", v);
	bg_place(g, done);
}

/* addr(): the context's ip, less what the family says (a kprobe's ip is
 * past its breakpoint); false for a probe whose ip is not the probed address */
bool bg_probe_addr(struct bgen *g)
{
	if (g->user || g->ctx_args || !g->dp || g->ctx.ip_back < 0)
		return false;
	ldx(g, R0, R6, 128);   /* the context's pt_regs' ip */
	if (g->ctx.ip_back)
		alu_k(g, A_ADD, R0, -g->ctx.ip_back);
	return true;
}

/* r0 = uaddr(): the user-space ip of the current task, as the module's
 * stp_user_regs: the probe's registers when they are user mode (a uprobe,
 * a perf sample in user code), else those the task entered the kernel
 * with, none for a task without an mm (a kernel thread, an exiting task).
 * The first frame of bpf_get_stack's user stack is exactly that (perf's
 * callchain starts at that ip). 0 in stapbpf's user-space programs. */
static void user_ip(struct bgen *g)
{
	struct bstr r = { R7, bg_scratch(g, 8) };
	int done = bg_label(g);

	bg_mov_imm(g, R0, 0);
	if (g->user && !g->user_timer)
		return;
	bg_emit(g, B_ST | B_MEM | B_DW, r.base, 0, r.off, 0);
	mov(g, R1, R6);
	str_addr(g, R2, r);
	bg_mov_imm(g, R3, 8);
	bg_mov_imm(g, R4, 256);   /* BPF_F_USER_STACK */
	bg_call(g, H_GET_STACK);
	mov(g, R1, R0);
	bg_mov_imm(g, R0, 0);
	bg_jmp(g, J_NE, R1, -1, 8, done);
	ldx(g, R0, r.base, r.off);
	bg_place(g, done);
}

/* The offset in x86_64's pt_regs of a register register() names, as the
 * module's stp_register_offset (runtime/symbols.h); -1 if none. *half: an
 * e-register, its low 32 bits sign-extended. */
static int register_offset(const char *name, bool *half)
{
	static const struct { const char *n, *alt; int off; } regs[] = {
		{ "rax", "ax", 80 }, { "rbx", "bx", 40 }, { "rcx", "cx", 88 }, { "rdx", "dx", 96 },
		{ "rsi", "si", 104 }, { "rdi", "di", 112 }, { "rbp", "bp", 32 }, { "rsp", "sp", 152 },
		{ "rip", "ip", 128 }, { "eflags", "flags", 144 }, { "orig_rax", "orig_ax", 120 },
		{ "r8", "r8", 72 }, { "r9", "r9", 64 }, { "r10", "r10", 56 }, { "r11", "r11", 48 },
		{ "r12", "r12", 24 }, { "r13", "r13", 16 }, { "r14", "r14", 8 }, { "r15", "r15", 0 },
		{ "cs", "xcs", 136 }, { "ss", "xss", 160 },
		{ "eax", NULL, 80 }, { "ebx", NULL, 40 }, { "ecx", NULL, 88 }, { "edx", NULL, 96 },
		{ "esi", NULL, 104 }, { "edi", NULL, 112 }, { "ebp", NULL, 32 }, { "esp", NULL, 152 },
		{ "eip", NULL, 128 },
	};

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (!strcmp(name, regs[i].n) || (regs[i].alt && !strcmp(name, regs[i].alt))) {
			*half = name[0] == 'e' && strcmp(name, "eflags");
			return regs[i].off;
		}
	return -1;
}

/* r0 = register(name) / u_register(name) (unsigned: a 32-bit register
 * zero-extended), name a literal: a field of the probe's pt_regs; the
 * module's errors where there are none (begin, a tracepoint) or the name
 * is no register. */
static void register_value(struct bgen *g, struct expr *e, bool unsign)
{
	struct expr *a = e->args.items[0];
	bool half = false;
	int off;

	if (a->kind != EXPR_STR) {
		bg_fail(g, a->pos, "%s() of a name not known when translating has no BPF form",
			unsign ? "u_register" : "register");
		return;
	}
	if (g->user_timer) {   /* the module's timer has the interrupted ones */
		bg_fail(g, e->pos, "%s() in a timer probe that stapbpf runs in user space",
			unsign ? "u_register" : "register");
		return;
	}
	if (g->user || g->ctx_args) {
		bg_error(g, "cannot access CPU registers in this context",
			 "cannot access CPU registers in this context\n");
		return;
	}
	off = register_offset(a->str, &half);
	if (off < 0) {
		char *msg = xasprintf("Unknown register: %s", a->str);
		error_near(g, msg, "identifier", e->func->name, e->pos);
		free(msg);
		return;
	}
	if (!(off == 128 && bg_probe_addr(g)))   /* a kprobe's ip is one past */
		ldx(g, R0, R6, off);
	if (half && unsign)
		bg_emit(g, B_ALU | A_MOV | B_X, R0, R0, 0, 0);   /* the low 32 bits */
	else if (half)
		bg_sext(g, 32);
}

/* r0 = the time of day in ns, in a kernel probe: the kernel's TAI clock
 * (bpf_ktime_get_tai_ns, Linux 6.1) plus the whole seconds by which the
 * wall clock differs from it, which stapbpf puts in @config at offset 24
 * (the leap seconds: they change only when the kernel is told of one). A
 * step of the wall clock moves both. */
static bool wall_clock(struct bgen *g, struct srcpos pos)
{
	int slot = bg_stack(g), found = bg_label(g);

	if (!bg_kernel_at_least(g->s, 6, 1)) {
		char *what = xasprintf("the time of day in a kernel probe needs Linux 6.1's TAI clock "
				       "(kernel %s)", g->s->kernel_release);
		bg_fail_user_only(g, pos, what);
		free(what);
		return false;
	}
	bg_emit(g, B_ST | B_MEM | B_DW, R10, 0, slot, 0);
	bg_lookup0(g, g->config_map);
	bg_jmp(g, J_EQ, R0, -1, 0, found);
	ldx(g, R1, R0, 24);
	stx(g, R10, slot, R1);
	bg_place(g, found);
	bg_call(g, H_KTIME_TAI);
	ldx(g, R1, R10, slot);
	alu_x(g, A_ADD, R0, R1);
	return true;
}

static bool ctx_long(struct bgen *g, struct expr *e, const char *n)
{
	if (!strcmp(n, "__tz_gmtoff") && !e->args.len) {   /* stapbpf's zone, in @config */
		int none = bg_label(g);
		bg_lookup0(g, g->config_map);
		bg_jmp(g, J_EQ, R0, -1, 0, none);
		ldx(g, R0, R0, 32);
		bg_place(g, none);
	} else if (!strcmp(n, "pid") || !strcmp(n, "tid")) {
		bg_call(g, H_PID_TGID);
		if (n[0] == 'p')
			alu_k(g, A_RSH, R0, 32);
		else
			bg_emit(g, B_ALU | A_MOV | B_X, R0, R0, 0, 0);   /* the low 32 bits */
	} else if (!strcmp(n, "uid") || !strcmp(n, "gid")) {
		bg_call(g, H_UID_GID);
		if (n[0] == 'g')
			alu_k(g, A_RSH, R0, 32);
		else
			bg_emit(g, B_ALU | A_MOV | B_X, R0, R0, 0, 0);
	} else if (!strcmp(n, "cpu")) {
		bg_call(g, H_SMP_PROCESSOR_ID);
	} else if (!strcmp(n, "local_clock_ns") || !strcmp(n, "cpu_clock_ns") ||
		   !strcmp(n, "local_clock_us") || !strcmp(n, "local_clock_ms") ||
		   !strcmp(n, "local_clock_s")) {
		bg_call(g, H_KTIME_NS);
		if (!strcmp(n, "local_clock_us"))
			alu_k(g, A_DIV, R0, 1000);
		else if (!strcmp(n, "local_clock_ms"))
			alu_k(g, A_DIV, R0, 1000000);
		else if (!strcmp(n, "local_clock_s"))
			alu_k(g, A_DIV, R0, 1000000000);
	} else if (!strncmp(n, "gettimeofday_", 13)) {
		if (g->user)
			bg_call(g, HU_REALTIME_NS);
		else if (!wall_clock(g, e->pos))
			return true;
		if (!strcmp(n + 13, "us"))
			alu_k(g, A_DIV, R0, 1000);
		else if (!strcmp(n + 13, "ms"))
			alu_k(g, A_DIV, R0, 1000000);
		else if (!strcmp(n + 13, "s"))
			alu_k(g, A_DIV, R0, 1000000000);
	} else if (!strcmp(n, "target")) {
		int found = bg_label(g);
		bg_lookup0(g, g->config_map);
		bg_jmp(g, J_EQ, R0, -1, 0, found);
		ldx(g, R0, R0, 0);
		bg_place(g, found);
	} else if ((!strcmp(n, "isinstr") || !strcmp(n, "strpos")) && e->args.len == 2) {
		/* is b in a: for each start i in a (a loop of one bound, r1), b's
		 * bytes compared with a's from there without a branch (a branch
		 * per byte is more paths than the verifier walks): the XOR of the
		 * two, kept where b's byte is not NUL ((c + 255) >> 8), ORed into
		 * r5. a is copied before 64 zero bytes, so that a[i + j] stays in
		 * the slot. */
		struct bstr a = bg_str(g, e->args.items[0]), b = bg_str(g, e->args.items[1]);
		struct bstr t = { R7, bg_scratch(g, 2 * BPF_STRSZ) };
		int outer = bg_label(g), yes = bg_label(g), no = bg_label(g), done = bg_label(g);
		bg_str_copy(g, t, a);
		for (int k = BPF_STRSZ; k < 2 * BPF_STRSZ; k += 8)
			bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, t.off + k, 0);
		bg_mov_imm(g, R1, 0);
		bg_place(g, outer);
		bg_jmp(g, J_GE, R1, -1, BPF_STRSZ - 1, no);
		mov(g, R3, R7);
		bg_emit(g, B_ALU64 | A_ADD | B_X, R3, R1, 0, 0);
		bg_mov_imm(g, R5, 0);
		for (int j = 0; j < BPF_STRSZ - 1; j++) {
			bg_emit(g, B_LDX | B_MEM | B_B, R4, b.base, b.off + j, 0);
			bg_emit(g, B_LDX | B_MEM | B_B, R0, R3, t.off + j, 0);
			bg_emit(g, B_ALU64 | A_XOR | B_X, R0, R4, 0, 0);
			alu_k(g, A_ADD, R4, 255);
			alu_k(g, A_RSH, R4, 8);
			bg_emit(g, B_ALU64 | A_MUL | B_X, R0, R4, 0, 0);
			bg_emit(g, B_ALU64 | A_OR | B_X, R5, R0, 0, 0);
		}
		bg_jmp(g, J_EQ, R5, -1, 0, yes);
		bg_emit(g, B_LDX | B_MEM | B_B, R0, R3, t.off, 0);
		bg_jmp(g, J_EQ, R0, -1, 0, no);
		alu_k(g, A_ADD, R1, 1);
		bg_ja(g, outer);
		/* the answer goes through memory: with r0 = 1 on one way and 0 on
		 * the other the verifier walks the rest of the program twice
		 * for each isinstr, 2^n times for n of them */
		bg_place(g, yes);   /* strpos: where it starts */
		if (n[0] == 's')
			stx(g, R7, t.off, R1);
		else
			bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, t.off, 1);
		bg_ja(g, done);
		bg_place(g, no);
		bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, t.off, n[0] == 's' ? -1 : 0);
		bg_place(g, done);
		ldx(g, R0, R7, t.off);
	} else if (!strcmp(n, "jiffies") && !e->args.len) {
		bg_call(g, H_JIFFIES64);
	} else if (!strcmp(n, "log") && e->args.len == 1) {   /* the message and a newline */
		struct bstr sv[1] = { bg_str(g, e->args.items[0]) };
		bg_record(g, REC_PRINTF, bg_fmt(g, "s", "%s\n", 3), "s", NULL, sv);
		bg_mov_imm(g, R0, 0);
	} else if (!strcmp(n, "__pid_parent") && e->args.len == 1) {   /* stapbpf reads /proc */
		if (user_only(g, e->pos, "the parent of a pid")) {
			bg_long(g, e->args.items[0]);
			mov(g, R1, R0);
			bg_call(g, HU_PID_PARENT);
		}
	} else if (!strcmp(n, "isdigit") && e->args.len == 1) {   /* its first byte */
		struct bstr s = bg_str(g, e->args.items[0]);
		int yes = bg_label(g);
		bg_emit(g, B_LDX | B_MEM | B_B, R0, s.base, s.off, 0);
		alu_k(g, A_ADD, R0, -'0');
		bg_mov_imm(g, R1, 1);
		bg_jmp(g, J_LT, R0, -1, 10, yes);
		bg_mov_imm(g, R1, 0);
		bg_place(g, yes);
		mov(g, R0, R1);
	} else if (!strcmp(n, "stringat") && e->args.len == 2) {
		/* a byte before the string's NUL: the slot is NUL-padded, so a
		 * non-zero byte is one */
		struct bstr s = bg_str(g, e->args.items[0]), ts = scratch_str(g);
		int bad = bg_label(g), done = bg_label(g);
		bg_str_copy(g, ts, s);
		bg_long(g, e->args.items[1]);
		bg_jmp(g, J_SLT, R0, -1, 0, bad);
		bg_jmp(g, J_SGT, R0, -1, BPF_STRSZ - 1, bad);
		alu_k(g, A_AND, R0, BPF_STRSZ - 1);
		str_byte(g, R0, R1, ts, R0);
		bg_jmp(g, J_NE, R0, -1, 0, done);
		bg_place(g, bad);
		error_near(g, "Position out of bounds", "identifier", n, e->pos);
		bg_place(g, done);
	} else if (!strcmp(n, "uaddr") && !e->args.len) {
		user_ip(g);
	} else if ((!strcmp(n, "register") || !strcmp(n, "u_register")) && e->args.len == 1) {
		register_value(g, e, n[0] == 'u');
	} else if (!strcmp(n, "registers_valid") && !e->args.len) {   /* the probe has pt_regs */
		if (g->user_timer)
			bg_fail(g, e->pos, "registers_valid() in a timer probe that stapbpf runs in user space");
		bg_mov_imm(g, R0, !g->user && !g->ctx_args);
	} else if (!strcmp(n, "user_mode") && !e->args.len) {   /* the pt_regs' cs: ring 3 */
		if (g->user || g->ctx_args) {
			bg_mov_imm(g, R0, 0);
		} else {
			int yes = bg_label(g);
			ldx(g, R0, R6, 136);
			alu_k(g, A_AND, R0, 3);
			bg_mov_imm(g, R1, 1);
			bg_jmp(g, J_NE, R0, -1, 0, yes);
			bg_mov_imm(g, R1, 0);
			bg_place(g, yes);
			mov(g, R0, R1);
		}
	} else if (!strcmp(n, "randint") && e->args.len == 1) {
		/* as random.stp: 32 random bits times n, the high half; n at
		 * most 2^20 (unsigned: a negative n is too wide too) */
		int v = bg_stack(g), fine = bg_label(g);
		bg_long(g, e->args.items[0]);
		stx(g, R10, v, R0);
		bg_jmp(g, J_LE, R0, -1, 1048576, fine);
		error_near(g, "range too wide", "identifier", n, e->pos);
		bg_place(g, fine);
		bg_call(g, H_PRANDOM_U32);
		ldx(g, R1, R10, v);
		alu_x(g, A_MUL, R0, R1);
		alu_k(g, A_RSH, R0, 32);
	} else if (!strcmp(n, "addr") && !e->args.len && (g->user || g->ctx_args)) {
		bg_mov_imm(g, R0, 0);   /* no registers: as the module's */
	} else if (!strcmp(n, "addr") && !e->args.len && bg_probe_addr(g)) {
		;
	} else if (!strcmp(n, "print_backtrace") && !e->args.len) {
		bg_print_backtrace(g, e->pos);
	} else if (!strcmp(n, "__reg_arg") && e->args.len == 1) {
		reg_arg(g, e);
	} else if ((!strcmp(n, "asmlinkage") || !strcmp(n, "fastcall")) && !e->args.len) {
		/* a 32-bit task's conventions: nothing in a kernel probe; a
		 * process probe reads every argument on the stack (asmlinkage) */
		if (n[0] == 'f' && g->ctx.user)
			bg_fail(g, e->pos, "fastcall() in a process probe has no BPF form yet");
		bg_mov_imm(g, R0, 0);
	} else if (!strcmp(n, "regparm") && e->args.len == 1 && g->ctx.user &&
		   !(e->args.items[0]->kind == EXPR_NUM && !e->args.items[0]->num)) {
		bg_fail(g, e->pos, "regparm() in a process probe has no BPF form yet");
	} else if (!strcmp(n, "regparm") && e->args.len == 1) {
		int v = bg_stack(g), fine = bg_label(g), bad = bg_label(g);
		bg_long(g, e->args.items[0]);
		stx(g, R10, v, R0);
		bg_jmp(g, J_SLT, R0, -1, 0, bad);
		bg_jmp(g, J_SLE, R0, -1, 3, fine);
		bg_place(g, bad);
		error_value(g, "regparm value out of range: %d", v);
		bg_place(g, fine);
		bg_mov_imm(g, R0, 0);
	} else if (!strcmp(n, "returnval") && !e->args.len) {   /* rax, of the context's pt_regs */
		if (g->user || g->ctx_args)
			error_near(g, "cannot access function return value (no registers)", "identifier",
				   n, e->pos);
		else
			ldx(g, R0, R6, 80);
	} else if (!strcmp(n, "exit") || !strcmp(n, "abort")) {
		bg_record(g, REC_EXIT, 0, "", NULL, NULL);
		bg_stop_kernel(g);
		if (n[0] == 'a')   /* abort(): this handler ends too; no catch stops it */
			bg_ja(g, g->exit_label);
	} else if (!strcmp(n, "system") && e->args.len == 1) {   /* stapbpf runs it (REC_SYSTEM) */
		struct bstr sv[1] = { bg_str(g, e->args.items[0]) };
		bg_record(g, REC_SYSTEM, bg_fmt(g, "s", "%s", 2), "s", NULL, sv);
	} else if (!strcmp(n, "error") || !strcmp(n, "warn")) {
		struct bstr m = bg_str(g, e->args.items[0]);
		struct bstr sv[1] = { m };
		if (n[0] == 'e') {   /* error(msg): the message alone, as SystemTap */
			bg_raise(g, "%s", bg_fmt(g, "s", "%s\n", 3), "s", NULL, sv);
		} else {
			bg_record(g, REC_WARN, bg_fmt(g, "s", "%s\n", 3), "s", NULL, sv);
		}
	} else if (!strncmp(n, "kernel_", 7) && kernel_read(g, e, n + 7)) {
		;
	} else if (!strncmp(n, "user_", 5) && user_read(g, e, n + 5)) {
		;
	} else if (!strcmp(n, "__sc_compat_task") && g->user) {   /* stapbpf: a 64-bit task */
		bg_mov_imm(g, R0, 0);
	} else if (!strcmp(n, "__procfs_reading") && !e->args.len) {   /* a procfs probe's file */
		bg_mov_imm(g, R0, 0);
		if (g->user) {
			bg_mov_imm(g, R1, PROCFS_ACTIVE);
			bg_call(g, HU_PROCFS);
		}
	} else if ((!strcmp(n, "__procfs_set") || !strcmp(n, "__procfs_append")) && e->args.len == 1) {
		struct bstr v = bg_str(g, e->args.items[0]);
		if (g->user) {   /* no kernel program has a file to fill */
			bg_mov_imm(g, R1, n[9] == 's' ? PROCFS_SET : PROCFS_APPEND);
			str_addr(g, R2, v);
			bg_call(g, HU_PROCFS);
		}
	} else if (!strcmp(n, "__input_line_done") && e->args.len == 1) {
		/* input.line: a line ends at its newline or when a string is full */
		struct bstr s = bg_str(g, e->args.items[0]), t = scratch_str(g);
		int done = bg_label(g), full = bg_label(g);
		bg_scratch(g, BPF_STRSZ);
		str_addr(g, R1, t);
		bg_mov_imm(g, R2, BPF_STRSZ);
		str_addr(g, R3, s);
		bg_call(g, H_READ_KERNEL_STR);
		alu_k(g, A_ADD, R0, -1);        /* the length */
		int some = bg_label(g);
		bg_jmp(g, J_SGT, R0, -1, 0, some);
		bg_mov_imm(g, R0, 0);
		bg_ja(g, done);
		bg_place(g, some);
		bg_jmp(g, J_SGE, R0, -1, BPF_STRSZ - 1, full);
		alu_k(g, A_ADD, R0, -1);
		alu_k(g, A_AND, R0, BPF_STRSZ - 1);
		str_addr(g, R1, t);
		alu_x(g, A_ADD, R1, R0);
		bg_emit(g, B_LDX | B_MEM | B_B, R1, R1, 0, 0);
		bg_mov_imm(g, R0, 0);
		bg_jmp(g, J_NE, R1, -1, '\n', done);
		bg_place(g, full);
		bg_mov_imm(g, R0, 1);
		bg_place(g, done);
	} else if (!strcmp(n, "strlen")) {
		struct bstr s = bg_str(g, e->args.items[0]), t = scratch_str(g);
		int pos = bg_label(g);
		str_addr(g, R1, t);
		bg_mov_imm(g, R2, BPF_STRSZ);
		str_addr(g, R3, s);
		bg_call(g, H_READ_KERNEL_STR);
		alu_k(g, A_ADD, R0, -1);
		bg_jmp(g, J_SGE, R0, -1, 0, pos);
		bg_mov_imm(g, R0, 0);
		bg_place(g, pos);
	} else {
		return false;
	}
	return true;
}

static void call(struct bgen *g, struct expr *e, struct bstr *out)
{
	struct func *f = e->func;

	if (!f) {
		print(g, e, out);
		return;
	}
	/* the tapset's functions BPF has a form of, in embedded C or not
	 * (user_string() calls embedded helpers of its own) */
	if (f->embedded || (f->file && f->file->is_tapset)) {
		if (f->ret == TYPE_STRING) {
			bool done;
			struct bstr s = ctx_str(g, e, f->name, &done);
			if (done) {
				if (out)
					*out = s;
				return;
			}
		} else if (ctx_long(g, e, f->name)) {
			return;
		}
		if (f->embedded) {
			bg_fail(g, e->pos, "%s() is embedded C, which BPF cannot run", f->name);
			return;
		}
	}
	inline_call(g, e, out);
}

/* ---- the entry points --------------------------------------------------- */

/* Is embedded C expression text `(long)current`, whatever pragma comments
 * (pure, unprivileged ...) and spaces surround it? */
static bool is_current_task(const char *s)
{
	for (;;) {
		s += strspn(s, " \t\n");
		if (strncmp(s, "/*", 2))
			break;
		const char *end = strstr(s + 2, "*/");
		if (!end)
			return false;
		s = end + 2;
	}
	if (strncmp(s, "(long)current", 13))
		return false;
	s += 13;
	return s[strspn(s, " \t\n")] == '\0';
}

static void gen(struct bgen *g, struct expr *e, struct bstr *out);

static void ternary(struct bgen *g, struct expr *e, struct bstr *out)
{
	int els = bg_label(g), done = bg_label(g);
	int live = g->dp ? tvars_static_cond(g->s, g->dp, e->args.items[0]) : -1;
	struct bstr d = { R7, 0 };

	if (live >= 0) {   /* @defined decided it: the other branch is not made (pass 2 resolved only this one) */
		gen(g, e->args.items[live ? 1 : 2], out ? out : &d);
		return;
	}
	if (out)
		d = scratch_str(g);
	bg_long(g, e->args.items[0]);
	bg_jmp(g, J_EQ, R0, -1, 0, els);
	if (out)
		bg_str_copy(g, d, bg_str(g, e->args.items[1]));
	else
		bg_long(g, e->args.items[1]);
	bg_ja(g, done);
	bg_place(g, els);
	if (out)
		bg_str_copy(g, d, bg_str(g, e->args.items[2]));
	else
		bg_long(g, e->args.items[2]);
	bg_place(g, done);
	if (out)
		*out = d;
}

static void gen(struct bgen *g, struct expr *e, struct bstr *out)
{
	bg_pos(g, e->pos);
	switch (e->kind) {
	case EXPR_NUM:
		bg_mov_imm(g, R0, e->num);
		return;
	case EXPR_STR:
		*out = scratch_str(g);
		if (bg_str_fits(g, e->str_len, "this string literal", e->pos))
			bg_str_literal(g, *out, e->str, e->str_len);
		return;
	case EXPR_VAR:
		if (e->sym && (e->sym->is_array || e->sym->type == TYPE_STATS)) {
			bg_fail(g, e->pos, "'%s' used as a value", e->name);
			return;
		}
		if (e->type == TYPE_STRING)
			*out = var_str(g, e);
		else
			read_var_long(g, e);
		return;
	case EXPR_INDEX:
		if (!e->name && e->lhs && e->lhs->kind == EXPR_HIST && e->args.len == 1) {
			hist_index(g, e->lhs, e->args.items[0], e->pos);
			return;
		}
		if (!e->sym || e->sym->type == TYPE_STATS) {
			bg_fail(g, e->pos, "this index has no BPF form yet");
			return;
		}
		if (e->type == TYPE_STRING)
			*out = read_index_str(g, e);
		else
			read_index_long(g, e);
		return;
	case EXPR_CALL:
		call(g, e, out);
		return;
	case EXPR_UNARY:
		unary(g, e);
		return;
	case EXPR_BINARY:
		if (!strcmp(e->op, "."))
			*out = concat(g, e);
		else
			binary(g, e);
		return;
	case EXPR_PREINC:
	case EXPR_POSTINC:
		incdec(g, e);
		return;
	case EXPR_ASSIGN:
		assign(g, e, out);
		return;
	case EXPR_TERNARY:
		ternary(g, e, e->type == TYPE_STRING ? out : NULL);
		return;
	case EXPR_IN: {
		if (e->lhs && e->lhs->kind == EXPR_HIST && e->args.len == 1) {   /* its bucket's count */
			hist_index(g, e->lhs, e->args.items[0], e->pos);
			return;
		}
		if (!e->lhs || !e->lhs->sym || e->lhs->kind == EXPR_HIST) {
			bg_fail(g, e->pos, "a histogram's buckets have no BPF form yet");
			return;
		}
		for (int i = 0; i < e->args.len; i++)
			if (e->args.items[i]->kind == EXPR_STAR) {
				bg_slice_in(g, e);
				return;
			}
		int key = build_key(g, e->lhs->sym, e->args.items, e->args.len);
		int no = bg_label(g);
		lookup(g, e->lhs->sym, key);
		bg_jmp(g, J_EQ, R0, -1, 0, no);
		bg_mov_imm(g, R0, 1);
		bg_place(g, no);
		return;
	}
	case EXPR_STATOP:
		statop(g, e);
		return;
	case EXPR_TARGET:
	case EXPR_CAST:
	case EXPR_ATVAR:
	case EXPR_ADDROF:
		if (bg_entry_value(g, e, out)) {   /* read at entry of a .return probe */
			;
		} else if (e->type == TYPE_STRING && e->kind != EXPR_ADDROF) {   /* $$name, $x$ ... */
			*out = scratch_str(g);
			bg_tvar_str(g, e, *out);
		} else {
			bg_tvar(g, e);
		}
		return;
	case EXPR_DEFINED:
		bg_mov_imm(g, R0, bg_tvar_defined(g, e));
		return;
	case EXPR_CHOOSE:
		gen(g, e->args.items[bg_tvar_defined(g, e) ? 0 : 1], out);
		return;
	case EXPR_EMBEDDED:   /* the tapset's task_current(): @task(%{ (long)current %}) */
		if (e->str && is_current_task(e->str)) {
			bg_call(g, H_CURRENT_TASK);
			return;
		}
		bg_fail(g, e->pos, "embedded C, which BPF cannot run");
		return;
	case EXPR_REGEX:
		if (bg_regex(g, e->regex, bg_str(g, e->lhs), e->pos) && e->op[0] == '!')
			alu_k(g, A_XOR, R0, 1);
		return;
	case EXPR_HIST:
		bg_fail(g, e->pos, "a histogram has no BPF form yet");
		return;
	case EXPR_PERF:
		bg_fail(g, e->pos, "@perf has no BPF form yet");
		return;
	case EXPR_ENTRY:   /* in a .return probe, its copy (entry.c) */
		if (!bg_entry_value(g, e, out))
			gen(g, e->lhs, out);
		return;
	default:
		bg_fail(g, e->pos, "this expression has no BPF form yet");
	}
}

void bg_long(struct bgen *g, struct expr *e)
{
	struct bstr s = { R7, 0 };

	gen(g, e, &s);
}

struct bstr bg_str(struct bgen *g, struct expr *e)
{
	struct bstr s = { R7, 0 };

	gen(g, e, &s);
	return s;
}

void bg_effect(struct bgen *g, struct expr *e)
{
	struct bstr s = { R7, 0 };

	gen(g, e, &s);
}
