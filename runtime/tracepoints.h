/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: kernel.trace("name") probes. The generated code fills a
 * table of tracepoint names and probe functions; these helpers find the
 * kernel's struct tracepoint of each name and attach the probe with
 * tracepoint_probe_register(), and detach them all, then wait once for the
 * probes still running (tracepoint_synchronize_unregister()).
 *
 * A module's tracepoints (kernel.trace("sunrpc:...")) are attached from a
 * tracepoint module notifier: called for each module already loaded when
 * registered, and for each one loaded later. The module is held (it cannot
 * be unloaded) while a probe is on one of its tracepoints.
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
	const char *module;	/* the module it is in, NULL for the kernel */
	struct module *mod;	/* held while the probe is on its tracepoint */
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
		if (!l->t[i].module && !l->t[i].tp && !strcmp(tp->name, l->t[i].name))
			l->t[i].tp = tp;
}

static struct stp_tp_lookup stp_tp_modules;	/* the table, for the notifier */

/* A module with tracepoints comes (or was there): attach the probes on its
 * tracepoints; it goes: they went with it. */
static int stp_tp_module_notify(struct notifier_block *nb, unsigned long what, void *data)
{
	struct tp_module *tp_mod = data;
	struct module *mod = tp_mod->mod;
	unsigned int k;
	int i;

	for (i = 0; i < stp_tp_modules.n; i++) {
		struct stp_tracepoint *t = &stp_tp_modules.t[i];

		if (!t->module || strcmp(t->module, mod->name))
			continue;
		if (what != MODULE_STATE_COMING || t->registered)
			continue;
		for (k = 0; k < mod->num_tracepoints; k++) {
			struct tracepoint *tp = tracepoint_ptr_deref(&mod->tracepoints_ptrs[k]);

			if (strcmp(tp->name, t->name))
				continue;
			if (!try_module_get(mod))
				break;
			if (tracepoint_probe_register(tp, t->probe, NULL) == 0) {
				t->tp = tp;
				t->mod = mod;
				t->registered = true;
			} else {
				module_put(mod);
			}
			break;
		}
	}
	return NOTIFY_OK;
}

static struct notifier_block stp_tp_module_nb = { .notifier_call = stp_tp_module_notify };
static bool stp_tp_module_nb_on;

/* Attach every probe; a tracepoint the running kernel lacks is a warning. */
static __maybe_unused int stp_tracepoints_register(struct stp_tracepoint *t, int n)
{
	struct stp_tp_lookup l = { t, n };
	int i, rc;

	for_each_kernel_tracepoint(stp_tp_match, &l);
	for (i = 0; i < n; i++) {
		if (t[i].module && !stp_tp_module_nb_on) {
			stp_tp_modules = l;
			rc = register_tracepoint_module_notifier(&stp_tp_module_nb);
			if (rc)
				stp_warn("probe kernel.trace(\"%s\"): module tracepoints not reachable (rc %d)",
					 t[i].pp, rc);
			else
				stp_tp_module_nb_on = true;
		}
		if (t[i].module)
			continue;
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

	if (stp_tp_module_nb_on) {	/* no module comes or goes meanwhile */
		unregister_tracepoint_module_notifier(&stp_tp_module_nb);
		stp_tp_module_nb_on = false;
	}
	for (i = 0; i < n; i++) {
		if (!t[i].registered)
			continue;
		tracepoint_probe_unregister(t[i].tp, t[i].probe, NULL);
		t[i].registered = false;
		any = 1;
	}
	if (any)
		tracepoint_synchronize_unregister();
	for (i = 0; i < n; i++) {
		if (t[i].mod)
			module_put(t[i].mod);
		t[i].mod = NULL;
	}
}

#endif /* STP_TRACEPOINTS_H */
