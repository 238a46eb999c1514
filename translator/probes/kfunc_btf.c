/* kfunc_btf.c - kernel.function("f")[.call|.return] without DWARF, through
 * the kernel's BTF (target/btf.h): asked by the kernel.function family
 * (dwarf.c) when the kernel has no debuginfo.
 *
 * Names (and wildcards) are matched against BTF's functions and the probes
 * are registered by name (the kernel resolves it, as kprobe.function's), so
 * System.map is not needed either. $param, $param->member[index]...,
 * $return, $$parms/$$vars/$$return are read as the x86-64 calling
 * convention places them at the function's entry (rdi, rsi, rdx, rcx, r8,
 * r9; rax at return), typed by BTF; in a .return probe a parameter is its
 * value at entry, as with DWARF. What BTF cannot give is an error saying
 * so: local variables, source files and lines (@FILE:LINE, .statement,
 * .inline, .label, -L's @file:line), parameters passed as a structure (and
 * those after one), and functions the compiler inlined everywhere.
 * Parameters past the sixth are read from the stack, above the return
 * address.
 */
#include "provider.h"

#include <string.h>

#include "bpf_proto.h"
#include "diag.h"
#include "kpoint.h"
#include "kpsites.h"
#include "kfunc_btf.h"
#include "target/blacklist.h"
#include "target/btf.h"

extern const struct provider kfunc_btf_provider;

/* dp->data: the site first, as kpsites.h asks */
struct kfunc_btf {
	struct kp_site site;
	const char *func;
	uint32_t proto;
	int nparams;
	int first;              /* the first parameter a script sees (1: a tracepoint's, after __data) */
};

/* The System V x86-64 argument registers, as DWARF numbers them. */
static const int arg_regs[] = { 5, 4, 1, 2, 8, 9 };

/* Parameter i (from 0) at the function's entry: a register, or from the
 * seventh on the stack above the return address. */
static const struct lx *param_lx(int i)
{
	if (i < 6)
		return lx_leaf(LX_REG, arg_regs[i]);
	return lx_load(lx_add_k(lx_leaf(LX_REG, 7), 8 * (i - 5)), 8, false);
}

/* --runtime=bpf: a BPF trampoline on the function (fentry, fexit), which
 * the kernel's BTF names it by and which costs less per hit than a kprobe;
 * the parameters are its context's args[], $return after them. A function
 * of more than six parameters keeps a kprobe: trampolines of kernels before
 * 6.4 take no more (ENOTSUPP). */
static bool trampoline(const struct kfunc_btf *k)
{
	return k->nparams <= 6;
}

int kfunc_btf_derive(struct session *s, struct probe *p, struct probe_point *pp, int fn_comp, const char *pat,
		     bool ret, int maxactive, const char *no_dwarf)
{
	const char *why = NULL;
	const struct btf *b = btf_kernel(s, &why);
	strvec names = { 0 };

	if (!b) {
		if (pp->optional)
			return 1;
		char *t = pp_text(pp);
		diag(s, E_PROBE_POINT, pp->pos, "cannot resolve %s: %s; %s", t, no_dwarf, why);
		free(t);
		return -1;
	}
	bool wild = kpoint_has_wildcard(pat);
	if (wild) {
		strvec all = { 0 };
		btf_funcs_matching(b, pat, &all);
		for (int i = 0; i < all.len; i++)
			if (!blacklist_function_why(all.items[i], NULL))
				vec_push(&names, all.items[i]);
		free(all.items);
	} else if (btf_func_proto(b, pat)) {
		const char *bl = blacklist_function_why(pat, NULL);
		if (bl && !pp->optional) {
			char *t = pp_text(pp);
			diag(s, E_BLACKLISTED, pp->pos, "%s is blacklisted: %s", t, bl);
			free(t);
			return -1;
		}
		if (!bl)
			vec_push(&names, (char *)pat);
	}
	if (!names.len)
		return kpoint_no_match(s, pp, NULL, wild ? NULL : pat);
	for (int i = 0; i < names.len; i++) {
		struct kfunc_btf *k = xcalloc(1, sizeof(*k));
		k->site = (struct kp_site){ .symbol = xstrdup(names.items[i]), .ret = ret, .maxactive = maxactive,
					    .optional = wild || pp->optional };
		k->func = names.items[i];
		k->proto = btf_func_proto(b, names.items[i]);
		k->nparams = btf_nparams(b, k->proto);
		struct derived_probe *dp = derived_probe_add(s, p, pp, &kfunc_btf_provider, STP_PK_NORMAL);
		dp->pp = kpoint_text(pp, fn_comp, names.items[i]);
		dp->data = k;
	}
	free(names.items);
	return 1;
}

