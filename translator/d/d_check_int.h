/* d_check_int.h - what the checker's files share (d_check*.c).
 *
 * The checker reads the program as DTrace compiles it: first what DTrace
 * does while parsing (constant folding, inline definitions, translators,
 * option values), in source order, then each clause: its predicate and its
 * statements in order, every expression "cooked" bottom-up (operands before
 * the operator, as DTrace's dt_node_cook does), so that the first error is
 * DTrace's first error. Each error is d_error() with DTrace's tag.
 */
#ifndef CSTAP_D_CHECK_INT_H
#define CSTAP_D_CHECK_INT_H

#include "d/d_funcs.h"
#include "d/d_sema.h"
#include "d/d_types.h"

/* The checker's state: the program's and the current clause's. */
struct d_ck {
	struct d_sema *S;
	struct d_types *ts;
	struct d_diag *dg;
	struct d_clause *clause;         /* the clause being checked, NULL outside */
	const struct d_xlator *xl;       /* a translator whose members are being checked */
	VEC(struct d_xlator *) xlators;  /* D's library's and the program's, in order */
	VEC(struct d_decl *) inlines;    /* the inlines defined so far */
	/* what the clause's actions were so far (DTrace's speculation rules) */
	bool spec, commit, recorded;
	/* the first destructive action, refused when the program runs without -w */
	bool destructive;
	int64_t scratchsize;             /* the scratchsize option: alloca()'s limit */
};

#define CK_ERR(ck, tag, pos, ...) d_error((ck)->dg, tag, pos, __VA_ARGS__)

/* ---- d_check_type.c: D's types ---- */

/* The type of that name (an intrinsic, a typedef, "struct x"); must exist. */
struct d_type *ck_type(struct d_ck *ck, const char *name);
/* D's dynamic type (aggregations in expressions, args and uregs alone). */
struct d_type *ck_dyn(void);
/* The type of a value whose type only the provider knows (args[N] of
 * providers other than dtrace and profile): an int64_t that may also be
 * used as a pointer, a string, a struct. */
struct d_type *ck_unknown(void);
/* What a type is, typedefs and qualifiers stripped. */
bool ck_is_int(struct d_type *t);          /* integers and enums */
bool ck_is_arith(struct d_type *t);        /* integers, enums, floats */
bool ck_is_ptr(struct d_type *t);          /* pointers */
bool ck_is_array(struct d_type *t);
bool ck_is_string(struct d_type *t);       /* D's string */
bool ck_is_strlike(struct d_type *t);      /* a string, a char array or pointer */
bool ck_is_scalar(struct d_type *t);       /* integers, pointers, arrays */
bool ck_is_void(struct d_type *t);
bool ck_is_sou(struct d_type *t);          /* struct or union */
bool ck_is_dyn(struct d_type *t);
bool ck_is_func(struct d_type *t);
/* pointers (or arrays) to compatible types: the same, or one void */
bool ck_ptr_compat(struct d_type *a, struct d_type *b);
/* a value of type b may be stored where a is (DTrace's assignment rules);
 * b_zero: the value is the integer constant 0 (a null pointer) */
bool ck_compat(struct d_type *a, struct d_type *b, bool b_zero);
/* the same type (typedefs stripped) */
bool ck_same(struct d_type *a, struct d_type *b);
/* how DTrace names a type in its messages */
const char *ck_name(struct d_type *t);
/* C's usual arithmetic conversions of two integer types */
struct d_type *ck_promote(struct d_ck *ck, struct d_type *a, struct d_type *b);
/* a built-in variable's type (execname, pid, curthread ...), NULL if none */
struct d_type *ck_builtin_type(struct d_ck *ck, const char *name);
/* the size of t (0: unknown, as void, a function or an incomplete struct) */
int64_t ck_sizeof(struct d_type *t);

/* ---- d_check_expr.c: expressions ---- */

