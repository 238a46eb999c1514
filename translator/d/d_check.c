/* d_check.c - D's semantic pass: every expression gets its D type, every
 * name its variable, every call its prototype checked, with DTrace's tags
 * for what it refuses (D_IDENT_UNDEF, D_PROTO_LEN, D_PROTO_ARG,
 * D_OP_INCOMPAT, D_AGG_REDEF ...). The program is read in order, as
 * DTrace reads it: a variable's first use must give it its type. */
#include <stdlib.h>
#include <string.h>

#include "d/d_funcs.h"
#include "d/d_types.h"
#include "d/d_provider.h"
#include "d/d_sema.h"

/* ---- types ------------------------------------------------------------------ */

static struct d_type *ty_new(enum d_tkind kind, int64_t size, bool sign, const char *name)
{
	struct d_type *t = xcalloc(1, sizeof(*t));

	t->kind = kind;
	t->size = size;
	t->is_signed = sign;
	t->name = xstrdup(name);
	t->complete = true;
	return t;
}

/* The integer type of size bytes and signedness (the one shared node). */
struct d_type *d_ty_int(int size, bool sign)
{
	static struct d_type *cache[2][9];
	static const char *names[2][9] = {
		{ 0, "uchar_t", "ushort_t", 0, "uint_t", 0, 0, 0, "uint64_t" },
		{ 0, "char", "short", 0, "int", 0, 0, 0, "int64_t" },
	};

	if (size != 1 && size != 2 && size != 4 && size != 8)
		size = 8;
	if (!cache[sign][size])
		cache[sign][size] = ty_new(DT_INT, size, sign, names[sign][size]);
	return cache[sign][size];
}

struct d_type *d_ty_string(void)
{
	static struct d_type *t;

	if (!t)
		t = ty_new(DT_STRING, 256, false, "string");
	return t;
}

struct d_type *d_ty_void(void)
{
	static struct d_type *t;

	if (!t)
		t = ty_new(DT_VOID, 0, false, "void");
	return t;
}

/* void * (what copyin(), alloca() and curthread are, for now) */
static struct d_type *ty_voidptr(void)
{
	static struct d_type *t;

	if (!t) {
		t = ty_new(DT_PTR, 8, false, "void *");
		t->ref = d_ty_void();
	}
	return t;
}

/* typedefs stripped */
static const struct d_type *base(const struct d_type *t)
{
	while (t && t->typedef_of)
		t = t->typedef_of;
	return t;
}

bool d_is_int(const struct d_type *t)
{
	t = base(t);
	return t && (t->kind == DT_INT || t->kind == DT_ENUM);
}

bool d_is_string(const struct d_type *t)
{
	t = base(t);
	return t && (t->kind == DT_STRING ||
		     (t->kind == DT_ARRAY && t->ref && base(t->ref)->kind == DT_INT && base(t->ref)->size == 1));
}

bool d_is_ptr(const struct d_type *t)
{
	t = base(t);
	return t && (t->kind == DT_PTR || t->kind == DT_ARRAY);
}

/* scalar: what arithmetic, comparisons and conditions take */
static bool is_scalar(const struct d_type *t)
{
	return d_is_int(t) || d_is_ptr(t);
}

/* C's usual arithmetic conversions on two integer types (int at least) */
static struct d_type *arith(const struct d_type *a, const struct d_type *b)
{
	const struct d_type *x = base(a), *y = base(b);
	int64_t size = 4;
	bool sign = true;

	if (d_is_ptr(x) || d_is_ptr(y))
		return d_ty_int(8, false);
	if (x->size > size)
		size = x->size;
	if (y->size > size)
		size = y->size;
	if ((x->size == size && x->kind == DT_INT && !x->is_signed) ||
	    (y->size == size && y->kind == DT_INT && !y->is_signed))
		sign = false;
	return d_ty_int((int)size, sign);
}

/* ---- names --------------------------------------------------------------------- */

struct d_var *d_var_find(struct d_sema *sema, enum d_vkind kind, const char *name)
{
	for (int i = 0; i < sema->vars.len; i++) {
		struct d_var *v = sema->vars.items[i];
		if (v->kind == kind && !strcmp(v->name, name))
			return v;
	}
	return NULL;
}

