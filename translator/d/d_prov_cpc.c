/* d_prov_cpc.c - the cpc provider: cpc:::EVENT-MODE-N fires on each CPU
 * every N occurrences of a performance counter's event (cpu_clock,
 * instructions, branches ... perf's names, '-' written '_'), counted in
 * user mode, the kernel, or all, as cstap's perf.sw/perf.hw probes sampled
 * every N. Overflow counts under 5000 are no probe, as in DTrace. arg0 is
 * the kernel PC (0 in user mode), arg1 the user PC (0 in the kernel).
 */
#include <stdlib.h>
#include <string.h>

#include "d/d_lower.h"
#include "d/d_provider.h"

#define MIN_COUNT 5000

/* DTrace's event names and cstap's probes of them */
static const char *const events[][2] = {
	{ "cpu_clock", "perf.sw.cpu_clock" }, { "task_clock", "perf.sw.task_clock" },
	{ "page_faults", "perf.sw.page_faults" }, { "context_switches", "perf.sw.context_switches" },
	{ "cpu_migrations", "perf.sw.cpu_migrations" }, { "cpu_cycles", "perf.hw.cpu_cycles" },
	{ "instructions", "perf.hw.instructions" }, { "cache_references", "perf.hw.cache_references" },
	{ "cache_misses", "perf.hw.cache_misses" }, { "branches", "perf.hw.branch_instructions" },
	{ "branch_instructions", "perf.hw.branch_instructions" }, { "branch_misses", "perf.hw.branch_misses" },
	{ "bus_cycles", "perf.hw.bus_cycles" }, { "ref_cpu_cycles", "perf.hw.ref_cpu_cycles" },
};

/* "cpu_clock-all-10000": its site, its mode in *key ('a' all, 'u' user, 'k' kernel) */
static char *parse(const char *name, long *key)
{
	const char *dash = strchr(name, '-'), *mode, *count;
	char *end;

	if (!dash || !(count = strchr(dash + 1, '-')))
		return NULL;
	mode = dash + 1;
	long long n = strtoll(count + 1, &end, 10);
	if (*end || end == count + 1 || n < MIN_COUNT)
		return NULL;
	if (!strncmp(mode, "all-", 4))
		*key = 'a';
	else if (!strncmp(mode, "user-", 5))
		*key = 'u';
	else if (!strncmp(mode, "kernel-", 7))
		*key = 'k';
	else
		return NULL;
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (strlen(events[i][0]) == (size_t)(dash - name) && !strncmp(name, events[i][0], (size_t)(dash - name)))
			return xasprintf("%s.sample(%lld)", events[i][1], n);
	return NULL;
}

static void match(const struct d_family *fam, const struct d_pdesc *d, d_probevec *out)
{
	const d_probevec *all = d_provider_catalog();
	char *site;
	long key;

	if (!d_glob(d->prov, "cpc") || !d_glob(d->mod, "") || !d_glob(d->func, ""))
		return;
	if (*d->name && !strpbrk(d->name, "*?[\\")) {   /* made when named */
		if ((site = parse(d->name, &key)))
			vec_push(out, d_probe_get(fam, "cpc", "", "", d->name, site, key));
		return;
	}
	for (int i = 0; i < all->len; i++)
		if (all->items[i]->fam == fam && d_glob(d->name, all->items[i]->name))
			vec_push(out, all->items[i]);
}

/* counted in one mode only: the sample's */
static bool guard(const d_probevec *ps, struct strbuf *out)
{
	long key = ps->items[0]->key;

	if (key == 'a')
		return false;
	strbuf_addstr(out, key == 'u' ? "user_mode()" : "!user_mode()");
	return true;
}

static bool builtin(struct d_lower *L, struct strbuf *out, const char *name, const struct d_expr *index)
{
	(void)L;
	(void)index;
	if (!strcmp(name, "arg0"))
		strbuf_addstr(out, "(user_mode() ? 0 : addr())");
	else if (!strcmp(name, "arg1"))
		strbuf_addstr(out, "(user_mode() ? uaddr() : 0)");
	else
		return false;
	return true;
}

const struct d_family d_fam_cpc = {
	.name = "cpc",
	.match = match,
	.guard = guard,
	.builtin = builtin,
	.attrs = { "Evolving", "Evolving", "Common", "Evolving", "Evolving", "Common" },
};
