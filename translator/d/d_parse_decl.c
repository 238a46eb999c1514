/* d_parse_decl.c - D's declarations: variables (global, self, this),
 * typedefs, inlines, translators and providers, with the checks DTrace
 * makes as it reads them (dt_node_decl(), dt_node_inline() ...): a name
 * declared twice, a storage class D has no use for, an array without a
 * dimension, a type that is incomplete or void.
 */
#include <string.h>

#include "d/d_parse_int.h"
#include "util.h"

/* ---- declarations ------------------------------------------------------------------- */

/* How DTrace names a kind of identifier in its messages. */
static const char *idkind(bool assoc)
{
	return assoc ? "associative array" : "scalar";
}

static const char *builtin_idkind(struct d_parser *p, const char *name)
{
	switch (d_builtin_kind(name, p->lx.version)) {
	case 'f': return "function";
	case 'a': return "tracing function";
	case 'g': return "aggregating function";
	default:
		if (!strcmp(name, "args") || !strcmp(name, "uregs"))
			return "associative array";
		if (!strcmp(name, "self") || !strcmp(name, "this"))
			return "pointer";
		return "scalar";
	}
}

/* A declaration of the program, in source order. */
static struct d_decl *new_decl(struct d_parser *p, enum d_dkind kind, const char *name,
			       struct d_type *t, struct d_pos pos)
{
	struct d_decl *d = xcalloc(1, sizeof(*d));

	d->kind = kind;
	d->name = name ? xstrdup(name) : NULL;
	d->type = t;
	d->pos = pos;
	vec_push(&p->prog->decls, d);
	return d;
}

/* An associative array's key types (and an inline's parameter names). */
static void set_keys(struct d_decl *d, params *keys)
{
	if (!keys)
		return;
	d->assoc = true;
	for (int i = 0; i < keys->len; i++) {
		vec_push(&d->keys, keys->items[i]->type);
		vec_push(&d->key_names, keys->items[i]->name);
	}
}

/* A variable declared again: the same kind and type is no error. */
static void check_redeclared(struct d_parser *p, const char *name, struct d_type *t, params *keys,
			     const struct d_decl *prev)
{
	if (prev->assoc != (keys != NULL) || prev->type != t)
		d_parse_error(p, "D_DECL_IDRED", "identifier redeclared: %s\n\t current: %s %s\n\t"
			      "previous: %s %s", name, idkind(keys), d_type_name(t),
			      idkind(prev->assoc), d_type_name(prev->type));
	if (!keys)
		return;
	for (int i = 0; i < keys->len && i < prev->keys.len; i++)
		if (keys->items[i]->type != prev->keys.items[i])
			d_parse_error(p, "D_DECL_IDRED", "identifier redeclared: %s\n\t current: %s, key "
				      "#%d of type %s\n\tprevious: %s, key #%d of type %s", name,
				      idkind(true), i + 1, d_type_name(keys->items[i]->type),
				      idkind(true), i + 1, d_type_name(prev->keys.items[i]));
	if (keys->len != prev->keys.len)
		d_parse_error(p, "D_DECL_IDRED", "identifier redeclared: %s\n\t current: %s of %s, tuple "
			      "length %d\n\tprevious: %s of %s, tuple length %d", name, idkind(true),
			      d_type_name(t), keys->len, idkind(true), d_type_name(prev->type),
			      prev->keys.len);
}

/* One declarator of a declaration (DTrace's dt_node_decl()), at the ','
 * or ';' after it. d NULL: the specifiers alone ("struct s { ... };"). */
