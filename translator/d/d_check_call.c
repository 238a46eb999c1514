/* d_check_call.c - calls of D's functions: arguments against prototypes
 * (D_PROTO_LEN, D_PROTO_ARG), the rules of each action as a statement
 * (trace's D_TRACE_*, stack's D_STACK_SIZE, tracemem's D_TRACEMEM_*,
 * speculation's D_*_SPEC and D_*_COMM ...), and aggregations (D_AGG_*,
 * the quantizations' D_LQUANT_* and D_LLQUANT_*).
 */
#include <string.h>

#include "d/d_check_int.h"

/* ---- prototypes --------------------------------------------------------------------- */

/* The type a prototype names ("struct mutex *" made incomplete when the
 * kernel's types are not at hand). */
static struct d_type *param_type(struct d_ck *ck, const char *name)
{
	struct d_type *t = d_type_lookup(ck->ts, name);
	char *tag;

	if (t)
		return t;
	if (!strncmp(name, "struct ", 7)) {
		tag = xstrndup(name + 7, strcspn(name + 7, " *"));
		return d_type_pointer(ck->ts, d_type_tag(ck->ts, DT_STRUCT, tag, true));
	}
	return ck_type(ck, name);
}

/* D's strings as a parameter: string, char *, const char * */
static bool string_param(const char *name)
{
	return !strcmp(name, "string") || !strcmp(name, "char *") || !strcmp(name, "const char *");
}

/* argument a may be passed for the parameter of that name */
static bool arg_compat(struct d_ck *ck, const char *pname, struct d_expr *a)
{
	struct d_type *at = a->type, *pt;

	if (!strcmp(pname, "@"))
		return true;
	if (ck_is_void(at) || ck_is_dyn(at) || a->kind == DE_AGG)
		return false;
	if (string_param(pname))
		return ck_is_strlike(at);
	pt = param_type(ck, pname);
	if (ck_is_ptr(pt) && ck_is_string(at))   /* a string is its characters' address */
		return ck_is_void(d_type_resolve(pt)->ref) || d_type_resolve(d_type_resolve(pt)->ref)->size == 1;
	if (ck_is_ptr(pt))
		return ck_ptr_compat(pt, at) || ck_is_zero(ck, a) || at == ck_unknown();
	return ck_is_int(pt) ? ck_is_int(at) || ck_is_ptr(at) : ck_compat(pt, at, false);
}

/* a call's arguments checked: their number, then each one's type */
static void check_proto(struct d_ck *ck, const struct d_func *f, struct d_expr *e)
{
	int n = e->args.len;
	char buf[64];
	const char *p;

	if (n < f->min_args || (f->max_args >= 0 && n > f->max_args)) {
		const char *q = f->min_args == f->max_args ? "" : n < f->min_args ? "at least " : "at most ";
		CK_ERR(ck, "D_PROTO_LEN", e->pos, "%s( ) prototype mismatch: %d arg%s passed, %s%d expected",
		       e->name, n, n == 1 ? "" : "s", q, n < f->min_args ? f->min_args : f->max_args);
	}
	for (int i = 0; i < n; i++) {
		struct d_expr *a = e->args.items[i];
		if (!(p = d_func_param(f, i, buf, sizeof(buf))) || !strcmp(p, "@agg"))
			continue;
		if (!arg_compat(ck, p, a))
			CK_ERR(ck, "D_PROTO_ARG", e->pos, "%s( ) argument #%d is incompatible with prototype:\n"
			       "\tprototype: %s\n\t argument: %s", e->name, i + 1, p, ck_name(a->type));
	}
}

/* An argument cooked: an aggregation where the function takes one is its
 * own (never an error here, printa and clear say), the rest expressions. */
static void cook_args(struct d_ck *ck, struct d_expr *e)
{
	for (int i = 0; i < e->args.len; i++) {
		struct d_expr *a = e->args.items[i];
		if (a->kind == DE_AGG)
			a->type = ck_dyn();
		else
			ck_expr(ck, a);
	}
}

/* ---- subroutines' own rules -------------------------------------------------------------- */

