/* dwarf_stmt.h - probe addresses inside functions: the statements of
 * source lines (kernel.statement("f@file:N")), labels (.label("x")), and
 * the inlined instances of functions (.inline).
 */
#ifndef CSTAP_DWARF_STMT_H
#define CSTAP_DWARF_STMT_H

#include "dwarf_funcs.h"

/* A line of a function and the address of its first statement. */
struct dw_line { int line; Dwarf_Addr addr; };
typedef VEC(struct dw_line) dw_linevec;

/* Lines lo..hi of f (in f's own file) that have statements inside f, each
 * with its statement address, by line. With fuzz (one exact line asked
 * for) a line whose records share the address of an earlier line gets
 * that address (as SystemTap). */
void dw_function_lines(struct dw_image *img, const struct dw_func *f, int lo, int hi, bool fuzz,
		       dw_linevec *out);
/* The nearest lines of f with code before and after line (0: none). */
void dw_nearest_lines(struct dw_image *img, const struct dw_func *f, int line, int *before, int *after);

/* A label of a function. */
struct dw_label { char *name; int line; Dwarf_Addr addr; };
typedef VEC(struct dw_label) dw_labelvec;

/* f's labels whose name matches the fnmatch pattern, in source order;
 * labels of functions inlined into f are not f's. */
void dw_function_labels(struct dw_image *img, const struct dw_func *f, const char *pattern,
			dw_labelvec *out);

/* Inlined instances of the functions matching p: name, file, line describe
 * the inlined function, addr is the instance's entry, die the
 * DW_TAG_inlined_subroutine DIE, symbol the out-of-line function holding it.
 * Instances in text the kernel refuses to probe are left out. Walks every
 * unit (or, with a .c file pattern, the units of that name). */
void dw_find_inlines(struct dw_image *img, const struct ksymtab *syms, const struct dw_pattern *p,
		     dw_funcvec *out);

/* Where a probe on the function at entry (DIE die) sees its parameters:
 * past the prologue in code compiled without optimization (the first
 * line-table row after the entry, as SystemTap's prologue search), else
 * the entry itself. */
Dwarf_Addr dw_prologue_end(struct dw_image *img, Dwarf_Off die, Dwarf_Addr entry);
/* Registration target of a DWARF address of img: the containing function
 * symbol and the offset into it (modules: libdwfl's symbols). False if no
 * function symbol holds addr. */
bool dw_addr_symbol(struct dw_image *img, const struct ksymtab *syms, Dwarf_Addr addr,
		    const char **sym, uint64_t *off);

#endif