static struct d_var *var_new(struct d_sema *sema, enum d_vkind kind, const char *name)
{
	struct d_var *v = xcalloc(1, sizeof(*v));

	v->name = xstrdup(name);
	v->kind = kind;
	v->nkeys = -1;
	v->id = sema->vars.len;
	vec_push(&sema->vars, v);
	return v;
}

/* D's built-in variables and their types */
static struct d_type *builtin_type(const char *name)
{
	static const struct { const char *name; int size; bool sign; bool str; } b[] = {
		{ "execname", 0, 0, 1 }, { "probefunc", 0, 0, 1 }, { "probename", 0, 0, 1 },
		{ "probemod", 0, 0, 1 }, { "probeprov", 0, 0, 1 }, { "cwd", 0, 0, 1 },
		{ "root", 0, 0, 1 }, { "zonename", 0, 0, 1 },
		{ "pid", 4, 1, 0 }, { "ppid", 4, 1, 0 }, { "tid", 4, 1, 0 },
		{ "uid", 4, 0, 0 }, { "gid", 4, 0, 0 }, { "cpu", 4, 1, 0 },
		{ "errno", 4, 1, 0 }, { "epid", 4, 0, 0 }, { "id", 4, 0, 0 },
		{ "ipl", 4, 0, 0 }, { "stackdepth", 4, 0, 0 }, { "ustackdepth", 4, 0, 0 },
		{ "timestamp", 8, 0, 0 }, { "vtimestamp", 8, 0, 0 }, { "walltimestamp", 8, 1, 0 },
		{ "caller", 8, 0, 0 }, { "ucaller", 8, 0, 0 },
		{ "arg0", 8, 1, 0 }, { "arg1", 8, 1, 0 }, { "arg2", 8, 1, 0 }, { "arg3", 8, 1, 0 },
		{ "arg4", 8, 1, 0 }, { "arg5", 8, 1, 0 }, { "arg6", 8, 1, 0 }, { "arg7", 8, 1, 0 },
		{ "arg8", 8, 1, 0 }, { "arg9", 8, 1, 0 },
	};

	for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++)
		if (!strcmp(b[i].name, name))
			return b[i].str ? d_ty_string() : d_ty_int(b[i].size, b[i].sign);
	if (!strcmp(name, "curthread") || !strcmp(name, "curpsinfo") || !strcmp(name, "curlwpsinfo"))
		return ty_voidptr();
	return NULL;
}

bool d_is_builtin(const char *name)
{
	return builtin_type(name) != NULL;
}

/* ---- expressions --------------------------------------------------------------- */

static struct d_type *check(struct d_sema *sema, struct d_expr *e);

static void incompat(struct d_sema *sema, const struct d_expr *e, const char *what)
{
	d_error(sema->dg, "D_OP_INCOMPAT", e->pos, "operands have incompatible types: \"%s\" %s \"%s\"",
		e->lhs && e->lhs->type ? e->lhs->type->name : "?", what,
		e->rhs && e->rhs->type ? e->rhs->type->name : "?");
}

/* a macro variable: $1.. as an integer or a string, $target as an int */
static struct d_type *check_macro(struct d_sema *sema, struct d_expr *e)
{
	const char *n = e->name + 1;
	bool str = false;

	if (*n == '$') {
		str = true;
		n++;
	}
	if (!strcmp(n, "target") || !strcmp(n, "pid") || !strcmp(n, "ppid") || !strcmp(n, "uid") ||
	    !strcmp(n, "gid") || !strcmp(n, "pgid") || !strcmp(n, "sid") || !strcmp(n, "taskid") ||
	    !strcmp(n, "projid") || !strcmp(n, "euid") || !strcmp(n, "egid"))
		return str ? d_ty_string() : d_ty_int(4, true);
	char *end;
	long i = strtol(n, &end, 10);
	if (*end || i < 0)
		d_error(sema->dg, "D_MACRO_UNDEF", e->pos, "macro argument %s is not defined", e->name);
	if (i > sema->nargs)
		d_error(sema->dg, "D_MACRO_UNDEF", e->pos, "macro argument %s is not defined", e->name);
	if (str)
		return d_ty_string();
	const char *v = i == 0 ? "dtrace" : sema->args[i - 1];
	strtoll(v, &end, 0);
	if (*v && !*end)
		return d_ty_int(8, true);
	return d_ty_string();
}

