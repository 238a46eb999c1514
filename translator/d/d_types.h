/* d_types.h - D's type table: one per compile (struct d_types), passed around.
 *
 * It holds what DTrace keeps in its "C" and "D" CTF containers: the
 * intrinsic types of LP64 x86_64 ("int", "unsigned long", "long double",
 * "_Bool" ...), D's string (DT_STRING, strsize bytes), the typedefs DTrace
 * predefines (int8_t ... uint64_t, size_t, pid_t ...), the typedefs and the
 * struct/union/enum tags a program declares, and the derived types (pointer,
 * array, function, const/volatile/userland) made from them, each made once
 * so that two types are the same type when they are the same pointer.
 *
 * A typedef or a qualified type is its own struct d_type whose kind and size
 * are copied from the type it names when it is made, with typedef_of pointing
 * at that type; d_type_resolve() strips both (resolve before reading the size
 * or members: a typedef of a struct defined later has the forward's). "struct foo" named before its definition is
 * an incomplete DT_STRUCT (complete = false, size 0) that the definition
 * completes in place.
 *
 * The table also keeps what the parser must know to tell a name from a type
 * (DTrace decides that in its lexer): the program's global variables and
 * inlines, its self-> and this-> declarations and its enumerators.
 *
 * Names unknown here (kernel typedefs, "struct task_struct", scoped names
 * "vmlinux`u64") go to an optional resolver (BTF, a D library ...).
 */
#ifndef CSTAP_D_TYPES_H
#define CSTAP_D_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "d/d_ast.h"

struct d_types;

/* A small string-keyed table (the D front end's symbol tables). */
struct d_sym;
struct d_symtab {
	struct d_sym **buckets;
	int nbuckets, count;
};
void *d_symtab_get(const struct d_symtab *t, const char *key);
/* Set key's value (replacing any); the key is copied. */
void d_symtab_put(struct d_symtab *t, const char *key, void *val);

struct d_types *d_types_new(void);

/* D's string size (the strsize option, 256 by default): the size of DT_STRING. */
void d_types_set_strsize(struct d_types *ts, int64_t size);
int64_t d_types_strsize(const struct d_types *ts);

/* Where names this table does not know are looked up: module is NULL for an
 * unscoped name ("u64", "struct task_struct") or the part before the
 * backquote ("vmlinux" of "vmlinux`u64"); return NULL if unknown. The
 * resolver may build types with the constructors below. */
typedef struct d_type *(*d_type_resolver)(void *arg, struct d_types *ts,
					  const char *module, const char *name);
void d_types_set_resolver(struct d_types *ts, d_type_resolver fn, void *arg);

/* ---- lookup ----------------------------------------------------------------- */

/* The type a name names, or NULL: an intrinsic ("unsigned long", spaces
 * as in C), "string", a typedef, "struct foo" / "union foo" / "enum foo"
 * (defined or declared), any of those followed by '*'s, and scoped names
 * ("D`foo_t", "vmlinux`struct task_struct *"). Never creates a tag. */
struct d_type *d_type_lookup(struct d_types *ts, const char *name);
/* A struct/union/enum tag (kind DT_STRUCT, DT_UNION or DT_ENUM): the one
 * defined or declared here, else the resolver's, else (create) a new
 * incomplete one. NULL when unknown and !create. */
struct d_type *d_type_tag(struct d_types *ts, enum d_tkind kind, const char *tag, bool create);

/* ---- constructors --------------------------------------------------------------- */

struct d_type *d_type_pointer(struct d_types *ts, struct d_type *to);
/* An array of nelem elements (-1: dimension not given). */
struct d_type *d_type_array(struct d_types *ts, struct d_type *elem, int64_t nelem);
/* A function returning ret (D declares them, never calls them). */
struct d_type *d_type_func(struct d_types *ts, struct d_type *ret);
/* t with const/volatile/userland added (t itself when none is). */
struct d_type *d_type_qualified(struct d_types *ts, struct d_type *t,
				bool is_const, bool is_volatile, bool is_userland);
/* The tag or the type name declared here (not the resolver's), or NULL:
 * what a D definition may not redeclare. */
struct d_type *d_type_local_tag(struct d_types *ts, enum d_tkind kind, const char *tag);
struct d_type *d_type_local_name(struct d_types *ts, const char *name);
/* typedef type name; (the caller checks redeclarations first). */
struct d_type *d_typedef_declare(struct d_types *ts, const char *name, struct d_type *type);
/* A typedef of this table (not the resolver's), or NULL. */
struct d_type *d_typedef_lookup(struct d_types *ts, const char *name);
/* A new integer type (for resolvers): name, size in bytes, signedness. */
struct d_type *d_type_new_int(struct d_types *ts, const char *name, int64_t size, bool is_signed);

/* Define struct/union tag (NULL: anonymous): the incomplete type of that
 * tag is reused, so pointers made before stay valid. The caller checks
 * that the tag is not already complete (D_DECL_TYPERED). */
struct d_type *d_sou_begin(struct d_types *ts, enum d_tkind kind, const char *tag);
/* Add a member (name NULL: an unnamed bit-field; bits 0: not a bit-field).
 * False if the name is already a member. */
bool d_sou_add(struct d_types *ts, struct d_type *sou, const char *name,
	       struct d_type *type, int bits);
/* Lay the members out as C on x86_64 does and mark the type complete. */
void d_sou_end(struct d_types *ts, struct d_type *sou);

/* Define enum tag (NULL: anonymous); reuses a declared incomplete one. */
struct d_type *d_enum_begin(struct d_types *ts, const char *tag);
/* Add an enumerator to en: false if en already has that name. */
bool d_enum_add(struct d_types *ts, struct d_type *en, const char *name, int64_t value);
void d_enum_end(struct d_types *ts, struct d_type *en);
/* Make name a global constant of enum en (the caller checks that no global
 * has that name: D_DECL_IDRED). */
void d_types_add_enumerator(struct d_types *ts, const char *name, struct d_type *en, int64_t value);
/* The global enumerator name: its enum and value. */
bool d_types_enumerator(struct d_types *ts, const char *name, struct d_type **en, int64_t *value);

/* ---- the program's declarations ------------------------------------------------- */

/* The variable or inline declared with that storage and name, or NULL. */
struct d_decl *d_types_decl(struct d_types *ts, enum d_storage storage, const char *name);
void d_types_add_decl(struct d_types *ts, struct d_decl *d);

/* ---- questions ---------------------------------------------------------------- */

/* t without typedefs and const/volatile/userland (NULL stays NULL). */
struct d_type *d_type_resolve(struct d_type *t);
/* How DTrace names t in its messages: "int", "char *", "struct foo",
 * "int [5]", "uint64_t", "string". */
const char *d_type_name(struct d_type *t);
bool d_type_is_typedef(const struct d_type *t);
/* Alignment in bytes as on x86_64. */
int64_t d_type_align(struct d_type *t);
/* The member name of a struct or union (looked up through typedefs and
 * through unnamed struct/union members), with its byte offset from the
 * start of t in *offset; NULL if none. */
const struct d_member *d_type_member(struct d_type *t, const char *name, int64_t *offset);
bool d_type_is_integer(struct d_type *t);   /* DT_INT or DT_ENUM */
bool d_type_is_void(struct d_type *t);

#endif
