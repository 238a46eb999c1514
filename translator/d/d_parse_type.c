/* d_parse_type.c - D's types as declarations write them: specifiers,
 * declarators, type names, struct, union and enum definitions.
 *
 * Specifiers are collected as DTrace's dt_decl.c collects them (a kind, a
 * name, attribute bits, a storage class) with its checks as each one is
 * read (D_DECL_COMBO, D_DECL_CHARATTR ...); the type is then named from
 * them as DTrace names it ("unsigned long ", "short long ") and looked up,
 * so an impossible one is DTrace's "failed to resolve type". A declarator
 * is read into the list of derivations (pointer, array, function) to apply
 * to that type, innermost first.
 */
#include <limits.h>
#include <string.h>

#include "d/d_parse_int.h"
#include "util.h"


void d_parse_error(struct d_parser *p, const char *tag, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	d_error(p->dg, tag, here(p), "%s", msg);
}

struct d_lexscope d_lexscope_push(struct d_parser *p)
{
	struct d_lexscope saved = { p->lx.decl_has_type, p->lx.typedef_class, p->lx.xlator_input };

	p->lx.decl_has_type = p->lx.typedef_class = false;
	return saved;
}

void d_lexscope_pop(struct d_parser *p, struct d_lexscope saved)
{
	p->lx.decl_has_type = saved.decl_has_type;
	p->lx.typedef_class = saved.typedef_class;
	p->lx.xlator_input = saved.xlator_input;
}

bool d_starts_type_name(const struct d_parser *p)
{
	switch (TOK(p)) {
	case DK_VOID: case DK_CHAR: case DK_SHORT: case DK_INT: case DK_LONG:
	case DK_FLOAT: case DK_DOUBLE: case DK_SIGNED: case DK_UNSIGNED: case DK_STRING:
	case DK_STRUCT: case DK_UNION: case DK_ENUM: case DK_CONST: case DK_VOLATILE:
	case DK_RESTRICT: case DK_USERLAND: case TK_TNAME:
		return true;
	default:
		return false;
	}
}

static bool storage_class(enum d_tok t)
{
	return t == DK_AUTO || t == DK_REGISTER || t == DK_STATIC || t == DK_EXTERN ||
		t == DK_TYPEDEF;
}

bool d_starts_declaration(const struct d_parser *p)
{
	return d_starts_type_name(p) || storage_class(TOK(p)) || TOK(p) == DK_SELF ||
		TOK(p) == DK_THIS;
}

/* ---- specifiers ---------------------------------------------------------------- */

/* DTrace's dt_decl_check(): attributes the kind cannot take */
static void spec_check(struct d_parser *p, const struct dspec *ds)
{
	if (ds->kind == SK_NONE)
		return;
	if (ds->name && !strcmp(ds->name, "char") && (ds->attr & (A_SHORT | A_LONG | A_LONGLONG)))
		d_parse_error(p, "D_DECL_CHARATTR",
			      "invalid type declaration: short and long may not be used with char type");
	if (ds->name && !strcmp(ds->name, "void") &&
	    (ds->attr & (A_SHORT | A_LONG | A_LONGLONG | A_SIGNED | A_UNSIGNED)))
		d_parse_error(p, "D_DECL_VOIDATTR",
			      "invalid type declaration: attributes may not be used with void type");
	if (ds->kind != SK_INTEGER && (ds->attr & (A_SIGNED | A_UNSIGNED)))
		d_parse_error(p, "D_DECL_SIGNINT", "invalid type declaration: signed and "
			      "unsigned may only be used with integer type");
	if (ds->kind != SK_INTEGER && ds->kind != SK_FLOAT && (ds->attr & (A_LONG | A_LONGLONG)))
		d_parse_error(p, "D_DECL_LONGINT", "invalid type declaration: long and long long "
			      "may only be used with integer or floating-point type");
}

/* A type specifier (DTrace's dt_decl_spec()): a second one is an invalid
 * combination, except a type name after a type, which is the declared
 * name (true returned) unless this is a typedef. */
