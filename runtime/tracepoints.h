/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: kernel.trace("name") probes. The generated code fills a
 * table of tracepoint names and probe functions; these helpers find the
 * kernel's struct tracepoint of each name and attach the probe with
 * tracepoint_probe_register(), and detach them all, then wait once for the
 * probes still running (tracepoint_synchronize_unregister()).
 */
#ifndef STP_TRACEPOINTS_H
#define STP_TRACEPOINTS_H

#include <linux/tracepoint.h>
#include <linux/string.h>
#include "run_state.h"

struct stp_tracepoint {
	const char *name;
	void *probe;		/* void (*)(void *data, args...) */
	const char *pp;		/* for messages */
	struct tracepoint *tp;
	bool registered;
};

struct stp_tp_lookup {
	struct stp_tracepoint *t;
	int n;
};

/* for_each_kernel_tracepoint() callback: note the tracepoints we want. */
static __maybe_unused void stp_tp_match(struct tracepoint *tp, void *priv)
{
	struct stp_tp_lookup *l = priv;
	int i;

	for (i = 0; i < l->n; i++)
		if (!l->t[i].tp && !strcmp(tp->name, l->t[i].name))
			l->t[i].tp = tp;
}

/* Attach every probe; a tracepoint the running kernel lacks is a warning. */
static __maybe_unused int stp_tracepoints_register(struct stp_tracepoint *t, int n)
{
	struct stp_tp_lookup l = { t, n };
	int i, rc;

	for_each_kernel_tracepoint(stp_tp_match, &l);
	for (i = 0; i < n; i++) {
		if (!t[i].tp) {
			stp_warn("probe kernel.trace(\"%s\"): no such tracepoint in the running kernel", t[i].pp);
			continue;
		}
		rc = tracepoint_probe_register(t[i].tp, t[i].probe, NULL);
		if (rc) {
			stp_warn("probe kernel.trace(\"%s\") registration error (rc %d)", t[i].pp, rc);
			continue;
		}
		t[i].registered = true;
	}
	return 0;
}

static __maybe_unused void stp_tracepoints_unregister(struct stp_tracepoint *t, int n)
{
	int i, any = 0;

	for (i = 0; i < n; i++) {
		if (!t[i].registered)
			continue;
		tracepoint_probe_unregister(t[i].tp, t[i].probe, NULL);
		t[i].registered = false;
		any = 1;
	}
	if (any)
		tracepoint_synchronize_unregister();
}

#endif /* STP_TRACEPOINTS_H */
