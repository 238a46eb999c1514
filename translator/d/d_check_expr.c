/* d_check_expr.c - the types of D's expressions and DTrace's errors about
 * them: operands (D_OP_*), lvalues (D_OP_LVAL), addresses (D_ADDROF_*),
 * indexing (D_ARR_BOUNDS, args[] and uregs[]), members (D_TYPE_MEMBER,
 * D_OP_SOU, D_OP_PTR), casts, sizeof and offsetof; names and variables are
 * d_check_var.c's.
 *
 * Operands are checked before their operator, as DTrace cooks a tree
 * bottom-up, except where DTrace looks at an operand's form first (the
 * variable of a compound assignment, of &).
 */
#include <stdlib.h>
#include <string.h>

#include "d/d_check_int.h"
#include "d/d_provider.h"
#include "d/d_lib.h"

/* ---- constants --------------------------------------------------------------------- */

/* An integer literal's type, C's way: the first of int, long (unsigned
 * ones too for hex and octal, or with a u suffix) that holds it. */
static struct d_type *int_literal(struct d_ck *ck, const struct d_expr *e)
{
	const char *s = e->str ? e->str : "";
	bool u = strpbrk(s, "uU") != NULL && s[0] != '\'', l = strpbrk(s, "lL") != NULL && s[0] != '\'';
	bool based = s[0] == '0' && s[1];
	uint64_t v = (uint64_t)e->num;

	if (!l && v <= (u ? 0xffffffffULL : 0x7fffffffULL))
		return ck_type(ck, u ? "unsigned int" : "int");
	if (!l && !u && based && v <= 0xffffffffULL)
		return ck_type(ck, "unsigned int");
	if (!u && v <= 0x7fffffffffffffffULL)
		return ck_type(ck, "long");
	return ck_type(ck, "unsigned long");
}

bool ck_const(struct d_ck *ck, const struct d_expr *e, int64_t *v)
{
	int64_t a, b;
	struct d_type *en;

	switch (e->kind) {
	case DE_INT:
		*v = e->num;
		return true;
	case DE_IDENT:
		if (d_types_enumerator(ck->ts, e->name, &en, v))
			return true;
		if (ck_inline_of(ck, e->name))
			return ck_const(ck, ck_inline_of(ck, e->name)->init, v);
		return !d_var_find(ck->S, DV_GLOBAL, e->name) && d_lib_constant(e->name, v);
	case DE_SIZEOF_TYPE:
		*v = ck_sizeof(e->cast_type);
		return true;
	case DE_CAST:
		return ck_is_int(e->cast_type) && ck_const(ck, e->lhs, v);
	case DE_UNARY:
		if (!ck_const(ck, e->lhs, &a))
			return false;
		switch (e->op) {
		case DOP_NEG: *v = (int64_t)(0 - (uint64_t)a); return true;
		case DOP_PLUS: *v = a; return true;
		case DOP_BITNOT: *v = ~a; return true;
		case DOP_NOT: *v = !a; return true;
		default: return false;
		}
	case DE_BINARY:
		if (!ck_const(ck, e->lhs, &a) || !ck_const(ck, e->rhs, &b))
			return false;
		switch (e->op) {
		case DOP_ADD: *v = (int64_t)((uint64_t)a + (uint64_t)b); return true;
		case DOP_SUB: *v = (int64_t)((uint64_t)a - (uint64_t)b); return true;
		case DOP_MUL: *v = (int64_t)((uint64_t)a * (uint64_t)b); return true;
		case DOP_DIV: if (!b || b == -1) return false; *v = a / b; return true;
		case DOP_MOD: if (!b || b == -1) return false; *v = a % b; return true;
		case DOP_SHL: *v = (int64_t)((uint64_t)a << (b & 63)); return true;
		case DOP_SHR: *v = a >> (b & 63); return true;
		case DOP_BAND: *v = a & b; return true;
		case DOP_BOR: *v = a | b; return true;
		case DOP_BXOR: *v = a ^ b; return true;
		default: return false;
		}
	default:
		return false;
	}
}

bool ck_is_zero(struct d_ck *ck, const struct d_expr *e)
{
	int64_t v;

	return ck_is_int(e->type) && ck_const(ck, e, &v) && v == 0;
}

bool ck_is_action(const struct d_expr *e)
{
	const struct d_func *f;

	return e->kind == DE_CALL && (f = d_func_find(e->name)) && f->kind == DF_ACTION;
}

