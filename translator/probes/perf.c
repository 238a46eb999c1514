/* perf.c - perf.type(T).config(C)[.sample(N) | .hz(N)] probes.
 *
 * Each probe is a sampling perf event on every online CPU, made with the
 * kernel's in-kernel counter API (runtime/perf.h): its overflow handler runs
 * the probe every N counts (.sample, 1000000 when not given) or N times a
 * second (.hz). The event names scripts use (perf.sw.cpu_clock,
 * perf.hw.instructions, perf.hw_cache.l1d.read.miss ...) and timer.profile
 * are aliases of tapsets/perf.stp and tapsets/timers.stp. pp() is written
 * as SystemTap writes it: perf.type(T).config(C).sample(N), N the period or
 * the frequency.
 */
#include "provider.h"

#include <string.h>

#include "diag.h"

extern const struct provider perf_provider;

struct perf_probe {
	int64_t type, config, period;
	bool freq;    /* period is a frequency in hertz */
};

static int derive(struct session *s, struct probe *p, struct probe_point *pp)
{
	struct perf_probe pr = { .period = 1000000 };
	int n = pp->comps.len;

	if (!pp_comp_is(pp, 0, "perf") || !pp_comp_is(pp, 1, "type"))
		return 0;
	if (!pp_comp_num(pp, 1, &pr.type) || !pp_comp_is(pp, 2, "config") || !pp_comp_num(pp, 2, &pr.config)) {
		diag(s, E_PROBE_ARG, pp->pos, "perf probes are perf.type(NUMBER).config(NUMBER)");
		return -1;
	}
	if (n > 4 || (n == 4 && !pp_comp_is(pp, 3, "sample") && !pp_comp_is(pp, 3, "hz"))) {
		if (pp_comp_is(pp, 3, "process") || pp_comp_is(pp, 3, "counter")) {
			diag(s, E_NOT_SUPPORTED, pp->comps.items[3]->pos,
			     "perf counters of a process (.process, .counter, @perf) are not supported yet");
			return -1;
		}
		return 0;
	}
	if (n == 4) {
		pr.freq = pp_comp_is(pp, 3, "hz");
		if (!pp_comp_num(pp, 3, &pr.period) || pr.period <= 0) {
			diag(s, E_PROBE_ARG, pp->comps.items[3]->pos, "%s needs a positive number",
			     pr.freq ? "hz" : "sample");
			return -1;
		}
	}
	if (pr.type < 0 || pr.config < 0) {
		diag(s, E_PROBE_ARG, pp->pos, "perf type and config are not negative");
		return -1;
	}
	struct derived_probe *dp = derived_probe_add(s, p, pp, &perf_provider, PK_NORMAL);
	struct perf_probe *d = xmalloc(sizeof(*d));
	*d = pr;
	dp->data = d;
	free(dp->pp);
	dp->pp = xasprintf("perf.type(%lld).config(%lld).sample(%lld)", (long long)pr.type,
			   (long long)pr.config, (long long)pr.period);
	return 1;
}

static void emit_decls(struct session *s, struct strbuf *out)
{
	int n = provider_probes(s, &perf_provider);

	if (n)
		strbuf_addf(out, "static struct stp_perf stp_perfs[%d];\n", n);
}

static void emit_register(struct session *s, struct strbuf *out)
{
	int n = 0;

	for (int i = 0; i < s->probes.len; i++) {
		struct derived_probe *dp = s->probes.items[i];
		if (dp->prov != &perf_provider)
			continue;
		const struct perf_probe *d = dp->data;
		strbuf_addf(out, "\tstp_perfs[%d].attr.type = %lldU;\n", n, (long long)d->type);
		strbuf_addf(out, "\tstp_perfs[%d].attr.config = %lldULL;\n", n, (long long)d->config);
		strbuf_addf(out, "\tstp_perfs[%d].attr.%s = %lldULL;\n", n, d->freq ? "sample_freq" : "sample_period",
			    (long long)d->period);
		strbuf_addf(out, "\tstp_perfs[%d].attr.freq = %d;\n", n, d->freq);
		strbuf_addf(out, "\tstp_perfs[%d].handler = dp_%d;\n", n, dp->index);
		strbuf_addf(out, "\trc = stp_perf_start(&stp_perfs[%d], stp_probes[%d].pp);\n\tif (rc)\n\t\treturn rc;\n",
			    n, dp->index);
		n++;
	}
}

static void emit_unregister(struct session *s, struct strbuf *out)
{
	int n = provider_probes(s, &perf_provider);

	if (n)
		strbuf_addf(out, "\tfor (i = 0; i < %d; i++)\n\t\tstp_perf_stop(&stp_perfs[i]);\n", n);
}

static const char *const shapes[] = { "perf.type()", NULL };

const struct provider perf_provider = {
	.name = "perf",
	.runtime_header = "perf.h",
	.type_name = "perf_event",
	.derive = derive,
	.emit_decls = emit_decls,
	.emit_register = emit_register,
	.emit_unregister = emit_unregister,
	.shapes = shapes,
};
