/* elaborate.c - pass 2: resolve names, pull in tapset functions and globals
 * on demand, derive concrete probes through the providers, infer types.
 *
 * Order of name resolution (as SystemTap): function parameter, local already
 * seen, global of the user's script, global of the tapset library, else a new
 * local. Functions: the user's, then the library's. Type inference runs to a
 * fixed point over everything used; what stays unknown is an error.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "options.h"
#include "parse/tapset_index.h"
#include "passes.h"
#include "format.h"
#include "probes/provider.h"
#include "regex.h"
#include "target/syscalls_gen.h"
#include "tvars.h"
#include "session.h"

struct elab {
	struct session *s;
	struct probe *probe;       /* current scope: a probe body ... */
	struct func *func;         /* ... or a function body */
	const struct srcfile *file;
	bool changed;              /* inference made progress */
	bool report;               /* final round: report type errors */
	int loop_depth;
	VEC(struct func *) work;   /* functions whose bodies still need resolving */
};

/* ---- lookup -------------------------------------------------------------- */

/* A global of that name visible from file `from`: a private one only in
 * its own file; and tapset code sees the tapsets' globals only, never the
 * user script's (a tapset function's `i` stays its own local when the
 * script has a global i, as in SystemTap: semok/context-globals). */
static struct sym *find_in(struct sym **v, int n, const char *name, const struct srcfile *from)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i]->name, name) && (!v[i]->is_private || v[i]->file == from) &&
		    (!from || !from->is_tapset || !v[i]->file || v[i]->file->is_tapset))
			return v[i];
	return NULL;
}

static struct sym *find_global(struct elab *el, const char *name)
{
	struct session *s = el->s;
	struct sym *g = find_in(s->globals.items, s->globals.len, name, el->file);

	if (g) {
		g->read = true;   /* referenced: kept in the module */
		return g;
	}
	library_need(s, TN_GLOBAL, name);
	for (int i = 0; i < s->library.len; i++) {
		struct script *sc = s->library.items[i];
		g = find_in(sc->globals.items, sc->globals.len, name, el->file);
		if (g) {
			g->read = true;
			vec_push(&s->globals, g);
			return g;
		}
	}
	return NULL;
}

/* A function of that name taking nargs arguments (functions may be
 * overloaded on their number of parameters); nargs < 0: any. */
static struct func *find_func_in(struct script *sc, const char *name, const struct srcfile *from, int nargs)
{
	for (int i = 0; i < sc->funcs.len; i++) {
		struct func *f = sc->funcs.items[i];
		if (!strcmp(f->name, name) && (!f->is_private || f->file == from) &&
		    (nargs < 0 || f->params.len == nargs))
			return f;
	}
	return NULL;
}

static struct func *find_func_n(struct elab *el, const char *name, int nargs)
{
	struct session *s = el->s;
	struct func *f = find_func_in(s->user, name, el->file, nargs);

	for (int i = 0; !f && i < s->user_more.len; i++)
		f = find_func_in(s->user_more.items[i], name, el->file, nargs);
	if (!f)
		library_need(s, TN_FUNC, name);
	for (int i = 0; !f && i < s->library.len; i++)
		f = find_func_in(s->library.items[i], name, el->file, nargs);
	return f;
}

static bool add_syscall_decoders(struct session *s);

/* The function a call names: same arity first, else any (the call then
 * gets an argument-count error). Pulls a library function in on first use;
 * the syscall tapset's decoding tables (__sc_t_*) are generated then. */
static struct func *find_func(struct elab *el, const char *name, int nargs)
{
	struct session *s = el->s;
	struct func *f = find_func_n(el, name, nargs);

	if (!f && !strncmp(name, "__sc_t_", 7) && add_syscall_decoders(s))
		f = find_func_n(el, name, nargs);
	if (!f)
		f = find_func_n(el, name, -1);
	if (f && !f->used) {
		f->used = true;
		f->index = s->funcs.len;
		vec_push(&s->funcs, f);
		vec_push(&el->work, f);
	}
	return f;
}

static symvec *scope_locals(struct elab *el)
{
	return el->func ? &el->func->locals : &el->probe->locals;
}

static struct sym *new_local(struct elab *el, const char *name, struct srcpos pos)
{
	struct sym *v = xcalloc(1, sizeof(*v));

	v->kind = SYM_LOCAL;
	v->name = xstrdup(name);
	v->pos = pos;
	v->nkeys = -1;
	v->file = el->file;
	vec_push(scope_locals(el), v);
	return v;
}

/* Scalars: parameter, local, global, or a new local. */
static struct sym *resolve_scalar(struct elab *el, const char *name, struct srcpos pos)
{
	struct sym *v;

	if (el->func) {
		for (int i = 0; i < el->func->params.len; i++)
			if (!strcmp(el->func->params.items[i]->name, name))
				return el->func->params.items[i];
	}
	symvec *locals = scope_locals(el);
	for (int i = 0; i < locals->len; i++)
		if (!strcmp(locals->items[i]->name, name))
			return locals->items[i];
	if ((v = find_global(el, name)))
		return v;
	return new_local(el, name, pos);
}

/* Arrays must be globals. */
static struct sym *resolve_array(struct elab *el, const char *name, struct srcpos pos)
{
	struct sym *v = find_global(el, name);

	if (!v) {
		diag(el->s, E_LOCAL_ARRAY, pos, "array '%s' is not declared global", name);
		return NULL;
	}
	v->is_array = true;
	return v;
}

/* ---- resolution ----------------------------------------------------------- */

static void resolve_expr(struct elab *el, struct expr *e);
static void resolve_stmt(struct elab *el, struct stmt *st);

static bool has_pragma(const struct func *f, const char *name)
{
	for (int i = 0; i < f->pragmas.len; i++)
		if (!strcmp(f->pragmas.items[i], name))
			return true;
	return false;
}

/* A print-family call takes at most 32 values (SystemTap's limit), and a
 * tapset function marked guru only guru-mode scripts may call. */
static void check_call(struct elab *el, struct expr *e)
{
	if (e->print && e->args.len > 32)
		diag(el->s, E_ARG_COUNT, e->pos, "too many arguments to %s (%d, at most 32)", e->name, e->args.len);
	if (e->func && !el->s->guru && has_pragma(e->func, "guru") && !(el->file && el->file->is_tapset))
		diag(el->s, E_GURU, e->pos, "function '%s' may not be used unless -g is specified", e->name);
}

/* The operand of <<<, @count(...) or @hist_*(...): a global aggregate or an
 * element of a global array of aggregates. */
static void resolve_stat_operand(struct elab *el, struct expr *x, struct srcpos pos)
{
	if (!x)
		return;
	if (x->kind == EXPR_VAR) {
		/* a local aggregate is an error unless pass 2 elides it (a
		 * store nobody reads): check_resolved() reports what is left */
		x->sym = resolve_scalar(el, x->name, x->pos);
		if (x->sym && x->sym->kind == SYM_GLOBAL && !x->sym->scalar_use)
			x->sym->scalar_use = x;
		return;
	}
	if (x->kind == EXPR_INDEX) {
		resolve_expr(el, x);
		return;
	}
	diag(el->s, E_STATS, pos, "aggregates apply to a global variable or array element");
}

