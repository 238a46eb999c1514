/* module.c - pass 3 for the module runtime: write the module's C source.
 *
 * The file's shape is fixed by doc/runtime-api.md: configuration, the
 * runtime, globals, one frame struct per probe body and function (locals and
 * string temporaries live in per-CPU frames, not on the small kernel stack),
 * function and probe bodies, one handler per derived probe, the lifecycle
 * hooks, then runtime_main.h.
 *
 * Expressions are generated as C expressions; whatever must happen first
 * (calls, checked division, array updates, string building) is emitted as
 * statements before the expression that uses their result. SystemTap's left
 * to right evaluation order is kept by spilling an operand into a temporary
 * when a later operand needs statements.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "passes.h"
#include "format.h"
#include "options.h"
#include "probes/provider.h"
#include "regex.h"
#include "target/klines.h"
#include "target/ustack.h"
#include "elaborate/tvars.h"
#include "session.h"
#include "translate/translate.h"
#include "translate/module/lowered_c.h"
#include "translate/module/module.h"

struct gen {
	struct session *s;
	struct strbuf *out;        /* statements of the current C function */
	struct strbuf *frame;      /* fields of the current frame struct */
	struct strbuf *cdecl;      /* C locals of the current function */
	int ntemps;
	int indent;
	const char *err_label;     /* where a failed operation jumps */
	int labels;
	VEC(int) loops;            /* label numbers of enclosing loops */
	struct func *func;         /* current function, or NULL in a probe */
	const char *maxaction;     /* STP_MAXACTION or MAXACTION_INTERRUPTIBLE */
	const struct derived_probe *dp; /* the probe whose body this is, if its own */
	bool in_entry;             /* generating a .return probe's entry handler */
	VEC(const struct expr *) entries; /* values saved at function entry, by slot */
	VEC(const struct sym *) hist_loops; /* aggregates whose buckets enclosing foreachs walk */
};

static void emit(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void emit(struct gen *g, const char *fmt, ...)
{
	va_list ap;

	for (int i = 0; i < g->indent; i++)
		strbuf_addch(g->out, '\t');
	va_start(ap, fmt);
	strbuf_vaddf(g->out, fmt, ap);
	va_end(ap);
	strbuf_addch(g->out, '\n');
}


static char *c_string(const char *s, size_t n)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addch(&sb, '"');
	strbuf_add_cstr_escaped(&sb, s, n);
	strbuf_addch(&sb, '"');
	return strbuf_detach(&sb);
}

static char *near(const char *what, const char *name, struct srcpos pos)
{
	char *text = near_text(what, name, pos);
	char *lit = c_string(text, strlen(text));

	free(text);
	return lit;
}

/* A fresh temporary: longs are C locals, strings live in the frame. */
static char *temp(struct gen *g, enum type t)
{
	int n = g->ntemps++;

	if (t == TYPE_STRING) {
		strbuf_addf(g->frame, "\tchar t%d[MAXSTRINGLEN];\n", n);
		return xasprintf("f->t%d", n);
	}
	strbuf_addf(g->cdecl, "\tint64_t t%d;\n", n);
	return xasprintf("t%d", n);
}

static void check_error(struct gen *g)
{
	emit(g, "if (unlikely(c->last_error)) goto %s;", g->err_label);
}

/* ---- names ---------------------------------------------------------------- */

char *global_cname(const struct sym *v)
{
	if (v->is_private)
		return xasprintf("g%d_%s", v->index, v->name);
	return xasprintf("g_%s", v->name);
}

static char *sym_ref(struct gen *g, const struct sym *v)
{
	switch (v->kind) {
	case SYM_GLOBAL:
		if (v->atomic)
			return xasprintf("((int64_t)atomic64_read(&%s))", global_cname(v));
		return global_cname(v);
	case SYM_PARAM: return xasprintf("f->a_%s", v->name);
	default: return xasprintf("f->l_%s", v->name);
	}
}

/* ---- expressions ------------------------------------------------------------ */

static char *gen_expr(struct gen *g, struct expr *e);
static char *gen_tvar(struct gen *g, struct expr *e);
static char *gen_tvar_write(struct gen *g, struct expr *lhs, enum op_kind op, struct expr *rhs,
			    bool post, struct srcpos pos);
static char *entry_slot(struct gen *g, const struct expr *e);
static void gen_stmt(struct gen *g, struct stmt *st);

/* Generate e into a side buffer; returns the statements it needed (maybe "")
 * and its value expression in *val. */
static char *gen_aside(struct gen *g, struct expr *e, char **val)
{
	struct strbuf side = STRBUF_INIT;
	struct strbuf *saved = g->out;

	g->out = &side;
	*val = gen_expr(g, e);
	g->out = saved;
	return strbuf_detach(&side);
}

/* Keep the value of an already generated operand safe from statements that
 * follow it (a later operand's calls or assignments). */
static char *spill(struct gen *g, char *val, enum type t)
{
	char *tmp = temp(g, t);

	if (t == TYPE_STRING)
		emit(g, "stp_str_assign(%s, %s);", tmp, val);
	else
		emit(g, "%s = %s;", tmp, val);
	return tmp;
}

static bool is_literal(const struct expr *e) { return e->kind == EXPR_NUM || e->kind == EXPR_STR; }

/* Evaluate a list left to right; results valid together afterwards. */
static char **gen_list(struct gen *g, struct expr **es, int n)
{
	char **vals = xcalloc(n ? n : 1, sizeof(char *));

	for (int i = 0; i < n; i++) {
		char *side = gen_aside(g, es[i], &vals[i]);
		if (*side) {
			for (int j = 0; j < i; j++)
				if (!is_literal(es[j]) && es[j]->kind != EXPR_STAR)
					vals[j] = spill(g, vals[j], es[j]->type);
			strbuf_addstr(g->out, side);
		}
		free(side);
	}
	return vals;
}

/* union stp_key kN[n] filled from key expressions */
static char *gen_keys(struct gen *g, struct expr **keys, int n)
{
	char **vals = gen_list(g, keys, n);
	int k = g->ntemps++;

	strbuf_addf(g->cdecl, "\tunion stp_key k%d[%d];\n", k, n ? n : 1);
	for (int i = 0; i < n; i++)
		emit(g, "k%d[%d].%s = %s;", k, i, keys[i]->type == TYPE_STRING ? "s" : "n", vals[i]);
	return xasprintf("k%d", k);
}

/* The keys of a slice a[k, *, ...] as gen_keys makes them, each string
 * copied first (the loop over the slice may change a variable it came
 * from); *wild gets bit i for each '*' (its key is left 0). */
static char *gen_slice_keys(struct gen *g, struct expr **keys, int n, unsigned int *wild)
{
	char **vals = gen_list(g, keys, n);
	int k = g->ntemps++;

	*wild = 0;
	strbuf_addf(g->cdecl, "\tunion stp_key k%d[%d];\n", k, n ? n : 1);
	for (int i = 0; i < n; i++) {
		if (keys[i]->kind == EXPR_STAR) {
			*wild |= 1u << i;
			emit(g, "k%d[%d].n = 0;", k, i);
			continue;
		}
		if (keys[i]->type == TYPE_STRING && !is_literal(keys[i]))
			vals[i] = spill(g, vals[i], TYPE_STRING);
		emit(g, "k%d[%d].%s = %s;", k, i, keys[i]->type == TYPE_STRING ? "s" : "n", vals[i]);
	}
	return xasprintf("k%d", k);
}

/* Whether a[...] names a slice: a '*' among its keys. */
static bool is_slice(const struct expr *e)
{
	for (int i = 0; i < e->args.len; i++)
		if (e->args.items[i]->kind == EXPR_STAR)
			return true;
	return false;
}

/* dst = cur op rhs, for a compound assignment's binary operator and for a
 * checked / or % (a statement, as it can fail). */
static void gen_compound(struct gen *g, const char *dst, const char *cur, enum op_kind op,
			 const char *rhs, struct srcpos pos)
{
	switch (op) {
	case OP_DIV:
	case OP_MOD:
		emit(g, "%s = stp_%s(c, %s, %s, %s);", dst, op == OP_DIV ? "div" : "mod", cur, rhs,
		     near("operator", op_text(op), pos));
		check_error(g);
		break;
	case OP_SHL:
	case OP_SHR:
		emit(g, "%s = stp_sh%c(%s, %s);", dst, op == OP_SHL ? 'l' : 'r', cur, rhs);
		break;
	case OP_ADD:
	case OP_SUB:
	case OP_MUL:
		emit(g, "%s = (int64_t)((u64)(%s) %s (u64)(%s));", dst, cur, op_text(op), rhs);
		break;
	default:
		emit(g, "%s = (%s) %s (%s);", dst, cur, op_text(op), rhs);
		break;
	}
}

/* a op b: && and || short-circuit, longs wrap, / and % are checked */
static char *gen_binary(struct gen *g, struct expr *e)
{
	const char *op = op_text(e->op);
	char *a = gen_expr(g, e->lhs);
	char *bv;
	char *side = gen_aside(g, e->rhs, &bv);

	if (e->op == OP_LAND || e->op == OP_LOR) {
		if (!*side)
			return xasprintf("(!!(%s) %s !!(%s))", a, op, bv);
		char *t = temp(g, TYPE_LONG);
		bool and = e->op == OP_LAND;
		emit(g, "%s = %s;", t, and ? "0" : "1");
		emit(g, "if (%s(%s)) {", and ? "" : "!", a);
		strbuf_addstr(g->out, side);
		emit(g, "\t%s = !!(%s);", t, bv);
		emit(g, "}");
		return t;
	}
	if (*side && !is_literal(e->lhs))
		a = spill(g, a, e->lhs->type);
	strbuf_addstr(g->out, side);
	if (e->op == OP_CAT) {
		char *t = temp(g, TYPE_STRING);
		emit(g, "stp_str_assign(%s, %s);", t, a);
		emit(g, "stp_str_append(%s, %s);", t, bv);
		return t;
	}
	if (e->lhs->type == TYPE_STRING)   /* string comparison */
		return xasprintf("(strcmp(%s, %s) %s 0)", a, bv, op);
	switch (e->op) {
	case OP_DIV:
	case OP_MOD: {   /* checked: a statement */
		char *t = temp(g, TYPE_LONG);
		gen_compound(g, t, a, e->op, bv, e->pos);
		return t;
	}
	case OP_SHL:
		return xasprintf("stp_shl(%s, %s)", a, bv);
	case OP_SHR:
		return xasprintf("stp_shr(%s, %s)", a, bv);
	case OP_USHR:
		return xasprintf("stp_ushr(%s, %s)", a, bv);
	case OP_ADD:
	case OP_SUB:
	case OP_MUL:   /* wrap, no UB */
		return xasprintf("((int64_t)((u64)(%s) %s (u64)(%s)))", a, op, bv);
	default:
		return xasprintf("((int64_t)((%s) %s (%s)))", a, op, bv);
	}
}

/* The C operator ++ and -- step by: '+' or '-'. */
static char step_sign(enum op_kind op)
{
	return op == OP_INC ? '+' : '-';
}

/* if (cond) fail with run-time error msg near `where` (both C literals). */
static void emit_fail(struct gen *g, const char *cond, const char *msg, const char *where)
{
	emit(g, "if (unlikely(%s)) {", cond);
	emit(g, "\tc->last_error = %s;", msg);
	emit(g, "\tc->last_stmt = %s;", where);
	emit(g, "\tgoto %s;", g->err_label);
	emit(g, "}");
}

