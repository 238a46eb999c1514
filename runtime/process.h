/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: the process lifecycle probes, process[(PATH|PID)].begin,
 * .end, .thread.begin, .thread.end, .syscall, .syscall.return, on the
 * kernel's tracepoints:
 *
 *   sched_process_fork   a new process (.begin) or thread (.thread.begin):
 *                        its handler runs in the child's context, from a
 *                        task_work the child runs before its first user
 *                        instruction;
 *   sched_process_exec   the process now runs another program: .end for
 *                        the old one, .begin for the new one, in its own
 *                        context;
 *   sched_process_exit   .end (a process's first thread) or .thread.end;
 *   raw_syscalls         sys_enter (.syscall) and sys_exit (.syscall.return).
 *
 * When the script starts, every user thread already running gets a task_work
 * for .begin / .thread.begin (TWA_SIGNAL: a sleeping one is woken to run it,
 * its system call restarted).
 *
 * A program is matched by the inode of its executable (mm->exe_file), held
 * while the script runs. At exit the task has no mm any more, so the
 * executable of each thread an .end or .thread.end probe of a program may
 * want is remembered (stp_proc_tracked) from fork, exec or the start walk.
 *
 * A probe's handler gets the task's user registers (the system call's,
 * whose $syscall, $argN and $return tapsets/process_syscall.stp reads).
 *
 * Other families use the same machinery through clients (struct
 * stp_proc_client, stp_proc_clients_register): "run start() in each thread
 * of program P when it starts running it (fork, exec, or already running
 * when the script starts) and stop() when it stops (exit, exec of another
 * program)", both in the thread's own context, from a task_work, where they
 * may sleep (perf.h makes a perf event of each such thread). The sched
 * tracepoints are registered while either the process probes or some
 * client need them (stp_proc_get / stp_proc_put); raw_syscalls only while
 * a .syscall / .syscall.return probe is there.
 */
#ifndef STP_PROCESS_H
#define STP_PROCESS_H

#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/task_work.h>
#include <linux/namei.h>
#include <linux/hashtable.h>
#include <linux/slab.h>
#include <linux/delay.h>
#include <linux/mm_types.h>
#include <asm/syscall.h>
#include "kcompat.h"
#include "tracepoints.h"

/* Must match translator/probes/process.c's enum proc_event */
#define STP_PROC_BEGIN		0
#define STP_PROC_END		1
#define STP_PROC_THREAD_BEGIN	2
#define STP_PROC_THREAD_END	3
#define STP_PROC_SYSCALL	4
#define STP_PROC_SYSCALL_RETURN	5
#define STP_PROC_CLIENT		6	/* a work for the clients, not a probe event */

struct stp_proc_probe {
	int event;		/* STP_PROC_* */
	long pid;		/* that process only; 0: any */
	void (*handler)(struct pt_regs *regs);
	const char *path;	/* that executable only; NULL: any */
	struct inode *inode;	/* path's, held while registered */
};

/* A program's threads, followed for another family. start and stop run
 * in the thread (current), may sleep, and may be called again for a thread
 * (start: it runs the program, still or again; stop: it no longer does). */
struct stp_proc_client {
	const char *path;		/* the program */
	void (*start)(struct stp_proc_client *c);
	void (*stop)(struct stp_proc_client *c);
	struct inode *inode;		/* path's, held while registered */
};

/* A .begin / .thread.begin handler waiting to run in its task, or
 * (STP_PROC_CLIENT) the clients' start / stop for a task that went from
 * running old to running exe (either NULL: none). */
struct stp_proc_work {
	struct callback_head cb;
	struct list_head list;
	struct task_struct *task;	/* referenced */
	struct inode *exe, *old;
	int event;
};

/* A thread whose executable an .end / .thread.end probe of a program
 * may want at its exit. */
struct stp_proc_tracked {
	struct hlist_node node;
	pid_t tid;
	struct inode *exe;
};

static struct stp_proc_probe *stp_proc_t;
static int stp_proc_n;
static unsigned int stp_proc_events;	/* 1 << STP_PROC_* of the probes there are; 0 once stopped */
static struct stp_proc_client **stp_proc_c;
static int stp_proc_nc;
static bool stp_proc_clients_on;
static bool stp_proc_track;		/* some .end / .thread.end or client is a program's */
static bool stp_proc_stopping;		/* the last user is going: nothing runs any more */
static int stp_proc_users;		/* the process probes, the clients: 0, 1 or 2 */
static bool stp_proc_probes_in, stp_proc_clients_in;	/* each counted in stp_proc_users */
static bool stp_proc_syscalls;		/* raw_syscalls registered */
static DEFINE_SPINLOCK(stp_proc_lock);	/* the works' list and the tracked threads */
static LIST_HEAD(stp_proc_works);
static atomic_t stp_proc_pending = ATOMIC_INIT(0);
static DEFINE_HASHTABLE(stp_proc_tracked_tab, 8);
static stp_task_work_add_fn stp_proc_twa;
static stp_task_work_cancel_fn stp_proc_twc;

static void stp_proc_fork(void *data, struct task_struct *parent, struct task_struct *child);
static void stp_proc_exec(void *data, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm);
static void stp_proc_exit(void *data, struct task_struct *p);
static void stp_proc_sys_enter(void *data, struct pt_regs *regs, long id);
static void stp_proc_sys_exit(void *data, struct pt_regs *regs, long ret);

static struct stp_tracepoint stp_proc_tps[] = {
	{ .name = "sched_process_fork", .probe = (void *)stp_proc_fork, .pp = "sched_process_fork" },
	{ .name = "sched_process_exec", .probe = (void *)stp_proc_exec, .pp = "sched_process_exec" },
	{ .name = "sched_process_exit", .probe = (void *)stp_proc_exit, .pp = "sched_process_exit" },
	{ .name = "sys_enter", .probe = (void *)stp_proc_sys_enter, .pp = "raw_syscalls:sys_enter" },
	{ .name = "sys_exit", .probe = (void *)stp_proc_sys_exit, .pp = "raw_syscalls:sys_exit" },
};
#define STP_PROC_NSCHED 3	/* the first ones, for every user; then raw_syscalls */
#define STP_PROC_NTPS (sizeof(stp_proc_tps) / sizeof(stp_proc_tps[0]))

/* The inode of mm's executable (compared, never used: a probed one is
 * held), or NULL. */
static struct inode *stp_proc_mm_exe(struct mm_struct *mm)
{
	struct inode *ino = NULL;
	struct file *f;

	if (!mm)
		return NULL;
	rcu_read_lock();
	f = rcu_dereference(mm->exe_file);
	if (f)
		ino = file_inode(f);
	rcu_read_unlock();
	return ino;
}

/* A probe with neither program nor PID is every process's, or, with -c or
 * -x, the target's and its descendants' (as SystemTap). */
static bool stp_proc_matches(const struct stp_proc_probe *p, int event, struct task_struct *t,
			     struct inode *exe)
{
	if (p->event != event || (p->pid && p->pid != task_tgid_nr(t)) || (p->path && (!exe || exe != p->inode)))
		return false;
	if (!stp_is_myproc(t))	/* --privilege: the user's own processes only */
		return false;
	return p->pid || p->path || !stp_target || stp_proc_in_target(t);
}

static bool stp_proc_wanted(int event, struct task_struct *t, struct inode *exe)
{
	int i;

	if (!(READ_ONCE(stp_proc_events) & (1u << event)))
		return false;
	for (i = 0; i < stp_proc_n; i++)
		if (stp_proc_matches(&stp_proc_t[i], event, t, exe))
			return true;
	return false;
}

/* Run the handlers of event for current, whose executable is exe. */
static void stp_proc_fire(int event, struct inode *exe, struct pt_regs *regs)
{
	int i;

	if (stp_proc_stopping || !(READ_ONCE(stp_proc_events) & (1u << event)))
		return;
	for (i = 0; i < stp_proc_n; i++)
		if (stp_proc_matches(&stp_proc_t[i], event, current, exe))
			stp_proc_t[i].handler(regs);
}

/* ---- clients ------------------------------------------------------------ */

/* Does some client follow the threads running exe? */
static bool stp_proc_client_wanted(struct inode *exe)
{
	int i;

	if (!exe || !READ_ONCE(stp_proc_clients_on))
		return false;
	for (i = 0; i < stp_proc_nc; i++)
		if (stp_proc_c[i]->inode == exe)
			return true;
	return false;
}

/* current went from running old to running exe: the clients' stop and
 * start (a thread exiting starts nothing). */
static void stp_proc_clients_run(struct inode *old, struct inode *exe)
{
	int i;

	for (i = 0; i < stp_proc_nc && READ_ONCE(stp_proc_clients_on); i++) {
		struct stp_proc_client *c = stp_proc_c[i];

		if (!c->inode)
			continue;
		if (c->inode == exe && !(current->flags & PF_EXITING))
			c->start(c);
		else if (c->inode == old)
			c->stop(c);
	}
}

/* ---- the executables of threads, for their exit ------------------------- */

/* Would an .end / .thread.end probe of a program want a thread running exe? */
static bool stp_proc_track_wanted(struct inode *exe)
{
	int i;

	if (!stp_proc_track || !exe)
		return false;
	for (i = 0; i < stp_proc_n; i++)
		if ((stp_proc_t[i].event == STP_PROC_END || stp_proc_t[i].event == STP_PROC_THREAD_END) &&
		    stp_proc_t[i].inode == exe)
			return true;
	for (i = 0; i < stp_proc_nc; i++)
		if (stp_proc_c[i]->inode == exe)
			return true;
	return false;
}

/* Remember (exe) or forget (NULL) thread tid's executable. */
static void stp_proc_track_set(pid_t tid, struct inode *exe)
{
	struct stp_proc_tracked *e, *found = NULL;
	unsigned long flags;

	if (!stp_proc_track)
		return;
	if (!stp_proc_track_wanted(exe))
		exe = NULL;
	spin_lock_irqsave(&stp_proc_lock, flags);
	hash_for_each_possible(stp_proc_tracked_tab, e, node, tid)
		if (e->tid == tid)
			found = e;
	if (found && !exe) {
		hash_del(&found->node);
		kfree(found);
	} else if (found) {
		found->exe = exe;
	} else if (exe && (e = kmalloc(sizeof(*e), GFP_ATOMIC))) {
		e->tid = tid;
		e->exe = exe;
		hash_add(stp_proc_tracked_tab, &e->node, tid);
	}
	spin_unlock_irqrestore(&stp_proc_lock, flags);
}

static struct inode *stp_proc_track_get(pid_t tid)
{
	struct stp_proc_tracked *e;
	struct inode *exe = NULL;
	unsigned long flags;

	if (!stp_proc_track)
		return NULL;
	spin_lock_irqsave(&stp_proc_lock, flags);
	hash_for_each_possible(stp_proc_tracked_tab, e, node, tid)
		if (e->tid == tid)
			exe = e->exe;
	spin_unlock_irqrestore(&stp_proc_lock, flags);
	return exe;
}

/* ---- handlers run in another task -------------------------------------- */

static void stp_proc_work_run(struct callback_head *cb)
{
	struct stp_proc_work *w = container_of(cb, struct stp_proc_work, cb);
	unsigned long flags;
	int i;

	spin_lock_irqsave(&stp_proc_lock, flags);
	list_del(&w->list);
	spin_unlock_irqrestore(&stp_proc_lock, flags);
	/* a task the start walk woke may get here before the script runs */
	for (i = 0; atomic_read(&stp_state) == STP_STARTING && !stp_proc_stopping && i < 10000; i++)
		msleep(1);
	if (w->event == STP_PROC_CLIENT)
		stp_proc_clients_run(w->old, w->exe);
	else
		stp_proc_fire(w->event, w->exe, task_pt_regs(current));
	put_task_struct(w->task);
	kfree(w);
	atomic_dec(&stp_proc_pending);
}

/* Have t run event's handlers (STP_PROC_CLIENT: the clients' for a change
 * from old to exe) before it next returns to user space, or in its exit. */
static void stp_proc_defer(struct task_struct *t, int event, struct inode *old, struct inode *exe, bool wake)
{
	struct stp_proc_work *w = kmalloc(sizeof(*w), GFP_ATOMIC);
	unsigned long flags;

	if (!w)
		return;
	init_task_work(&w->cb, stp_proc_work_run);
	w->task = t;
	w->exe = exe;
	w->old = old;
	w->event = event;
	get_task_struct(t);
	atomic_inc(&stp_proc_pending);
	spin_lock_irqsave(&stp_proc_lock, flags);
	list_add(&w->list, &stp_proc_works);
	spin_unlock_irqrestore(&stp_proc_lock, flags);
	if (stp_proc_twa(t, &w->cb, wake ? STP_TWA_SIGNAL : STP_TWA_RESUME) == 0)
		return;
	/* the task is exiting */
	spin_lock_irqsave(&stp_proc_lock, flags);
	list_del(&w->list);
	spin_unlock_irqrestore(&stp_proc_lock, flags);
	put_task_struct(t);
	kfree(w);
	atomic_dec(&stp_proc_pending);
}

/* ---- the tracepoints ---------------------------------------------------- */

static void stp_proc_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	int event = child->pid == child->tgid ? STP_PROC_BEGIN : STP_PROC_THREAD_BEGIN;
	struct inode *exe;

	if ((child->flags & PF_KTHREAD) || !child->mm || stp_proc_stopping)
		return;
	exe = stp_proc_mm_exe(child->mm);	/* it has not run: its mm stays */
	stp_proc_track_set(child->pid, exe);
	if (stp_proc_wanted(event, child, exe))
		stp_proc_defer(child, event, NULL, exe, false);
	if (stp_proc_client_wanted(exe))
		stp_proc_defer(child, STP_PROC_CLIENT, NULL, exe, false);
}