static bool spec_set(struct d_parser *p, struct dspec *ds, enum spec_kind kind, char *name)
{
	if (ds->name && kind == SK_TYPEDEF) {
		if (ds->dclass != DC_TYPEDEF) {
			ds->ident = name;
			return true;
		}
		d_parse_error(p, "D_DECL_IDRED", "identifier redeclared: %s", name);
	}
	if (ds->name || ds->kind != SK_NONE)
		d_parse_error(p, "D_DECL_COMBO", "invalid type combination");
	ds->kind = kind;
	ds->name = name;
	spec_check(p, ds);
	p->lx.decl_has_type = name != NULL;
	return false;
}

/* short long signed unsigned const volatile restrict userland */
static void spec_attr(struct d_parser *p, struct dspec *ds, unsigned attr)
{
	if (attr == A_LONG && (ds->attr & A_LONG)) {
		ds->attr &= ~A_LONG;
		attr = A_LONGLONG;
	}
	ds->attr |= attr;
	spec_check(p, ds);
}

/* A storage class (one only); typedef changes how names are lexed. */
static void spec_class(struct d_parser *p, struct dspec *ds, enum dclass c)
{
	if (ds->dclass != DC_DEFAULT)
		d_parse_error(p, "D_DECL_CLASS", "only one storage class allowed in a declaration");
	ds->dclass = c;
	if (c == DC_TYPEDEF)
		p->lx.typedef_class = true;
}

/* The type the specifiers name (DTrace's dt_decl_type() for them): the
 * name built as DTrace builds it, looked up; then the qualifiers. */
static struct d_type *spec_type(struct d_parser *p, struct dspec *ds)
{
	struct strbuf sb = STRBUF_INIT;
	struct d_type *t;

	if (ds->kind == SK_NONE && !ds->name) {
		ds->kind = SK_INTEGER;
		spec_check(p, ds);
	}
	switch (ds->kind) {
	case SK_INTEGER:
	case SK_FLOAT:
		if (ds->attr & A_SIGNED)
			strbuf_addstr(&sb, "signed ");
		if (ds->attr & A_UNSIGNED)
			strbuf_addstr(&sb, "unsigned ");
		if (ds->attr & A_SHORT)
			strbuf_addstr(&sb, "short ");
		if (ds->attr & A_LONG)
			strbuf_addstr(&sb, "long ");
		if (ds->attr & A_LONGLONG)
			strbuf_addstr(&sb, "long long ");
		if (!ds->attr && !ds->name)
			strbuf_addstr(&sb, "int");
		if (ds->name && (ds->kind != SK_INTEGER || !(ds->attr & (A_SHORT | A_LONG | A_LONGLONG))))
			strbuf_addstr(&sb, ds->name);
		if (!(t = d_type_lookup(p->types, sb.buf)))
			d_parse_error(p, "D_UNKNOWN", "failed to resolve type %s: Unknown type name", sb.buf);
		break;
	case SK_TYPEDEF:
		if (!(t = d_type_lookup(p->types, ds->name)))
			d_parse_error(p, "D_UNKNOWN", "failed to resolve type %s: Unknown type name", ds->name);
		break;
	default:
		t = ds->sou;
		break;
	}
	return d_type_qualified(p->types, t, ds->attr & A_CONST, ds->attr & A_VOLATILE, ds->attr & A_USER);
}

static void sou_specifier(struct d_parser *p, struct dspec *ds);
static void enum_specifier(struct d_parser *p, struct dspec *ds);

/* declaration_specifiers, parameter_declaration_specifiers and
 * specifier_qualifier_list: one or more of
 *	storage classes (auto register static extern typedef; self this),
 *	void char short int long float double signed unsigned userland string
 *	TNAME struct/union/enum specifiers, const restrict volatile
 * Stops at a type name taken for the declared name (ds->ident). */