static void overflow_check(struct gen *g, const char *entry, struct expr *arr)
{
	char *msg = arr->sym && arr->sym->max_entries ?
		xasprintf("\"Array overflow, check size limit (%lld)\"", (long long)arr->sym->max_entries) :
		xstrdup("\"Array overflow, check MAXMAPENTRIES\"");

	emit_fail(g, xasprintf("!%s", entry), msg, near("identifier", arr->name, arr->pos));
}

/* The merged record of an aggregate operand (a global or an array element),
 * as a `struct stp_stat *` expression. */
static char *gen_stat_record(struct gen *g, struct expr *x)
{
	char *n = global_cname(x->sym);
	int k = g->ntemps++;

	strbuf_addf(g->cdecl, "\tstruct stp_stat *st%d;\n", k);
	if (x->kind == EXPR_INDEX) {
		char *keys = gen_keys(g, x->args.items, x->args.len);
		emit(g, "st%d = stp_pmap_get(%s, %s);", k, n, keys);
	} else {
		emit(g, "st%d = stp_pstat_get(%s);", k, n);
	}
	return xasprintf("st%d", k);
}

/* x <<< v: into this CPU's record only. */
static char *gen_stat_add(struct gen *g, struct expr *e)
{
	struct expr *x = e->lhs;
	char *n = global_cname(x->sym);
	char *keys = x->kind == EXPR_INDEX ? gen_keys(g, x->args.items, x->args.len) : NULL;
	char *v;
	char *side = gen_aside(g, e->rhs, &v);

	strbuf_addstr(g->out, side);
	if (!keys) {
		emit(g, "stp_pstat_add(%s, %s);", n, v);
		return v;
	}
	int k = g->ntemps++;
	strbuf_addf(g->cdecl, "\tstruct stp_stat *st%d;\n", k);
	if (x->args.len == 1 && x->args.items[0]->type == TYPE_STRING)   /* no loops over key types */
		emit(g, "st%d = stp_pmap_cpu_stat_s(%s, %s[0].s);", k, n, keys);
	else
		emit(g, "st%d = stp_pmap_cpu_stat(%s, %s);", k, n, keys);
	char *ent = xasprintf("st%d", k);
	overflow_check(g, ent, x);
	emit(g, "stp_stat_add(st%d, &%s_desc, %s);", k, n, v);
	return v;
}

/* @count(x) @sum @min @max @avg @variance */
static char *gen_statop(struct gen *g, struct expr *e)
{
	char *st = gen_stat_record(g, e->lhs);
	const char *op = e->name;

	if (e->statop == SO_COUNT || e->statop == SO_SUM)
		return xasprintf("%s->%s", st, op);
	emit_fail(g, xasprintf("%s->count == 0", st), "\"empty aggregate\"",
		  near("operator", xasprintf("@%s", op), e->pos));
	if (e->statop == SO_VARIANCE)
		return xasprintf("stp_stat_variance(%s, &%s_desc)", st, global_cname(e->lhs->sym));
	return xasprintf("%s->%s", st, op);
}

/* @hist_log(s)[i] / @hist_linear(s, ...)[i]: the count of bucket i, an
 * error outside SystemTap's bucket numbers. */
static char *gen_hist_index(struct gen *g, struct expr *e)
{
	struct expr *h = e->lhs;
	char *i = temp(g, TYPE_LONG);

	emit(g, "%s = %s;", i, gen_expr(g, e->args.items[0]));
	char *st = gen_stat_record(g, h->lhs);
	bool walked = false;   /* inside a foreach over its buckets, empty is fine (all 0) */
	for (int k = 0; k < g->hist_loops.len; k++)
		walked |= g->hist_loops.items[k] == h->lhs->sym;
	if (!walked)
		emit_fail(g, xasprintf("%s->count == 0", st), "\"empty aggregate\"",
			  near("operator", xasprintf("@%s", h->name), h->pos));
	emit_fail(g, xasprintf("%s < 0 || %s >= stp_hist_nbuckets(&%s_desc)", i, i, global_cname(h->lhs->sym)),
		  "\"histogram index out of range\"", near("operator", xasprintf("@%s", h->name), h->pos));
	return xasprintf("%s->buckets[%s]", st, i);
}

/* An update (lhs OP= rhs, ++, --) as pass 2 lowered it (lowered.h's struct
 * lupdate): of a target variable, an array element or a scalar. */
static char *gen_update(struct gen *g, struct expr *e)
{
	const struct lupdate *u = e->upd;
	struct expr *lhs = e->lhs, *rhs = u->how == LU_STEP ? NULL : e->rhs;
	enum type t = lhs->type;
	enum op_kind op = e->op;
	struct srcpos pos = e->pos;
	char *rv = NULL;

	if (u->home == LU_TARGET)
		return gen_tvar_write(g, lhs, op, rhs, u->post, pos);
	if (u->home == LU_ELEMENT) {
		struct expr **ks = lhs->args.items;
		char *keys = gen_keys(g, ks, lhs->args.len);
		if (rhs) {
			char *side = gen_aside(g, rhs, &rv);
			strbuf_addstr(g->out, side);
			if (*side && !is_literal(rhs))
				rv = spill(g, rv, rhs->type);
		}
		char *m = global_cname(lhs->sym);
		char *ent = xasprintf("e%d", g->ntemps++);
		strbuf_addf(g->cdecl, "\tstruct stp_map_entry *%s;\n", ent);
		emit(g, "%s = stp_map_insert(%s, %s);", ent, m, keys);
		overflow_check(g, ent, lhs);
		char *res = temp(g, t);
		if (u->string) {
			if (u->how == LU_SET)
				emit(g, "stp_str_assign(%s, %s);", res, rv);
			else {   /* .= */
				emit(g, "stp_str_assign(%s, stp_entry_str(%s, %s));", res, m, ent);
				emit(g, "stp_str_append(%s, %s);", res, rv);
			}
			emit(g, "stp_entry_set_str(%s, %s, %s);", m, ent, res);
			return res;
		}
		char *cur = xasprintf("stp_entry_long(%s, %s)", m, ent);
		if (u->how == LU_SET)
			emit(g, "%s = %s;", res, rv);
		else if (u->how == LU_STEP) {
			emit(g, "%s = %s;", res, cur);
			emit(g, "stp_entry_set_long(%s, %s, (int64_t)((u64)%s %c 1));", m, ent, res, step_sign(op));
			if (!u->post)
				emit(g, "%s = (int64_t)((u64)%s %c 1);", res, res, step_sign(op));
			return res;
		} else {
			gen_compound(g, res, cur, op, rv, pos);
		}
		emit(g, "stp_entry_set_long(%s, %s, %s);", m, ent, res);
		return res;
	}

	/* scalar */
	char *v = sym_ref(g, lhs->sym);
	if (rhs) {
		char *side = gen_aside(g, rhs, &rv);
		strbuf_addstr(g->out, side);
	}
	if (u->string) {
		if (u->how == LU_SET)
			emit(g, "stp_str_assign(%s, %s);", v, rv);
		else
			emit(g, "stp_str_append(%s, %s);", v, rv);
		return v;
	}
	if (u->how == LU_STEP) {
		if (u->post) {
			char *res = temp(g, TYPE_LONG);
			emit(g, "%s = %s;", res, v);
			emit(g, "%s = (int64_t)((u64)%s %c 1);", v, v, step_sign(op));
			return res;
		}
		emit(g, "%s = (int64_t)((u64)%s %c 1);", v, v, step_sign(op));
		return v;
	}
	if (u->how == LU_SET)
		emit(g, "%s = %s;", v, rv);
	else
		gen_compound(g, v, v, op, rv, pos);
	return v;
}

/* print family and sprintf: fill a stp_val array for stp_format */
static char *gen_vals(struct gen *g, struct expr **args, int n)
{
	char **vals = gen_list(g, args, n);
	int k = g->ntemps++;

	strbuf_addf(g->cdecl, "\tunion stp_val v%d[%d];\n", k, n ? n : 1);
	for (int i = 0; i < n; i++)
		emit(g, "v%d[%d].%s = %s;", k, i, args[i]->type == TYPE_STRING ? "s" : "n", vals[i]);
	return xasprintf("v%d", k);
}

/* A format with no conversions but %% prints as a plain string. */
static char *plain_format(const struct expr *f)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < f->str_len; i++) {
		if (f->str[i] != '%') {
			strbuf_addch(&sb, f->str[i]);
			continue;
		}
		if (i + 1 < f->str_len && f->str[i + 1] == '%') {
			strbuf_addch(&sb, '%');
			i++;
			continue;
		}
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}

static char *gen_print(struct gen *g, struct expr *e)
{
	const struct print_kind *k = e->print;
	const char *n = e->name;
	int nargs = e->args.len;
	struct expr **args = e->args.items;

	if (k->formatted) {
		char *fmt = c_string(args[0]->str, args[0]->str_len);
		char *plain = nargs == 1 ? plain_format(args[0]) : NULL;
		if (!k->to_string && plain) {
			emit(g, "stp_print_str(c, %s);", c_string(plain, strlen(plain)));
			return NULL;
		}
		char *vals = gen_vals(g, args + 1, nargs - 1);
		bool faults = format_reads_memory(args[0]);
		char *t = k->to_string ? temp(g, TYPE_STRING) : NULL;
		if (faults)
			emit(g, "c->last_stmt = %s;", near("identifier", e->name, e->pos));
		if (t)
			emit(g, "stp_sprintf(c, %s, %s, %d, %s);", t, fmt, nargs - 1, vals);
		else
			emit(g, "stp_printf(c, %s, %d, %s);", fmt, nargs - 1, vals);
		if (faults)   /* a read fault ends the probe */
			check_error(g);
		return t;
	}
	/* print, println, printd, printdln and their s- forms */
	bool to_str = k->to_string, delim = k->delim, ln = k->newline;
	char **vals = gen_list(g, args, nargs);
	char *t = to_str ? temp(g, TYPE_STRING) : NULL;
	char *num = NULL;

	if (to_str)
		emit(g, "%s[0] = '\\0';", t);
	for (int i = delim ? 1 : 0; i < nargs; i++) {
		if (args[i]->kind == EXPR_HIST) {   /* no values: an error, as in SystemTap */
			char *st = gen_stat_record(g, args[i]->lhs);
			emit_fail(g, xasprintf("%s->count == 0", st), "\"empty aggregate\"",
				  near("identifier", n, e->pos));
			emit(g, "stp_stat_print_hist(c, %s, %s, &%s_desc);", to_str ? t : "NULL", st,
			     global_cname(args[i]->lhs->sym));
			continue;
		}
		if (delim && i > 1) {
			if (to_str)
				emit(g, "stp_str_append(%s, %s);", t, vals[0]);
			else
				emit(g, "stp_print_str(c, %s);", vals[0]);
		}
		if (args[i]->type == TYPE_STRING) {
			if (to_str)
				emit(g, "stp_str_append(%s, %s);", t, vals[i]);
			else
				emit(g, "stp_print_str(c, %s);", vals[i]);
		} else if (to_str) {
			if (!num)
				num = temp(g, TYPE_STRING);
			emit(g, "stp_str_append(%s, stp_str_long(%s, %s));", t, num, vals[i]);
		} else {
			emit(g, "stp_print_long(c, %s);", vals[i]);
		}
	}
	if (ln) {
		if (to_str)
			emit(g, "stp_str_append(%s, \"\\n\");", t);
		else
			emit(g, "stp_print_str(c, \"\\n\");");
	}
	return t;
}

