/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: per-CPU probe contexts. A probe handler takes its CPU's
 * context for the duration of the body (frames for locals, print buffer,
 * error state) with preemption disabled, so no two handlers share one. A
 * probe that interrupts another's handler on the same CPU (a timer, say)
 * finds the context busy and is skipped (counted). A module with probes on
 * interrupt handlers (STP_IRQOFF_HANDLERS) runs every handler with
 * interrupts off instead, as SystemTap does: an interrupt arriving during a
 * handler waits for it, and its probes run rather than being skipped.
 */
#ifndef STP_CONTEXT_H
#define STP_CONTEXT_H

#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/smp.h>
#include <linux/preempt.h>
#include <linux/cpumask.h>
#include "config.h"
#include "run_state.h"

struct pt_regs;

/* A netfilter probe's hook arguments, and the verdict it leaves (netfilter.h) */
struct stp_nf_args {
	unsigned int hooknum;
	unsigned int verdict;		/* NF_ACCEPT unless the probe sets it (-g) */
	void *skb;			/* struct sk_buff * */
	void *in, *out;			/* struct net_device *, or NULL */
};

struct stp_probe {		/* one per probe body, const, generated */
	const char *pp;		/* probe point as printed by pp() */
	const char *pos;	/* "x.stp:3:1" */
	int kind;		/* STP_PK_* */
	int index;
	const char *type;	/* probe_type(): "kprobe", "hrtimer" ... */
	const char *pn;		/* pn(): the alias as reached; NULL: as pp */
};

#include "timing.h"		/* -t; its report needs struct stp_probe */

struct stp_context {
	atomic_t busy;			/* reentrancy guard */
	const struct stp_probe *probe;
	const char *last_error;		/* NULL = no error */
	const char *last_stmt;		/* "operator '/' at x.stp:1:60" */
	char error_buf[MAXSTRINGLEN];	/* for formatted errors */
	long actions;			/* MAXACTION counter */
	int nesting;			/* function call depth, frame index */
	struct pt_regs *regs;		/* kprobe/timer regs or NULL */
	unsigned long ubias;		/* process probes: where the probed file is
					 * loaded (run-time minus link-time address) */
	unsigned long irq_flags;	/* STP_IRQOFF_HANDLERS: as saved on entry */
	bool switch_file;		/* switch_file(): after this probe's output */
	int regparm;			/* regargs.stp: 0 default, else 0x100 | n */
	void *entry_data;		/* .return probes: values saved at entry */
	char *procfs_buf;		/* procfs probes: $value's buffer (procfs.h) */
	size_t procfs_size;		/* its bytes, the final NUL's included */
	struct stp_nf_args *nf;		/* netfilter probes: $hooknum ... $verdict, else NULL */
	char *frames;			/* (MAXNESTING + 2) * STP_FRAME_SIZE bytes:
					 * a call writes its arguments one frame
					 * deeper, before the callee checks the
					 * depth */
	char *pbuf;			/* STP_PRINT_BUF_SIZE bytes */
	size_t plen;
	cycles_t t_start;		/* -t: when the body started */
#ifdef STP_OVERLOAD
	cycles_t ovl_enter;		/* when this body started */
	cycles_t ovl_window;		/* start of the current interval, 0: none yet */
	u64 ovl_used;			/* handler cycles in it on this CPU */
#endif
};

/* Set the probe's read-fault error (the first one wins): a $target read's,
 * or printf's %m/%M (print.h). */
static inline void stp_read_fault(struct stp_context *c, unsigned long addr)
{
	if (c->last_error)
		return;
	snprintf(c->error_buf, sizeof(c->error_buf),
		 "read fault [man error::fault] at 0x%lx", addr);
	c->last_error = c->error_buf;
}

/*
 * abort(): the error that ends the probe handler and no try catches; the
 * handler's end neither reports nor counts it (the session stops as with
 * exit()).
 */
static const char stp_abort_error[] = "abort";

/* STP_FRAME_SIZE is defined by the generated code before any use. */
#define STP_FRAME(c, type) ((type *)((c)->frames + (c)->nesting * STP_FRAME_SIZE))

static struct stp_context **stp_contexts;	/* indexed by CPU id */

/* The values saved at entry for the return probe whose handler runs on
 * this CPU (a kretprobe instance's data, a uretprobe's slot: uprobes.h),
 * set around the handler with preemption off; NULL: none. */
static __maybe_unused DEFINE_PER_CPU(void *, stp_kret_data);
/* The function a kretprobe whose handler runs on this CPU probes, set as
 * stp_kret_data is (print_backtrace()'s "Returning from:"); 0: none. */
static __maybe_unused DEFINE_PER_CPU(unsigned long, stp_kret_func);

/* defined in print.h */
static void stp_print_flush(struct stp_context *c);

#ifdef STP_OVERLOAD
/*
 * Charge this body's cycles to its CPU's interval; at the end of an
 * interval in which the handlers used more than the threshold, make it this
 * probe's error and stop the script (whatever MAXERRORS says), so that a
 * script cannot eat the CPU. The context is ours: no locking.
 */
