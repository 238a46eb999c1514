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
#include "config.h"
#include "run_state.h"

/* Read-lock l, or count a skipped probe and return false. */
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

#endif /* STP_LOCK_H */
