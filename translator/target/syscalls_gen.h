/* syscalls_gen.h - the generated parts of the syscall tapset (syscalls_gen.c).
 */
#ifndef CSTAP_TARGET_SYSCALLS_GEN_H
#define CSTAP_TARGET_SYSCALLS_GEN_H

#include "session.h"

/* The syscall.* and nd_syscall.* aliases of the target kernel's system
 * calls that the library's own aliases leave out, as SystemTap source,
 * or NULL with *why set. */
char *syscalls_tapset(struct session *s, const char **why);

/* The decoding tables of the syscall tapset (__sc_t_NAME(value, bits):
 * O_* flags, PROT_*, MAP_*, signals, socket families ...) made from the
 * target kernel's headers, as SystemTap source; NULL with *why set. */
char *syscalls_decoders(struct session *s, const char **why);

/* One decoding table: __sc_t_NAME's constants, in the order it prints
 * their bits (runtime/syscall_decode.h's stp_sc_decode). */
struct sc_dec_entry {
	char *name;
	int64_t v;
};
struct sc_dec_table {
	const char *name;
	struct sc_dec_entry *e;
	int n;
};
/* The target kernel's table NAME, or NULL (no such table, or no headers):
 * the same the generated tapset holds. */
const struct sc_dec_table *syscalls_decoder_table(struct session *s, const char *name);

#endif
