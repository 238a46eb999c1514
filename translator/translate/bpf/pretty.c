/* pretty.c - pretty-printed target variables ($x$, $x$$, $$parms,
 * $$locals, $$return ...) for the BPF backend: the items pass 2 lowers
 * them to (lowered.h) compiled to BPF code that makes the text with
 * kfmt.c's appends, a read that faults giving "?" as in the module. A
 * struct's members are printed inline (LP_STRUCT's body, its address
 * made where the body uses it). As a value the text is cut to BPF's 63
 * bytes; printf("%s", $x$) takes it a top-level item at a time instead:
 * each text joins the format, each value is a string of its own, so that
 * the line is whole.
 */
#include <stdlib.h>
#include <string.h>

#include "elaborate/tvars.h"
#include "translate/bpf/gen.h"

#define USER_TOP 0x00007ffffffff000ULL   /* x86-64 TASK_SIZE_MAX: below, user memory */

struct pp {
	struct bgen *g;
	struct expr *te;
	struct kfmt *k;
	struct bg_lxscope sc;   /* the operands, the locals, the structs printed */
	bool bad;
};

/* r0 = x; false (pp->bad) when BPF has no form of it */
static bool value(struct pp *pp, const struct lx *x)
{
	if (!bg_lx(pp->g, x, pp->te, &pp->sc))
		pp->bad = true;
	return !pp->bad;
}

/* the string at the address in r10 slot a ("?" if unreadable), quoted */
static void pp_string(struct pp *pp, int a, int64_t max)
{
	struct bgen *g = pp->g;
	struct bstr t = scratch_str(g), q = scratch_str(g);
	int kern = bg_label(g), read = bg_label(g), fault = bg_label(g), done = bg_label(g);

	bg_scratch(g, g->strsz);   /* room past q for text_str */
	bg_str_zero(g, t);
	str_addr(g, R1, t);
	bg_mov_imm(g, R2, max > 0 && max < g->strsz - 1 ? max + 1 : g->strsz);
	ldx(g, R3, R10, a);
	bg_mov_imm(g, R4, (int64_t)USER_TOP);
	bg_jmp(g, J_GE, R3, R4, 0, kern);
	bg_call(g, H_READ_USER_STR);
	bg_ja(g, read);
	bg_place(g, kern);
	bg_call(g, H_READ_KERNEL_STR);
	bg_place(g, read);
	bg_jmp(g, J_SLT, R0, -1, 0, fault);
	bg_text_str(g, t, true, q);
	bg_kfmt_str(pp->k, q);
	bg_ja(g, done);
	bg_place(g, fault);
	bg_kfmt_lit(pp->k, "?", 1);
	bg_place(g, done);
}

/* 'c' for the byte in r10 slot a, as stp_quote_char quotes it */
static void pp_char(struct pp *pp, int a)
{
	struct bgen *g = pp->g;
	struct bstr t = scratch_str(g), q = scratch_str(g);
	int done = bg_label(g);
	static const struct { int ch; const char *text; } own[] = {
		{ '"', "'\"'" }, { '\'', "'\\''" }, { 0, "'\\000'" },
	};

	bg_scratch(g, g->strsz);
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		int next = bg_label(g);
		ldx(g, R1, R10, a);
		alu_k(g, A_AND, R1, 0xff);
		bg_jmp(g, J_NE, R1, -1, own[i].ch, next);
		bg_kfmt_lit(pp->k, own[i].text, strlen(own[i].text));
		bg_ja(g, done);
		bg_place(g, next);
	}
	bg_str_zero(g, t);
	ldx(g, R1, R10, a);
	bg_emit(g, B_STX | B_MEM | B_B, t.base, R1, t.off, 0);
	bg_text_str(g, t, false, q);
	bg_kfmt_lit(pp->k, "'", 1);
	bg_kfmt_str(pp->k, q);
	bg_kfmt_lit(pp->k, "'", 1);
	bg_place(g, done);
}

static void items(struct pp *pp, const lpvec *v);

/* The value in r10 slot v written as fmt. */
static void write_value(struct pp *pp, enum lp_fmt fmt, int v)
{
	static const char *const convs[] = { [LP_DEC] = "%d", [LP_UDEC] = "%u", [LP_HEX] = "%#x" };
	struct bgen *g = pp->g;
	int a = bg_stack(g);

	ldx(g, R0, R10, v);
	stx(g, R10, a, R0);
	if (fmt == LP_STR)
		pp_string(pp, a, 0);
	else if (fmt == LP_CHAR)
		pp_char(pp, a);
	else
		bg_kfmt_conv(pp->k, convs[fmt], a);
}

/* x read once into a slot (local n: the body's), then what follows; "?"
 * when the read faults */
static void read_once(struct pp *pp, const struct lx *x, int local, enum lp_fmt fmt, const lpvec *body)
{
	struct bgen *g = pp->g;
	int v = bg_stack(g), fault = bg_label(g), done = bg_label(g);

	vec_push(&g->tries, ((struct btry){ .catch_label = fault }));
	bool ok = value(pp, x);
	g->tries.len--;
	if (!ok)
		return;
	stx(g, R10, v, R0);
	if (body) {
		if (local < 0 || local >= BG_LX_LOCALS) {
			pp->bad = true;
			return;
		}
		int saved = pp->sc.slots[local];
		pp->sc.slots[local] = v;
		items(pp, body);
		pp->sc.slots[local] = saved;
	} else {
		int mark = g->stack;
		write_value(pp, fmt, v);
		g->stack = mark;
	}
	bg_ja(g, done);
	bg_place(g, fault);
	bg_kfmt_lit(pp->k, "?", 1);
	bg_place(g, done);
}