static bool literal_num(const struct expr *e, int64_t *v)
{
	if (!e)
		return false;
	if (e->kind == EXPR_NUM) {
		*v = e->num;
		return true;
	}
	if (e->kind == EXPR_UNARY && e->op == OP_NEG && e->lhs && e->lhs->kind == EXPR_NUM) {
		*v = (int64_t)(0 - (uint64_t)e->lhs->num);   /* -INT64_MIN wraps, as in C */
		return true;
	}
	return false;
}

/* One histogram kind per aggregate, fixed at translation time. */
static void note_histogram(struct elab *el, struct expr *e)
{
	struct sym *v = e->lhs->sym;
	int kind = !strcmp(e->name, "hist_log") ? 1 : 2;
	int64_t lo = 0, hi = 0, step = 0;

	if (kind == 2) {
		if (!literal_num(e->args.items[0], &lo) || !literal_num(e->args.items[1], &hi) ||
		    !literal_num(e->args.items[2], &step)) {
			diag(el->s, E_STATS, e->pos, "@hist_linear takes literal numbers for low, high and step");
			return;
		}
		/* hi - lo in unsigned: exact once hi > lo, where int64 may overflow */
		if (step <= 0 || hi <= lo || ((uint64_t)hi - (uint64_t)lo) / (uint64_t)step > 10000) {
			diag(el->s, E_STATS, e->pos, "@hist_linear needs low < high, step > 0, at most 10000 buckets");
			return;
		}
	}
	if (v->hist_kind && (v->hist_kind != kind || v->hist_lo != lo || v->hist_hi != hi || v->hist_step != step)) {
		diag(el->s, E_STATS, e->pos, "aggregate '%s' is used with two different histograms", v->name);
		return;
	}
	v->hist_kind = kind;
	v->hist_lo = lo;
	v->hist_hi = hi;
	v->hist_step = step;
}

static void note_variance_shift(struct elab *el, struct expr *e)
{
	int64_t n;

	if (!literal_num(e->args.items[0], &n) || n < 0 || n > 16) {
		diag(el->s, E_STATS, e->args.items[0]->pos, "@variance's shift must be a literal from 0 to 16");
		return;
	}
	if (n > e->lhs->sym->var_shift)
		e->lhs->sym->var_shift = (int)n;
}

/* foreach ([v =] b in @hist_log(s)) / @hist_linear: one key, the bucket
 * number; v, if any, its count. */
static void resolve_hist_foreach(struct elab *el, struct stmt *st)
{
	resolve_expr(el, st->array);
	if (st->keys.len != 1)
		diag(el->s, E_STATS, st->pos, "foreach over a histogram takes one key variable (the bucket)");
}

/* @hist_log(s)[i] is read-only: not assigned, incremented, <<<'d or deleted. */
static void check_hist_bucket_write(struct elab *el, struct expr *target)
{
	if (target && target->kind == EXPR_INDEX && !target->name)
		diag(el->s, E_STATS, target->pos, "a histogram bucket cannot be modified");
}

static void resolve_args(struct elab *el, struct expr *e)
{
	for (int i = 0; i < e->args.len; i++)
		resolve_expr(el, e->args.items[i]);
}

/* the [index] expressions of a $target chain */
static void resolve_chain(struct elab *el, struct expr *e)
{
	for (int i = 0; i < e->chain.len; i++)
		if (e->chain.items[i]->kind == TS_INDEX)
			resolve_expr(el, e->chain.items[i]->index);
}

/* A '*' key makes a[...] a slice: only foreach, delete and `in` take one
 * (resolve_slice); a read, a write or an aggregate's operand does not. */
static void check_no_wildcard(struct elab *el, struct expr *e)
{
	for (int i = 0; i < e->args.len; i++)
		if (e->args.items[i]->kind == EXPR_STAR) {
			diag(el->s, E_ARRAY_KEYS, e->args.items[i]->pos,
			     "wildcard not allowed in array index '%s' (only in foreach, delete and 'in')", e->name);
			return;
		}
}

/* a[k1, *, ...] as foreach walks it or delete removes it: its keys are
 * resolved, and may be '*'. */
static void resolve_slice(struct elab *el, struct expr *e)
{
	e->sym = resolve_array(el, e->name, e->pos);
	resolve_args(el, e);
}

