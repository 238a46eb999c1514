/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: statistics (aggregates, `x <<< v`).
 *
 * Locking model: `<<<` only ever touches the current CPU's record, so probe
 * handlers that add to an aggregate take only their CPU's lock of it
 * (->locks, lock.h) and share no cache line with adders on other CPUs;
 * reading an aggregate (@count ..., foreach, print(@hist_*)) or deleting
 * merges or changes every CPU's record and takes every CPU's lock.
 * Scalars: struct stp_pstat, one record per possible CPU. Arrays:
 * struct stp_pmap, one map per possible CPU plus one map the merge fills.
 *
 * Variance is Welford's online algorithm on values shifted left by the
 * variable's shift (@variance(s, N)) on each CPU, combined across CPUs
 * with the total-variance formula, in SystemTap 4.8's integer arithmetic
 * (so that the truncations, and the figures, are the same). Histogram rows are laid out as SystemTap prints
 * them: a value column at least as wide as "value", 50 columns of '@' scaled
 * to the largest bucket, two empty rows around the data, runs of more than
 * four empty rows elided with '~'.
 */
#ifndef STP_STAT_H
#define STP_STAT_H

#include "map.h"
#include "lock.h"

#include "hist.h"
#include "variance.h"	/* struct stp_stat, the merge of the variance */

/* offsets to sort an array of aggregates on (foreach ... @count+) */
#define STP_STAT_SORT_COUNT offsetof(struct stp_stat, count)
#define STP_STAT_SORT_SUM offsetof(struct stp_stat, sum)
#define STP_STAT_SORT_MIN offsetof(struct stp_stat, min)
#define STP_STAT_SORT_MAX offsetof(struct stp_stat, max)
#define STP_STAT_SORT_AVG offsetof(struct stp_stat, avg)

static inline size_t stp_stat_size(const struct stp_stat_desc *d)
{
	return sizeof(struct stp_stat) + (size_t)d->nbuckets * sizeof(int64_t);
}

static inline void stp_stat_add(struct stp_stat *st, const struct stp_stat_desc *d, int64_t v)
{
	if (st->count == 0 || v < st->min)
		st->min = v;
	if (st->count == 0 || v > st->max)
		st->max = v;
	st->count++;
	st->sum += v;
	if (d->variance) {	/* a division per value: only when asked for */
		int64_t x = (int64_t)((u64)v << d->shift);
		int delta = (int)(x - st->mean);	/* 32 bits, as SystemTap 4.8 */

		if (st->count == 1) {
			st->mean = x;
			st->m2 = 0;
		} else {
			st->mean += div64_s64(delta, st->count);
			st->m2 += (int64_t)((u64)(int64_t)delta * (u64)(x - st->mean));
		}
	}
	if (d->hist)
		st->buckets[stp_stat_bucket(d, v)]++;
}

/* dst += src (one CPU's record into the merge). */
static __maybe_unused void stp_stat_merge(struct stp_stat *dst, const struct stp_stat *src,
			   const struct stp_stat_desc *d)
{
	int64_t t1 = dst->t1, t2 = dst->t2, s2 = dst->s2;
	int i;

	if (!src->count)
		return;
	if (!dst->count) {
		memcpy(dst, src, stp_stat_size(d));
		dst->t1 = t1;
		dst->t2 = t2;
		dst->s2 = s2;
		if (d->variance)
			stp_stat_merge_variance(dst, src);
		return;
	}
	if (d->variance)
		stp_stat_merge_variance(dst, src);
	dst->count += src->count;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	for (i = 0; i < d->nbuckets && d->hist; i++)
		dst->buckets[i] += src->buckets[i];
}

static inline void stp_stat_finish(struct stp_stat *st)
{
	st->avg = st->count ? div64_s64(st->sum, st->count) : 0;
}


/* Buckets a script can index or iterate: SystemTap numbers log buckets
 * 0..127 (our last one, 2^63 and up, no 64-bit value reaches), linear ones
 * underflow, regular buckets, overflow. */
/* A histogram goes to the output (print) or, when dst is set, onto the end
 * of a script string (sprint), cut at MAXSTRINGLEN as any string. */
static inline void stp_hist_put(struct stp_context *c, char *dst, const char *s)
{
	if (dst)
		stp_str_append(dst, s);
	else
		stp_print_str(c, s);
}

/* print(@hist_log(x)) / print(@hist_linear(x, ...)), sprint(...) with dst */
static void stp_hist_put_cb(void *arg, const char *s)
{
	struct { struct stp_context *c; char *dst; } *to = arg;

	stp_hist_put(to->c, to->dst, s);
}

static __maybe_unused void stp_stat_print_hist(struct stp_context *c, char *dst,
					       const struct stp_stat *st,
					       const struct stp_stat_desc *d)
{
	struct { struct stp_context *c; char *dst; } to = { c, dst };

	stp_hist_print(st->buckets, d, stp_hist_put_cb, &to);
}

