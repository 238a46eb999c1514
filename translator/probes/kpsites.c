/* kpsites.c - the kprobe sites of a family's probes and their C tables. */
#include "kpsites.h"
#include "bpf_proto.h"

#include <string.h>

#include "target/btf.h"

void kp_site_attach(struct derived_probe *dp, const struct kp_site *site)
{
	struct kp_site *k = xmalloc(sizeof(*k));

	*k = *site;
	dp->data = k;
}

void kp_guest_modules(struct session *s, const struct provider *prov, strvec *out)
{
	for (int i = 0; i < s->probes.len; i++) {
		if (s->probes.items[i]->prov != prov)
			continue;
		const struct kp_site *k = s->probes.items[i]->data;
		const char *sym = k->symbol, *colon = sym ? strchr(sym, ':') : NULL;
		if (!colon)
			continue;
		bool seen = false;
		for (int j = 0; j < out->len && !seen; j++)
			seen = strlen(out->items[j]) == (size_t)(colon - sym) &&
			       !strncmp(out->items[j], sym, (size_t)(colon - sym));
		if (!seen)
			vec_push(out, xstrndup(sym, (size_t)(colon - sym)));
	}
}

const char *kp_site_module(const struct derived_probe *dp, size_t *len)
{
	const struct kp_site *k = dp->data;
	const char *colon = k->symbol ? strchr(k->symbol, ':') : NULL;

	if (!k->symbol)
		return NULL;
	*len = colon ? (size_t)(colon - k->symbol) : strlen("kernel");
	return colon ? k->symbol : "kernel";
}

bool kp_is_return(const struct derived_probe *dp)
{
	return ((const struct kp_site *)dp->data)->ret;
}

bool kp_takes_kprobe(const struct session *s, const struct derived_probe *dp)
{
	return s->runtime_bpf || !((const struct kp_site *)dp->data)->fentry;
}

/*
 * A BPF trampoline (fentry/fexit) costs less than a kprobe (guest
 * instructions a hit, bench/probe-hit.sh: 0.46 of a kprobe's, 0.37 of a
 * kretprobe's), but is loaded once per function (no program shared by a
 * wildcard's hundreds of sites: those keep their kprobes, as a site that
 * may fail to attach does), and takes a function the kernel's BTF has with
 * at most six parameters none passed as a structure (older kernels'
 * trampolines take no more). The BPF backend tries it and falls back to the
 * kprobe when the probe reads what a trampoline has not (registers, values
 * at entry through a pointer ...).
 */
int kp_bpf_trampoline(struct session *s, const struct derived_probe *dp, struct bpf_attach *at)
{
	const struct kp_site *site = dp->data;
	const struct btf *b = site->func && !site->optional && !site->maxactive ? btf_kernel(s, NULL) : NULL;
	uint32_t proto = b ? btf_func_proto(b, site->func) : 0;
	int n = proto ? btf_nparams(b, proto) : 7;

	if (n > 6 || btf_first_by_value(b, proto) < n)
		return -1;
	*at = (struct bpf_attach){ .kind = site->ret ? BA_FEXIT : BA_FENTRY, .symbol = site->func };
	return 0;
}

/* --runtime=bpf: a kprobe on the same site, through the kprobe PMU; a
 * kretprobe with a maxactive stapbpf makes through tracefs */
int kp_bpf_attach(const struct derived_probe *dp, struct bpf_attach *at, const char **why)
{
	const struct kp_site *site = dp->data;

	if (!site->symbol) {
		*why = "a probe on an absolute address";
		return -1;
	}
	*at = (struct bpf_attach){ .kind = site->ret ? BA_KRETPROBE : BA_KPROBE, .symbol = site->symbol,
				   .offset = (long long)(site->offset + (site->fentry ? site->fentry_delta : 0)),
				   .maxactive = site->ret ? site->maxactive : 0, .optional = site->optional };
	return 0;
}