/* alloca(n), copyin(a, n): n within the scratch space */
static void check_scratch(struct d_ck *ck, struct d_expr *e, struct d_expr *size)
{
	int64_t n;

	if (ck->scratchsize && ck_const(ck, size, &n) && n > ck->scratchsize)
		CK_ERR(ck, "D_ALLOCA_SIZE", e->pos, "%s(%lld) size larger than scratchsize %lld", e->name,
		       (long long)n, (long long)ck->scratchsize);
}

static void subr_rules(struct d_ck *ck, struct d_expr *e)
{
	int64_t v;

	if (!strcmp(e->name, "alloca"))
		check_scratch(ck, e, e->args.items[0]);
	else if (!strcmp(e->name, "copyin"))
		check_scratch(ck, e, e->args.items[1]);
	else if (!strcmp(e->name, "copyinto") && ck_alloca_kind(ck, e->args.items[2]) != 1)
		CK_ERR(ck, "D_PROTO_ARG", e->pos, "copyinto( ) argument #3 is incompatible with prototype:\n"
		       "\tprototype: void *\n\t argument: %s (not alloca()'d memory)",
		       ck_name(e->args.items[2]->type));
	else if (!strcmp(e->name, "inet_ntoa6") && e->args.len == 2 && !ck_const(ck, e->args.items[1], &v))
		CK_ERR(ck, "D_PROTO_ARG", e->pos, "inet_ntoa6( ) argument #2 is incompatible with prototype:\n"
		       "\tprototype: integer constant\n\t argument: %s", ck_name(e->args.items[1]->type));
}

struct d_type *ck_call(struct d_ck *ck, struct d_expr *e)
{
	const struct d_func *f = d_func_find(e->name);

	if (!f)
		CK_ERR(ck, "D_FUNC_UNDEF", e->pos, "%s( ) is not defined", e->name);
	cook_args(ck, e);
	if (f->kind == DF_AGG)
		CK_ERR(ck, "D_AGG_FUNC", e->pos, "%s( ) may only be used as the value of an aggregation", e->name);
	check_proto(ck, f, e);
	if (f->kind == DF_SUBR)
		subr_rules(ck, e);
	if (f->destructive && !ck->S->opts->destructive)
		ck->destructive = true;
	if (!strcmp(f->ret, "void"))
		return ck_type(ck, "void");
	return param_type(ck, f->ret);
}

/* ---- actions as statements ---------------------------------------------------------------- */

/* stack(n), ustack(n, size), jstack(n, size): constants, positive */
static void stack_rules(struct d_ck *ck, struct d_expr *e)
{
	int64_t v;
	const char *tag = !strcmp(e->name, "stack") ? "D_STACK_SIZE" : "D_USTACK_FRAMES";

	if (e->args.len > 0 && (!ck_const(ck, e->args.items[0], &v) || v <= 0))
		CK_ERR(ck, tag, e->pos, "%s( ) argument #1 must be a non-zero positive integer constant", e->name);
	if (e->args.len > 1 && (!ck_const(ck, e->args.items[1], &v) || v < 0))
		CK_ERR(ck, "D_USTACK_STRSIZE", e->pos, "%s( ) argument #2 must be a positive integer constant",
		       e->name);
}

/* tracemem(addr, size[, dsize]) */
static void tracemem_rules(struct d_ck *ck, struct d_expr *e)
{
	struct d_type *t = e->args.items[0]->type;
	int64_t v;

	if (!ck_is_int(t) && !ck_is_ptr(t) && !ck_is_array(t))
		CK_ERR(ck, "D_TRACEMEM_ADDR", e->pos, "tracemem( ) argument #1 is incompatible with prototype:\n"
		       "\tprototype: pointer or integer\n\t argument: %s", ck_name(t));
	if (!ck_const(ck, e->args.items[1], &v) || v <= 0)
		CK_ERR(ck, "D_TRACEMEM_SIZE", e->pos,
		       "tracemem( ) argument #2 must be a non-zero positive integral constant expression");
	if (e->args.len > 2 && !ck_is_int(e->args.items[2]->type))
		CK_ERR(ck, "D_TRACEMEM_DYNSIZE", e->pos, "tracemem( ) argument #3 must be an integer");
}