static void resolve_expr(struct elab *el, struct expr *e)
{
	if (!e)
		return;
	switch (e->kind) {
	case EXPR_NUM:
	case EXPR_STR:
	case EXPR_STAR:
		return;
	case EXPR_VAR:
		e->sym = resolve_scalar(el, e->name, e->pos);
		if (e->sym && e->sym->kind == SYM_GLOBAL && !e->sym->scalar_use)
			e->sym->scalar_use = e;   /* checked once every use is known */
		return;
	case EXPR_INDEX:
		if (!e->name) {	/* @hist_log(s)[i]: a bucket's count */
			resolve_expr(el, e->lhs);
			resolve_args(el, e);
			return;
		}
		e->sym = resolve_array(el, e->name, e->pos);
		resolve_args(el, e);
		check_no_wildcard(el, e);
		return;
	case EXPR_IN:
		resolve_args(el, e);
		if (e->lhs && e->lhs->kind == EXPR_VAR) {
			e->sym = resolve_array(el, e->lhs->name, e->lhs->pos);
			e->lhs->sym = e->sym;
		} else if (e->lhs) {	/* i in @hist_log(s): bucket i's count */
			resolve_expr(el, e->lhs);
			if (e->args.len != 1)
				diag(el->s, E_ARRAY_KEYS, e->pos, "a histogram bucket is named by one index, not %d",
				     e->args.len);
		}
		return;
	case EXPR_CALL:
		resolve_args(el, e);
		if (!e->print)   /* a call pass 2 made */
			e->print = print_kind(e->name);
		if (e->print)
			return check_call(el, e);
		e->func = find_func(el, e->name, e->args.len);
		if (!e->func) {
			diag(el->s, E_UNRESOLVED_FUNC, e->pos, "unresolved function '%s'", e->name);
			return;
		}
		if (!el->s->runtime_bpf && e->func->file && e->func->file->is_tapset && !strncmp(e->name, "__bpf_", 6)) {
			/* tapsets/bpf_intrinsics.stp: no module form */
			diag(el->s, E_BPF_INTRINSIC, e->pos, "'%s' is a BPF intrinsic: only --runtime=bpf has it",
			     e->name);
			return;
		}
		if (e->args.len != e->func->params.len)
			diag(el->s, E_ARG_COUNT, e->pos, "function '%s' takes %d argument%s, called with %d",
			     e->name, e->func->params.len, e->func->params.len == 1 ? "" : "s", e->args.len);
		check_call(el, e);
		return;
	case EXPR_TARGET:   /* in a function too: the calling probe's (context_funcs.c) */
		resolve_chain(el, e);
		return;
	case EXPR_CAST:
	case EXPR_ATVAR:
		resolve_expr(el, e->lhs);
		resolve_chain(el, e);
		return;
	case EXPR_ENTRY:
	case EXPR_ADDROF:
		resolve_expr(el, e->lhs);
		return;
	case EXPR_PERF:   /* the counter's index in e->num */
		if ((e->num = counter_index(el->s, e->str)) < 0)
			diag(el->s, E_UNRESOLVED_VAR, e->pos, "no perf counter '%s' (perf....counter(\"%s\"))",
			     e->str, e->str);
		return;
	case EXPR_AUTOCAST:   /* typed by autocast_rewrite() */
		resolve_expr(el, e->lhs);
		resolve_chain(el, e);
		return;
	case EXPR_STATOP:
	case EXPR_HIST:
		resolve_stat_operand(el, e->lhs, e->pos);
		resolve_args(el, e);
		if (e->kind == EXPR_HIST && e->lhs && e->lhs->sym)
			note_histogram(el, e);
		if (e->kind == EXPR_STATOP && e->statop == SO_VARIANCE && e->lhs && e->lhs->sym) {
			e->lhs->sym->var_used = true;
			if (e->args.len)
				note_variance_shift(el, e);
		}
		e->sym = e->lhs ? e->lhs->sym : NULL;
		return;
	case EXPR_REGEX: {
		struct regex_prog *prog = xcalloc(1, sizeof(*prog));
		const char *why;
		resolve_expr(el, e->lhs);
		if (!e->rhs || e->rhs->kind != EXPR_STR) {
			diag(el->s, E_BAD_REGEX, e->pos, "the regular expression after %s must be a literal string",
			     expr_op_text(e));
			free(prog);
			return;
		}
		if (!regex_compile(e->rhs->str, prog, &why)) {
			diag(el->s, E_BAD_REGEX, e->rhs->pos, "invalid regular expression: %s", why);
			free(prog);
			return;
		}
		prog->id = el->s->regexes.len;
		vec_push(&el->s->regexes, prog);
		e->regex = prog;
		return;
	}
	case EXPR_EMBEDDED:
		if (!el->s->guru && !(el->file && el->file->is_tapset))
			diag(el->s, E_GURU, e->pos, "embedded code in an expression needs guru mode (-g)");
		return;
	case EXPR_DEFINED:
		/* a plain name under @defined is not a new local */
		if (e->lhs && e->lhs->kind != EXPR_VAR)
			resolve_expr(el, e->lhs);
		return;
	case EXPR_CHOOSE:
		resolve_args(el, e);
		return;
	case EXPR_PARAM:
		diag(el->s, E_NOT_SUPPORTED, e->pos, "this construct is not supported yet");
		return;
	default:
		if (expr_is_update(e) && e->lhs &&
		    (e->lhs->kind == EXPR_TARGET || e->lhs->kind == EXPR_CAST || e->lhs->kind == EXPR_ATVAR) &&
		    !el->s->guru)
			diag(el->s, E_GURU, e->lhs->pos, "writing to a target variable needs guru mode (-g)");
		if (expr_is_update(e))
			check_hist_bucket_write(el, e->lhs);
		if (e->kind == EXPR_ASSIGN && e->op == OP_STAT_ADD)
			resolve_stat_operand(el, e->lhs, e->pos);
		else
			resolve_expr(el, e->lhs);
		resolve_expr(el, e->rhs);
		resolve_args(el, e);
		return;
	}
}

static void resolve_stmt(struct elab *el, struct stmt *st)
{
	if (!st)
		return;
	switch (st->kind) {
	case STMT_BLOCK:
		for (int i = 0; i < st->stmts.len; i++)
			resolve_stmt(el, st->stmts.items[i]);
		break;
	case STMT_FOREACH:
		if (st->array && st->array->kind == EXPR_HIST) {
			resolve_hist_foreach(el, st);
		} else if (st->array && st->array->kind == EXPR_VAR) {
			st->array->sym = resolve_array(el, st->array->name, st->array->pos);
		} else if (st->array && st->array->kind == EXPR_INDEX && st->array->name) {
			resolve_slice(el, st->array);
		} else {
			diag(el->s, E_NOT_SUPPORTED, st->pos, "foreach over this kind of expression is not supported yet");
		}
		for (int i = 0; i < st->keys.len; i++)
			resolve_expr(el, st->keys.items[i]);
		resolve_expr(el, st->value);
		resolve_expr(el, st->limit);
		el->loop_depth++;
		resolve_stmt(el, st->body);
		el->loop_depth--;
		break;
	case STMT_WHILE:
	case STMT_FOR:
		resolve_expr(el, st->init);
		resolve_expr(el, st->expr);
		resolve_expr(el, st->step);
		el->loop_depth++;
		resolve_stmt(el, st->body);
		el->loop_depth--;
		break;
	case STMT_BREAK:
	case STMT_CONTINUE:
		if (!el->loop_depth)
			diag(el->s, E_BAD_CONTEXT, st->pos, "%s outside a loop",
			     st->kind == STMT_BREAK ? "break" : "continue");
		break;
	case STMT_NEXT:
		if (el->func)
			diag(el->s, E_BAD_CONTEXT, st->pos, "next is only allowed in a probe");
		break;
	case STMT_RETURN:
		if (!el->func)
			diag(el->s, E_BAD_CONTEXT, st->pos, "return is only allowed in a function");
		resolve_expr(el, st->expr);
		break;
	case STMT_DELETE: {
		struct expr *e = st->expr;
		check_hist_bucket_write(el, e);
		if (e && e->kind == EXPR_INDEX && e->name) {
			resolve_slice(el, e);
			break;
		}
		if (e && e->kind == EXPR_VAR) {
			struct sym *g = find_global(el, e->name);
			if (g) {
				e->sym = g;
				break;
			}
		}
		resolve_expr(el, e);
		break;
	}
	case STMT_TRY:
		resolve_stmt(el, st->body);
		resolve_expr(el, st->catch_var);
		resolve_stmt(el, st->els);
		break;
	case STMT_EMBEDDED:
		if (!el->s->guru && !(el->file && el->file->is_tapset))
			diag(el->s, E_GURU, st->pos, "embedded code needs guru mode (-g)");
		break;
	default:
		resolve_expr(el, st->expr);
		resolve_stmt(el, st->body);
		resolve_stmt(el, st->els);
		break;
	}
}

/* ---- type inference -------------------------------------------------------- */