static void declare(struct d_parser *p, struct dspec *ds, struct declarator *d)
{
	const char *name = d && d->name ? d->name : ds->ident;
	struct d_pos pos = d && d->name ? d->pos : here(p);
	enum dclass cls = ds->dclass;
	enum d_storage storage = cls == DC_SELF ? DSC_SELF : cls == DC_THIS ? DSC_THIS : DSC_GLOBAL;
	params *keys;
	struct d_type *t = d_build_type(p, ds, d, &keys), *et;
	struct d_decl *prev, *decl;
	int64_t ev;

	if (!name) {
		if (ds->kind != SK_STRUCT && ds->kind != SK_UNION && ds->kind != SK_ENUM)
			d_parse_error(p, "D_DECL_USELESS", "useless declaration");
		new_decl(p, DD_TYPE, NULL, t, pos);
		return;
	}
	if (strchr(name, '`'))
		d_parse_error(p, "D_DECL_SCOPE", "D scoping operator may not be used in a "
			      "declaration name (%s)", name);
	if (!keys && d_type_resolve(t)->kind == DT_FUNC && (cls == DC_DEFAULT || cls == DC_STATIC))
		cls = DC_EXTERN;
	switch (cls) {
	case DC_AUTO:
	case DC_REGISTER:
	case DC_STATIC:
		d_parse_error(p, "D_DECL_BADCLASS", "specified storage class not appropriate in D");
	case DC_EXTERN:
		decl = new_decl(p, d_type_resolve(t)->kind == DT_FUNC ? DD_FUNC : DD_VAR, name, t, pos);
		decl->is_extern = true;
		set_keys(decl, keys);
		return;
	case DC_TYPEDEF:
		if (d_lex_global(&p->lx, name))
			d_parse_error(p, "D_DECL_IDRED", "global variable identifier redeclared: %s", name);
		if (d_type_local_name(p->types, name))
			d_parse_error(p, "D_DECL_IDRED", "typedef redeclared: %s", name);
		d_typedef_declare(p->types, name, t);
		new_decl(p, DD_TYPEDEF, name, t, pos);
		return;
	default:
		break;
	}
	if (d && d->ops.len && d->ops.items[d->ops.len - 1]->op == DV_ARRAY && !keys &&
	    d->ops.items[d->ops.len - 1]->nelem < 0)
		d_parse_error(p, "D_DECL_ARRNULL", "array declaration requires array dimension or "
			      "tuple signature: %s", name);
	if (storage == DSC_GLOBAL && d_builtin_kind(name, p->lx.version))
		d_parse_error(p, "D_DECL_IDRED", "built-in identifier redeclared: %s", name);
	if (d_type_local_name(p->types, name))
		d_parse_error(p, "D_DECL_IDRED", "typedef identifier redeclared: %s", name);
	if (keys && storage == DSC_THIS)
		d_parse_error(p, "D_DECL_LOCASSC", "associative arrays may not be declared as local "
			      "variables: %s", name);
	if (storage == DSC_GLOBAL && d_types_enumerator(p->types, name, &et, &ev))
		d_parse_error(p, "D_DECL_IDRED", "identifier redeclared: %s\n\t current: %s %s\n\t"
			      "previous: enumerator %s", name, idkind(keys), d_type_name(t), d_type_name(et));
	if ((prev = d_types_decl(p->types, storage, name))) {
		check_redeclared(p, name, t, keys, prev);
		return;
	}
	if (d_type_is_void(t))
		d_parse_error(p, "D_DECL_VOIDOBJ", "cannot have void object: %s", name);
	if (d_incomplete(t))
		d_parse_error(p, "D_DECL_INCOMPLETE", "incomplete struct/union/enum %s: %s",
			      d_type_name(t), name);
	decl = new_decl(p, DD_VAR, name, t, pos);
	decl->storage = storage;
	set_keys(decl, keys);
	d_types_add_decl(p->types, decl);
}

/* The end of an outer item: what the lexer knew of it goes, and it reads
 * the next one in the outer state (after the current ';'). */
static void end_outer(struct d_parser *p)
{
	p->lx.decl_has_type = p->lx.typedef_class = false;
	p->lx.state = DL_CLAUSE;
	next(p);
}

/* declaration:
 *	declaration_specifiers [ declarator { ',' declarator } ] ';' */