/* clear(@a), trunc(@a[, n]), normalize(@a, n), denormalize(@a) */
static void aggop_rules(struct d_ck *ck, struct d_expr *e)
{
	struct d_expr *a = e->args.items[0];
	const char *tag = !strcmp(e->name, "trunc") ? "D_TRUNC_AGGARG" : !strcmp(e->name, "clear")
		? "D_CLEAR_AGGARG" : "D_NORMALIZE_AGGARG";

	if (a->kind != DE_AGG)
		CK_ERR(ck, tag, e->pos, "%s( ) argument #1 is incompatible with prototype:\n"
		       "\tprototype: aggregation\n\t argument: %s", e->name,
		       a->type ? ck_name(a->type) : "void");
}

/* trace(x): a value that is something */
static void trace_rules(struct d_ck *ck, struct d_expr *e)
{
	struct d_type *t = e->args.items[0]->type;

	if (ck_is_void(t))
		CK_ERR(ck, "D_TRACE_VOID", e->pos, "trace( ) may not be applied to a void expression");
	if (ck_is_dyn(t) || e->args.items[0]->kind == DE_AGG)
		CK_ERR(ck, "D_TRACE_DYN", e->pos, "trace( ) may not be applied to a dynamic expression");
}

/* freopen(path): a file, not "." or ".." */
static void freopen_rules(struct d_ck *ck, struct d_expr *e)
{
	struct d_expr *a = e->args.items[0];

	if (a->kind == DE_STR && (!strcmp(a->str, ".") || !strcmp(a->str, "..")))
		CK_ERR(ck, "D_FREOPEN_INVALID", e->pos, "freopen( ) argument #1 cannot be \"%s\"", a->str);
}

/* DTrace's order of actions in a clause: nothing that records data, no
 * aggregation, no exit() after commit(); speculative tracing only of data
 * (a clause's speculate() before its data, once, and no destructive
 * action, aggregation or exit() after it). */
static void order_rules(struct d_ck *ck, const struct d_func *f, struct d_expr *e)
{
	const char *n = e->name;

	if (!strcmp(n, "speculate")) {
		if (ck->spec)
			CK_ERR(ck, "D_SPEC_SPEC", e->pos, "speculate( ) may not follow speculate( )");
		if (ck->commit)
			CK_ERR(ck, "D_SPEC_COMM", e->pos, "speculate( ) may not follow commit( )");
		if (ck->recorded)
			CK_ERR(ck, "D_SPEC_DREC", e->pos, "speculate( ) may not follow data-recording action(s)");
		ck->spec = true;
		return;
	}
	if (!strcmp(n, "commit") || !strcmp(n, "discard")) {
		if (ck->spec)
			CK_ERR(ck, "D_COMM_SPEC", e->pos, "%s( ) may not follow speculate( )", n);
		if (!strcmp(n, "commit") && ck->recorded)
			CK_ERR(ck, "D_COMM_DREC", e->pos, "commit( ) may not follow data-recording action(s)");
		if (!strcmp(n, "commit"))
			ck->commit = true;
		return;
	}
	if (f->destructive && ck->spec)
		CK_ERR(ck, "D_ACT_SPEC", e->pos, "destructive actions may not follow speculate( )");
	if (!strcmp(n, "exit") && ck->spec)
		CK_ERR(ck, "D_EXIT_SPEC", e->pos, "exit( ) may not follow speculate( )");
	if (f->records && ck->commit)
		CK_ERR(ck, "D_DREC_COMM", e->pos, "data-recording actions may not follow commit( )");
	if (f->records)
		ck->recorded = true;
}

/* print(p): p points to something of a size */
static void print_rules(struct d_ck *ck, struct d_expr *e)
{
	struct d_type *t = d_type_resolve(e->args.items[0]->type);

	if (t && t->kind == DT_PTR && !ck_is_void(t->ref) && ck_sizeof(t->ref) == 0)
		CK_ERR(ck, "D_PRINT_SIZE", e->pos, "print( ) argument #1 reference has type '%s' with size 0; "
		       "cannot print( ) it.", ck_name(t->ref));
}

