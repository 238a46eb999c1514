/* begin_end.c - begin, end, error and never probes.
 *
 * begin[(N)] runs once when the session starts, end[(N)] once when it stops
 * normally, error[(N)] when it stops after a run-time error; N orders probes
 * of one kind (lower first, ties in script order). never is checked but never
 * runs. These need no registration: translate.c calls them in order.
 */
#include "provider.h"

#include "diag.h"

extern const struct provider begin_end_provider;

static int derive(struct session *s, struct probe *p, struct probe_point *pp)
{
	static const struct { const char *name; enum probe_kind kind; } kinds[] = {
		{ "begin", PK_BEGIN }, { "end", PK_END }, { "error", PK_ERROR }, { "never", PK_NEVER },
	};
	int64_t order = 0;

	if (pp->comps.len != 1)
		return 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!pp_comp_is(pp, 0, kinds[i].name))
			continue;
		const struct expr *arg = pp->comps.items[0]->arg;
		if (arg && (kinds[i].kind == PK_NEVER || !pp_comp_num(pp, 0, &order))) {
			diag(s, E_PROBE_ARG, pp->comps.items[0]->pos,
			     "probe point '%s' takes %s", kinds[i].name,
			     kinds[i].kind == PK_NEVER ? "no parameter" : "only a number");
			return -1;
		}
		struct derived_probe *dp = derived_probe_add(s, p, pp, &begin_end_provider, kinds[i].kind);
		dp->order = order;
		return 1;
	}
	return 0;
}

const struct provider begin_end_provider = {
	.name = "begin/end",
	.derive = derive,
};