void d_specifiers(struct d_parser *p, struct dspec *ds, enum spec_ctx ctx)
{
	bool first = true;

	for (;; first = false) {
		char *tname;

		switch (TOK(p)) {
		case DK_AUTO: case DK_REGISTER: case DK_STATIC: case DK_EXTERN: case DK_TYPEDEF:
			if (ctx == SPEC_QUAL)
				goto done;
			spec_class(p, ds, TOK(p) == DK_AUTO ? DC_AUTO : TOK(p) == DK_REGISTER ? DC_REGISTER
				   : TOK(p) == DK_STATIC ? DC_STATIC : TOK(p) == DK_EXTERN ? DC_EXTERN
				   : DC_TYPEDEF);
			break;
		case DK_SELF:
		case DK_THIS:
			if (ctx == SPEC_QUAL || (ctx == SPEC_PARAM && first))
				goto done;
			spec_class(p, ds, TOK(p) == DK_SELF ? DC_SELF : DC_THIS);
			break;
		case DK_VOID: spec_set(p, ds, SK_INTEGER, "void"); break;
		case DK_CHAR: spec_set(p, ds, SK_INTEGER, "char"); break;
		case DK_INT: spec_set(p, ds, SK_INTEGER, "int"); break;
		case DK_FLOAT: spec_set(p, ds, SK_FLOAT, "float"); break;
		case DK_DOUBLE: spec_set(p, ds, SK_FLOAT, "double"); break;
		case DK_STRING: spec_set(p, ds, SK_TYPEDEF, "string"); break;
		case DK_SHORT: spec_attr(p, ds, A_SHORT); break;
		case DK_LONG: spec_attr(p, ds, A_LONG); break;
		case DK_SIGNED: spec_attr(p, ds, A_SIGNED); break;
		case DK_UNSIGNED: spec_attr(p, ds, A_UNSIGNED); break;
		case DK_USERLAND: spec_attr(p, ds, A_USER); break;
		case DK_CONST: spec_attr(p, ds, A_CONST); break;
		case DK_VOLATILE: spec_attr(p, ds, A_VOLATILE); break;
		case DK_RESTRICT: spec_attr(p, ds, A_RESTRICT); break;
		case TK_TNAME:
			tname = xstrdup(p->lx.tok.str);
			if (spec_set(p, ds, SK_TYPEDEF, tname)) {
				next(p);
				return;
			}
			break;
		case DK_STRUCT:
		case DK_UNION:
			sou_specifier(p, ds);
			continue;
		case DK_ENUM:
			enum_specifier(p, ds);
			continue;
		default:
			goto done;
		}
		next(p);
	}
done:
	if (first)
		syntax_error(p);
}

/* ---- declarators ------------------------------------------------------------------ */

/* The declared type: the specifiers' with the declarator's derivations;
 * for an associative array its value type, with *keys its key types. */
struct d_type *d_build_type(struct d_parser *p, struct dspec *ds, struct declarator *d,
			     params **keys)
{
	struct d_type *t = spec_type(p, ds);

	if (keys)
		*keys = NULL;
	for (int i = 0; d && i < d->ops.len; i++) {
		struct deriv *op = d->ops.items[i];

		if (keys && *keys)
			d_error(p->dg, "D_DECL_DYNOBJ", op->pos, "cannot declare array of associative arrays");
		switch (op->op) {
		case DV_PTR:
			t = d_type_qualified(p->types, d_type_pointer(p->types, t), op->quals & A_CONST,
					     op->quals & A_VOLATILE, op->quals & A_USER);
			break;
		case DV_ARRAY:
			if (op->assoc) {
				if (keys)
					*keys = &op->params;
				break;
			}
			if (d_type_is_void(t))
				d_error(p->dg, "D_DECL_VOIDOBJ", op->pos, "cannot declare array of void");
			t = d_type_array(p->types, t, op->nelem);
			break;
		case DV_FUNC:
			t = d_type_func(p->types, t);
			break;
		}
	}
	return t;
}

