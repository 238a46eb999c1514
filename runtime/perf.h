/* perf.h - perf.type(T).config(C) probes: sampling perf events.
 *
 * Every perf probe owns one struct stp_perf: one kernel perf event per
 * online CPU (perf_event_create_kernel_counter), whose overflow handler runs
 * the generated handler with the interrupted registers. A hardware event's
 * overflow comes in NMI context, a software one (cpu_clock ...) from an
 * hrtimer or the event's own path; the handler takes this CPU's context as
 * any other probe's does. CPUs coming online later are not covered.
 */
#ifndef _STP_PERF_H_
#define _STP_PERF_H_

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/namei.h>
#include <linux/sched/task.h>
#include <linux/spinlock.h>
#include <linux/mm_types.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include "process.h"

struct stp_perf {
	struct perf_event_attr attr;
	void (*handler)(struct pt_regs *regs);
	struct perf_event **events;	/* one per possible CPU, NULL where none */
};

static __maybe_unused void stp_perf_overflow(struct perf_event *e, struct perf_sample_data *data,
					     struct pt_regs *regs)
{
	struct stp_perf *p = e->overflow_handler_context;

	p->handler(regs);
}

static __maybe_unused void stp_perf_stop(struct stp_perf *p)
{
	unsigned int cpu;

	if (!p->events)
		return;
	for_each_possible_cpu(cpu)
		if (p->events[cpu])
			perf_event_release_kernel(p->events[cpu]);
	kfree(p->events);
	p->events = NULL;
}

/* 0, or the error of the first CPU whose event could not be made (a
 * hardware counter the machine lacks: -ENOENT, -EOPNOTSUPP). */
static __maybe_unused int stp_perf_start(struct stp_perf *p, const char *pp)
{
	unsigned int cpu;

	p->attr.size = sizeof(p->attr);
	p->attr.pinned = 1;
	p->events = kcalloc(nr_cpu_ids, sizeof(*p->events), GFP_KERNEL);
	if (!p->events)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		struct perf_event *e = perf_event_create_kernel_counter(&p->attr, cpu, NULL,
									stp_perf_overflow, p);
		if (IS_ERR(e)) {
			stp_err("perf probe %s: no such event on cpu %u (error %ld)", pp, cpu, PTR_ERR(e));
			stp_perf_stop(p);
			return (int)PTR_ERR(e);
		}
		p->events[cpu] = e;
	}
	return 0;
}

/*
 * Sampling probes of a program: perf.type(T).config(C)[.sample(N) | .hz(N)]
 * .process("P"). Each thread of P gets an event of its own, counting only
 * while that thread runs (perf_event_create_kernel_counter(attr, -1,
 * task, ...)), made in the thread when it starts running P (fork, exec,
 * or already running when the script starts) and released when it exits
 * or execs another program: process.h's clients call start and stop in
 * the thread, where they may sleep. A table of STP_PERF_THREADS slots
 * (thread, probe) bounds them; a thread without a free slot is not
 * sampled (one warning). The overflow handler is stp_perf_overflow's.
 */
struct stp_perf_proc {
	struct stp_perf perf;		/* attr and handler; its events unused */
	struct stp_proc_client client;	/* client.path: the program */
	const char *pp;
	bool failed;			/* an event could not be made: warned */
};

#define STP_PERF_THREADS 1024

struct stp_perf_thread {
	struct task_struct *task;	/* referenced; NULL: free slot */
	struct stp_perf_proc *probe;
	struct perf_event *ev;
};

static struct stp_perf_thread stp_perf_threads[STP_PERF_THREADS];
static DEFINE_MUTEX(stp_perf_threads_lock);	/* the slots; start/stop against the end */
static bool stp_perf_threads_stopping, stp_perf_threads_full;
static struct stp_proc_client **stp_perf_clients;	/* each probe's, for process.h */
static int stp_perf_nclients;	/* registered with process.h: how many */

/* current runs the probe's program: its event, if it has none yet. */
static void stp_perf_thread_start(struct stp_proc_client *c)
{
	struct stp_perf_proc *p = container_of(c, struct stp_perf_proc, client);
	struct stp_perf_thread *free = NULL;
	struct perf_event *e;
	int i;

	mutex_lock(&stp_perf_threads_lock);
	if (stp_perf_threads_stopping)
		goto out;
	for (i = 0; i < STP_PERF_THREADS; i++) {
		struct stp_perf_thread *t = &stp_perf_threads[i];
		if (t->task == current && t->probe == p)
			goto out;
		if (!t->task && !free)
			free = t;
	}
	if (!free) {
		if (!stp_perf_threads_full)
			stp_warn("perf probe %s: more than %d threads, thread %d not sampled", p->pp,
				 STP_PERF_THREADS, task_pid_nr(current));
		stp_perf_threads_full = true;
		goto out;
	}
	e = perf_event_create_kernel_counter(&p->perf.attr, -1, current, stp_perf_overflow, &p->perf);
	if (IS_ERR(e)) {
		if (!p->failed)
			stp_warn("perf probe %s: no event for thread %d (error %ld)", p->pp, task_pid_nr(current),
				 PTR_ERR(e));
		p->failed = true;
		goto out;
	}
	get_task_struct(current);
	free->task = current;
	free->probe = p;
	free->ev = e;
out:
	mutex_unlock(&stp_perf_threads_lock);
}