static void stp_proc_exec(void *data, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	struct inode *old = stp_proc_track_get(old_pid), *exe = stp_proc_mm_exe(current->mm);

	if (stp_proc_stopping)
		return;
	if (old_pid != current->pid)	/* a thread exec'd: it took the leader's pid */
		stp_proc_track_set(old_pid, NULL);
	if (stp_proc_wanted(STP_PROC_END, current, old))
		stp_proc_fire(STP_PROC_END, old, task_pt_regs(current));
	stp_proc_track_set(current->pid, exe);
	stp_proc_fire(STP_PROC_BEGIN, exe, task_pt_regs(current));
	if (stp_proc_client_wanted(old) || stp_proc_client_wanted(exe))
		stp_proc_defer(current, STP_PROC_CLIENT, old, exe, false);
}

static void stp_proc_exit(void *data, struct task_struct *p)
{
	int event = p->pid == p->tgid ? STP_PROC_END : STP_PROC_THREAD_END;
	struct inode *exe;

	if ((p->flags & PF_KTHREAD) || stp_proc_stopping)
		return;
	exe = stp_proc_track_get(p->pid);
	stp_proc_track_set(p->pid, NULL);
	stp_proc_fire(event, exe, task_pt_regs(p));
	/* p is current: its task_works run later in do_exit */
	if (stp_proc_client_wanted(exe))
		stp_proc_defer(p, STP_PROC_CLIENT, exe, NULL, false);
}