/* an action taking an aggregation first: one is there (checked before the
 * arguments are, so that an aggregating function there is this error) */
static bool takes_agg(const struct d_func *f)
{
	char buf[16];
	const char *p = d_func_param(f, 0, buf, sizeof(buf));

	return p && !strcmp(p, "@agg");
}

void ck_action_stmt(struct d_ck *ck, struct d_expr *e)
{
	const struct d_func *f = d_func_find(e->name);
	const char *n = e->name;

	if (takes_agg(f) && e->args.len > 0 && e->args.items[0]->kind == DE_CALL) {
		const struct d_func *g = d_func_find(e->args.items[0]->name);
		if (g && g->kind == DF_AGG)
			aggop_rules(ck, e);
	}
	ck_expr(ck, e);
	if (!strcmp(n, "trace"))
		trace_rules(ck, e);
	else if (!strcmp(n, "printf"))
		ck_printf(ck, e, "printf");
	else if (!strcmp(n, "printa"))
		ck_printa(ck, e);
	else if (!strcmp(n, "tracemem"))
		tracemem_rules(ck, e);
	else if (!strcmp(n, "stack") || !strcmp(n, "ustack") || !strcmp(n, "jstack"))
		stack_rules(ck, e);
	else if (!strcmp(n, "clear") || !strcmp(n, "trunc") || !strcmp(n, "normalize") ||
		 !strcmp(n, "denormalize"))
		aggop_rules(ck, e);
	else if (!strcmp(n, "freopen"))
		freopen_rules(ck, e);
	else if (!strcmp(n, "system"))
		ck_printf(ck, e, "system");
	else if (!strcmp(n, "print"))
		print_rules(ck, e);
	order_rules(ck, f, e);
}

/* ---- aggregations -------------------------------------------------------------------------- */

/* lquantize(x, base, limit[, step[, incr]]) and llquantize(x, factor,
 * low, high, steps[, incr]): their constant parameters, in order */
struct quant {
	int64_t p[4];
};

/* argument i of call: an integer constant, else the tag's error */
static int64_t const_arg(struct d_ck *ck, struct d_expr *call, int i, const char *tag, const char *what)
{
	int64_t v;

	if (!ck_const(ck, call->args.items[i], &v))
		CK_ERR(ck, tag, call->pos, "%s( ) argument #%d (%s) must be an integer constant", call->name,
		       i + 1, what);
	return v;
}

static void lquantize_params(struct d_ck *ck, struct d_expr *call, struct quant *q)
{
	int64_t base, limit, step = 1;

	base = const_arg(ck, call, 1, "D_LQUANT_BASETYPE", "base");
	if (base < INT32_MIN || base > INT32_MAX)
		CK_ERR(ck, "D_LQUANT_BASEVAL", call->pos, "lquantize( ) argument #2 (base) must be a 32-bit quantity");
	limit = const_arg(ck, call, 2, "D_LQUANT_LIMTYPE", "limit");
	if (limit < INT32_MIN || limit > INT32_MAX)
		CK_ERR(ck, "D_LQUANT_LIMVAL", call->pos, "lquantize( ) argument #3 (limit) must be a 32-bit quantity");
	if (call->args.len > 3)
		step = const_arg(ck, call, 3, "D_LQUANT_STEPTYPE", "step");
	if (limit <= base)
		CK_ERR(ck, "D_LQUANT_MISMATCH", call->pos,
		       "lquantize( ) base (argument #2) must be less than limit (argument #3)");
	if (step <= 0)
		CK_ERR(ck, "D_LQUANT_STEPTYPE", call->pos, "lquantize( ) argument #4 (step) must be positive");
	if (step > UINT16_MAX)
		CK_ERR(ck, "D_LQUANT_STEPVAL", call->pos, "lquantize( ) argument #4 (step) must be a 16-bit quantity");
	if ((limit - base) / step == 0)
		CK_ERR(ck, "D_LQUANT_STEPLARGE", call->pos,
		       "lquantize( ) step (argument #4) too large: must have at least one quantization level");
	if ((limit - base) / step > UINT16_MAX)
		CK_ERR(ck, "D_LQUANT_STEPSMALL", call->pos,
		       "lquantize( ) step (argument #4) too small: number of quantization levels must be a 16-bit quantity");
	q->p[0] = base, q->p[1] = limit, q->p[2] = step;
}

