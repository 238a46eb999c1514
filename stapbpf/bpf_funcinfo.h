/* bpf_funcinfo.h - the BTF function records a program with callbacks
 * needs: the kernel takes a callback's address (bpf_loop's) only from a
 * program whose functions BTF describes, a callback as a static one. */
#ifndef STAPBPF_FUNCINFO_H
#define STAPBPF_FUNCINFO_H

#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>

struct funcinfo {
	int btf_fd;			/* one BTF for every program: not to close */
	struct bpf_func_info *rec;	/* the main function, then each callback */
	uint32_t n;			/* 0: the program has no callback */
};

/* The records of insns' functions; 0 (n 0 when it has no callback), or
 * -errno when the BTF cannot be loaded into the kernel. */
int funcinfo_make(const struct bpf_insn *insns, size_t ninsns, struct funcinfo *fi);
void funcinfo_free(struct funcinfo *fi);

#endif
