/* d_provider.c - DTrace's providers as cstap's probe points: the
 * description of a clause as the points it names (BEGIN as begin,
 * tick-10ms as timer.ms(10) ...), and the built-in variables whose value
 * depends on the probe (arg0.., args[], probefunc ...). */
#include <stdlib.h>
#include <string.h>

#include "d/d_lower.h"

/* "tick-10ms" -> timer.ms(10); the unit as DTrace reads it, hz without one */
static bool timer_point(const char *name, struct strbuf *out)
{
	static const struct { const char *unit, *stap; int64_t mul; } u[] = {
		{ "ns", "ns", 1 }, { "nsec", "ns", 1 }, { "us", "us", 1 }, { "usec", "us", 1 },
		{ "ms", "ms", 1 }, { "msec", "ms", 1 }, { "s", "s", 1 }, { "sec", "s", 1 },
		{ "m", "s", 60 }, { "min", "s", 60 }, { "h", "s", 3600 }, { "hour", "s", 3600 },
		{ "d", "s", 86400 }, { "day", "s", 86400 }, { "hz", "hz", 1 }, { "", "hz", 1 },
	};
	const char *p = strchr(name, '-');
	char *end;

	if (!p)
		return false;
	long long n = strtoll(p + 1, &end, 10);
	if (end == p + 1 || n <= 0)
		return false;
	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
		if (!strcmp(end, u[i].unit)) {
			if ((!strcmp(u[i].stap, "ns") && n < 200000) || (!strcmp(u[i].stap, "us") && n < 200))
				return false;   /* DTrace's profile provider: 200 us at least */
			strbuf_addf(out, "timer.%s(%lld)", u[i].stap, n * u[i].mul);
			return true;
		}
	return false;
}

/* the probe point of one description, or an error (D_PDESC_ZERO) */
bool d_probe_point(struct d_lower *L, const struct d_pdesc *d, struct strbuf *out)
{
	const char *prov = d->prov, *name = d->name;

	if ((!*prov || !strcmp(prov, "dtrace")) && !*d->mod && !*d->func) {
		if (!strcmp(name, "BEGIN"))
			return strbuf_addstr(out, "begin"), true;
		if (!strcmp(name, "END"))
			return strbuf_addstr(out, "end"), true;
		if (!strcmp(name, "ERROR"))
			return strbuf_addstr(out, "error"), true;
	}
	if ((!*prov || !strcmp(prov, "profile")) && !*d->mod && !*d->func &&
	    (!strncmp(name, "tick-", 5) || !strncmp(name, "profile-", 8)) && timer_point(name, out))
		return true;
	(void)L;
	return false;
}

/* the built-in variable name (args[...]: index is the DE_INDEX) at the
 * clause's probe, false when the provider leaves it to the defaults (the
 * dtrace provider's: arg0.. 0, probefunc from the description) */
bool d_provider_builtin(struct d_lower *L, struct strbuf *out, const char *name, const struct d_expr *index)
{
	(void)L;
	(void)out;
	(void)name;
	(void)index;
	return false;
}