static void stp_proc_sys_enter(void *data, struct pt_regs *regs, long id)
{
	if (current->mm)
		stp_proc_fire(STP_PROC_SYSCALL, stp_proc_mm_exe(current->mm), regs);
}

static void stp_proc_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	if (current->mm)
		stp_proc_fire(STP_PROC_SYSCALL_RETURN, stp_proc_mm_exe(current->mm), regs);
}

/* ---- $syscall, $argN, $return (tapsets/process_syscall.stp) ------------- */

/* The registers a system call's values are read from: a process.syscall
 * probe's are the task's user registers; a probe that interrupted the
 * kernel (a timer) has the kernel's, which are not the script's to read
 * (the functions are callable from any probe, --privilege=stapusr too). */
static __maybe_unused struct pt_regs *stp_proc_syscall_regs(struct stp_context *c)
{
	return c->regs && user_mode(c->regs) ? c->regs : NULL;
}

static __maybe_unused long stp_proc_syscall_nr(struct stp_context *c)
{
	struct pt_regs *regs = stp_proc_syscall_regs(c);

	return regs ? syscall_get_nr(current, regs) : -1;
}

static __maybe_unused long stp_proc_syscall_arg(struct stp_context *c, int i)
{
	struct pt_regs *regs = stp_proc_syscall_regs(c);
	unsigned long args[6];

	if (!regs)
		return 0;
	syscall_get_arguments(current, regs, args);
	return (long)args[i];
}

