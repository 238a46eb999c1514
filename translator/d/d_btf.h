/* d_btf.h - the kernel's types and symbols for D programs: what DTrace
 * reads from the kernel's CTF (struct task_struct, u64, `max_pfn), read
 * here from the running kernel's BTF (/sys/kernel/btf/vmlinux) and its
 * symbol table, with D's library types (d_lib.c) first.
 */
#ifndef CSTAP_D_BTF_H
#define CSTAP_D_BTF_H

#include "d/d_types.h"

/* The type table's resolver (d_types_set_resolver(ts, d_kernel_resolver,
 * NULL)): a name the program does not define is D's library's, else the
 * kernel's (module NULL or "vmlinux": bare names are typedefs, tags are
 * written "struct x"). NULL when neither has it. */
struct d_type *d_kernel_resolver(void *arg, struct d_types *ts, const char *module, const char *name);

/* A kernel symbol as D writes it ("`max_pfn", "vmlinux`max_pfn",
 * "ext4`ext4_dir_operations"): its type, NULL when the kernel has no such
 * symbol (or its module is not loaded). A symbol the kernel cannot type
 * (BTF types only per-CPU variables) is an int. */
struct d_type *d_kernel_symbol(struct d_types *ts, const char *name);
/* The address /proc/kallsyms gives a kernel symbol ("`max_pfn"), false
 * when it lists none. */
bool d_kernel_symbol_addr(const char *name, uint64_t *addr);

#endif
