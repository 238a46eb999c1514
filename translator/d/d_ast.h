/* d_ast.h - the one header for a D program's tree (dtrace's language).
 *
 * d_lex.c and d_parse.c build it from the script, d_check.c gives every
 * expression its D type and reports DTrace's D_* errors, d_lower.c turns
 * the checked tree into cstap's own tree (ast.h), which passes 2-5 take
 * as they take a SystemTap script.
 *
 * Ownership: nodes are allocated with xmalloc/xcalloc and never freed.
 */
#ifndef CSTAP_D_AST_H
#define CSTAP_D_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

struct d_pos {
	int line, col;           /* 1-based; col counts bytes */
};

/* ---- types ---------------------------------------------------------------- */

enum d_tkind {
	DT_VOID,
	DT_INT,                  /* char short int long long long, enum values, _Bool */
	DT_FLOAT,                /* float double long double (declared only) */
	DT_STRING,               /* D's string */
	DT_PTR,                  /* ref = pointee */
	DT_ARRAY,                /* ref = element, nelem (-1: []) */
	DT_STRUCT,
	DT_UNION,
	DT_ENUM,                 /* an int of size 4 with names */
	DT_FUNC,                 /* ref = return type (declared only) */
	DT_DYN,                  /* D's dynamic type: an aggregation named in an
				  * expression, args and uregs without an index */
};

struct d_member {
	char *name;
	struct d_type *type;
	int64_t offset;          /* bytes from the start */
	int bits;                /* bit-field width, 0 = not one */
	int bitoff;              /* bit offset within the unit at offset */
};

struct d_enumerator {
	char *name;
	int64_t value;
};

struct d_type {
	enum d_tkind kind;
	int64_t size;            /* bytes; 0 for void and incomplete types */
	bool is_signed;          /* DT_INT */
	bool is_const, is_volatile;
	bool is_userland;        /* D's userland qualifier: the data is in user space */
	char *name;              /* how to print it: "int", "uint64_t", "struct foo",
				  * "char *"; a typedef keeps its own name */
	char *tag;               /* struct/union/enum tag, NULL if anonymous */
	struct d_type *ref;      /* PTR pointee, ARRAY element, FUNC return */
	struct d_type *typedef_of; /* a typedef's underlying type (kind/size copied) */
	int64_t nelem;           /* ARRAY */
	bool complete;           /* STRUCT/UNION/ENUM defined (members known) */
	VEC(struct d_member *) members;      /* STRUCT/UNION */
	VEC(struct d_enumerator) enumerators; /* ENUM */
};

/* ---- expressions ------------------------------------------------------------ */

enum d_op {
	DOP_NONE,
	/* binary */
	DOP_MUL, DOP_DIV, DOP_MOD, DOP_ADD, DOP_SUB, DOP_SHL, DOP_SHR,
	DOP_LT, DOP_GT, DOP_LE, DOP_GE, DOP_EQ, DOP_NE,
	DOP_BAND, DOP_BXOR, DOP_BOR, DOP_LAND, DOP_LXOR, DOP_LOR,   /* & ^ | && ^^ || */
	DOP_COMMA,
	/* unary (prefix) */
	DOP_NEG, DOP_PLUS, DOP_NOT, DOP_BITNOT, DOP_DEREF, DOP_ADDROF,
	DOP_PREINC, DOP_PREDEC, DOP_SIZEOF, DOP_STRINGOF,
	/* postfix */
	DOP_POSTINC, DOP_POSTDEC,
	/* assignment: DOP_ASSIGN for '=', else the binary operator of the
	 * compound one (DOP_ADD for '+=') in d_expr.op with kind DE_ASSIGN */
	DOP_ASSIGN,
};

enum d_ekind {
	DE_INT,                  /* num; type from the value and suffix (u, l, ul, ll ...) */
	DE_STR,                  /* str (escapes decoded), str_len */
	DE_IDENT,                /* name: a variable, a built-in (execname, arg0 ...),
				  * an enum constant or an inline */
	DE_MACRO,                /* name: "$1", "$target", "$$1", "$pid" ... as written */
	DE_AGG,                  /* name: "@a", or "@" for the anonymous one */
	DE_INDEX,                /* lhs[args]: associative array, C array or pointer
				  * (one arg), args[N], @agg[keys] */
	DE_CALL,                 /* name(args): action, subroutine or aggregating function */
	DE_UNARY,                /* op lhs: DOP_NEG ... DOP_STRINGOF (DOP_SIZEOF of an expr) */
	DE_POSTFIX,              /* lhs op: DOP_POSTINC / DOP_POSTDEC */
	DE_BINARY,               /* lhs op rhs */
	DE_ASSIGN,               /* lhs op= rhs (see enum d_op) */
	DE_TERNARY,              /* cond ? lhs : rhs  (cond in args[0]) */
	DE_MEMBER,               /* lhs.name */
	DE_ARROW,                /* lhs->name; self->x and this->x: lhs is DE_IDENT
				  * "self" / "this" */
	DE_CAST,                 /* (cast_type) lhs */
	DE_SIZEOF_TYPE,          /* sizeof (cast_type) */
	DE_OFFSETOF,             /* offsetof(cast_type, name) */
	DE_XLATE,                /* xlate <cast_type> (lhs) */
};