static void stp_perf_thread_clear(struct stp_perf_thread *t)
{
	perf_event_release_kernel(t->ev);
	put_task_struct(t->task);
	t->task = NULL;
	t->probe = NULL;
	t->ev = NULL;
}

/* current exits or no longer runs the program: its event goes. */
static void stp_perf_thread_stop(struct stp_proc_client *c)
{
	struct stp_perf_proc *p = container_of(c, struct stp_perf_proc, client);
	int i;

	mutex_lock(&stp_perf_threads_lock);
	for (i = 0; i < STP_PERF_THREADS; i++)
		if (stp_perf_threads[i].task == current && stp_perf_threads[i].probe == p)
			stp_perf_thread_clear(&stp_perf_threads[i]);
	mutex_unlock(&stp_perf_threads_lock);
}

static __maybe_unused void stp_perf_procs_stop(struct stp_perf_proc *p, int n)
{
	int i;

	if (stp_perf_nclients)
		stp_proc_clients_unregister(stp_perf_clients, stp_perf_nclients);
	kfree(stp_perf_clients);
	stp_perf_clients = NULL;
	mutex_lock(&stp_perf_threads_lock);
	stp_perf_threads_stopping = true;
	for (i = 0; i < STP_PERF_THREADS; i++)
		if (stp_perf_threads[i].task)
			stp_perf_thread_clear(&stp_perf_threads[i]);
	mutex_unlock(&stp_perf_threads_lock);
}

/* 0, or the error of an event the kernel cannot make (tried on current,
 * stapio: a hardware counter the machine lacks). */
static __maybe_unused int stp_perf_procs_start(struct stp_perf_proc *p, int n)
{
	int i;

	stp_perf_clients = kcalloc(n, sizeof(*stp_perf_clients), GFP_KERNEL);
	if (!stp_perf_clients)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct perf_event *e;

		p[i].perf.attr.size = sizeof(p[i].perf.attr);
		p[i].client.start = stp_perf_thread_start;
		p[i].client.stop = stp_perf_thread_stop;
		e = perf_event_create_kernel_counter(&p[i].perf.attr, -1, current, NULL, NULL);
		if (IS_ERR(e)) {
			stp_err("perf probe %s: no such event (error %ld)", p[i].pp, PTR_ERR(e));
			return (int)PTR_ERR(e);
		}
		perf_event_release_kernel(e);
		stp_perf_clients[i] = &p[i].client;
	}
	stp_perf_nclients = n;
	return stp_proc_clients_register(stp_perf_clients, n);
}

/*
 * Counters: perf.type(T).config(C)[.process("P")].counter("NAME"), read by
 * @perf("NAME") in process probes. Each thread a process probe hits (of
 * program P only, if given) gets a counting event of its own at its first
 * hit, attached to it; every hit then reads its counters before the
 * probe's handler runs (uprobes.h: the uprobe callbacks run in the task's
 * context and may sleep, which creating and reading an event needs; the
 * handler may not), and @perf gives the value read. A thread's events are
 * released when the script ends, or when its slot is needed by another
 * thread after it exited. Without a free slot a thread's counters read 0.
 */
struct stp_perf_counter {
	u32 type;
	u64 config;
	const char *path;	/* counts in that program's threads only; NULL: any */
	struct inode *inode;	/* path's, held while the script runs */
};

#define STP_PERF_TASKS 64

struct stp_perf_task {
	struct task_struct *task;	/* referenced; NULL: free slot */
	struct perf_event **ev;		/* one per counter, NULL: none (yet) */
	u64 *val;			/* each counter's value at the last hit */
	bool *tried;			/* made or found not to apply */
};

static struct stp_perf_counter *stp_perf_ctrs;
static int stp_perf_nctr;
static struct stp_perf_task stp_perf_tasks[STP_PERF_TASKS];
static DEFINE_SPINLOCK(stp_perf_tasks_lock);

/* Release a slot's events and forget its values. */
static void stp_perf_task_clear(struct stp_perf_task *t)
{
	int k;

	for (k = 0; k < stp_perf_nctr; k++)
		if (t->ev[k])
			perf_event_release_kernel(t->ev[k]);
	memset(t->ev, 0, stp_perf_nctr * sizeof(*t->ev));
	memset(t->val, 0, stp_perf_nctr * sizeof(*t->val));
	memset(t->tried, 0, stp_perf_nctr * sizeof(*t->tried));
}

/* The current thread's slot, taken (or one of an exited thread's reused)
 * if it has none; NULL if all are busy. Process context. */
