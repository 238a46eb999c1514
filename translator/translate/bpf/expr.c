/* expr.c - expressions for the BPF backend: a long ends in r0, a string in
 * a 64-byte slot (gen.h). A function whose pragma names a BPF intrinsic is
 * made by it (intrinsics.c); other embedded C is refused
 * (E_BPF_UNSUPPORTED); functions in the script language are inlined at
 * each call. */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "probes/provider.h"
#include "target/syscalls_gen.h"
#include "elaborate/tvars.h"
#include "translate/bpf/gen.h"
#include "translate/translate.h"
#include "walk.h"

void bg_error_near(struct bgen *g, const char *msg, const char *what, const char *name, struct srcpos pos)
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
	bg_error_near(g, msg, "identifier", arr->name, arr->pos);
	bg_place(g, ok);
	free(msg);
}

bool bg_user_only(struct bgen *g, struct srcpos pos, const char *what)
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
	l->off = l->str ? bg_scratch(g, g->strsz) : bg_stack(g);
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

/* arr's key laid out in scratch from keys, as arr's map has it (a narrow
 * string key: its first BG_KEY_NARROW bytes): its r7 offset. A '*' (a
 * slice's pattern, when pattern) leaves its field as it is; else it is
 * refused. */
static int key_fill(struct bgen *g, const struct sym *arr, struct expr **keys, int n, bool pattern)
{
	int off, at;

	off = at = bg_scratch(g, bg_key_size(g, arr));
	for (int i = 0; i < n && i < arr->nkeys; at += bg_key_width(g, arr, i), i++) {
		if (keys[i]->kind == EXPR_STAR) {
			if (pattern)
				continue;
			bg_fail(g, keys[i]->pos, "an array slice ([*]) has no BPF form yet");
			return off;
		}
		if (arr->key_types[i] == TYPE_STRING) {
			struct bstr k;

			if (bg_intrinsic_into(g, keys[i], (struct bstr){ R7, at }, bg_key_width(g, arr, i)))
				continue;
			k = bg_str(g, keys[i]);
			bg_str_copy_n(g, (struct bstr){ R7, at }, k, bg_key_width(g, arr, i));
		} else {
			bg_long(g, keys[i]);
			stx(g, R7, at, R0);
		}
	}
	return off;
}

int bg_key_build(struct bgen *g, const struct sym *arr, struct expr **keys, int n)
{
	return key_fill(g, arr, keys, n, false);
}