/* DTrace's dt_decl_prototype(): what a function's, an array's or a
 * probe's parameters may be, each error at its parameter. */
static void check_prototype(struct d_parser *p, params *ps, const char *kind, int flags)
{
	int voids = 0;

	for (int i = 0; i < ps->len; i++) {
		struct param *a = ps->items[i];
		const char *name = a->name ? a->name : "(anonymous)";

		if (a->is_varargs && !(flags & PROTO_VARARGS))
			d_error(p->dg, "D_DECL_PROTO_VARARGS", a->pos,
				"%s prototype may not use a variable-length argument list", kind);
		if (a->is_dyn && !(flags & PROTO_DYNAMIC))
			d_error(p->dg, "D_DECL_PROTO_TYPE", a->pos, "%s prototype may not use parameter "
				"of type dynamic variable: %s, parameter #%d", kind, name, i + 1);
		voids += a->is_void;
		if (a->is_void && !(flags & PROTO_VOID))
			d_error(p->dg, "D_DECL_PROTO_TYPE", a->pos, "%s prototype may not use parameter "
				"of type %s: %s, parameter #%d", kind, d_type_name(a->type), name, i + 1);
		if (a->is_void && a->name)
			d_error(p->dg, "D_DECL_PROTO_NAME", a->pos, "void parameter may not have a name: %s",
				a->name);
		for (int j = 0; a->name && !(flags & PROTO_MAPPED) && j < i; j++)
			if (ps->items[j]->name && !strcmp(ps->items[j]->name, a->name))
				d_error(p->dg, "D_DECL_PROTO_FORM", a->pos, "parameter is already declared "
					"in %s prototype: %s, parameter #%d", kind, a->name, i + 1);
		if (!a->name && !a->is_void && !a->is_varargs && !(flags & PROTO_ANON))
			d_error(p->dg, "D_DECL_PROTO_NAME", a->pos,
				"parameter declaration requires a name: parameter #%d", i + 1);
	}
	if (voids && ps->len > 1)
		d_parse_error(p, "D_DECL_PROTO_VOID", "void must be sole parameter");
}

/* parameter_declaration:
 *	parameter_declaration_specifiers [ declarator | abstract_declarator ] */
static struct param *parameter(struct d_parser *p)
{
	struct d_lexscope saved = d_lexscope_push(p);
	struct dspec ds = { 0 };
	struct declarator d = { 0 };
	struct param *a = xcalloc(1, sizeof(*a));
	params *keys;

	d_specifiers(p, &ds, SPEC_PARAM);
	if (!ds.ident)
		d_declarator(p, &d, PARAM);
	a->pos = here(p);
	if (ds.dclass != DC_DEFAULT && ds.dclass != DC_REGISTER)
		d_parse_error(p, "D_DECL_PARMCLASS",
			      "inappropriate storage class for function or associative array parameter");
	a->type = d_build_type(p, &ds, &d, &keys);
	a->is_dyn = keys != NULL;
	a->is_void = !a->is_dyn && d_type_resolve(a->type)->kind == DT_VOID;
	a->name = d.name ? d.name : ds.ident;
	d_lexscope_pop(p, saved);
	return a;
}

/* parameter_type_list:
 *	parameter_list | '...' | parameter_list ',' '...'
 * parameter_list: parameter_declaration { ',' parameter_declaration } */
static void parameter_list(struct d_parser *p, params *ps)
{
	for (;;) {
		if (TOK(p) == DP_ELLIPSIS) {
			struct param *a = xcalloc(1, sizeof(*a));

			a->is_varargs = true;
			next(p);
			a->pos = here(p);
			vec_push(ps, a);
			return;
		}
		vec_push(ps, parameter(p));
		if (TOK(p) != DP_COMMA)
			return;
		next(p);
	}
}

/* A parameter list can start here (else a subscript is an expression). */
static bool starts_parameter(const struct d_parser *p)
{
	return d_starts_type_name(p) || storage_class(TOK(p)) || TOK(p) == DP_ELLIPSIS;
}