void d_parse_declaration(struct d_parser *p)
{
	struct dspec ds = { 0 };

	d_specifiers(p, &ds, SPEC_DECL);
	if (TOK(p) == DP_SEMI) {
		declare(p, &ds, NULL);
	} else {
		for (;;) {
			struct declarator d = { 0 };

			if (ds.ident && TOK(p) == TK_IDENT)
				d_parse_error(p, "D_DECL_IDENT", "old-style declaration or incorrect type specified");
			d_declarator(p, &d, NAMED);
			if (TOK(p) != DP_COMMA && TOK(p) != DP_SEMI)
				syntax_error(p);
			declare(p, &ds, &d);
			if (TOK(p) == DP_SEMI)
				break;
			next(p);
		}
	}
	end_outer(p);
}

/* How DTrace describes a global name an inline may not take. */
static char *previous_global(struct d_parser *p, const char *name)
{
	struct d_decl *d = d_types_decl(p->types, DSC_GLOBAL, name);

	if (d)
		return xasprintf("%s %s", idkind(d->assoc), d->kind == DD_INLINE ? "inline" : "");
	if (d_types_enumerator(p->types, name, NULL, NULL))
		return xstrdup("enumerator inline");
	return xasprintf("%s ", builtin_idkind(p, name));
}

/* inline_definition:
 *	inline declaration_specifiers declarator '=' assignment_expression ';'
 * checked at its ';' as DTrace's dt_node_inline(). */
void d_parse_inline(struct d_parser *p)
{
	struct dspec ds = { 0 };
	struct declarator d = { 0 };
	struct d_lexscope saved;
	struct d_expr *init;
	struct d_decl *decl;
	struct d_type *t;
	params *keys;

	next(p);
	d_specifiers(p, &ds, SPEC_DECL);
	d_declarator(p, &d, NAMED);
	saved = d_lexscope_push(p);
	expect(p, DP_ASSIGN);
	init = d_parse_assignment(p);
	if (TOK(p) != DP_SEMI)
		syntax_error(p);
	d_lexscope_pop(p, saved);
	t = d_build_type(p, &ds, &d, &keys);
	if (ds.dclass != DC_DEFAULT)
		d_parse_error(p, "D_DECL_BADCLASS", "specified storage class not appropriate for inline "
			      "declaration");
	if (d_lex_global(&p->lx, d.name))
		d_parse_error(p, "D_DECL_IDRED", "identifier redefined: %s\n\t current: inline "
			      "definition\n\tprevious: %s", d.name, previous_global(p, d.name));
	if (d.ops.len && d.ops.items[d.ops.len - 1]->op == DV_ARRAY && !keys)
		d_parse_error(p, "D_DECL_ARRNULL", d.ops.items[d.ops.len - 1]->nelem < 0
			      ? "inline declaration requires array tuple signature: %s"
			      : "inline declaration cannot be of scalar array type: %s", d.name);
	if (d_type_is_void(t))
		d_parse_error(p, "D_DECL_VOIDOBJ", "cannot declare void inline: %s", d.name);
	if (d_incomplete(t) && !d_type_resolve(t)->members.len)
		d_parse_error(p, "D_DECL_INCOMPLETE", "incomplete struct/union/enum %s: %s",
			      d_type_name(t), d.name);
	decl = new_decl(p, DD_INLINE, d.name, t, d.pos);
	decl->init = init;
	set_keys(decl, keys);
	d_types_add_decl(p->types, decl);
	end_outer(p);
}

/* ---- translators and providers --------------------------------------------------------- */

/* translator_definition:
 *	translator type_name '<' type_name IDENT '>'
 *	    '{' { IDENT '=' assignment_expression ';' } '}' ';'
 * (whether its types and members make sense is the checker's) */
