/* timer.c - timer.s/ms/us/ns/jiffies/hz(N)[.randomize(M)] probes.
 *
 * All run from hrtimers (runtime/timer.h): the period is converted to
 * nanoseconds here; randomize(M) adds a uniform offset in [-M, M] (same unit)
 * to every period, as SystemTap does.
 */
#include "provider.h"
#include "bpf_proto.h"

#include <stdint.h>
#include <string.h>

#include "diag.h"

extern const struct provider timer_provider;

struct timer_probe {
	/* ns; jiffies periods are stored negated, converted in C (HZ) */
	int64_t period_ns, randomize_ns;
};

static const struct { const char *unit; int64_t ns; } units[] = {
	{ "s", 1000000000LL }, { "sec", 1000000000LL }, { "ms", 1000000LL },
	{ "msec", 1000000LL }, { "us", 1000LL }, { "usec", 1000LL }, { "ns", 1LL },
	{ "nsec", 1LL }, { "jiffies", 0 }, { "hz", -1 },
};

static int derive(struct session *s, struct probe *p, struct probe_point *pp)
{
	int64_t n, r = 0;
	size_t u;

	if (!pp_comp_is(pp, 0, "timer") || pp->comps.len < 2)
		return 0;
	for (u = 0; u < sizeof(units) / sizeof(units[0]); u++)
		if (pp_comp_is(pp, 1, units[u].unit))
			break;
	if (u == sizeof(units) / sizeof(units[0]))
		return 0;
	if (!pp_comp_num(pp, 1, &n) || n <= 0) {
		diag(s, E_PROBE_ARG, pp->comps.items[1]->pos,
		     "timer.%s needs a positive number", units[u].unit);
		return -1;
	}
	if (pp->comps.len == 3 && pp_comp_is(pp, 2, "randomize")) {
		if (!pp_comp_num(pp, 2, &r) || r < 0 || units[u].ns < 0) {
			diag(s, E_PROBE_ARG, pp->comps.items[2]->pos,
			     "randomize needs a non-negative number (and is not valid with timer.hz)");
			return -1;
		}
	} else if (pp->comps.len != 2) {
		return 0;
	}
	if (r > n) {
		diag(s, E_PROBE_ARG, pp->comps.items[2]->pos,
		     "randomize(%lld) is larger than the period", (long long)r);
		return -1;
	}
	/* the period in ns must fit the int64 it is kept in (r <= n fits then) */
	if (units[u].ns > 0 && n > INT64_MAX / units[u].ns) {
		diag(s, E_PROBE_ARG, pp->comps.items[1]->pos,
		     "timer.%s(%lld) is too long a period", units[u].unit, (long long)n);
		return -1;
	}
	struct derived_probe *dp = derived_probe_add(s, p, pp, &timer_provider, STP_PK_NORMAL);
	struct timer_probe *t = xcalloc(1, sizeof(*t));
	if (units[u].ns > 0) {
		t->period_ns = n * units[u].ns;
		t->randomize_ns = r * units[u].ns;
	} else if (units[u].ns == 0) {          /* jiffies: converted in C (HZ) */
		t->period_ns = -n;
		t->randomize_ns = -r;
	} else {                                /* hz: n times a second */
		t->period_ns = 1000000000LL / n;
	}
	dp->data = t;
	return 1;
}

/* ns for a period: jiffies periods are stored negated and converted by the
 * kernel's own HZ at module build time. */
static void emit_period(struct strbuf *out, int64_t v)
{
	if (v < 0)
		strbuf_addf(out, "(u64)jiffies_to_nsecs(%lldULL)", (long long)-v);
	else
		strbuf_addf(out, "%lldULL", (long long)v);
}

static void emit_decls(struct session *s, struct strbuf *out)
{
	int n = provider_probes(s, &timer_provider);

	if (!n)
		return;
	strbuf_addf(out, "static struct stp_timer stp_timers[%d];\n", n);
}

static void emit_register(struct session *s, struct strbuf *out)
{
	int n = 0;

	for (int i = 0; i < s->probes.len; i++) {
		struct derived_probe *dp = s->probes.items[i];
		if (dp->prov != &timer_provider)
			continue;
		const struct timer_probe *t = dp->data;
		strbuf_addf(out, "\tstp_timers[%d].period_ns = ", n);
		emit_period(out, t->period_ns);
		strbuf_addf(out, ";\n\tstp_timers[%d].rand_ns = ", n);
		emit_period(out, t->randomize_ns);
		strbuf_addf(out, ";\n\tstp_timers[%d].handler = dp_%d;\n", n, dp->index);
		strbuf_addf(out, "\tstp_timer_start(&stp_timers[%d]);\n", n);
		n++;
	}
}

static void emit_unregister(struct session *s, struct strbuf *out)
{
	int n = provider_probes(s, &timer_provider);

	if (n)
		strbuf_addf(out, "\tfor (i = 0; i < %d; i++)\n\t\tstp_timer_stop(&stp_timers[i]);\n", n);
}

/* emit_period's ns for the BPF bundle, which is not built against the
 * kernel: jiffies at Debian's HZ, 250 (4 ms). */
static long long bpf_ns(int64_t v)
{
	return v < 0 ? -v * 4000000LL : v;
}

/* --runtime=bpf: a cpu-clock perf event on CPU 0 (jiffies at Debian's HZ,
 * 250); a randomized one only stapbpf's own timer can run (the BPF backend
 * makes it a utimer) */
static int bpf_attach(const struct derived_probe *dp, struct bpf_attach *at, const char **why)
{
	const struct timer_probe *t = dp->data;

	(void)why;
	*at = (struct bpf_attach){ .kind = BA_TIMER, .period = bpf_ns(t->period_ns),
				   .randomize = t->randomize_ns ? bpf_ns(t->randomize_ns) : 0 };
	return 0;
}

/* A jiffies timer is SystemTap's "timer" kind; the others are hrtimers. */
static const char *probe_type(const struct derived_probe *dp)
{
	return pp_comp_is(dp->point, 1, "jiffies") ? "timer" : "hrtimer";
}

static const char *const shapes[] = { "timer.s()", "timer.sec()", "timer.ms()", "timer.msec()", "timer.us()", "timer.usec()", "timer.ns()", "timer.nsec()", "timer.jiffies()", "timer.hz()", NULL };

const struct provider timer_provider = {
	.name = "timer",
	.runtime_header = "timer.h",
	.probe_type = probe_type,
	.derive = derive,
	.emit_decls = emit_decls,
	.emit_register = emit_register,
	.emit_unregister = emit_unregister,
	.bpf_attach = bpf_attach,
	.shapes = shapes,
	.unprivileged = true,
};