/* function: '(' [ parameter_type_list ] ')'   (the '(' already read) */
struct deriv *d_function_suffix(struct d_parser *p, const char *kind, int flags)
{
	struct deriv *f = xcalloc(1, sizeof(*f));
	struct d_lexscope saved = d_lexscope_push(p);

	f->op = DV_FUNC;
	f->pos = here(p);
	if (TOK(p) != DP_RPAR)
		parameter_list(p, &f->params);
	if (TOK(p) != DP_RPAR)
		syntax_error(p);
	check_prototype(p, &f->params, kind, flags);
	d_lexscope_pop(p, saved);
	next(p);
	return f;
}

/* array: '[' [ constant_expression | parameter_type_list ] ']'
 * A dimension must be a positive integer constant below 2^32; a list of
 * types makes an associative array (not after a dimension). */
static struct deriv *array_suffix(struct d_parser *p, bool after_array)
{
	struct deriv *a = xcalloc(1, sizeof(*a));
	struct d_lexscope saved = d_lexscope_push(p);
	struct d_expr *dim = NULL;

	a->op = DV_ARRAY;
	a->nelem = -1;
	next(p);
	if (starts_parameter(p)) {
		parameter_list(p, &a->params);
		a->assoc = true;
	} else if (TOK(p) != DP_RBRAC) {
		dim = d_parse_conditional(p);
	}
	if (TOK(p) != DP_RBRAC)
		syntax_error(p);
	a->pos = here(p);
	if (a->assoc && after_array)
		d_parse_error(p, "D_DECL_DYNOBJ", "cannot declare array of associative arrays");
	if (dim) {
		int64_t v;
		bool is_unsigned;

		d_check_idents(p, dim);
		if (!d_const_int(p, dim, &v, &is_unsigned) || !v || (!is_unsigned && v < 0))
			d_parse_error(p, "D_DECL_ARRSUB", "positive integral constant expression or "
				      "tuple signature expected as array declaration subscript");
		if ((uint64_t)v > UINT_MAX)
			d_parse_error(p, "D_DECL_ARRBIG", "array dimension too big");
		a->nelem = v;
	}
	if (a->assoc)
		check_prototype(p, &a->params, "array", PROTO_ANON);
	d_lexscope_pop(p, saved);
	next(p);
	return a;
}

/* After a '(' where a declarator may continue: a parenthesized declarator
 * (rather than a function's parameters) starts here. */
static bool nested_declarator(const struct d_parser *p, enum decl_mode mode)
{
	return mode == NAMED || TOK(p) == DP_MUL || TOK(p) == DP_LPAR || TOK(p) == DP_LBRAC ||
		(mode == PARAM && TOK(p) == TK_IDENT);
}

/* declarator:	[ pointer ] direct_declarator
 * pointer:	'*' [ type_qualifier_list ] [ pointer ]
 * direct_declarator:
 *	IDENT | '(' declarator ')' | direct_declarator array
 *	| direct_declarator function
 * and the same without IDENT for abstract_declarator; the derivations
 * come out innermost first: the pointers, the suffixes right to left,
 * then the parenthesized declarator's. */