/* factor^(high + 1) fits in 64 bits */
static bool pow_fits(int64_t factor, int64_t high)
{
	uint64_t v = 1;

	for (int64_t i = 0; i <= high; i++) {
		if (v > UINT64_MAX / (uint64_t)factor)
			return false;
		v *= (uint64_t)factor;
	}
	return true;
}

/* factor^n (n small: checked by pow_fits) */
static uint64_t upow(int64_t factor, int64_t n)
{
	uint64_t v = 1;

	while (n-- > 0)
		v *= (uint64_t)factor;
	return v;
}

static void llquantize_params(struct d_ck *ck, struct d_expr *call, struct quant *q)
{
	int64_t factor, low, high, steps;

	factor = const_arg(ck, call, 1, "D_LLQUANT_FACTORTYPE", "factor");
	if (factor < 2 || factor > UINT16_MAX)
		CK_ERR(ck, "D_LLQUANT_FACTORVAL", call->pos,
		       "llquantize( ) argument #2 (factor) must be an unsigned 16-bit quantity greater than 1");
	low = const_arg(ck, call, 2, "D_LLQUANT_LMAGTYPE", "low magnitude");
	if (low < 0 || low > UINT16_MAX)
		CK_ERR(ck, "D_LLQUANT_LMAGVAL", call->pos,
		       "llquantize( ) argument #3 (low magnitude) must be an unsigned 16-bit quantity");
	high = const_arg(ck, call, 3, "D_LLQUANT_HMAGTYPE", "high magnitude");
	if (high < 0 || high > UINT16_MAX)
		CK_ERR(ck, "D_LLQUANT_HMAGVAL", call->pos,
		       "llquantize( ) argument #4 (high magnitude) must be an unsigned 16-bit quantity");
	if (high < low)
		CK_ERR(ck, "D_LLQUANT_MAGRANGE", call->pos, "llquantize( ) high magnitude (argument #4) must be "
		       "greater than or equal to low magnitude (argument #3)");
	if (!pow_fits(factor, high))
		CK_ERR(ck, "D_LLQUANT_HMAGVAL", call->pos, "llquantize( ) factor (argument #2) raised to power of "
		       "high magnitude (argument #4) plus 1 overflows 64-bits");
	steps = const_arg(ck, call, 4, "D_LLQUANT_STEPTYPE", "steps");
	if (steps <= 0)
		CK_ERR(ck, "D_LLQUANT_STEPTYPE", call->pos, "llquantize( ) argument #5 (steps) must be positive");
	if (steps > UINT16_MAX)
		CK_ERR(ck, "D_LLQUANT_STEPVAL", call->pos,
		       "llquantize( ) argument #5 (steps) must be an unsigned 16-bit quantity");
	if (steps < factor && factor % steps)
		CK_ERR(ck, "D_LLQUANT_STEPVAL", call->pos, "llquantize( ) argument #5 (steps) must evenly divide "
		       "factor (argument #2) when steps < factor");
	if (steps > factor && steps % factor)
		CK_ERR(ck, "D_LLQUANT_STEPVAL", call->pos, "llquantize( ) argument #5 (steps) must be a multiple "
		       "of factor (argument #2) when steps > factor");
	if (steps > factor && low > 0 && upow(factor, low + 1) % (uint64_t)steps)
		CK_ERR(ck, "D_LLQUANT_STEPVAL", call->pos, "llquantize( ) argument #5 (steps) must evenly divide "
		       "pow(argument #2, argument #3 + 1) when steps > factor and low magnitude > 0");
	q->p[0] = factor, q->p[1] = low, q->p[2] = high, q->p[3] = steps;
}

