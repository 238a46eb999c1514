/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: process probes through the kernel's uprobes. The
 * generated code fills a table of struct stp_uprobe (the file, the offset
 * in it, the handler); a uprobe is registered at the file's inode, so it
 * fires in every process that maps the file, including those started
 * after the script. The handler gets the user registers and the file's
 * load bias in the probed process (run-time minus link-time address),
 * from the address the probe hit: $target variables at fixed addresses
 * need it (PIE programs, shared libraries). An SDT marker guarded by a
 * semaphore has the semaphore's file offset as the uprobe's reference
 * counter: the kernel increments it in every process mapping the file
 * while the probe is registered, so the program reaches the marker.
 */
#ifndef STP_UPROBES_H
#define STP_UPROBES_H

#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/ptrace.h>
#include <linux/uprobes.h>
#include "kcompat.h"
#include "run_state.h"

#define STP_UPF_RETURN		1	/* a uretprobe */
#define STP_UPF_OPTIONAL	2	/* failure to register is not reported */
#define STP_UPF_TARGET		4	/* fires in the -c/-x target and its descendants
					 * only (a point naming no program) */

/*
 * Values a uretprobe's body reads at entry (@entry, $parameters): uprobes
 * keep no per-call data for a consumer, so a second uprobe, where those
 * values can be read (past the prologue of unoptimized code), saves them
 * in a slot keyed by the task and the call's canonical frame address (from
 * the call frame information there: DWARF register cfa_reg + cfa_off),
 * and the return handler finds the slot by the stack pointer after the
 * return, which is that address, then frees it. A slot whose frame is gone
 * without a return (longjmp) is taken again by the next call of its task
 * at or above it; when every slot is busy the call is not traced (its
 * return counts as a skipped probe, as a kretprobe's missed instance).
 */
#define STP_UENTRY_SLOTS 64

struct stp_uentry {
	spinlock_t lock;
	size_t size;				/* bytes of one slot's data */
	struct {
		struct task_struct *task;	/* NULL: free */
		unsigned long sp;
	} key[STP_UENTRY_SLOTS];
	char data[];				/* STP_UENTRY_SLOTS * size */
};

struct stp_uprobe {
	const char *path;	/* the probed file */
	loff_t offset;		/* in the file */
	loff_t ref_ctr;		/* an SDT marker's semaphore (file offset; 0: none):
				   the kernel increments it while probed */
	unsigned long vaddr;	/* its link-time address */
	const char *pp;		/* for messages */
	void (*handler)(struct pt_regs *regs, unsigned long ubias);
	int flags;		/* STP_UPF_* */
	long pid;		/* process(PID): fires in that process only; 0 any */
	/* a uretprobe's entry handler saving @entry values (data_size bytes),
	 * run by a uprobe at entry_offset (link-time entry_vaddr) where the
	 * frame address is DWARF register cfa_reg + cfa_off */
	void (*entry)(struct pt_regs *regs, void *data, unsigned long ubias);
	size_t data_size;
	loff_t entry_offset;
	unsigned long entry_vaddr;
	int cfa_reg;
	long cfa_off;
	struct uprobe_consumer uc_entry;
	void *entry_handle;
	bool entry_registered;
	struct stp_uentry *saved;	/* their slots (allocated at registration) */
	struct uprobe_consumer uc;
	struct inode *inode;	/* held while registered */
	void *handle;		/* the kernel's struct uprobe (6.11 and later) */
	bool registered;
};

/* Does a hit of p in the current task count? Then the task's perf
 * counters (perf.h) are read for @perf, here where that may sleep. */
static inline bool stp_uprobe_wanted(const struct stp_uprobe *p)
{
	if ((p->flags & STP_UPF_TARGET) && stp_target && !stp_proc_in_target(current))
		return false;
	if (!stp_is_myproc(current))	/* --privilege: the user's own processes only */
		return false;
	if (p->pid && task_tgid_nr(current) != p->pid)
		return false;
#ifdef _STP_PERF_H_
	stp_perf_counters_update();
#endif
	return true;
}

/* A probed instruction is reached; the uprobes core has set regs->ip to
 * its address. */
static __maybe_unused int stp_uprobe_hit(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct stp_uprobe *p = container_of(uc, struct stp_uprobe, uc);

	if (stp_uprobe_wanted(p))
		p->handler(regs, instruction_pointer(regs) - p->vaddr);
	return 0;
}

/* A slot for the task's call with frame address sp, or -1 (all busy). */
static int stp_uentry_claim(struct stp_uentry *u, unsigned long sp)
{
	int i, free = -1;

	spin_lock(&u->lock);
	for (i = 0; i < STP_UENTRY_SLOTS; i++) {
		if (!u->key[i].task && free < 0)
			free = i;
		if (u->key[i].task == current && u->key[i].sp <= sp) {
			free = i;	/* a frame at or below ours is gone */
			break;
		}
	}
	if (free >= 0) {
		u->key[free].task = current;
		u->key[free].sp = sp;
	}
	spin_unlock(&u->lock);
	return free;
}