void d_declarator(struct d_parser *p, struct declarator *d, enum decl_mode mode)
{
	VEC(struct deriv *) ptrs = { 0 }, sufs = { 0 };
	struct declarator inner = { 0 };
	bool direct = false, arrays = false;

	while (TOK(p) == DP_MUL) {
		struct deriv *ptr = xcalloc(1, sizeof(*ptr));

		ptr->op = DV_PTR;
		ptr->pos = here(p);
		next(p);
		for (;; next(p)) {
			if (TOK(p) == DK_CONST)
				ptr->quals |= A_CONST;
			else if (TOK(p) == DK_VOLATILE)
				ptr->quals |= A_VOLATILE;
			else if (TOK(p) == DK_RESTRICT)
				ptr->quals |= A_RESTRICT;
			else
				break;
		}
		vec_push(&ptrs, ptr);
	}
	if (TOK(p) == TK_IDENT && mode != ABSTRACT) {
		d->name = xstrdup(p->lx.tok.str);
		d->pos = here(p);
		direct = true;
		next(p);
	} else if (TOK(p) == DP_LPAR) {
		next(p);
		if (nested_declarator(p, mode)) {
			d_declarator(p, &inner, mode);
			expect(p, DP_RPAR);
			d->name = inner.name;
			d->pos = inner.pos;
		} else {
			vec_push(&sufs, d_function_suffix(p, "function", PROTO_VARARGS | PROTO_VOID | PROTO_ANON));
		}
		direct = true;
	} else if (mode == NAMED) {
		syntax_error(p);
	}
	for (;;) {
		if (TOK(p) == DP_LBRAC) {
			vec_push(&sufs, array_suffix(p, arrays));
			arrays = true;
		} else if (TOK(p) == DP_LPAR && (direct || mode != NAMED)) {
			next(p);
			vec_push(&sufs, d_function_suffix(p, "function", PROTO_VARARGS | PROTO_VOID | PROTO_ANON));
		} else {
			break;
		}
		direct = true;
	}
	for (int i = 0; i < ptrs.len; i++)
		vec_push(&d->ops, ptrs.items[i]);
	for (int i = sufs.len - 1; i >= 0; i--)
		vec_push(&d->ops, sufs.items[i]);
	for (int i = 0; i < inner.ops.len; i++)
		vec_push(&d->ops, inner.ops.items[i]);
}

/* type_name: specifier_qualifier_list [ abstract_declarator ] */
struct d_type *d_parse_type_name(struct d_parser *p)
{
	struct d_lexscope saved = d_lexscope_push(p);
	struct dspec ds = { 0 };
	struct declarator d = { 0 };
	struct d_type *t;

	d_specifiers(p, &ds, SPEC_QUAL);
	if (ds.ident)
		syntax_error(p);
	d_declarator(p, &d, ABSTRACT);
	t = d_build_type(p, &ds, &d, NULL);
	d_lexscope_pop(p, saved);
	return t;
}

/* ---- struct, union, enum ------------------------------------------------------------ */

static const char *kind_word(enum d_tkind k)
{
	return k == DT_STRUCT ? "struct" : k == DT_UNION ? "union" : "enum";
}

/* Is the type one a variable or member cannot have: a struct or union
 * not defined (yet), an enum only named? */
bool d_incomplete(struct d_type *t)
{
	t = d_type_resolve(t);
	return ((t->kind == DT_STRUCT || t->kind == DT_UNION) && (!t->complete || !t->size)) ||
		(t->kind == DT_ENUM && !t->complete);
}

/* A member once its declarator (and bit-field width) is read: DTrace's
 * dt_decl_member() checks, then the member is added. */
static void add_member(struct d_parser *p, struct d_type *sou, struct dspec *ds,
		       struct declarator *d, struct d_expr *width)
{
	const char *name = d->name ? d->name : ds->ident;
	const char *idname = name ? name : "(anon)";
	struct d_type *t, *rt;
	params *keys;
	int64_t bits = 0;
	bool is_unsigned;

