/* hwbkpt.c - kernel.data(ADDRESS | "SYMBOL")[.length(N)].write / .rw:
 * hardware watchpoints (runtime/hwbkpt.h).
 *
 * A symbol is looked up in the kernel's symbol table (its link address; the
 * module adds the KASLR offset, stp_kaslr_offset, as target variables' code
 * does: ksyms_use_kaslr); an address is taken as a run-time one. The length is rounded up
 * to one x86 debug registers take (1, 2, 4 or 8 bytes; a symbol's is 1, as
 * in SystemTap). x86 has four debug registers: a fifth watchpoint gets a
 * warning here and fails to register.
 */
#include "provider.h"
#include "bpf_proto.h"

#include <inttypes.h>
#include <string.h>

#include "diag.h"
#include "target/ksyms.h"

extern const struct provider hwbkpt_provider;

struct hwbkpt_probe {
	uint64_t addr;
	bool linked;     /* a symbol's link address: KASLR offset added at load */
	int len;
	bool rw;
};

/* A data symbol's link address, 0 if none. */
static uint64_t data_symbol(const struct ksymtab *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->syms[i].name, name))
			return t->syms[i].addr;
	return 0;
}

static int derive(struct session *s, struct probe *p, struct probe_point *pp)
{
	struct hwbkpt_probe hb = { .len = 1 };
	int64_t v;
	int i = 2;

	if (!pp_comp_is(pp, 0, "kernel") || !pp_comp_is(pp, 1, "data"))
		return 0;
	const struct expr *a = pp->comps.items[1]->arg;
	if (!a || (a->kind != EXPR_NUM && a->kind != EXPR_STR)) {
		diag(s, E_PROBE_ARG, pp->comps.items[1]->pos, "kernel.data needs an address or a symbol name");
		return -1;
	}
	if (pp_comp_is(pp, i, "length")) {
		if (a->kind == EXPR_STR) {
			diag(s, E_PROBE_ARG, pp->comps.items[i]->pos, "length is not valid with a symbol name");
			return -1;
		}
		if (!pp_comp_num(pp, i, &v) || v <= 0 || v > 8) {
			diag(s, E_PROBE_ARG, pp->comps.items[i]->pos,
			     "length must be 1 to 8 bytes (what x86's debug registers watch)");
			return -1;
		}
		hb.len = v <= 1 ? 1 : v <= 2 ? 2 : v <= 4 ? 4 : 8;
		i++;
	}
	if (pp_comp_is(pp, i, "rw"))
		hb.rw = true;
	else if (!pp_comp_is(pp, i, "write"))
		return 0;
	if (i + 1 != pp->comps.len)
		return 0;
	if (a->kind == EXPR_NUM) {
		hb.addr = (uint64_t)a->num;
	} else {
		const char *why = NULL;
		const struct ksymtab *t = ksyms_kernel(s, &why);
		hb.addr = t ? data_symbol(t, a->str) : 0;
		if (!hb.addr) {
			if (pp->optional)
				return 1;
			diag(s, E_PROBE_POINT, pp->comps.items[1]->pos, "no kernel symbol '%s'%s%s", a->str,
			     why ? ": " : "", why ? why : "");
			return -1;
		}
		hb.linked = true;
		ksyms_use_kaslr(s);
	}
	if (hb.addr % hb.len) {
		diag(s, E_PROBE_ARG, pp->comps.items[1]->pos,
		     "address 0x%" PRIx64 " is not aligned to the length (%d bytes)", hb.addr, hb.len);
		return -1;
	}
	if (provider_probes(s, &hwbkpt_provider) == 4)
		diag(s, W_GENERIC, pp->pos, "more than 4 hardware watchpoints: x86 has 4 debug registers, "
		     "the others will fail to register");
	struct derived_probe *dp = derived_probe_add(s, p, pp, &hwbkpt_provider, STP_PK_NORMAL);
	struct hwbkpt_probe *d = xmalloc(sizeof(*d));
	*d = hb;
	dp->data = d;
	if (a->kind == EXPR_NUM) {   /* an address is written in hex, as SystemTap does */
		char *rest = strchr(dp->pp, ')');
		char *pp = xasprintf("kernel.data(0x%" PRIx64 "%s", hb.addr, rest ? rest : ")");
		free(dp->pp);
		dp->pp = pp;
	}
	return 1;
}

static void emit_decls(struct session *s, struct strbuf *out)
{
	strbuf_addf(out, "static struct stp_hwbkpt stp_hwbkpts[%d];\n", provider_probes(s, &hwbkpt_provider));
}

static void emit_register(struct session *s, struct strbuf *out)
{
	int n = 0;

	for (int i = 0; i < s->probes.len; i++) {
		struct derived_probe *dp = s->probes.items[i];
		if (dp->prov != &hwbkpt_provider)
			continue;
		const struct hwbkpt_probe *d = dp->data;
		strbuf_addf(out, "\tstp_hwbkpts[%d].addr = 0x%" PRIx64 "UL%s;\n", n, d->addr,
			    d->linked ? " + stp_kaslr_offset" : "");
		strbuf_addf(out, "\tstp_hwbkpts[%d].len = %d;\n\tstp_hwbkpts[%d].rw = %d;\n", n, d->len, n, d->rw);
		strbuf_addf(out, "\tstp_hwbkpts[%d].handler = dp_%d;\n", n, dp->index);
		strbuf_addf(out, "\trc = stp_hwbkpt_start(&stp_hwbkpts[%d], stp_probes[%d].pp);\n"
			    "\tif (rc)\n\t\treturn rc;\n", n, dp->index);
		n++;
	}
}

static void emit_unregister(struct session *s, struct strbuf *out)
{
	int n = provider_probes(s, &hwbkpt_provider);

	strbuf_addf(out, "\tfor (i = 0; i < %d; i++)\n\t\tstp_hwbkpt_stop(&stp_hwbkpts[i]);\n", n);
}

/* --runtime=bpf: a BPF program on a perf breakpoint event on every CPU;
 * stapbpf adds the load offset to a symbol's link address. */
static int bpf_attach(const struct derived_probe *dp, struct bpf_attach *at, const char **why)
{
	const struct hwbkpt_probe *d = dp->data;

	(void)why;
	*at = (struct bpf_attach){ .kind = BA_HWBKPT, .bp_addr = (long long)d->addr, .bp_len = d->len,
				   .bp_rw = d->rw, .bp_linked = d->linked };
	return 0;
}

static const char *const shapes[] = { "kernel.data()", NULL };

const struct provider hwbkpt_provider = {
	.name = "hwbkpt",
	.runtime_header = "hwbkpt.h",
	.type_name = "hwbkpt",
	.derive = derive,
	.emit_decls = emit_decls,
	.emit_register = emit_register,
	.emit_unregister = emit_unregister,
	.bpf_attach = bpf_attach,
	.shapes = shapes,
};