int ck_alloca_kind(struct d_ck *ck, const struct d_expr *e)
{
	struct d_var *v;

	switch (e->kind) {
	case DE_CALL:
		return !strcmp(e->name, "alloca") || !strcmp(e->name, "copyin") ? 1
			: ck_is_ptr(e->type) ? -1 : 0;
	case DE_CAST:   /* a pointer made of an integer is no alloca()'s */
		if (!ck_is_ptr(e->type))
			return 0;
		return ck_alloca_kind(ck, e->lhs) ? ck_alloca_kind(ck, e->lhs) : -1;
	case DE_BINARY:
		if (e->op == DOP_ADD || e->op == DOP_SUB)
			return ck_is_ptr(e->lhs->type) ? ck_alloca_kind(ck, e->lhs)
				: ck_is_ptr(e->rhs->type) ? ck_alloca_kind(ck, e->rhs) : 0;
		return 0;
	case DE_IDENT:
	case DE_ARROW:
		if ((v = ck_var_of(ck, e)))
			return v->alloca;
		return ck_is_ptr(e->type) ? -1 : 0;
	case DE_UNARY:
		return e->op == DOP_ADDROF ? -1 : 0;
	case DE_INT:
		return 0;
	default:
		return ck_is_ptr(e->type) ? -1 : 0;
	}
}

/* ---- associative arrays and indexing ---------------------------------------------------- */

/* The clause's probes have arguments whose types their providers give
 * (not the dtrace provider's, not profile's), which the checker does not
 * know. */
static bool provider_args(struct d_ck *ck)
{
	if (!ck->clause)
		return false;
	for (int i = 0; i < ck->clause->descs.len; i++) {
		const struct d_pdesc *d = ck->clause->descs.items[i];
		if (*d->prov && strcmp(d->prov, "dtrace") && strcmp(d->prov, "profile"))
			return true;
		if (!*d->prov && (*d->mod || *d->func))
			return true;
	}
	return false;
}

/* args[N]: N an integer, not negative */
static struct d_type *args_index(struct d_ck *ck, struct d_expr *e)
{
	struct d_expr *i = e->args.items[0];
	int64_t v;

	if (e->args.len != 1)
		CK_ERR(ck, "D_PROTO_LEN", e->pos, "args[ ] prototype mismatch: %d args passed, 1 expected",
		       e->args.len);
	ck_expr(ck, i);
	if (!ck_is_int(i->type))
		CK_ERR(ck, "D_PROTO_ARG", e->pos, "args[ ] argument #1 is incompatible with prototype:\n"
		       "\tprototype: int\n\t argument: %s", ck_name(i->type));
	if (ck_const(ck, i, &v) && v < 0)
		CK_ERR(ck, "D_ARGS_IDX", e->pos, "index %lld is out of range for %s args[ ]", (long long)v,
		       ck->clause && ck->clause->descs.len ? ck->clause->descs.items[0]->text : "probe");
	struct d_type *pt = d_provider_arg_type(ck->S, e);   /* the probes' (NULL: not said) */
	if (pt)
		return pt;
	return provider_args(ck) ? ck_unknown() : ck_type(ck, "int64_t");
}

/* uregs[R]: R an integer constant naming a register */
static struct d_type *uregs_index(struct d_ck *ck, struct d_expr *e)
{
	struct d_expr *i = e->args.items[0];
	int64_t v;

	if (e->args.len != 1)
		CK_ERR(ck, "D_PROTO_LEN", e->pos, "uregs[ ] prototype mismatch: %d args passed, 1 expected",
		       e->args.len);
	ck_expr(ck, i);
	if (!ck_is_int(i->type) || !ck_const(ck, i, &v))
		CK_ERR(ck, "D_PROTO_ARG", e->pos, "uregs[ ] argument #1 is incompatible with prototype:\n"
		       "\tprototype: integer constant\n\t argument: %s", ck_name(i->type));
	if (v < 0 || v >= d_lib_nregs())
		CK_ERR(ck, "D_UNKNOWN", e->pos, "uregs[]: index out of bounds (%lld)", (long long)v);
	return ck_type(ck, "uint64_t");
}

/* an associative array's element (x[k], self->x[k]), whose C array D
 * does not bound at compile time */
static bool assoc_element(struct d_ck *ck, const struct d_expr *e)
{
	struct d_var *v;

	return e->kind == DE_INDEX && (v = ck_var_of(ck, e)) && v->assoc;
}

