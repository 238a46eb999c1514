/* d_lib.h - what DTrace's D library (/usr/lib/dtrace, its .d files) gives every
 * program: the stable process structures psinfo_t and lwpsinfo_t with the
 * translators that make them from a kernel task (curpsinfo, curlwpsinfo),
 * and constants (the uregs[] indices R_PC, R_SP ...).
 *
 * cstap has no library files: the types are made here, in the type table,
 * when a program first names them (through the resolver, d_btf.c).
 */
#ifndef CSTAP_D_LIB_H
#define CSTAP_D_LIB_H

#include <stdbool.h>
#include <stdint.h>

#include "d/d_types.h"

/* A library type by name (psinfo_t, lwpsinfo_t, timestruc_t, "struct
 * psinfo" ...), made in ts on first use; NULL if the library has none. */
struct d_type *d_lib_type(struct d_types *ts, const char *name);

/* A library constant (R_SP ...): its value; false if none. */
bool d_lib_constant(const char *name, int64_t *value);

/* How many registers uregs[] has (its indices are 0 .. that - 1). */
int d_lib_nregs(void);

/* The members the library's translator to type (psinfo_t, lwpsinfo_t)
 * defines, NULL-terminated; NULL if it has no translator to that type. */
const char *const *d_lib_xlated(const char *type);

#endif