static void stp_overload_check(struct stp_context *c)
{
	cycles_t now = get_cycles();

	c->ovl_used += now - c->ovl_enter;
	if (!c->ovl_window)
		c->ovl_window = c->ovl_enter;
	if ((s64)(now - c->ovl_window) < STP_OVERLOAD_INTERVAL)
		return;
	if (c->ovl_used > STP_OVERLOAD_THRESHOLD && !c->last_error) {
		snprintf(c->error_buf, sizeof(c->error_buf),
			 "probe overhead (%llu cycles) exceeded threshold (%lld cycles) in last %lld cycles",
			 (unsigned long long)c->ovl_used, (long long)STP_OVERLOAD_THRESHOLD,
			 (long long)STP_OVERLOAD_INTERVAL);
		c->last_error = c->error_buf;
		c->last_stmt = NULL;
		stp_state_move((1u << STP_STARTING) | (1u << STP_RUNNING) |
			       (1u << STP_STOPPING), STP_ERROR);
		stp_transport_send_exit();
	}
	c->ovl_window = now;
	c->ovl_used = 0;
}
#else
static inline void stp_overload_check(struct stp_context *c) { }
#endif

/* Free every context; safe on a partly allocated set. */
static void stp_contexts_free(void)
{
	unsigned int cpu;

	if (!stp_contexts)
		return;
	for_each_possible_cpu(cpu) {
		struct stp_context *c = stp_contexts[cpu];

		if (!c)
			continue;
		vfree(c->frames);
		kfree(c->pbuf);
		kfree(c);
	}
	kfree(stp_contexts);
	stp_contexts = NULL;
	stp_timing_free();
}

/* One context per possible CPU, frames of frame_size bytes each level. */
static int stp_contexts_alloc(size_t frame_size)
{
	unsigned int cpu;

	stp_contexts = kcalloc(nr_cpu_ids, sizeof(*stp_contexts), GFP_KERNEL);
	if (!stp_contexts)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct stp_context *c = kzalloc(sizeof(*c), GFP_KERNEL);

		stp_contexts[cpu] = c;
		if (!c)
			goto nomem;
		c->frames = vzalloc((MAXNESTING + 2) * frame_size);
		c->pbuf = kmalloc(STP_PRINT_BUF_SIZE, GFP_KERNEL);
		if (!c->frames || !c->pbuf)
			goto nomem;
	}
	if (stp_timing_alloc())
		goto nomem;
	return 0;
nomem:
	stp_contexts_free();
	return -ENOMEM;
}

/* May a probe of this kind run in this run state? */
static inline bool stp_kind_allowed(int kind, int state)
{
	switch (kind) {
	case STP_PK_BEGIN:
		return state == STP_STARTING;
	case STP_PK_END:
		return state == STP_STOPPING;
	case STP_PK_ERROR:
		return state == STP_ERROR;
	default:
		return state == STP_RUNNING;
	}
}

/*
 * Start a probe body: pin the CPU, check the run state, take this
 * CPU's context. NULL means "do not run" (wrong state, or the context is
 * in use by a handler this one interrupted: counted as skipped).
 */
static __maybe_unused struct stp_context *stp_probe_enter(const struct stp_probe *p)
{
	struct stp_context *c;
	unsigned long flags = 0;

#ifdef STP_IRQOFF_HANDLERS
	local_irq_save(flags);
#else
	preempt_disable();
#endif
	if (unlikely(!stp_kind_allowed(p->kind, atomic_read(&stp_state)) ||
		     !stp_contexts))
		goto out;
	c = stp_contexts[smp_processor_id()];
	if (unlikely(atomic_cmpxchg(&c->busy, 0, 1) != 0)) {
		stp_count_skipped();
		goto out;
	}
	c->probe = p;
	c->irq_flags = flags;
	c->last_error = NULL;
	c->last_stmt = NULL;
	c->actions = 0;
	c->nesting = 0;
	c->regs = NULL;
	c->ubias = 0;
	c->regparm = 0;
	c->entry_data = NULL;
	c->nf = NULL;
	c->t_start = stp_timing_start();
#ifdef STP_OVERLOAD
	c->ovl_enter = get_cycles();
#endif
	return c;
out:
#ifdef STP_IRQOFF_HANDLERS
	local_irq_restore(flags);
#else
	preempt_enable();
#endif
	return NULL;
}

/*
 * End a probe body: flush its output, then report its error if any (in
 * this order, so output printed before the error comes out first), and
 * release the context.
 */
static __maybe_unused void stp_probe_exit(struct stp_context *c)
{
	stp_timing_add(c->probe->index, c->t_start);
	stp_overload_check(c);
	stp_print_flush(c);
	if (unlikely(c->last_error == stp_abort_error))
		c->last_error = NULL;
	if (unlikely(c->last_error)) {
#ifdef STP_SUPPRESS_HANDLER_ERRORS
		/* --suppress-handler-errors: the handler ends there, as if in a
		 * try block; the error is counted, neither printed nor fatal */
		atomic_inc(&stp_error_count);
		atomic_inc(&stp_suppressed_count);
#else
		if (c->last_stmt)
			stp_err("%s near %s", c->last_error, c->last_stmt);
		else
			stp_err("%s", c->last_error);
#endif
		c->last_error = NULL;
	}
#ifdef STP_IRQOFF_HANDLERS
	{
		unsigned long flags = c->irq_flags;

		atomic_set(&c->busy, 0);
		local_irq_restore(flags);
	}
#else
	atomic_set(&c->busy, 0);
	preempt_enable();
#endif
}

#endif /* STP_CONTEXT_H */
