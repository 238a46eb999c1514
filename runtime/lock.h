/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: locks of script globals. Probe handlers must never spin
 * forever (a handler may interrupt the lock holder on its own CPU), so they
 * try MAXTRYLOCK times TRYLOCKDELAY us apart, then give up and the probe is
 * counted as skipped.
 */
#ifndef STP_LOCK_H
#define STP_LOCK_H

#include <linux/spinlock.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/cpumask.h>
#include <linux/cache.h>
#include <linux/atomic.h>
#include "config.h"
#include "run_state.h"

/* Read-lock l, or return false (the handler counts the skipped probe). */
static inline bool stp_trylock_read(rwlock_t *l)
{
	int i;

	for (i = 0; i < MAXTRYLOCK; i++) {
		if (read_trylock(l))
			return true;
		udelay(TRYLOCKDELAY);
	}
	return false;
}

/* Write-lock l, or return false (the handler counts the skipped probe). */
static inline bool stp_trylock_write(rwlock_t *l)
{
	int i;

	for (i = 0; i < MAXTRYLOCK; i++) {
		if (write_trylock(l))
			return true;
		udelay(TRYLOCKDELAY);
	}
	return false;
}

static inline void stp_unlock_read(rwlock_t *l)
{
	read_unlock(l);
}

static inline void stp_unlock_write(rwlock_t *l)
{
	write_unlock(l);
}

/*
 * Per-CPU locks of an aggregate (stat.h). `<<<` adds to its own CPU's
 * record only, so it takes only its own CPU's lock: a cache line no other
 * CPU touches unless it reads the aggregate, and never held by another
 * handler on this CPU (handlers on one CPU do not overlap: context.h).
 * A probe that reads, merges or deletes takes every CPU's lock, in CPU
 * order. Adders on different CPUs thus share nothing.
 */
struct stp_cpulock {
	atomic_t held;
} ____cacheline_aligned_in_smp;

/* nr_cpu_ids locks, all free; NULL if memory is short. Process context. */
static inline struct stp_cpulock *stp_cpulocks_new(void)
{
	return kcalloc(nr_cpu_ids, sizeof(struct stp_cpulock), GFP_KERNEL);
}

static inline bool stp_cpulock_try(struct stp_cpulock *l)
{
	int i;

	for (i = 0; i < MAXTRYLOCK; i++) {
		/* read first: no cmpxchg while a reader holds it */
		if (!atomic_read(&l->held) &&
		    atomic_cmpxchg_acquire(&l->held, 0, 1) == 0)
			return true;
		udelay(TRYLOCKDELAY);
	}
	return false;
}

static inline void stp_cpulock_release(struct stp_cpulock *l)
{
	atomic_set_release(&l->held, 0);
}

/* This CPU's lock (preemption is off in a handler), or false. */
static inline bool stp_trylock_cpu(struct stp_cpulock *locks)
{
	return stp_cpulock_try(&locks[smp_processor_id()]);
}

static inline void stp_unlock_cpu(struct stp_cpulock *locks)
{
	stp_cpulock_release(&locks[smp_processor_id()]);
}

static inline void stp_unlock_all(struct stp_cpulock *locks)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		stp_cpulock_release(&locks[cpu]);
}

/* Every CPU's lock in CPU order, or none and false. */
static inline bool stp_trylock_all(struct stp_cpulock *locks)
{
	unsigned int cpu, undo;

	for_each_possible_cpu(cpu) {
		if (stp_cpulock_try(&locks[cpu]))
			continue;
		for_each_possible_cpu(undo) {
			if (undo == cpu)
				break;
			stp_cpulock_release(&locks[undo]);
		}
		return false;
	}
	return true;
}

#endif /* STP_LOCK_H */