/* the variable an lvalue names, made on first assignment */
static struct d_var *lvalue_var(struct d_sema *sema, struct d_expr *e, struct d_type *t, bool assigning)
{
	enum d_vkind kind;
	const char *name;
	struct d_var *v;

	if (e->kind == DE_IDENT) {
		kind = DV_GLOBAL;
		name = e->name;
	} else if (e->kind == DE_ARROW && e->lhs->kind == DE_IDENT &&
		   (!strcmp(e->lhs->name, "self") || !strcmp(e->lhs->name, "this"))) {
		kind = !strcmp(e->lhs->name, "self") ? DV_SELF : DV_THIS;
		name = e->name;
	} else if (e->kind == DE_INDEX && e->lhs->kind == DE_IDENT && !d_is_builtin(e->lhs->name) &&
		   strcmp(e->lhs->name, "args")) {
		kind = DV_GLOBAL;
		name = e->lhs->name;
	} else if (e->kind == DE_INDEX && e->lhs->kind == DE_ARROW && e->lhs->lhs->kind == DE_IDENT &&
		   (!strcmp(e->lhs->lhs->name, "self") || !strcmp(e->lhs->lhs->name, "this"))) {
		kind = !strcmp(e->lhs->lhs->name, "self") ? DV_SELF : DV_THIS;
		name = e->lhs->name;
	} else {
		return NULL;
	}
	v = d_var_find(sema, kind, name);
	if (!v && kind == DV_GLOBAL && d_is_builtin(name))
		return NULL;
	if (!v) {
		if (!assigning)
			return NULL;
		v = var_new(sema, kind, name);
		v->type = t;
	}
	if (e->kind == DE_INDEX) {
		if (v->nkeys < 0 && !v->assoc) {
			v->assoc = true;
			v->nkeys = e->args.len;
			for (int i = 0; i < e->args.len && i < D_MAXKEYS; i++)
				v->keys[i] = e->args.items[i]->type;
		} else if (v->assoc && v->nkeys != e->args.len) {
			d_error(sema->dg, "D_PROTO_LEN", e->pos, "%s[ ] prototype mismatch: %d key%s passed, %d expected",
				name, e->args.len, e->args.len == 1 ? "" : "s", v->nkeys);
		}
		if (v->assoc)
			for (int i = 0; i < e->args.len && i < D_MAXKEYS; i++) {
				bool s1 = d_is_string(v->keys[i]), s2 = d_is_string(e->args.items[i]->type);
				if (s1 != s2)
					d_error(sema->dg, "D_PROTO_ARG", e->pos,
						"%s[ ] key #%d is incompatible with prototype:\n\tprototype: %s\n\t      key: %s",
						name, i + 1, v->keys[i]->name, e->args.items[i]->type->name);
			}
	}
	return v;
}

/* a call of an action, subroutine or aggregating function */
static struct d_type *check_call(struct d_sema *sema, struct d_expr *e)
{
	const struct d_func *f = d_func_find(e->name);
	int n = e->args.len;

	if (!f)
		d_error(sema->dg, "D_FUNC_UNDEF", e->pos, "%s( ) is not defined", e->name);
	for (int i = 0; i < n; i++) {
		struct d_expr *a = e->args.items[i];
		if (a->kind == DE_AGG)
			a->type = d_ty_int(8, true);
		else
			check(sema, a);
	}
	if (n < f->min_args || (f->max_args >= 0 && n > f->max_args)) {
		const char *q = f->min_args == f->max_args ? "" : n < f->min_args ? "at least " : "at most ";
		d_error(sema->dg, "D_PROTO_LEN", e->pos, "%s( ) prototype mismatch: %d arg%s passed, %s%d expected",
			e->name, n, n == 1 ? "" : "s", q, n < f->min_args ? f->min_args : f->max_args);
	}
	for (int i = 0; i < n && i < 8; i++) {
		struct d_expr *a = e->args.items[i];
		bool bad = ((f->str_args >> i) & 1) && !d_is_string(a->type);
		bad |= ((f->int_args >> i) & 1) && !is_scalar(a->type);
		if (bad)
			d_error(sema->dg, "D_PROTO_ARG", a->pos,
				"%s( ) argument #%d is incompatible with prototype:\n\tprototype: %s\n\t argument: %s",
				e->name, i + 1, ((f->str_args >> i) & 1) ? "string" : "integer",
				a->type ? a->type->name : "?");
	}
	if (f->destructive && !sema->opts->destructive)
		d_error(sema->dg, "D_ACT_DESTRUCT", e->pos, "%s( ) is destructive: it needs -w or #pragma D option destructive",
			e->name);
	switch (f->ret) {
	case DR_VOID: return d_ty_void();
	case DR_INT: return d_ty_int(8, true);
	case DR_UINT: return d_ty_int(8, false);
	case DR_STRING: return d_ty_string();
	case DR_PTR: return ty_voidptr();
	}
	return d_ty_void();
}