/* ---- scalars: one record per CPU ------------------------------------------ */

struct stp_pstat {
	const struct stp_stat_desc *d;
	size_t stride;
	struct stp_stat *agg;
	char *cpus;
	struct stp_cpulock *locks;
};

static __maybe_unused void stp_pstat_free(struct stp_pstat *p)
{
	if (!p)
		return;
	kfree(p->locks);
	vfree(p);
}

static __maybe_unused struct stp_pstat *stp_pstat_new(const struct stp_stat_desc *d)
{
	size_t stride = (stp_stat_size(d) + 63) & ~(size_t)63;
	struct stp_pstat *p = stp_vzalloc(sizeof(*p) + stride * (nr_cpu_ids + 1) + 64);

	if (!p)
		return NULL;
	p->d = d;
	p->stride = stride;
	p->agg = (struct stp_stat *)(((unsigned long)(p + 1) + 63) & ~63UL);
	p->cpus = (char *)p->agg + stride;
	p->locks = stp_cpulocks_new();
	if (!p->locks) {
		vfree(p);
		return NULL;
	}
	return p;
}

static inline struct stp_stat *stp_pstat_cpu(struct stp_pstat *p, int cpu)
{
	return (struct stp_stat *)(p->cpus + (size_t)cpu * p->stride);
}

static inline void stp_pstat_add(struct stp_pstat *p, int64_t v)
{
	stp_stat_add(stp_pstat_cpu(p, smp_processor_id()), p->d, v);
}

/* Merge every CPU's record; valid until the next call (every CPU's lock held). */
static __maybe_unused struct stp_stat *stp_pstat_get(struct stp_pstat *p)
{
	int cpu;

	memset(p->agg, 0, stp_stat_size(p->d));
	for_each_possible_cpu(cpu)
		stp_stat_merge(p->agg, stp_pstat_cpu(p, cpu), p->d);
	stp_stat_finish(p->agg);
	return p->agg;
}

static __maybe_unused void stp_pstat_clear(struct stp_pstat *p)
{
	int cpu;

	for_each_possible_cpu(cpu)
		memset(stp_pstat_cpu(p, cpu), 0, stp_stat_size(p->d));
}

/* ---- arrays: one map per CPU, merged on read ------------------------------ */

struct stp_pmap {
	const struct stp_stat_desc *d;
	struct stp_cpulock *locks;
	struct stp_map *agg;
	struct stp_stat *one;		/* scratch for a single key's merge */
	struct stp_map *cpus[];
};

static __maybe_unused void stp_pmap_free(struct stp_pmap *p)
{
	int cpu;

	if (!p)
		return;
	for_each_possible_cpu(cpu)
		if (p->cpus[cpu])
			stp_map_free(p->cpus[cpu]);
	if (p->agg)
		stp_map_free(p->agg);
	vfree(p->one);
	kfree(p->locks);
	vfree(p);
}

static __maybe_unused struct stp_pmap *stp_pmap_new(int max_entries, int nkeys,
						    const enum stp_type *kt,
						    const struct stp_stat_desc *d, bool wrap)
{
	struct stp_pmap *p = stp_vzalloc(sizeof(*p) + nr_cpu_ids * sizeof(p->cpus[0]));
	int cpu;

	if (!p)
		return NULL;
	p->d = d;
	p->one = stp_vzalloc(stp_stat_size(d));
	p->locks = stp_cpulocks_new();
	p->agg = stp_map_new_stat(max_entries, nkeys, kt, stp_stat_size(d), false);
	if (!p->one || !p->locks || !p->agg)
		goto fail;
	for_each_possible_cpu(cpu) {
		p->cpus[cpu] = stp_map_new_stat(max_entries, nkeys, kt, stp_stat_size(d), wrap);
		if (!p->cpus[cpu])
			goto fail;
	}
	return p;
fail:
	stp_pmap_free(p);
	return NULL;
}

/*
 * This CPU's record for keys (inserted), or NULL when its map is full.
 * The lookup is inline: it runs on every `<<<`. The element the last one
 * reached (m->hot) is compared first, without hashing: successive hits
 * on a CPU tend to have the same keys (a[execname()] in a busy task).
 */
static __always_inline struct stp_stat *stp_pmap_cpu_stat(struct stp_pmap *p,
							  const union stp_key *keys)
{
	struct stp_map *m = p->cpus[smp_processor_id()];
	struct stp_map_entry *e = m->hot;
	u64 h;

	if (e && stp_map_keys_equal(m, e, keys))
		return (struct stp_stat *)stp_map_slot(e, m->val_off);
	h = stp_map_hash(m, keys);
	e = stp_map_find_h(m, keys, h);
	if (unlikely(!e))
		e = stp_map_add_h(m, keys, h);
	if (!e)
		return NULL;
	m->hot = e;
	return (struct stp_stat *)stp_map_slot(e, m->val_off);
}

