/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: kprobes and kretprobes for kprobe.* and kernel.function
 * probes. The generated code fills a table of struct stp_kprobe (where,
 * which handler, flags); these helpers register the table, and unregister
 * everything with one unregister_kprobes() and one unregister_kretprobes()
 * call, because each of those waits for an RCU grace period: batching is
 * what keeps the unload of a module with thousands of probes fast.
 */
#ifndef STP_KPROBES_H
#define STP_KPROBES_H

#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "run_state.h"

/* Beyond this many kprobes in a table, none is optimized (stp_kprobe_post). */
#ifndef STP_KPROBES_OPTIMIZE_MAX
#define STP_KPROBES_OPTIMIZE_MAX 256
#endif

#define STP_KPF_RETURN		1	/* a kretprobe */
#define STP_KPF_OPTIONAL	2	/* failure to register is not reported */
#define STP_KPF_FENTRY		4	/* at a function's ftrace call site ("_stext" +
					 * offset + fentry_delta): fentry.h */
#define STP_KPF_NOOPT		8	/* not optimized (stp_kprobe_post) */

struct stp_kprobe {
	const char *symbol;	/* "name", "module:name", or NULL: use addr */
	unsigned int offset;	/* from symbol */
	unsigned int fentry_delta; /* STP_KPF_FENTRY: call site - function start */
	unsigned long addr;	/* absolute address (kprobe.statement) */
	const char *verify;	/* symbol expected at the probe address, or NULL */
	const struct stp_probe *probe;	/* its pp() names it in messages */
	/* the body: the probe's own handler, or the one it shares with the
	 * other probes of its body (a wildcard's), given the probe */
	void (*handler)(struct pt_regs *regs);
	void (*shared)(const struct stp_probe *sp, struct pt_regs *regs);
	int flags;		/* STP_KPF_* */
	int maxactive;		/* kretprobe instances; 0: the kernel's default */
	/* kretprobe: runs at function entry, saving values (@entry) in
	 * data_size bytes of the instance, which the return handler reads */
	void (*entry)(struct pt_regs *regs, void *data, unsigned long ubias);
	size_t data_size;
	bool registered;	/* as a kprobe or kretprobe */
	bool fentry;		/* through fentry.h's ftrace_ops */
	union {
		struct kprobe kp;
		struct kretprobe krp;
	} u;
};

/* Run probe p's body. */
static inline void stp_kprobe_run(const struct stp_kprobe *p, struct pt_regs *regs)
{
	if (p->shared)
		p->shared(p->probe, regs);
	else
		p->handler(regs);
}

/* kprobe pre-handler: the probe's body. 0 = let the probed code run. */
static __maybe_unused int stp_kprobe_pre(struct kprobe *kp, struct pt_regs *regs)
{
	struct stp_kprobe *p = container_of(kp, struct stp_kprobe, u.kp);

	stp_kprobe_run(p, regs);
	return 0;
}

/*
 * A kprobe with a post-handler is never optimized into a jump. For a big
 * table that is what keeps registration fast: the kprobes optimizer holds
 * the kprobes mutex across an RCU-tasks grace period per round of 256
 * probes, and each registration waits for it (minutes for thousands).
 */
static __maybe_unused void stp_kprobe_post(struct kprobe *kp, struct pt_regs *regs,
					   unsigned long flags)
{
}

/* kretprobe handler: the function is returning; regs hold its return value. */
static __maybe_unused int stp_kretprobe_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *krp = get_kretprobe(ri);
	struct stp_kprobe *p;

	if (unlikely(!krp))
		return 0;
	p = container_of(krp, struct stp_kprobe, u.krp);
	*this_cpu_ptr(&stp_kret_data) = p->entry ? (void *)ri->data : NULL;
	*this_cpu_ptr(&stp_kret_func) = (unsigned long)krp->kp.addr;
	stp_kprobe_run(p, regs);
	*this_cpu_ptr(&stp_kret_data) = NULL;
	*this_cpu_ptr(&stp_kret_func) = 0;
	return 0;
}

/* kretprobe entry handler: save what the return handler will need. */
static __maybe_unused int stp_kretprobe_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kretprobe *krp = get_kretprobe(ri);
	struct stp_kprobe *p;

	if (unlikely(!krp))
		return 0;
	p = container_of(krp, struct stp_kprobe, u.krp);
	p->entry(regs, ri->data, 0);
	return 0;
}

/*
 * The addresses of kernel.function probes are given as "_stext" + offset
 * (computed from the kernel's symbol table at translation time, so KASLR
 * does not matter and static functions with the same name are told
 * apart). If the symbol table did not belong to the running kernel, the
 * offset lands elsewhere: check the symbol the kernel finds there.
 */
static __maybe_unused bool stp_kprobe_addr_ok(struct stp_kprobe *p, unsigned long addr)
{
	char name[KSYM_SYMBOL_LEN];
	size_t n = strlen(p->verify);

	sprint_symbol_no_offset(name, addr);
	/* module symbols print as "name [module]" */
	return strncmp(name, p->verify, n) == 0 && (name[n] == '\0' || name[n] == ' ');
}

/* A symbol table that does not match the running kernel: say so (fatal). */
static void stp_kprobe_misplaced(const struct stp_kprobe *p)
{
	stp_err("probe %s: the kernel has another function at its address "
		"(the debuginfo or System.map used does not match the running kernel)", p->probe->pp);
}

/* An entry probe fentry.h may take (a kretprobe stays one). */
static bool stp_kprobe_at_fentry(const struct stp_kprobe *p)
{
	return (p->flags & STP_KPF_FENTRY) && !(p->flags & STP_KPF_RETURN);
}

