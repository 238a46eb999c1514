/* kprobe.c - kprobe.function("f")[.return[.maxactive(N)]],
 * kprobe.module("m").function("f")[.return...], kprobe.statement(A).absolute.
 *
 * No DWARF: names are matched against the target kernel's (or module's)
 * symbol table (ksyms.c), wildcards expand to one probe per function
 * symbol the kernel lets kprobes use and target/blacklist.c does not
 * refuse, and the kernel resolves the name when the probe is registered.
 * Expansions of a wildcard are optional: a function the kernel refuses at
 * registration is skipped silently; an explicitly named one gets a
 * warning (as SystemTap). A name blacklist.c refuses is E_BLACKLISTED.
 */
#include "provider.h"

#include <fnmatch.h>
#include <string.h>

#include "diag.h"
#include "kpsites.h"
#include "kpoint.h"
#include "target/blacklist.h"
#include "target/ksyms.h"

extern const struct provider kprobe_provider;

/* kprobe.statement(ADDR).absolute: a raw address, guru mode only. */
static int derive_statement(struct session *s, struct probe *p, struct probe_point *pp)
{
	int64_t addr;

	if (pp->comps.len != 3 || !pp_comp_is(pp, 2, "absolute"))
		return 0;
	if (!pp_comp_num(pp, 1, &addr)) {
		diag(s, E_PROBE_ARG, pp->comps.items[1]->pos, "kprobe.statement needs a number (an address)");
		return -1;
	}
	if (!s->guru) {
		diag(s, E_GURU, pp->pos, "absolute statement probe in unprivileged script; need stap -g");
		return -1;
	}
	struct kp_site k = { .addr = (uint64_t)addr };
	kp_site_attach(derived_probe_add(s, p, pp, &kprobe_provider, STP_PK_NORMAL), &k);
	return 1;
}

/* One probe per matching function name of t (or the literal name when
 * there is no table to check against). */
static int derive_functions(struct session *s, struct probe *p, struct probe_point *pp,
			    const char *module, int fn_comp, const struct kpoint_suffix *suf)
{
	const char *pat = pp->comps.items[fn_comp]->arg->str;
	bool wild = kpoint_has_wildcard(pat);
	const char *why = NULL;
	const struct ksymtab *t = module ? ksyms_module(s, module, &why) : ksyms_kernel(s, &why);
	strvec names = { 0 };

	if (!t && (wild || module)) {
		diag(s, E_PROBE_POINT, pp->pos, "cannot resolve %s: %s", pp_text(pp), why);
		return -1;
	}
	if (!t && !wild && blacklist_function_why(pat, NULL) && !pp->optional) {
		char *text = pp_text(pp);
		diag(s, E_BLACKLISTED, pp->pos, "%s is blacklisted: %s", text, blacklist_function_why(pat, NULL));
		free(text);
		return -1;
	}
	if (!t) {
		vec_push(&names, xstrdup(pat));
	} else if (!wild) {
		const struct ksym *const *k;
		const char *refused = NULL;
		size_t n = ksym_named(t, pat, &k);
		for (size_t i = 0; i < n; i++) {
			const char *why = blacklist_symbol_why(t, k[i]);
			if (!why)
				vec_push(&names, k[i]->name);
			else if (!refused)
				refused = why;
		}
		if (!names.len && refused && !pp->optional) {
			char *text = pp_text(pp);
			diag(s, E_BLACKLISTED, pp->pos, "%s is blacklisted: %s", text, refused);
			free(text);
			return -1;
		}
		kpoint_sort_unique(&names);
	} else {
		for (size_t i = 0; i < t->n; i++) {
			const struct ksym *k = &t->syms[i];
			if (!ksym_is_func(k) || (wild && strchr(k->name, '.') && !strchr(pat, '.')))
				continue;
			if (wild ? fnmatch(pat, k->name, 0) != 0 : strcmp(pat, k->name) != 0)
				continue;
			if (wild && blacklist_symbol_why(t, k))
				continue;
			vec_push(&names, k->name);
		}
		kpoint_sort_unique(&names);
	}
	if (!names.len)
		return kpoint_no_match(s, pp, t, wild ? NULL : pat);
	for (int i = 0; i < names.len; i++) {
		struct kp_site k = { .ret = suf->ret, .maxactive = suf->maxactive,
				     .optional = wild || pp->optional };
		k.symbol = module ? xasprintf("%s:%s", module, names.items[i]) : xstrdup(names.items[i]);
		struct derived_probe *dp = derived_probe_add(s, p, pp, &kprobe_provider, STP_PK_NORMAL);
		dp->pp = kpoint_text(pp, fn_comp, names.items[i]);
		kp_site_attach(dp, &k);
	}
	return 1;
}

static int derive(struct session *s, struct probe *p, struct probe_point *pp)
{
	struct kpoint_suffix suf;
	int fn = 1;
	const char *module = NULL;

	if (!pp_comp_is(pp, 0, "kprobe") || pp->comps.len < 2)
		return 0;
	if (pp_comp_is(pp, 1, "statement"))
		return derive_statement(s, p, pp);
	if (pp_comp_is(pp, 1, "module")) {
		if (!kpoint_str_arg(s, pp, 1, &module))
			return -1;
		fn = 2;
	}
	if (!pp_comp_is(pp, fn, "function"))
		return 0;
	if (!kpoint_str_arg(s, pp, fn, NULL))
		return -1;
	int r = kpoint_parse_suffix(s, pp, fn + 1, false, &suf);
	if (r <= 0)
		return r;
	return derive_functions(s, p, pp, module, fn, &suf);
}

static void emit_decls(struct session *s, struct strbuf *out)
{
	kp_emit_decls(s, &kprobe_provider, "kprobe", out);
}

static void emit_register(struct session *s, struct strbuf *out)
{
	kp_emit_register(s, &kprobe_provider, "kprobe", out);
}

static void emit_unregister(struct session *s, struct strbuf *out)
{
	kp_emit_unregister(s, &kprobe_provider, "kprobe", out);
}

static void guest_modules(struct session *s, strvec *out)
{
	kp_guest_modules(s, &kprobe_provider, out);
}

static const char *const shapes[] = { "kprobe.function()", "kprobe.statement()", "kprobe.module.function()", "kprobe.module.statement()", NULL };

const struct provider kprobe_provider = {
	.calls_shared = true,
	.bpf_attach = kp_bpf_attach,
	.bpf_entry_attach = kp_bpf_entry_attach,
	.bpf_context = kp_bpf_context,
	.takes_kprobe = kp_takes_kprobe,
	.name = "kprobe",
	.runtime_header = "kprobes.h",
	.probe_type = kp_probe_type,
	.is_return = kp_is_return,
	.derive = derive,
	.emit_decls = emit_decls,
	.emit_register = emit_register,
	.emit_unregister = emit_unregister,
	.guest_modules = guest_modules,
	.shapes = shapes,
};
