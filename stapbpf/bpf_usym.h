/* bpf_usym.h - a user-space address named in user space: the process's
 * mappings (/proc/PID/maps) give the file and where it is loaded, the
 * file's ELF symbol tables the function. A kernel probe's user stack
 * (print_ubacktrace(): a USTACK record of bpf_get_stack's
 * BPF_F_USER_STACK frames) is printed this way, as the module runtime's
 * runtime/ustack.h prints it, or as DTrace's ustack() does. */
#ifndef BPF_USYM_H
#define BPF_USYM_H

#include <stdint.h>
#include <stdio.h>

enum bpf_ustack_style {
	BPF_USTACK_FULL = 0,	/* " 0x... : sym+0x../0x.. [/path]" (print_ubacktrace) */
	BPF_USTACK_DTRACE = 1,	/* "              file`sym+0x.." (DTrace's ustack()) */
};

/* One frame of process tgid's stack, a line in style, onto out. */
void bpf_usym_frame(FILE *out, uint32_t tgid, uint64_t addr, enum bpf_ustack_style style);

/* Forget the mappings read for a record (the next one reads them again:
 * the process may have mapped or unmapped files since). */
void bpf_usym_forget_maps(void);

#endif