#include "fentry.h"

/* Register one probe; returns 0 or -errno (the probe is then unregistered). */
static __maybe_unused int stp_kprobe_register_one(struct stp_kprobe *p)
{
	struct kprobe *kp = (p->flags & STP_KPF_RETURN) ? &p->u.krp.kp : &p->u.kp;
	int rc;

	memset(&p->u, 0, sizeof(p->u));
	kp->symbol_name = p->symbol;
	kp->offset = p->offset;
	if (!p->symbol)
		kp->addr = (kprobe_opcode_t *)p->addr;
	if (p->flags & STP_KPF_RETURN) {
		p->u.krp.handler = stp_kretprobe_ret;
		p->u.krp.maxactive = p->maxactive;
		if (p->entry) {
			p->u.krp.entry_handler = stp_kretprobe_entry;
			p->u.krp.data_size = p->data_size;
		}
		rc = register_kretprobe(&p->u.krp);
	} else {
		kp->pre_handler = stp_kprobe_pre;
		if (p->flags & STP_KPF_NOOPT)
			kp->post_handler = stp_kprobe_post;
		rc = register_kprobe(kp);
	}
	if (rc)
		return rc;
	p->registered = true;
	if (p->verify && !stp_kprobe_addr_ok(p, (unsigned long)kp->addr)) {
		if (p->flags & STP_KPF_RETURN)
			unregister_kretprobe(&p->u.krp);
		else
			unregister_kprobe(&p->u.kp);
		p->registered = false;
		return -EFAULT;
	}
	return 0;
}

/* Register one probe of a table, reporting a failure as SystemTap does:
 * the caller stops on -EFAULT (a symbol table not of this kernel). */
static int stp_kprobe_register_reported(struct stp_kprobe *p)
{
	int rc;

	cond_resched();
	rc = stp_kprobe_register_one(p);
	if (rc == -EFAULT)
		stp_kprobe_misplaced(p);
	else if (rc && !(p->flags & STP_KPF_OPTIONAL))
		stp_warn("probe %s registration error (rc %d)", p->probe->pp, rc);
	return rc == -EFAULT ? rc : 0;
}

/*
 * Register a table of n probes: the function entries through one
 * ftrace_ops (fentry.h), the rest as kprobes and kretprobes. The ftrace
 * sites are patched first, on text no kprobe has touched yet (patching
 * them after thousands of kprobes crashed the guest), and armed last: a
 * handler run at every function entry would make each kprobe's
 * registration many times slower. A probe the kernel refuses (the kprobe
 * blacklist, notrace code, a module not loaded) is skipped with a warning,
 * silently if it is optional (it came from a wildcard or a '?' point), as
 * SystemTap does. A symbol table that does not match the running kernel
 * is fatal: every probe would be misplaced.
 */
static __maybe_unused int stp_kprobes_register(struct stp_kprobe *t, int n)
{
	int i, rc, nk = 0;

	for (i = 0; i < n; i++)
		nk += !stp_kprobe_at_fentry(&t[i]) && !(t[i].flags & STP_KPF_RETURN);
	rc = stp_fentry_register(t, n);
	if (rc == -EFAULT)
		return rc;
	for (i = 0; i < n; i++) {
		if (nk > STP_KPROBES_OPTIMIZE_MAX)
			t[i].flags |= STP_KPF_NOOPT;
		if (!t[i].fentry && (rc = stp_kprobe_register_reported(&t[i])))
			return rc;
	}
	stp_fentry_arm(t);
	return 0;
}

/*
 * Unregister every registered probe of the table with one call per kind,
 * and count kretprobe instances the kernel missed (maxactive too small)
 * and reentrant kprobe hits as skipped probes, as SystemTap does. The
 * kprobes go before the ftrace sites, the reverse of registration: the
 * ftrace core's own code is notrace, so a wildcard put kprobes on it, and
 * removing the sites with those still armed trapped on every one (2.5 min
 * instead of 3 s for kernel.function("*") under TCG).
 */
static __maybe_unused void stp_kprobes_unregister(struct stp_kprobe *t, int n)
{
	struct kprobe **kps = kmalloc_array(n, sizeof(*kps), GFP_KERNEL);
	struct kretprobe **krps = kmalloc_array(n, sizeof(*krps), GFP_KERNEL);
	int i, nk = 0, nr = 0, missed = 0;

	stp_fentry_disarm(t);
	for (i = 0; i < n; i++) {
		struct stp_kprobe *p = &t[i];

		if (!p->registered)
			continue;
		if (p->flags & STP_KPF_RETURN) {
			if (krps)
				krps[nr++] = &p->u.krp;
			else
				unregister_kretprobe(&p->u.krp);
		} else {
			if (kps)
				kps[nk++] = &p->u.kp;
			else
				unregister_kprobe(&p->u.kp);
		}
	}
	if (nk)
		unregister_kprobes(kps, nk);
	if (nr)
		unregister_kretprobes(krps, nr);
	stp_fentry_unregister(t);
	for (i = 0; i < n; i++) {
		struct stp_kprobe *p = &t[i];

		if (!p->registered)
			continue;
		if (p->flags & STP_KPF_RETURN)
			missed += p->u.krp.nmissed + p->u.krp.kp.nmissed;
		else
			missed += p->u.kp.nmissed;
		p->registered = false;
	}
	if (missed)
		atomic_add(missed, &stp_skipped_count);
	kfree(kps);
	kfree(krps);
}

#endif /* STP_KPROBES_H */
