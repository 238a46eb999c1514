/* lowered_c.c - the module backend's C for the lowered form (lowered.h):
 * values as int64_t expressions over runtime/deref.h's reads, pretty
 * printing as statements appending to a string. */
#include <inttypes.h>
#include <stdio.h>

#include "translate/module/lowered_c.h"

struct cprint {
	struct strbuf *out;
	const char *ptr;
	char *const *idx;
	int nidx;
	const char *str;
};

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
		strbuf_addf(out, "((int64_t)(%s))", p->ptr ? p->ptr : "0");
		return;
	case LX_INDEX:
		strbuf_addf(out, "((int64_t)(%s))", x->k < p->nidx ? p->idx[x->k] : "0");
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
		if (lx_small_shift(x->b)) {
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

static void print_items(struct cprint *p, const lpvec *v);

/* "{ int64_t NAME = X; if (c->last_error) { c->last_error = NULL;
 * stp_str_append(S, "?"); } else {" : a read that faults gives "?" */
static void read_once(struct cprint *p, const char *name, const struct lx *x)
{
	strbuf_addf(p->out, "{ int64_t %s = ", name);
	print_c(p, x);
	strbuf_addf(p->out, "; if (c->last_error) { c->last_error = NULL; stp_sb_lit(%s, \"?\"); } else {", p->str);
}

static void print_item(struct cprint *p, const struct lp *it)
{
	static const char *const conv[] = {
		[LP_DEC] = "stp_sb_num(%s, (u64)v_, 0)",
		[LP_UDEC] = "stp_sb_num(%s, (u64)v_, 1)",
		[LP_HEX] = "stp_sb_num(%s, (u64)v_, 2)",
		[LP_CHAR] = "stp_sb_char(%s, v_)",
		[LP_STR] = "stp_sb_string(%s, v_, 0)",
	};
	struct strbuf *out = p->out;

	switch (it->kind) {
	case LP_TEXT:
		strbuf_addf(out, "stp_sb_lit(%s, ", p->str);
		strbuf_add_cstr_literal(out, it->text);
		strbuf_addstr(out, ");\n");
		return;
	case LP_VALUE:
		strbuf_addf(out, "if (!stp_sb_full(%s)) ", p->str);   /* past the end: no read */
		read_once(p, "v_", it->x);
		strbuf_addch(out, ' ');
		strbuf_addf(out, conv[it->fmt], p->str);
		strbuf_addstr(out, "; } }\n");
		return;
	case LP_STRING:
		strbuf_addf(out, "stp_sb_string(%s, ", p->str);
		print_c(p, it->x);
		strbuf_addf(out, ", %d);\n", it->n);
		return;
	case LP_DEREF: {
		char name[16];
		snprintf(name, sizeof(name), "v_%d", it->n);
		read_once(p, name, it->x);
		strbuf_addch(out, '\n');
		print_items(p, it->body);
		strbuf_addstr(out, "} }\n");
		return;
	}
	case LP_STRUCT:
		strbuf_addf(out, "stp_pp_%d(c, %s, ", it->n, p->str);
		print_c(p, it->x);
		strbuf_addstr(out, ");\n");
		return;
	}
}

static void print_items(struct cprint *p, const lpvec *v)
{
	for (int i = 0; v && i < v->len; i++)
		print_item(p, v->items[i]);
}

void lp_to_c(struct strbuf *out, const lpvec *v, const char *str, const char *ptr, char *const *idx, int nidx)
{
	struct cprint p = { .out = out, .ptr = ptr, .idx = idx, .nidx = nidx, .str = str };

	print_items(&p, v);
}