static __maybe_unused long stp_proc_syscall_return(struct stp_context *c)
{
	struct pt_regs *regs = stp_proc_syscall_regs(c);

	return regs ? syscall_get_return_value(current, regs) : 0;
}

/* ---- registration ------------------------------------------------------- */

/* A kernel function that is not exported, through the kprobes core's
 * lookup (deref.h); its entry, before the ENDBR64 that kprobes skip. */
static unsigned long stp_proc_lookup(const char *name)
{
	unsigned long a = stp_modsym_lookup(name);
	u32 insn;

	if (a > 4 && STP_READ_MEM(&insn, a - 4, 4) == 0 && insn == 0xfa1e0ff3)
		a -= 4;
	return a;
}

/* Every user thread already running runs its .begin / .thread.begin
 * (probes) or its clients' start (clients). */
static void stp_proc_walk(bool probes, bool clients)
{
	struct task_struct *g, *t;
	bool begins = probes && (stp_proc_events & ((1u << STP_PROC_BEGIN) | (1u << STP_PROC_THREAD_BEGIN)));

	rcu_read_lock();
	for_each_process_thread(g, t) {
		int event = thread_group_leader(t) ? STP_PROC_BEGIN : STP_PROC_THREAD_BEGIN;
		struct inode *exe;

		if (t->flags & (PF_KTHREAD | PF_EXITING))
			continue;
		task_lock(t);
		exe = stp_proc_mm_exe(t->mm);
		task_unlock(t);
		if (!exe)
			continue;
		stp_proc_track_set(t->pid, exe);
		if (begins && stp_proc_wanted(event, t, exe))
			stp_proc_defer(t, event, NULL, exe, true);
		if (clients && stp_proc_client_wanted(exe))
			stp_proc_defer(t, STP_PROC_CLIENT, NULL, exe, true);
	}
	rcu_read_unlock();
}