/* The slot of the call returning to stack pointer sp, or -1. */
static int stp_uentry_find(struct stp_uentry *u, unsigned long sp)
{
	int i;

	spin_lock(&u->lock);
	for (i = 0; i < STP_UENTRY_SLOTS; i++)
		if (u->key[i].task == current && u->key[i].sp == sp)
			break;
	spin_unlock(&u->lock);
	return i < STP_UENTRY_SLOTS ? i : -1;
}

static void stp_uentry_free(struct stp_uentry *u, int i)
{
	spin_lock(&u->lock);
	u->key[i].task = NULL;
	spin_unlock(&u->lock);
}

/* A uretprobe's function is entered: save its @entry values. */
static __maybe_unused int stp_uentry_hit(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct stp_uprobe *p = container_of(uc, struct stp_uprobe, uc_entry);
	unsigned long cfa = stp_pt_regs_dwarf(regs, p->cfa_reg) + p->cfa_off;
	int i = stp_uprobe_wanted(p) ? stp_uentry_claim(p->saved, cfa) : -1;

	if (i >= 0)
		p->entry(regs, p->saved->data + i * p->saved->size,
			 instruction_pointer(regs) - p->entry_vaddr);
	return 0;
}

/* The probed function returns to its caller; func is its run-time entry. */
static __maybe_unused int stp_uretprobe_hit(struct uprobe_consumer *uc, unsigned long func, struct pt_regs *regs)
{
	struct stp_uprobe *p = container_of(uc, struct stp_uprobe, uc);
	int i = -1;

	if (!stp_uprobe_wanted(p))
		return 0;
	if (!p->saved) {
		p->handler(regs, func - p->vaddr);
		return 0;
	}
	i = stp_uentry_find(p->saved, user_stack_pointer(regs));
	preempt_disable();	/* the handler finds the slot on this CPU */
	*this_cpu_ptr(&stp_kret_data) = i >= 0 ? p->saved->data + i * p->saved->size : NULL;
	p->handler(regs, func - p->vaddr);
	*this_cpu_ptr(&stp_kret_data) = NULL;
	preempt_enable();
	if (i >= 0)
		stp_uentry_free(p->saved, i);
	return 0;
}

/*
 * Register every probe of the table. One the kernel refuses (or whose file
 * is gone) is skipped with a warning, silently if it is optional, as
 * kprobes are (kprobes.h).
 */
static __maybe_unused int stp_uprobes_register(struct stp_uprobe *t, int n)
{
	int i, rc;

	for (i = 0; i < n; i++) {
		struct stp_uprobe *p = &t[i];
		struct path path;

		rc = kern_path(p->path, LOOKUP_FOLLOW, &path);
		if (!rc) {
			p->inode = igrab(d_inode(path.dentry));
			path_put(&path);
			if (!p->inode)
				rc = -ENOENT;
		}
		if (!rc && p->entry && !p->saved) {
			p->saved = kzalloc(sizeof(*p->saved) +
					   STP_UENTRY_SLOTS * p->data_size, GFP_KERNEL);
			if (p->saved) {
				spin_lock_init(&p->saved->lock);
				p->saved->size = p->data_size;
			} else {
				rc = -ENOMEM;
			}
		}
		if (!rc && p->entry) {
			p->uc_entry.handler = stp_uentry_hit;
			rc = stp_uprobe_register(p->inode, p->entry_offset, 0, &p->uc_entry,
						 &p->entry_handle);
			p->entry_registered = !rc;
		}
		if (!rc) {
			if (p->flags & STP_UPF_RETURN)
				p->uc.ret_handler = stp_uretprobe_hit;
			else
				p->uc.handler = stp_uprobe_hit;
			rc = stp_uprobe_register(p->inode, p->offset, p->ref_ctr, &p->uc, &p->handle);
		}
		if (rc && p->entry_registered) {
			stp_uprobe_unregister(p->inode, p->entry_offset, &p->uc_entry, p->entry_handle);
			stp_uprobe_sync();
			p->entry_registered = false;
		}
		if (rc && p->inode) {
			iput(p->inode);
			p->inode = NULL;
		}
		p->registered = !rc;
		/* a program this system does not have (-ENOENT) is said by
		 * nothing, as SystemTap's probe on its path just never fires */
		if (rc && rc != -ENOENT && !(p->flags & STP_UPF_OPTIONAL))
			stp_warn("probe %s registration error (rc %d)", p->pp, rc);
	}
	return 0;
}

/* Unregister the table's probes, then wait for handlers still running. */
static __maybe_unused void stp_uprobes_unregister(struct stp_uprobe *t, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (t[i].registered)
			stp_uprobe_unregister(t[i].inode, t[i].offset, &t[i].uc, t[i].handle);
		if (t[i].entry_registered)
			stp_uprobe_unregister(t[i].inode, t[i].entry_offset, &t[i].uc_entry,
					      t[i].entry_handle);
		t[i].entry_registered = false;
	}
	stp_uprobe_sync();
	for (i = 0; i < n; i++) {
		if (t[i].registered) {
			t[i].registered = false;
			iput(t[i].inode);
			t[i].inode = NULL;
		}
		kfree(t[i].saved);
		t[i].saved = NULL;
	}
}

#endif /* STP_UPROBES_H */