/* A tapset function of no arguments whose embedded C says / * pragma:strvalue=EXPR * /
 * returns the string at C expression EXPR, unchanged while a probe handler
 * runs (execname(): current->comm). Its calls use EXPR in place: no call,
 * no frame, no copy (a hot key such as a[execname()] is hashed in place). */
static const char *inline_value(const struct func *f)
{
	static const char tag[] = "pragma:strvalue=";

	if (!f || !f->embedded || f->params.len || f->ret != TYPE_STRING || !f->file || !f->file->is_tapset)
		return NULL;
	for (int i = 0; i < f->pragmas.len; i++)
		if (!strncmp(f->pragmas.items[i], tag, sizeof(tag) - 1) && f->pragmas.items[i][sizeof(tag) - 1])
			return f->pragmas.items[i] + sizeof(tag) - 1;
	return NULL;
}

static char *gen_call(struct gen *g, struct expr *e)
{
	struct func *f = e->func;

	if (!f)
		return gen_print(g, e);
	if (inline_value(f))
		return xasprintf("(%s)", inline_value(f));
	char **vals = gen_list(g, e->args.items, e->args.len);
	int k = g->ntemps++;
	strbuf_addf(g->cdecl, "\tstruct fr_f%d *nf%d;\n", f->index, k);
	/* (the callee checks the depth: nesting_check; its frame, one past
	 * the deepest, exists: runtime/context.h) */
	emit(g, "nf%d = (struct fr_f%d *)(c->frames + (c->nesting + 1) * STP_FRAME_SIZE);", k, f->index);
	for (int i = 0; i < e->args.len; i++) {
		struct sym *p = f->params.items[i];
		if (p->type == TYPE_STRING)
			emit(g, "stp_str_assign(nf%d->a_%s, %s);", k, p->name, vals[i]);
		else
			emit(g, "nf%d->a_%s = %s;", k, p->name, vals[i]);
	}
	emit(g, "c->last_stmt = %s;", near("identifier", f->name, e->pos));
	emit(g, "c->nesting++;");
	if (f->in_context)   /* the copy for this probe (context_funcs.c) */
		emit(g, "fn_%d_p%d(c);", f->index, g->dp ? g->dp->index : -1);
	else
		emit(g, "fn_%d(c);", f->index);
	emit(g, "c->nesting--;");
	check_error(g);
	if (f->ret == TYPE_VOID || f->ret == TYPE_UNKNOWN)
		return NULL;
	char *t = temp(g, f->ret);
	if (f->ret == TYPE_STRING)
		emit(g, "stp_str_assign(%s, nf%d->ret);", t, k);
	else
		emit(g, "%s = nf%d->ret;", t, k);
	return t;
}

static char *gen_ternary(struct gen *g, struct expr *e)
{
	int live = tvars_static_cond(g->s, g->dp, e->args.items[0]);

	if (live >= 0)   /* @defined($x) ? $x : 0 */
		return gen_expr(g, e->args.items[live ? 1 : 2]);
	char *cond = gen_expr(g, e->args.items[0]);
	char *a, *b;
	char *sa = gen_aside(g, e->args.items[1], &a);
	char *sb = gen_aside(g, e->args.items[2], &b);

	if (!a || !b) {   /* c ? printf(...) : printf(...): run for their effect only */
		emit(g, "if (%s) {", cond);
		strbuf_addstr(g->out, sa);
		emit(g, "} else {");
		strbuf_addstr(g->out, sb);
		emit(g, "}");
		return xstrdup("0");
	}
	if (!*sa && !*sb && e->type != TYPE_STRING)
		return xasprintf("((%s) ? (%s) : (%s))", cond, a, b);
	if (!*sa && !*sb)
		return xasprintf("((%s) ? (const char *)(%s) : (const char *)(%s))", cond, a, b);
	char *t = temp(g, e->type);
	const char *set = e->type == TYPE_STRING ? "stp_str_assign(%s, %s);" : "%s = %s;";
	emit(g, "if (%s) {", cond);
	strbuf_addstr(g->out, sa);
	strbuf_addch(g->out, '\t');
	emit(g, set, t, a);
	emit(g, "} else {");
	strbuf_addstr(g->out, sb);
	strbuf_addch(g->out, '\t');
	emit(g, set, t, b);
	emit(g, "}");
	return t;
}

/* s =~ "re" / s !~ "re": runs the program pass 2 compiled (gen_regex_tables). */
static char *gen_regex(struct gen *g, struct expr *e)
{
	const struct regex_prog *re = e->regex;
	char *s = gen_expr(g, e->lhs);
	char *t = temp(g, TYPE_LONG);

	emit(g, "c->last_stmt = %s;", near("operator", op_text(e->op), e->pos));
	emit(g, "%s = %sstp_regex_match(c, re_%d, re_%d_cls, %d, %s);", t, e->op == OP_REGEX_NOMATCH ? "!" : "",
	     re->id, re->id, re->ngroups, s);
	check_error(g);
	return t;
}

/* The programs of every =~ / !~, once each, before the bodies using them. */
static void gen_regex_tables(struct session *s, struct strbuf *out)
{
	for (int i = 0; i < s->regexes.len; i++) {
		const struct regex_prog *re = s->regexes.items[i];
		strbuf_addf(out, "static const struct stp_re_insn re_%d[] = {\n%s};\n", re->id, re->insns.buf);
		strbuf_addf(out, "static const unsigned char re_%d_cls[][32] = {\n%s\t{ 0 }\n};\n", re->id,
			    re->classes.len ? re->classes.buf : "");
	}
}

static char *gen_expr(struct gen *g, struct expr *e)
{
	switch (e->kind) {
	case EXPR_REGEX:
		return gen_regex(g, e);
	case EXPR_PERF:   /* the value read when the probe hit (runtime/perf.h) */
		return xasprintf("((int64_t)stp_perf_counter_value(%lld))", (long long)e->num);
	case EXPR_NUM:
		if (e->num == INT64_MIN)
			return xstrdup("((int64_t)(-9223372036854775807LL - 1))");
		return xasprintf("((int64_t)%lldLL)", (long long)e->num);
	case EXPR_STR:
		return c_string(e->str, e->str_len);
	case EXPR_VAR:
		return sym_ref(g, e->sym);
	case EXPR_INDEX: {
		if (!e->name)
			return gen_hist_index(g, e);
		char *keys = gen_keys(g, e->args.items, e->args.len);
		return xasprintf("stp_map_get_%s(%s, %s)", e->type == TYPE_STRING ? "str" : "long",
				 global_cname(e->sym), keys);
	}
	case EXPR_IN: {
		if (e->lhs && e->lhs->kind == EXPR_HIST)   /* i in @hist_log(s): bucket i's count, as SystemTap */
			return xasprintf("((int64_t)%s)", gen_hist_index(g, e));
		const char *kind = e->sym->type == TYPE_STATS ? "pmap" : "map";
		if (is_slice(e)) {
			unsigned int wild;
			char *keys = gen_slice_keys(g, e->args.items, e->args.len, &wild);
			return xasprintf("((int64_t)stp_%s_exists_slice(%s, %s, 0x%xu))", kind,
					 global_cname(e->sym), keys, wild);
		}
		char *keys = gen_keys(g, e->args.items, e->args.len);
		return xasprintf("((int64_t)stp_%s_exists(%s, %s))", kind, global_cname(e->sym), keys);
	}
	case EXPR_STAR:   /* a slice's '*': its key is not compared */
		return xstrdup("((int64_t)0)");
	case EXPR_CALL:
		return gen_call(g, e);
	case EXPR_UNARY: {
		char *a = gen_expr(g, e->lhs);
		if (e->op == OP_NEG)
			return xasprintf("((int64_t)(0 - (u64)(%s)))", a);
		if (e->op == OP_PLUS)
			return a;
		return xasprintf("((int64_t)(%s(%s)))", op_text(e->op), a);
	}
	case EXPR_BINARY:
		return gen_binary(g, e);
	case EXPR_ASSIGN:
		if (e->upd->how == LU_STAT_ADD)
			return gen_stat_add(g, e);
		return gen_update(g, e);
	case EXPR_STATOP:
		return gen_statop(g, e);
	case EXPR_HIST:   /* printed by gen_print; pass 2 refuses it elsewhere */
		return xstrdup("0");
	case EXPR_PREINC:
	case EXPR_POSTINC:
		return gen_update(g, e);
	case EXPR_TERNARY:
		return gen_ternary(g, e);
	case EXPR_EMBEDDED:
		return xasprintf("((int64_t)(%s))", e->str);
	case EXPR_TARGET:
	case EXPR_CAST:
	case EXPR_ATVAR:
	case EXPR_ADDROF:
		if (e->kind == EXPR_ADDROF && e->lhs->kind != EXPR_TARGET && e->lhs->kind != EXPR_CAST &&
		    e->lhs->kind != EXPR_ATVAR)
			break;
		return gen_tvar(g, e);
	case EXPR_DEFINED: {
		const struct tvar *tv = tvar_find(g->s, g->dp, e);
		return xstrdup(tv && tv->defined ? "((int64_t)1)" : "((int64_t)0)");
	}
	case EXPR_CHOOSE: {
		const struct tvar *tv = tvar_find(g->s, g->dp, e);
		return gen_expr(g, e->args.items[tv && tv->defined ? 0 : 1]);
	}
	case EXPR_ENTRY:
		if (g->in_entry || !g->dp || !g->dp->has_entry)
			return gen_expr(g, e->lhs);
		return entry_slot(g, e);
	default:
		break;
	}
	{
		diag(g->s, T_INTERNAL, e->pos, "cannot translate this expression yet");
		return xstrdup("0");
	}
}

/* ---- target variables ---------------------------------------------------------- */

/* The C of a value saved when the function was entered (.return probes). */
static char *entry_slot(struct gen *g, const struct expr *e)
{
	int k;

	for (k = 0; k < g->entries.len && g->entries.items[k] != e; k++)
		;
	if (k == g->entries.len)
		vec_push(&g->entries, e);
	return xasprintf("(((struct entry_d%d *)c->entry_data)->v%d)", g->dp->index, k);
}

/* The module's functions printing structs that pretty-printed values
 * call (stp_pp_<n>, LP_STRUCT's bodies, the struct at b_ into sb_): a full
 * string takes no more text, the reads are skipped. */
static void gen_struct_printers(struct session *s, struct strbuf *out)
{
	const lpvec *const *bodies;
	int n = tvars_struct_printers(s, &bodies);

	for (int i = 0; i < n; i++)
		strbuf_addf(out, "static noinline __maybe_unused void stp_pp_%d(struct stp_context *c, struct stp_sb *sb_, int64_t b_);\n", i);
	for (int i = 0; i < n; i++) {
		strbuf_addf(out, "static noinline __maybe_unused void stp_pp_%d(struct stp_context *c, struct stp_sb *sb_, int64_t b_)\n{\n"
			    "\tif (stp_sb_full(sb_))\n\t\treturn;\n", i);
		lp_to_c(out, bodies[i], "sb_", NULL, NULL, 0);
		strbuf_addstr(out, "}\n");
	}
}

/* The operands of a target expression, in order: @cast's pointer
 * (LX_PTR) first, then the chain's [index] values (LX_INDEX). */
struct tvar_ops {
	char **vals;
	int n;
	const char *ptr;   /* LX_PTR, or NULL */
	char **idx;        /* LX_INDEX n */
	int nidx;
};

static void gen_tvar_ops(struct gen *g, struct expr *te, struct tvar_ops *o)
{
	struct expr **ops;
	bool ptr;

	o->n = tvar_operands(te, &ops, &ptr);
	o->vals = gen_list(g, ops, o->n);
	o->ptr = ptr ? o->vals[0] : NULL;
	o->idx = o->vals + ptr;
	o->nidx = o->n - ptr;
	free(ops);
}

