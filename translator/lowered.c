/* lowered.c - making, asking and printing the lowered form (lowered.h). */
#include <inttypes.h>
#include <stdio.h>

#include "lowered.h"

static struct lx *node(enum lx_op op)
{
	struct lx *x = xcalloc(1, sizeof(*x));

	x->op = op;
	return x;
}

const struct lx *lx_const(int64_t k)
{
	struct lx *x = node(LX_CONST);

	x->k = k;
	return x;
}

const struct lx *lx_hex(uint64_t k)
{
	struct lx *x = node(LX_CONST);

	x->k = (int64_t)k;
	x->hex = true;
	return x;
}

const struct lx *lx_leaf(enum lx_op op, int64_t n)
{
	struct lx *x = node(op);

	x->k = n;
	return x;
}

const struct lx *lx_load(const struct lx *addr, int size, bool user)
{
	struct lx *x = node(LX_LOAD);

	x->a = addr;
	x->k = size;
	x->user = user;
	return x;
}

const struct lx *lx_sext(const struct lx *a, int bits)
{
	struct lx *x = node(LX_SEXT);

	x->a = a;
	x->k = bits;
	return x;
}

const struct lx *lx_bin(enum lx_op op, const struct lx *a, const struct lx *b)
{
	struct lx *x = node(op);

	x->a = a;
	x->b = b;
	return x;
}

const struct lx *lx_un(enum lx_op op, const struct lx *a)
{
	struct lx *x = node(op);

	x->a = a;
	return x;
}

const struct lx *lx_add_k(const struct lx *a, int64_t k)
{
	return lx_bin(LX_ADD, a, lx_const(k));
}

/* The value's bytes as an integer of its size: what a register or a wider
 * read holds beyond them is not the value's. */
const struct lx *lx_fit(const struct lx *a, int size, bool sign)
{
	if (size >= 8 || size <= 0)
		return a;
	if (sign)
		return lx_sext(a, size * 8);
	return lx_bin(LX_AND, a, lx_hex((((uint64_t)1) << (size * 8)) - 1));
}

bool lx_has(const struct lx *x, enum lx_op op)
{
	return x && (x->op == op || lx_has(x->a, op) || lx_has(x->b, op));
}

static const char *const op_names[] = {
	[LX_CONST] = "const", [LX_REG] = "reg", [LX_PTR] = "ptr", [LX_INDEX] = "index",
	[LX_KASLR] = "kaslr", [LX_UBIAS] = "ubias", [LX_MODSYM] = "modsym", [LX_LOCAL] = "local",
	[LX_LOAD] = "load", [LX_SEXT] = "sext", [LX_ADD] = "+", [LX_SUB] = "-", [LX_MUL] = "*",
	[LX_AND] = "&", [LX_OR] = "|", [LX_XOR] = "^", [LX_SHL] = "<<", [LX_SHR] = ">>",
	[LX_SAR] = "sar", [LX_NEG] = "neg", [LX_NOT] = "~",
};

void lx_dump(struct strbuf *out, const struct lx *x)
{
	switch (x->op) {
	case LX_CONST:
		if (x->hex)
			strbuf_addf(out, "0x%" PRIx64, (uint64_t)x->k);
		else
			strbuf_addf(out, "%" PRId64, x->k);
		return;
	case LX_PTR: case LX_KASLR: case LX_UBIAS:
		strbuf_addf(out, "(%s)", op_names[x->op]);
		return;
	case LX_REG: case LX_INDEX: case LX_MODSYM: case LX_LOCAL:
		strbuf_addf(out, "(%s %" PRId64 ")", op_names[x->op], x->k);
		return;
	case LX_LOAD:
		strbuf_addf(out, "(load %" PRId64 " %c ", x->k, x->user ? 'u' : 'k');
		break;
	case LX_SEXT:
		strbuf_addf(out, "(sext %" PRId64 " ", x->k);
		break;
	default:
		strbuf_addf(out, "(%s ", op_names[x->op]);
		break;
	}
	lx_dump(out, x->a);
	if (x->b) {
		strbuf_addch(out, ' ');
		lx_dump(out, x->b);
	}
	strbuf_addch(out, ')');
}