/* base[i] of a C array or pointer, or of a string (its characters) */
struct d_type *ck_c_index(struct d_ck *ck, struct d_expr *e, struct d_type *t)
{
	struct d_type *r = d_type_resolve(t);
	struct d_expr *i = e->args.items[0];
	int64_t v;

	if (t == ck_unknown()) {
		ck_expr(ck, i);
		return ck_unknown();
	}
	if (ck_is_string(t) && e->args.len == 1) {
		ck_expr(ck, i);
		return ck_type(ck, "char");
	}
	if (!r || (r->kind != DT_PTR && r->kind != DT_ARRAY) || e->args.len != 1)
		CK_ERR(ck, "D_OP_ARRPTR", e->pos, "operator [ ] may not be applied to operand of type \"%s\"",
		       ck_name(t));
	ck_expr(ck, i);
	if (!ck_is_int(i->type))
		CK_ERR(ck, "D_OP_INT", e->pos, "operator [ ] requires an index of integral type");
	if (r->kind == DT_ARRAY && r->nelem >= 0 && ck_const(ck, i, &v) && (v < 0 || v >= r->nelem) &&
	    !assoc_element(ck, e->lhs))
		CK_ERR(ck, "D_ARR_BOUNDS", e->pos, "index outside array bounds: %lld, max is %lld",
		       (long long)v, (long long)r->nelem);
	if (ck_is_void(r->ref))
		CK_ERR(ck, "D_OP_INCOMPAT", e->pos, "cannot index a pointer to void");
	return r->ref;
}

/* x[...]: an aggregation's, args[] and uregs[], a variable's, an inline's, C's */
static struct d_type *index_expr(struct d_ck *ck, struct d_expr *e)
{
	struct d_expr *b = e->lhs;
	enum d_vkind kind;
	const char *name;

	if (b->kind == DE_INDEX && b->lhs->kind == DE_AGG)
		CK_ERR(ck, "D_AGG_MDIM", e->pos, "aggregation %s may not be used as a multi-dimensional array",
		       b->lhs->name);
	if (b->kind == DE_AGG) {
		ck_cook_keys(ck, b->name, e);
		b->type = ck_agg_ref(ck, b);
		return ck_dyn();
	}
	if (b->kind == DE_IDENT && !strcmp(b->name, "args"))
		return args_index(ck, e);
	if (b->kind == DE_IDENT && !strcmp(b->name, "uregs"))
		return uregs_index(ck, e);
	if (ck_names_var_base(ck, b, &kind, &name))
		return ck_var_index(ck, e, kind, name);
	if (b->kind == DE_IDENT && ck_inline_of(ck, b->name) && ck_inline_of(ck, b->name)->assoc)
		return ck_inline_index(ck, e, ck_inline_of(ck, b->name));
	return ck_c_index(ck, e, ck_expr(ck, b));
}

/* ---- lvalues ---------------------------------------------------------------------------- */

/* e may be assigned: a variable, a kernel symbol, an array element, *p,
 * a member of one of those */
static bool is_lvalue(struct d_ck *ck, const struct d_expr *e)
{
	switch (e->kind) {
	case DE_IDENT:
		return strchr(e->name, '`') || d_var_find(ck->S, DV_GLOBAL, e->name);
	case DE_ARROW:
	case DE_MEMBER:
		return !e->lhs->xlator;
	case DE_INDEX:
		return !(e->lhs->kind == DE_IDENT && (!strcmp(e->lhs->name, "args") ||
						      !strcmp(e->lhs->name, "uregs")));
	case DE_UNARY:
		return e->op == DOP_DEREF;
	default:
		return false;
	}
}

/* How DTrace writes an assignment operator: "=", "+=" ... */
static const char *assign_text(enum d_op op)
{
	switch (op) {
	case DOP_ASSIGN: return "=";
	case DOP_MUL: return "*=";
	case DOP_DIV: return "/=";
	case DOP_MOD: return "%=";
	case DOP_ADD: return "+=";
	case DOP_SUB: return "-=";
	case DOP_SHL: return "<<=";
	case DOP_SHR: return ">>=";
	case DOP_BAND: return "&=";
	case DOP_BXOR: return "^=";
	case DOP_BOR: return "|=";
	default: return "=";
	}
}