static int64_t const_value(struct d_sema *sema, struct d_expr *e, const char *fn)
{
	if (e->kind == DE_INT)
		return e->num;
	if (e->kind == DE_UNARY && e->op == DOP_NEG && e->lhs->kind == DE_INT)
		return -e->lhs->num;
	d_error(sema->dg, "D_PROTO_ARG", e->pos, "%s( ) argument must be an integer constant", fn);
}

/* @a[keys] = f(args): the aggregation's function and keys, checked
 * against its earlier uses */
static void check_aggregation(struct d_sema *sema, struct d_expr *e)
{
	struct d_expr *lhs = e->lhs, *call = e->rhs;
	struct d_expr *agg = lhs->kind == DE_INDEX ? lhs->lhs : lhs;
	int nkeys = lhs->kind == DE_INDEX ? lhs->args.len : 0;
	const struct d_func *f = call->kind == DE_CALL ? d_func_find(call->name) : NULL;

	if (e->op != DOP_ASSIGN || !f || f->kind != DF_AGG)
		d_error(sema->dg, "D_AGG_FUNC", e->pos, "%s must be assigned the value of an aggregating function",
			agg->name);
	check_call(sema, call);
	if (lhs->kind == DE_INDEX)
		for (int i = 0; i < nkeys; i++) {
			struct d_expr *k = lhs->args.items[i];
			if (k->kind == DE_CALL && (!strcmp(k->name, "stack") || !strcmp(k->name, "ustack") ||
						   !strcmp(k->name, "jstack") || !strcmp(k->name, "sym") ||
						   !strcmp(k->name, "func") || !strcmp(k->name, "mod") ||
						   !strcmp(k->name, "usym") || !strcmp(k->name, "ufunc") ||
						   !strcmp(k->name, "umod") || !strcmp(k->name, "uaddr"))) {
				check_call(sema, k);   /* a stack or a symbol as a key: its text */
				k->type = d_ty_string();
				continue;
			}
			struct d_type *kt = check(sema, k);
			if (base(kt)->kind == DT_VOID)
				d_error(sema->dg, "D_KEY_TYPE", lhs->args.items[i]->pos,
					"%s[ ] key #%d is of void type", agg->name, i + 1);
		}
	for (int i = 0; i < call->args.len && (f->aggfn == DA_SUM || f->aggfn == DA_AVG || f->aggfn == DA_MIN ||
						f->aggfn == DA_MAX || f->aggfn == DA_STDDEV || i == 0); i++)
		if (!is_scalar(call->args.items[i]->type))
			d_error(sema->dg, "D_AGG_SCALAR", call->args.items[i]->pos,
				"%s( ) argument #%d must be of scalar type", call->name, i + 1);
	struct d_var *v = d_var_find(sema, DV_AGG, agg->name);
	int64_t p[5] = { 0 };
	if (f->aggfn == DA_LQUANTIZE) {
		p[0] = const_value(sema, call->args.items[1], call->name);
		p[1] = const_value(sema, call->args.items[2], call->name);
		p[2] = call->args.len > 3 ? const_value(sema, call->args.items[3], call->name) : 1;
		if (p[2] <= 0)
			d_error(sema->dg, "D_LQUANT_STEPTYPE", call->pos, "lquantize( ) step must be positive");
		if (p[1] <= p[0])
			d_error(sema->dg, "D_LQUANT_MISMATCH", call->pos,
				"lquantize( ) upper bound must be greater than lower bound");
	} else if (f->aggfn == DA_LLQUANTIZE) {
		for (int i = 0; i < 4; i++)
			p[i] = const_value(sema, call->args.items[i + 1], call->name);
	}
	if (!v) {
		v = var_new(sema, DV_AGG, agg->name);
		v->fn = f->aggfn;
		v->nkeys = nkeys;
		v->type = d_ty_int(8, true);
		for (int i = 0; i < nkeys && i < D_MAXKEYS; i++)
			v->keys[i] = lhs->args.items[i]->type;
		v->lq_base = p[0], v->lq_limit = p[1], v->lq_step = p[2];
		v->llq_factor = p[0], v->llq_low = p[1], v->llq_high = p[2], v->llq_steps = p[3];
	} else {
		if (v->fn != (enum d_aggfn)f->aggfn)
			d_error(sema->dg, "D_AGG_REDEF", e->pos, "aggregation redefined: %s\n\t current: %s( )\n\tprevious: %s( )",
				agg->name, call->name, "another function");
		if (v->nkeys != nkeys)
			d_error(sema->dg, "D_AGG_REDEF", e->pos, "aggregation redefined: %s", agg->name);
		if (f->aggfn == DA_LQUANTIZE && (v->lq_base != p[0] || v->lq_limit != p[1] || v->lq_step != p[2]))
			d_error(sema->dg, "D_AGG_REDEF", e->pos, "aggregation redefined: %s", agg->name);
	}
	agg->type = v->type;
	e->type = d_ty_void();
}