/* Make *t equal to want; report a mismatch once, in the final round. */
static void unify(struct elab *el, enum type *t, enum type want, struct srcpos pos, const char *what)
{
	if (want == TYPE_UNKNOWN || *t == want)
		return;
	if (*t == TYPE_UNKNOWN) {
		*t = want;
		el->changed = true;
		return;
	}
	if (el->report)
		diag(el->s, E_TYPE_MISMATCH, pos, "type mismatch for %s: %s vs %s",
		     what, type_name(*t), type_name(want));
}

static enum type infer(struct elab *el, struct expr *e, enum type want);

static void infer_keys(struct elab *el, struct sym *a, struct expr **keys, int n, struct srcpos pos)
{
	if (!a)
		return;
	if (a->nkeys < 0 || (a->nkeys == 0 && !a->is_array))
		a->nkeys = n;
	if (a->nkeys != n) {
		if (el->report)
			diag(el->s, E_ARRAY_KEYS, pos, "array '%s' used with %d key%s, elsewhere with %d",
			     a->name, n, n == 1 ? "" : "s", a->nkeys);
		return;
	}
	if (n > 9) {
		if (el->report)
			diag(el->s, E_ARRAY_KEYS, pos, "arrays take at most 9 keys");
		return;
	}
	for (int i = 0; i < n; i++) {
		if (keys[i]->kind == EXPR_STAR)
			continue;
		enum type t = infer(el, keys[i], a->key_types[i]);
		unify(el, &a->key_types[i], t, keys[i]->pos, "array key");
	}
}

/* Check printf-family format strings and type their arguments: the
 * arguments the format's signature (runtime/format.h, which stapbpf checks
 * a bundle's formats with too) names, then an invalid conversion if any. */
static void infer_format(struct elab *el, struct expr *e, int first)
{
	struct expr *f = e->args.len > 0 ? e->args.items[0] : NULL;
	int argi = first, n;
	char *sig;

	if (!f || f->kind != EXPR_STR) {
		if (el->report)
			diag(el->s, E_FORMAT, e->pos, "%s needs a literal format string", e->name);
		return;
	}
	sig = xmalloc(strlen(f->str) + 1);	/* a conversion spans 2 bytes or more */
	n = stp_format_signature(f->str, sig, strlen(f->str) + 1, NULL);
	for (size_t k = 0; sig[k]; k++, argi++) {
		size_t c = k;

		while (sig[c] == '*')	/* the conversion a '*' is of */
			c++;
		if (argi >= e->args.len) {
			if (el->report)
				diag(el->s, E_FORMAT, e->pos, "too few arguments for format string");
			free(sig);
			return;
		}
		enum type want = sig[k] == 's' ? TYPE_STRING : TYPE_LONG;
		enum type t = infer(el, e->args.items[argi], TYPE_UNKNOWN);
		if (t == TYPE_UNKNOWN)
			t = infer(el, e->args.items[argi], want);
		if (t != TYPE_UNKNOWN && t != want && el->report)
			diag(el->s, E_FORMAT, e->args.items[argi]->pos,
			     "format '%%%c' expects a %s argument, got %s", sig[c],
			     type_name(want), type_name(t));
	}
	free(sig);
	if (n < 0) {
		if (el->report)
			diag(el->s, E_FORMAT, f->pos, "invalid or missing conversion specifier after '%%' in the format string");
		return;
	}
	if (argi < e->args.len && el->report)
		diag(el->s, E_FORMAT, e->args.items[argi]->pos, "too many arguments for format string");
}

static enum type infer_call(struct elab *el, struct expr *e)
{
	const char *n = e->name;

	const struct print_kind *k = e->print;

	if (k && k->formatted)
		return infer_format(el, e, 1), k->to_string ? TYPE_STRING : TYPE_VOID;
	if (k) {
		bool delim = k->delim;
		for (int i = 0; i < e->args.len; i++) {
			enum type t = infer(el, e->args.items[i], (delim && i == 0) ? TYPE_STRING : TYPE_UNKNOWN);
			if (t == TYPE_UNKNOWN && el->report)
				diag(el->s, E_TYPE_UNRESOLVED, e->args.items[i]->pos, "unresolved type of %s argument", n);
		}
		if ((delim && e->args.len < 2) && el->report)
			diag(el->s, E_ARG_COUNT, e->pos, "%s needs a delimiter and at least one value", n);
		if (!strcmp(n, "print") && e->args.len == 0 && el->report)
			diag(el->s, E_ARG_COUNT, e->pos, "print needs at least one argument");
		return k->to_string ? TYPE_STRING : TYPE_VOID;
	}
	if (!e->func)
		return TYPE_UNKNOWN;
	struct func *f = e->func;
	for (int i = 0; i < e->args.len && i < f->params.len; i++) {
		struct sym *p = f->params.items[i];
		enum type t = infer(el, e->args.items[i], p->type);
		unify(el, &p->type, t, e->args.items[i]->pos, "function argument");
	}
	return f->ret;
}

static void infer_chain(struct elab *el, struct expr *e)
{
	for (int i = 0; i < e->chain.len; i++)
		if (e->chain.items[i]->kind == TS_INDEX)
			infer(el, e->chain.items[i]->index, TYPE_LONG);
}

/* < > <= >= == !=: a long from two values of one type, longs or strings */
static bool is_compare(enum op_kind op)
{
	switch (op) {
	case OP_LT: case OP_GT: case OP_LE: case OP_GE: case OP_EQ: case OP_NE:
		return true;
	default:
		return false;
	}
}

/* Infer e's type, pushing `want` down into symbols of unknown type. */
/* A condition @defined decides alike in every derived probe of the probe
 * being typed: 1 or 0; else (or in a function) -1. */
static int static_cond(struct elab *el, const struct expr *cond)
{
	int live = -1;

	if (!el->probe)
		return -1;
	for (int i = 0; i < el->s->probes.len; i++) {
		const struct derived_probe *dp = el->s->probes.items[i];
		if (dp->probe != el->probe)
			continue;
		int v = tvars_static_cond(el->s, dp, cond);
		if (v < 0 || (live >= 0 && v != live))
			return -1;
		live = v;
	}
	return live;
}

static enum type infer(struct elab *el, struct expr *e, enum type want)
{
	enum type t = TYPE_UNKNOWN;