/* what a compound assignment's operator takes: lt op= rt */
static void check_compound(struct d_ck *ck, struct d_expr *e, struct d_type *lt, struct d_type *rt)
{
	bool ok;

	switch (e->op) {
	case DOP_ADD: case DOP_SUB:
		ok = (ck_is_arith(lt) && ck_is_arith(rt)) || (ck_is_ptr(lt) && ck_is_int(rt));
		break;
	case DOP_MUL: case DOP_DIV:
		ok = ck_is_arith(lt) && ck_is_arith(rt);
		break;
	default:
		ok = ck_is_int(lt) && ck_is_int(rt);
		break;
	}
	if (!ok)
		CK_ERR(ck, "D_OP_INCOMPAT", e->pos, "operands have incompatible types: \"%s\" %s \"%s\"",
		       ck_name(lt), assign_text(e->op), ck_name(rt));
}

/* lhs = rhs, lhs op= rhs */
static struct d_type *assign(struct d_ck *ck, struct d_expr *e)
{
	struct d_expr *lhs = e->lhs;
	struct d_type *rt, *lt;
	struct d_var *v;

	if (lhs->kind == DE_AGG || (lhs->kind == DE_INDEX && lhs->lhs->kind == DE_AGG)) {
		ck_aggregation(ck, e);
		return e->type;
	}
	if (lhs->kind == DE_INDEX && lhs->lhs->kind == DE_INDEX && lhs->lhs->lhs->kind == DE_AGG)
		CK_ERR(ck, "D_AGG_MDIM", lhs->pos, "aggregation %s may not be used as a multi-dimensional array",
		       lhs->lhs->lhs->name);
	enum d_vkind kind;
	const char *name;
	if (e->op != DOP_ASSIGN && ck_names_var(ck, lhs, &kind, &name) && !d_var_find(ck->S, kind, name))
		CK_ERR(ck, "D_VAR_UNDEF", lhs->pos, "%s%s has not yet been declared or assigned",
		       kind == DV_SELF ? "self->" : kind == DV_THIS ? "this->" : "", name);
	rt = ck_expr(ck, e->rhs);
	if (ck_is_void(rt))
		CK_ERR(ck, "D_OP_VFPTR", e->rhs->pos, "cannot assign a void value");
	if (ck_is_dyn(rt))
		CK_ERR(ck, "D_OP_DYN", e->rhs->pos, "cannot assign a value of a dynamic type");
	if ((v = ck_var_assign(ck, lhs, rt))) {
		lt = v->type;
	} else {
		lt = ck_expr(ck, lhs);
		if (!is_lvalue(ck, lhs))
			CK_ERR(ck, "D_OP_LVAL", e->pos, "operator %s requires modifiable lvalue as an operand",
			       assign_text(e->op));
	}
	if (ck_is_array(lt) && !ck_is_strlike(lt))
		CK_ERR(ck, "D_OP_ARRFUN", e->pos, "operator %s may not be applied to operand of type \"%s\"",
		       assign_text(e->op), ck_name(lt));
	if (e->op != DOP_ASSIGN)
		check_compound(ck, e, lt, rt);
	else if (v && ck_is_sou(lt) && ck_is_zero(ck, e->rhs))
		;   /* a dynamic variable's struct assigned 0: deleted */
	else if (!ck_compat(lt, rt, ck_is_zero(ck, e->rhs)))
		CK_ERR(ck, "D_OP_INCOMPAT", e->pos, "operands have incompatible types: \"%s\" = \"%s\"",
		       ck_name(lt), ck_name(rt));
	if (v)
		ck_check_alloca(ck, v, e->rhs);
	return lt;
}

/* ---- unary operators ---------------------------------------------------------------------- */

/* how DTrace writes ++ and -- in its messages */
static const char *incdec_text(enum d_op op)
{
	return op == DOP_PREINC || op == DOP_POSTINC ? "++" : "--";
}

/* ++x, x--: x a modifiable scalar; an unknown variable becomes an int64_t */
static struct d_type *incdec(struct d_ck *ck, struct d_expr *e)
{
	struct d_var *v = ck_var_assign(ck, e->lhs, ck_type(ck, "int64_t"));
	struct d_type *t = v ? v->type : ck_expr(ck, e->lhs);

	if (!v && !is_lvalue(ck, e->lhs))
		CK_ERR(ck, "D_OP_LVAL", e->pos, "operator %s requires modifiable lvalue as an operand",
		       incdec_text(e->op));
	if (!ck_is_scalar(t) || ck_is_array(t))
		CK_ERR(ck, "D_OP_SCALAR", e->pos, "operator %s requires operand of scalar type", incdec_text(e->op));
	return t;
}

