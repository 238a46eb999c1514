/* perf.c - perf.type(T).config(C)[.sample(N) | .hz(N)] probes,
 * perf.type(T).config(C)[.sample(N) | .hz(N)].process("P") probes (the
 * .sample or .hz may also follow .process, as after an alias of
 * tapsets/perf.stp: perf.sw.task_clock.process("P").sample(N)), and
 * perf.type(T).config(C)[.process("P")].counter("NAME") counters.
 *
 * Each probe is a sampling perf event on every online CPU, made with the
 * kernel's in-kernel counter API (runtime/perf.h): its overflow handler runs
 * the probe every N counts (.sample, 1000000 when not given) or N times a
 * second (.hz). With .process("P") it is one event per thread of program P,
 * counting only in that thread, made when the thread starts running P
 * (runtime/process.h's clients). SystemTap 4.8 takes .process("P") with
 * neither .sample nor .hz only. A counter is a counting event of each thread (of program P)
 * that a process probe hits, made at its first hit; @perf("NAME") in a
 * process probe is its count when the probe hit, as SystemTap reads it
 * (its own body never runs). The event names scripts use (perf.sw.cpu_clock,
 * perf.hw.instructions, perf.hw_cache.l1d.read.miss ...) and timer.profile
 * are aliases of tapsets/perf.stp and tapsets/timers.stp. pp() is written
 * as SystemTap writes it: perf.type(T).config(C).sample(N), N the period or
 * the frequency.
 */
#include "provider.h"
#include "bpf_proto.h"

#include <string.h>

#include "diag.h"
#include "kpoint.h"
#include "uprobes.h"
#include "target/uimage.h"

extern const struct provider perf_provider;

struct perf_probe {
	int64_t type, config, period;
	bool freq;    /* period is a frequency in hertz */
	char *process;          /* .process("P"): the program's path, or NULL */
	const char *counter;    /* .counter("NAME"), or NULL: a sampling probe */
};

/* The counters of this run, in @perf index order. */
struct perf_state {
	VEC(const struct perf_probe *) counters;
};

/* The counter_index hook: perf....counter("NAME")'s place in the run's
 * counters, which @perf("NAME") reads. */
static int perf_counter_index(struct session *s, const char *name)
{
	struct perf_state *st = provider_state(s, &perf_provider, sizeof(struct perf_state));

	for (int i = 0; i < st->counters.len; i++)
		if (!strcmp(st->counters.items[i]->counter, name))
			return i;
	return -1;
}

/* .sample(N) or .hz(N), component i */
static int rate_comp(struct session *s, struct probe_point *pp, int i, struct perf_probe *pr)
{
	pr->freq = pp_comp_is(pp, i, "hz");
	if (!pp_comp_num(pp, i, &pr->period) || pr->period <= 0) {
		diag(s, E_PROBE_ARG, pp->comps.items[i]->pos, "%s needs a positive number", pr->freq ? "hz" : "sample");
		return -1;
	}
	return 0;
}

