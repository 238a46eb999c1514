/* dwarf_scope.h - where in the target's DWARF a probe sits: the scope its
 * $target variables are resolved in (elaborate/tvars.c) and listed from
 * (-L), and the frame address there.
 * Families whose probes have DWARF context (kernel.function, kernel.trace)
 * fill one per derived probe and hand it out through their tvar_scope hook.
 */
#ifndef CSTAP_TARGET_DWARF_SCOPE_H
#define CSTAP_TARGET_DWARF_SCOPE_H

#include "debuginfo.h"

struct dw_scope {
	struct dw_image *img;
	Dwarf_Off die;          /* the function (subprogram) DIE; for an .inline
	                           probe the DW_TAG_inlined_subroutine instance */
	Dwarf_Addr entry;       /* DWARF address of the probe */
	bool ret;               /* a .return probe */
	Dwarf_Off block;        /* statement and label probes: the innermost lexical
	                           block of the function holding entry (callees
	                           inlined there excluded), 0 if none (the function) */
	const char *hidden;     /* a parameter that is the probe mechanism's, not the
	                           program's (a tracepoint's "__data"), or NULL */
};

/* For a probe inside the function's body (a statement, a label): set
 * sc->block to the innermost block holding sc->entry. */
void dw_scope_find_block(struct dw_scope *sc);

/* -L: " $name:type" for each variable of the scope's function located at
 * the probe (in DIE order), preceded by $return for .return probes and by
 * the variables of the blocks holding a statement or label. */
void dw_scope_vars(const struct dw_scope *sc, struct strbuf *out);

/* The canonical frame address at DWARF address pc in function (or inlined
 * instance) fn of img, whose entry is fn_entry, as DWARF register *reg +
 * *off; false if the call frame information has no such rule there. */
bool dw_cfa_at(struct dw_image *img, Dwarf_Die *fn, Dwarf_Addr pc, Dwarf_Addr fn_entry, int *reg, int64_t *off);
/* The same at a probe's scope (its entry); false also when sc is NULL. */
bool dw_scope_cfa(const struct dw_scope *sc, int *reg, int64_t *off);

#endif
