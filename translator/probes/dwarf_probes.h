/* dwarf_probes.h - what the DWARF provider offers to the listing (-L). */
#ifndef CSTAP_DWARF_PROBES_H
#define CSTAP_DWARF_PROBES_H

#include "target/debuginfo.h"
#include "provider.h"

/* Where a DWARF probe sits: what target variables and -L are resolved
 * against. Every probe the DWARF provider derives records one. */
struct dw_probe_info {
	struct derived_probe *dp;
	struct dw_image *img;
	Dwarf_Off die;          /* the function (subprogram) DIE; for an .inline
	                           probe the DW_TAG_inlined_subroutine instance */
	Dwarf_Addr entry;       /* DWARF address of the probe */
	bool ret;               /* a .return probe */
	Dwarf_Off scope;        /* statement and label probes: the innermost lexical
	                           block of the function holding entry (callees
	                           inlined there excluded), 0 if none (the function) */
};

/* Record where dp sits (any provider whose probes have DWARF context). */
void dwarf_probe_record(struct derived_probe *dp, struct dw_image *img, Dwarf_Off die, Dwarf_Addr entry,
			bool ret);
/* The record of dp, or NULL if dp is not a DWARF probe. */
const struct dw_probe_info *dwarf_probe_info(const struct derived_probe *dp);

/* Append " $name:type" for each variable of dp's function (and $return in
 * a .return probe); false if dp is not a DWARF probe. */
bool dwarf_probe_vars(const struct derived_probe *dp, struct strbuf *out);

#endif