/* path's inode, held, or NULL: a program not there is no error
 * (SystemTap): its probes never fire. */
static struct inode *stp_proc_inode(const char *path)
{
	struct inode *ino;
	struct path p;

	if (!path || path[0] != '/' || kern_path(path, LOOKUP_FOLLOW, &p))
		return NULL;
	ino = igrab(d_inode(p.dentry));
	path_put(&p);
	return ino;
}

/* A user comes: the first one finds task_work and registers the sched
 * tracepoints. */
static int stp_proc_get(void)
{
	static const char *const cancel_names[] = STP_TASK_WORK_CANCEL_NAMES;
	unsigned int i;
	int rc;

	if (stp_proc_users++)
		return 0;
	stp_proc_twa = (stp_task_work_add_fn)stp_proc_lookup("task_work_add");
	for (i = 0; i < ARRAY_SIZE(cancel_names) && !stp_proc_twc; i++)
		stp_proc_twc = (stp_task_work_cancel_fn)stp_proc_lookup(cancel_names[i]);
	if (!stp_proc_twa || !stp_proc_twc) {
		stp_err("process probes: the kernel's task_work_add or task_work_cancel_func not found");
		return -ENOENT;
	}
	for (i = 0; i < STP_PROC_NTPS; i++)
		stp_proc_tps[i].tp = NULL;
	rc = stp_tracepoints_register(stp_proc_tps, STP_PROC_NSCHED);
	return rc;
}

/* A user goes: the last one unregisters the tracepoints and takes back or
 * waits for every work not run yet. */