static int derive(struct session *s, struct probe *p, struct probe_point *pp)
{
	struct perf_probe pr = { .period = 1000000 };
	int n = pp->comps.len, i = 3;

	if (!pp_comp_is(pp, 0, "perf") || !pp_comp_is(pp, 1, "type"))
		return 0;
	if (!pp_comp_num(pp, 1, &pr.type) || !pp_comp_is(pp, 2, "config") || !pp_comp_num(pp, 2, &pr.config)) {
		diag(s, E_PROBE_ARG, pp->pos, "perf probes are perf.type(NUMBER).config(NUMBER)");
		return -1;
	}
	/* [.sample(N) | .hz(N)] [.process("P") [.sample(N) | .hz(N)]] [.counter("NAME")] */
	bool rate = false;
	if (i < n && (pp_comp_is(pp, i, "sample") || pp_comp_is(pp, i, "hz"))) {
		if (rate_comp(s, pp, i++, &pr) < 0)
			return -1;
		rate = true;
	}
	if (i < n && pp_comp_is(pp, i, "process")) {
		const char *arg;
		char *why = NULL;
		if (!pp->comps.items[i]->arg) {   /* SystemTap's: the -c command's program */
			diag(s, E_NOT_SUPPORTED, pp->comps.items[i]->pos,
			     "perf probes of .process without a program are not supported: name it, .process(\"PATH\")");
			return -1;
		}
		if (!kpoint_str_arg(s, pp, i, &arg))
			return -1;
		if (!(pr.process = uimage_resolve(s, arg, &why))) {
			diag(s, E_PROBE_POINT, pp->comps.items[i]->pos, "cannot resolve %s: %s", pp_text(pp), why);
			return -1;
		}
		uimage_add_file(s, pr.process);   /* the guest needs it */
		i++;
		if (!rate && i < n && (pp_comp_is(pp, i, "sample") || pp_comp_is(pp, i, "hz"))) {
			if (rate_comp(s, pp, i++, &pr) < 0)
				return -1;
			rate = true;
		}
	}
	if (i < n && pp_comp_is(pp, i, "counter")) {
		if (rate) {
			diag(s, E_PROBE_POINT, pp->comps.items[i]->pos, "a perf counter takes no .sample or .hz");
			return -1;
		}
		if (!kpoint_str_arg(s, pp, i, &pr.counter))
			return -1;
		pr.period = 0;   /* counting, not sampling */
		i++;
	}
	if (i < n)
		return 0;
	if (pr.type < 0 || pr.config < 0) {
		diag(s, E_PROBE_ARG, pp->pos, "perf type and config are not negative");
		return -1;
	}
	struct perf_state *st = provider_state(s, &perf_provider, sizeof(struct perf_state));
	if (pr.counter && perf_counter_index(s, pr.counter) >= 0) {
		diag(s, E_PROBE_POINT, pp->pos, "perf counter '%s' is defined twice", pr.counter);
		return -1;
	}
	struct derived_probe *dp = derived_probe_add(s, p, pp, &perf_provider, STP_PK_NORMAL);
	struct perf_probe *d = xmalloc(sizeof(*d));
	*d = pr;
	dp->data = d;
	free(dp->pp);
	struct strbuf t = STRBUF_INIT;
	strbuf_addf(&t, "perf.type(%lld).config(%lld).sample(%lld)", (long long)pr.type,
		    (long long)pr.config, (long long)pr.period);
	if (pr.process)
		strbuf_addf(&t, ".process(\"%s\")", pr.process);
	if (pr.counter) {
		strbuf_addf(&t, ".counter(\"%s\")", pr.counter);
		vec_push(&st->counters, d);
	}
	dp->pp = strbuf_detach(&t);
	if (pr.process)   /* SystemTap 4.8 lists these as written */
		dp->list_pp = pp_text(pp);
	return 1;
}

/* The counter_read_allowed hook: a counter counts in process probes' threads,
 * of its own program if it names one. */
static bool perf_read_allowed(struct session *s, const struct derived_probe *dp, const struct expr *e)
{
	struct perf_state *st = provider_state(s, &perf_provider, sizeof(struct perf_state));
	const char *path = uprobe_path(dp);

	if (e->num < 0 || e->num >= st->counters.len)
		return true;   /* reported when resolved */
	const struct perf_probe *c = st->counters.items[e->num];
	if (!path) {
		diag(s, E_BAD_CONTEXT, e->pos, "@perf(\"%s\") is read in process probes only (not in %s)",
		     c->counter, dp->pp);
		return false;
	}
	if (c->process && strcmp(c->process, path)) {
		diag(s, E_BAD_CONTEXT, e->pos, "perf counter '%s' counts in %s: @perf in a probe of %s",
		     c->counter, c->process, path);
		return false;
	}
	return true;
}

/* The sampling probes (counters sample nothing) on every CPU (!process)
 * or of a program's threads (process). */
static int samplers(struct session *s, bool process)
{
	int n = 0;

	for (int i = 0; i < s->probes.len; i++) {
		const struct derived_probe *dp = s->probes.items[i];
		const struct perf_probe *d = dp->data;
		n += dp->prov == &perf_provider && !d->counter && !!d->process == process;
	}
	return n;
}