/* The member a cooked s.m or p->m names (NULL for self->x, this->x). */
static const struct d_member *member_of(const struct d_expr *e)
{
	struct d_type *s;

	if ((e->kind != DE_MEMBER && e->kind != DE_ARROW) || !e->lhs->type)
		return NULL;
	s = d_type_resolve(e->lhs->type);
	if (e->kind == DE_ARROW)
		s = s && (s->kind == DT_PTR || s->kind == DT_ARRAY) ? s->ref : NULL;
	return s && ck_is_sou(s) ? d_type_member(s, e->name, NULL) : NULL;
}

/* &x: memory's address; D's variables have none */
static struct d_type *addrof(struct d_ck *ck, struct d_expr *e)
{
	struct d_expr *x = e->lhs;
	struct d_type *t;

	struct d_var *v = ck_var_of(ck, x);
	const struct d_member *m;

	if (x->kind == DE_AGG || (x->kind == DE_INDEX && x->lhs->kind == DE_AGG) ||
	    (v && (x->kind != DE_INDEX || v->assoc)))
		CK_ERR(ck, "D_ADDROF_VAR", e->pos, "cannot take address of dynamic variable");
	t = ck_expr(ck, x);
	if (x->kind == DE_IDENT && ck_inline_of(ck, x->name))
		CK_ERR(ck, "D_ADDROF_VAR", e->pos, "cannot take address of dynamic variable");
	if (!is_lvalue(ck, x) || (x->kind == DE_IDENT && !strchr(x->name, '`')))
		CK_ERR(ck, "D_ADDROF_LVAL", e->pos, "unacceptable operand for unary & operator");
	if ((m = member_of(x)) && m->bits)
		CK_ERR(ck, "D_ADDROF_BITFIELD", e->pos, "cannot take address of bit-field");
	return d_type_pointer(ck->ts, t);
}

/* *p */
static struct d_type *deref(struct d_ck *ck, struct d_expr *e, struct d_type *t)
{
	struct d_type *r = d_type_resolve(t);

	if (t == ck_unknown())
		return t;
	if (!r || (r->kind != DT_PTR && r->kind != DT_ARRAY))
		CK_ERR(ck, "D_DEREF_NONPTR", e->pos, "cannot dereference non-pointer type");
	if (ck_is_void(r->ref))
		CK_ERR(ck, "D_DEREF_VOID", e->pos, "cannot dereference pointer to void");
	if (ck_is_func(r->ref))
		CK_ERR(ck, "D_DEREF_FUNC", e->pos, "cannot dereference pointer to function");
	return r->ref;
}

/* sizeof expr: an object of known size */
static struct d_type *sizeof_expr(struct d_ck *ck, struct d_expr *e, struct d_type *t)
{
	const struct d_member *m = member_of(e->lhs);

	if (m && m->bits)
		CK_ERR(ck, "D_SIZEOF_BITFIELD", e->pos, "cannot apply sizeof to a bit-field");
	if (!ck_sizeof(t) && !ck_is_string(t))
		CK_ERR(ck, "D_SIZEOF_TYPE", e->pos, "cannot apply sizeof to an operand of unknown size");
	return ck_type(ck, "size_t");
}

/* a unary operator's operand and value */
static struct d_type *unary(struct d_ck *ck, struct d_expr *e)
{
	struct d_type *t;

	switch (e->op) {
	case DOP_PREINC: case DOP_PREDEC: case DOP_POSTINC: case DOP_POSTDEC:
		return incdec(ck, e);
	case DOP_ADDROF:
		return addrof(ck, e);
	default:
		break;
	}
	t = ck_expr(ck, e->lhs);
	switch (e->op) {
	case DOP_NOT:
		if (!ck_is_scalar(t))
			CK_ERR(ck, "D_OP_SCALAR", e->pos, "operator ! requires an operand of scalar type");
		return ck_type(ck, "int");
	case DOP_NEG: case DOP_PLUS:
		if (!ck_is_arith(t))
			CK_ERR(ck, "D_OP_ARITH", e->pos, "operator %s requires an operand of arithmetic type",
			       e->op == DOP_NEG ? "-" : "+");
		return ck_promote(ck, t, ck_type(ck, "int"));
	case DOP_BITNOT:
		if (!ck_is_int(t))
			CK_ERR(ck, "D_OP_INT", e->pos, "operator ~ requires an operand of integral type");
		return ck_promote(ck, t, ck_type(ck, "int"));
	case DOP_DEREF:
		return deref(ck, e, t);
	case DOP_SIZEOF:
		return sizeof_expr(ck, e, t);
	case DOP_STRINGOF:
		if (!ck_is_scalar(t) && !ck_is_strlike(t))
			CK_ERR(ck, "D_STRINGOF_TYPE", e->pos, "cannot apply stringof to a value of type %s",
			       ck_name(t));
		return ck_type(ck, "string");
	default:
		return t;
	}
}

