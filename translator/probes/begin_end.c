/* begin_end.c - begin, end, error and never probes.
 *
 * begin[(N)] runs once when the session starts, end[(N)] once when it stops
 * normally, error[(N)] when it stops after a run-time error; N orders probes
 * of one kind (lower first, ties in script order). never is checked but never
 * runs. Nothing to register: the family's "registration" calls the begin
 * probes, before any other family registers (it is first in the table), and
 * its "unregistration" calls the end or error probes after every other
 * family has unregistered.
 */
#include "provider.h"
#include "bpf_proto.h"

#include <stdlib.h>

#include "diag.h"

extern const struct provider begin_end_provider;

struct begin_end_probe {
	int64_t order;          /* begin(N) / end(N) / error(N) */
};

static int derive(struct session *s, struct probe *p, struct probe_point *pp)
{
	static const struct { const char *name; enum stp_probe_kind kind; } kinds[] = {
		{ "begin", STP_PK_BEGIN }, { "end", STP_PK_END }, { "error", STP_PK_ERROR }, { "never", STP_PK_NEVER },
	};
	int64_t order = 0;

	if (pp->comps.len != 1)
		return 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!pp_comp_is(pp, 0, kinds[i].name))
			continue;
		const struct expr *arg = pp->comps.items[0]->arg;
		if (arg && (kinds[i].kind == STP_PK_NEVER || !pp_comp_num(pp, 0, &order))) {
			diag(s, E_PROBE_ARG, pp->comps.items[0]->pos,
			     "probe point '%s' takes %s", kinds[i].name,
			     kinds[i].kind == STP_PK_NEVER ? "no parameter" : "only a number");
			return -1;
		}
		struct derived_probe *dp = derived_probe_add(s, p, pp, &begin_end_provider, kinds[i].kind);
		struct begin_end_probe *b = xcalloc(1, sizeof(*b));
		b->order = order;
		dp->data = b;
		return 1;
	}
	return 0;
}

static int cmp_order(const void *a, const void *b)
{
	const struct derived_probe *x = *(struct derived_probe *const *)a;
	const struct derived_probe *y = *(struct derived_probe *const *)b;
	int64_t ox = ((const struct begin_end_probe *)x->data)->order;
	int64_t oy = ((const struct begin_end_probe *)y->data)->order;

	if (ox != oy)
		return ox < oy ? -1 : 1;
	return x->index - y->index;
}

/* Calls of the probes of one kind, in their order. */
static void emit_calls(struct session *s, struct strbuf *out, enum stp_probe_kind k, const char *indent)
{
	VEC(struct derived_probe *) v = { 0 };

	for (int i = 0; i < s->probes.len; i++)
		if (s->probes.items[i]->prov == &begin_end_provider && s->probes.items[i]->kind == k)
			vec_push(&v, s->probes.items[i]);
	if (v.len)
		qsort(v.items, v.len, sizeof(v.items[0]), cmp_order);
	for (int i = 0; i < v.len; i++)
		strbuf_addf(out, "%sdp_%d();\n", indent, v.items[i]->index);
	free(v.items);
}

/* The begin probes; an exit() in one of them stops the start here. */
static void emit_register(struct session *s, struct strbuf *out)
{
	emit_calls(s, out, STP_PK_BEGIN, "\t");
	strbuf_addstr(out, "\tif (atomic_read(&stp_state) != STP_STARTING)\n\t\treturn 0;\n");
}

/* The end probes after a normal stop, the error probes after errors. */
static void emit_unregister(struct session *s, struct strbuf *out)
{
	strbuf_addstr(out, "\tif (atomic_read(&stp_state) == STP_STOPPING) {\n");
	emit_calls(s, out, STP_PK_END, "\t\t");
	strbuf_addstr(out, "\t} else if (atomic_read(&stp_state) == STP_ERROR) {\n");
	emit_calls(s, out, STP_PK_ERROR, "\t\t");
	strbuf_addstr(out, "\t}\n");
}

/* Called from the module's own start and stop, in process context. */
static const struct handler_abi called_directly = {
	.params = "void",
	.fill = "\tc->regs = NULL;\n",
};

static const char *probe_type(const struct derived_probe *dp)
{
	return "begin_end";
}

static int64_t probe_order(const struct derived_probe *dp)
{
	return ((const struct begin_end_probe *)dp->data)->order;
}

/* --runtime=bpf: stapbpf runs these in its interpreter */
static int bpf_attach(const struct derived_probe *dp, struct bpf_attach *at, const char **why)
{
	(void)why;
	*at = (struct bpf_attach){ .kind = dp->kind == STP_PK_BEGIN ? BA_BEGIN
					   : dp->kind == STP_PK_END ? BA_END : BA_ERROR };
	return 0;
}

static const char *const shapes[] = { "begin", "end", "error", "never", NULL };

const struct provider begin_end_provider = {
	.name = "begin/end",
	.probe_type = probe_type,
	.derive = derive,
	.handler = &called_directly,
	.emit_register = emit_register,
	.emit_unregister = emit_unregister,
	.bpf_attach = bpf_attach,
	.probe_order = probe_order,
	.shapes = shapes,
	.unprivileged = true,
};
