/* bpf_umap.c - kernel maps from user space for the interpreter's helpers
 * (doc/bpf-bundle.md: per-CPU merging, foreach order). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>

#include "bpf_umap.h"
#include "variance.h"

/* Per-CPU maps give and take one value per possible CPU. */
static bool is_percpu(const struct umap *u)
{
	return u->m->kind == BM_PERCPU_HASH || u->m->kind == BM_PERCPU_ARRAY;
}

/* User space gets one value per possible CPU, each 8-byte aligned. */
static size_t cpu_stride(const struct umap *u)
{
	return ((size_t)u->m->val_size + 7) & ~(size_t)7;
}

/* The bytes of one KEYSPEC/VALSPEC field. */
static size_t field_size(char f)
{
	return f == 's' ? bundle_strsz : f == 'c' ? 16 : f == 'S' ? 32 : f == 'V' ? 64 : f == 'i' ? 4 : 8;
}

/* Fields may be unaligned in a value: memcpy. */
static int64_t get64(const uint8_t *p)
{
	int64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The same for a store. */
static void put64(uint8_t *p, int64_t v)
{
	memcpy(p, &v, 8);
}

/*
 * A V's variance over the CPUs, with the module runtime's own code
 * (runtime/variance.h: SystemTap 4.8's "total variance" in its integer
 * arithmetic) on each CPU's count, mean and m2; o already holds the merged
 * count and sum. The merged record keeps the one CPU's mean and m2 when only
 * one counted (so that user space adding to it goes on as that CPU would),
 * else the overall mean and (count - 1) variance.
 */
static void merge_variance(const struct umap *u, const uint8_t *cpus, size_t off, uint8_t *o)
{
	size_t stride = cpu_stride(u);
	struct stp_stat m = { .count = get64(o), .sum = get64(o + 8) };
	struct stp_stat_desc d = { .variance = 1 };
	int64_t var;
	int ncounted = 0;

	for (int c = 0; c < u->ncpus; c++) {
		const uint8_t *v = cpus + c * stride + off;
		struct stp_stat one = { .count = get64(v), .mean = get64(v + 32), .m2 = get64(v + 40) };

		if (!one.count)
			continue;
		if (!ncounted++) {
			put64(o + 32, one.mean);
			put64(o + 40, one.m2);
		}
		d.shift = get64(v + 48) > d.shift ? (int)get64(v + 48) : d.shift;
		stp_stat_merge_variance(&m, &one);
	}
	if (d.shift < 0 || d.shift > 16)
		d.shift = 0;
	var = stp_stat_variance(&m, &d);
	if (m.count > 1 && ncounted > 1) {
		put64(o + 32, stp_div64_s64((int64_t)((uint64_t)m.sum << d.shift), m.count));
		put64(o + 40, (int64_t)((uint64_t)(m.count - 1) * ((uint64_t)var << (2 * d.shift))));
	}
	put64(o + 48, d.shift);
	put64(o + 56, var);
}

/* The CPUs' values in one, field by field: l added; S counts and sums
 * added, min and max over the CPUs that counted something (a V too, and
 * its variance: merge_variance); s from the first CPU whose string is not
 * all zero. */
static void merge_cpus(const struct umap *u, const uint8_t *cpus, uint8_t *out)
{
	size_t stride = cpu_stride(u), off = 0;

	memset(out, 0, u->m->val_size);
	for (const char *f = u->m->valspec; *f; off += field_size(*f), f++) {
		for (int c = 0; c < u->ncpus; c++) {
			const uint8_t *v = cpus + c * stride + off;
			uint8_t *o = out + off;

			if (*f == 'l') {
				put64(o, (int64_t)((uint64_t)get64(o) + (uint64_t)get64(v)));
			} else if (*f == 's') {
				static const uint8_t zero[BPF_STRSZ_MAX];

				if (!memcmp(o, zero, bundle_strsz) && memcmp(v, zero, bundle_strsz))
					memcpy(o, v, bundle_strsz);
			} else if ((*f == 'S' || *f == 'V') && get64(v) != 0) {
				bool first = get64(o) == 0;

				put64(o, get64(o) + get64(v));
				put64(o + 8, (int64_t)((uint64_t)get64(o + 8) + (uint64_t)get64(v + 8)));
				if (first || get64(v + 16) < get64(o + 16))
					put64(o + 16, get64(v + 16));
				if (first || get64(v + 24) > get64(o + 24))
					put64(o + 24, get64(v + 24));
			}
		}
		if (*f == 'V')   /* once the counts and sums are in */
			merge_variance(u, cpus, off, out + off);
	}
}

/* map_lookup_elem for user space: one value, merged when per-CPU. */
int umap_read(const struct umap *u, const void *key, void *val)
{
	uint8_t *cpus;
	int rc;

	if (!is_percpu(u))
		return bpf_map_lookup_elem(u->fd, key, val) < 0 ? -errno : 0;
	cpus = malloc(cpu_stride(u) * u->ncpus);
	if (!cpus)
		return -ENOMEM;
	rc = bpf_map_lookup_elem(u->fd, key, cpus) < 0 ? -errno : 0;
	if (rc == 0)
		merge_cpus(u, cpus, val);
	free(cpus);
	return rc;
}

/* map_update_elem for user space: CPU 0 gets the value, the others zeros. */
int umap_write(const struct umap *u, const void *key, const void *val, uint64_t flags)
{
	uint8_t *cpus;
	int rc;

	if (!is_percpu(u))
		return bpf_map_update_elem(u->fd, key, val, flags) < 0 ? -errno : 0;
	cpus = calloc(u->ncpus, cpu_stride(u));
	if (!cpus)
		return -ENOMEM;
	memcpy(cpus, val, u->m->val_size);
	rc = bpf_map_update_elem(u->fd, key, cpus, flags) < 0 ? -errno : 0;
	free(cpus);
	return rc;
}

/* map_delete_elem, its errno negated. */
int umap_delete(const struct umap *u, const void *key)
{
	return bpf_map_delete_elem(u->fd, key) < 0 ? -errno : 0;
}

/* Every key, in the kernel's order (at most max_entries of them: a map
 * changed under the walk cannot make it loop). */
static int all_keys(const struct umap *u, uint8_t **keys, size_t *n)
{
	size_t ks = u->m->key_size, cap = 64, count = 0;
	uint8_t *k = malloc(cap * ks);

	if (!k)
		return -ENOMEM;
	while (count < u->m->max_entries) {
		if (count == cap) {
			uint8_t *nk = realloc(k, 2 * cap * ks);

			if (!nk) {
				free(k);
				return -ENOMEM;
			}
			k = nk;
			cap *= 2;
		}
		if (bpf_map_get_next_key(u->fd, count ? k + (count - 1) * ks : NULL, k + count * ks) < 0) {
			if (errno == ENOENT)
				break;
			free(k);
			return -errno;
		}
		count++;
	}
	*keys = k;
	*n = count;
	return 0;
}

/* map_count: the keys walked. */
int umap_count(const struct umap *u, int64_t *n)
{
	uint8_t *keys;
	size_t count;
	int rc = all_keys(u, &keys, &count);

	if (rc == 0) {
		*n = (int64_t)count;
		free(keys);
	}
	return rc;
}

/* map_clear: keys taken first (deleting while walking restarts the walk). */
int umap_clear(const struct umap *u)
{
	bool array = u->m->kind == BM_ARRAY || u->m->kind == BM_PERCPU_ARRAY;
	uint8_t *keys, *zero = calloc(1, u->m->val_size);
	size_t count;
	int rc = zero ? all_keys(u, &keys, &count) : -ENOMEM;

	if (rc < 0) {
		free(zero);
		return rc;
	}
	for (size_t i = 0; i < count && rc == 0; i++) {
		const uint8_t *key = keys + i * u->m->key_size;

		rc = array ? umap_write(u, key, zero, BPF_ANY) : umap_delete(u, key);
		if (rc == -ENOENT)
			rc = 0;
	}
	free(keys);
	free(zero);
	return rc;
}

/* What the comparison of two entries needs. */
struct order {
	const struct umap *u;
	const uint8_t *keys, *vals;
	char ftype;		/* the sort column's field letter */
	size_t foff;		/* its offset in the key, or in the value (column 0) */
	bool by_value;
	int dir, aggr;
};

/* An S value as foreach sees it: count, sum, min, max or avg. */
static int64_t stat_of(const uint8_t *s, int aggr)
{
	int64_t count = get64(s), sum = get64(s + 8);

	switch (aggr) {
	case 0: return count;
	case 1: return sum;
	case 2: return get64(s + 16);
	case 3: return get64(s + 24);
	default: return count ? sum / count : 0;
	}
}

/* Two fields of the same letter: <0, 0, >0. */
static int cmp_field(char t, const uint8_t *a, const uint8_t *b, int aggr)
{
	int64_t x, y;

	switch (t) {
	case 's':
		return strncmp((const char *)a, (const char *)b, bundle_strsz);
	case 'c':   /* a narrow string key */
		return strncmp((const char *)a, (const char *)b, 16);
	case 'i': {
		uint32_t p, q;

		memcpy(&p, a, 4);
		memcpy(&q, b, 4);
		return (p > q) - (p < q);
	}
	case 'S':
	case 'V':
		x = stat_of(a, aggr);
		y = stat_of(b, aggr);
		break;
	default:
		x = get64(a);
		y = get64(b);
	}
	return (x > y) - (x < y);
}

/* Keys ascending, field by field: the tie-break. */
static int cmp_keys(const struct umap *u, const uint8_t *a, const uint8_t *b)
{
	size_t off = 0;

	for (const char *f = u->m->keyspec; *f; off += field_size(*f), f++) {
		int c = cmp_field(*f, a + off, b + off, 0);

		if (c)
			return c;
	}
	return 0;
}

/* qsort_r on entry indexes: the sort column, then the keys ascending. */
static int cmp_entries(const void *pa, const void *pb, void *arg)
{
	const struct order *o = arg;
	size_t i = *(const size_t *)pa, j = *(const size_t *)pb;
	size_t ks = o->u->m->key_size, vs = o->u->m->val_size;
	const uint8_t *ka = o->keys + i * ks, *kb = o->keys + j * ks;
	int c;

	if (o->by_value)
		c = cmp_field(o->ftype, o->vals + i * vs + o->foff, o->vals + j * vs + o->foff, o->aggr);
	else
		c = cmp_field(o->ftype, ka + o->foff, kb + o->foff, o->aggr);
	if (o->dir == 2)
		c = -c;
	return c ? c : cmp_keys(o->u, ka, kb);
}

/* Where the sort column is: the value's first field (0) or key field N. */
static int sort_column(const struct umap *u, unsigned col, struct order *o)
{
	const char *spec = col ? u->m->keyspec : u->m->valspec;
	unsigned want = col ? col - 1 : 0;

	o->by_value = col == 0;
	o->foff = 0;
	for (unsigned k = 0; spec[k]; k++) {
		if (k == want) {
			o->ftype = spec[k];
			return 0;
		}
		o->foff += field_size(spec[k]);
	}
	return -EINVAL;
}

/* foreach_start's keys: sorted when dir says so (values read merged), cut
 * to limit. Unsorted, they come in ascending order: the module runtime
 * walks them in insertion order, which a BPF hash map does not keep (its
 * own order changes from run to run with its hash seed); ascending is the
 * same order whenever the keys were added in ascending order. */
int umap_sorted_keys(const struct umap *u, uint64_t spec, int64_t limit, uint8_t **keys, size_t *n)
{
	struct order o = { .u = u, .dir = (int)((spec >> 8) & 0xff), .aggr = (int)((spec >> 16) & 0xff) };
	size_t ks = u->m->key_size, vs = u->m->val_size, count;
	size_t *idx = NULL;
	uint8_t *k, *vals = NULL, *sorted = NULL;
	int rc;

	if (o.dir > 2 || o.aggr > 4 || (spec >> 24) || (o.dir && sort_column(u, spec & 0xff, &o) < 0))
		return -EINVAL;
	rc = all_keys(u, &k, &count);
	if (rc < 0)
		return rc;
	if (!o.dir && sort_column(u, 1, &o) == 0)
		o.dir = 1;
	if (o.dir && count > 1) {
		idx = malloc(count * sizeof(*idx));
		sorted = malloc(count * ks);
		vals = o.by_value ? calloc(count, vs) : NULL;
		if (!idx || !sorted || (o.by_value && !vals)) {
			rc = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < count; i++) {
			idx[i] = i;
			if (o.by_value && (rc = umap_read(u, k + i * ks, vals + i * vs)) < 0 && rc != -ENOENT)
				goto out;
		}
		rc = 0;
		o.keys = k;
		o.vals = vals;
		qsort_r(idx, count, sizeof(*idx), cmp_entries, &o);
		for (size_t i = 0; i < count; i++)
			memcpy(sorted + i * ks, k + idx[i] * ks, ks);
		free(k);
		k = sorted;
		sorted = NULL;
	}
	if (limit > 0 && (uint64_t)limit < count)
		count = (size_t)limit;
	*keys = k;
	*n = count;
	k = NULL;
out:
	free(k);
	free(idx);
	free(vals);
	free(sorted);
	return rc;
}