/* c->last_stmt for a read fault in te: "identifier '$x'", "operator '@cast'" */
static void tvar_near(struct gen *g, const struct expr *te)
{
	emit(g, "c->last_stmt = %s;", near(te->kind == EXPR_TARGET ? "identifier" : "operator",
					   te->kind == EXPR_TARGET ? te->name : te->kind == EXPR_CAST ? "@cast" : "@var",
					   te->pos));
}

/* $x = v, $p->f += v, $x++ ... (guru mode, checked in pass 2): read the
 * current value if the operator needs it, then store into the value's
 * home, memory or the probe's saved registers. */
static char *gen_tvar_write(struct gen *g, struct expr *lhs, enum op_kind op, struct expr *rhs,
			    bool post, struct srcpos pos)
{
	const struct tvar *tv = tvar_find(g->s, g->dp, lhs);
	struct tvar_ops o;
	char *rv = NULL;

	if (!tv || tv->kind != TV_VALUE || tv->at_entry || (!tv->addr && tv->reg < 0)) {
		diag(g->s, E_TARGET_VAR, lhs->pos, "this target expression cannot be written (a value saved at entry, a pretty-printed one, or one without a home)");
		return xstrdup("0");
	}
	gen_tvar_ops(g, lhs, &o);
	for (int i = 0; i < o.n; i++)   /* safe from the right-hand side's statements */
		o.vals[i] = spill(g, o.vals[i], TYPE_LONG);
	o.ptr = lhs->kind == EXPR_CAST ? o.vals[0] : NULL;
	o.idx = o.vals + (lhs->kind == EXPR_CAST);
	if (rhs) {
		char *side = gen_aside(g, rhs, &rv);
		strbuf_addstr(g->out, side);
	}
	tvar_near(g, lhs);
	char *res = temp(g, TYPE_LONG);
	char *cur = NULL;
	if (op != OP_ASSIGN) {
		cur = temp(g, TYPE_LONG);
		emit(g, "%s = %s;", cur, lx_to_c(tv->value, o.ptr, o.idx, o.nidx));
		check_error(g);
	}
	char *ret = res;
	if (op == OP_ASSIGN) {
		emit(g, "%s = %s;", res, rv);
	} else if (op == OP_INC || op == OP_DEC) {
		emit(g, "%s = (int64_t)((u64)%s %c 1);", res, cur, step_sign(op));
		if (post)
			ret = cur;
	} else {
		gen_compound(g, res, cur, op, rv, pos);
	}
	if (tv->addr) {
		emit(g, "stp_kwrite(c, %s, %d, (u64)%s);", lx_to_c(tv->addr, o.ptr, o.idx, o.nidx),
		     tv->size > 0 ? tv->size : 8, res);
	} else {
		emit(g, "{ unsigned long *r_ = stp_dwarf_reg_slot(c, %d); if (r_) *r_ = (unsigned long)%s; }",
		     tv->reg, res);
	}
	check_error(g);
	return ret;
}

static char *gen_tvar(struct gen *g, struct expr *e)
{
	struct expr *te = e->kind == EXPR_ADDROF ? e->lhs : e;
	const struct tvar *tv = tvar_find(g->s, g->dp, e);
	struct tvar_ops o;

	if (!tv) {
		diag(g->s, T_INTERNAL, e->pos, "target expression not resolved for this probe");
		return xstrdup("0");
	}
	if (tv->at_entry && !g->in_entry)
		return entry_slot(g, e);
	gen_tvar_ops(g, te, &o);
	tvar_near(g, te);
	if (tv->kind == TV_PRETTY) {
		char *t = temp(g, TYPE_STRING);
		emit(g, "%s[0] = '\\0';", t);
		emit(g, "{ struct stp_sb sb_ = { %s, 0 };", t);
		lp_to_c(g->out, tv->pretty, "&sb_", o.ptr, o.idx, o.nidx);
		emit(g, "}");
		check_error(g);
		return t;
	}
	char *t = temp(g, TYPE_LONG);
	char *code = lx_to_c(tv->value, o.ptr, o.idx, o.nidx);
	emit(g, "%s = %s;", t, code);
	free(code);
	check_error(g);
	return t;
}

/* ---- lock-free counters ------------------------------------------------------ */

/* A bump statement of a global that pass 2 made a lock-free counter is one
 * atomic64 operation. */
static bool gen_atomic_bump(struct gen *g, struct expr *e)
{
	struct sym *v = bumped_global(e);

	if (!v || !v->atomic)
		return false;
	char *n = global_cname(v);
	if (e->kind == EXPR_PREINC || e->kind == EXPR_POSTINC) {
		emit(g, "atomic64_%s(&%s);", e->op == OP_INC ? "inc" : "dec", n);
		return true;
	}
	char *val;
	char *side = gen_aside(g, e->rhs, &val);
	strbuf_addstr(g->out, side);
	emit(g, "atomic64_%s(%s, &%s);", e->op == OP_ADD ? "add" : "sub", val, n);
	return true;
}

/* ---- statements ------------------------------------------------------------- */

static int new_label(struct gen *g) { return g->labels++; }

static void gen_block(struct gen *g, struct stmt *st)
{
	if (!st)
		return;
	if (st->kind != STMT_BLOCK) {
		gen_stmt(g, st);
		return;
	}
	for (int i = 0; i < st->stmts.len; i++)
		gen_stmt(g, st->stmts.items[i]);
}

static char *stmt_near(const struct stmt *st)
{
	char *text = stmt_near_text(st);
	char *lit = c_string(text, strlen(text));

	free(text);
	return lit;
}

/* MAXACTION: every statement executed counts one, and so does every round
 * of a loop (gen_loop_body), as in SystemTap. */
static void gen_action_check(struct gen *g, const struct stmt *st)
{
	if (g->s->no_time_limits)   /* --suppress-time-limits */
		return;
	emit_fail(g, xasprintf("++c->actions > %s", g->maxaction), "\"MAXACTION exceeded\"", stmt_near(st));
}

/* A loop's body as loop `l`: break and continue inside it jump to its labels;
 * `continue` lands after the body, where the caller continues. A round that
 * ends normally counts one action more, named by the body as SystemTap
 * names it (a body with no statement counts at the top of the round). */
static void gen_loop_body(struct gen *g, struct stmt *st, int l)
{
	vec_push(&g->loops, l);
	emit(g, "{");
	g->indent++;
	gen_block(g, st->body);
	if (has_statements(st->body))
		gen_action_check(g, st->body);
	g->indent--;
	emit(g, "}");
	g->loops.len--;
	emit(g, "cont_%d: __attribute__((unused));", l);
}

/* while / for: cond is re-evaluated each round; continue runs the step. */
static void gen_loop(struct gen *g, struct stmt *st)
{
	int l = new_label(g);

	if (st->init) {
		char *v = gen_expr(g, st->init);
		if (v)
			emit(g, "(void)(%s);", v);
	}
	emit(g, "for (;;) {");
	g->indent++;
	if (!has_statements(st->body))
		gen_action_check(g, st);
	if (st->expr) {
		char *cond = gen_expr(g, st->expr);
		emit(g, "if (!(%s))", cond);
		emit(g, "\tbreak;");
	}
	gen_loop_body(g, st, l);
	if (st->step) {
		char *v = gen_expr(g, st->step);
		if (v)
			emit(g, "(void)(%s);", v);
	}
	g->indent--;
	emit(g, "}");
	emit(g, "brk_%d: __attribute__((unused));", l);
}

/* The end of a foreach: the body as loop `l` (continue/break labels), and
 * the closing of the loop the caller opened. */
static void gen_foreach_tail(struct gen *g, struct stmt *st, int l)
{
	gen_loop_body(g, st, l);
	g->indent--;
	emit(g, "}");
	emit(g, "brk_%d: __attribute__((unused));", l);
}

/* foreach ([v =] b in @hist_log(s)): every bucket number in order, empty
 * ones too, as SystemTap 4.8 does (it ignores a sort direction here); v is
 * the bucket's count. */
static void gen_foreach_hist(struct gen *g, struct stmt *st)
{
	struct sym *a = st->array->sym;
	int l = new_label(g);
	char *lim = NULL;
	char *b = temp(g, TYPE_LONG);

	if (st->limit) {
		lim = temp(g, TYPE_LONG);
		emit(g, "%s = %s;", lim, gen_expr(g, st->limit));
	}
	emit(g, "for (%s = 0; %s < stp_hist_nbuckets(&%s_desc); %s++) {", b, b, global_cname(a), b);
	g->indent++;
	if (!has_statements(st->body))
		gen_action_check(g, st);
	if (lim) {
		emit(g, "if (%s >= %s)", b, lim);
		emit(g, "\tbreak;");
	}
	emit(g, "%s = %s;", sym_ref(g, st->keys.items[0]->sym), b);
	if (st->value)
		emit(g, "%s = %s->buckets[%s];", sym_ref(g, st->value->sym),
		     gen_stat_record(g, st->array->lhs), b);
	vec_push(&g->hist_loops, a);
	gen_foreach_tail(g, st, l);
	g->hist_loops.len--;
}

static void gen_foreach(struct gen *g, struct stmt *st)
{
	struct sym *a = st->array->sym;
	char *m = global_cname(a);
	int l = new_label(g);
	char *lim = NULL, *cnt = NULL;

	if (st->array->kind == EXPR_HIST) {
		gen_foreach_hist(g, st);
		return;
	}

	if (a->type == TYPE_STATS) {   /* walk the merge of every CPU's map */
		emit_fail(g, xasprintf("stp_pmap_aggregate(%s) < 0", m), "\"Array overflow, check MAXMAPENTRIES\"",
			  near("identifier", a->name, st->array->pos));
		if (st->sort_dir) {
			static const char *const subs[] = {
				[SO_COUNT] = "STP_STAT_SORT_COUNT", [SO_SUM] = "STP_STAT_SORT_SUM",
				[SO_MIN] = "STP_STAT_SORT_MIN", [SO_MAX] = "STP_STAT_SORT_MAX",
				[SO_AVG] = "STP_STAT_SORT_AVG", [SO_VARIANCE] = "STP_STAT_SORT_COUNT",
			};
			const char *sub = subs[st->sort_op];
			emit(g, "stp_pmap_sort(%s, %d, %s, %d);", m, st->sort_column, sub, st->sort_dir);
		}
		m = xasprintf("%s->agg", m);
		if (st->value)
			diag(g->s, E_STATS, st->value->pos, "foreach cannot take the value of an aggregate");
	}

	if (st->limit) {
		lim = temp(g, TYPE_LONG);
		emit(g, "%s = %s;", lim, gen_expr(g, st->limit));
		cnt = temp(g, TYPE_LONG);
		emit(g, "%s = 0;", cnt);
	}
	if (st->sort_dir && a->type != TYPE_STATS)
		emit(g, "stp_map_sort(%s, %d, %d);", m, st->sort_column, st->sort_dir);
	/* a slice's keys are evaluated once, after the limit */
	char *slice = NULL;
	unsigned int wild = 0;
	if (st->array->kind == EXPR_INDEX)
		slice = gen_slice_keys(g, st->array->args.items, st->array->args.len, &wild);
	char *ent = xasprintf("e%d", g->ntemps++);
	strbuf_addf(g->cdecl, "\tstruct stp_map_entry *%s;\n", ent);
	emit(g, "for (%s = stp_map_first(%s); %s; %s = stp_map_next(%s, %s)) {", ent, m, ent, ent, m, ent);
	g->indent++;
	if (!has_statements(st->body))
		gen_action_check(g, st);
	if (lim) {
		emit(g, "if (%s++ >= %s)", cnt, lim);
		emit(g, "\tbreak;");
	}
	/* as SystemTap 4.8, the limit counts the elements the slice skips too */
	if (slice) {
		emit(g, "if (!stp_map_entry_matches(%s, %s, %s, 0x%xu))", m, ent, slice, wild);
		emit(g, "\tcontinue;");
	}
	for (int i = 0; i < st->keys.len; i++) {
		struct sym *k = st->keys.items[i]->sym;
		char *kv = sym_ref(g, k);
		if (k->type == TYPE_STRING)
			emit(g, "stp_str_assign(%s, stp_entry_key_str(%s, %s, %d));", kv, m, ent, i);
		else
			emit(g, "%s = stp_entry_key_long(%s, %s, %d);", kv, m, ent, i);
	}
	if (st->value) {
		char *vv = sym_ref(g, st->value->sym);
		if (a->type == TYPE_STRING)
			emit(g, "stp_str_assign(%s, stp_entry_str(%s, %s));", vv, m, ent);
		else
			emit(g, "%s = stp_entry_long(%s, %s);", vv, m, ent);
	}
	gen_foreach_tail(g, st, l);
}

