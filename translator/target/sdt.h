/* sdt.h - the SDT markers of a user ELF file (<sys/sdt.h>'s STAP_PROBE*,
 * `dtrace -G`): each is an "stapsdt" note of type 3 in section
 * .note.stapsdt holding its address, the link-time address of section
 * .stapsdt.base (the file was prelinked if that section moved since), the
 * address of its semaphore (0: none), then "provider\0name\0arguments\0".
 * The arguments are gas operands on x86-64, each "[-]SIZE@OPERAND"
 * ("-4@%edi 8@-16(%rbp) 4@$5 -8@total(%rip)"), compiled here into C
 * reading the probed process's registers and memory.
 */
#ifndef CSTAP_TARGET_SDT_H
#define CSTAP_TARGET_SDT_H

#include <stdbool.h>
#include <stdint.h>

#include "lowered.h"
#include "util.h"

struct sdt_marker {
	char *provider, *name;
	uint64_t pc;            /* link-time address of the marker's nop */
	uint64_t sem;           /* link-time address of its semaphore; 0: none */
	char *args;             /* the argument string, as in the note */
};
typedef VEC(struct sdt_marker) sdtvec;

/* The markers of the ELF file at path, in the order of its notes, their
 * addresses adjusted if the file was prelinked; false with *why
 * (allocated) if the file cannot be read. A file without notes has none. */
bool sdt_markers(const char *path, sdtvec *out, char **why);
void sdt_markers_free(sdtvec *v);
/* How many arguments an argument string has. */
int sdt_arg_count(const char *args);
/* Argument n (1 ..) of a marker of the file at path in the lowered form
 * (the user registers, the file's load bias, user memory), sign- or
 * zero-extended from its size; NULL with *why (allocated) if it cannot be
 * parsed. */
const struct lx *sdt_arg_lx(const char *path, const char *args, int n, char **why);

#endif