	switch (e->kind) {
	case EXPR_NUM:
	case EXPR_PERF:
		t = TYPE_LONG;
		break;
	case EXPR_STR:
		t = TYPE_STRING;
		break;
	case EXPR_VAR:
		if (e->sym) {
			unify(el, &e->sym->type, want, e->pos, e->name);
			t = e->sym->type;
		}
		break;
	case EXPR_INDEX:
		if (!e->name && e->lhs) {	/* @hist_log(s)[i] */
			infer(el, e->lhs, TYPE_STATS);
			infer(el, e->args.items[0], TYPE_LONG);
			t = TYPE_LONG;
			break;
		}
		if (e->sym) {
			infer_keys(el, e->sym, e->args.items, e->args.len, e->pos);
			unify(el, &e->sym->type, want, e->pos, e->name);
			t = e->sym->type;
		}
		break;
	case EXPR_IN:
		if (e->sym)
			infer_keys(el, e->sym, e->args.items, e->args.len, e->pos);
		else if (e->lhs && e->lhs->kind == EXPR_HIST && e->args.len == 1) {
			infer(el, e->lhs, TYPE_STATS);
			infer(el, e->args.items[0], TYPE_LONG);
		}
		t = TYPE_LONG;
		break;
	case EXPR_CALL:
		t = infer_call(el, e);
		if (e->func && want != TYPE_UNKNOWN && want != TYPE_VOID)
			unify(el, &e->func->ret, want, e->pos, e->name);
		if (e->func)
			t = e->func->ret;
		break;
	case EXPR_UNARY:
	case EXPR_PREINC:
	case EXPR_POSTINC:
		infer(el, e->lhs, TYPE_LONG);
		t = TYPE_LONG;
		break;
	case EXPR_BINARY:
		if (e->op == OP_CAT) {
			infer(el, e->lhs, TYPE_STRING);
			infer(el, e->rhs, TYPE_STRING);
			t = TYPE_STRING;
		} else if (is_compare(e->op)) {
			enum type a = infer(el, e->lhs, TYPE_UNKNOWN);
			enum type b = infer(el, e->rhs, a);
			if (a == TYPE_UNKNOWN && b != TYPE_UNKNOWN)
				a = infer(el, e->lhs, b);
			if (a != TYPE_UNKNOWN && b != TYPE_UNKNOWN && a != b && el->report)
				diag(el->s, E_TYPE_MISMATCH, e->pos, "comparison of %s with %s",
				     type_name(a), type_name(b));
			t = TYPE_LONG;
		} else {
			infer(el, e->lhs, TYPE_LONG);
			infer(el, e->rhs, TYPE_LONG);
			t = TYPE_LONG;
		}
		break;
	case EXPR_ASSIGN:
		if (e->op == OP_ASSIGN) {
			enum type l = infer(el, e->lhs, want);
			enum type r = infer(el, e->rhs, l);
			if (l == TYPE_UNKNOWN && r != TYPE_UNKNOWN)
				l = infer(el, e->lhs, r);
			if (l != TYPE_UNKNOWN && r != TYPE_UNKNOWN && l != r && el->report)
				diag(el->s, E_TYPE_MISMATCH, e->pos, "assignment of %s to %s",
				     type_name(r), type_name(l));
			t = l;
		} else if (e->op == OP_STAT_ADD) {
			infer(el, e->lhs, TYPE_STATS);
			infer(el, e->rhs, TYPE_LONG);
			t = TYPE_LONG;
		} else if (e->op == OP_CAT) {
			infer(el, e->lhs, TYPE_STRING);
			infer(el, e->rhs, TYPE_STRING);
			t = TYPE_STRING;
		} else {
			infer(el, e->lhs, TYPE_LONG);
			infer(el, e->rhs, TYPE_LONG);
			t = TYPE_LONG;
		}
		break;
	case EXPR_TERNARY: {
		infer(el, e->args.items[0], TYPE_LONG);
		int live = static_cond(el, e->args.items[0]);
		if (live >= 0) {   /* @defined($x) ? $x : $other: the dead branch is not compiled */
			t = infer(el, e->args.items[live ? 1 : 2], want);
			break;
		}
		enum type a = infer(el, e->args.items[1], want);
		enum type b = infer(el, e->args.items[2], a != TYPE_UNKNOWN ? a : want);
		if (a == TYPE_UNKNOWN && b != TYPE_UNKNOWN)
			a = infer(el, e->args.items[1], b);
		if (a != TYPE_UNKNOWN && b != TYPE_UNKNOWN && a != b && el->report)
			diag(el->s, E_TYPE_MISMATCH, e->pos, "conditional branches have types %s and %s",
			     type_name(a), type_name(b));
		t = a;
		break;
	}
	case EXPR_EMBEDDED:
		t = TYPE_LONG;
		break;
	case EXPR_TARGET:
	case EXPR_CAST:
	case EXPR_ATVAR:
		infer_chain(el, e);
		if (e->lhs)
			infer(el, e->lhs, TYPE_LONG);
		/* pretty printing ($x$, $$parms) gives text, anything else a number */
		t = e->suffix || (e->kind == EXPR_TARGET && !strncmp(e->name, "$$", 2)) ? TYPE_STRING : TYPE_LONG;
		if (el->s->list_vars && tvars_unresolved(el->s, e))
			t = TYPE_UNKNOWN;   /* -L lists what it sets as "unknown" */
		break;
	case EXPR_ADDROF:
		if (e->lhs && e->lhs->kind != EXPR_TARGET && e->lhs->kind != EXPR_CAST && e->lhs->kind != EXPR_ATVAR)
			infer(el, e->lhs, TYPE_LONG);
		else if (e->lhs)
			infer_chain(el, e->lhs);
		t = TYPE_LONG;
		break;
	case EXPR_DEFINED:
		t = TYPE_LONG;
		break;
	case EXPR_REGEX:
		infer(el, e->lhs, TYPE_STRING);
		t = TYPE_LONG;
		break;
	case EXPR_ENTRY:
		t = e->lhs ? infer(el, e->lhs, want) : TYPE_UNKNOWN;
		break;
	case EXPR_CHOOSE: {
		enum type a = infer(el, e->args.items[0], want);
		enum type b = infer(el, e->args.items[1], a != TYPE_UNKNOWN ? a : want);
		if (a == TYPE_UNKNOWN && b != TYPE_UNKNOWN)
			a = infer(el, e->args.items[0], b);
		t = a != TYPE_UNKNOWN ? a : b;
		break;
	}
	case EXPR_STATOP:
	case EXPR_HIST:
		if (e->lhs)
			infer(el, e->lhs, TYPE_STATS);
		for (int i = 0; i < e->args.len; i++)
			infer(el, e->args.items[i], TYPE_LONG);
		t = e->kind == EXPR_STATOP ? TYPE_LONG : TYPE_STATS;
		break;
	default:
		break;
	}
	e->type = t;
	if (el->report && want != TYPE_UNKNOWN && want != TYPE_VOID && t != TYPE_UNKNOWN && t != want &&
	    e->kind != EXPR_VAR && e->kind != EXPR_INDEX && e->kind != EXPR_CALL)
		diag(el->s, t == TYPE_STATS || want == TYPE_STATS ? E_STATS : E_TYPE_MISMATCH, e->pos,
		     "expected a %s, got a %s", type_name(want), type_name(t));
	return t;
}

static void infer_stmt(struct elab *el, struct stmt *st);

/* foreach (b in @hist_log(s)): the bucket number is a long. */
static void infer_hist_foreach(struct elab *el, struct stmt *st)
{
	infer(el, st->array, TYPE_STATS);
	for (int i = 0; i < st->keys.len; i++)
		if (st->keys.items[i]->sym)
			unify(el, &st->keys.items[i]->sym->type, TYPE_LONG, st->keys.items[i]->pos,
			      st->keys.items[i]->name);
	if (st->value && st->value->sym)
		unify(el, &st->value->sym->type, TYPE_LONG, st->value->pos, st->value->name);
	if (st->limit)
		infer(el, st->limit, TYPE_LONG);
	infer_stmt(el, st->body);
}