/* an aggregation used again with other parameters of its function */
static void check_params_match(struct d_ck *ck, struct d_var *v, struct d_expr *call, const struct quant *q)
{
	static const char *const lq[] = { "D_LQUANT_MATCHBASE", "D_LQUANT_MATCHLIM", "D_LQUANT_MATCHSTEP" };
	static const char *const lqw[] = { "base (argument #2)", "limit (argument #3)", "step (argument #4)" };
	static const char *const llq[] = { "D_LLQUANT_MATCHFACTOR", "D_LLQUANT_MATCHLMAG",
					   "D_LLQUANT_MATCHHMAG", "D_LLQUANT_MATCHSTEPS" };
	static const char *const llqw[] = { "factor (argument #2)", "low magnitude (argument #3)",
					    "high magnitude (argument #4)", "steps (argument #5)" };
	int64_t prev[4];

	if (v->fn == DA_LQUANTIZE) {
		prev[0] = v->lq_base, prev[1] = v->lq_limit, prev[2] = v->lq_step;
		for (int i = 0; i < 3; i++)
			if (prev[i] != q->p[i])
				CK_ERR(ck, lq[i], call->pos, "lquantize( ) %s doesn't match previous declaration: "
				       "expected %lld, found %lld", lqw[i], (long long)prev[i], (long long)q->p[i]);
	} else if (v->fn == DA_LLQUANTIZE) {
		prev[0] = v->llq_factor, prev[1] = v->llq_low, prev[2] = v->llq_high, prev[3] = v->llq_steps;
		for (int i = 0; i < 4; i++)
			if (prev[i] != q->p[i])
				CK_ERR(ck, llq[i], call->pos, "llquantize( ) %s doesn't match previous declaration: "
				       "expected %lld, found %lld", llqw[i], (long long)prev[i], (long long)q->p[i]);
	}
}

/* a stack or a symbol as an aggregation's key: printed as text */
static bool text_key(const struct d_expr *k)
{
	static const char *const fns[] = {
		"stack", "ustack", "jstack", "sym", "func", "mod", "usym", "ufunc", "umod", "uaddr",
	};

	if (k->kind != DE_CALL)
		return false;
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(k->name, fns[i]))
			return true;
	return false;
}

/* D's stack type: what stack(), ustack() and jstack() keys are */
static struct d_type *stack_type(void)
{
	static struct d_type t = { .kind = DT_STRING, .name = "stack", .size = 8, .complete = true };

	return &t;
}

/* the keys of @a[keys]: cooked, none void or dynamic */
static void agg_keys(struct d_ck *ck, struct d_expr *agg, struct d_expr *idx)
{
	for (int i = 0; idx && i < idx->args.len; i++) {
		struct d_expr *k = idx->args.items[i];
		struct d_type *t;

		if (text_key(k)) {
			bool stack = !strcmp(k->name, "stack") || !strcmp(k->name, "ustack") ||
				     !strcmp(k->name, "jstack");
			ck_expr(ck, k);
			if (stack)
				stack_rules(ck, k);
			k->type = stack ? stack_type() : ck_type(ck, "string");
			continue;
		}
		t = ck_expr(ck, k);
		if (ck_is_void(t))
			CK_ERR(ck, "D_KEY_TYPE", k->pos, "%s[ ] key #%d is of void type", agg->name, i + 1);
		if (ck_is_dyn(t) || k->xlator)
			CK_ERR(ck, "D_KEY_TYPE", k->pos, "%s[ ] key #%d is of a dynamic type", agg->name, i + 1);
	}
}

/* the aggregation's value must be a number (or a pointer) */
static void agg_value(struct d_ck *ck, struct d_expr *call, const struct d_func *f)
{
	struct d_type *t;

	if (f->aggfn == DA_COUNT || !call->args.len)
		return;
	t = call->args.items[0]->type;
	if (!ck_is_scalar(t))
		CK_ERR(ck, "D_AGG_SCALAR", call->pos, "%s( ) argument #1 must be of scalar type", call->name);
}

