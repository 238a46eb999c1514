/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: the module's run state (starting, running, stopping ...)
 * and the error/skip counters that decide when a run stops
 * (doc/runtime-api.md, "Run state", "Exit and errors").
 */
#ifndef STP_RUN_STATE_H
#define STP_RUN_STATE_H

#include <linux/atomic.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include "config.h"
#include "ctl_proto.h"	/* STP_EXIT_STATUS_SET */

enum stp_state {
	STP_STARTING,	/* begin probes run */
	STP_RUNNING,	/* normal probes run */
	STP_STOPPING,	/* exit() or STOP: end probes run */
	STP_ERROR,	/* too many errors: error probes run */
	STP_STOPPED,	/* nothing runs any more */
};

#include "probe_kind.h"	/* enum stp_probe_kind: STP_PK_* */

static atomic_t stp_state = ATOMIC_INIT(STP_STARTING);
static atomic_t stp_error_count = ATOMIC_INIT(0);
static atomic_t stp_suppressed_count = ATOMIC_INIT(0);	/* of them, suppressed */
static atomic_t stp_skipped_count = ATOMIC_INIT(0);
static atomic_t stp_skip_reported = ATOMIC_INIT(0);
static atomic_t stp_exit_status = ATOMIC_INIT(0);	/* DONE's exit_status */
static int stp_target;		/* target(): pid of -c command or -x PID */
static int stp_stapio_pid;	/* stp_pid(): the stapio that started the script */
static uid_t stp_stapio_uid;	/* is_myproc(): the user it runs as */

/*
 * Why the script's globals could not be allocated at load, or NULL. The
 * module loads anyway and START reports it (as SystemTap, which allocates
 * them at start): "ERROR: global variable '__global_a' allocation failed".
 */
static const char *stp_init_error;

/* Note an allocation failure of stp_script_init; returns -ENOMEM. */
static __maybe_unused int stp_init_fail(const char *why)
{
	stp_init_error = why;
	return -ENOMEM;
}

/*
 * stap --remote: this host's index among the hosts and its URL, which
 * staprun -r N:URI passes (remote_id(), remote_uri()); -1 and "" otherwise.
 */
#include <linux/moduleparam.h>
static int stp_remote_id = -1;
module_param_named(_stp_remote_id, stp_remote_id, int, 0444);
static char *stp_remote_uri = "";
module_param_named(_stp_remote_uri, stp_remote_uri, charp, 0444);

/*
 * A module built with --privilege=stapusr or stapsys (STP_PRIVILEGE_USR) is
 * loaded by staprun for a user of those groups, whose uid staprun passes as
 * _stp_uid: its process probes fire only in that user's processes, and its
 * functions that read a process's memory only run in them (stp_is_myproc).
 */
#ifdef STP_PRIVILEGE_USR
#include <linux/moduleparam.h>
#include <linux/cred.h>
static unsigned int stp_user_uid = (unsigned int)-1;	/* nobody, until staprun says */
module_param_named(_stp_uid, stp_user_uid, uint, 0444);	/* staprun -A/-d read it */

static __maybe_unused bool stp_is_myproc(struct task_struct *t)
{
	return from_kuid(&init_user_ns, task_euid(t)) == stp_user_uid &&
	       from_kuid(&init_user_ns, task_uid(t)) == stp_user_uid;
}
#else
static inline __maybe_unused bool stp_is_myproc(struct task_struct *t)
{
	return true;
}
#endif

/* Is t the -c/-x target process or a descendant of it? Process probes
 * that name no program see only those, as SystemTap's. */
static __maybe_unused bool stp_proc_in_target(struct task_struct *t)
{
	bool in = false;

	rcu_read_lock();
	for (; t && t->pid && !in; t = rcu_dereference(t->real_parent))
		in = task_tgid_nr(t) == stp_target;
	rcu_read_unlock();
	return in;
}

/* defined in transport.h / print.h, both included by runtime.h */
static void stp_transport_send_exit(void);
static void stp_err(const char *fmt, ...) __printf(1, 2);

/*
 * Move from any of the states in 'from_mask' (bits 1 << state) to 'to';
 * returns true if this call made the transition. Lock-free because
 * probes call it from any context.
 */
static __maybe_unused bool stp_state_move(unsigned int from_mask, int to)
{
	int old;

	for (;;) {
		old = atomic_read(&stp_state);
		if (!(from_mask & (1u << old)))
			return false;
		if (atomic_cmpxchg(&stp_state, old, to) == old)
			return true;
	}
}

/* exit(): stop after the current probe; stapio answers EXIT with STOP. */
static __maybe_unused void stp_request_exit(void)
{
	stp_state_move((1u << STP_STARTING) | (1u << STP_RUNNING), STP_STOPPING);
	stp_transport_send_exit();
}

/*
 * exit_status(n): the status stapio exits with at the end, unless run-time
 * errors make it 1; the last call wins. Like exit(3), only the low 8 bits
 * count. The session goes on: exit() ends it.
 */
static __maybe_unused void stp_set_exit_status(int64_t n)
{
	atomic_set(&stp_exit_status, STP_EXIT_STATUS_SET | (int)(n & 0xff));
}

/*
 * One more run-time error. Past MAXERRORS the run goes to ERROR (so
 * later begin/end/normal probes no longer run) and asks stapio to stop.
 */
static __maybe_unused void stp_count_error(void)
{
	if (atomic_inc_return(&stp_error_count) <= MAXERRORS)
		return;
	stp_state_move((1u << STP_STARTING) | (1u << STP_RUNNING) |
		       (1u << STP_STOPPING), STP_ERROR);
	stp_transport_send_exit();
}

/* A probe did not run (reentrancy, lock contention); too many is an error. */
static __maybe_unused void stp_count_skipped(void)
{
	if (atomic_inc_return(&stp_skipped_count) <= MAXSKIPPED)
		return;
	if (atomic_xchg(&stp_skip_reported, 1) == 0)
		stp_err("Skipped too many probes, check MAXSKIPPED or try again with stap -t for more details.");
}

#endif /* STP_RUN_STATE_H */