static void infer_stmt(struct elab *el, struct stmt *st)
{
	if (!st)
		return;
	switch (st->kind) {
	case STMT_BLOCK:
		for (int i = 0; i < st->stmts.len; i++)
			infer_stmt(el, st->stmts.items[i]);
		break;
	case STMT_EXPR:
		infer(el, st->expr, TYPE_UNKNOWN);
		break;
	case STMT_IF:
		infer(el, st->expr, TYPE_LONG);
		infer_stmt(el, st->body);
		infer_stmt(el, st->els);
		break;
	case STMT_WHILE:
	case STMT_FOR:
		if (st->init)
			infer(el, st->init, TYPE_UNKNOWN);
		if (st->expr)
			infer(el, st->expr, TYPE_LONG);
		if (st->step)
			infer(el, st->step, TYPE_UNKNOWN);
		infer_stmt(el, st->body);
		break;
	case STMT_FOREACH: {
		struct sym *a = st->array ? st->array->sym : NULL;
		if (st->array && st->array->kind == EXPR_HIST) {
			infer_hist_foreach(el, st);
			break;
		}
		if (a && st->array->kind == EXPR_INDEX)   /* a slice's keys: the array's */
			infer(el, st->array, TYPE_UNKNOWN);
		if (a) {
			/* the key variables and the array's key types, both ways */
			infer_keys(el, a, st->keys.items, st->keys.len, st->pos);
			if (st->value && st->value->sym) {
				unify(el, &st->value->sym->type, a->type, st->value->pos, st->value->name);
				unify(el, &a->type, st->value->sym->type, st->value->pos, a->name);
			}
		}
		if (st->limit)
			infer(el, st->limit, TYPE_LONG);
		infer_stmt(el, st->body);
		break;
	}
	case STMT_RETURN:
		if (st->expr && el->func) {
			enum type t = infer(el, st->expr, el->func->ret);
			unify(el, &el->func->ret, t, st->expr->pos, "return value");
		}
		break;
	case STMT_DELETE:
		if (st->expr->kind == EXPR_INDEX)
			infer(el, st->expr, TYPE_UNKNOWN);
		break;
	case STMT_TRY:
		infer_stmt(el, st->body);
		if (st->catch_var)
			infer(el, st->catch_var, TYPE_STRING);
		infer_stmt(el, st->els);
		break;
	default:
		break;
	}
}

/* ---- driver ---------------------------------------------------------------- */

static void enter_probe(struct elab *el, struct probe *p)
{
	el->probe = p;
	el->func = NULL;
	el->file = p->file;
}

static void enter_func(struct elab *el, struct func *f)
{
	el->probe = NULL;
	el->func = f;
	el->file = f->file;
}

static void add_user_script(struct session *s, struct script *sc)
{
	for (int i = 0; i < sc->globals.len; i++) {
		struct sym *g = sc->globals.items[i];
		if (find_in(s->globals.items, s->globals.len, g->name, g->file)) {
			diag(s, E_DUPLICATE, g->pos, "duplicate global '%s'", g->name);
			continue;
		}
		vec_push(&s->globals, g);
	}
}

/* The kernel keeps kprobes in a table of 64 chains, walked at each
 * registration and at each hit: 250,000 (kernel.function("*") with its
 * inlined copies) took more than half an hour to arm in the guest and made
 * every kernel call crawl. Past MAXKPROBES a script is refused at the point
 * that crossed it, as SystemTap refuses kernel.function("*"). */
static void count_kprobes(struct session *s, struct probe_point *pp, int from)
{
	long long limit = session_define(s, "MAXKPROBES", 50000);
	int mine = 0;

	for (int i = from; i < s->probes.len; i++) {
		const struct derived_probe *dp = s->probes.items[i];
		mine += dp->prov->takes_kprobe && dp->prov->takes_kprobe(s, dp);
	}
	s->kprobes += mine;
	if (mine && s->kprobes > limit && s->kprobes - mine <= limit) {
		char *t = pp_text(pp);
		char *all = mine < s->kprobes ? xasprintf(" (%d with the points before it)", s->kprobes)
					       : xstrdup("");
		diag(s, E_TOO_MANY_KPROBES, pp->pos,
		     "probe point %s needs %d kprobes%s, more than MAXKPROBES (%lld): the kernel's kprobe "
		     "table cannot arm so many at a usable speed; a .call point puts function entries on "
		     "ftrace instead, a narrower pattern needs fewer, -DMAXKPROBES=N raises the limit",
		     t, mine, all, limit);
		free(all);
		free(t);
	}
}

/* A probe point names an alias (expanded into new probes), or is offered
 * to each provider in turn. */
static void derive_point(struct session *s, struct probe *p, struct probe_point *pp, int depth)
{
	if (pp->cond) {
		/* probe PP if (cond) { body }: a probe of its own whose body
		 * starts with `if (!(cond)) next` (checked at each hit; SystemTap
		 * arms and disarms the probe instead, with the same output) */
		struct probe *np = xcalloc(1, sizeof(*np));
		struct probe_point *npp = xmalloc(sizeof(*npp));
		struct stmt *skip = stmt_new(STMT_IF, pp->cond->pos);
		struct expr *not = expr_new(EXPR_UNARY, pp->cond->pos);
		*np = *p;
		*npp = *pp;
		npp->cond = NULL;
		memset(&np->points, 0, sizeof(np->points));
		vec_push(&np->points, npp);
		not->op = OP_NOT;
		not->lhs = expr_clone(pp->cond);
		np->cond = not->lhs;
		skip->expr = not;
		skip->body = stmt_new(STMT_NEXT, pp->cond->pos);
		np->body = stmt_new(STMT_BLOCK, p->body->pos);
		vec_push(&np->body->stmts, skip);
		vec_push(&np->body->stmts, stmt_clone(p->body));
		derive_point(s, np, npp, depth);
		return;
	}
	if (pp_has_doubleglob(pp)) {
		if (!doubleglob_expand(s, p, pp, depth, derive_point))
			derive_point(s, p, doubleglob_within(pp), depth);
		return;
	}
	int before = s->probes.len, errors = s->errors;
	if (alias_expand(s, p, pp, depth, derive_point)) {
		/* an alias whose points all were optional and resolved to nothing */
		if (s->probes.len == before && s->errors == errors && !pp->optional) {
			char *t = pp_text(pp);
			diag(s, E_PROBE_POINT, pp->pos, "no match for probe point %s (none of its alias's points resolved)", t);
			free(t);
		}
		return;
	}
	for (int i = 0; providers[i]; i++) {
		int r = providers[i]->derive(s, p, pp);
		if (r > 0)
			count_kprobes(s, pp, before);
		if (r)
			return;
	}
	/* kernel.func*("f"): a glob within a name, matched against every
	 * family's shapes and alias's names as '**' is; else one in a suffix
	 * (kernel.function("f").*) */
	if (pp_has_name_glob(pp) ? doubleglob_expand(s, p, pp, depth, derive_point)
				 : suffixglob_expand(s, p, pp, depth, derive_point))
		return;
	if (pp->optional)
		return;
	char *t = pp_text(pp);
	diag(s, E_PROBE_POINT, pp->pos, "no match for probe point %s", t);
	free(t);
}