static struct d_type *check_assign(struct d_sema *sema, struct d_expr *e)
{
	if (e->lhs->kind == DE_AGG || (e->lhs->kind == DE_INDEX && e->lhs->lhs->kind == DE_AGG)) {
		check_aggregation(sema, e);
		return e->type;
	}
	struct d_type *rt = check(sema, e->rhs);
	if (base(rt)->kind == DT_VOID)
		d_error(sema->dg, "D_OP_VFPTR", e->rhs->pos, "cannot assign a void value");
	if (e->lhs->kind == DE_INDEX)
		for (int i = 0; i < e->lhs->args.len; i++)
			check(sema, e->lhs->args.items[i]);
	struct d_var *v = lvalue_var(sema, e->lhs, e->op == DOP_ASSIGN ? rt : d_ty_int(8, true), true);
	if (!v) {
		struct d_type *lt = check(sema, e->lhs);
		(void)lt;
		if (e->lhs->kind == DE_IDENT && d_is_builtin(e->lhs->name))
			d_error(sema->dg, "D_OP_LVAL", e->pos, "operator %s requires modifiable lvalue as an operand",
				e->op == DOP_ASSIGN ? "=" : "op=");
		e->type = e->lhs->type;
		return e->type;
	}
	e->lhs->type = v->type;
	if (e->lhs->kind == DE_INDEX)
		e->lhs->lhs->type = v->type;
	if (d_is_string(v->type) != d_is_string(rt))
		d_error(sema->dg, "D_OP_INCOMPAT", e->pos, "operands have incompatible types: \"%s\" = \"%s\"",
			v->type->name, rt->name);
	if (e->op != DOP_ASSIGN && d_is_string(v->type))
		d_error(sema->dg, "D_OP_INT", e->pos, "operator requires operands of integral type");
	e->type = v->type;
	return e->type;
}

/* an enumerator or NULL becomes its constant; an inline keeps its name,
 * with its declaration (its expression, checked here) in e->decl */
static struct d_type *named_constant(struct d_sema *sema, struct d_expr *e)
{
	struct d_type *en;
	int64_t value;
	struct d_decl *d;

	if (d_types_enumerator(sema->types, e->name, &en, &value)) {
		e->kind = DE_INT;
		e->num = value;
		e->str = NULL;
		return en;
	}
	if (!strcmp(e->name, "NULL")) {
		e->kind = DE_INT;
		e->num = 0;
		e->str = NULL;
		return ty_voidptr();
	}
	d = d_types_decl(sema->types, DSC_GLOBAL, e->name);
	if (d && d->kind == DD_INLINE && d->init && !d->assoc) {
		e->decl = d;
		if (!d->init->type)
			check(sema, d->init);
		return d->type ? d->type : d->init->type;
	}
	return NULL;
}

