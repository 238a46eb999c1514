/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: kernel.function entry probes through one ftrace_ops.
 *
 * A kprobe at a function's entry sits on its ftrace call site, so the
 * kernel arms it through ftrace: one filter change and one pass over every
 * ftrace record of the kernel (tens of thousands) per probe, at register
 * and again at unregister. A wildcard over thousands of functions then
 * takes minutes to arm. Here all the entry probes of a table share one
 * ftrace_ops: their call sites go into its filter together and are
 * patched in a few large batches (see below). The handler finds
 * the probes of a call site by binary search and runs them as the
 * kprobes core would (regs->ip one byte past the probe address); a hit in
 * code the handler itself calls is counted as skipped, as a kprobe's
 * nmissed is. Sites ftrace refuses (notrace code) fall back to kprobes.
 *
 * x86 patches a filter's sites in one loop that never reschedules: tens of
 * thousands of sites at once kept one CPU from the RCU kthread for over
 * 21 s under TCG (an RCU stall at unregister). So the ops is registered
 * with STP_FENTRY_CHUNK sites, the others are added a chunk at a time, and
 * at unregister removed a chunk at a time, with cond_resched() between.
 * The first chunk stays until unregister_ftrace_function(): an ops whose
 * filter is empty would trace every function.
 *
 * Included by kprobes.h, after struct stp_kprobe and the helpers it uses
 * (stp_kprobe_addr_ok, stp_kprobe_misplaced, stp_kprobe_at_fentry).
 */
#ifndef STP_FENTRY_H
#define STP_FENTRY_H

#include <linux/ftrace.h>
#include <linux/sort.h>
#include <linux/slab.h>
#include <linux/trace_recursion.h>

#if defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS) && !defined(STP_NO_FENTRY)

struct stp_fentry_ent {
	unsigned long ip;
	struct stp_kprobe *p;
};

/* The entry probes of one stp_kprobe table. */
struct stp_fentry_set {
	struct ftrace_ops ops;
	struct stp_kprobe *table;
	struct stp_fentry_ent *ents;	/* sorted by ip */
	int n;
	unsigned long *ips;		/* the distinct sites in the filter */
	int nips;
	atomic_t missed;
	bool armed;		/* the handler runs the probes (stp_fentry_arm) */
};

#define STP_FENTRY_SETS 4
#define STP_FENTRY_CHUNK 1024
static struct stp_fentry_set *stp_fentry_sets[STP_FENTRY_SETS];

/* The ftrace callback: every probe at call site ip. */
static void notrace stp_fentry_hit(unsigned long ip, unsigned long parent_ip,
				   struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct stp_fentry_set *set = container_of(op, struct stp_fentry_set, ops);
	struct pt_regs *regs = ftrace_get_regs(fregs);
	unsigned long orig_ip;
	int bit, lo = 0, hi = set->n;

	if (!READ_ONCE(set->armed))
		return;
	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0) {
		atomic_inc(&set->missed);
		return;
	}
	if (unlikely(!regs))
		goto out;
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (set->ents[mid].ip < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	orig_ip = instruction_pointer(regs);
	instruction_pointer_set(regs, ip + sizeof(kprobe_opcode_t));
	for (; lo < set->n && set->ents[lo].ip == ip; lo++)
		stp_kprobe_run(set->ents[lo].p, regs);
	instruction_pointer_set(regs, orig_ip);
out:
	ftrace_test_recursion_unlock(bit);
}

