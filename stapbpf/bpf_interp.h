/* bpf_interp.h - stapbpf's eBPF interpreter: the begin, end and error
 * programs run in user space, with the bundle's kernel maps and the
 * helpers of doc/bpf-bundle.md done by stapbpf itself. */
#ifndef BPF_INTERP_H
#define BPF_INTERP_H

#include <stddef.h>
#include <stdio.h>

#include "bpf_bundle.h"
#include "bpf_umap.h"

#define INTERP_MAX_INSNS 1000000	/* per run: SystemTap's MAXACTION guard */

/* What every interpreted program shares. */
struct interp_env {
	const struct bundle *b;
	struct umap *maps;		/* by map ID; a map reference loads &maps[ID] */
	/* A record the program put on the ring buffer: handled at once. */
	void (*on_record)(void *ctx, const void *data, size_t size);
	void *ctx;
	int verbose;
	FILE *out;			/* where print_hist writes (the records' output) */
	char *procfs_buf;		/* a procfs probe's file: its $value, else NULL */
	size_t procfs_size;		/* its bytes, the NUL included */
};

/* Run p once with r1 = 0: 0 when it returned, -1 when it was stopped
 * (reported on stderr: too long, a bad memory access, an unknown
 * instruction or helper). Map values it changed are written back either way. */
int interp_run(struct interp_env *env, const struct bundle_prog *p);

#endif /* BPF_INTERP_H */