/* One item; its stack slots are free again after it (a struct's
 * members would fill BPF's 512 bytes). */
static void item(struct pp *pp, const struct lp *it)
{
	struct bgen *g = pp->g;
	int mark = g->stack;

	switch (it->kind) {
	case LP_TEXT:
		bg_kfmt_lit(pp->k, it->text, strlen(it->text));
		break;
	case LP_VALUE:
		read_once(pp, it->x, -1, it->fmt, NULL);
		break;
	case LP_STRING: {
		int a = bg_stack(g);
		if (!value(pp, it->x))
			break;
		stx(g, R10, a, R0);
		pp_string(pp, a, it->n);
		break;
	}
	case LP_DEREF:
		read_once(pp, it->x, it->n, LP_HEX, it->body);
		break;
	case LP_STRUCT:   /* inline: its address made where the members need it */
		if (pp->sc.nself == BG_LX_SELVES) {
			pp->bad = true;
			break;
		}
		pp->sc.self[pp->sc.nself++] = it->x;
		items(pp, it->body);
		pp->sc.nself--;
		break;
	}
	g->stack = mark;
}

static void items(struct pp *pp, const lpvec *v)
{
	for (int i = 0; v && i < v->len && !pp->bad; i++)
		item(pp, v->items[i]);
}

static const struct tvar *pretty_tvar(struct bgen *g, struct expr *e)
{
	const struct tvar *tv = e->kind == EXPR_TARGET || e->kind == EXPR_CAST || e->kind == EXPR_ATVAR
				? tvar_find(g->s, g->dp, e) : NULL;

	return tv && tv->kind == TV_PRETTY && tv->pretty ? tv : NULL;
}

/* The text of the items from..to of v (a struct's inline, selves its
 * address's for the first) into a new string. */
static struct bstr compile(struct bgen *g, struct expr *e, const lpvec *v, int from, int to,
			   const struct lx *const *selves, int nself, bool *ok)
{
	struct pp pp = { .g = g, .te = e, .k = bg_kfmt_start(g) };

	bg_lx_operands(e, &pp.sc);
	for (int i = 0; i < nself; i++)
		pp.sc.self[pp.sc.nself++] = selves[i];
	for (int i = from; i < to && !pp.bad; i++)
		item(&pp, v->items[i]);
	free(pp.sc.ops);
	*ok = !pp.bad;
	return bg_kfmt_done(pp.k);
}

bool bg_pretty_value(struct bgen *g, struct expr *e, struct bstr d)
{
	const struct tvar *tv = pretty_tvar(g, e);
	bool ok = false;

	if (tv) {
		struct bstr s = compile(g, e, tv->pretty, 0, tv->pretty->len, NULL, 0, &ok);
		bg_str_copy(g, d, s);
	}
	if (!ok)
		bg_fail(g, e->pos, "pretty-printing this target variable has no BPF form yet");
	return ok;
}

/* The top-level pieces of v for printf: each item, a struct's members as
 * items of the level it is at (the struct addresses around them kept in
 * selves): a text joins the format, any other item is a value of its own. */
struct piece_walk {
	struct bgen *g;
	struct expr *e;
	struct strbuf *fmt;     /* pieces: the format, or NULL */
	struct bstr *sv;        /* values: the strings, or NULL */
	int n;
	bool ok;
	const struct lx *selves[BG_LX_SELVES];
	int nself;
};

static void pieces(struct piece_walk *w, const lpvec *v)
{
	for (int i = 0; v && i < v->len && w->ok; i++) {
		const struct lp *it = v->items[i];
		if (it->kind == LP_STRUCT) {
			if (w->nself == BG_LX_SELVES) {
				w->ok = false;
				return;
			}
			w->selves[w->nself++] = it->x;
			pieces(w, it->body);
			w->nself--;
		} else if (it->kind == LP_TEXT) {
			if (w->fmt)
				bg_fmt_add_literal(w->fmt, it->text, strlen(it->text));
		} else {
			if (w->fmt)
				strbuf_addstr(w->fmt, "%s");
			if (w->sv)
				w->sv[w->n] = compile(w->g, w->e, v, i, i + 1, w->selves, w->nself, &w->ok);
			w->n++;
		}
	}
}

int bg_pretty_pieces(struct bgen *g, struct expr *e, struct strbuf *fmt)
{
	const struct tvar *tv = pretty_tvar(g, e);
	struct piece_walk w = { .g = g, .e = e, .fmt = fmt, .ok = true };

	if (!tv || tv->at_entry)
		return -1;
	pieces(&w, tv->pretty);
	return w.ok ? w.n : -1;
}

bool bg_pretty_values(struct bgen *g, struct expr *e, struct bstr *sv)
{
	const struct tvar *tv = pretty_tvar(g, e);
	struct piece_walk w = { .g = g, .e = e, .sv = sv, .ok = true };

	pieces(&w, tv->pretty);
	if (!w.ok)
		bg_fail(g, e->pos, "pretty-printing this target variable has no BPF form yet");
	return w.ok;
}