static __maybe_unused struct stp_perf_task *stp_perf_task_get(void)
{
	struct stp_perf_task *t = NULL, *dead = NULL;
	struct task_struct *old = NULL;
	int i;

	spin_lock(&stp_perf_tasks_lock);
	for (i = 0; i < STP_PERF_TASKS; i++) {
		struct task_struct *o = stp_perf_tasks[i].task;
		if (o == current) {
			spin_unlock(&stp_perf_tasks_lock);
			return &stp_perf_tasks[i];
		}
		if (!o && !t)
			t = &stp_perf_tasks[i];
		if (o && o->exit_state && !dead)
			dead = &stp_perf_tasks[i];
	}
	if (!t && dead) {
		t = dead;
		old = t->task;
	}
	if (t) {
		t->task = current;
		get_task_struct(current);
	}
	spin_unlock(&stp_perf_tasks_lock);
	if (old) {	/* the exited thread's events go, outside the lock */
		stp_perf_task_clear(t);
		put_task_struct(old);
	}
	return t;
}

/* Does counter k count in the current thread? */
static bool stp_perf_counter_applies(const struct stp_perf_counter *c)
{
	struct file *f;
	bool ok;

	if (!c->path)
		return true;
	if (!c->inode || !current->mm)
		return false;
	rcu_read_lock();
	f = rcu_dereference(current->mm->exe_file);
	ok = f && file_inode(f) == c->inode;
	rcu_read_unlock();
	return ok;
}

/* A process probe is hit in the current thread (process context, may
 * sleep): its counters, made at the first hit, are read. */
static __maybe_unused void stp_perf_counters_update(void)
{
	struct stp_perf_task *t;
	u64 enabled, running;
	int k;

	if (!stp_perf_nctr)
		return;
	for (k = 0; k < stp_perf_nctr && !stp_perf_counter_applies(&stp_perf_ctrs[k]); k++)
		;
	if (k == stp_perf_nctr || !(t = stp_perf_task_get()))
		return;	/* no counter counts in this thread: it takes no slot */
	for (k = 0; k < stp_perf_nctr; k++) {
		if (!t->tried[k]) {
			t->tried[k] = true;
			if (stp_perf_counter_applies(&stp_perf_ctrs[k])) {
				struct perf_event_attr attr = {
					.type = stp_perf_ctrs[k].type,
					.config = stp_perf_ctrs[k].config,
					.size = sizeof(attr),
				};
				struct perf_event *e = perf_event_create_kernel_counter(&attr, -1, current,
											NULL, NULL);
				t->ev[k] = IS_ERR(e) ? NULL : e;
			}
		}
		if (t->ev[k])
			t->val[k] = perf_event_read_value(t->ev[k], &enabled, &running);
	}
}

/* @perf(k): counter k of the current thread when the probe hit, or 0. */
static __maybe_unused int64_t stp_perf_counter_value(int k)
{
	int64_t v = 0;
	int i;

	for (i = 0; i < STP_PERF_TASKS; i++)
		if (READ_ONCE(stp_perf_tasks[i].task) == current) {
			v = stp_perf_tasks[i].val[k];
			break;
		}
	return v;
}

static __maybe_unused void stp_perf_counters_stop(void)
{
	int i;

	for (i = 0; i < STP_PERF_TASKS; i++) {
		if (stp_perf_tasks[i].task) {
			stp_perf_task_clear(&stp_perf_tasks[i]);
			put_task_struct(stp_perf_tasks[i].task);
			stp_perf_tasks[i].task = NULL;
		}
		kfree(stp_perf_tasks[i].ev);
		stp_perf_tasks[i].ev = NULL;
	}
	for (i = 0; i < stp_perf_nctr; i++)
		if (stp_perf_ctrs[i].inode)
			iput(stp_perf_ctrs[i].inode);
	stp_perf_nctr = 0;
}

static __maybe_unused int stp_perf_counters_start(struct stp_perf_counter *c, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct path path;
		if (c[i].path && !kern_path(c[i].path, LOOKUP_FOLLOW, &path)) {
			c[i].inode = igrab(d_inode(path.dentry));
			path_put(&path);
		}
	}
	/* one block per slot: events, values, tried flags */
	for (i = 0; i < STP_PERF_TASKS; i++) {
		char *b = kzalloc(n * (sizeof(struct perf_event *) + sizeof(u64) + sizeof(bool)),
				  GFP_KERNEL);
		if (!b) {
			stp_perf_nctr = n;
			stp_perf_ctrs = c;
			stp_perf_counters_stop();
			return -ENOMEM;
		}
		stp_perf_tasks[i].ev = (struct perf_event **)b;
		stp_perf_tasks[i].val = (u64 *)(b + n * sizeof(struct perf_event *));
		stp_perf_tasks[i].tried = (bool *)(b + n * (sizeof(struct perf_event *) + sizeof(u64)));
	}
	stp_perf_ctrs = c;
	stp_perf_nctr = n;
	return 0;
}

#endif /* _STP_PERF_H_ */