/* At the kprobe on the function's first instruction the frame address is
 * the stack pointer + 8 (the return address is on the stack); the
 * kretprobe's handler sees the stack pointer after the return. */
int kp_bpf_entry_attach(struct session *s, const struct derived_probe *dp, struct bpf_attach *at, int *reg,
			int64_t *off, int64_t *ret_off, const char **why)
{
	const struct kp_site *site = dp->data;

	(void)s;
	if (kp_bpf_attach(dp, at, why) < 0)
		return -1;
	*at = (struct bpf_attach){ .kind = BA_KPROBE, .symbol = site->symbol, .offset = (long long)site->offset };
	*reg = 7;
	*off = 8;
	*ret_off = 0;
	return 0;
}

/* --runtime=bpf: a kprobe's ip is past its breakpoint, a kretprobe's is the
 * return address; the probes of a site in a function know its arguments
 * (pt_regs) and its module. */
void kp_bpf_context(const struct derived_probe *dp, struct bpf_context *c)
{
	const struct kp_site *site = dp->data;

	c->ip_back = site->ret ? 0 : 1;
	c->kretprobe = site->ret;
	c->reg_args = true;
	c->module = kp_site_module(dp, &c->module_len);
	c->func = site->func;
}

const char *kp_probe_type(const struct derived_probe *dp)
{
	return ((const struct kp_site *)dp->data)->ret ? "kretprobe" : "kprobe";
}

/* One initialiser per site; the handlers dp_N (or the dh_N they share)
 * come before. */
void kp_emit_decls(struct session *s, const struct provider *prov, const char *tag, struct strbuf *out)
{
	int n = provider_probes(s, prov);

	if (!n)
		return;
	strbuf_addf(out, "static struct stp_kprobe stp_kp_%s[%d] = {\n", tag, n);
	for (int i = 0; i < s->probes.len; i++) {
		const struct derived_probe *dp = s->probes.items[i];
		if (dp->prov != prov)
			continue;
		const struct kp_site *k = dp->data;
		strbuf_addstr(out, "\t{ .symbol = ");
		strbuf_add_cstr_literal(out, k->symbol);
		strbuf_addf(out, ", .offset = 0x%llxU, .addr = 0x%llxUL, .verify = ",
			    (unsigned long long)k->offset, (unsigned long long)k->addr);
		strbuf_add_cstr_literal(out, k->verify);
		strbuf_addf(out, ", .probe = &stp_probes[%d],\n\t  ", dp->index);
		if (dp->sharer)
			strbuf_addf(out, ".shared = dh_%d", dp->sharer->index);
		else
			strbuf_addf(out, ".handler = dp_%d", dp->index);
		strbuf_addf(out, ", .flags = 0%s%s%s, .maxactive = %d",
			    k->ret ? " | STP_KPF_RETURN" : "", k->optional ? " | STP_KPF_OPTIONAL" : "",
			    k->fentry ? " | STP_KPF_FENTRY" : "", k->maxactive);
		if (k->fentry && k->fentry_delta)
			strbuf_addf(out, ", .fentry_delta = %u", k->fentry_delta);
		if (k->ret && dp->has_entry)
			strbuf_addf(out, ", .entry = dpentry_%d, .data_size = sizeof(struct entry_d%d)",
				    dp->index, dp->index);
		strbuf_addstr(out, " },\n");
	}
	strbuf_addstr(out, "};\n");
}

void kp_emit_register(struct session *s, const struct provider *prov, const char *tag, struct strbuf *out)
{
	int n = provider_probes(s, prov);

	if (n)
		strbuf_addf(out, "\trc = stp_kprobes_register(stp_kp_%s, %d);\n\tif (rc)\n\t\treturn rc;\n",
			    tag, n);
}

void kp_emit_unregister(struct session *s, const struct provider *prov, const char *tag, struct strbuf *out)
{
	int n = provider_probes(s, prov);

	if (n)
		strbuf_addf(out, "\tstp_kprobes_unregister(stp_kp_%s, %d);\n", tag, n);
}