/* a variable read: declared or assigned before, or a built-in */
static struct d_type *check_ident(struct d_sema *sema, struct d_expr *e)
{
	struct d_var *v = d_var_find(sema, DV_GLOBAL, e->name);
	struct d_type *t;

	if (v)
		return v->assoc ? v->type : v->type;
	if ((t = builtin_type(e->name)))
		return t;
	if ((t = named_constant(sema, e)))
		return t;
	d_error(sema->dg, "D_IDENT_UNDEF", e->pos, "failed to resolve %s: Unknown variable name", e->name);
}

static struct d_type *check_binary(struct d_sema *sema, struct d_expr *e)
{
	struct d_type *a = check(sema, e->lhs), *b = check(sema, e->rhs);

	switch (e->op) {
	case DOP_COMMA:
		return b;
	case DOP_LAND: case DOP_LOR: case DOP_LXOR:
		if (!is_scalar(a) || !is_scalar(b))
			incompat(sema, e, "logical");
		return d_ty_int(4, true);
	case DOP_LT: case DOP_GT: case DOP_LE: case DOP_GE: case DOP_EQ: case DOP_NE:
		if (d_is_string(a) != d_is_string(b) || (!d_is_string(a) && !is_scalar(a)) ||
		    (!d_is_string(b) && !is_scalar(b)))
			incompat(sema, e, "compared with");
		return d_ty_int(4, true);
	case DOP_ADD: case DOP_SUB:
		if (!is_scalar(a) || !is_scalar(b))
			incompat(sema, e, e->op == DOP_ADD ? "+" : "-");
		if (d_is_ptr(a) && !d_is_ptr(b))
			return a;
		return arith(a, b);
	default:
		if (!d_is_int(a) || !d_is_int(b))
			d_error(sema->dg, "D_OP_INT", e->pos, "operator requires operands of integral type");
		if (e->op == DOP_SHL || e->op == DOP_SHR)
			return arith(a, d_ty_int(4, true));
		return arith(a, b);
	}
}

static struct d_type *check_unary(struct d_sema *sema, struct d_expr *e)
{
	struct d_type *t;

	/* x++ declares x (an int64_t) as an assignment would */
	if (e->op == DOP_PREINC || e->op == DOP_PREDEC || e->op == DOP_POSTINC || e->op == DOP_POSTDEC) {
		if (e->lhs->kind == DE_INDEX)
			for (int i = 0; i < e->lhs->args.len; i++)
				check(sema, e->lhs->args.items[i]);
		struct d_var *v = lvalue_var(sema, e->lhs, d_ty_int(8, true), true);
		if (v) {
			e->lhs->type = v->type;
			if (!is_scalar(v->type))
				d_error(sema->dg, "D_OP_SCALAR", e->pos, "operator %s requires an operand of scalar type",
					e->op == DOP_PREINC || e->op == DOP_POSTINC ? "++" : "--");
			return v->type;
		}
	}
	t = check(sema, e->lhs);

	switch (e->op) {
	case DOP_NOT:
		if (!is_scalar(t))
			d_error(sema->dg, "D_OP_SCALAR", e->pos, "operator ! requires an operand of scalar type");
		return d_ty_int(4, true);
	case DOP_NEG: case DOP_PLUS: case DOP_BITNOT:
		if (!d_is_int(t))
			d_error(sema->dg, "D_OP_INT", e->pos, "operator requires an operand of integral type");
		return arith(t, d_ty_int(4, true));
	case DOP_PREINC: case DOP_PREDEC: case DOP_POSTINC: case DOP_POSTDEC:
		if (!is_scalar(t))
			d_error(sema->dg, "D_OP_SCALAR", e->pos, "operator requires an operand of scalar type");
		lvalue_var(sema, e->lhs, t, false);
		return t;
	case DOP_SIZEOF:
		return d_ty_int(8, false);
	case DOP_STRINGOF:
		return d_ty_string();
	case DOP_DEREF:
		if (!d_is_ptr(t))
			d_error(sema->dg, "D_DEREF_NONPTR", e->pos, "cannot dereference non-pointer type");
		return base(t)->ref ? base(t)->ref : d_ty_int(8, true);
	case DOP_ADDROF:
		return ty_voidptr();
	default:
		return t;
	}
}

/* an integer constant's type as C gives it: the first of int, unsigned
 * int (octal and hex), long, unsigned long that holds it, as its suffix
 * (u, l, ll) allows */
