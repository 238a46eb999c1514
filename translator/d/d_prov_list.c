/* d_prov_list.c - dtrace -l: the probes descriptions match, one a line
 * under DTrace's header; -lv adds each probe's stability attributes and
 * argument types. A description that matches nothing is said on stderr
 * and the others are still listed, as DTrace does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d/d_provider.h"

/* the attribute and argument lines -lv prints under a probe */
static void list_verbose(const struct d_probe *p)
{
	const struct d_attrs *a = &p->fam->attrs;
	const char *t;
	int i = 0;

	printf("\n\tProbe Description Attributes\n"
	       "\t\tIdentifier Names: %s\n\t\tData Semantics:   %s\n\t\tDependency Class: %s\n\n",
	       a->name_stab, a->data_stab, a->dep_class);
	printf("\tArgument Attributes\n"
	       "\t\tIdentifier Names: %s\n\t\tData Semantics:   %s\n\t\tDependency Class: %s\n\n",
	       a->arg_name_stab, a->arg_data_stab, a->arg_dep_class);
	printf("\tArgument Types\n");
	while (p->fam->arg_type && (t = p->fam->arg_type(p, i)))
		printf("\t\targs[%d]: %s\n", i++, t);
	if (!i)
		printf("\t\tNone\n");
	printf("\n");
}

/* the IDs listed so far: each probe is listed once */
struct seen {
	unsigned char *bits;
	size_t n;
};

/* true the first time it is asked of p */
static bool first_time(struct seen *s, const struct d_probe *p)
{
	if (p->id >= s->n) {
		size_t n = 2 * (size_t)p->id + 64;
		s->bits = xrealloc(s->bits, n);
		memset(s->bits + s->n, 0, n - s->n);
		s->n = n;
	}
	if (s->bits[p->id])
		return false;
	s->bits[p->id] = 1;
	return true;
}

int d_provider_list(const struct d_pdesc *const *descs, int n, bool verbose)
{
	struct seen seen = { 0 };
	int rc = 0;

	printf("%5s %10s %17s %33s %s\n", "ID", "PROVIDER", "MODULE", "FUNCTION", "NAME");
	for (int i = 0; i < n; i++) {
		d_probevec ps = { 0 };
		d_provider_match(descs[i], &ps);
		if (!ps.len) {
			fflush(stdout);
			fprintf(stderr, "dtrace: failed to match %s:%s:%s:%s: No probe matches description\n",
				descs[i]->prov, descs[i]->mod, descs[i]->func, descs[i]->name);
			rc = 1;
		}
		for (int j = 0; j < ps.len; j++) {
			const struct d_probe *p = ps.items[j];
			if (!first_time(&seen, p))
				continue;
			printf("%5u %10s %17s %33s %s\n", p->id, p->prov, p->mod, p->func, p->name);
			if (verbose)
				list_verbose(p);
		}
		free(ps.items);
	}
	free(seen.bits);
	fflush(stdout);
	return rc;
}

int d_provider_list_program(const struct d_program *prog, bool verbose)
{
	VEC(const struct d_pdesc *) descs = { 0 };
	struct d_pdesc any = { .text = "", .prov = "", .mod = "", .func = "", .name = "" };

	if (!prog)
		vec_push(&descs, &any);
	for (int i = 0; prog && i < prog->clauses.len; i++)
		for (int j = 0; j < prog->clauses.items[i]->descs.len; j++)
			vec_push(&descs, prog->clauses.items[i]->descs.items[j]);
	d_provider_list(descs.items, descs.len, verbose);
	free(descs.items);
	return 0;   /* as DTrace: a description matching nothing is said, not an error */
}