/* $$parms, $$vars (the same: BTF has no locals), $$return: "name=0x..."
 * each, as SystemTap lists them */
static lpvec *pretty_list(const struct btf *b, const struct kfunc_btf *k, const char *n, bool ret)
{
	lpvec *out = xcalloc(1, sizeof(*out));
	bool first = true;

	if (!strcmp(n, "$$return")) {
		uint32_t rt = btf_return_type(b, k->proto);
		if (ret && rt) {
			lp_text(out, "return=");
			lp_value(out, btf_typed_value(b, rt, lx_leaf(LX_REG, 0)), LP_HEX);
		}
		return out;
	}
	if (!strcmp(n, "$$locals"))
		return out;   /* BTF knows no locals */
	for (int i = k->first; i < btf_first_by_value(b, k->proto); i++) {
		lp_textf(out, "%s%s=", first ? "" : " ", btf_param_name(b, k->proto, i));
		lp_value(out, btf_typed_value(b, btf_param_type(b, k->proto, i), param_lx(i)), LP_HEX);
		first = false;
	}
	return out;
}

int kfunc_btf_tvar(struct session *s, const struct kfunc_btf *k, const struct expr *e, const struct lx **value,
		   lpvec **pretty, char **why)
{
	const struct btf *b = btf_kernel(s, NULL);
	const char *n = e->name;
	bool ret = k->site.ret;
	uint32_t type;
	const struct lx *base;

	if (!b || !k->proto) {
		*why = xasprintf("no BTF type for %s", k->func);
		return -1;
	}
	if (e->suffix) {
		*why = xasprintf("'%s%s': pretty printing through BTF is not supported yet", n, e->suffix);
		return -1;
	}
	if (!strncmp(n, "$$", 2)) {
		if (strcmp(n, "$$parms") && strcmp(n, "$$vars") && strcmp(n, "$$locals") && strcmp(n, "$$return"))
			return 0;
		if (e->chain.len) {
			*why = xasprintf("'%s' takes no '->' or '[]'", n);
			return -1;
		}
		if (!strcmp(n, "$$return") && !ret) {
			*why = xasprintf("$$return is only available in .return probes");
			return -1;
		}
		*pretty = pretty_list(b, k, n, ret);
		return ret && strcmp(n, "$$return") && strcmp(n, "$$locals") && !(s->runtime_bpf && trampoline(k)) ? 2 : 1;
	}
	if (!strcmp(n, "$return")) {
		if (!ret) {
			*why = xasprintf("$return is only available in .return probes");
			return -1;
		}
		type = btf_return_type(b, k->proto);
		if (!type) {
			*why = xasprintf("%s returns void", k->func);
			return -1;
		}
		base = lx_leaf(LX_REG, 0);
	} else {
		int i, np = btf_nparams(b, k->proto);
		for (i = k->first; i < np && strcmp(btf_param_name(b, k->proto, i), n + 1); i++)
			;
		if (i == np) {
			*why = xasprintf("%s has no parameter '%s' (BTF knows parameters only: no local "
					 "variables without debuginfo)", k->func, n + 1);
			return -1;
		}
		int j = btf_first_by_value(b, k->proto);   /* a structure shifts where the others are */
		if (j <= i) {
			*why = xasprintf("'%s'%s is passed by value as a structure: not readable through BTF",
					 j == i ? n : btf_param_name(b, k->proto, j), j == i ? "" : " (before it)");
			return -1;
		}
		type = btf_param_type(b, k->proto, i);
		base = param_lx(i);
	}
	if (!(*value = btf_chain_lx(b, type, base, false, e, false, why)))
		return -1;
	/* a parameter in a .return probe is its value at entry, which fexit
	 * (BPF) has at the return; what it points to is read at entry */
	return ret && strcmp(n, "$return") && !(s->runtime_bpf && trampoline(k) && !lx_has(*value, LX_LOAD)) ? 2 : 1;
}