static void stp_proc_put(void)
{
	struct stp_proc_tracked *e;
	struct hlist_node *tmp;
	unsigned long flags;
	int bkt, waited;

	if (--stp_proc_users)
		return;
	stp_proc_stopping = true;
	stp_tracepoints_unregister(stp_proc_tps, STP_PROC_NSCHED);
	/* the handlers not run yet: take them back from their tasks */
	for (;;) {
		struct stp_proc_work *w;
		struct task_struct *task = NULL;
		struct callback_head *cb;

		spin_lock_irqsave(&stp_proc_lock, flags);
		w = list_first_entry_or_null(&stp_proc_works, struct stp_proc_work, list);
		if (w) {
			task = w->task;
			get_task_struct(task);
		}
		spin_unlock_irqrestore(&stp_proc_lock, flags);
		if (!task)
			break;
		cb = stp_proc_twc(task, stp_proc_work_run);
		if (cb) {	/* taken back (one of this task's): ours to drop */
			w = container_of(cb, struct stp_proc_work, cb);
			spin_lock_irqsave(&stp_proc_lock, flags);
			list_del(&w->list);
			spin_unlock_irqrestore(&stp_proc_lock, flags);
			put_task_struct(w->task);
			kfree(w);
			atomic_dec(&stp_proc_pending);
		} else {	/* running now: it takes itself off the list */
			msleep(1);
		}
		put_task_struct(task);
	}
	for (waited = 0; atomic_read(&stp_proc_pending) && waited < 5000; waited++)
		msleep(1);
	msleep(10);	/* the last work's return into this module */
	spin_lock_irqsave(&stp_proc_lock, flags);
	hash_for_each_safe(stp_proc_tracked_tab, bkt, tmp, e, node) {
		hash_del(&e->node);
		kfree(e);
	}
	spin_unlock_irqrestore(&stp_proc_lock, flags);
}

static __maybe_unused int stp_procs_register(struct stp_proc_probe *t, int n)
{
	unsigned int i, events = 0;
	int rc;

	stp_proc_t = t;
	stp_proc_n = n;
	for (i = 0; i < n; i++) {
		events |= 1u << t[i].event;
		if (!t[i].path)
			continue;
		if (!(t[i].inode = stp_proc_inode(t[i].path))) {
			t[i].event = -1;
			continue;
		}
		if (t[i].event == STP_PROC_END || t[i].event == STP_PROC_THREAD_END)
			stp_proc_track = true;
	}
	stp_proc_probes_in = true;
	rc = stp_proc_get();
	if (rc)
		return rc;
	WRITE_ONCE(stp_proc_events, events);
	if (events & ((1u << STP_PROC_SYSCALL) | (1u << STP_PROC_SYSCALL_RETURN))) {
		rc = stp_tracepoints_register(stp_proc_tps + STP_PROC_NSCHED, STP_PROC_NTPS - STP_PROC_NSCHED);
		if (rc)
			return rc;
		stp_proc_syscalls = true;
	}
	stp_proc_walk(true, false);
	return 0;
}

static __maybe_unused void stp_procs_unregister(struct stp_proc_probe *t, int n)
{
	int i;

	WRITE_ONCE(stp_proc_events, 0);
	if (stp_proc_syscalls)
		stp_tracepoints_unregister(stp_proc_tps + STP_PROC_NSCHED, STP_PROC_NTPS - STP_PROC_NSCHED);
	stp_proc_syscalls = false;
	if (stp_proc_probes_in)
		stp_proc_put();
	stp_proc_probes_in = false;
	for (i = 0; i < n; i++)
		if (t[i].inode) {
			iput(t[i].inode);
			t[i].inode = NULL;
		}
}

/* Follow the threads of each client's program from now on, those already
 * running too. */
static __maybe_unused int stp_proc_clients_register(struct stp_proc_client **c, int n)
{
	int i, rc;

	for (i = 0; i < n; i++)
		c[i]->inode = stp_proc_inode(c[i]->path);
	stp_proc_c = c;
	stp_proc_nc = n;
	stp_proc_track = true;
	stp_proc_clients_in = true;
	rc = stp_proc_get();
	if (rc)
		return rc;
	WRITE_ONCE(stp_proc_clients_on, true);
	stp_proc_walk(false, true);
	return 0;
}

/* No start or stop begins after this; the last user of process.h waits
 * for those running. */
static __maybe_unused void stp_proc_clients_unregister(struct stp_proc_client **c, int n)
{
	int i;

	WRITE_ONCE(stp_proc_clients_on, false);
	if (stp_proc_clients_in)
		stp_proc_put();
	stp_proc_clients_in = false;
	for (i = 0; i < n; i++)
		if (c[i]->inode) {
			iput(c[i]->inode);
			c[i]->inode = NULL;
		}
}

#endif /* STP_PROCESS_H */