static int stp_fentry_cmp(const void *a, const void *b)
{
	const struct stp_fentry_ent *x = a, *y = b;

	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

/*
 * Put ips[0..n) in the filter. A set with a site ftrace does not know
 * fails whole (-EINVAL) and changes nothing: halve it until each refused
 * site is found alone, and mark those in refused[] (their probes go to
 * kprobes).
 */
static int stp_fentry_filter(struct ftrace_ops *ops, unsigned long *ips, bool *refused,
			     unsigned int n)
{
	int rc = ftrace_set_filter_ips(ops, ips, n, 0, 0);

	if (rc != -EINVAL)
		return rc;
	if (n == 1) {
		refused[0] = true;
		return 0;
	}
	rc = stp_fentry_filter(ops, ips, refused, n / 2);
	if (rc)
		return rc;
	return stp_fentry_filter(ops, ips + n / 2, refused + n / 2, n - n / 2);
}

/*
 * Add (remove == 0) or remove sites ips[from..to) in chunks, rescheduling
 * between them: each chunk is one patching pass.
 */
static int stp_fentry_chunks(struct ftrace_ops *ops, unsigned long *ips, int from, int to,
			     int remove)
{
	int rc = 0;

	while (from < to && !rc) {
		int k = min(to - from, STP_FENTRY_CHUNK);

		rc = ftrace_set_filter_ips(ops, ips + from, k, remove, 0);
		from += k;
		cond_resched();
	}
	return rc;
}

/*
 * Register the STP_KPF_FENTRY probes of table t through one ftrace_ops,
 * disarmed until stp_fentry_arm(); those taken get p->fentry set. 0 if
 * done (or nothing to do: the probes then go to kprobes), -EFAULT if a
 * site is not where the symbol table said (reported here), other -errno:
 * use kprobes.
 */
static __maybe_unused int stp_fentry_register(struct stp_kprobe *t, int n)
{
	struct stp_fentry_set *set;
	unsigned long base, *ips = NULL;
	bool *refused = NULL;
	int i, k, slot, ne = 0, nu = 0, rc;

	for (slot = 0; slot < STP_FENTRY_SETS && stp_fentry_sets[slot]; slot++)
		;
	for (i = 0; i < n; i++)
		ne += stp_kprobe_at_fentry(&t[i]);
	if (!ne || slot == STP_FENTRY_SETS)
		return 0;
	base = stp_modsym_lookup("_stext");
	if (!base)
		return -ENOENT;
	set = kzalloc(sizeof(*set), GFP_KERNEL);
	if (!set)
		return -ENOMEM;
	set->ents = kvmalloc_array(ne, sizeof(*set->ents), GFP_KERNEL);
	ips = kvmalloc_array(ne, sizeof(*ips), GFP_KERNEL);
	refused = kvcalloc(ne, sizeof(*refused), GFP_KERNEL);
	rc = -ENOMEM;
	if (!set->ents || !ips || !refused)
		goto fail;
	for (i = 0; i < n; i++) {
		struct stp_kprobe *p = &t[i];
		unsigned long ip = base + p->offset + p->fentry_delta;

		if (!stp_kprobe_at_fentry(p))
			continue;
		if (p->verify && !stp_kprobe_addr_ok(p, ip)) {
			stp_kprobe_misplaced(p);
			rc = -EFAULT;
			goto fail;
		}
		set->ents[set->n].ip = ip;
		set->ents[set->n++].p = p;
		cond_resched();
	}
	sort(set->ents, set->n, sizeof(*set->ents), stp_fentry_cmp, NULL);
	for (i = 0; i < set->n; i++)
		if (!nu || ips[nu - 1] != set->ents[i].ip)
			ips[nu++] = set->ents[i].ip;
	set->ops.func = stp_fentry_hit;
	set->ops.flags = FTRACE_OPS_FL_SAVE_REGS;
	rc = stp_fentry_filter(&set->ops, ips, refused, nu);
	if (rc)
		goto fail_filter;
	/* drop the probes of refused sites (they go to kprobes), and the sites */
	for (i = 0, k = 0, ne = 0; i < set->n; i++) {
		while (ips[k] != set->ents[i].ip)
			k++;
		if (!refused[k])
			set->ents[ne++] = set->ents[i];
	}
	set->n = ne;
	for (i = 0, k = 0; i < nu; i++)
		if (!refused[i])
			ips[k++] = ips[i];
	nu = k;
	rc = -ENOENT;
	if (!ne)
		goto fail_filter;
	/* register with the first chunk only, then add the others */
	rc = stp_fentry_chunks(&set->ops, ips, STP_FENTRY_CHUNK, nu, 1);
	if (!rc)
		rc = register_ftrace_function(&set->ops);
	if (rc)
		goto fail_filter;
	rc = stp_fentry_chunks(&set->ops, ips, STP_FENTRY_CHUNK, nu, 0);
	if (rc) {
		stp_fentry_chunks(&set->ops, ips, STP_FENTRY_CHUNK, nu, 1);
		unregister_ftrace_function(&set->ops);
		goto fail_filter;
	}
	for (i = 0; i < set->n; i++)
		set->ents[i].p->fentry = true;
	set->table = t;
	set->ips = ips;
	set->nips = nu;
	stp_fentry_sets[slot] = set;
	kvfree(refused);
	return 0;
fail_filter:
	ftrace_free_filter(&set->ops);
fail:
	kvfree(ips);
	kvfree(refused);
	kvfree(set->ents);
	kfree(set);
	return rc;
}

/* Let table t's ftrace_ops run its probes (on), or stop them (off). */
static void stp_fentry_set_armed(struct stp_kprobe *t, bool on)
{
	int slot;

	for (slot = 0; slot < STP_FENTRY_SETS; slot++)
		if (stp_fentry_sets[slot] && stp_fentry_sets[slot]->table == t)
			WRITE_ONCE(stp_fentry_sets[slot]->armed, on);
}

static __maybe_unused void stp_fentry_arm(struct stp_kprobe *t)
{
	stp_fentry_set_armed(t, true);
}

/* Stop the probes first, while the table's kprobes are removed. */
static __maybe_unused void stp_fentry_disarm(struct stp_kprobe *t)
{
	stp_fentry_set_armed(t, false);
}

/* Unregister table t's ftrace_ops; its callers have all returned after. */
static __maybe_unused void stp_fentry_unregister(struct stp_kprobe *t)
{
	int slot, i;

	for (slot = 0; slot < STP_FENTRY_SETS; slot++) {
		struct stp_fentry_set *set = stp_fentry_sets[slot];

		if (!set || set->table != t)
			continue;
		WRITE_ONCE(set->armed, false);
		stp_fentry_chunks(&set->ops, set->ips, STP_FENTRY_CHUNK, set->nips, 1);
		unregister_ftrace_function(&set->ops);
		ftrace_free_filter(&set->ops);
		for (i = 0; i < set->n; i++)
			set->ents[i].p->fentry = false;
		atomic_add(atomic_read(&set->missed), &stp_skipped_count);
		kvfree(set->ips);
		kvfree(set->ents);
		kfree(set);
		stp_fentry_sets[slot] = NULL;
	}
}

#else	/* no ftrace with regs: every probe is a kprobe */

static inline int stp_fentry_register(struct stp_kprobe *t, int n) { return 0; }
static inline void stp_fentry_arm(struct stp_kprobe *t) { }
static inline void stp_fentry_disarm(struct stp_kprobe *t) { }
static inline void stp_fentry_unregister(struct stp_kprobe *t) { }

#endif

#endif /* STP_FENTRY_H */
