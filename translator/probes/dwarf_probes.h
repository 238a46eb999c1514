/* dwarf_probes.h - what the DWARF provider offers to the listing (-L). */
#ifndef CSTAP_DWARF_PROBES_H
#define CSTAP_DWARF_PROBES_H

#include "provider.h"

/* Append " $name:type" for each variable of dp's function (and $return in
 * a .return probe); false if dp is not a DWARF probe. */
bool dwarf_probe_vars(const struct derived_probe *dp, struct strbuf *out);

#endif