	if (!width && !name)
		d_parse_error(p, "D_DECL_MNAME", "member declaration requires a name");
	t = d_build_type(p, ds, d, &keys);
	if (name && strchr(name, '`'))
		d_parse_error(p, "D_DECL_SCOPE", "D scoping operator may not be used in a member name (%s)",
			      name);
	if (keys)
		d_parse_error(p, "D_DECL_DYNOBJ", "cannot have dynamic member: %s", name);
	rt = d_type_resolve(t);
	if (d_incomplete(t))
		d_parse_error(p, "D_DECL_INCOMPLETE", "incomplete struct/union/enum %s: %s",
			      d_type_name(t), name);
	if (rt->size == 0)
		d_parse_error(p, "D_DECL_VOIDOBJ", "cannot have void member: %s", name);
	if (width) {
		if (!name && width->kind == DE_INT && width->num == 0)
			return;   /* ":0": no more in this unit, which C layout does anyway */
		d_check_idents(p, width);
		if (!d_const_int(p, width, &bits, &is_unsigned) || !bits || (!is_unsigned && bits < 0))
			d_parse_error(p, "D_DECL_BFCONST",
				      "positive integral constant expression expected as bit-field size");
		if (rt->kind != DT_INT)
			d_parse_error(p, "D_DECL_BFTYPE", "invalid type for bit-field: %s", idname);
		if (bits > rt->size * 8)
			d_parse_error(p, "D_DECL_BFSIZE", "bit-field too big for type: %s", idname);
	}
	if (!d_sou_add(p->types, sou, name, t, (int)bits))
		d_parse_error(p, "D_UNKNOWN", "failed to define member '%s': Duplicate member or variable name",
			      idname);
}

/* struct_declaration:
 *	specifier_qualifier_list struct_declarator { ',' struct_declarator } ';'
 * struct_declarator: declarator | ':' constant_expression
 *	| declarator ':' constant_expression */
static void member_declaration(struct d_parser *p, struct d_type *sou)
{
	struct dspec ds = { 0 };

	d_specifiers(p, &ds, SPEC_QUAL);
	for (;;) {
		struct declarator d = { 0 };
		struct d_expr *width = NULL;

		if (TOK(p) != DP_COLON && !(ds.ident && (TOK(p) == DP_SEMI || TOK(p) == DP_COMMA)))
			d_declarator(p, &d, NAMED);
		if (TOK(p) == DP_COLON) {
			next(p);
			width = d_parse_conditional(p);
		}
		if (TOK(p) != DP_COMMA && TOK(p) != DP_SEMI)
			syntax_error(p);
		add_member(p, sou, &ds, &d, width);
		p->lx.decl_has_type = ds.name != NULL;
		if (TOK(p) == DP_SEMI)
			break;
		next(p);
	}
	p->lx.decl_has_type = false;
	next(p);
}

/* struct_or_union [ TNAME ] '{' struct_declaration { struct_declaration } '}'
 * (the '{' current): a tag defined twice is D_DECL_TYPERED. */
static void sou_define(struct d_parser *p, struct dspec *ds, enum d_tkind kind, char *tag)
{
	struct d_type *t;
	struct d_lexscope saved;

	spec_set(p, ds, kind == DT_STRUCT ? SK_STRUCT : SK_UNION, tag);
	if (tag && (t = d_type_local_tag(p->types, kind, tag)) && t->complete)
		d_parse_error(p, "D_DECL_TYPERED", "type redeclared: %s %s", kind_word(kind), tag);
	ds->sou = d_sou_begin(p->types, kind, tag);
	saved = d_lexscope_push(p);
	next(p);
	do
		member_declaration(p, ds->sou);
	while (TOK(p) != DP_RBRACE);
	d_sou_end(p->types, ds->sou);
	d_lexscope_pop(p, saved);
	p->lx.decl_has_type = tag != NULL;
	next(p);
}

/* struct_or_union_specifier:
 *	struct_or_union [ TNAME ] '{' ... '}' | struct_or_union TNAME */
static void sou_specifier(struct d_parser *p, struct dspec *ds)
{
	enum d_tkind kind = TOK(p) == DK_STRUCT ? DT_STRUCT : DT_UNION;
	char *tag;

	next(p);
	if (TOK(p) == DP_LBRACE) {
		sou_define(p, ds, kind, NULL);
		return;
	}
	if (TOK(p) != TK_TNAME)
		syntax_error(p);
	tag = xstrdup(p->lx.tok.str);
	next(p);
	if (TOK(p) == DP_LBRACE) {
		sou_define(p, ds, kind, tag);
		return;
	}
	spec_set(p, ds, kind == DT_STRUCT ? SK_STRUCT : SK_UNION, tag);
	ds->sou = d_type_tag(p->types, kind, tag, true);
}