int bg_key_pattern(struct bgen *g, const struct sym *arr, struct expr **keys, int n)
{
	return key_fill(g, arr, keys, n, true);
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
	int key = bg_key_build(g, e->sym, e->args.items, e->args.len);
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
	int key = bg_key_build(g, e->sym, e->args.items, e->args.len);
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

	if (!bg_user_only(g, e->pos, "reading an aggregate"))
		return;
	if (x->kind == EXPR_INDEX) {
		int key = bg_key_build(g, x->sym, x->args.items, x->args.len);
		lookup(g, x->sym, key);
	} else {
		lookup_stat_scalar(g, x->sym);
	}
	bg_jmp(g, J_EQ, R0, -1, 0, empty);
	ldx(g, R1, R0, 0);
	bg_jmp(g, J_EQ, R1, -1, 0, empty);
	if (e->statop == SO_COUNT) {
		mov(g, R0, R1);
	} else if (e->statop == SO_SUM) {
		ldx(g, R0, R0, 8);
	} else if (e->statop == SO_MIN) {
		ldx(g, R0, R0, 16);
	} else if (e->statop == SO_MAX) {
		ldx(g, R0, R0, 24);
	} else if (e->statop == SO_AVG) {   /* sum / count, signed */
		ldx(g, R0, R0, 8);
		sdiv_by_count(g, R0, R1);
	} else if (e->statop == SO_VARIANCE && x->sym->var_used) {
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
	if (e->statop == SO_COUNT || e->statop == SO_SUM) {
		bg_mov_imm(g, R0, 0);
	} else {
		char *at = xasprintf("@%s", op);
		bg_error_near(g, "empty aggregate", "operator", at, e->pos);
		free(at);
	}
	bg_place(g, done);
}

/* ---- writing values -------------------------------------------------- */

/* dst(r0) = r0 OP r1 for a binary operator (a compound assignment's
 * too); division is signed (BPF's is not) and checks for zero */
static void arith(struct bgen *g, enum op_kind op, struct srcpos pos)
{
	switch (op) {
	case OP_ADD: bg_emit(g, B_ALU64 | A_ADD | B_X, R0, R1, 0, 0); return;
	case OP_SUB: bg_emit(g, B_ALU64 | A_SUB | B_X, R0, R1, 0, 0); return;
	case OP_MUL: bg_emit(g, B_ALU64 | A_MUL | B_X, R0, R1, 0, 0); return;
	case OP_AND: bg_emit(g, B_ALU64 | A_AND | B_X, R0, R1, 0, 0); return;
	case OP_OR: bg_emit(g, B_ALU64 | A_OR | B_X, R0, R1, 0, 0); return;
	case OP_XOR: bg_emit(g, B_ALU64 | A_XOR | B_X, R0, R1, 0, 0); return;
	case OP_SHL: bg_emit(g, B_ALU64 | A_LSH | B_X, R0, R1, 0, 0); return;
	case OP_SHR: bg_emit(g, B_ALU64 | A_ARSH | B_X, R0, R1, 0, 0); return;
	case OP_USHR: bg_emit(g, B_ALU64 | A_RSH | B_X, R0, R1, 0, 0); return;
	case OP_DIV:
	case OP_MOD: {
		int nz = bg_label(g), a_pos = bg_label(g), b_pos = bg_label(g), fix = bg_label(g);
		bg_jmp(g, J_NE, R1, -1, 0, nz);
		bg_error_near(g, "division by 0", "operator", op_text(op), pos);
		bg_place(g, nz);
		bg_mov_imm(g, R2, 0);           /* r2: negate the result */
		bg_jmp(g, J_SGE, R0, -1, 0, a_pos);
		alu_k(g, A_NEG, R0, 0);
		bg_mov_imm(g, R2, 1);
		bg_place(g, a_pos);
		bg_jmp(g, J_SGE, R1, -1, 0, b_pos);
		alu_k(g, A_NEG, R1, 0);
		if (op == OP_DIV)
			alu_k(g, A_XOR, R2, 1);
		bg_place(g, b_pos);
		bg_emit(g, B_ALU64 | (op == OP_DIV ? A_DIV : A_MOD) | B_X, R0, R1, 0, 0);
		bg_jmp(g, J_EQ, R2, -1, 0, fix);
		alu_k(g, A_NEG, R0, 0);
		bg_place(g, fix);
		return;
	}
	default:
		bg_fail(g, pos, "operator '%s' has no BPF form", op_text(op));
		return;
	}
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
		key = bg_key_build(g, lhs->sym, lhs->args.items, lhs->args.len);
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
		int key = bg_key_build(g, x->sym, x->args.items, x->args.len);
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
	bg_error_near(g, "empty aggregate", "identifier", fn, pos);
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

	if (!bg_user_only(g, pos, "reading a histogram"))
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
		bg_error_near(g, "empty aggregate", "operator", at, h->pos);
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
	bg_error_near(g, "histogram index out of range", "operator", at, h->pos);
	bg_place(g, done);
	free(at);
}

/* lhs OP= value for an array element; the new value in r0 (longs).
 * += and -= on an element that exists are atomic adds. */
static void update_index_long(struct bgen *g, struct expr *lhs, const struct lupdate *u, int vslot)
{
	int key = bg_key_build(g, lhs->sym, lhs->args.items, lhs->args.len);
	int have = bg_label(g), done = bg_label(g), nv = bg_stack(g);
	bool plain = u->how == LU_SET, add = u->adds;
	enum op_kind op = u->how == LU_STEP ? OP_ADD : (enum op_kind)u->op;   /* a step: + its ±1 */

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
		arith(g, op, lhs->pos);
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
			if (op == OP_SUB)
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
			arith(g, op, lhs->pos);
			ldx(g, R3, R10, nv);
			stx(g, R3, 0, R0);
		}
		bg_place(g, done);
	}
}

/* An update as pass 2 lowered it (lowered.h's struct lupdate): lhs OP=
 * rhs, ++, --, <<<; a number's new value (a step's: the old one after
 * x++) ends in r0, a string's slot in *out. */
