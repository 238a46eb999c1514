/* ustack.h - symbols and unwind tables of user files, for the module.
 *
 * ubacktrace(), usymname() ... need, for each user file a stack may run
 * through, its function and data symbols and its call frame information.
 * SystemTap puts them in the module for the probed files and for those
 * named by -d FILE, and with --ldd for their shared libraries too; so
 * does pass 3 (ustack_write), when a script calls a function that needs
 * them. The runtime (runtime/ustack.h) finds a file by its inode, which
 * it looks up by path when the script starts.
 *
 * The call frame information is parsed here, on the host (.eh_frame, or
 * .debug_frame when the file or its debuginfo has only that): the module
 * gets each FDE's address range with its instructions, and each CIE's
 * alignment factors, return address column and initial instructions, so
 * the runtime only interprets DW_CFA_* instructions.
 *
 * The table, little-endian, every offset from the table's start:
 *   struct ustk_hdr, then nfiles struct ustk_file
 *   each file's struct ustk_sym (by address), struct ustk_fde (by lo),
 *   struct ustk_cie, its frame section's bytes and its names
 */
#ifndef CSTAP_TARGET_USTACK_H
#define CSTAP_TARGET_USTACK_H

#include <stdint.h>

#include "session.h"

#define USTK_MAGIC 0x55505453u	/* "STPU" */
#define USTK_MAXSEG 8

struct ustk_hdr {
	uint32_t magic;
	uint32_t nfiles;
};

struct ustk_seg {		/* a PT_LOAD segment */
	uint64_t vaddr, offset, filesz;
};

struct ustk_file {
	uint32_t path;		/* NUL-terminated */
	uint32_t nsegs;
	struct ustk_seg segs[USTK_MAXSEG];
	uint32_t nsyms, syms;
	uint32_t nfdes, fdes;
	uint32_t ncies, cies;
};

struct ustk_sym {
	uint64_t addr;		/* link-time */
	uint32_t size;
	uint32_t name;
};

struct ustk_fde {
	uint64_t lo;		/* link-time */
	uint32_t len;
	uint32_t cie;		/* index in the file's CIEs */
	uint32_t ins, ins_len;
};

#define USTK_CIE_SIGNAL 1	/* 'S': a signal frame (its pc is not a return address) */

struct ustk_cie {
	uint32_t ins, ins_len;	/* initial instructions */
	int32_t data_align;
	uint32_t code_align;
	uint32_t ra;		/* return address column */
	uint32_t flags;
};

/* The user files whose tables the module gets: the probed files, -d's and,
 * with --ldd, their shared libraries; each once. */
void ustack_files(struct session *s, strvec *out);
/* Write the table to path; 0, or -1 with *why (allocated). */
int ustack_write(struct session *s, const char *path, char **why);

#endif
