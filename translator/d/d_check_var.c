/* d_check_var.c - names and D's variables: what an identifier names
 * (D_IDENT_UNDEF, D_IDENT_BADREF), macros ($1, $pid ...), aggregations in
 * expressions, associative arrays and their keys (D_PROTO_LEN, D_PROTO_ARG,
 * D_KEY_TYPE), variables made by their first assignment and the memory
 * their pointers may hold (D_ALLOCA_INCOMPAT).
 */
#include <stdlib.h>
#include <string.h>

#include "d/d_btf.h"
#include "d/d_check_int.h"
#include "d/d_lib.h"

/* ---- names -------------------------------------------------------------------------- */

/* "self" or "this" as the left side of -> */
bool ck_is_scope(const struct d_expr *e, enum d_vkind *kind)
{
	if (e->kind != DE_IDENT)
		return false;
	if (!strcmp(e->name, "self"))
		*kind = DV_SELF;
	else if (!strcmp(e->name, "this"))
		*kind = DV_THIS;
	else
		return false;
	return true;
}

/* An inline defined so far (its own definition does not see it). */
struct d_decl *ck_inline_of(struct d_ck *ck, const char *name)
{
	for (int i = 0; i < ck->inlines.len; i++)
		if (!strcmp(ck->inlines.items[i]->name, name))
			return ck->inlines.items[i];
	return NULL;
}

/* A name that is not a D variable: a built-in, an inline, an enumerator, a
 * kernel symbol, a library constant, a translator's input. */
static bool other_name(struct d_ck *ck, const char *name)
{
	if (strchr(name, '`') || ck_builtin_type(ck, name) || !strcmp(name, "args") ||
	    !strcmp(name, "uregs") || !strcmp(name, "self") || !strcmp(name, "this"))
		return true;
	if (ck->xl && ck->xl->from_name && !strcmp(name, ck->xl->from_name))
		return true;
	if (d_types_enumerator(ck->ts, name, NULL, NULL))
		return true;
	struct d_decl *d = d_types_decl(ck->ts, DSC_GLOBAL, name);
	if (d && d->kind == DD_INLINE)
		return true;
	int64_t v;
	return !d_var_find(ck->S, DV_GLOBAL, name) && d_lib_constant(name, &v);
}

/* e names a D variable (x, self->x, this->x): its kind and name. */
bool ck_names_var_base(struct d_ck *ck, const struct d_expr *e, enum d_vkind *kind, const char **name)
{
	if (e->kind == DE_IDENT && !other_name(ck, e->name)) {
		*kind = DV_GLOBAL;
		*name = e->name;
		return true;
	}
	if (e->kind == DE_ARROW && ck_is_scope(e->lhs, kind)) {
		*name = e->name;
		return true;
	}
	return false;
}

/* e names a D variable or an element of one (x[k], self->x[k]) */
bool ck_names_var(struct d_ck *ck, const struct d_expr *e, enum d_vkind *kind, const char **name)
{
	return ck_names_var_base(ck, e->kind == DE_INDEX ? e->lhs : e, kind, name);
}

struct d_var *ck_var_of(struct d_ck *ck, const struct d_expr *e)
{
	enum d_vkind kind;
	const char *name;

	if (!ck_names_var(ck, e, &kind, &name))
		return NULL;
	return d_var_find(ck->S, kind, name);
}

/* How DTrace writes a variable in its messages: x, self->x, this->x */
static const char *var_text(const struct d_var *v)
{
	if (v->kind == DV_SELF)
		return xasprintf("self->%s", v->name);
	if (v->kind == DV_THIS)
		return xasprintf("this->%s", v->name);
	return v->name;
}

/* ---- identifiers ------------------------------------------------------------------------ */

/* A name of a constant (an enumerator, the library's R_SP ...) becomes its
 * value, for d_lower.c to write. */
static void constant(struct d_expr *e, int64_t value)
{
	e->kind = DE_INT;
	e->num = value;
	e->str = NULL;
}

/* An inline's name keeps its declaration, for d_lower.c to write its
 * expression in its place. */
static void expand_inline(struct d_expr *e, const struct d_decl *d)
{
	e->decl = (struct d_decl *)d;
}

/* a name read: a variable, an inline, an enumerator, a built-in, a kernel
 * symbol, a library constant, a translator's input */
struct d_type *ck_ident(struct d_ck *ck, struct d_expr *e)
{
	const char *name = e->name;
	struct d_type *t, *en;
	struct d_var *v;
	struct d_decl *d;
	int64_t value;

