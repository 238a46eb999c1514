/* lowered.c - making, asking and printing the lowered form (lowered.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

const struct lx *lx_index(const struct lx *base, int n, int64_t stride)
{
	return lx_bin(LX_ADD, base, lx_bin(LX_MUL, lx_leaf(LX_INDEX, n), lx_const(stride)));
}

bool lx_small_shift(const struct lx *count)
{
	return count->op == LX_CONST && count->k >= 0 && count->k < 64;
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

void lp_text(lpvec *v, const char *text)
{
	struct lp *p = xcalloc(1, sizeof(*p));

	p->kind = LP_TEXT;
	p->text = xstrdup(text);
	vec_push(v, p);
}

void lp_textf(lpvec *v, const char *fmt, ...)
{
	va_list ap;
	char *text;

	va_start(ap, fmt);
	text = xvasprintf(fmt, ap);
	va_end(ap);
	lp_text(v, text);
	free(text);
}

void lp_value(lpvec *v, const struct lx *x, enum lp_fmt fmt)
{
	struct lp *p = xcalloc(1, sizeof(*p));

	p->kind = LP_VALUE;
	p->x = x;
	p->fmt = fmt;
	vec_push(v, p);
}

void lp_string(lpvec *v, const struct lx *x, int size)
{
	struct lp *p = xcalloc(1, sizeof(*p));

	p->kind = LP_STRING;
	p->x = x;
	p->n = size;
	vec_push(v, p);
}

void lp_nested(lpvec *v, enum lp_kind kind, const struct lx *x, int n, const lpvec *body)
{
	struct lp *p = xcalloc(1, sizeof(*p));

	p->kind = kind;
	p->x = x;
	p->n = n;
	p->body = body;
	vec_push(v, p);
}

static bool lx_equal(const struct lx *a, const struct lx *b)
{
	if (!a || !b)
		return a == b;
	return a->op == b->op && a->k == b->k && a->hex == b->hex && a->user == b->user &&
	       lx_equal(a->a, b->a) && lx_equal(a->b, b->b);
}

bool lp_equal(const lpvec *a, const lpvec *b)
{
	if (!a || !b)
		return a == b;
	if (a->len != b->len)
		return false;
	for (int i = 0; i < a->len; i++) {
		const struct lp *x = a->items[i], *y = b->items[i];
		if (x->kind != y->kind || x->fmt != y->fmt || x->n != y->n || !lx_equal(x->x, y->x) ||
		    (x->text ? !y->text || strcmp(x->text, y->text) : !!y->text) || !lp_equal(x->body, y->body))
			return false;
	}
	return true;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ULL;
}

static uint64_t lx_hash(const struct lx *x)
{
	if (!x)
		return 7;
	return mix(mix(mix(mix((uint64_t)x->op, (uint64_t)x->k), x->hex * 2 + x->user), lx_hash(x->a)), lx_hash(x->b));
}

uint64_t lp_hash(const lpvec *v)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (int i = 0; v && i < v->len; i++) {
		const struct lp *p = v->items[i];
		h = mix(mix(mix(mix(h, p->kind), p->fmt), (uint64_t)p->n), lx_hash(p->x));
		if (p->text)
			h = mix(h, hash64(p->text, strlen(p->text)));
		if (p->body)
			h = mix(h, lp_hash(p->body));
	}
	return h;
}

bool lp_constant(const lpvec *v, const char **text)
{
	if (!v || v->len != 1 || v->items[0]->kind != LP_TEXT)
		return false;
	*text = v->items[0]->text;
	return true;
}

void lp_dump(struct strbuf *out, const lpvec *v)
{
	static const char *const fmts[] = { "dec", "udec", "hex", "char", "str" };

	for (int i = 0; v && i < v->len; i++) {
		const struct lp *p = v->items[i];
		if (i)
			strbuf_addch(out, ' ');
		switch (p->kind) {
		case LP_TEXT:
			strbuf_addf(out, "\"%s\"", p->text);
			continue;
		case LP_VALUE:
			strbuf_addf(out, "(%s ", fmts[p->fmt]);
			break;
		case LP_STRING:
			strbuf_addf(out, "(string %d ", p->n);
			break;
		case LP_DEREF:
		case LP_STRUCT:
			strbuf_addf(out, "(%s %d ", p->kind == LP_DEREF ? "deref" : "struct", p->n);
			break;
		}
		lx_dump(out, p->x);
		if (p->body) {
			strbuf_addstr(out, " [");
			lp_dump(out, p->body);
			strbuf_addch(out, ']');
		}
		strbuf_addch(out, ')');
	}
}
