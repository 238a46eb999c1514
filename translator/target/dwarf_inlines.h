/* dwarf_inlines.h - which compile units hold inlined copies of which
 * functions: the index dw_find_inlines (dwarf_stmt.c) reads instead of
 * walking every unit of the image for each kernel.function point.
 *
 * An inlined instance can sit in any unit, so without the index every
 * point walks all of the kernel's DWARF (~1.6 s for 6.1's vmlinux). The
 * index is made by one such walk and kept with its image for the rest of
 * the run; a kernel's also on disk (cache_dir()/dwinl-BUILDID.bin, written
 * atomically) for the next runs: the same build-id, the same DWARF.
 */
#ifndef CSTAP_DWARF_INLINES_H
#define CSTAP_DWARF_INLINES_H

#include "debuginfo.h"
#include "util.h"

/* The index of img: from memory, from the cache, or, when build is set,
 * made now by walking every unit (and stored). NULL if there is none and
 * build is false, or the image cannot be walked. */
const struct dw_inline_index *dw_inline_index(struct dw_image *img, bool build);

/* Append to out the DIE offsets of the units (their CU DIEs) holding an
 * inlined instance of a function whose name matches the fnmatch pattern,
 * sorted, each once. */
void dw_inline_units(const struct dw_inline_index *idx, const char *pat, dw_offvec *out);

/* Does the DIE tree below a unit's top level hold inlined instances under
 * d? (the walk of inlines_under and of the index alike): the tags it
 * descends into. */
bool dw_inline_may_hold(int tag);

#endif