/* e's type (also set in e->type); an error long-jumps out */
struct d_type *ck_expr(struct d_ck *ck, struct d_expr *e);
/* base[i] of a C array, a pointer or a string: the element's type */
struct d_type *ck_c_index(struct d_ck *ck, struct d_expr *e, struct d_type *t);
/* e is an integer constant expression: its value in *v */
bool ck_const(struct d_ck *ck, const struct d_expr *e, int64_t *v);
/* e is a call of an action (a function returning nothing to use) */
bool ck_is_action(const struct d_expr *e);
/* e is the integer constant 0 */
bool ck_is_zero(struct d_ck *ck, const struct d_expr *e);
/* what memory a pointer value is: 1 alloca()'s (alloca(), a cast of it, a
 * variable holding it), -1 other memory, 0 not a pointer */
int ck_alloca_kind(struct d_ck *ck, const struct d_expr *e);

/* ---- d_check_var.c: names and variables ---- */

/* e is "self" or "this" (the left side of self->x): its variables' kind */
bool ck_is_scope(const struct d_expr *e, enum d_vkind *kind);
/* e names a D variable (x, self->x, this->x): its kind and name */
bool ck_names_var_base(struct d_ck *ck, const struct d_expr *e, enum d_vkind *kind, const char **name);
/* the same, or an element of one (x[k], self->x[k]) */
bool ck_names_var(struct d_ck *ck, const struct d_expr *e, enum d_vkind *kind, const char **name);
/* the variable an lvalue names (NULL: not a D variable, or not one yet) */
struct d_var *ck_var_of(struct d_ck *ck, const struct d_expr *e);
/* an assignment of a value of type t to a D variable: the variable, made
 * on the first one; NULL when lv is no D variable */
struct d_var *ck_var_assign(struct d_ck *ck, struct d_expr *lv, struct d_type *t);
/* the memory a variable's pointers hold stays one kind (D_ALLOCA_INCOMPAT) */
void ck_check_alloca(struct d_ck *ck, struct d_var *v, struct d_expr *rhs);
/* an inline defined so far, NULL if none of that name */
struct d_decl *ck_inline_of(struct d_ck *ck, const char *name);
/* names read: an identifier, a macro ($1), an aggregation */
struct d_type *ck_ident(struct d_ck *ck, struct d_expr *e);
struct d_type *ck_macro(struct d_ck *ck, struct d_expr *e);
struct d_type *ck_agg_ref(struct d_ck *ck, struct d_expr *e);
/* an index's keys cooked (none void or dynamic: D_KEY_TYPE) */
void ck_cook_keys(struct d_ck *ck, const char *name, struct d_expr *idx);
/* x[k] of a variable, of an inline with parameters */
struct d_type *ck_var_index(struct d_ck *ck, struct d_expr *e, enum d_vkind kind, const char *name);
struct d_type *ck_inline_index(struct d_ck *ck, struct d_expr *e, struct d_decl *d);

/* ---- d_check_call.c: actions, subroutines, aggregations ---- */

struct d_type *ck_call(struct d_ck *ck, struct d_expr *e);
/* @a[keys] = f(args) */
void ck_aggregation(struct d_ck *ck, struct d_expr *e);
/* an action called as a statement: its rules (speculation, trace's ...) */
void ck_action_stmt(struct d_ck *ck, struct d_expr *call);

/* ---- d_check_fmt.c: printf and printa formats ---- */

void ck_printf(struct d_ck *ck, struct d_expr *call, const char *fn);
void ck_printa(struct d_ck *ck, struct d_expr *call);

/* ---- d_check_xlate.c: translators ---- */

/* translator ... { ... }; at its place in the program */
void ck_xlator_decl(struct d_ck *ck, struct d_xlator *x);
/* xlate <T> (expr) */
struct d_type *ck_xlate(struct d_ck *ck, struct d_expr *e);
/* s->name or s.name where s comes through translator x */
void ck_xlated_member(struct d_ck *ck, const struct d_xlator *x, struct d_expr *e);
/* D's library's translators (psinfo_t and lwpsinfo_t from a task) */
void ck_xlators_builtin(struct d_ck *ck);
/* the translator of curpsinfo and curlwpsinfo */
struct d_xlator *ck_xlator_to(struct d_ck *ck, const char *to_name);

#endif
