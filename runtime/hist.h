/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: histograms of aggregates, @hist_log and @hist_linear:
 * which bucket a value goes to and how a histogram prints. Plain C with
 * no kernel calls, so that stapbpf (staprun/, user space) prints the
 * histograms of --runtime=bpf exactly as the module runtime (stat.h) does.
 *
 * Rows are laid out as SystemTap prints them: a value column at least as
 * wide as "value", 50 columns of '@' scaled to the largest bucket, two
 * empty rows around the data, runs of more than four empty rows elided
 * with '~'.
 */
#ifndef STP_HIST_H
#define STP_HIST_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/bitops.h>
#else
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#endif

enum { STP_HIST_NONE = 0, STP_HIST_LOG = 1, STP_HIST_LINEAR = 2 };

#define STP_HIST_LOG_BUCKETS 129	/* -2^62 .. -1, 0, 1 .. 2^62 */
#define STP_HIST_LOG_ZERO 64
#define STP_HIST_WIDTH 50

/* What is collected for one aggregate variable (const, generated). */
struct stp_stat_desc {
	int hist;
	int64_t lo, hi, step;		/* linear */
	int nbuckets;			/* log: 129; linear: regular + 2 */
	int shift;			/* variance */
	int variance;			/* @variance is used: keep mean and m2 */
};

/* The highest set bit, 1-based (0 for 0), as the kernel's fls64. */
static inline int stp_hist_fls64(uint64_t v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

/* Bucket of v: log buckets by the position of the highest bit, linear by
 * (v - lo) / step with underflow first and overflow last. */
static inline int stp_stat_bucket(const struct stp_stat_desc *d, int64_t v)
{
	if (d->hist == STP_HIST_LOG) {
		if (v == 0)
			return STP_HIST_LOG_ZERO;
		if (v > 0)
			return STP_HIST_LOG_ZERO + stp_hist_fls64((uint64_t)v);
		return STP_HIST_LOG_ZERO - stp_hist_fls64(0 - (uint64_t)v);
	}
	if (v < d->lo)
		return 0;
	if ((v - d->lo) / d->step >= d->nbuckets - 2)
		return d->nbuckets - 1;
	return 1 + (int)((v - d->lo) / d->step);
}

/* The buckets a script may index and walk (the log one past 2^62 is not one). */
static inline int stp_hist_nbuckets(const struct stp_stat_desc *d)
{
	return d->hist == STP_HIST_LOG ? STP_HIST_LOG_BUCKETS - 1 : d->nbuckets;
}

/* Label of bucket b ("<lo" and ">hi" for linear under/overflow). */
static inline void stp_hist_label(char *buf, size_t n, const struct stp_stat_desc *d, int b)
{
	if (d->hist == STP_HIST_LOG) {
		int k = b - STP_HIST_LOG_ZERO;

		if (k == 0)
			snprintf(buf, n, "0");
		else if (k > 0)
			snprintf(buf, n, "%lld", 1LL << (k - 1));
		else
			snprintf(buf, n, "%lld", -(1LL << (-k - 1)));
	} else if (b == 0) {
		snprintf(buf, n, "<%lld", (long long)d->lo);
	} else if (b == d->nbuckets - 1) {
		snprintf(buf, n, ">%lld", (long long)d->hi);
	} else {
		snprintf(buf, n, "%lld", (long long)(d->lo + (int64_t)(b - 1) * d->step));
	}
}

/* Rows shown: from two before the first non-empty bucket to two after the
 * last; a log histogram shows negative rows only for negative data (and
 * positive ones only for data >= 0); linear under/overflow rows only when
 * they are non-empty. */
static inline void stp_hist_range(const int64_t *buckets, const struct stp_stat_desc *d,
				  int *first, int *last)
{
	int lo_clip = 0, hi_clip = d->nbuckets - 1, b, f = -1, l = -1;

	for (b = 0; b < d->nbuckets; b++) {
		if (buckets[b]) {
			if (f < 0)
				f = b;
			l = b;
		}
	}
	if (d->hist == STP_HIST_LOG) {
		if (f >= STP_HIST_LOG_ZERO)
			lo_clip = STP_HIST_LOG_ZERO;
		if (l >= 0 && l < STP_HIST_LOG_ZERO)
			hi_clip = STP_HIST_LOG_ZERO - 1;
	} else {
		if (!buckets[0])
			lo_clip = 1;
		if (!buckets[d->nbuckets - 1])
			hi_clip = d->nbuckets - 2;
	}
	if (f < 0)			/* no data: the first rows */
		f = l = lo_clip;
	*first = f - 2 < lo_clip ? lo_clip : f - 2;
	*last = l + 2 > hi_clip ? hi_clip : l + 2;
}

/* The histogram's text, piece by piece, to put(arg, text). */
static inline void stp_hist_print(const int64_t *buckets, const struct stp_stat_desc *d,
				  void (*put)(void *arg, const char *s), void *arg)
{
	char label[32], line[160];
	int first, last, b, width = 5, cwidth = 1, i;
	int64_t maxc = 0;

	if (!d->hist)
		return;
	stp_hist_range(buckets, d, &first, &last);
	for (b = first; b <= last; b++) {
		stp_hist_label(label, sizeof(label), d, b);
		if ((int)strlen(label) > width)
			width = strlen(label);
		if (buckets[b] > maxc)
			maxc = buckets[b];
	}
	cwidth = snprintf(label, sizeof(label), "%lld", (long long)maxc);
	snprintf(line, sizeof(line), "%*s |", width, "value");
	put(arg, line);
	for (i = 0; i < STP_HIST_WIDTH; i++)
		put(arg, "-");
	put(arg, " count\n");

	for (b = first; b <= last; b++) {
		int64_t n = buckets[b];
		/* n * 50 / maxc: both >= 0 and maxc > 50 here, so 64-bit
		 * division by a value that fits 32 bits (div64_s64's result) */
		int bar = maxc <= STP_HIST_WIDTH ? (int)n : (int)((n * STP_HIST_WIDTH) / maxc);

		if (!n) {	/* inside a run of empty rows longer than 4: elide */
			int s = b, e = b;

			while (s > first && !buckets[s - 1])
				s--;
			while (e < last && !buckets[e + 1])
				e++;
			if (e - s + 1 > 4 && b >= s + 2 && b <= e - 2) {
				if (b == s + 2) {
					snprintf(line, sizeof(line), "%*s ~\n", width, "");
					put(arg, line);
				}
				continue;
			}
		}
		stp_hist_label(label, sizeof(label), d, b);
		snprintf(line, sizeof(line), "%*s |", width, label);
		put(arg, line);
		for (i = 0; i < STP_HIST_WIDTH; i++)
			line[i] = i < bar ? '@' : ' ';
		snprintf(line + STP_HIST_WIDTH, sizeof(line) - STP_HIST_WIDTH, " %*lld\n",
			 cwidth, (long long)n);
		put(arg, line);
	}
	put(arg, "\n");
}

#endif /* STP_HIST_H */
