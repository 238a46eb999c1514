/* providers.c - the table of probe families, and helpers they share. */
#include "provider.h"

#include <string.h>

extern const struct provider begin_end_provider;
extern const struct provider timer_provider;
extern const struct provider kprobe_provider;
extern const struct provider dwarf_provider;
extern const struct provider kfunc_btf_provider;
extern const struct provider tracepoint_provider;
extern const struct provider perf_provider;
extern const struct provider procfs_provider;
extern const struct provider hwbkpt_provider;
extern const struct provider netfilter_provider;
extern const struct provider uprobes_provider;
extern const struct provider process_provider;

/* Order matters only when two providers could claim the same point. */
const struct provider *const providers[] = {
	&begin_end_provider,
	&timer_provider,
	&kprobe_provider,
	&dwarf_provider,
	&kfunc_btf_provider,
	&tracepoint_provider,
	&perf_provider,
	&procfs_provider,
	&hwbkpt_provider,
	&netfilter_provider,
	&uprobes_provider,
	&process_provider,
	NULL,
};

static int provider_index(const struct provider *prov)
{
	int i;

	for (i = 0; providers[i] && providers[i] != prov; i++)
		;
	return i;
}

int counter_index(struct session *s, const char *name)
{
	for (int i = 0; providers[i]; i++) {
		int k = providers[i]->counter_index ? providers[i]->counter_index(s, name) : -1;
		if (k >= 0)
			return k;
	}
	return -1;
}

bool counter_read_allowed(struct session *s, const struct derived_probe *dp, const struct expr *e)
{
	for (int i = 0; providers[i]; i++)
		if (providers[i]->counter_read_allowed && !providers[i]->counter_read_allowed(s, dp, e))
			return false;
	return true;
}

struct probe *probe_bodies_next(const struct session *s, int *i)
{
	while (*i < s->probes.len) {
		struct probe *p = s->probes.items[(*i)++]->probe;
		if (*i == 1 || s->probes.items[*i - 2]->probe != p)
			return p;
	}
	return NULL;
}

void bpf_context_of(const struct derived_probe *dp, struct bpf_context *c)
{
	*c = (struct bpf_context){ .ip_back = -1, .mark_args = -1 };
	if (dp && dp->prov->bpf_context)
		dp->prov->bpf_context(dp, c);
}

const char *probe_type_name(const struct derived_probe *dp)
{
	return dp->prov->probe_type ? dp->prov->probe_type(dp) : dp->prov->type_name ? dp->prov->type_name : "";
}

int provider_probes(const struct session *s, const struct provider *prov)
{
	int n = 0;

	for (int i = 0; i < s->probes.len; i++)
		n += s->probes.items[i]->prov == prov;
	return n;
}

void *provider_state(struct session *s, const struct provider *prov, size_t size)
{
	int i = provider_index(prov);

	if (!s->provider_states)
		s->provider_states = xcalloc(sizeof(providers) / sizeof(providers[0]), sizeof(void *));
	if (!s->provider_states[i])
		s->provider_states[i] = xcalloc(1, size);
	return s->provider_states[i];
}

struct derived_probe *derived_probe_add(struct session *s, struct probe *p,
					struct probe_point *pp,
					const struct provider *prov, enum stp_probe_kind kind)
{
	struct derived_probe *dp = xcalloc(1, sizeof(*dp));

	dp->probe = p;
	dp->point = pp;
	dp->prov = prov;
	dp->kind = kind;
	dp->pp = pp_text(pp);
	dp->index = s->probes.len;
	vec_push(&s->probes, dp);
	return dp;
}

bool pp_comp_is(const struct probe_point *pp, int i, const char *name)
{
	return i < pp->comps.len && strcmp(pp->comps.items[i]->name, name) == 0;
}

bool pp_comp_num(const struct probe_point *pp, int i, int64_t *out)
{
	const struct expr *a;

	if (i >= pp->comps.len || !(a = pp->comps.items[i]->arg) || a->kind != EXPR_NUM)
		return false;
	*out = a->num;
	return true;
}

char *pp_text(const struct probe_point *pp)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < pp->comps.len; i++) {
		const struct pp_comp *c = pp->comps.items[i];
		if (i)
			strbuf_addch(&sb, '.');
		strbuf_addstr(&sb, c->name);
		if (!c->arg)
			continue;
		if (c->arg->kind == EXPR_NUM) {
			strbuf_addf(&sb, "(%lld)", (long long)c->arg->num);
		} else if (c->arg->kind == EXPR_STR) {
			strbuf_addstr(&sb, "(\"");
			strbuf_add(&sb, c->arg->str, c->arg->str_len);
			strbuf_addstr(&sb, "\")");
		}
	}
	return strbuf_detach(&sb);
}