void d_parse_translator(struct d_parser *p)
{
	struct d_xlator *x = xcalloc(1, sizeof(*x));

	x->pos = here(p);
	next(p);
	if (!d_starts_type_name(p))
		syntax_error(p);
	x->to = d_parse_type_name(p);
	expect(p, DP_LT);
	p->lx.xlator_input = true;
	if (!d_starts_type_name(p))
		syntax_error(p);
	x->from = d_parse_type_name(p);
	if (TOK(p) != TK_IDENT)
		syntax_error(p);
	x->from_name = xstrdup(p->lx.tok.str);
	next(p);
	if (TOK(p) != DP_GT)
		syntax_error(p);
	p->lx.xlator_input = false;
	next(p);
	expect(p, DP_LBRACE);
	while (TOK(p) != DP_RBRACE) {
		if (TOK(p) != TK_IDENT)
			syntax_error(p);
		vec_push(&x->members, xstrdup(p->lx.tok.str));
		next(p);
		expect(p, DP_ASSIGN);
		vec_push(&x->exprs, d_parse_assignment(p));
		expect(p, DP_SEMI);
	}
	next(p);
	if (TOK(p) != DP_SEMI)
		syntax_error(p);
	x->end = here(p);
	vec_push(&p->prog->xlators, x);
	end_outer(p);
}

/* A probe's argument list in a provider: '(' [ parameter_type_list ] ')' */
static void probe_params(struct d_parser *p, struct d_probe_decl *pr, bool xargs)
{
	struct deriv *f;

	if (TOK(p) != DP_LPAR)
		syntax_error(p);
	next(p);
	f = d_function_suffix(p, xargs ? "probe output" : "probe input",
			      PROTO_VOID | PROTO_ANON | (xargs ? PROTO_MAPPED : 0));
	for (int i = 0; i < f->params.len; i++) {
		if (f->params.items[i]->is_void)
			continue;
		if (xargs)
			vec_push(&pr->xargs, f->params.items[i]->type);
		else
			vec_push(&pr->args, f->params.items[i]->type);
	}
}

/* "foo__bar" is probe foo-bar, as DTrace names USDT probes */
static char *hyphenate(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	for (; *s; s++) {
		if (s[0] == '_' && s[1] == '_') {
			strbuf_addch(&sb, '-');
			s++;
		} else {
			strbuf_addch(&sb, *s);
		}
	}
	return strbuf_detach(&sb);
}

/* provider_definition:
 *	provider IDENT '{' { probe IDENT function [ ':' function ] ';' } '}' ';' */
void d_parse_provider(struct d_parser *p)
{
	struct d_provider *pv = xcalloc(1, sizeof(*pv));
	size_t len;

	pv->pos = here(p);
	next(p);
	if (TOK(p) != TK_IDENT)
		syntax_error(p);
	pv->name = xstrdup(p->lx.tok.str);
	next(p);
	expect(p, DP_LBRACE);
	while (TOK(p) != DP_RBRACE) {
		struct d_probe_decl *pr = xcalloc(1, sizeof(*pr));

		expect(p, DK_PROBE);
		if (TOK(p) != TK_IDENT)
			syntax_error(p);
		pr->pos = here(p);
		pr->name = hyphenate(p->lx.tok.str);
		if (strchr(pr->name, '`'))
			d_parse_error(p, "D_PROV_BADNAME", "probe name may not contain scoping operator: ::%s",
				      pr->name);
		next(p);
		probe_params(p, pr, false);
		if (TOK(p) == DP_COLON) {
			next(p);
			pr->has_xargs = true;
			probe_params(p, pr, true);
		}
		expect(p, DP_SEMI);
		vec_push(&pv->probes, pr);
	}
	next(p);
	if (TOK(p) != DP_SEMI)
		syntax_error(p);
	len = strlen(pv->name);
	if (strchr(pv->name, '`'))
		d_error(p->dg, "D_PROV_BADNAME", pv->pos,
			"provider name may not contain scoping operator: %s", pv->name);
	if (len && pv->name[len - 1] >= '0' && pv->name[len - 1] <= '9')
		d_error(p->dg, "D_PROV_BADNAME", pv->pos, "provider name may not end with a digit: %s",
			pv->name);
	vec_push(&p->prog->providers, pv);
	end_outer(p);
}
