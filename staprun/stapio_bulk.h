/* stapio_bulk.h - stap -b: the output of each CPU in a file of its own,
 * as SystemTap writes them: FILE_N with -o FILE, else stpd_cpuN, each
 * record {u32 sequence, u32 length} then the bytes (stap-merge merges
 * them by sequence). */
#ifndef STAPIO_BULK_H
#define STAPIO_BULK_H

#include <stddef.h>
#include <stdint.h>

struct bulk_files {
	const char *base;	/* -o FILE, or NULL */
	int *fd;		/* by CPU, opened on first use; -1 none */
	unsigned nfd;
};

/* Append one record to cpu's file; 0, or -1 after a message. */
int bulk_write(struct bulk_files *b, uint32_t cpu, uint32_t seq, const char *data, size_t len);
void bulk_close(struct bulk_files *b);

#endif
