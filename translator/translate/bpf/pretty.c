/* pretty.c - pretty-printed target variables ($x$, $x$$, $$parms,
 * $$locals, $$return ...) for the BPF backend. Pass 2 writes them as a
 * few kinds of C statements appending to a string (target/tvars.c's
 * pretty printer):
 *
 *   stp_str_append(@@S@@, "text");
 *   stp_str_appendf(@@S@@, "%lld" | "%llu" | "%#llx", (CAST)EXPR);
 *   stp_pp_string(@@S@@, EXPR, MAX);     a quoted string read at EXPR
 *   stp_pp_char(@@S@@, EXPR);            a quoted character
 *   { int64_t NAME = EXPR; if (c->last_error) { c->last_error = NULL;
 *     stp_str_append(@@S@@, "?"); } else { STATEMENTS } }
 *
 * EXPR being the C tvar.c compiles. They are compiled here to BPF code
 * that makes the text with kfmt.c's appends, a read that faults giving
 * "?" as in the module. As a value the text is cut to BPF's 63 bytes;
 * printf("%s", $x$) takes it a top-level piece at a time instead: each
 * literal joins the format, each value is a string of its own, so that
 * the line is whole.
 */
#include <stdlib.h>
#include <string.h>

#include "target/tvars.h"
#include "translate/bpf/gen.h"

#define USER_TOP 0x00007ffffffff000ULL   /* x86-64 TASK_SIZE_MAX: below, user memory */

struct pp {
	struct bgen *g;
	struct expr *te;
	struct kfmt *k;
	const char *names[8];   /* the blocks' values in scope, innermost last */
	int slots[8];
	int nnames;
	bool bad;
};

static bool eat(const char **p, const char *tok)
{
	size_t n = strlen(tok);

	while (**p == ' ' || **p == '\n' || **p == '\t')
		(*p)++;
	if (strncmp(*p, tok, n))
		return false;
	*p += n;
	return true;
}

/* The end of the statement at p: past its ';' or its block's '}'. */
static const char *stmt_end(const char *p)
{
	int depth = 0;
	bool str = false;

	for (; *p; p++) {
		if (str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				str = false;
			continue;
		}
		if (*p == '"') {
			str = true;
		} else if (*p == '{') {
			depth++;
		} else if (*p == '}' && --depth == 0) {
			p++;
			break;
		} else if (*p == ';' && depth == 0) {
			p++;
			break;
		}
	}
	while (*p == ' ' || *p == '\n')
		p++;
	return p;
}

/* "stp_str_append(@@S@@, "text");" at p: its text, p past it; else NULL */
static char *literal_stmt(const char **p, size_t *n)
{
	const char *q = *p, *end;
	char *t;

	if (!eat(&q, "stp_str_append(@@S@@, ") || !(t = bg_c_literal(q, &end, n)))
		return NULL;
	q = end + 1;
	if (!eat(&q, ");")) {
		free(t);
		return NULL;
	}
	*p = q;
	return t;
}

static bool expr_at(struct pp *pp, const char **p)
{
	if (!bg_cexpr(pp->g, p, pp->te, pp->names, pp->slots, pp->nnames)) {
		pp->bad = true;
		return false;
	}
	return true;
}

