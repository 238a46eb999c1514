/* target_exprs.c - pass 2, step 5: every target expression ($x, @cast,
 * @var, @defined, @entry) is resolved into the lowered form once per
 * derived probe (tvars.c), in the context the probe's family gives it
 * through struct provider's hooks; here is where those hooks are asked, so
 * tvars.c knows no probe family.
 */
#include "passes.h"
#include "probes/provider.h"
#include "tvars.h"

/* What tvars needs of dp, asked of its family in the order tvars once
 * asked it itself (scope first). */
static void site_of(struct derived_probe *dp, struct tvar_site *site)
{
	const struct provider *prov = dp->prov;

	site->dp = dp;
	site->pp = dp->pp;
	site->scope = prov->tvar_scope ? prov->tvar_scope(dp) : NULL;
	site->no_dwarf = prov->without_dwarf && prov->without_dwarf(dp);
	site->is_return = prov->is_return && prov->is_return(dp);
	site->kernel = !prov->unprivileged;
	site->code = prov->tvar_code;
	site->has_entry = &dp->has_entry;
}

/* Each derived probe whose body differs from probe to probe is resolved on
 * its own, with the functions reading its $vars; a body with only @cast
 * and @var once; then every function outside any probe's context. */
int target_exprs_resolve(struct session *s)
{
	int errors = 0;
	struct probe *last = NULL;

	for (int i = 0; i < s->probes.len; i++) {
		struct derived_probe *dp = s->probes.items[i];
		struct tvar_site site;
		if (!tvars_per_probe(dp->probe)) {
			if (dp->probe == last)
				continue;
			last = dp->probe;   /* @cast/@var only: once per body */
		}
		site_of(dp, &site);
		/* and the functions reading its $vars (pass 3 writes a copy of each) */
		context_funcs_reached(dp->probe->body, &dp->ctx_funcs);
		errors += tvars_resolve_body(s, &site, dp->probe->body, &dp->ctx_funcs);
	}
	for (int i = 0; i < s->funcs.len; i++) {
		struct func *f = s->funcs.items[i];
		if (!f->body || f->in_context)
			continue;
		errors += tvars_resolve_body(s, NULL, f->body, NULL);
	}
	return errors;
}
