/* d_check.c - D's semantic pass: every expression gets its D type, every
 * name its variable, every call its prototype checked, with DTrace's tags
 * for what it refuses. The program is read in DTrace's order: first what
 * DTrace checks while parsing (option values, constant division by zero,
 * inlines, translators), then each clause in order, its statements in
 * order, so that a variable's first assignment gives it its type and the
 * error reported is the one DTrace reports first.
 *
 * The expressions are d_check_expr.c's, the calls d_check_call.c's, the
 * formats d_check_fmt.c's, the translators d_check_xlate.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "d/d_check_int.h"
#include "d/d_provider.h"

/* ---- D's basic types (for d_lower.c) ---------------------------------------------------- */

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

bool d_is_int(const struct d_type *t)
{
	return ck_is_int((struct d_type *)t);
}

bool d_is_string(const struct d_type *t)
{
	return ck_is_string((struct d_type *)t) ||
		(ck_is_array((struct d_type *)t) && ck_is_strlike((struct d_type *)t));
}

bool d_is_ptr(const struct d_type *t)
{
	return ck_is_ptr((struct d_type *)t) || ck_is_array((struct d_type *)t);
}

bool d_is_builtin(const char *name)
{
	static struct d_ck ck;

	if (!ck.ts)
		ck.ts = d_types_new();
	return ck_builtin_type(&ck, name) != NULL;
}

struct d_var *d_var_find(struct d_sema *sema, enum d_vkind kind, const char *name)
{
	for (int i = 0; i < sema->vars.len; i++) {
		struct d_var *v = sema->vars.items[i];
		if (v->kind == kind && !strcmp(v->name, name))
			return v;
	}
	return NULL;
}

/* ---- options ------------------------------------------------------------------------------- */

/* "64k", "2m", "2000hz", "10ms": the number, false if negative or not one */
static bool option_number(const char *s, int64_t *v)
{
	char *end;
	long long n;

	if (!s || !*s || *s == '-')
		return false;
	n = strtoll(s, &end, 0);
	if (end == s)
		return false;
	switch (*end) {
	case 'k': case 'K': n <<= 10; end++; break;
	case 'm': case 'M': if (end[1] != 's') { n <<= 20; end++; } break;
	case 'g': case 'G': n <<= 30; end++; break;
	case 't': case 'T': n <<= 40; end++; break;
	default: break;
	}
	*v = n;
	return !*end || !strcmp(end, "hz") || !strcmp(end, "ns") || !strcmp(end, "nsec") ||
		!strcmp(end, "us") || !strcmp(end, "usec") || !strcmp(end, "ms") || !strcmp(end, "msec") ||
		!strcmp(end, "s") || !strcmp(end, "sec");
}

/* what a flag option may be set to: yes, no, on, off ... (any case) */
static bool flag_value(const char *v)
{
	static const char *const words[] = {
		"", "yes", "true", "enable", "enabled", "on", "set", "no", "false", "disable", "disabled",
		"off", "unset", NULL,
	};

	for (int i = 0; words[i]; i++)
		if (!strcasecmp(v, words[i]))
			return true;
	return false;
}