/* stp_pmap_cpu_stat for an array of one string key, k: the same hash and
 * elements, without the loops over key types. */
static __always_inline struct stp_stat *stp_pmap_cpu_stat_s(struct stp_pmap *p, const char *k)
{
	struct stp_map *m = p->cpus[smp_processor_id()];
	struct stp_map_entry *e = m->hot;
	u64 h;

	if (e && stp_map_str_equal(stp_map_slot(e, m->key_off[0]), k))
		return (struct stp_stat *)stp_map_slot(e, m->val_off);
	h = stp_map_fmix(stp_map_hash_str(STP_MAP_HASH_SEED, k));
	for (e = m->buckets[h & m->bucket_mask]; e; e = e->hnext)
		if (e->hash == h && stp_map_str_equal(stp_map_slot(e, m->key_off[0]), k))
			goto found;
	{
		union stp_key key = { .s = k };

		e = stp_map_add_h(m, &key, h);
	}
	if (!e)
		return NULL;
found:
	m->hot = e;
	return (struct stp_stat *)stp_map_slot(e, m->val_off);
}

static inline struct stp_stat *stp_pmap_entry_stat(struct stp_map *m, struct stp_map_entry *e)
{
	return (struct stp_stat *)stp_map_slot(e, m->val_off);
}

/* Merge one key across CPUs into p->one. */
static __maybe_unused struct stp_stat *stp_pmap_get(struct stp_pmap *p, const union stp_key *keys)
{
	int cpu;

	memset(p->one, 0, stp_stat_size(p->d));
	for_each_possible_cpu(cpu) {
		struct stp_map_entry *e = stp_map_find(p->cpus[cpu], keys);

		if (e)
			stp_stat_merge(p->one, stp_pmap_entry_stat(p->cpus[cpu], e), p->d);
	}
	stp_stat_finish(p->one);
	return p->one;
}

static __maybe_unused bool stp_pmap_exists(struct stp_pmap *p, const union stp_key *keys)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (stp_map_find(p->cpus[cpu], keys))
			return true;
	return false;
}

/* [k, *] in p: some CPU has an element matching the slice. */
static __maybe_unused bool stp_pmap_exists_slice(struct stp_pmap *p, const union stp_key *keys,
						 unsigned int wild)
{
	int cpu;

	for_each_possible_cpu(cpu)
		if (stp_map_exists_slice(p->cpus[cpu], keys, wild))
			return true;
	return false;
}

/* Merge every key into p->agg (in first-seen order) for foreach. Returns
 * -E2BIG if the merge map filled up. */
static __maybe_unused int stp_pmap_aggregate(struct stp_pmap *p)
{
	union stp_key keys[STP_MAP_MAX_KEYS];
	struct stp_map_entry *e, *a;
	int cpu, i;

	stp_map_clear(p->agg);
	for_each_possible_cpu(cpu) {
		struct stp_map *m = p->cpus[cpu];

		for (e = stp_map_first(m); e; e = stp_map_next(m, e)) {
			for (i = 0; i < m->nkeys; i++) {
				if (m->key_types[i] == STP_STRING)
					keys[i].s = stp_entry_key_str(m, e, i);
				else
					keys[i].n = stp_entry_key_long(m, e, i);
			}
			a = stp_map_insert(p->agg, keys);
			if (!a)
				return -E2BIG;
			stp_stat_merge(stp_pmap_entry_stat(p->agg, a), stp_pmap_entry_stat(m, e), p->d);
		}
	}
	for (a = stp_map_first(p->agg); a; a = stp_map_next(p->agg, a))
		stp_stat_finish(stp_pmap_entry_stat(p->agg, a));
	return 0;
}

static __maybe_unused void stp_pmap_delete(struct stp_pmap *p, const union stp_key *keys)
{
	int cpu;

	for_each_possible_cpu(cpu)
		stp_map_delete(p->cpus[cpu], keys);
}

/* delete p[k, *]: from every CPU's map. */
static __maybe_unused void stp_pmap_delete_slice(struct stp_pmap *p, const union stp_key *keys,
						 unsigned int wild)
{
	int cpu;

	for_each_possible_cpu(cpu)
		stp_map_delete_slice(p->cpus[cpu], keys, wild);
}

static __maybe_unused void stp_pmap_clear(struct stp_pmap *p)
{
	int cpu;

	for_each_possible_cpu(cpu)
		stp_map_clear(p->cpus[cpu]);
	stp_map_clear(p->agg);
}

/* Sort the merged map on a stat field (STP_STAT_SORT_*) or a key. */
static __maybe_unused void stp_pmap_sort(struct stp_pmap *p, int column, unsigned int sub, int dir)
{
	p->agg->sort_sub = sub;
	stp_map_sort(p->agg, column, dir);
}

#endif /* STP_STAT_H */