static void gen_delete(struct gen *g, struct stmt *st)
{
	struct expr *e = st->expr;

	if (e->kind == EXPR_INDEX && is_slice(e)) {
		unsigned int wild;
		char *keys = gen_slice_keys(g, e->args.items, e->args.len, &wild);
		emit(g, "stp_%s_delete_slice(%s, %s, 0x%xu);", e->sym->type == TYPE_STATS ? "pmap" : "map",
		     global_cname(e->sym), keys, wild);
	} else if (e->kind == EXPR_INDEX) {
		char *keys = gen_keys(g, e->args.items, e->args.len);
		emit(g, "stp_%s_delete(%s, %s);", e->sym->type == TYPE_STATS ? "pmap" : "map",
		     global_cname(e->sym), keys);
	} else if (e->kind == EXPR_VAR && e->sym && e->sym->type == TYPE_STATS) {
		emit(g, "stp_%s_clear(%s);", e->sym->is_array ? "pmap" : "pstat", global_cname(e->sym));
	} else if (e->kind == EXPR_VAR && e->sym && e->sym->is_array) {
		emit(g, "stp_map_clear(%s);", global_cname(e->sym));
	} else if (e->kind == EXPR_VAR && e->sym) {
		char *v = sym_ref(g, e->sym);
		if (e->sym->type == TYPE_STRING)
			emit(g, "%s[0] = '\\0';", v);
		else
			emit(g, "%s = 0;", v);
	} else {
		diag(g->s, E_NOT_SUPPORTED, st->pos, "cannot delete this kind of expression");
	}
}

static void gen_try(struct gen *g, struct stmt *st)
{
	int l = new_label(g);
	const char *saved = g->err_label;

	g->err_label = xasprintf("catch_%d", l);
	emit(g, "{");
	g->indent++;
	gen_block(g, st->body);
	g->indent--;
	emit(g, "}");
	emit(g, "goto tryend_%d;", l);
	g->err_label = saved;
	emit(g, "catch_%d:", l);
	/* abort() cannot be caught: on to the enclosing handler */
	emit(g, "if (unlikely(c->last_error == stp_abort_error)) goto %s;", saved);
	emit(g, "if (c->last_error) {");
	g->indent++;
	if (st->catch_var && st->catch_var->sym)
		emit(g, "stp_str_assign(%s, c->last_error);", sym_ref(g, st->catch_var->sym));
	emit(g, "c->last_error = NULL;");
	gen_block(g, st->els);
	g->indent--;
	emit(g, "}");
	emit(g, "tryend_%d: ;", l);
}

static void gen_stmt(struct gen *g, struct stmt *st)
{
	if (!st)
		return;
	if (st->kind != STMT_BLOCK && st->kind != STMT_NULL)
		gen_action_check(g, st);
	switch (st->kind) {
	case STMT_BLOCK:
		emit(g, "{");
		g->indent++;
		gen_block(g, st);
		g->indent--;
		emit(g, "}");
		break;
	case STMT_NULL:
		break;
	case STMT_EXPR: {
		if (gen_atomic_bump(g, st->expr))
			break;
		char *v = gen_expr(g, st->expr);
		if (v && st->expr->kind != EXPR_ASSIGN && st->expr->kind != EXPR_PREINC)
			emit(g, "(void)(%s);", v);
		break;
	}
	case STMT_IF: {
		int live = tvars_static_cond(g->s, g->dp, st->expr);
		if (live >= 0) {   /* if (@defined($x)): the live branch only */
			if (live ? st->body : st->els) {
				emit(g, "{");
				g->indent++;
				gen_block(g, live ? st->body : st->els);
				g->indent--;
				emit(g, "}");
			}
			break;
		}
		char *cond = gen_expr(g, st->expr);
		emit(g, "if (%s) {", cond);
		g->indent++;
		gen_block(g, st->body);
		g->indent--;
		if (st->els) {
			emit(g, "} else {");
			g->indent++;
			gen_block(g, st->els);
			g->indent--;
		}
		emit(g, "}");
		break;
	}
	case STMT_WHILE:
	case STMT_FOR:
		gen_loop(g, st);
		break;
	case STMT_FOREACH:
		gen_foreach(g, st);
		break;
	case STMT_BREAK:
		emit(g, "goto brk_%d;", g->loops.items[g->loops.len - 1]);
		break;
	case STMT_CONTINUE:
		emit(g, "goto cont_%d;", g->loops.items[g->loops.len - 1]);
		break;
	case STMT_NEXT:
		emit(g, "goto out;");
		break;
	case STMT_RETURN:
		if (st->expr) {
			char *v = gen_expr(g, st->expr);
			if (g->func->ret == TYPE_STRING)
				emit(g, "stp_str_assign(f->ret, %s);", v);
			else
				emit(g, "f->ret = %s;", v);
		}
		emit(g, "goto out;");
		break;
	case STMT_DELETE:
		gen_delete(g, st);
		break;
	case STMT_TRY:
		gen_try(g, st);
		break;
	case STMT_EMBEDDED:
		emit(g, "{\n%s\n}", st->code);
		break;
	}
}

/* ---- bodies ----------------------------------------------------------------- */

static void declare_syms(struct strbuf *frame, struct strbuf *init, const symvec *v,
			 const char *prefix, bool zero)
{
	for (int i = 0; i < v->len; i++) {
		struct sym *s = v->items[i];
		if (s->type == TYPE_STRING) {
			strbuf_addf(frame, "\tchar %s%s[MAXSTRINGLEN];\n", prefix, s->name);
			if (zero)
				strbuf_addf(init, "\tf->%s%s[0] = '\\0';\n", prefix, s->name);
		} else {
			strbuf_addf(frame, "\tint64_t %s%s;\n", prefix, s->name);
			if (zero)
				strbuf_addf(init, "\tf->%s%s = 0;\n", prefix, s->name);
		}
	}
}

static void declare_syms(struct strbuf *frame, struct strbuf *init, const symvec *v,
			 const char *prefix, bool zero);

/* The entry handler of a .return probe whose body reads values "at entry"
 * (@entry(e), and $vars, which SystemTap reads at entry in return probes):
 * it evaluates them when the function is entered into the kretprobe
 * instance's data, which the return handler then reads. */
static void gen_entry(struct session *s, struct strbuf *types, struct strbuf *code, struct gen *bg,
		      const symvec *locals)
{
	const struct derived_probe *dp = bg->dp;
	struct strbuf frame = STRBUF_INIT, cdecl = STRBUF_INIT, stmts = STRBUF_INIT, data = STRBUF_INIT,
		      init = STRBUF_INIT;
	struct gen g = { .s = s, .out = &stmts, .frame = &frame, .cdecl = &cdecl, .indent = 1,
			 .err_label = "out", .maxaction = "STP_MAXACTION", .dp = dp, .in_entry = true };
	int n = dp->index;

	declare_syms(&frame, &init, locals, "l_", true);
	for (int k = 0; k < bg->entries.len; k++) {
		struct expr *e = (struct expr *)bg->entries.items[k];
		struct expr *x = e->kind == EXPR_ENTRY ? e->lhs : e;
		char *v = gen_expr(&g, x);
		if (x->type == TYPE_STRING) {
			strbuf_addf(&data, "\tchar v%d[MAXSTRINGLEN];\n", k);
			emit(&g, "stp_str_assign(d->v%d, %s);", k, v);
		} else {
			strbuf_addf(&data, "\tint64_t v%d;\n", k);
			emit(&g, "d->v%d = %s;", k, v);
		}
	}
	emit(&g, "d->valid = 1;");
	strbuf_addf(types, "struct entry_d%d {\n\tint valid;\n%s};\n", n, data.buf);
	strbuf_addf(types, "struct fr_e%d {\n%s\tchar unused_;\n};\n", n, frame.buf);
	strbuf_addf(code, "static void ebody_%d(struct stp_context *c)\n{\n", n);
	strbuf_addf(code, "\tstruct fr_e%d *f = (struct fr_e%d *)(c->frames + c->nesting * STP_FRAME_SIZE);\n", n, n);
	strbuf_addf(code, "\tstruct entry_d%d *d = c->entry_data;\n%s\n%s%s", n, cdecl.buf, init.buf, stmts.buf);
	strbuf_addstr(code, "out: __attribute__((unused));\n\t(void)f;\n}\n\n");
	strbuf_addf(code, "static void dpentry_%d(struct pt_regs *regs, void *data, unsigned long ubias)\n{\n"
		    "\tstruct stp_context *c = stp_probe_enter(&stp_probes[%d]);\n\n"
		    "\t((struct entry_d%d *)data)->valid = 0;\n\tif (!c)\n\t\treturn;\n"
		    "\tc->regs = regs;\n\tc->ubias = ubias;\n\tc->entry_data = data;\n\tebody_%d(c);\n"
		    "\tstp_probe_exit(c);\n}\n\n", n, n, n, n);
	strbuf_release(&frame);
	strbuf_release(&cdecl);
	strbuf_release(&stmts);
	strbuf_release(&data);
	strbuf_release(&init);
}

/* A script function's first statement: too deep a call ends it at once
 * (MAXNESTING exceeded, near the function's name). Checked once here, not
 * at each of its calls: the syscall tapsets call a few functions from
 * thousands of places. */
static void nesting_check(struct strbuf *code, const struct func *f)
{
	char *where = near("identifier", f->name, f->pos);

	strbuf_addf(code, "\tif (unlikely(c->nesting > MAXNESTING)) {\n\t\tc->last_error = \"MAXNESTING exceeded\";\n"
			  "\t\tc->last_stmt = %s;\n\t\treturn;\n\t}\n", where);
	free(where);
}

/* One C function for a probe body or a script function, with its frame
 * (types NULL: declared already, for another copy of the function). */
