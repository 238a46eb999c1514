/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: `stap -t`, per-probe hit counts and cycle costs.
 *
 * Compiled in only with STP_TIMING (the translator defines it for -t). Each
 * CPU keeps its own record per derived probe (no shared cache lines on the
 * hot path: the probe's context already pins the CPU); the report at exit
 * merges them. Variance is Welford's, merged with Chan's formula, as for
 * aggregates. The report goes to stdout after the end probes, in
 * SystemTap 4.8's layout; probes never hit are left out.
 */
#ifndef STP_TIMING_H
#define STP_TIMING_H

#include <linux/slab.h>
#include <linux/timex.h>
#include <linux/math64.h>
#include "config.h"
#include "transport.h"

struct stp_timing {
	s64 hits, min, max, sum;
	s64 mean, m2;
};

#ifdef STP_TIMING

static struct stp_timing *stp_timings;	/* [cpu * STP_NUM_PROBES + probe] */

/* generated after the runtime headers; from: each probe's first point as written */
static const struct stp_probe stp_probes[STP_NUM_PROBES];
static const char *const stp_probe_from[STP_NUM_PROBES];

static int stp_timing_alloc(void)
{
	stp_timings = kcalloc((size_t)nr_cpu_ids * STP_NUM_PROBES, sizeof(*stp_timings),
			      GFP_KERNEL);
	return stp_timings ? 0 : -ENOMEM;
}

static void stp_timing_free(void)
{
	kfree(stp_timings);
	stp_timings = NULL;
}

static inline cycles_t stp_timing_start(void)
{
	return get_cycles();
}

/* One hit of probe `index` on this CPU that took the cycles since `start`. */
static inline void stp_timing_add(int index, cycles_t start)
{
	struct stp_timing *t;
	s64 v = (s64)(get_cycles() - start), delta;

	if (!stp_timings)
		return;
	t = &stp_timings[smp_processor_id() * STP_NUM_PROBES + index];
	if (!t->hits || v < t->min)
		t->min = v;
	if (!t->hits || v > t->max)
		t->max = v;
	t->hits++;
	t->sum += v;
	delta = v - t->mean;
	t->mean += div64_s64(delta, t->hits);
	t->m2 += delta * (v - t->mean);
}

static void stp_timing_merge(struct stp_timing *dst, const struct stp_timing *src)
{
	s64 n, delta;

	if (!src->hits)
		return;
	if (!dst->hits) {
		*dst = *src;
		return;
	}
	n = dst->hits + src->hits;
	delta = src->mean - dst->mean;
	dst->m2 += src->m2 + div64_s64(delta * delta * dst->hits, n) * src->hits;
	dst->mean += div64_s64(delta * src->hits, n);
	dst->hits = n;
	dst->sum += src->sum;
	dst->min = min(dst->min, src->min);
	dst->max = max(dst->max, src->max);
}

/* The table SystemTap prints at exit for -t (to stdout). */
static void stp_timing_report(void)
{
	static const char head[] = "----- probe hit report: \n";
	static const char tail[] = "----- refresh report:\n";
	char line[512];
	int i, cpu, n;

	if (!stp_timings)
		return;
	stp_transport_write(STP_MSG_OUT, head, sizeof(head) - 1);
	for (i = 0; i < STP_NUM_PROBES; i++) {
		struct stp_timing t = { 0 };

		for_each_possible_cpu(cpu)
			stp_timing_merge(&t, &stp_timings[cpu * STP_NUM_PROBES + i]);
		if (!t.hits)
			continue;
		n = scnprintf(line, sizeof(line),
			      "%s, (%s), hits: %lld, cycles: %lldmin/%lldavg/%lldmax, variance: %lld, from: %s, index: %d\n",
			      stp_probes[i].pp, stp_probes[i].pos, t.hits, t.min,
			      div64_s64(t.sum, t.hits), t.max,
			      t.hits > 1 ? div64_s64(t.m2, t.hits - 1) : 0LL,
			      stp_probe_from[i], i);
		stp_transport_write(STP_MSG_OUT, line, n);
	}
	stp_transport_write(STP_MSG_OUT, tail, sizeof(tail) - 1);
}

#else /* !STP_TIMING */

static inline int stp_timing_alloc(void) { return 0; }
static inline void stp_timing_free(void) { }
static inline cycles_t stp_timing_start(void) { return 0; }
static inline void stp_timing_add(int index, cycles_t start) { }
static inline void stp_timing_report(void) { }

#endif /* STP_TIMING */
#endif /* STP_TIMING_H */