static void derive_probes(struct session *s, struct script *sc)
{
	for (int i = 0; i < sc->probes.len; i++) {
		struct probe *p = sc->probes.items[i];
		if (p->is_alias)
			continue;
		for (int j = 0; j < p->points.len; j++) {
			int before = s->probes.len;
			derive_point(s, p, p->points.items[j], 0);
			if (p->points.items[j]->sufficient && s->probes.len > before)
				break;   /* a !: the rest are not tried */
		}
	}
}

/* A tapset file's own probes (begin probes that fill its globals, as
 * argv.stp's) run when the script uses the file: one of its globals or
 * functions. Derives those of files newly used; false if there were none.
 * (The library grows while pass 2 runs: generated syscall decoders.) */
static bool derive_used_library_probes(struct session *s)
{
	bool any = false;

	for (int i = 0; i < s->library.len; i++) {
		struct script *sc = s->library.items[i];
		bool used = false, has_probes = false;
		if (sc->probes_derived)
			continue;
		for (int j = 0; j < sc->probes.len && !has_probes; j++)
			has_probes = !sc->probes.items[j]->is_alias;
		for (int j = 0; j < s->globals.len && has_probes && !used; j++)
			used = s->globals.items[j]->file == sc->file;
		for (int j = 0; j < s->funcs.len && has_probes && !used; j++)
			used = s->funcs.items[j]->file == sc->file;
		if (!used)
			continue;
		sc->probes_derived = true;
		derive_probes(s, sc);
		any = true;
	}
	return any;
}

/* Bodies of the probes kept: each script probe once, even if it derived
 * several concrete probes. */
static void for_each_body(struct session *s, struct elab *el, void (*fn)(struct elab *, struct stmt *))
{
	struct probe *p;

	for (int i = 0; (p = probe_bodies_next(s, &i));) {
		enter_probe(el, p);
		fn(el, p->body);
	}
	for (int i = 0; i < s->funcs.len; i++) {
		struct func *f = s->funcs.items[i];
		enter_func(el, f);
		if (f->body)
			fn(el, f->body);
	}
}

static void infer_body(struct elab *el, struct stmt *st) { infer_stmt(el, st); }

/* Top-level %{ %} blocks of the user's files, and of every library file
 * whose functions are used, once each, in file order. */
static void collect_embeds(struct session *s)
{
	VEC(struct script *) all = { 0 };

	vec_push(&all, s->user);
	for (int i = 0; i < s->user_more.len; i++)
		vec_push(&all, s->user_more.items[i]);
	for (int i = 0; i < s->library.len; i++)
		vec_push(&all, s->library.items[i]);
	for (int i = 0; i < all.len; i++) {
		struct script *sc = all.items[i];
		bool used = i <= s->user_more.len;
		for (int j = 0; j < s->funcs.len && !used; j++)
			used = s->funcs.items[j]->file == sc->file;
		for (int j = 0; used && j < sc->embeds.len; j++)
			vec_push(&s->embeds, sc->embeds.items[j]);
	}
	free(all.items);
}

/* Globals nobody refers to are dropped (SystemTap elides them too). */
static void elide_unused_globals(struct session *s)
{
	int n = 0;

	for (int i = 0; i < s->globals.len; i++) {
		struct sym *g = s->globals.items[i];
		if (g->read || s->keep_unused) {
			s->globals.items[n++] = g;
			continue;
		}
		diag(s, W_UNUSED_VAR, g->pos, "eliding unused variable '%s'", g->name);
	}
	s->globals.len = n;
}

/* Parameters or locals of one body: none may hold an aggregate, each must
 * have a type. owner names the function of parameters (NULL: locals). */
static void check_syms(struct session *s, const symvec *v, const char *owner)
{
	for (int j = 0; j < v->len; j++)
		if (v->items[j]->type == TYPE_STATS) {
			char *what = owner ? xasprintf("parameter '%s' of '%s'", v->items[j]->name, owner)
					   : xasprintf("'%s'", v->items[j]->name);
			diag(s, E_STATS, v->items[j]->pos, "%s holds an aggregate: aggregates must be global", what);
			free(what);
		}
	for (int j = 0; j < v->len; j++)
		if (v->items[j]->type == TYPE_UNKNOWN) {
			char *what = owner ? xasprintf("parameter '%s' of '%s'", v->items[j]->name, owner)
					   : xasprintf("local '%s'", v->items[j]->name);
			diag(s, E_TYPE_UNRESOLVED, v->items[j]->pos, "unresolved type for %s", what);
			free(what);
		}
}

/* Unknown types, and aggregates outside globals, left after inference. */
static void check_resolved(struct session *s)
{
	for (int i = 0; i < s->globals.len; i++) {
		struct sym *g = s->globals.items[i];
		if (g->type == TYPE_UNKNOWN)
			diag(s, E_TYPE_UNRESOLVED, g->pos, "unresolved type for global '%s'", g->name);
	}
	for (int i = 0; i < s->funcs.len; i++) {
		struct func *f = s->funcs.items[i];
		check_syms(s, &f->params, f->name);
		check_syms(s, &f->locals, NULL);
	}
	struct probe *p;
	for (int i = 0; (p = probe_bodies_next(s, &i));)
		check_syms(s, &p->locals, NULL);
}

/* Initialisers give globals their type; literal only. */
static void type_global_inits(struct session *s)
{
	for (int i = 0; i < s->globals.len; i++) {
		struct sym *g = s->globals.items[i];
		if (!g->init)
			continue;
		enum type t = g->init->kind == EXPR_STR ? TYPE_STRING : TYPE_LONG;
		if (g->type == TYPE_UNKNOWN)
			g->type = t;
		else if (g->type != t)
			diag(s, E_TYPE_MISMATCH, g->init->pos, "initialiser of '%s' has the wrong type", g->name);
	}
}

/* Embedded-C functions: parameters without a declared type that no call
 * gave one (inference ran first: foo("s") makes foo's a a string, as in
 * SystemTap) default to long. */