static struct d_type *const_type(const struct d_expr *e)
{
	const char *t = e->str ? e->str : "";
	bool u = strchr(t, 'u') || strchr(t, 'U');
	bool l = strchr(t, 'l') || strchr(t, 'L');
	bool based = t[0] == '0' && t[1] != 0;
	uint64_t v = (uint64_t)e->num;

	if (!l && !u && v <= INT32_MAX)
		return d_ty_int(4, true);
	if (!l && (u || based) && v <= UINT32_MAX)
		return d_ty_int(4, false);
	if (!u && v <= INT64_MAX)
		return d_ty_int(8, true);
	return d_ty_int(8, false);
}

/* e's type, set in e->type; every error aborts */
static struct d_type *check(struct d_sema *sema, struct d_expr *e)
{
	struct d_type *t = NULL;
	struct d_var *v;

	switch (e->kind) {
	case DE_INT:
		if (!e->type)
			e->type = const_type(e);
		return e->type;
	case DE_STR:
		t = d_ty_string();
		break;
	case DE_IDENT:
		t = check_ident(sema, e);
		break;
	case DE_MACRO:
		t = check_macro(sema, e);
		break;
	case DE_AGG:
		d_error(sema->dg, "D_AGG_SCALAR", e->pos, "aggregation %s is not valid in an expression", e->name);
	case DE_INDEX:
		for (int i = 0; i < e->args.len; i++)
			check(sema, e->args.items[i]);
		if (e->lhs->kind == DE_AGG)
			d_error(sema->dg, "D_AGG_SCALAR", e->pos, "aggregation %s is not valid in an expression",
				e->lhs->name);
		if (e->lhs->kind == DE_IDENT && !strcmp(e->lhs->name, "args")) {
			t = d_provider_arg_type(sema, e);   /* the probes' (NULL: not said) */
			if (!t)
				t = d_ty_int(8, true);
			break;
		}
		if ((v = lvalue_var(sema, e, NULL, false))) {
			t = v->type;   /* a declared C array's element */
			if (base(t) && base(t)->kind == DT_ARRAY && base(t)->ref)
				t = base(t)->ref;
			break;
		}
		if (e->lhs->kind == DE_IDENT && !d_var_find(sema, DV_GLOBAL, e->lhs->name) &&
		    !builtin_type(e->lhs->name))
			d_error(sema->dg, "D_IDENT_UNDEF", e->lhs->pos, "failed to resolve %s: Unknown variable name",
				e->lhs->name);
		t = check(sema, e->lhs);
		if (!d_is_ptr(t))
			d_error(sema->dg, "D_OP_ARRPTR", e->pos, "operator [ ] may not be applied to operand of type \"%s\"",
				t->name);
		t = base(t)->ref ? base(t)->ref : d_ty_int(8, true);
		break;
	case DE_CALL:
		t = check_call(sema, e);
		break;
	case DE_UNARY: case DE_POSTFIX:
		t = check_unary(sema, e);
		break;
	case DE_BINARY:
		t = check_binary(sema, e);
		break;
	case DE_ASSIGN:
		t = check_assign(sema, e);
		break;
	case DE_TERNARY: {
		check(sema, e->args.items[0]);
		struct d_type *a = check(sema, e->lhs), *b = check(sema, e->rhs);
		if (d_is_string(a) != d_is_string(b))
			incompat(sema, e, ":");
		t = d_is_string(a) ? a : arith(a, b);
		break;
	}
	case DE_ARROW:
		if (e->lhs->kind == DE_IDENT && (!strcmp(e->lhs->name, "self") || !strcmp(e->lhs->name, "this"))) {
			enum d_vkind k = !strcmp(e->lhs->name, "self") ? DV_SELF : DV_THIS;
			v = d_var_find(sema, k, e->name);
			if (!v)
				d_error(sema->dg, "D_IDENT_UNDEF", e->pos, "failed to resolve %s->%s: Unknown variable name",
					e->lhs->name, e->name);
			t = v->type;
			break;
		}
		/* fallthrough */
	case DE_MEMBER: {
		if ((t = d_provider_member_type(sema, e)))   /* args[1]->pr_fname ... */
			break;
		/* a member of a struct or union the program declared */
		struct d_type *lt = check(sema, e->lhs), *st = d_type_resolve(lt);
		int64_t off;
		if (e->kind == DE_MEMBER && st && (st->kind == DT_STRUCT || st->kind == DT_UNION) && st->complete) {
			const struct d_member *m = d_type_member(lt, e->name, &off);
			if (!m)
				d_error(sema->dg, "D_TYPE_MEMBER", e->pos, "%s is not a member of %s", e->name,
					d_type_name(lt));
			t = m->type;
			break;
		}
		t = d_ty_int(8, true);
		break;
	}
	case DE_CAST:
		check(sema, e->lhs);
		t = e->cast_type;
		break;
	case DE_SIZEOF_TYPE: case DE_OFFSETOF:
		t = d_ty_int(8, false);
		break;
	case DE_XLATE:
		check(sema, e->lhs);
		t = e->cast_type;
		break;
	}
	e->type = t ? t : d_ty_int(8, true);
	return e->type;
}

