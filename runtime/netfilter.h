/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netfilter.h - netfilter.hook("H").pf("PF")[.priority("P")] probes.
 *
 * Every netfilter probe owns one struct stp_nf_hook: one netfilter hook
 * function registered in the initial network namespace only (init_net:
 * packets of other namespaces, containers', are not seen). The hook
 * function runs the generated handler with the hook's arguments in a
 * struct stp_nf_args on its stack ($hooknum, $skb, $in, $out) and returns
 * the verdict the handler left there: NF_ACCEPT unless a guru-mode script
 * assigned $verdict. The value is returned as the script wrote it, as
 * SystemTap does: NF_STOLEN (or another verdict the kernel takes as
 * "stolen") leaves the packet to nobody.
 */
#ifndef _STP_NETFILTER_H_
#define _STP_NETFILTER_H_

#include <linux/netfilter.h>
#include <linux/skbuff.h>
#include <net/net_namespace.h>

struct stp_nf_hook {
	struct nf_hook_ops ops;		/* .hook, .pf, .hooknum, .priority */
	void (*handler)(struct stp_nf_args *nf);
	const char *pp;
	bool registered;
};

/* The hook function of every probe: its handler decides the verdict. */
static __maybe_unused unsigned int stp_nf_hookfn(void *priv, struct sk_buff *skb,
						 const struct nf_hook_state *state)
{
	struct stp_nf_hook *h = priv;
	struct stp_nf_args a = {
		.hooknum = state->hook,
		.verdict = NF_ACCEPT,
		.skb = skb,
		.in = state->in,
		.out = state->out,
	};

	h->handler(&a);
	return a.verdict;
}

/* 0, or the kernel's error for a hook it does not have (-EINVAL, -ENOENT:
 * a family the kernel was built without). */
static __maybe_unused int stp_nf_start(struct stp_nf_hook *h)
{
	int rc;

	h->ops.hook = stp_nf_hookfn;
	h->ops.priv = h;
	rc = nf_register_net_hook(&init_net, &h->ops);
	if (rc) {
		stp_err("netfilter probe %s: the kernel refused the hook (error %d)", h->pp, rc);
		return rc;
	}
	h->registered = true;
	return 0;
}

/* After this no hook function of h runs (the kernel waits for those running). */
static __maybe_unused void stp_nf_stop(struct stp_nf_hook *h)
{
	if (!h->registered)
		return;
	nf_unregister_net_hook(&init_net, &h->ops);
	h->registered = false;
}

#endif /* _STP_NETFILTER_H_ */