static int tvar_code(struct session *s, const struct derived_probe *dp, const struct expr *e,
		     const struct lx **value, lpvec **pretty, char **why)
{
	return kfunc_btf_tvar(s, dp->data, e, value, pretty, why);
}

/* -L: " $return:TYPE" first in a .return probe, then each parameter */
void kfunc_btf_list_vars(struct session *s, const struct kfunc_btf *k, struct strbuf *out)
{
	const struct btf *b = btf_kernel(s, NULL);

	if (!b || !k->proto)
		return;
	uint32_t rt = btf_return_type(b, k->proto);
	if (k->site.ret && rt) {
		strbuf_addstr(out, " $return:");
		btf_type_text(b, rt, out);
	}
	for (int i = k->first; i < btf_nparams(b, k->proto); i++) {
		strbuf_addf(out, " $%s:", btf_param_name(b, k->proto, i));
		btf_type_text(b, btf_param_type(b, k->proto, i), out);
	}
}

static void list_vars(struct session *s, const struct derived_probe *dp, struct strbuf *out)
{
	kfunc_btf_list_vars(s, dp->data, out);
}

struct kfunc_btf *kfunc_btf_params(const struct btf *b, const char *func, uint32_t proto, int first)
{
	struct kfunc_btf *k = xcalloc(1, sizeof(*k));

	k->func = func;
	k->proto = proto;
	k->nparams = btf_nparams(b, proto);
	k->first = first;
	return k;
}

static int derive(struct session *s, struct probe *p, struct probe_point *pp)
{
	(void)s, (void)p, (void)pp;
	return 0;   /* points come through kernel.function's family (dwarf.c) */
}

static void emit_decls(struct session *s, struct strbuf *out)
{
	kp_emit_decls(s, &kfunc_btf_provider, "btf", out);
}

static void emit_register(struct session *s, struct strbuf *out)
{
	kp_emit_register(s, &kfunc_btf_provider, "btf", out);
}

static void emit_unregister(struct session *s, struct strbuf *out)
{
	kp_emit_unregister(s, &kfunc_btf_provider, "btf", out);
}

/* --runtime=bpf: fentry/fexit where trampoline(), else a kprobe */
static int bpf_attach(const struct derived_probe *dp, struct bpf_attach *at, const char **why)
{
	const struct kfunc_btf *k = dp->data;

	if (!trampoline(k))
		return kp_bpf_attach(dp, at, why);
	*at = (struct bpf_attach){ .kind = k->site.ret ? BA_FEXIT : BA_FENTRY, .symbol = k->func,
				   .optional = k->site.optional };
	return 0;
}

/* fexit reads the arguments as they were at entry: no entry program. A
 * value read through them at entry (a field, @entry) has none yet. */
static int bpf_entry_attach(struct session *s, const struct derived_probe *dp, struct bpf_attach *at, int *reg,
			    int64_t *off, int64_t *ret_off, const char **why)
{
	if (!trampoline(dp->data))
		return kp_bpf_entry_attach(s, dp, at, reg, off, ret_off, why);
	*why = "through a BPF trampoline (fexit) a .return probe reads the parameters themselves, not yet "
	       "what they point to at entry";
	return -1;
}

/* a trampoline's context; a kprobe site's, but without probemod() and
 * __reg_arg(), which the BPF backend has not had for BTF's probes yet */
static void bpf_context(const struct derived_probe *dp, struct bpf_context *c)
{
	const struct kfunc_btf *k = dp->data;

	if (trampoline(k)) {
		c->trampoline = k->site.ret ? 2 : 1;
		c->ip_back = -1;
		return;
	}
	kp_bpf_context(dp, c);
	c->reg_args = false;
	c->module = NULL;
	c->module_len = 0;
}

const struct provider kfunc_btf_provider = {
	.calls_shared = true,
	.bpf_attach = bpf_attach,
	.bpf_entry_attach = bpf_entry_attach,
	.bpf_context = bpf_context,
	.name = "kernel.function (BTF)",
	.runtime_header = "kprobes.h",
	.probe_type = kp_probe_type,
	.is_return = kp_is_return,
	.derive = derive,
	.tvar_code = tvar_code,
	.list_vars = list_vars,
	.emit_decls = emit_decls,
	.emit_register = emit_register,
	.emit_unregister = emit_unregister,
};