/* ---- binary operators ---------------------------------------------------------------------- */

/* how DTrace writes a binary operator in its messages */
static const char *op_text(enum d_op op)
{
	static const char *const text[] = {
		[DOP_MUL] = "*", [DOP_DIV] = "/", [DOP_MOD] = "%", [DOP_ADD] = "+", [DOP_SUB] = "-",
		[DOP_SHL] = "<<", [DOP_SHR] = ">>", [DOP_LT] = "<", [DOP_GT] = ">", [DOP_LE] = "<=",
		[DOP_GE] = ">=", [DOP_EQ] = "==", [DOP_NE] = "!=", [DOP_BAND] = "&", [DOP_BXOR] = "^",
		[DOP_BOR] = "|", [DOP_LAND] = "&&", [DOP_LXOR] = "^^", [DOP_LOR] = "||", [DOP_COMMA] = ",",
	};

	return op < sizeof(text) / sizeof(text[0]) && text[op] ? text[op] : "?";
}

/* D_OP_INCOMPAT for the operands of e */
static void incompat(struct d_ck *ck, const struct d_expr *e)
{
	CK_ERR(ck, "D_OP_INCOMPAT", e->pos, "operands have incompatible types: \"%s\" %s \"%s\"",
	       ck_name(e->lhs->type), op_text(e->op), ck_name(e->rhs->type));
}

/* a pointer one may add to: to a type of known size */
static bool arith_ptr(struct d_type *t)
{
	struct d_type *r = d_type_resolve(t);

	return r && (r->kind == DT_PTR || r->kind == DT_ARRAY) && ck_sizeof(r->ref) > 0;
}

/* p + i, i + p, p - i, p - q, a + b */
static struct d_type *additive(struct d_ck *ck, struct d_expr *e, struct d_type *a, struct d_type *b)
{
	if (ck_is_arith(a) && ck_is_arith(b))
		return ck_promote(ck, a, b);
	if (arith_ptr(a) && ck_is_int(b))
		return ck_is_array(a) ? d_type_pointer(ck->ts, d_type_resolve(a)->ref) : a;
	if (e->op == DOP_ADD && ck_is_int(a) && arith_ptr(b))
		return ck_is_array(b) ? d_type_pointer(ck->ts, d_type_resolve(b)->ref) : b;
	if (e->op == DOP_SUB && arith_ptr(a) && arith_ptr(b) && ck_ptr_compat(a, b))
		return ck_type(ck, "ptrdiff_t");
	incompat(ck, e);
	return NULL;
}

/* a == b, a < b ...: numbers, strings, or compatible pointers */
static void comparison(struct d_ck *ck, struct d_expr *e, struct d_type *a, struct d_type *b)
{
	if (ck_is_arith(a) && ck_is_arith(b))
		return;
	if ((ck_is_string(a) && ck_is_strlike(b)) || (ck_is_strlike(a) && ck_is_string(b)))
		return;
	if ((d_is_ptr(a) && d_is_ptr(b)) || (ck_is_strlike(a) && ck_is_strlike(b)))
		return;
	if ((ck_is_string(a) && (ck_is_zero(ck, e->rhs) || ck_is_ptr(b))) ||
	    (ck_is_string(b) && (ck_is_zero(ck, e->lhs) || ck_is_ptr(a))))
		return;   /* a string against NULL */
	if ((ck_is_ptr(a) && ck_is_int(b)) || (ck_is_int(a) && ck_is_ptr(b)))
		return;
	incompat(ck, e);
}

/* a binary operator's operands and value */
static struct d_type *binary(struct d_ck *ck, struct d_expr *e)
{
	struct d_type *a = ck_expr(ck, e->lhs), *b = ck_expr(ck, e->rhs);

