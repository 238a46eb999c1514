/* translate.h - pass 3: what both backends (translate/module/,
 * translate/bpf/) share. */
#ifndef CSTAP_TRANSLATE_H
#define CSTAP_TRANSLATE_H

#include "session.h"

/* What a run-time error is "near": "identifier 'x' at f.stp:3:5", as
 * SystemTap says it (the BPF backend says the same). */
char *near_text(const char *what, const char *name, struct srcpos pos);
/* The same for the statement st whose MAXACTION count ran out. */
char *stmt_near_text(const struct stmt *st);
/* Does a loop body have a statement of its own? (One without counts one
 * MAXACTION action a round, so that `while (1) {}` ends too.) */
bool has_statements(const struct stmt *st);
/* "x.stp:3:1": where a derived probe's probe is written. */
char *probe_pos(const struct derived_probe *dp);
/* -t's "from:" of a derived probe, as SystemTap 4.8 prints it: the first
 * point of its probe as written; a point resolved through DWARF shows the
 * chain "resolved from: written". */
char *timing_from(const struct derived_probe *dp);
/* Does a print's format (a literal) read the probe's memory: %m or %M? */
bool format_reads_memory(const struct expr *fmt);

#endif