static void default_embedded_types(struct session *s)
{
	for (int i = 0; i < s->funcs.len; i++) {
		struct func *f = s->funcs.items[i];
		if (!f->embedded)
			continue;
		for (int j = 0; j < f->params.len; j++)
			if (f->params.items[j]->type == TYPE_STATS)
				diag(s, E_STATS, f->params.items[j]->pos,
				     "parameter '%s' of '%s' holds an aggregate: aggregates must be global",
				     f->params.items[j]->name, f->name);
		for (int j = 0; j < f->params.len; j++)
			if (f->params.items[j]->type == TYPE_UNKNOWN)
				f->params.items[j]->type = TYPE_LONG;
	}
}

/* -G name=value: a global of the script, with a value of its type. */
static void check_global_settings(struct session *s)
{
	for (int i = 0; i < s->globals_set.len; i++) {
		const char *arg = s->globals_set.items[i];
		const char *eq = strchr(arg, '=');
		char *name = xstrndup(arg, (size_t)(eq - arg));
		struct sym *g = NULL;
		for (int j = 0; j < s->globals.len && !g; j++)
			if (!strcmp(s->globals.items[j]->name, name) && !s->globals.items[j]->is_private)
				g = s->globals.items[j];
		if (!g || g->is_array) {
			diag(s, E_GLOBAL_SET, (struct srcpos){0}, "-G %s: the script has no %s global '%s'",
			     arg, g ? "scalar" : "used", name);
		} else if (g->type == TYPE_LONG) {
			char *end;
			errno = 0;
			(void)strtoll(eq + 1, &end, 0);
			if (!eq[1] || *end || errno)
				diag(s, E_GLOBAL_SET, (struct srcpos){0}, "-G %s: '%s' is not a number", arg, eq + 1);
		}
		free(name);
	}
}

/* Does a user probe (or alias) name syscall.* or nd_syscall.*? Then the
 * syscall tapset, generated from the kernel's metadata, joins the library. */
static bool uses_syscalls(struct script *sc)
{
	for (int i = 0; i < sc->probes.len; i++) {
		struct probe *p = sc->probes.items[i];
		for (int j = 0; j < p->points.len; j++)
			if (p->points.items[j]->comps.len &&
			    (fnmatch(p->points.items[j]->comps.items[0]->name, "syscall", 0) == 0 ||
			     fnmatch(p->points.items[j]->comps.items[0]->name, "nd_syscall", 0) == 0 ||
			     pp_has_doubleglob(p->points.items[j])))   /* '**' may reach them */
				return true;
	}
	return false;
}

static void add_syscalls(struct session *s)
{
	bool want = uses_syscalls(s->user);
	const char *why = NULL;

	for (int i = 0; i < s->user_more.len && !want; i++)
		want = uses_syscalls(s->user_more.items[i]);
	if (!want)
		return;
	/* the library's own syscall aliases: what is not generated */
	library_need(s, TN_ALIAS, "syscall");
	library_need(s, TN_ALIAS, "nd_syscall");
	char *text = syscalls_tapset(s, &why);
	if (!text) {
		if (s->verbose)
			fprintf(stderr, "stap: no syscall tapset: %s\n", why ? why : "?");
		return;
	}
	if (env_get(ENV_CSTAP_DUMP_SYSCALLS))   /* for tapset authors: what was generated */
		fputs(text, stderr);
	struct srcfile *f = srcfile_new("<syscalls>", text, strlen(text));
	f->is_tapset = true;
	struct script *sc = parse_script(s, f);
	if (sc)
		vec_push(&s->library, sc);
}

/* The syscall tapset's decoding tables, generated from the target kernel's
 * headers, join the library (once): false if they did already or cannot. */
static bool add_syscall_decoders(struct session *s)
{
	static const char file[] = "<syscall-decoders>";
	const char *why = NULL;

	for (int i = 0; i < s->library.len; i++)
		if (!strcmp(s->library.items[i]->file->name, file))
			return false;
	char *text = syscalls_decoders(s, &why);
	if (!text) {
		if (s->verbose)
			fprintf(stderr, "stap: no syscall decoding tables: %s\n", why ? why : "?");
		text = xstrdup("");
	}
	if (env_get(ENV_CSTAP_DUMP_SYSCALLS))
		fputs(text, stderr);
	struct srcfile *f = srcfile_new(file, text, strlen(text));
	f->is_tapset = true;
	struct script *sc = parse_script(s, f);
	if (sc)
		vec_push(&s->library, sc);
	return sc != NULL;
}

int pass2_elaborate(struct session *s)
{
	struct elab el = { .s = s };

	add_syscalls(s);
	add_user_script(s, s->user);
	for (int i = 0; i < s->user_more.len; i++)
		add_user_script(s, s->user_more.items[i]);
	derive_probes(s, s->user);
	for (int i = 0; i < s->user_more.len; i++)
		derive_probes(s, s->user_more.items[i]);
	if (s->errors)
		return 1;
	if (!s->probes.len) {   /* (all were optional) */
		diag(s, E_PROBE_POINT, s->user->probes.len ? s->user->probes.items[0]->pos : (struct srcpos){0},
		     "no probes found");
		return 1;
	}

	struct probe *last = NULL;
	VEC(struct probe *) bodies = { 0 };
	int resolved = 0, funcs_done = 0;
	for (;;) {
		for (; resolved < s->probes.len; resolved++) {
			struct probe *p = s->probes.items[resolved]->probe;
			if (p == last)
				continue;
			last = p;
			vec_push(&bodies, p);
			enter_probe(&el, p);
			resolve_stmt(&el, p->body);
		}
		for (; funcs_done < el.work.len; funcs_done++) {   /* grows while we resolve */
			struct func *f = el.work.items[funcs_done];
			enter_func(&el, f);
			resolve_stmt(&el, f->body);
		}
		if (s->errors || !derive_used_library_probes(s))
			break;   /* else: their bodies are resolved in the next round */
	}
	if (s->check_version)
		check_version_dependence(s);
	if (s->errors)
		return 1;
	context_funcs_mark(s);
	if (!s->list_vars)   /* -L lists the locals an alias's prologue sets, read or not */
		optimize_bodies(s);
	autocast_rewrite(s, bodies.items, bodies.len);
	if (s->errors || target_exprs_resolve(s))
		return 1;

	elide_unused_globals(s);
	collect_embeds(s);
	type_global_inits(s);
	do {
		el.changed = false;
		for_each_body(s, &el, infer_body);
	} while (el.changed);
	default_embedded_types(s);
	do {
		el.changed = false;
		for_each_body(s, &el, infer_body);
	} while (el.changed);
	el.report = true;
	for_each_body(s, &el, infer_body);
	for (int i = 0; i < s->funcs.len; i++)
		if (s->funcs.items[i]->ret == TYPE_UNKNOWN)
			s->funcs.items[i]->ret = TYPE_VOID;
	if (!s->list_vars)   /* -L lists unknown types, as SystemTap */
		check_resolved(s);
	check_semantics(s);
	check_privilege(s);
	check_global_settings(s);
	if (s->errors || elide_empty_probes(s))   /* (after the privilege checks: they see every probe) */
		return 1;
	analyze(s);
	lower_updates(s);
	return 0;
}