	if (strchr(name, '`')) {
		if (!(t = d_kernel_symbol(ck->ts, name)))
			CK_ERR(ck, "D_IDENT_UNDEF", e->pos, "failed to resolve %s: Unknown symbol name", name);
		return t;
	}
	if (ck->xl && ck->xl->from_name && !strcmp(name, ck->xl->from_name))
		return ck->xl->from;
	if ((v = d_var_find(ck->S, DV_GLOBAL, name))) {
		if (v->assoc)
			CK_ERR(ck, "D_IDENT_BADREF", e->pos, "associative array '%s' may not be referenced as scalar",
			       name);
		e->decl = v->decl;
		return v->type;
	}
	if ((d = ck_inline_of(ck, name)) && !d->assoc) {
		expand_inline(e, d);
		return d->type;
	}
	if ((d = ck_inline_of(ck, name)))
		CK_ERR(ck, "D_IDENT_BADREF", e->pos, "associative array '%s' may not be referenced as scalar", name);
	if (d_types_enumerator(ck->ts, name, &en, &value)) {
		constant(e, value);
		return en;
	}
	if (!strcmp(name, "args") || !strcmp(name, "uregs"))
		CK_ERR(ck, "D_IDENT_BADREF", e->pos, "associative array '%s' may not be referenced as scalar",
		       name);
	if (!strcmp(name, "self") || !strcmp(name, "this"))
		return ck_dyn();
	if ((t = ck_builtin_type(ck, name))) {
		if (!strcmp(name, "curpsinfo"))
			e->xlator = ck_xlator_to(ck, "psinfo_t");
		else if (!strcmp(name, "curlwpsinfo"))
			e->xlator = ck_xlator_to(ck, "lwpsinfo_t");
		return t;
	}
	if (!strcmp(name, "NULL")) {   /* D's null pointer */
		constant(e, 0);
		return ck_type(ck, "void *");
	}
	if (d_lib_constant(name, &value)) {
		constant(e, value);
		return ck_type(ck, "int");
	}
	CK_ERR(ck, "D_IDENT_UNDEF", e->pos, "failed to resolve %s: Unknown variable name", name);
}

/* $1 .. as an integer or a string, $target and the others as ints */
struct d_type *ck_macro(struct d_ck *ck, struct d_expr *e)
{
	const char *n = e->name + 1;
	bool str = *n == '$';
	char *end;

	if (str)
		n++;
	if (!(*n >= '0' && *n <= '9'))
		return str ? ck_type(ck, "string") : ck_type(ck, "int");
	long i = strtol(n, &end, 10);
	if (*end || i < 0 || (i > ck->S->nargs && !ck->S->opts->defaultargs))
		CK_ERR(ck, "D_MACRO_UNDEF", e->pos, "macro argument %s is not defined", e->name);
	if (str)
		return ck_type(ck, "string");
	if (i > ck->S->nargs)   /* defaultargs: $N past the arguments is 0 */
		return ck_type(ck, "int");
	const char *v = i == 0 ? "dtrace" : ck->S->args[i - 1];
	strtoll(v, &end, 0);
	return *v && !*end ? ck_type(ck, "int") : ck_type(ck, "string");
}

/* @a named in an expression (not assigned): D's dynamic type */
struct d_type *ck_agg_ref(struct d_ck *ck, struct d_expr *e)
{
	if (!d_var_find(ck->S, DV_AGG, e->name))
		CK_ERR(ck, "D_IDENT_UNDEF", e->pos, "failed to resolve %s: Unknown variable name", e->name);
	return ck_dyn();
}

/* a key of an array or aggregation may be of its prototype's type */
static bool key_compat(struct d_type *proto, struct d_type *key)
{
	if (ck_is_arith(proto) && ck_is_arith(key))
		return true;
	if (ck_is_strlike(proto) && ck_is_strlike(key))
		return true;
	if (ck_is_sou(proto) || ck_is_sou(key))
		return d_type_resolve(proto) == d_type_resolve(key);
	return ck_ptr_compat(proto, key) || ck_compat(proto, key, false);
}

/* The keys of idx (cooked) against the variable's prototype. */
static void check_keys(struct d_ck *ck, const char *name, struct d_var *v, struct d_expr *idx)
{
	int n = idx->args.len;

	if (v->nkeys != n)
		CK_ERR(ck, "D_PROTO_LEN", idx->pos, "%s[ ] prototype mismatch: %d key%s passed, %d expected",
		       name, n, n == 1 ? "" : "s", v->nkeys);
	for (int i = 0; i < n && i < D_MAXKEYS; i++)
		if (!key_compat(v->keys[i], idx->args.items[i]->type))
			CK_ERR(ck, "D_PROTO_ARG", idx->pos,
			       "%s[ ] key #%d is incompatible with prototype:\n\tprototype: %s\n\t      key: %s",
			       name, i + 1, ck_name(v->keys[i]), ck_name(idx->args.items[i]->type));
}

/* The keys of an index cooked; a void or dynamic key is no key. */
void ck_cook_keys(struct d_ck *ck, const char *name, struct d_expr *idx)
{
	for (int i = 0; i < idx->args.len; i++) {
		struct d_type *t = ck_expr(ck, idx->args.items[i]);
		if (ck_is_void(t))
			CK_ERR(ck, "D_KEY_TYPE", idx->args.items[i]->pos, "%s[ ] key #%d is of void type", name, i + 1);
		if (ck_is_dyn(t) || idx->args.items[i]->xlator)
			CK_ERR(ck, "D_KEY_TYPE", idx->args.items[i]->pos, "%s[ ] key #%d is of a dynamic type",
			       name, i + 1);
	}
}