static void emit_decls(struct session *s, struct strbuf *out)
{
	struct perf_state *st = provider_state(s, &perf_provider, sizeof(struct perf_state));
	int n = samplers(s, false), np = samplers(s, true);

	if (n)
		strbuf_addf(out, "static struct stp_perf stp_perfs[%d];\n", n);
	if (np) {
		strbuf_addf(out, "static struct stp_perf_proc stp_perf_procs[%d] = {\n", np);
		for (int i = 0; i < s->probes.len; i++) {
			const struct derived_probe *dp = s->probes.items[i];
			const struct perf_probe *d = dp->data;
			if (dp->prov != &perf_provider || d->counter || !d->process)
				continue;
			strbuf_addf(out, "\t{ .perf = { .attr = { .type = %lldU, .config = %lldULL, .%s = %lldULL, "
				    ".freq = %d }, .handler = dp_%d }, .client = { .path = ",
				    (long long)d->type, (long long)d->config, d->freq ? "sample_freq" : "sample_period",
				    (long long)d->period, d->freq, dp->index);
			strbuf_add_cstr_literal(out, d->process);
			strbuf_addf(out, " } },\n");
		}
		strbuf_addstr(out, "};\n");
	}
	if (!st->counters.len)
		return;
	strbuf_addf(out, "static struct stp_perf_counter stp_perf_counters[%d] = {\n", st->counters.len);
	for (int i = 0; i < st->counters.len; i++) {
		const struct perf_probe *d = st->counters.items[i];
		strbuf_addf(out, "\t{ .type = %lldU, .config = %lldULL, .path = ", (long long)d->type,
			    (long long)d->config);
		strbuf_add_cstr_literal(out, d->process);
		strbuf_addstr(out, " },\n");
	}
	strbuf_addstr(out, "};\n");
}

static void emit_register(struct session *s, struct strbuf *out)
{
	struct perf_state *st = provider_state(s, &perf_provider, sizeof(struct perf_state));
	int n = 0, np = 0;

	for (int i = 0; i < s->probes.len; i++) {
		struct derived_probe *dp = s->probes.items[i];
		if (dp->prov != &perf_provider)
			continue;
		const struct perf_probe *d = dp->data;
		if (d->counter) {   /* its body never runs */
			strbuf_addf(out, "\t(void)dp_%d;\n", dp->index);
			continue;
		}
		if (d->process) {
			strbuf_addf(out, "\tstp_perf_procs[%d].pp = stp_probes[%d].pp;\n", np++, dp->index);
			continue;
		}
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
	if (np)
		strbuf_addf(out, "\trc = stp_perf_procs_start(stp_perf_procs, %d);\n\tif (rc)\n\t\treturn rc;\n", np);
	if (st->counters.len)
		strbuf_addf(out, "\trc = stp_perf_counters_start(stp_perf_counters, %d);\n\tif (rc)\n\t\treturn rc;\n",
			    st->counters.len);
}

static void emit_unregister(struct session *s, struct strbuf *out)
{
	struct perf_state *st = provider_state(s, &perf_provider, sizeof(struct perf_state));
	int n = samplers(s, false), np = samplers(s, true);

	if (np)
		strbuf_addf(out, "\tstp_perf_procs_stop(stp_perf_procs, %d);\n", np);
	if (n)
		strbuf_addf(out, "\tfor (i = 0; i < %d; i++)\n\t\tstp_perf_stop(&stp_perfs[i]);\n", n);
	if (st->counters.len)
		strbuf_addstr(out, "\tstp_perf_counters_stop();\n");
}

/* --runtime=bpf: the same perf event, on every CPU */
static int bpf_attach(const struct derived_probe *dp, struct bpf_attach *at, const char **why)
{
	const struct perf_probe *p = dp->data;

	if (p->process || p->counter) {
		*why = p->process ? ".process" : ".counter";
		return -1;
	}
	*at = (struct bpf_attach){ .kind = BA_PERF, .perf_type = (unsigned)p->type,
				   .perf_config = (long long)p->config,
				   .period = (long long)(p->freq ? -p->period : p->period) };
	return 0;
}

/* A sample's registers are where the event interrupted: addr() is their ip. */
static void bpf_context(const struct derived_probe *dp, struct bpf_context *c)
{
	(void)dp;
	c->ip_back = 0;
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
	.bpf_attach = bpf_attach,
	.bpf_context = bpf_context,
	.counter_index = perf_counter_index,
	.counter_read_allowed = perf_read_allowed,
	.shapes = shapes,
};