static void gen_body(struct session *s, struct strbuf *types, struct strbuf *code,
		     const char *fname, const char *frname, struct stmt *body,
		     const symvec *params, const symvec *locals, struct func *func,
		     const char *maxaction, const struct derived_probe *dp)
{
	struct strbuf frame = STRBUF_INIT, cdecl = STRBUF_INIT, stmts = STRBUF_INIT, init = STRBUF_INIT;
	struct gen g = { .s = s, .out = &stmts, .frame = &frame, .cdecl = &cdecl, .indent = 1,
			 .err_label = "out", .func = func, .maxaction = maxaction, .dp = dp };

	if (params)
		declare_syms(&frame, &init, params, "a_", false);
	declare_syms(&frame, &init, locals, "l_", true);
	if (func && func->ret != TYPE_VOID && func->ret != TYPE_UNKNOWN) {
		strbuf_addf(&frame, func->ret == TYPE_STRING ? "\tchar ret[MAXSTRINGLEN];\n" : "\tint64_t ret;\n");
		strbuf_addf(&init, func->ret == TYPE_STRING ? "\tf->ret[0] = '\\0';\n" : "\tf->ret = 0;\n");
	}
	gen_block(&g, body);

	if (types)
		strbuf_addf(types, "struct %s {\n%s\tchar unused_;\n};\n", frname, frame.buf);
	strbuf_addf(code, "static void %s(struct stp_context *c)\n{\n", fname);
	strbuf_addf(code, "\tstruct %s *f = (struct %s *)(c->frames + c->nesting * STP_FRAME_SIZE);\n",
		    frname, frname);
	if (func)
		nesting_check(code, func);
	strbuf_addstr(code, cdecl.buf);
	strbuf_addstr(code, "\n");
	strbuf_addstr(code, init.buf);
	strbuf_addstr(code, stmts.buf);
	strbuf_addstr(code, "out: __attribute__((unused));\n\t(void)f;\n}\n\n");
	if (dp && dp->has_entry && !func)
		gen_entry(s, types, code, &g, locals);
	strbuf_release(&frame);
	strbuf_release(&cdecl);
	strbuf_release(&stmts);
	strbuf_release(&init);
}

/* Does f's C use the pre-1.8 names of its parameters and return value
 * (THIS->name, THIS->__retvalue)? With its / * unmangled * / pragma, or
 * for every function under --compatible older than 1.8, as SystemTap. */
static bool func_unmangled(const struct session *s, const struct func *f)
{
	for (int i = 0; i < f->pragmas.len; i++)
		if (!strcmp(f->pragmas.items[i], "unmangled"))
			return true;
	return s->compatible && !(f->file && f->file->is_tapset) && strverscmp(s->compatible, "1.8") < 0;
}

/* An unmangled function's frame: each slot also goes by its old name (an
 * anonymous union), so THIS->name and STAP_ARG_name are the same. */
static void declare_unmangled(struct strbuf *frame, const struct func *f)
{
	for (int i = 0; i < f->params.len; i++) {
		const struct sym *v = f->params.items[i];
		if (v->type == TYPE_STRING)
			strbuf_addf(frame, "\tunion { char a_%s[MAXSTRINGLEN]; char %s[MAXSTRINGLEN]; };\n",
				    v->name, v->name);
		else
			strbuf_addf(frame, "\tunion { int64_t a_%s; int64_t %s; };\n", v->name, v->name);
	}
	if (f->ret == TYPE_STRING)
		strbuf_addstr(frame, "\tunion { char ret[MAXSTRINGLEN]; char __retvalue[MAXSTRINGLEN]; };\n");
	else if (f->ret == TYPE_LONG)
		strbuf_addstr(frame, "\tunion { int64_t ret; int64_t __retvalue; };\n");
}

static bool has_func_pragma(const struct func *f, const char *name)
{
	for (int i = 0; i < f->pragmas.len; i++)
		if (!strcmp(f->pragmas.items[i], name))
			return true;
	return false;
}

static void gen_embedded_func(struct session *s, struct strbuf *types, struct strbuf *code, struct func *f)
{
	struct strbuf frame = STRBUF_INIT, init = STRBUF_INIT;
	bool unmangled = func_unmangled(s, f);

	if (unmangled) {
		declare_unmangled(&frame, f);
	} else {
		declare_syms(&frame, &init, &f->params, "a_", false);
		if (f->ret == TYPE_STRING)
			strbuf_addstr(&frame, "\tchar ret[MAXSTRINGLEN];\n");
		else if (f->ret == TYPE_LONG)
			strbuf_addstr(&frame, "\tint64_t ret;\n");
	}
	strbuf_addf(types, "struct fr_f%d {\n%s\tchar unused_;\n};\n", f->index, frame.buf);
	strbuf_addf(code, "/* function %s (embedded C) */\n", f->name);
	strbuf_addf(code, "static void fn_%d(struct stp_context *c)\n{\n", f->index);
	strbuf_addf(code, "\tstruct fr_f%d *f = (struct fr_f%d *)(c->frames + c->nesting * STP_FRAME_SIZE);\n",
		    f->index, f->index);
	nesting_check(code, f);
	for (int i = 0; i < f->params.len; i++)
		strbuf_addf(code, "#define STAP_ARG_%s (f->a_%s)\n", f->params.items[i]->name, f->params.items[i]->name);
	if (f->ret == TYPE_STRING) {
		strbuf_addstr(code, "#define STAP_RETVALUE (f->ret)\n");
		strbuf_addstr(code, "#define STAP_RETURN(v) do { stp_str_assign(f->ret, (v)); goto out; } while (0)\n");
	} else if (f->ret == TYPE_LONG) {
		strbuf_addstr(code, "#define STAP_RETVALUE (f->ret)\n");
		strbuf_addstr(code, "#define STAP_RETURN(v) do { f->ret = (v); goto out; } while (0)\n");
	} else {
		strbuf_addstr(code, "#define STAP_RETURN() goto out\n");
	}
	strbuf_addstr(code, "#define CONTEXT c\n");
	if (unmangled)
		strbuf_addstr(code, "#define THIS f\n");
	strbuf_addstr(code, "#define STAP_ERROR(...) do { snprintf(c->error_buf, MAXSTRINGLEN, __VA_ARGS__); "
			    "c->last_error = c->error_buf; goto out; } while (0)\n");
	if (s->privilege != PRIV_STAPDEV && has_func_pragma(f, "myproc-unprivileged"))
		strbuf_addf(code, "\tif (!stp_is_myproc(current))\n\t\tSTAP_ERROR(\"%s: only the user's own "
			    "processes may be read (--privilege)\");\n", f->name);
	strbuf_addf(code, "\t{\n%s\n\t}\n", f->embedded);
	if (unmangled)
		strbuf_addstr(code, "#undef THIS\n");
	strbuf_addstr(code, "out: __attribute__((unused));\n\t(void)f;\n");
	for (int i = 0; i < f->params.len; i++)
		strbuf_addf(code, "#undef STAP_ARG_%s\n", f->params.items[i]->name);
	strbuf_addstr(code, "#undef STAP_RETURN\n#undef CONTEXT\n#undef STAP_ERROR\n");
	if (f->ret == TYPE_STRING || f->ret == TYPE_LONG)
		strbuf_addstr(code, "#undef STAP_RETVALUE\n");
	strbuf_addstr(code, "}\n\n");
	strbuf_release(&frame);
	strbuf_release(&init);
}

/* ---- globals and locking ---------------------------------------------------- */

static const char *runtime_type(enum type t) { return t == TYPE_STRING ? "STP_STRING" : "STP_LONG"; }

/* A global's module parameter (-G name=value): its name may be a macro of
 * the kernel's headers (ATTR_MODE), so the macro is set aside around it. */
static void gen_param(struct strbuf *out, const char *name, char *decl)
{
	strbuf_addf(out, "#pragma push_macro(\"%s\")\n#undef %s\n%s#pragma pop_macro(\"%s\")\n",
		    name, name, decl, name);
	free(decl);
}

static void gen_globals(struct session *s, struct strbuf *out)
{
	for (int i = 0; i < s->globals.len; i++) {
		struct sym *v = s->globals.items[i];
		char *n = global_cname(v);
		if (v->type == TYPE_STATS) {
			strbuf_addf(out, "static const struct stp_stat_desc %s_desc = { .hist = %d, .lo = %lldLL, "
				    ".hi = %lldLL, .step = %lldLL, .nbuckets = %d, .shift = %d, .variance = %d };\n",
				    n, v->hist_kind, (long long)v->hist_lo, (long long)v->hist_hi,
				    (long long)v->hist_step,
				    v->hist_kind == 1 ? 129 : v->hist_kind == 2 ?
					    (int)((v->hist_hi - v->hist_lo) / v->hist_step) + 3 : 0,
				    v->var_shift, v->var_used);
			strbuf_addf(out, "static struct %s *%s;\n", v->is_array ? "stp_pmap" : "stp_pstat", n);
		} else if (v->is_array) {
			strbuf_addf(out, "static struct stp_map *%s;\n", n);
		} else if (v->type == TYPE_STRING) {
			strbuf_addf(out, "static char %s[MAXSTRINGLEN]", n);
			if (v->init)
				strbuf_addf(out, " = %s", c_string(v->init->str, v->init->str_len));
			strbuf_addstr(out, ";\n");
			if (!v->is_private)
				gen_param(out, v->name, xasprintf("module_param_string(%s, %s, MAXSTRINGLEN, 0);\n",
								  v->name, n));
		} else if (v->atomic) {
			strbuf_addf(out, "static atomic64_t %s = ATOMIC64_INIT(%lldLL);\n", n,
				    v->init ? (long long)v->init->num : 0LL);
			if (!v->is_private)
				gen_param(out, v->name, xasprintf("module_param_cb(%s, &param_ops_long, &%s.counter, 0);\n"
								  "__MODULE_PARM_TYPE(%s, \"long\");\n",
								  v->name, n, v->name));
		} else {
			strbuf_addf(out, "static int64_t %s", n);
			if (v->init)
				strbuf_addf(out, " = %lldLL", (long long)v->init->num);
			strbuf_addstr(out, ";\n");
			if (!v->is_private)
				gen_param(out, v->name, xasprintf("module_param_cb(%s, &param_ops_long, &%s, 0);\n"
								  "__MODULE_PARM_TYPE(%s, \"long\");\n",
								  v->name, n, v->name));
		}
		if (!v->atomic && v->type != TYPE_STATS)   /* aggregates have per-CPU locks */
			strbuf_addf(out, "static DEFINE_RWLOCK(%s_lock);\n", n);
	}
}

/* A function of the script needs user files' symbols or unwind tables
 * (its embedded C says / * pragma:ustack * /: runtime/ustack.h). */
static bool uses_ustack(const struct session *s)
{
	for (int i = 0; i < s->funcs.len; i++)
		for (int k = 0; k < s->funcs.items[i]->pragmas.len; k++)
			if (!strcmp(s->funcs.items[i]->pragmas.items[k], "pragma:ustack"))
				return true;
	return false;
}

/* The C string of SystemTap's message for a global it could not allocate
 * at start (it names the global as its C code does: __global_NAME). */
static char *alloc_failed_msg(const struct sym *v)
{
	return xasprintf("\"global variable '__global_%s' allocation failed\"", v->name);
}

