/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: an aggregate's record and how the CPUs' records give its
 * @variance. Plain C with no kernel calls (as hist.h), so that stapbpf
 * (staprun/, user space) merges --runtime=bpf's per-CPU Welford sums with
 * the very code the module runtime (stat.h) uses.
 */
#ifndef STP_VARIANCE_H
#define STP_VARIANCE_H

#include "hist.h"

#ifdef __KERNEL__
#include <linux/math64.h>
#endif

struct stp_stat {
	int64_t count, sum, min, max;
	int64_t avg;			/* filled by stp_stat_finish */
	int64_t mean, m2;		/* one CPU's Welford, on values << shift */
	int64_t t1, t2, s2;		/* merged: sums over CPUs for the variance */
	int64_t buckets[];
};

/* Signed 64-bit division (the divisors here are counts: never 0 or -1). */
static inline int64_t stp_div64_s64(int64_t a, int64_t b)
{
#ifdef __KERNEL__
	return div64_s64(a, b);
#else
	return a / b;
#endif
}

/*
 * SystemTap 4.8's variance across CPUs is the "total variance": with each
 * CPU's count c, running mean m and variance m2 / (c - 1) (integer
 * division), and the overall mean A = sum / count,
 *   ( sum c (m - A)^2 + sum (c - 1) var ) / (count - 1).
 * A is only known once every CPU is merged, so the merge keeps
 * t1 = sum c m, t2 = sum c m^2 and s2 = sum (c - 1) var, and
 * stp_stat_variance expands the square (exact in 64-bit wrapping
 * arithmetic, as the direct sum is).
 */
static inline void stp_stat_merge_variance(struct stp_stat *dst, const struct stp_stat *src)
{
	uint64_t cm = (uint64_t)src->count * (uint64_t)src->mean;

	dst->t1 = (int64_t)((uint64_t)dst->t1 + cm);
	dst->t2 = (int64_t)((uint64_t)dst->t2 + cm * (uint64_t)src->mean);
	if (src->count > 1)
		dst->s2 = (int64_t)((uint64_t)dst->s2 + (uint64_t)(src->count - 1) *
				    (uint64_t)stp_div64_s64(src->m2, src->count - 1));
}

/* @variance of a merged record (see stp_stat_merge_variance). */
static inline int64_t stp_stat_variance(const struct stp_stat *st, const struct stp_stat_desc *d)
{
	uint64_t a, s1;

	if (st->count < 2)
		return 0;
	a = (uint64_t)stp_div64_s64((int64_t)((uint64_t)st->sum << d->shift), st->count);
	s1 = (uint64_t)st->t2 - 2 * a * (uint64_t)st->t1 + a * a * (uint64_t)st->count;
	return stp_div64_s64((int64_t)(s1 + (uint64_t)st->s2), st->count - 1) >> (2 * d->shift);
}

#endif /* STP_VARIANCE_H */