	switch (e->op) {
	case DOP_COMMA:
		return b;
	case DOP_LAND: case DOP_LOR: case DOP_LXOR:
		if (!ck_is_scalar(a) || !ck_is_scalar(b))
			CK_ERR(ck, "D_OP_SCALAR", e->pos, "operator %s requires operands of scalar type",
			       op_text(e->op));
		return ck_type(ck, "int");
	case DOP_LT: case DOP_GT: case DOP_LE: case DOP_GE: case DOP_EQ: case DOP_NE:
		comparison(ck, e, a, b);
		return ck_type(ck, "int");
	case DOP_ADD: case DOP_SUB:
		return additive(ck, e, a, b);
	case DOP_MUL: case DOP_DIV:
		if (!ck_is_arith(a) || !ck_is_arith(b))
			CK_ERR(ck, "D_OP_ARITH", e->pos, "operator %s requires operands of arithmetic type",
			       op_text(e->op));
		return ck_promote(ck, a, b);
	default:
		if (!ck_is_int(a) || !ck_is_int(b))
			CK_ERR(ck, "D_OP_INT", e->pos, "operator %s requires operands of integral type",
			       op_text(e->op));
		if (e->op == DOP_SHL || e->op == DOP_SHR)
			return ck_promote(ck, a, ck_type(ck, "int"));
		return ck_promote(ck, a, b);
	}
}

/* c ? a : b: no actions, compatible branches */
static struct d_type *ternary(struct d_ck *ck, struct d_expr *e)
{
	struct d_type *c = ck_expr(ck, e->args.items[0]);
	struct d_type *a = ck_expr(ck, e->lhs), *b = ck_expr(ck, e->rhs);

	if (!ck_is_scalar(c))
		CK_ERR(ck, "D_OP_SCALAR", e->pos, "operator ?: requires a scalar first operand");
	if (ck_is_action(e->lhs) || ck_is_action(e->rhs))
		CK_ERR(ck, "D_OP_ACT", e->pos, "action cannot be used in a conditional context");
	if (ck_is_arith(a) && ck_is_arith(b))
		return ck_promote(ck, a, b);
	if (ck_is_strlike(a) && ck_is_strlike(b) && (ck_is_string(a) || ck_is_string(b)))
		return ck_type(ck, "string");
	if (ck_ptr_compat(a, b) || ck_same(a, b))
		return a;
	if (ck_is_ptr(a) && ck_is_zero(ck, e->rhs))
		return a;
	if (ck_is_ptr(b) && ck_is_zero(ck, e->lhs))
		return b;
	CK_ERR(ck, "D_OP_INCOMPAT", e->pos, "operator ?: operands must have compatible types");
}

/* ---- members, casts, sizeof, offsetof ------------------------------------------------------ */

/* curpsinfo, curlwpsinfo: D's library's translated types (the members as
 * psinfo_t and lwpsinfo_t declare them, the ones the translator defines) */
static bool current_info(const struct d_expr *e)
{
	return e->kind == DE_IDENT && (!strcmp(e->name, "curpsinfo") || !strcmp(e->name, "curlwpsinfo"));
}

/* s.m or p->m */
static struct d_type *member(struct d_ck *ck, struct d_expr *e)
{
	enum d_vkind kind;
	struct d_var *v;
	struct d_type *t, *s;
	const struct d_member *m;
	bool arrow = e->kind == DE_ARROW;

	if (!current_info(e->lhs) && (t = d_provider_member_type(ck->S, e)))   /* args[1]->pr_fname ... */
		return t;
	if (arrow && ck_is_scope(e->lhs, &kind)) {   /* self->x, this->x */
		if (!(v = d_var_find(ck->S, kind, e->name)))
			CK_ERR(ck, "D_IDENT_UNDEF", e->pos, "failed to resolve %s->%s: Unknown variable name",
			       e->lhs->name, e->name);
		if (v->assoc)
			CK_ERR(ck, "D_IDENT_BADREF", e->pos, "associative array '%s' may not be referenced as scalar",
			       e->name);
		e->decl = v->decl;
		return v->type;
	}
	t = ck_expr(ck, e->lhs);
	if (t == ck_unknown())
		return ck_unknown();
	s = d_type_resolve(t);
	if (arrow) {
		if (!s || (s->kind != DT_PTR && s->kind != DT_ARRAY))
			CK_ERR(ck, "D_OP_PTR", e->pos, "operator -> must be applied to a pointer");
		s = d_type_resolve(s->ref);
		if (!ck_is_sou(s))
			CK_ERR(ck, "D_OP_SOU", e->pos, "operator -> cannot be applied to pointer to type \"%s\"; "
			       "must be applied to a struct or union pointer", ck_name(d_type_resolve(t)->ref));
	} else if (!ck_is_sou(s)) {
		CK_ERR(ck, "D_OP_SOU", e->pos, "operator . cannot be applied to type \"%s\"; must be applied "
		       "to a struct or union", ck_name(t));
	}
	if (!s->complete)
		CK_ERR(ck, "D_DECL_INCOMPLETE", e->pos, "incomplete struct/union/enum %s", ck_name(s));
	if (!(m = d_type_member(s, e->name, NULL)))
		CK_ERR(ck, "D_TYPE_MEMBER", e->pos, "%s is not a member of %s", e->name, ck_name(s));
	if (e->lhs->xlator)
		ck_xlated_member(ck, e->lhs->xlator, e);
	return m->type;
}