static void gen_script_init(struct session *s, struct strbuf *out)
{
	char *kaslr = tvars_kaslr_init(s);

	strbuf_addstr(out, "static int stp_script_init(void)\n{\n");
	if (uses_ustack(s))
		strbuf_addstr(out, "\tstp_ustack_init();\n");
	if (s->regexes.len)
		strbuf_addstr(out, "\tif (stp_regex_init())\n\t\treturn -ENOMEM;\n");
	if (kaslr)
		strbuf_addstr(out, kaslr);
	for (int i = 0; i < s->globals.len; i++) {
		struct sym *v = s->globals.items[i];
		if (v->type == TYPE_STATS && !v->is_array) {
			char *n = global_cname(v);
			strbuf_addf(out, "\t%s = stp_pstat_new(&%s_desc);\n\tif (!%s)\n\t\treturn stp_init_fail(%s);\n",
				    n, n, n, alloc_failed_msg(v));
		}
		if (!v->is_array)
			continue;
		char *n = global_cname(v);
		strbuf_addf(out, "\t{\n\t\tstatic const enum stp_type kt[] = {");
		for (int k = 0; k < v->nkeys; k++)
			strbuf_addf(out, "%s%s", k ? ", " : " ", runtime_type(v->key_types[k]));
		strbuf_addf(out, " };\n");
		if (v->type == TYPE_STATS)
			strbuf_addf(out, "\t\t%s = stp_pmap_new(%s, %d, kt, &%s_desc, %s);\n", n,
				    v->max_entries ? xasprintf("%lld", (long long)v->max_entries) : "MAXMAPENTRIES",
				    v->nkeys, n, v->wrap ? "true" : "false");
		else
			strbuf_addf(out, "\t\t%s = stp_map_new(%s, %d, kt, %s, %s);\n", n,
				    v->max_entries ? xasprintf("%lld", (long long)v->max_entries) : "MAXMAPENTRIES",
				    v->nkeys, runtime_type(v->type), v->wrap ? "true" : "false");
		strbuf_addf(out, "\t\tif (!%s)\n\t\t\treturn stp_init_fail(%s);\n\t}\n", n, alloc_failed_msg(v));
	}
	strbuf_addstr(out, "\treturn 0;\n}\n\n");
	strbuf_addstr(out, "static void stp_script_exit(void)\n{\n");
	if (uses_ustack(s))
		strbuf_addstr(out, "\tstp_ustack_exit();\n");
	if (s->regexes.len)
		strbuf_addstr(out, "\tstp_regex_exit();\n");
	for (int i = 0; i < s->globals.len; i++) {
		struct sym *v = s->globals.items[i];
		char *n = global_cname(v);
		if (v->type == TYPE_STATS)
			strbuf_addf(out, "\t%s(%s);\n\t%s = NULL;\n",
				    v->is_array ? "stp_pmap_free" : "stp_pstat_free", n, n);
		else if (v->is_array)
			strbuf_addf(out, "\tif (%s)\n\t\tstp_map_free(%s);\n\t%s = NULL;\n", n, n, n);
	}
	strbuf_addstr(out, "}\n\n");
}

/* The handler most families' mechanisms call: a kprobe's, a timer's. */
static const struct handler_abi regs_abi = {
	.params = "struct pt_regs *regs",
	.fill = "\tc->regs = regs;\n",
};

/* Taking (or releasing) global v's lock in mode (1 shared, 2 exclusive):
 * a rwlock, except for aggregates, whose adders (shared: `<<<` only) take
 * their own CPU's lock and whose readers every CPU's (runtime/lock.h). */
static char *lock_call(const struct sym *v, unsigned char mode, bool take)
{
	char *n = global_cname(v);

	if (v->type == TYPE_STATS)
		return xasprintf("stp_%s_%s(%s->locks)", take ? "trylock" : "unlock",
				 mode & 2 ? "all" : "cpu", n);
	if (take)
		return xasprintf("stp_trylock_%s(&%s_lock)", mode & 2 ? "write" : "read", n);
	return xasprintf("%s_unlock(&%s_lock)", mode & 2 ? "write" : "read", n);
}

/* dp_N of a probe whose handler is sharer's dh_M. */
static void gen_handler_call(struct strbuf *out, const struct derived_probe *dp,
			     const struct derived_probe *sharer)
{
	strbuf_addf(out, "static void dp_%d(struct pt_regs *regs)\n{\n\tdh_%d(&stp_probes[%d], regs);\n}\n\n",
		    dp->index, sharer->index, dp->index);
}

/* The handler of a derived probe: context, locks in global order, body.
 * A lock that cannot be had in MAXTRYLOCK tries skips the probe (counted).
 * A probe that shares its handler (sharer, from gen_handlers) calls dh_N,
 * the handler of probe N written once with the stp_probes entry a
 * parameter: a wildcard's thousands of probes differ in that entry only,
 * and thousands of copies of one handler are what the compiler is slow on. */
static void gen_handler(struct session *s, struct strbuf *out, struct derived_probe *dp,
			const unsigned char *mode, struct derived_probe *sharer)
{
	int nlocks = 0;
	int order[s->globals.len + 1];

	const struct handler_abi *abi = dp->prov->handler ? dp->prov->handler : &regs_abi;
	struct strbuf params = STRBUF_INIT, fill = STRBUF_INIT;

	if (sharer) {
		dp->sharer = sharer;
		if (sharer != dp) {
			if (!dp->prov->calls_shared)
				gen_handler_call(out, dp, sharer);
			return;
		}
		strbuf_addf(out, "static noinline void dh_%d(const struct stp_probe *sp, %s)\n{\n"
			    "\tstruct stp_context *c = stp_probe_enter(sp);\n\n", dp->index, abi->params);
		strbuf_addf(out, "\tif (!c)\n\t\treturn;\n%s", abi->fill);
	} else {
		if (abi->gen) {
			abi->gen(dp, &params, &fill);
		} else {
			strbuf_addstr(&params, abi->params);
			strbuf_addstr(&fill, abi->fill);
		}
		strbuf_addf(out, "static void dp_%d(%s)\n{\n", dp->index, params.buf);
		strbuf_addf(out, "\tstruct stp_context *c = stp_probe_enter(&stp_probes[%d]);\n\n", dp->index);
		strbuf_addf(out, "\tif (!c)\n\t\treturn;\n%s", fill.buf);
	}
	strbuf_release(&params);
	strbuf_release(&fill);
	if (dp->has_entry)   /* what the entry handler saved; missing if it could not run */
		strbuf_addf(out, "\tc->entry_data = *this_cpu_ptr(&stp_kret_data);\n"
			    "\tif (!c->entry_data || !((struct entry_d%d *)c->entry_data)->valid) {\n"
			    "\t\tstp_count_skipped();\n\t\tstp_probe_exit(c);\n\t\treturn;\n\t}\n",
			    dp->index);
	for (int i = 0; i < s->globals.len; i++) {
		if (!mode[i])
			continue;
		strbuf_addf(out, "\tif (!%s)\n\t\tgoto skip_%d;\n",
			    lock_call(s->globals.items[i], mode[i], true), nlocks);
		order[nlocks++] = i;
	}
	strbuf_addf(out, "\tbody_%d(c);\n", dp->body);
	for (int k = nlocks - 1; k >= 0; k--)
		strbuf_addf(out, "\t%s;\n", lock_call(s->globals.items[order[k]], mode[order[k]], false));
	strbuf_addstr(out, "\tstp_probe_exit(c);\n");
	if (nlocks) {
		strbuf_addstr(out, "\treturn;\n");
		for (int k = nlocks - 1; k >= 1; k--)   /* lock k failed: release 0..k-1 */
			strbuf_addf(out, "skip_%d:\n\t%s;\n", k,
				    lock_call(s->globals.items[order[k - 1]], mode[order[k - 1]], false));
		strbuf_addstr(out, "skip_0:\n\tstp_count_skipped();\n\tstp_probe_exit(c);\n");
	}
	strbuf_addstr(out, "}\n\n");
	if (sharer && !dp->prov->calls_shared)
		gen_handler_call(out, dp, sharer);
}

/* Every derived probe's handler. Probes of the plain pt_regs signature
 * with the same body and lock modes share one (the first of them, whose
 * dh_N comes first), found through a hash: a wildcard's tens of thousands
 * of probes would make a pairwise search quadratic. */
static void gen_handlers(struct session *s, struct strbuf *out)
{
	int n = s->probes.len;
	struct derived_probe **sharer = xcalloc((size_t)n + 1, sizeof(*sharer));
	size_t cap = 64;
	int *slot;

	while (cap < (size_t)n * 2)
		cap *= 2;
	slot = xmalloc(cap * sizeof(int));
	memset(slot, -1, cap * sizeof(int));
	for (int i = 0; i < n; i++) {
		struct derived_probe *dp = s->probes.items[i];
		if (dp->prov->handler || dp->has_entry)
			continue;
		uint64_t h = hash64(dp->lock_modes, (size_t)s->globals.len) ^ (uint64_t)dp->body * 0x9e3779b97f4a7c15ULL;
		size_t k = (size_t)h & (cap - 1);
		for (; slot[k] >= 0; k = (k + 1) & (cap - 1)) {
			struct derived_probe *q = s->probes.items[slot[k]];
			if (q->body == dp->body &&
			    (!s->globals.len || !memcmp(q->lock_modes, dp->lock_modes, (size_t)s->globals.len)))
				break;
		}
		if (slot[k] < 0)
			slot[k] = i;
		sharer[i] = s->probes.items[slot[k]];
	}
	/* a probe alone with its body keeps its own plain handler */
	int *users = xcalloc((size_t)n + 1, sizeof(int));
	for (int i = 0; i < n; i++)
		if (sharer[i])
			users[sharer[i]->index]++;
	for (int i = 0; i < n; i++)
		if (sharer[i] && users[sharer[i]->index] < 2)
			sharer[i] = NULL;
	for (int i = 0; i < n; i++)
		gen_handler(s, out, s->probes.items[i], s->probes.items[i]->lock_modes, sharer[i]);
	free(users);
	free(slot);
	free(sharer);
}

static const char *kind_name(enum stp_probe_kind k)
{
	switch (k) {
	case STP_PK_BEGIN: return "STP_PK_BEGIN";
	case STP_PK_END: return "STP_PK_END";
	case STP_PK_ERROR: return "STP_PK_ERROR";
	default: return "STP_PK_NORMAL";
	}
}

/* The hooks of the families that have derived probes: registration in
 * table order, unregistration in reverse (begin/end, first in the table,
 * runs the begin probes before all and the end probes after all). */
static void gen_lifecycle(struct session *s, struct strbuf *out)
{
	int n;

	for (n = 0; providers[n]; n++)
		if (providers[n]->emit_decls && provider_probes(s, providers[n]))
			providers[n]->emit_decls(s, out);
	strbuf_addstr(out, "\nstatic int stp_script_start(void)\n{\n\tint rc = 0;\n\n");
	for (int p = 0; p < n; p++)
		if (providers[p]->emit_register && provider_probes(s, providers[p]))
			providers[p]->emit_register(s, out);
	strbuf_addstr(out, "\treturn rc;\n}\n\n");
	strbuf_addstr(out, "static void stp_script_stop(void)\n{\n\tint i __attribute__((unused));\n\n");
	for (int p = n - 1; p >= 0; p--)
		if (providers[p]->emit_unregister && provider_probes(s, providers[p]))
			providers[p]->emit_unregister(s, out);
	strbuf_addstr(out, "}\n\n");
}

/* The runtime headers of the families that have probes, each once. */
static void gen_family_includes(struct session *s, struct strbuf *out)
{
	for (int p = 0; providers[p]; p++) {
		const char *h = providers[p]->runtime_header;
		bool seen = false;
		for (int q = 0; q < p && h && !seen; q++)
			seen = providers[q]->runtime_header && !strcmp(providers[q]->runtime_header, h) &&
			       provider_probes(s, providers[q]);
		if (h && !seen && provider_probes(s, providers[p]))
			strbuf_addf(out, "#include \"%s\"\n", h);
	}
}