/* ---- statements and clauses ----------------------------------------------------- */

static void check_stmt(struct d_sema *sema, struct d_stmt *st)
{
	switch (st->kind) {
	case DS_EXPR:
		check(sema, st->expr);
		break;
	case DS_EMPTY:
		break;
	case DS_IF:
		check(sema, st->expr);
		check_stmt(sema, st->then);
		if (st->els)
			check_stmt(sema, st->els);
		break;
	case DS_BLOCK:
		for (int i = 0; i < st->stmts.len; i++)
			check_stmt(sema, st->stmts.items[i]);
		break;
	}
}

/* printa(@a) and printa(fmt, @a, @b...): the aggregations are printed
 * where the program says, not again at exit */
static void mark_printed(struct d_sema *sema, struct d_stmt *st)
{
	if (st->kind == DS_BLOCK || st->kind == DS_IF) {
		for (int i = 0; i < st->stmts.len; i++)
			mark_printed(sema, st->stmts.items[i]);
		if (st->then)
			mark_printed(sema, st->then);
		if (st->els)
			mark_printed(sema, st->els);
		return;
	}
	if (st->kind != DS_EXPR || st->expr->kind != DE_CALL || strcmp(st->expr->name, "printa"))
		return;
	for (int i = 0; i < st->expr->args.len; i++) {
		struct d_expr *a = st->expr->args.items[i];
		struct d_var *v;
		if (a->kind == DE_AGG && (v = d_var_find(sema, DV_AGG, a->name)))
			v->printed = true;
	}
}

static void declare(struct d_sema *sema, struct d_decl *d)
{
	struct d_var *v;
	enum d_vkind kind = d->storage == DSC_SELF ? DV_SELF : d->storage == DSC_THIS ? DV_THIS : DV_GLOBAL;

	if (d->kind != DD_VAR)
		return;
	if (d_var_find(sema, kind, d->name))
		d_error(sema->dg, "D_DECL_IDRED", d->pos, "identifier redeclared: %s", d->name);
	v = var_new(sema, kind, d->name);
	v->type = d->type;
	if (d->assoc) {
		v->assoc = true;
		v->nkeys = d->keys.len;
		for (int i = 0; i < d->keys.len && i < D_MAXKEYS; i++)
			v->keys[i] = d->keys.items[i];
	}
}

int d_check(struct d_sema *sema)
{
	struct d_program *p = sema->prog;

	for (int i = 0; i < p->decls.len; i++)
		declare(sema, p->decls.items[i]);
	for (int i = 0; i < p->clauses.len; i++) {
		struct d_clause *c = p->clauses.items[i];
		d_provider_clause(sema, c);   /* its probes (D_PDESC_ZERO), before its body as in DTrace */
		if (c->pred) {
			struct d_type *t = check(sema, c->pred);
			if (!is_scalar(t))
				d_error(sema->dg, "D_PRED_SCALAR", c->pred->pos, "predicate result must be of scalar type");
		}
		for (int j = 0; j < c->body.len; j++)
			check_stmt(sema, c->body.items[j]);
	}
	for (int i = 0; i < p->clauses.len; i++) {
		struct d_clause *c = p->clauses.items[i];
		for (int j = 0; j < c->body.len; j++)
			mark_printed(sema, c->body.items[j]);
	}
	return sema->dg->errors ? 1 : 0;
}