/* The aggregation's variable, made on first use or checked against it. */
static struct d_var *agg_var(struct d_ck *ck, struct d_expr *e, struct d_expr *agg, struct d_expr *idx,
			     const struct d_func *f, const struct quant *q)
{
	struct d_var *v = d_var_find(ck->S, DV_AGG, agg->name);
	int nkeys = idx ? idx->args.len : 0;

	if (!v) {
		v = xcalloc(1, sizeof(*v));
		v->name = xstrdup(agg->name);
		v->kind = DV_AGG;
		v->fn = f->aggfn;
		v->nkeys = nkeys;
		v->type = ck_type(ck, "int64_t");
		for (int i = 0; i < nkeys && i < D_MAXKEYS; i++)
			v->keys[i] = idx->args.items[i]->type;
		v->lq_base = q->p[0], v->lq_limit = q->p[1], v->lq_step = q->p[2];
		v->llq_factor = q->p[0], v->llq_low = q->p[1], v->llq_high = q->p[2], v->llq_steps = q->p[3];
		v->id = ck->S->vars.len;
		vec_push(&ck->S->vars, v);
		return v;
	}
	if (v->fn != (enum d_aggfn)f->aggfn)
		CK_ERR(ck, "D_AGG_REDEF", e->pos, "aggregation redefined: %s\n\t current: %s( )\n\tprevious: "
		       "another function", agg->name, f->name);
	if (v->nkeys != nkeys)
		CK_ERR(ck, "D_PROTO_LEN", e->pos, "%s[ ] prototype mismatch: %d key%s passed, %d expected",
		       agg->name, nkeys, nkeys == 1 ? "" : "s", v->nkeys);
	for (int i = 0; i < nkeys && i < D_MAXKEYS; i++) {
		struct d_type *p = v->keys[i], *k = idx->args.items[i]->type;
		if (ck_is_strlike(p) != ck_is_strlike(k) ||
		    (ck_is_sou(p) && d_type_resolve(p) != d_type_resolve(k)))
			CK_ERR(ck, "D_PROTO_ARG", e->pos, "%s[ ] key #%d is incompatible with prototype:\n"
			       "\tprototype: %s\n\t      key: %s", agg->name, i + 1, ck_name(p), ck_name(k));
	}
	check_params_match(ck, v, e->rhs, q);
	return v;
}

void ck_aggregation(struct d_ck *ck, struct d_expr *e)
{
	struct d_expr *lhs = e->lhs, *call = e->rhs;
	struct d_expr *idx = lhs->kind == DE_INDEX ? lhs : NULL, *agg = idx ? lhs->lhs : lhs;
	const struct d_func *f = call->kind == DE_CALL ? d_func_find(call->name) : NULL;
	struct quant q = { { 0, 0, 0, 0 } };
	struct d_var *v;

	if (call->kind == DE_CALL && !f)
		CK_ERR(ck, "D_FUNC_UNDEF", call->pos, "%s( ) is not defined", call->name);
	if (e->op != DOP_ASSIGN || !f || f->kind != DF_AGG)
		CK_ERR(ck, "D_AGG_FUNC", e->pos, "%s must be assigned the value of an aggregating function",
		       agg->name);
	agg_keys(ck, agg, idx);
	cook_args(ck, call);
	check_proto(ck, f, call);
	agg_value(ck, call, f);
	if (f->aggfn == DA_LQUANTIZE)
		lquantize_params(ck, call, &q);
	else if (f->aggfn == DA_LLQUANTIZE)
		llquantize_params(ck, call, &q);
	v = agg_var(ck, e, agg, idx, f, &q);
	if (ck->spec)
		CK_ERR(ck, "D_AGG_SPEC", e->pos, "aggregating actions may not follow speculate( )");
	if (ck->commit)
		CK_ERR(ck, "D_AGG_COMM", e->pos, "aggregating actions may not follow commit( )");
	call->type = v->type;
	agg->type = v->type;
	e->type = ck_type(ck, "void");
}