/* the string at the address in r10 slot a ("?" if unreadable), quoted */
static void pp_string(struct pp *pp, int a, int64_t max)
{
	struct bgen *g = pp->g;
	struct bstr t = scratch_str(g), q = scratch_str(g);
	int kern = bg_label(g), read = bg_label(g), fault = bg_label(g), done = bg_label(g);

	bg_scratch(g, BPF_STRSZ);   /* room past q for text_str */
	bg_str_zero(g, t);
	str_addr(g, R1, t);
	bg_mov_imm(g, R2, max > 0 && max < BPF_STRSZ - 1 ? max + 1 : BPF_STRSZ);
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

	bg_scratch(g, BPF_STRSZ);
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

static void stmts(struct pp *pp, const char **p, bool in_block);

/* One statement at *p, compiled; *p past it. */
static void stmt(struct pp *pp, const char **p)
{
	struct bgen *g = pp->g;
	const char *q = *p;
	char *text;
	size_t n;

	if ((text = literal_stmt(p, &n))) {
		bg_kfmt_lit(pp->k, text, n);
		free(text);
	} else if (eat(&q, "stp_str_appendf(@@S@@, \"")) {
		static const char *const convs[][2] = { { "%lld\"", "%d" }, { "%llu\"", "%u" }, { "%#llx\"", "%#x" } };
		size_t i;
		int v = bg_stack(g);
		for (i = 0; i < 3 && strncmp(q, convs[i][0], strlen(convs[i][0])); i++)
			;
		if (i == 3 || (q += strlen(convs[i][0]), !eat(&q, ",")) || !expr_at(pp, &q) || !eat(&q, ");")) {
			pp->bad = true;
			return;
		}
		stx(g, R10, v, R0);
		bg_kfmt_conv(pp->k, convs[i][1], v);
		*p = q;
	} else if (eat(&q, "stp_pp_string(@@S@@, ")) {
		int a = bg_stack(g);
		char *end;
		if (!expr_at(pp, &q) || !eat(&q, ",")) {
			pp->bad = true;
			return;
		}
		stx(g, R10, a, R0);
		int64_t max = strtoll(q, &end, 10);
		q = end;
		if (!eat(&q, ");")) {
			pp->bad = true;
			return;
		}
		pp_string(pp, a, max);
		*p = q;
	} else if (eat(&q, "stp_pp_char(@@S@@, ")) {
		int a = bg_stack(g);
		if (!expr_at(pp, &q) || !eat(&q, ");")) {
			pp->bad = true;
			return;
		}
		stx(g, R10, a, R0);
		pp_char(pp, a);
		*p = q;
	} else if (eat(&q, "{ int64_t ") && pp->nnames < 8) {
		/* a value read once; "?" when the read faults */
		size_t len = strcspn(q, " =");
		char *name = xstrndup(q, len);
		int v = bg_stack(g), fault = bg_label(g), done = bg_label(g);
		q += len;
		if (!eat(&q, "=")) {
			free(name);
			pp->bad = true;
			return;
		}
		vec_push(&g->tries, ((struct btry){ .catch_label = fault }));
		bool ok = expr_at(pp, &q);
		g->tries.len--;
		if (!ok || !eat(&q, "; if (c->last_error) { c->last_error = NULL; stp_str_append(@@S@@, \"?\"); } else {")) {
			free(name);
			pp->bad = true;
			return;
		}
		stx(g, R10, v, R0);
		pp->names[pp->nnames] = name;
		pp->slots[pp->nnames++] = v;
		stmts(pp, &q, true);
		pp->nnames--;
		free(name);
		if (pp->bad || !eat(&q, "}") || !eat(&q, "}")) {
			pp->bad = true;
			return;
		}
		bg_ja(g, done);
		bg_place(g, fault);
		bg_kfmt_lit(pp->k, "?", 1);
		bg_place(g, done);
		*p = q;
	} else {
		pp->bad = true;
	}
}

/* The statements up to the end (or the block's '}'); the stack slots of
 * each are free again after it (a struct's members would fill BPF's 512
 * bytes). */
static void stmts(struct pp *pp, const char **p, bool in_block)
{
	for (;;) {
		int mark = pp->g->stack;
		while (**p == ' ' || **p == '\n' || **p == '\t' || **p == ';')
			(*p)++;
		if (!**p || (in_block && **p == '}') || pp->bad)
			return;
		stmt(pp, p);
		pp->g->stack = mark;
	}
}

static const struct tvar *pretty_tvar(struct bgen *g, struct expr *e)
{
	const struct tvar *tv = e->kind == EXPR_TARGET || e->kind == EXPR_CAST || e->kind == EXPR_ATVAR
				? tvar_find(g->s, g->dp, e) : NULL;

	return tv && tv->kind == TV_PRETTY && tv->code ? tv : NULL;
}

/* The text of the statements from p to end into a new string. */
static struct bstr compile(struct bgen *g, struct expr *e, const char *p, const char *end, bool *ok)
{
	struct pp pp = { .g = g, .te = e, .k = bg_kfmt_start(g) };
	char *code = xstrndup(p, (size_t)(end - p));
	const char *q = code;

	stmts(&pp, &q, false);
	free(code);
	*ok = !pp.bad;
	return bg_kfmt_done(pp.k);
}

bool bg_pretty_value(struct bgen *g, struct expr *e, struct bstr d)
{
	const struct tvar *tv = pretty_tvar(g, e);
	bool ok = false;

	if (tv) {
		struct bstr s = compile(g, e, tv->code, tv->code + strlen(tv->code), &ok);
		bg_str_copy(g, d, s);
	}
	if (!ok)
		bg_fail(g, e->pos, "pretty-printing this target variable has no BPF form yet");
	return ok;
}

int bg_pretty_pieces(struct bgen *g, struct expr *e, struct strbuf *fmt)
{
	const struct tvar *tv = pretty_tvar(g, e);
	int n = 0;

	if (!tv || tv->at_entry)
		return -1;
	for (const char *p = tv->code; *p;) {
		const char *q = p, *end = stmt_end(p);
		size_t len;
		char *text = literal_stmt(&q, &len);
		if (text && fmt) {
			for (size_t i = 0; i < len; i++) {
				if (text[i] == '%')
					strbuf_addch(fmt, '%');
				strbuf_addch(fmt, text[i]);
			}
		} else if (!text) {
			if (fmt)
				strbuf_addstr(fmt, "%s");
			n++;
		}
		free(text);
		if (end == p)
			return -1;
		p = end;
	}
	return n;
}

bool bg_pretty_values(struct bgen *g, struct expr *e, struct bstr *sv)
{
	const struct tvar *tv = pretty_tvar(g, e);
	int n = 0;
	bool ok = true;

	for (const char *p = tv->code; *p && ok;) {
		const char *q = p, *end = stmt_end(p);
		size_t len;
		char *text = literal_stmt(&q, &len);
		if (!text)
			sv[n++] = compile(g, e, p, end, &ok);
		free(text);
		p = end;
	}
	if (!ok)
		bg_fail(g, e->pos, "pretty-printing this target variable has no BPF form yet");
	return ok;
}