static void assign(struct bgen *g, struct expr *e, struct bstr *out)
{
	const struct lupdate *u = e->upd;
	struct expr *lhs = e->lhs, *rhs = e->rhs;
	int d = u->step;

	if (u->how == LU_STAT_ADD) {
		bg_long(g, rhs);
		stat_add(g, lhs);
		return;
	}
	if (u->home == LU_TARGET) {
		bg_fail(g, e->pos, "writing a target variable has no BPF form");
		return;
	}
	if (u->string) {
		struct bstr v, d;
		if (u->how == LU_APPEND) {   /* as lhs . rhs */
			struct expr cat = *e;
			cat.kind = EXPR_BINARY;
			v = bg_str(g, &cat);
		} else if (u->how == LU_SET) {
			v = bg_str(g, rhs);
		} else {
			bg_fail(g, e->pos, "operator '%s' on a string", expr_op_text(e));
			return;
		}
		if (u->home == LU_ELEMENT) {
			int key;
			struct bstr t = scratch_str(g);
			bg_str_copy(g, t, v);
			key = bg_key_build(g, lhs->sym, lhs->args.items, lhs->args.len);
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
	if (u->home == LU_ELEMENT) {
		int vslot = bg_stack(g);
		if (u->how == LU_STEP)
			bg_mov_imm(g, R0, d);
		else
			bg_long(g, rhs);
		stx(g, R10, vslot, R0);
		update_index_long(g, lhs, u, vslot);
		if (u->post)
			alu_k(g, A_ADD, R0, -d);
		return;
	}
	if (u->home != LU_LOCAL && u->home != LU_GLOBAL) {
		if (u->how == LU_STEP)
			bg_fail(g, e->pos, "'%s' on this has no BPF form", expr_op_text(e));
		else
			bg_fail(g, e->pos, "this assignment has no BPF form");
		return;
	}
	if (u->how == LU_STEP && u->home == LU_GLOBAL) {   /* atomic on the shared value */
		bg_mov_imm(g, R0, d);
		bg_emit(g, B_STX | B_ATOMIC | B_DW, R8, R0, g->goff[lhs->sym->index], AT_ADD | AT_FETCH);
		if (!u->post)
			alu_k(g, A_ADD, R0, d);
		return;
	}
	if (u->how == LU_STEP) {
		read_var_long(g, lhs);
		alu_k(g, A_ADD, R0, d);
		store_long(g, lhs);
		if (u->post)
			alu_k(g, A_ADD, R0, -d);
		return;
	}
	if (u->how == LU_SET) {
		bg_long(g, rhs);
		store_long(g, lhs);
		return;
	}
	if (u->home == LU_GLOBAL && u->adds) {
		bg_long(g, rhs);           /* atomic on the shared value */
		if (u->op == OP_SUB)
			alu_k(g, A_NEG, R0, 0);
		mov(g, R1, R0);
		mov(g, R2, R0);
		bg_emit(g, B_STX | B_ATOMIC | B_DW, R8, R1, g->goff[lhs->sym->index], AT_ADD | AT_FETCH);
		bg_emit(g, B_ALU64 | A_ADD | B_X, R1, R2, 0, 0);
		mov(g, R0, R1);
		return;
	}
	int t = bg_stack(g);
	bg_long(g, rhs);
	stx(g, R10, t, R0);
	read_var_long(g, lhs);
	ldx(g, R1, R10, t);
	arith(g, u->op, e->pos);
	store_long(g, lhs);
}

/* ---- operators --------------------------------------------------------- */

/* r0 = strcmp-like order of two strings: -1, 0, 1 (NUL-padded slots
 * compare as big-endian words) */
static void str_order(struct bgen *g, struct bstr a, struct bstr b)
{
	int diff = bg_label(g), done = bg_label(g);

	for (int i = 0; i < g->strsz; i += 8) {
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

/* A comparison's signed jump, -1 for other operators */
static int cmp_op(enum op_kind op)
{
	switch (op) {
	case OP_EQ: return J_EQ;
	case OP_NE: return J_NE;
	case OP_LT: return J_SLT;
	case OP_LE: return J_SLE;
	case OP_GT: return J_SGT;
	case OP_GE: return J_SGE;
	default: return -1;
	}
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

	bg_scratch(g, g->strsz);   /* room the verifier counts past d */
	bg_str_zero(g, d);
	str_addr(g, R1, d);
	bg_mov_imm(g, R2, g->strsz);
	str_addr(g, R3, ta);
	bg_call(g, H_READ_KERNEL_STR);
	bg_jmp(g, J_SGT, R0, -1, 0, pos);
	bg_mov_imm(g, R0, 1);
	bg_place(g, pos);
	alu_k(g, A_ADD, R0, -1);
	alu_k(g, A_AND, R0, g->strsz - 1);
	str_addr(g, R1, d);
	bg_emit(g, B_ALU64 | A_ADD | B_X, R1, R0, 0, 0);
	bg_mov_imm(g, R2, g->strsz);
	bg_emit(g, B_ALU64 | A_SUB | B_X, R2, R0, 0, 0);
	str_addr(g, R3, b);
	bg_call(g, H_READ_KERNEL_STR);
	return d;
}

static void binary(struct bgen *g, struct expr *e)
{
	int jop = cmp_op(e->op);

	if (e->op == OP_LAND || e->op == OP_LOR) {
		int short_c = bg_label(g), done = bg_label(g);
		bool and = e->op == OP_LAND;
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
		arith(g, e->op, e->pos);
}

static void unary(struct bgen *g, struct expr *e)
{
	bg_long(g, e->lhs);
	switch (e->op) {
	case OP_NEG: alu_k(g, A_NEG, R0, 0); break;
	case OP_BITNOT: alu_k(g, A_XOR, R0, -1); break;
	case OP_NOT: {
		int z = bg_label(g), done = bg_label(g);
		bg_jmp(g, J_EQ, R0, -1, 0, z);
		bg_mov_imm(g, R0, 0);
		bg_ja(g, done);
		bg_place(g, z);
		bg_mov_imm(g, R0, 1);
		bg_place(g, done);
		break;
	}
	default:   /* unary +: the value itself */
		break;
	}
}

/* ---- calls ------------------------------------------------------------- */

bool bg_str_fits(struct bgen *g, size_t n, const char *what, struct srcpos pos)
{
	if (n < (size_t)g->strsz)
		return true;
	bg_fail(g, pos, "%s is %zu bytes here, and a BPF string value holds %d (printf prints it whole; "
		"-D MAXSTRINGLEN makes them longer)", what, n, g->strsz - 1);
	return false;
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
	} else if (e->kind == EXPR_CALL && g->dp) {   /* pp(): a constant intrinsic */
		t = bg_intrinsic_text(g, e, n);
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
			bg_fmt_add_literal(&out, buf, m);
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
/* %m and %M print the probe's memory at an address: stapbpf formats in
 * user space, where that memory is not (refused here, in pass 2, rather
 * than when stapbpf loads the bundle). */
static bool memory_free(struct bgen *g, const struct expr *f)
{
	bool ok = !format_reads_memory(f);

	if (!ok)
		bg_fail(g, f->pos, "%%m and %%M (the probe's memory) have no BPF form");
	return ok;
}

static void print(struct bgen *g, struct expr *e, struct bstr *out)
{
	const struct print_kind *k = e->print;
	const char *n = e->name;
	struct expr **args = e->args.items;
	int nargs = e->args.len, first = 0;
	struct strbuf fmt = STRBUF_INIT, types = STRBUF_INIT;
	int lv[32], nl = 0, ns = 0;
	struct bstr sv[32];
	bool to_str = k->to_string;

	if (k->formatted) {
		strbuf_add(&fmt, args[0]->str, args[0]->str_len);
		first = 1;
		if (!memory_free(g, args[0]))
			return;
	} else {
		bool delim = k->delim;
		struct strbuf d = STRBUF_INIT;
		if (delim) {
			if (args[0]->kind != EXPR_STR) {
				bg_fail(g, args[0]->pos, "the delimiter of %s() must be a literal", n);
				return;
			}
			bg_fmt_add_literal(&d, args[0]->str, args[0]->str_len);
			first = 1;
		}
		for (int i = first; i < nargs; i++) {
			if (i > first)
				strbuf_addstr(&fmt, d.buf);
			strbuf_addstr(&fmt, args[i]->type == TYPE_STRING ? "%s" : "%d");
		}
		if (k->newline)
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
		if (to_str || first || !bg_user_only(g, args[i]->pos, "printing a histogram")) {
			if (to_str || first)
				bg_fail(g, args[i]->pos, "%s of a histogram has no BPF form yet", n);
			return;
		}
		for (int i2 = 0; i2 < nargs; i2++) {
			if (args[i2]->kind == EXPR_HIST) {
				print_hist(g, args[i2], e->name, e->pos);
			} else {
				struct expr one = *e;
				one.name = "print";
				one.print = print_kind("print");
				one.args.items = &args[i2];
				one.args.len = 1;
				print(g, &one, out);
			}
		}
		if (k->newline)
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
			size += *t == 's' ? g->strsz : 8;
		at = bg_scratch(g, size ? size : 8);
		for (const char *t = types.buf, *p0 = types.buf; *t; t++) {
			int o = at;
			for (const char *u = p0; u < t; u++)
				o += *u == 's' ? g->strsz : 8;
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
	in->call = e;
	in->ret_label = bg_label(g);
	in->ret.str = f->ret == TYPE_STRING;
	in->ret.off = in->ret.str ? bg_scratch(g, g->strsz) : bg_stack(g);
	int scratch = g->scratch;
	/* the arguments, in the caller's frame */
	for (int i = 0; i < e->args.len; i++) {
		struct sym *p = f->params.items[i];
		struct bloc *l = xcalloc(1, sizeof(*l));
		l->sym = p;
		l->str = p->type == TYPE_STRING;
		l->off = l->str ? bg_scratch(g, g->strsz) : bg_stack(g);
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

/* Does a function's body assign v? */
struct assigns {
	const struct sym *v;
	bool found;
};

static enum walk_action assigns_expr(struct expr *e, void *ctx)
{
	struct assigns *a = ctx;

	if (expr_is_update(e) && e->lhs && e->lhs->kind == EXPR_VAR && e->lhs->sym == a->v) {
		a->found = true;
		return WALK_STOP;
	}
	return WALK_DESCEND;
}

struct expr *bg_arg_source(struct bgen *g, struct expr *e)
{
	for (int k = g->inl.len - 1; k >= 0 && e->kind == EXPR_VAR && e->sym && e->sym->kind == SYM_PARAM; k--) {
		const struct binline *in = g->inl.items[k];
		struct assigns a = { e->sym, false };
		struct walker w = { .expr = assigns_expr, .ctx = &a };
		int i;

		for (i = 0; i < in->f->params.len && in->f->params.items[i] != e->sym; i++)
			;
		if (i == in->f->params.len || i >= in->call->args.len)
			break;
		walk_stmt(&w, in->f->body);
		if (a.found)
			break;
		e = in->call->args.items[i];
	}
	return e;
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

/* A call: print and its kin; a function whose pragma names a BPF intrinsic
 * (intrinsics.c); embedded C, refused; script code, inlined. */
static void call(struct bgen *g, struct expr *e, struct bstr *out)
{
	struct func *f = e->func;

	if (!f) {
		print(g, e, out);
		return;
	}
	if (bg_intrinsic_call(g, e, out))
		return;
	if (f->embedded) {
		bg_fail(g, e->pos, "%s() is embedded C, which BPF cannot run", f->name);
		return;
	}
	inline_call(g, e, out);
}

/* ---- the entry points --------------------------------------------------- */

static void gen(struct bgen *g, struct expr *e, struct bstr *out);

static void ternary(struct bgen *g, struct expr *e, struct bstr *out)
{
	int els = bg_label(g), done = bg_label(g);
	int live = g->dp ? tvars_static_cond(g->s, g->dp, e->args.items[0]) : -1;
	struct bstr d = { R7, 0 };

	if (live < 0)   /* an intrinsic known as the program is made: __bpf_user_program() */
		live = bg_intrinsic_fixed(g, e->args.items[0]);
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
		if (e->op == OP_CAT)
			*out = concat(g, e);
		else
			binary(g, e);
		return;
	case EXPR_PREINC:
	case EXPR_POSTINC:
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
		int key = bg_key_build(g, e->lhs->sym, e->args.items, e->args.len);
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
		if (e->str && bg_intrinsic_embedded(g, e))
			return;
		bg_fail(g, e->pos, "embedded C, which BPF cannot run");
		return;
	case EXPR_REGEX:
		if (bg_regex(g, e->regex, bg_str(g, e->lhs), e->pos) && e->op == OP_REGEX_NOMATCH)
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
