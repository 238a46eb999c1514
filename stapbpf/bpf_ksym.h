/* bpf_ksym.h - symname() and symdata() for stapbpf's interpreter: a kernel
 * address named from /proc/kallsyms, as the kernel's %ps and %pS name it
 * for a kernel probe (translator/translate/bpf/ksym.c). */
#ifndef BPF_KSYM_H
#define BPF_KSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* out (n bytes, NUL-terminated) = symname(addr) ("vfs_read"), or with
 * data symdata(addr) ("vfs_read+0x0/0x150 [kernel]", a module's symbol
 * with its module); the address in hex ("0xffffffffc0001234") when no
 * symbol holds it. */
void bpf_ksym_name(char *out, size_t n, uint64_t addr, bool data);

/* The address of the kernel's symbol name, or 0. */
uint64_t bpf_ksym_addr(const char *name);

#endif