/* An enumerator's value: an enumerator of this enum, or an integer
 * constant expression within int. */
static int64_t enumerator_value(struct d_parser *p, struct d_type *en, const char *name,
				struct d_expr *e)
{
	int64_t v;
	bool is_unsigned;

	if (e->kind == DE_IDENT)
		for (int i = 0; i < en->enumerators.len; i++)
			if (!strcmp(en->enumerators.items[i].name, e->name))
				return en->enumerators.items[i].value;
	d_check_idents(p, e);
	if (!d_const_int(p, e, &v, &is_unsigned))
		d_parse_error(p, "D_DECL_ENCONST",
			      "enumerator '%s' must be assigned to an integral constant expression", name);
	if (v > INT_MAX || v < INT_MIN)
		d_parse_error(p, "D_DECL_ENOFLOW", "enumerator '%s' value overflows INT_MAX (%d)", name,
			      INT_MAX);
	return v;
}

/* enum [ TNAME ] '{' enumerator { ',' enumerator } '}'
 * enumerator: IDENT [ '=' expression ]
 * Each enumerator is a global constant: a name taken is D_DECL_IDRED. */
static void enum_define(struct d_parser *p, struct dspec *ds, char *tag)
{
	struct d_type *t, *en;
	struct d_lexscope saved;
	int64_t value = -1;

	spec_set(p, ds, SK_ENUM, tag);
	if (tag && (t = d_type_local_tag(p->types, DT_ENUM, tag)) && t->enumerators.len)
		d_parse_error(p, "D_DECL_TYPERED", "type redeclared: enum %s", tag);
	en = ds->sou = d_enum_begin(p->types, tag);
	saved = d_lexscope_push(p);
	next(p);
	for (;;) {
		char *name;
		struct d_expr *e = NULL;

		if (TOK(p) != TK_IDENT)
			syntax_error(p);
		name = xstrdup(p->lx.tok.str);
		next(p);
		if (TOK(p) == DP_ASSIGN) {
			next(p);
			e = d_parse_assignment(p);
		}
		if (TOK(p) != DP_COMMA && TOK(p) != DP_RBRACE)
			syntax_error(p);
		if (strchr(name, '`'))
			d_parse_error(p, "D_DECL_SCOPE", "D scoping operator may not be used in an "
				      "enumerator name (%s)", name);
		value = e ? enumerator_value(p, en, name, e) : value + 1;
		if (!d_enum_add(p->types, en, name, value))
			d_parse_error(p, "D_UNKNOWN", "failed to define enumerator '%s': Duplicate member or "
				      "variable name", name);
		if (d_lex_global(&p->lx, name))
			d_parse_error(p, "D_DECL_IDRED", "identifier redeclared: %s", name);
		d_types_add_enumerator(p->types, name, en, value);
		if (TOK(p) == DP_RBRACE)
			break;
		next(p);
	}
	d_enum_end(p->types, en);
	d_lexscope_pop(p, saved);
	p->lx.decl_has_type = tag != NULL;
	next(p);
}

/* enum_specifier: enum [ TNAME ] '{' enumerator_list '}' | enum TNAME */
static void enum_specifier(struct d_parser *p, struct dspec *ds)
{
	char *tag;

	next(p);
	if (TOK(p) == DP_LBRACE) {
		enum_define(p, ds, NULL);
		return;
	}
	if (TOK(p) != TK_TNAME)
		syntax_error(p);
	tag = xstrdup(p->lx.tok.str);
	next(p);
	if (TOK(p) == DP_LBRACE) {
		enum_define(p, ds, tag);
		return;
	}
	spec_set(p, ds, SK_ENUM, tag);
	ds->sou = d_type_tag(p->types, DT_ENUM, tag, true);
}