struct d_expr {
	enum d_ekind kind;
	struct d_pos pos;
	enum d_op op;
	int64_t num;             /* DE_INT */
	char *str;               /* DE_STR; DE_INT: the constant as written ("0x10ul",
				  * "'a'"), for the checker to type it */
	size_t str_len;
	char *name;              /* IDENT MACRO AGG CALL MEMBER ARROW OFFSETOF */
	struct d_expr *lhs, *rhs;
	VEC(struct d_expr *) args;   /* CALL arguments, INDEX keys, TERNARY's cond */
	struct d_type *cast_type;    /* CAST SIZEOF_TYPE OFFSETOF XLATE */
	/* filled by d_check.c */
	struct d_type *type;
	struct d_decl *decl;     /* IDENT/ARROW/INDEX of a declared variable, inline */
	struct d_xlator *xlator; /* the translator the value comes through (xlate<T>(x),
				  * curpsinfo ...): its members are the ones defined */
};

/* ---- statements ------------------------------------------------------------- */

enum d_skind {
	DS_EXPR,                 /* expr; */
	DS_EMPTY,                /* ; */
	DS_IF,                   /* if (expr) then [else els] */
	DS_BLOCK,                /* { stmts } */
};

struct d_stmt {
	enum d_skind kind;
	struct d_pos pos;
	struct d_expr *expr;
	struct d_stmt *then, *els;
	VEC(struct d_stmt *) stmts;
};

/* ---- declarations and the program ------------------------------------------- */

/* provider:module:function:name; a part not written is "" (any) */
struct d_pdesc {
	char *text;              /* as written, after macro expansion ("tick-1s") */
	char *prov, *mod, *func, *name;
	uint32_t id;             /* a probe named by its number (DTrace's probe ID), else 0 */
	struct d_pos pos;
};

struct d_clause {
	VEC(struct d_pdesc *) descs;
	struct d_expr *pred;     /* /pred/ or NULL */
	VEC(struct d_stmt *) body;
	struct d_pos pos;
	int index;               /* its place among the clauses (0-based) */
	/* the source it came from, as its errors name it (d_diag's what,
	 * text, no_lines); NULL: the diagnostics' own */
	const char *src_what, *src_text;
	bool src_no_lines;
};

enum d_dkind {
	DD_VAR,                  /* a variable: int x; self int y; this string z; int a[string] */
	DD_TYPEDEF,              /* typedef TYPE name; */
	DD_INLINE,               /* inline TYPE name = expr; */
	DD_TYPE,                 /* struct/union/enum definition alone: struct s { ... }; */
	DD_FUNC,                 /* a function declarator (refused by the checker) */
};

enum d_storage {
	DSC_GLOBAL,
	DSC_SELF,                /* self: thread-local */
	DSC_THIS,                /* this: clause-local */
};

struct d_decl {
	enum d_dkind kind;
	enum d_storage storage;
	bool is_static, is_extern;
	char *name;              /* NULL for DD_TYPE */
	struct d_type *type;     /* the declared type (ARRAY for int a[5]) */
	VEC(struct d_type *) keys;   /* an associative array's key types: int a[string, int] */
	bool assoc;              /* a[...] with key types */
	VEC(char *) key_names;   /* DD_INLINE of an array: its parameters' names
				  * (NULL for an unnamed one), as keys */
	struct d_expr *init;     /* DD_INLINE */
	struct d_pos pos;
};

/* translator TO < FROM-TYPE NAME > { member = expr; ... }; */
struct d_xlator {
	bool builtin;            /* D's library's (psinfo_t, lwpsinfo_t), exprs empty */
	struct d_type *to;
	struct d_type *from;
	char *from_name;         /* the input's name within the members' exprs */
	VEC(char *) members;
	VEC(struct d_expr *) exprs;
	struct d_pos pos;
	struct d_pos end;        /* its closing "};" (where DTrace reports its errors) */
};

/* #pragma D option NAME[=VALUE] and the other #pragma D forms */
struct d_pragma {
	enum { DP_OPTION, DP_OTHER } kind;
	char *name;              /* option name; for DP_OTHER the word after "D" */
	char *value;             /* option value or NULL; DP_OTHER: the rest of the line */
	struct d_pos pos;
};

/* provider NAME { probe NAME(ARGS) [: (XARGS)]; ... }; (for -h and -G) */
struct d_probe_decl {
	char *name;
	VEC(struct d_type *) args;     /* the probe's argument types */
	VEC(struct d_type *) xargs;    /* the translated ones after ':' (else empty) */
	bool has_xargs;
	struct d_pos pos;
};

struct d_provider {
	char *name;
	VEC(struct d_probe_decl *) probes;
	struct d_pos pos;
};

/* One D program (a -s file or a -n description list), in source order. */
struct d_program {
	const char *name;        /* "test/x.d" or "-n" text's description */
	const char *text;
	VEC(struct d_clause *) clauses;
	VEC(struct d_decl *) decls;
	VEC(struct d_xlator *) xlators;
	VEC(struct d_pragma *) pragmas;
	VEC(struct d_provider *) providers;
};

#endif
