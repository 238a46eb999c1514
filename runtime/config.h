/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: compile-time limits. The generated module (or stap -D) may
 * define any of these before including runtime.h; everything else gets the
 * defaults below (doc/runtime-api.md, "Configuration").
 */
#ifndef STP_CONFIG_H
#define STP_CONFIG_H

#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 512
#endif
#ifndef MAXMAPENTRIES
#define MAXMAPENTRIES 2048
#endif
#ifndef MAXACTION
#define MAXACTION 1000
#endif
/*
 * How many statements one probe hit may run. SystemTap 4.8 runs its
 * handlers with interrupts on (its INTERRUPTIBLE) and so allows them
 * MAXACTION_INTERRUPTIBLE; MAXACTION applies where they run with interrupts
 * off (STP_IRQOFF_HANDLERS). begin, end and error probes always get
 * MAXACTION_INTERRUPTIBLE.
 */
#ifndef MAXACTION_INTERRUPTIBLE
#define MAXACTION_INTERRUPTIBLE (MAXACTION * 10)
#endif
#ifdef STP_IRQOFF_HANDLERS
#define STP_MAXACTION MAXACTION
#else
#define STP_MAXACTION MAXACTION_INTERRUPTIBLE
#endif
#ifndef MAXNESTING
#define MAXNESTING 10
#endif
#ifndef MAXTRYLOCK
#define MAXTRYLOCK 100		/* rounds of TRYLOCKDELAY us */
#endif
#ifndef TRYLOCKDELAY
#define TRYLOCKDELAY 10		/* us between lock tries: a global lock waits up to 1 ms */
#endif

#ifndef MAXERRORS
#define MAXERRORS 0
#endif
#ifndef MAXSKIPPED
#define MAXSKIPPED 100
#endif
/*
 * Overload guard (SystemTap's): when the probe handlers on one CPU use more
 * than STP_OVERLOAD_THRESHOLD of STP_OVERLOAD_INTERVAL cycles, the script
 * stops with an error. -DSTP_NO_OVERLOAD turns it off.
 */
#if !defined(STP_NO_OVERLOAD) && !defined(STP_OVERLOAD)
#define STP_OVERLOAD
#endif
#ifndef STP_OVERLOAD_INTERVAL
#define STP_OVERLOAD_INTERVAL 1000000000LL
#endif
#ifndef STP_OVERLOAD_THRESHOLD
#define STP_OVERLOAD_THRESHOLD 500000000LL
#endif

#ifndef STP_BUFFER_SIZE
#define STP_BUFFER_SIZE (1 << 20)	/* output ring, bytes; staprun -s N: N MiB */
#endif
#ifndef STP_PRINT_BUF_SIZE
#define STP_PRINT_BUF_SIZE 8192		/* per-context print buffer, bytes */
#endif


#endif /* STP_CONFIG_H */