/* (type) expr: scalars to scalars, a struct to itself */
static struct d_type *cast(struct d_ck *ck, struct d_expr *e)
{
	struct d_type *t = ck_expr(ck, e->lhs), *to = e->cast_type;

	if (e->lhs->xlator && ck_is_ptr(t))
		CK_ERR(ck, "D_CAST_INVAL", e->pos, "invalid cast expression: \"pointer to translated data\" to "
		       "\"%s\"", ck_name(to));
	if (ck_is_void(to))
		return to;
	if ((ck_is_scalar(to) && (ck_is_scalar(t) || ck_is_string(t))) || ck_is_string(to))
		return to;
	if (ck_is_sou(to) && d_type_resolve(to) == d_type_resolve(t))
		return to;
	CK_ERR(ck, "D_CAST_INVAL", e->pos, "invalid cast expression: \"%s\" to \"%s\"", ck_name(t), ck_name(to));
}

/* offsetof(type, member): a member, not a bit-field */
static struct d_type *offsetof_expr(struct d_ck *ck, struct d_expr *e)
{
	struct d_type *s = d_type_resolve(e->cast_type);
	const struct d_member *m;

	if (!ck_is_sou(s))
		CK_ERR(ck, "D_OFFSETOF_TYPE", e->pos, "offsetof operand must be a struct or union type");
	if (!(m = d_type_member(s, e->name, NULL)))
		CK_ERR(ck, "D_UNKNOWN", e->pos, "failed to determine offset of %s: Member name not found", e->name);
	if (m->bits)
		CK_ERR(ck, "D_OFFSETOF_BITFIELD", e->pos, "cannot take offset of a bit-field: %s", e->name);
	return ck_type(ck, "size_t");
}

/* ---- the dispatch ------------------------------------------------------------------------ */

struct d_type *ck_expr(struct d_ck *ck, struct d_expr *e)
{
	struct d_type *t = NULL;

	switch (e->kind) {
	case DE_INT:
		t = int_literal(ck, e);
		break;
	case DE_STR:
		t = ck_type(ck, "string");
		break;
	case DE_IDENT:
		t = ck_ident(ck, e);
		break;
	case DE_MACRO:
		t = ck_macro(ck, e);
		break;
	case DE_AGG:
		t = ck_agg_ref(ck, e);
		break;
	case DE_INDEX:
		t = index_expr(ck, e);
		break;
	case DE_CALL:
		t = ck_call(ck, e);
		break;
	case DE_UNARY:
	case DE_POSTFIX:
		t = unary(ck, e);
		break;
	case DE_BINARY:
		t = binary(ck, e);
		break;
	case DE_ASSIGN:
		t = assign(ck, e);
		break;
	case DE_TERNARY:
		t = ternary(ck, e);
		break;
	case DE_MEMBER:
	case DE_ARROW:
		t = member(ck, e);
		break;
	case DE_CAST:
		t = cast(ck, e);
		break;
	case DE_SIZEOF_TYPE:
		if (!ck_sizeof(e->cast_type) && !ck_is_string(e->cast_type))
			CK_ERR(ck, "D_SIZEOF_TYPE", e->pos, "cannot apply sizeof to an operand of unknown size");
		t = ck_type(ck, "size_t");
		break;
	case DE_OFFSETOF:
		t = offsetof_expr(ck, e);
		break;
	case DE_XLATE:
		t = ck_xlate(ck, e);
		break;
	}
	e->type = t ? t : ck_type(ck, "int");
	return e->type;
}

