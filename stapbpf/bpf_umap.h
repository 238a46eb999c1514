/* bpf_umap.h - a bundle's kernel maps seen from user space, as the
 * interpreter's helpers want them: per-CPU values merged into one (and
 * written back on CPU 0), and the keys in foreach order. */
#ifndef BPF_UMAP_H
#define BPF_UMAP_H

#include <stddef.h>
#include <stdint.h>

#include "bpf_bundle.h"

struct umap {
	const struct bundle_map *m;
	int fd;
	int ncpus;		/* possible CPUs: per-CPU values come in that many */
};

/* The value at key, merged over the CPUs for a per-CPU map: 0, or -errno
 * (-ENOENT: no such key). */
int umap_read(const struct umap *u, const void *key, void *val);

/* Store val at key (a per-CPU map: on CPU 0, zeros on the others);
 * flags as bpf_map_update_elem's. 0 or -errno. */
int umap_write(const struct umap *u, const void *key, const void *val, uint64_t flags);

int umap_delete(const struct umap *u, const void *key);

/* The number of entries (an array: all its elements). 0 or -errno. */
int umap_count(const struct umap *u, int64_t *n);

/* Remove every entry (an array's elements are zeroed). 0 or -errno. */
int umap_clear(const struct umap *u);

/* The keys in the order of foreach_start's spec (column | dir << 8 |
 * aggr << 16) and limit (> 0: at most that many): *n keys of key_size
 * bytes each in a malloc'd *keys. 0 or -errno (-EINVAL: a bad spec). */
int umap_sorted_keys(const struct umap *u, uint64_t spec, int64_t limit, uint8_t **keys, size_t *n);

#endif /* BPF_UMAP_H */
