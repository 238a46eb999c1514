/* d_prov_profile.c - the profile provider: tick-N fires on one CPU
 * every N units (cstap's timer.s/ms/us/ns/hz), profile-N on every CPU
 * (the cpu-clock software event sampled every N units, one per CPU).
 * N without a unit is a rate in hertz; periods under 200 microseconds are
 * no probe, as in DTrace. At profile-N arg0 is the kernel's PC (0 in user
 * mode), arg1 the user PC (0 in the kernel).
 *
 * A probe is made when a description names it; -l with a pattern lists
 * those made and DTrace's usual ones (profile-97 ... tick-5000).
 */
#include <stdlib.h>
#include <string.h>

#include "d/d_lower.h"
#include "d/d_provider.h"

#define MIN_PERIOD_NS 200000LL

/* "tick-10ms" -> kind 't', the site: timer.ms(10); false: not a
 * probe of the provider */
static bool parse(const char *name, char *kind, char **site)
{
	static const struct { const char *unit; long long ns; } u[] = {
		{ "ns", 1 }, { "nsec", 1 }, { "us", 1000 }, { "usec", 1000 }, { "ms", 1000000 },
		{ "msec", 1000000 }, { "s", 1000000000 }, { "sec", 1000000000 }, { "m", 60000000000 },
		{ "min", 60000000000 }, { "h", 3600000000000 }, { "hour", 3600000000000 },
		{ "d", 86400000000000 }, { "day", 86400000000000 }, { "hz", 0 }, { "", 0 },
	};
	const char *p;
	char *end;

	if (!strncmp(name, "tick-", 5))
		*kind = 't', p = name + 5;
	else if (!strncmp(name, "profile-", 8))
		*kind = 'p', p = name + 8;
	else
		return false;
	if (*p < '0' || *p > '9')
		return false;
	long long n = strtoll(p, &end, 10);
	if (n <= 0)
		return false;
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (strcmp(end, u[i].unit))
			continue;
		long long ns = u[i].ns ? n * u[i].ns : 1000000000LL / n;
		if (ns < MIN_PERIOD_NS)
			return false;
		if (*kind == 'p')
			*site = xasprintf("perf.sw.cpu_clock.sample(%lld)", ns);
		else if (!u[i].ns)
			*site = xasprintf("timer.hz(%lld)", n);
		else if (ns % 1000000000 == 0)
			*site = xasprintf("timer.s(%lld)", ns / 1000000000);
		else if (ns % 1000000 == 0)
			*site = xasprintf("timer.ms(%lld)", ns / 1000000);
		else if (ns % 1000 == 0)
			*site = xasprintf("timer.us(%lld)", ns / 1000);
		else
			*site = xasprintf("timer.ns(%lld)", ns);
		return true;
	}
	return false;
}

/* the probe of that name, made if it is one */
static struct d_probe *probe_named(const char *name)
{
	char kind, *site;

	if (!parse(name, &kind, &site))
		return NULL;
	return d_probe_get(&d_fam_profile, "profile", "", "", name, site, kind);
}

static void match(const struct d_family *fam, const struct d_pdesc *d, d_probevec *out)
{
	static const char *const usual[] = {
		"profile-97", "profile-199", "profile-499", "profile-997", "profile-1999", "profile-4001",
		"profile-4999", "tick-1", "tick-10", "tick-100", "tick-500", "tick-1000", "tick-5000",
	};
	static bool made;
	struct d_probe *p;

	(void)fam;
	if (!d_glob(d->prov, "profile") || !d_glob(d->mod, "") || !d_glob(d->func, ""))
		return;
	if (*d->name && !strpbrk(d->name, "*?[\\")) {
		if ((p = probe_named(d->name)))
			vec_push(out, p);
		return;
	}
	if (!made) {
		made = true;
		for (size_t i = 0; i < sizeof(usual) / sizeof(usual[0]); i++)
			probe_named(usual[i]);
	}
	/* the provider's probes made so far */
	const d_probevec *all = d_provider_catalog();
	for (int i = 0; i < all->len; i++)
		if (all->items[i]->fam == &d_fam_profile && d_glob(d->name, all->items[i]->name))
			vec_push(out, all->items[i]);
}

/* arg0/arg1 of profile-N: where the CPU was, kernel or user */
static bool builtin(struct d_lower *L, struct strbuf *out, const char *name, const struct d_expr *index)
{
	bool profile = L->site_probes->items[0]->key == 'p';

	(void)index;
	if (!strcmp(name, "arg0") && profile) {
		strbuf_addstr(out, "(user_mode() ? 0 : addr())");
		return true;
	}
	if (!strcmp(name, "arg1") && profile) {
		strbuf_addstr(out, "(user_mode() ? uaddr() : 0)");
		return true;
	}
	return false;
}

const struct d_family d_fam_profile = {
	.name = "profile",
	.match = match,
	.builtin = builtin,
	.attrs = { "Evolving", "Evolving", "Common", "Evolving", "Evolving", "Common" },
};
