/* klines.h - the kernel's source lines by address, for the module.
 *
 * symfileline(), symfile() and symline() look kernel addresses up at run
 * time; the module carries a compact copy of the kernel's DWARF line table
 * (runtime/klines.h reads it), written by pass 3 when a script calls them.
 *
 * The table, little-endian:
 *   header   struct klines_hdr
 *   files    nfiles u32 offsets into the names
 *   index    nindex struct klines_idx, one per KLINES_GROUP rows
 *   rows     each row after its group's first: uleb(addr delta << 1 | the
 *            file changed), [uleb(file)], sleb(line delta); file == nfiles
 *            marks an address range without line information
 *   names    NUL-terminated file names
 */
#ifndef CSTAP_TARGET_KLINES_H
#define CSTAP_TARGET_KLINES_H

#include <stdint.h>

#include "session.h"

#define KLINES_MAGIC 0x4c505453u	/* "STPL" */
#define KLINES_GROUP 32

struct klines_hdr {
	uint32_t magic;
	uint32_t nfiles;
	uint32_t nindex;
	uint32_t rows_len;
	uint32_t names_len;
	uint32_t pad;
	uint64_t base;		/* link-time address row offsets count from */
	uint64_t kfree_addr;	/* link-time address of kfree (KASLR's offset) */
};

struct klines_idx {
	uint32_t addr_off;	/* the group's first row: address - base */
	uint32_t rows_off;	/* where the group's next rows start */
	uint32_t file;
	int32_t line;
};

/* Write the target kernel's line table to path; 0, or -1 with *why set. */
int klines_write(struct session *s, const char *path, const char **why);

#endif
