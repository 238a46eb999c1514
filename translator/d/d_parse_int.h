/* d_parse_int.h - what the parser's files share: the parser state, token
 * helpers, and the entry points of the expression (d_parse_expr.c) and
 * declaration (d_parse_decl.c) grammars.
 *
 * The parser looks one token ahead (p->lx.tok, already read). Where DTrace
 * reports an error "at yylineno" it is the line of that token, the last
 * one read, so errors are reported at the current token's position.
 */
#ifndef CSTAP_D_PARSE_INT_H
#define CSTAP_D_PARSE_INT_H

#include "d/d_lex.h"
#include "d/d_parse.h"

struct d_parser {
	struct d_lexer lx;
	struct d_diag *dg;
	struct d_types *types;
	struct d_program *prog;
	const struct d_parse_args *args;
};

#define TOK(p) ((p)->lx.tok.kind)

static inline void next(struct d_parser *p)
{
	d_lex_next(&p->lx);
}

static inline struct d_pos here(const struct d_parser *p)
{
	return p->lx.tok.pos;
}

/* "syntax error near "TOKEN"" about the current token */
static inline __attribute__((noreturn)) void syntax_error(struct d_parser *p)
{
	d_lex_syntax_error(&p->lx);
}

/* The current token must be k: step past it. */
static inline void expect(struct d_parser *p, enum d_tok k)
{
	if (TOK(p) != k)
		syntax_error(p);
	next(p);
}

/* An error of tag at the current token (DTrace's xyerror at yylineno). */
__attribute__((noreturn, format(printf, 3, 4)))
void d_parse_error(struct d_parser *p, const char *tag, const char *fmt, ...);

/* What the lexer must know of the declaration being read; saved and
 * cleared around a nested one (a struct body, parameters, a subscript). */
struct d_lexscope {
	bool decl_has_type, typedef_class, xlator_input;
};
struct d_lexscope d_lexscope_push(struct d_parser *p);
void d_lexscope_pop(struct d_parser *p, struct d_lexscope saved);

struct d_expr *d_expr_new(enum d_ekind kind, struct d_pos pos);

/* d_parse_expr.c */
struct d_expr *d_parse_expression(struct d_parser *p);      /* with commas */
struct d_expr *d_parse_assignment(struct d_parser *p);
struct d_expr *d_parse_conditional(struct d_parser *p);     /* constant_expression */
/* The value of a constant integer expression as DTrace folds one
 * (literals, enumerators, sizeof a type, operators on those); false if
 * e is not one. *is_unsigned: its type is unsigned. */
bool d_const_int(struct d_parser *p, const struct d_expr *e, int64_t *v, bool *is_unsigned);
/* An expression DTrace evaluates while declaring (a dimension, a width, an
 * enumerator's value) names nothing undefined (D_IDENT_UNDEF). */
void d_check_idents(struct d_parser *p, const struct d_expr *e);

/* ---- d_parse_type.c: specifiers and declarators ---- */

/* DTrace's kinds of declaration (dd_kind) */
enum spec_kind { SK_NONE, SK_INTEGER, SK_FLOAT, SK_STRUCT, SK_UNION, SK_ENUM, SK_TYPEDEF };

enum {
	A_SHORT = 1, A_LONG = 2, A_LONGLONG = 4, A_SIGNED = 8, A_UNSIGNED = 16,
	A_CONST = 32, A_VOLATILE = 64, A_RESTRICT = 128, A_USER = 256,
};

enum dclass { DC_DEFAULT, DC_AUTO, DC_REGISTER, DC_STATIC, DC_EXTERN, DC_TYPEDEF, DC_SELF, DC_THIS };

/* Which specifiers a context takes: a declaration's (storage classes,
 * self and this), a parameter's (no self or this first), a member's or a
 * type name's (types and qualifiers only). */
enum spec_ctx { SPEC_DECL, SPEC_PARAM, SPEC_QUAL };

/* A declaration's specifiers as DTrace's dt_decl_t collects them. */
struct dspec {
	enum spec_kind kind;
	char *name;              /* "int", "char", "string", a typedef, a tag; or NULL */
	unsigned attr;
	struct d_type *sou;      /* the struct, union or enum named */
	enum dclass dclass;
	char *ident;             /* a type name taken for the declared name */
};

/* A parameter of a function, a probe, or an associative array's key. */
struct param {
	struct d_type *type;
	char *name;
	bool is_void, is_dyn, is_varargs;
	struct d_pos pos;        /* where DTrace reports it: the token after it */
};

typedef VEC(struct param *) params;

enum deriv_op { DV_PTR, DV_ARRAY, DV_FUNC };

/* One derivation of a declarator: pointer to, array of, function returning */
struct deriv {
	enum deriv_op op;
	unsigned quals;          /* DV_PTR: the qualifiers after its '*' */
	int64_t nelem;           /* DV_ARRAY: -1 when not given */
	bool assoc;              /* DV_ARRAY: [types]: an associative array */
	params params;           /* DV_ARRAY's key types, DV_FUNC's parameters */
	struct d_pos pos;
};

/* A declarator read: its name (or none) and its derivations */
struct declarator {
	char *name;
	struct d_pos pos;
	VEC(struct deriv *) ops; /* applied to the specified type in order */
};

/* What a declarator may be: with a name (a variable, a member), with or
 * without one (a parameter), without one (a type name). */
enum decl_mode { NAMED, PARAM, ABSTRACT };

/* what a function's, an array's or a probe's parameters may be
 * (DTrace's dt_decl_prototype() flags; PROTO_MAPPED: a provider probe's
 * translated arguments, whose names are the native ones' and may repeat) */
enum { PROTO_VARARGS = 1, PROTO_VOID = 2, PROTO_ANON = 4, PROTO_DYNAMIC = 8, PROTO_MAPPED = 16 };

bool d_starts_type_name(const struct d_parser *p);          /* a cast's '(' follows */
bool d_starts_declaration(const struct d_parser *p);        /* at the outer level */
struct d_type *d_parse_type_name(struct d_parser *p);
/* specifiers of a context, then a declarator of a mode */
void d_specifiers(struct d_parser *p, struct dspec *ds, enum spec_ctx ctx);
void d_declarator(struct d_parser *p, struct declarator *d, enum decl_mode mode);
/* The declared type: the specifiers' with the declarator's derivations;
 * for an associative array its value type, with *keys its key types. */
struct d_type *d_build_type(struct d_parser *p, struct dspec *ds, struct declarator *d,
			    params **keys);
/* a function's parameters, the '(' read: '(' [ parameter_type_list ] ')' */
struct deriv *d_function_suffix(struct d_parser *p, const char *kind, int flags);
/* a struct or union not defined (yet), an enum only named */
bool d_incomplete(struct d_type *t);

/* ---- d_parse_decl.c: declarations ---- */
void d_parse_declaration(struct d_parser *p);
void d_parse_inline(struct d_parser *p);
void d_parse_translator(struct d_parser *p);
void d_parse_provider(struct d_parser *p);

#endif