/* -t: each derived probe's "from:" (timing_from) for the report. */
static void gen_timing_table(struct session *s, struct strbuf *out)
{
	if (!s->timing)
		return;
	strbuf_addstr(out, "static const char *const stp_probe_from[STP_NUM_PROBES] = {\n");
	for (int i = 0; i < s->probes.len; i++) {
		char *from = timing_from(s->probes.items[i]);

		strbuf_addf(out, "\t%s,\n", c_string(from, strlen(from)));
		free(from);
	}
	strbuf_addstr(out, "};\n\n");
}

/* A used embedded-C function marked / * pragma:NAME * / tells the module
 * it needs NAME: STAP_NEED_NAME (upper case) is defined once, before the
 * runtime and the script's C (the time tapset's pragma:gettimeofday gives
 * STAP_NEED_GETTIMEOFDAY, which scripts test as with SystemTap). */
static void gen_need_macros(struct session *s, struct strbuf *out)
{
	strvec seen = { 0 };

	for (int i = 0; i < s->funcs.len; i++) {
		const struct func *f = s->funcs.items[i];
		for (int j = 0; j < f->pragmas.len; j++) {
			const char *name = f->pragmas.items[j];
			bool dup = false;
			if (strncmp(name, "pragma:", 7) || !name[7])
				continue;
			name += 7;
			for (int k = 0; k < seen.len && !dup; k++)
				dup = !strcmp(seen.items[k], name);
			if (dup)
				continue;
			vec_push(&seen, (char *)name);
			strbuf_addstr(out, "#define STAP_NEED_");
			for (const char *c = name; *c; c++)
				strbuf_addch(out, isalnum((unsigned char)*c) ? toupper((unsigned char)*c) : '_');
			strbuf_addstr(out, " 1\n");
		}
	}
	free(seen.items);
}

/* Does the script call the tapset function named name? */
static bool uses_func(const struct session *s, const char *name)
{
	for (int i = 0; i < s->funcs.len; i++)
		if (!strcmp(s->funcs.items[i]->name, name))
			return true;
	return false;
}

/* symfileline() and co (tapsets/symlines.stp) read the kernel's line table:
 * written next to the module's source and assembled into its read-only
 * data (.incbin keeps the C source, and -p3's output, small). */
static void gen_klines(struct session *s, struct strbuf *out)
{
	const char *why = NULL;

	if (!uses_func(s, "_klines_str"))
		return;
	char *path = xasprintf("%s/%s_lines.bin", s->tmpdir ? s->tmpdir : ".", s->module_name);
	if (s->tmpdir && klines_write(s, path, &why) != 0)
		diag(s, T_INTERNAL, (struct srcpos){0}, "cannot give the module the kernel's source lines: %s",
		     why ? why : "unknown error");
	strbuf_addstr(out, "asm(\".section .rodata.stp_klines, \\\"a\\\"\\n\"\n"
		      "    \".balign 8\\n\"\n"
		      "    \"stp_klines:\\n\"\n");
	strbuf_addf(out, "    \".incbin \\\"%s\\\"\\n\"\n", path);
	strbuf_addstr(out, "    \"stp_klines_end:\\n\"\n"
		      "    \".previous\\n\");\n\n");
	free(path);
}

/* The user files' symbols and unwind tables (target/ustack.h), assembled
 * into the module's read-only data as the kernel's lines are. */
static void gen_ustack(struct session *s, struct strbuf *out)
{
	char *why = NULL;

	if (!uses_ustack(s))
		return;
	char *path = xasprintf("%s/%s_ustack.bin", s->tmpdir ? s->tmpdir : ".", s->module_name);
	if (s->tmpdir && ustack_write(s, path, &why) != 0)
		diag(s, T_INTERNAL, (struct srcpos){0}, "cannot give the module the user files' unwind data: %s",
		     why ? why : "unknown error");
	free(why);
	strbuf_addstr(out, "asm(\".section .rodata.stp_ustack, \\\"a\\\"\\n\"\n"
		      "    \".balign 8\\n\"\n"
		      "    \"stp_ustack:\\n\"\n");
	strbuf_addf(out, "    \".incbin \\\"%s\\\"\\n\"\n", path);
	strbuf_addstr(out, "    \"stp_ustack_end:\\n\"\n"
		      "    \".previous\\n\");\n\n");
	free(path);
}

int translate_module(struct session *s, struct strbuf *out)
{
	struct strbuf types = STRBUF_INIT, code = STRBUF_INIT;
	bool uses_pn;

	/* the module's name is kbuild's (KBUILD_MODNAME, runtime/config.h): the
	 * C of a script is the same whatever the module is called */
	strbuf_addstr(out, "/* generated by cstap */\n");
	strbuf_addf(out, "#define STP_NUM_PROBES %d\n", s->probes.len);
	if (s->timing)
		strbuf_addstr(out, "#define STP_TIMING 1\n");
	gen_need_macros(s, out);
	if (s->suppress_handler_errors)
		strbuf_addstr(out, "#define STP_SUPPRESS_HANDLER_ERRORS 1\n");
	if (s->privilege != PRIV_STAPDEV)   /* staprun reads stap_privilege (modinfo) */
		strbuf_addstr(out, "#define STP_PRIVILEGE_USR 1\n");
	if (s->privilege == PRIV_STAPSYS)
		strbuf_addstr(out, "#define STP_PRIVILEGE_SYS 1\n");
	if (s->no_time_limits)   /* a lock is waited for as long as it takes */
		strbuf_addstr(out, "#define STAP_SUPPRESS_TIME_LIMITS_ENABLE 1\n#define MAXTRYLOCK 2000000000\n");
	for (int i = 0; i < s->probes.len; i++) {
		const struct derived_probe *dp = s->probes.items[i];
		if (dp->prov->in_irq && dp->prov->in_irq(dp)) {
			strbuf_addstr(out, "#define STP_IRQOFF_HANDLERS 1\n");
			break;
		}
	}
	strbuf_addstr(out, "#include \"stp_kfeatures.h\"\n#include \"runtime.h\"\n#include \"ops.h\"\n");
	gen_family_includes(s, out);
	if (s->regexes.len)
		strbuf_addstr(out, "#include \"regex.h\"\n");
	strbuf_addstr(out, "\n");
	for (int i = 0; i < s->embeds.len; i++)
		strbuf_addf(out, "%s\n", s->embeds.items[i]->code);
	gen_regex_tables(s, out);
	gen_klines(s, out);
	gen_ustack(s, out);
	gen_globals(s, out);
	gen_struct_printers(s, out);
	strbuf_addstr(out, "\n");

	/* function prototypes, then bodies; a function reading $target
	 * variables has one copy per derived probe that calls it */
	for (int i = 0; i < s->funcs.len; i++)
		if (!s->funcs.items[i]->in_context && !inline_value(s->funcs.items[i]))
			strbuf_addf(&code, "static void fn_%d(struct stp_context *c); /* %s */\n", i,
				    s->funcs.items[i]->name);
	for (int i = 0; i < s->probes.len; i++) {
		const funcvec *r = &s->probes.items[i]->ctx_funcs;
		for (int k = 0; k < r->len; k++)
			strbuf_addf(&code, "static void fn_%d_p%d(struct stp_context *c); /* %s */\n",
				    r->items[k]->index, i, r->items[k]->name);
	}
	strbuf_addstr(&code, "\n");
	for (int i = 0; i < s->funcs.len; i++) {
		struct func *f = s->funcs.items[i];
		if (f->embedded) {
			if (!inline_value(f))   /* else never called */
				gen_embedded_func(s, &types, &code, f);
			continue;
		}
		bool typed = false;   /* its frame, declared once for all its copies */
		for (int p = 0; p < s->probes.len; p++)
			for (int k = 0; k < s->probes.items[p]->ctx_funcs.len; k++) {
				if (s->probes.items[p]->ctx_funcs.items[k] != f)
					continue;
				strbuf_addf(&code, "/* function %s in probe %s */\n", f->name, s->probes.items[p]->pp);
				gen_body(s, typed ? NULL : &types, &code, xasprintf("fn_%d_p%d", i, p),
					 xasprintf("fr_f%d", i), f->body, &f->params, &f->locals, f, "STP_MAXACTION",
					 s->probes.items[p]);
				typed = true;
			}
		if (f->in_context) {
			if (!typed)   /* called by no probe: its frame still sits in the union */
				strbuf_addf(&types, "struct fr_f%d {\n\tchar unused_;\n};\n", i);
			continue;
		}
		strbuf_addf(&code, "/* function %s */\n", f->name);
		gen_body(s, &types, &code, xasprintf("fn_%d", i), xasprintf("fr_f%d", i), f->body,
			 &f->params, &f->locals, f, "STP_MAXACTION", NULL);
	}

	/* probe bodies, numbered by pass 2 in order of first use: each at the
	 * first derived probe that uses it */
	int nbodies = 0;
	for (int i = 0; i < s->probes.len; i++) {
		struct derived_probe *dp = s->probes.items[i];
		struct probe *p = dp->probe;
		if (dp->body < nbodies)
			continue;
		nbodies++;
		strbuf_addf(&code, "/* probe %s */\n", dp->pp);
		bool process_ctx = dp->kind == STP_PK_BEGIN || dp->kind == STP_PK_END || dp->kind == STP_PK_ERROR;
		gen_body(s, &types, &code, xasprintf("body_%d", dp->body), xasprintf("fr_p%d", dp->body),
			 p->body, NULL, &p->locals, NULL,
			 process_ctx ? "MAXACTION_INTERRUPTIBLE" : "STP_MAXACTION", dp->own_body ? dp : NULL);
	}

	strbuf_addstr(out, types.buf);
	strbuf_addstr(out, "\nunion stp_frame {\n");
	for (int i = 0; i < s->funcs.len; i++)
		if (!inline_value(s->funcs.items[i]))
			strbuf_addf(out, "\tstruct fr_f%d f%d;\n", i, i);
	for (int i = 0; i < nbodies; i++)
		strbuf_addf(out, "\tstruct fr_p%d p%d;\n", i, i);
	for (int i = 0; i < s->probes.len; i++)
		if (s->probes.items[i]->has_entry)
			strbuf_addf(out, "\tstruct fr_e%d e%d;\n", i, i);
	strbuf_addstr(out, "};\n#define STP_FRAME_SIZE sizeof(union stp_frame)\n\n");

	uses_pn = uses_func(s, "pn");
	strbuf_addf(out, "static const struct stp_probe stp_probes[STP_NUM_PROBES] = {\n");
	for (int i = 0; i < s->probes.len; i++) {
		struct derived_probe *dp = s->probes.items[i];
		char *pos = probe_pos(dp);
		const char *type = probe_type_name(dp);
		const char *pn = dp->probe->alias_pp;

		strbuf_addf(out, "\t{ .pp = %s, .pos = %s, .kind = %s, .index = %d, .type = \"%s\"",
			    c_string(dp->pp, strlen(dp->pp)), c_string(pos, strlen(pos)),
			    kind_name(dp->kind), i, type);
		/* pn(): the alias as reached, else pp() (NULL) */
		if (pn && uses_pn)
			strbuf_addf(out, ", .pn = %s", c_string(pn, strlen(pn)));
		strbuf_addstr(out, " },\n");
	}
	strbuf_addstr(out, "};\n\n");
	gen_timing_table(s, out);
	strbuf_addstr(out, code.buf);

	gen_handlers(s, out);
	gen_script_init(s, out);
	gen_lifecycle(s, out);
	strbuf_addstr(out, "#include \"runtime_main.h\"\n");
	strbuf_release(&types);
	strbuf_release(&code);
	return s->errors ? 1 : 0;
}