struct cprint {
	struct strbuf *out;
	const char *ptr;
	char *const *idx;
	int nidx;
};

/* Is x a shift count that needs no "& 63"? */
static bool small_count(const struct lx *x)
{
	return x->op == LX_CONST && x->k >= 0 && x->k < 64;
}

static void print_c(struct cprint *p, const struct lx *x)
{
	static const char *const cop[] = {
		[LX_ADD] = "+", [LX_SUB] = "-", [LX_MUL] = "*", [LX_AND] = "&", [LX_OR] = "|",
		[LX_XOR] = "^", [LX_SHL] = "<<", [LX_SHR] = ">>", [LX_SAR] = ">>",
	};
	struct strbuf *out = p->out;

	switch (x->op) {
	case LX_CONST:
		if (x->hex || x->k == INT64_MIN)
			strbuf_addf(out, "0x%" PRIx64 "ULL", (uint64_t)x->k);
		else
			strbuf_addf(out, "%" PRId64 "LL", x->k);
		return;
	case LX_REG:
		strbuf_addf(out, "((int64_t)stp_dwarf_reg(c, %d))", (int)x->k);
		return;
	case LX_PTR:
		strbuf_addf(out, "((int64_t)(%s))", p->ptr ? p->ptr : "@@P@@");
		return;
	case LX_INDEX:
		if (p->idx)
			strbuf_addf(out, "((int64_t)(%s))", x->k < p->nidx ? p->idx[x->k] : "0");
		else
			strbuf_addf(out, "((int64_t)(@@I%d@@))", (int)x->k);
		return;
	case LX_KASLR:
		strbuf_addstr(out, "((int64_t)stp_kaslr_offset)");
		return;
	case LX_UBIAS:
		strbuf_addstr(out, "((int64_t)c->ubias)");
		return;
	case LX_MODSYM:
		strbuf_addf(out, "((int64_t)stp_modsym_addrs[%d])", (int)x->k);
		return;
	case LX_LOCAL:   /* the pretty printer's: v_<n>, the struct printing function's b_ */
		if (x->k < 0)
			strbuf_addstr(out, "((int64_t)b_)");
		else
			strbuf_addf(out, "((int64_t)v_%d)", (int)x->k);
		return;
	case LX_LOAD:
		strbuf_addf(out, "((int64_t)%s(c, ", x->user ? "stp_uread" : "stp_kread");
		print_c(p, x->a);
		strbuf_addf(out, ", %d))", (int)x->k);
		return;
	case LX_SEXT:
		strbuf_addstr(out, "stp_sext(");
		print_c(p, x->a);
		strbuf_addf(out, ", %d)", (int)x->k);
		return;
	case LX_NEG: case LX_NOT:
		strbuf_addstr(out, x->op == LX_NEG ? "(-" : "(~");
		print_c(p, x->a);
		strbuf_addch(out, ')');
		return;
	case LX_SHL: case LX_SHR: case LX_SAR:   /* C's >> of a signed value is arithmetic */
		strbuf_addstr(out, x->op == LX_SAR ? "((int64_t)" : "((int64_t)((u64)");
		print_c(p, x->a);
		strbuf_addf(out, " %s ", cop[x->op]);
		if (small_count(x->b)) {
			strbuf_addf(out, "%d", (int)x->b->k);
		} else {
			strbuf_addch(out, '(');
			print_c(p, x->b);
			strbuf_addstr(out, " & 63)");
		}
		strbuf_addstr(out, x->op == LX_SAR ? ")" : "))");
		return;
	default:   /* the kernel is built to wrap signed overflow (-fno-strict-overflow) */
		strbuf_addch(out, '(');
		print_c(p, x->a);
		strbuf_addf(out, " %s ", cop[x->op]);
		print_c(p, x->b);
		strbuf_addch(out, ')');
		return;
	}
}

char *lx_to_c(const struct lx *x, const char *ptr, char *const *idx, int nidx)
{
	struct strbuf out = STRBUF_INIT;
	struct cprint p = { .out = &out, .ptr = ptr, .idx = idx, .nidx = nidx };

	print_c(&p, x);
	return strbuf_detach(&out);
}