/* x[k], self->x[k], this->x[k] read: an associative array (declared or
 * assigned before), or a scalar of array or pointer type indexed */
struct d_type *ck_var_index(struct d_ck *ck, struct d_expr *e, enum d_vkind kind, const char *name)
{
	struct d_var *v = d_var_find(ck->S, kind, name);

	if (v && !v->assoc)
		return ck_c_index(ck, e, ck_expr(ck, e->lhs));
	ck_cook_keys(ck, name, e);
	if (!v) {
		if (kind == DV_GLOBAL)
			CK_ERR(ck, "D_IDENT_UNDEF", e->lhs->pos, "failed to resolve %s: Unknown variable name", name);
		CK_ERR(ck, "D_IDENT_UNDEF", e->lhs->pos, "failed to resolve %s->%s: Unknown variable name",
		       kind == DV_SELF ? "self" : "this", name);
	}
	check_keys(ck, name, v, e);
	e->decl = v->decl;
	if (e->lhs->kind == DE_IDENT || e->lhs->kind == DE_ARROW)
		e->lhs->type = v->type;
	return v->type;
}

/* inline x[int a, ...] = expr used: its keys against its parameters */
struct d_type *ck_inline_index(struct d_ck *ck, struct d_expr *e, struct d_decl *d)
{
	struct d_var proto = { .name = d->name, .nkeys = d->keys.len };

	for (int i = 0; i < d->keys.len && i < D_MAXKEYS; i++)
		proto.keys[i] = d->keys.items[i];
	ck_cook_keys(ck, d->name, e);
	check_keys(ck, d->name, &proto, e);
	e->decl = d;
	return d->type;
}

/* ---- variables assigned ----------------------------------------------------------------- */

/* A value of type t stored in a new variable: what type the variable gets
 * (a character array's value is a string). */
static struct d_type *stored_type(struct d_ck *ck, struct d_type *t)
{
	if (ck_is_array(t) && ck_is_strlike(t))
		return ck_type(ck, "string");
	return t;
}

struct d_var *ck_var_assign(struct d_ck *ck, struct d_expr *lv, struct d_type *t)
{
	enum d_vkind kind;
	const char *name;
	struct d_var *v;

	if (!ck_names_var(ck, lv, &kind, &name))
		return NULL;
	v = d_var_find(ck->S, kind, name);
	if (lv->kind == DE_INDEX)
		ck_cook_keys(ck, name, lv);
	if (!v) {
		v = xcalloc(1, sizeof(*v));
		v->name = xstrdup(name);
		v->kind = kind;
		v->type = stored_type(ck, t);
		v->nkeys = lv->kind == DE_INDEX ? lv->args.len : 0;
		v->assoc = lv->kind == DE_INDEX;
		for (int i = 0; i < v->nkeys && i < D_MAXKEYS; i++)
			v->keys[i] = lv->args.items[i]->type;
		v->id = ck->S->vars.len;
		vec_push(&ck->S->vars, v);
	} else if (lv->kind == DE_INDEX && v->assoc) {
		check_keys(ck, name, v, lv);
	} else if (lv->kind == DE_INDEX) {
		return NULL;   /* a scalar array's element: C indexing */
	} else if (v->assoc) {
		CK_ERR(ck, "D_IDENT_BADREF", lv->pos, "associative array '%s' may not be referenced as scalar",
		       name);
	}
	lv->type = v->type;
	lv->decl = v->decl;
	if (lv->kind == DE_INDEX)
		lv->lhs->type = v->type;
	return v;
}

/* a variable holding pointers holds alloca()'s, or others', never both */
void ck_check_alloca(struct d_ck *ck, struct d_var *v, struct d_expr *rhs)
{
	int k;

	if (rhs->kind == DE_TERNARY) {
		int a = ck_alloca_kind(ck, rhs->lhs), b = ck_alloca_kind(ck, rhs->rhs);
		if ((a == 1 && b == -1) || (a == -1 && b == 1))
			CK_ERR(ck, "D_ALLOCA_INCOMPAT", rhs->pos, "ternary conditional with alloca and non-alloca "
			       "branches cannot be assigned to a variable");
		k = a ? a : b;
	} else {
		k = ck_alloca_kind(ck, rhs);
	}
	if (!k || !ck_is_ptr(v->type))
		return;
	if (v->alloca && v->alloca != k)   /* found as DTrace gives variables their storage: at the clause */
		CK_ERR(ck, "D_ALLOCA_INCOMPAT", ck->clause ? ck->clause->pos : rhs->pos, "%s: cannot reuse the same identifier for both alloca "
		       "and non-alloca allocations", var_text(v));
	v->alloca = k;
}