static bool listed(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

/* #pragma D option name=value: a value the option takes */
static void check_option(struct d_ck *ck, const struct d_pragma *pr)
{
	static const char *const flags[] = {
		"quiet", "destructive", "flowindent", "rawbytes", "zdefs", "aggsortkey", "aggsortrev",
		"aggpack", "aggzoom", "grabanon", "nolibs", "defaultargs", "errtags", "droptags",
		"argref", "empty", "pspec", "knodefs", "kdefs", "unodefs", "udefs", "verbose", NULL,
	};
	static const char *const numbers[] = {
		"aggsize", "bufsize", "dynvarsize", "specsize", "strsize", "scratchsize", "nspec",
		"stackframes", "ustackframes", "jstackframes", "jstackstrsize", "maxframes", "cpu",
		"aggrate", "cleanrate", "statusrate", "switchrate", "aggsortpos", "stackindent",
		"bpflogsize", "lockmem", NULL,
	};
	static const char *const not_here[] = { "modpath", NULL };
	int64_t v = 0;

	if (pr->kind != DP_OPTION)
		return;
	if (listed(not_here, pr->name))
		CK_ERR(ck, "D_PRAGMA_OPTSET", pr->pos, "failed to set option '%s' to '%s': Option cannot be "
		       "used from within a D program", pr->name, pr->value ? pr->value : "");
	if ((listed(flags, pr->name) && pr->value && !flag_value(pr->value)) ||
	    (listed(numbers, pr->name) && pr->value && !option_number(pr->value, &v)))
		CK_ERR(ck, "D_PRAGMA_OPTSET", pr->pos, "failed to set option '%s' to '%s': Invalid value for "
		       "specified option", pr->name, pr->value);
	if (!strcmp(pr->name, "scratchsize") && pr->value)
		ck->scratchsize = ck->S->opts->scratchsize = v;
}

/* ---- what DTrace checks while parsing ---------------------------------------------------------- */

/* e folded as DTrace folds integer constants while parsing */
static bool literal_value(const struct d_expr *e, int64_t *v)
{
	int64_t a, b;

	if (e->kind == DE_INT) {
		*v = e->num;
		return true;
	}
	if (e->kind == DE_UNARY && literal_value(e->lhs, &a)) {
		switch (e->op) {
		case DOP_NEG: *v = (int64_t)(0 - (uint64_t)a); return true;
		case DOP_PLUS: *v = a; return true;
		case DOP_BITNOT: *v = ~a; return true;
		case DOP_NOT: *v = !a; return true;
		default: return false;
		}
	}
	if (e->kind != DE_BINARY || !literal_value(e->lhs, &a) || !literal_value(e->rhs, &b))
		return false;
	switch (e->op) {
	case DOP_ADD: *v = (int64_t)((uint64_t)a + (uint64_t)b); return true;
	case DOP_SUB: *v = (int64_t)((uint64_t)a - (uint64_t)b); return true;
	case DOP_MUL: *v = (int64_t)((uint64_t)a * (uint64_t)b); return true;
	case DOP_DIV: if (!b || b == -1) return false; *v = a / b; return true;
	case DOP_MOD: if (!b || b == -1) return false; *v = a % b; return true;
	case DOP_BAND: *v = a & b; return true;
	case DOP_BOR: *v = a | b; return true;
	case DOP_BXOR: *v = a ^ b; return true;
	case DOP_SHL: *v = (int64_t)((uint64_t)a << (b & 63)); return true;
	case DOP_SHR: *v = a >> (b & 63); return true;
	default: return false;
	}
}

/* constant / 0 and constant % 0, found as DTrace folds them */
static void check_div_zero(struct d_ck *ck, const struct d_expr *e)
{
	int64_t a, b;

	if (!e)
		return;
	check_div_zero(ck, e->lhs);
	check_div_zero(ck, e->rhs);
	for (int i = 0; i < e->args.len; i++)
		check_div_zero(ck, e->args.items[i]);
	if (e->kind == DE_BINARY && (e->op == DOP_DIV || e->op == DOP_MOD) && literal_value(e->lhs, &a) &&
	    literal_value(e->rhs, &b) && b == 0)
		CK_ERR(ck, "D_DIV_ZERO", e->pos, "expression contains division by zero");
}

static void stmt_div_zero(struct d_ck *ck, const struct d_stmt *st)
{
	check_div_zero(ck, st->expr);
	if (st->then)
		stmt_div_zero(ck, st->then);
	if (st->els)
		stmt_div_zero(ck, st->els);
	for (int i = 0; i < st->stmts.len; i++)
		stmt_div_zero(ck, st->stmts.items[i]);
}

/* inline name = expr: the expression's type one the inline's may hold
 * (the inline is known from here on, not within its own definition) */
static void check_inline(struct d_ck *ck, struct d_decl *d)
{
	struct d_type *t;

	if (!d->assoc) {
		t = ck_expr(ck, d->init);
		if (!ck_compat(d->type, t, ck_is_zero(ck, d->init)))
			CK_ERR(ck, "D_OP_INCOMPAT", d->pos, "inline %s definition uses incompatible types: \"%s\" = "
			       "\"%s\"", d->name, ck_name(d->type), ck_name(t));
	}
	vec_push(&ck->inlines, d);
}

static bool before(struct d_pos a, struct d_pos b)
{
	return a.line < b.line || (a.line == b.line && a.col < b.col);
}

/* The program's inlines and translators in source order. */
static void parse_time(struct d_ck *ck)
{
	struct d_program *p = ck->S->prog;
	int di = 0, xi = 0;

	for (int i = 0; i < p->pragmas.len; i++)
		check_option(ck, p->pragmas.items[i]);
	for (int i = 0; i < p->decls.len; i++)
		if (p->decls.items[i]->kind == DD_INLINE)
			check_div_zero(ck, p->decls.items[i]->init);
	for (int i = 0; i < p->clauses.len; i++) {
		struct d_clause *c = p->clauses.items[i];
		check_div_zero(ck, c->pred);
		for (int j = 0; j < c->body.len; j++)
			stmt_div_zero(ck, c->body.items[j]);
	}
	for (;;) {
		while (di < p->decls.len && p->decls.items[di]->kind != DD_INLINE)
			di++;
		bool d_ok = di < p->decls.len, x_ok = xi < p->xlators.len;
		if (!d_ok && !x_ok)
			break;
		if (d_ok && (!x_ok || before(p->decls.items[di]->pos, p->xlators.items[xi]->pos)))
			check_inline(ck, p->decls.items[di++]);
		else
			ck_xlator_decl(ck, p->xlators.items[xi++]);
	}
}

/* ---- clauses ------------------------------------------------------------------------------------ */

static void check_stmt(struct d_ck *ck, struct d_stmt *st)
{
	struct d_type *t;

	switch (st->kind) {
	case DS_EXPR:
		if (ck_is_action(st->expr))
			ck_action_stmt(ck, st->expr);
		else
			ck_expr(ck, st->expr);
		break;
	case DS_EMPTY:
		break;
	case DS_IF:
		t = ck_expr(ck, st->expr);
		if (!ck_is_scalar(t))
			CK_ERR(ck, "D_COND_SCALAR", st->expr->pos, "if condition must be of scalar type");
		check_stmt(ck, st->then);
		if (st->els)
			check_stmt(ck, st->els);
		break;
	case DS_BLOCK:
		for (int i = 0; i < st->stmts.len; i++)
			check_stmt(ck, st->stmts.items[i]);
		break;
	}
}

/* pid provider descriptions: a probe name is entry, return or an offset;
 * the function "-" (absolute addresses) takes no pattern */
static void check_pid_desc(struct d_ck *ck, const struct d_pdesc *d)
{
	const char *n = d->name;
	bool glob = strpbrk(n, "*?[") != NULL;

	if (strncmp(d->prov, "pid", 3) || strspn(d->prov + 3, "0123456789") != strlen(d->prov + 3) || !*n)
		return;
	if (!strcmp(d->func, "-") && glob)
		CK_ERR(ck, "D_PROC_NAME", d->pos, "only individual addresses may be specified when function "
		       "is \"-\": %s", d->text);
	if (glob || !strcmp(n, "entry") || !strcmp(n, "return"))
		return;
	if (strspn(n, "0123456789abcdefABCDEFx") != strlen(n))
		CK_ERR(ck, "D_PROC_NAME", d->pos, "invalid probe name for the pid provider: %s", d->text);
}

/* does e assign the plain variable name (x = .., x += .., x++, ++x)? */
static bool assigns(const struct d_expr *e, const char *name)
{
	if (!e)
		return false;
	const struct d_expr *t = e->kind == DE_ASSIGN || e->kind == DE_POSTFIX ||
				 (e->kind == DE_UNARY && (e->op == DOP_PREINC || e->op == DOP_PREDEC)) ? e->lhs : NULL;
	if (t && t->kind == DE_IDENT && !strcmp(t->name, name))
		return true;
	if (assigns(e->lhs, name) || assigns(e->rhs, name))
		return true;
	for (int i = 0; i < e->args.len; i++)
		if (assigns(e->args.items[i], name))
			return true;
	return false;
}

/* a name the predicate p reads before any declaration, which it does not
 * assign itself and the clause's body does (/n < 5/ { n++ }) */
static bool pred_reads_body_var(struct d_ck *ck, const struct d_clause *c, const struct d_expr *e)
{
	if (!e)
		return false;
	if (e->kind == DE_IDENT && !strchr(e->name, '`') && !d_var_find(ck->S, DV_GLOBAL, e->name) &&
	    !assigns(c->pred, e->name)) {
		for (int i = 0; i < c->body.len; i++) {
			const struct d_stmt *st = c->body.items[i];
			if (st->kind == DS_EXPR && assigns(st->expr, e->name))
				return true;
		}
	}
	if (pred_reads_body_var(ck, c, e->lhs) || pred_reads_body_var(ck, c, e->rhs))
		return true;
	for (int i = 0; i < e->args.len; i++)
		if (pred_reads_body_var(ck, c, e->args.items[i]))
			return true;
	return false;
}

static void check_clause(struct d_ck *ck, struct d_clause *c)
{
	if (c->src_what) {   /* its errors name its own -n/-s source */
		ck->dg->what = c->src_what;
		ck->dg->text = c->src_text;
		ck->dg->no_lines = c->src_no_lines;
	}
	ck->clause = c;
	ck->spec = ck->commit = ck->recorded = false;
	d_provider_clause(ck->S, c);   /* its probes (D_PDESC_ZERO), before its body as in DTrace */
	for (int i = 0; i < c->descs.len; i++)
		check_pid_desc(ck, c->descs.items[i]);
	/* the predicate first, as DTrace; the body first when the predicate
	 * reads a variable only the body makes (DTrace runs /n < 5/ { n++ }) */
	bool body_first = c->pred && pred_reads_body_var(ck, c, c->pred);
	for (int j = 0; body_first && j < c->body.len; j++)
		check_stmt(ck, c->body.items[j]);
	if (c->pred && !ck_is_scalar(ck_expr(ck, c->pred)))
		CK_ERR(ck, "D_PRED_SCALAR", c->pred->pos, "predicate result must be of scalar type");
	for (int j = 0; !body_first && j < c->body.len; j++)
		check_stmt(ck, c->body.items[j]);
	ck->clause = NULL;
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

/* the program's declared variables, known from the start */
static void declare(struct d_sema *sema, struct d_decl *d)
{
	struct d_var *v;
	enum d_vkind kind = d->storage == DSC_SELF ? DV_SELF : d->storage == DSC_THIS ? DV_THIS : DV_GLOBAL;

	if (d->kind != DD_VAR || d->is_extern || d_var_find(sema, kind, d->name))
		return;
	v = xcalloc(1, sizeof(*v));
	v->name = xstrdup(d->name);
	v->kind = kind;
	v->type = d->type;
	v->decl = d;
	v->id = sema->vars.len;
	if (d->assoc) {
		v->assoc = true;
		v->nkeys = d->keys.len;
		for (int i = 0; i < d->keys.len && i < D_MAXKEYS; i++)
			v->keys[i] = d->keys.items[i];
	}
	vec_push(&sema->vars, v);
}

int d_check(struct d_sema *sema)
{
	struct d_program *p = sema->prog;
	struct d_ck ck = { .S = sema, .ts = sema->types, .dg = sema->dg };

	for (int i = 0; i < p->decls.len; i++)
		declare(sema, p->decls.items[i]);
	ck_xlators_builtin(&ck);
	parse_time(&ck);
	for (int i = 0; i < p->clauses.len; i++)
		check_clause(&ck, p->clauses.items[i]);
	for (int i = 0; i < p->clauses.len; i++) {
		struct d_clause *c = p->clauses.items[i];
		for (int j = 0; j < c->body.len; j++)
			mark_printed(sema, c->body.items[j]);
	}
	if (ck.destructive) {   /* refused when enabling, after compiling */
		fprintf(stderr, "dtrace: could not enable tracing: Destructive actions not allowed\n");
		return 1;
	}
	return sema->dg->errors ? 1 : 0;
}
