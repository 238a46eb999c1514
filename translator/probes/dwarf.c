/* dwarf.c - kernel.function("pattern") and module("m").function("pattern")
 * probes through the DWARF of the target kernel (dwarf_funcs.c), with
 * .call, .return[.maxactive(N)] and .exported.
 *
 * Only out-of-line instances are probed (.inline is not supported yet).
 * A kernel function is registered as "_stext" + its distance from _stext
 * in the symbol table, so KASLR does not matter and static functions with
 * the same name stay apart; the runtime checks that the kernel finds the
 * expected symbol there. A module function is registered as "module:sym".
 */
#include "provider.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "dwarf_funcs.h"
#include "dwarf_probes.h"
#include "kpoint.h"
#include "kpsites.h"

extern const struct provider dwarf_provider;

static VEC(struct dw_probe_info) infos;

const struct dw_probe_info *dwarf_probe_info(const struct derived_probe *dp)
{
	for (int i = 0; i < infos.len; i++)
		if (infos.items[i].dp == dp)
			return &infos.items[i];
	return NULL;
}

/* The symbol the runtime must find at the probe's address: only if no
 * other symbol shares the address (aliases print as either name). */
static char *verify_name(const struct ksymtab *t, const struct dw_func *f)
{
	int n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += t->syms[i].addr == f->addr;
	return n == 1 ? xstrdup(f->symbol) : NULL;
}

/* The probe's pp(): the point with the function (and, for module("*"),
 * the module) argument made concrete. */
static char *point_text(struct probe_point *pp, int fn_comp, const char *where, const char *module)
{
	struct pp_comp *c = pp->comps.items[0];
	struct expr *saved = c->arg, tmp;
	char *t;

	if (!module || !saved)
		return kpoint_text(pp, fn_comp, where);
	tmp = *saved;
	tmp.str = (char *)module;
	tmp.str_len = strlen(module);
	c->arg = &tmp;
	t = kpoint_text(pp, fn_comp, where);
	c->arg = saved;
	return t;
}

static void add_probe(struct session *s, struct probe *p, struct probe_point *pp, int fn_comp,
		      struct dw_image *img, const struct ksymtab *syms, const struct dw_func *f,
		      const struct kpoint_suffix *suf, bool optional)
{
	char *where = xasprintf("%s@%s:%d", f->name, f->file, f->line);
	struct kp_site k = { .ret = suf->ret, .maxactive = suf->maxactive, .optional = optional };

	if (img->module) {
		k.symbol = xasprintf("%s:%s", img->module, f->symbol);
	} else if (syms->stext && f->addr >= syms->stext) {
		k.symbol = xstrdup("_stext");
		k.offset = f->addr - syms->stext;
		k.verify = verify_name(syms, f);
	} else {
		k.symbol = xstrdup(f->symbol);
	}
	k.dp = derived_probe_add(s, p, pp, &dwarf_provider, PK_NORMAL);
	k.dp->pp = point_text(pp, fn_comp, where, img->module);
	kp_site_add(&k);
	struct dw_probe_info info = { .dp = k.dp, .img = img, .die = f->die, .entry = f->addr,
					.ret = suf->ret };
	vec_push(&infos, info);
	free(where);
}

/* Probes on the functions of img matching pat; how many were added. */
static int probe_image(struct session *s, struct probe *p, struct probe_point *pp, int fn_comp,
		       struct dw_image *img, const struct ksymtab *syms, const struct dw_pattern *pat,
		       const struct kpoint_suffix *suf, bool optional)
{
	dw_funcvec funcs = { 0 };
	int n = 0;

	dw_find_functions(img, syms, pat, &funcs);
	for (int i = 0; i < funcs.len; i++) {
		if (suf->exported && !funcs.items[i].exported)
			continue;
		add_probe(s, p, pp, fn_comp, img, syms, &funcs.items[i], suf, optional);
		n++;
	}
	free(funcs.items);
	return n;
}

/* A function symbol of t whose name (clone suffix cut) matches pattern:
 * a cheap test before a module's DWARF is opened. */
static bool any_symbol_matches(const struct ksymtab *t, const char *pattern)
{
	char base[512];

	for (size_t i = 0; i < t->n; i++) {
		const char *name = t->syms[i].name;
		size_t len = strcspn(name, ".");
		if (!ksym_is_func(&t->syms[i]) || len >= sizeof(base))
			continue;
		memcpy(base, name, len);
		base[len] = 0;
		if (fnmatch(pattern, base, 0) == 0)
			return true;
	}
	return false;
}

/* module("pattern").function(...): every module of the target kernel whose
 * name matches and whose symbols could match; modules without debuginfo
 * are skipped (named with -v). */
static int derive_modules(struct session *s, struct probe *p, struct probe_point *pp, int fn_comp,
			  const char *module, const struct dw_pattern *pat,
			  const struct kpoint_suffix *suf)
{
	strvec names = { 0 };
	int n = 0;

	ksyms_module_names(s, module, &names);
	for (int i = 0; i < names.len; i++) {
		const char *why = NULL;
		const struct ksymtab *syms = ksyms_module(s, names.items[i], NULL);
		if (!syms || !any_symbol_matches(syms, pat->func))
			continue;
		struct dw_image *img = dw_module(s, names.items[i], &why);
		if (!img) {
			if (s->verbose >= 2)
				fprintf(stderr, "skipping module %s: %s\n", names.items[i], why);
			continue;
		}
		n += probe_image(s, p, pp, fn_comp, img, syms, pat, suf, true);
	}
	for (int i = 0; i < names.len; i++)
		free(names.items[i]);
	free(names.items);
	return n ? 1 : kpoint_no_match(s, pp, NULL, NULL);
}

static int derive_in(struct session *s, struct probe *p, struct probe_point *pp, int fn_comp,
		     const char *module, const struct kpoint_suffix *suf)
{
	const char *text = pp->comps.items[fn_comp]->arg->str, *why = NULL;
	struct dw_pattern pat;
	struct dw_image *img;
	const struct ksymtab *syms;

	if (!dw_pattern_parse(text, &pat)) {
		diag(s, E_PROBE_ARG, pp->comps.items[fn_comp]->pos,
		     "malformed function pattern \"%s\" (want NAME[@FILE[:LINE]])", text);
		return -1;
	}
	if (module && kpoint_has_wildcard(module))
		return derive_modules(s, p, pp, fn_comp, module, &pat, suf);
	img = module ? dw_module(s, module, &why) : dw_kernel(s, &why);
	syms = img ? (module ? ksyms_module(s, module, NULL) : ksyms_kernel(s, &why)) : NULL;
	if (!img || (!module && !syms)) {
		if (pp->optional)
			return 1;
		char *t = pp_text(pp);
		diag(s, E_PROBE_POINT, pp->pos, "cannot resolve %s: %s", t, why);
		free(t);
		return -1;
	}
	bool wild = kpoint_has_wildcard(text);
	if (!probe_image(s, p, pp, fn_comp, img, syms, &pat, suf, wild || pp->optional))
		return kpoint_no_match(s, pp, syms, kpoint_has_wildcard(pat.func) ? NULL : pat.func);
	return 1;
}

static int derive(struct session *s, struct probe *p, struct probe_point *pp)
{
	struct kpoint_suffix suf;
	const char *module = NULL;
	int fn;

	if (pp_comp_is(pp, 0, "kernel") && pp_comp_is(pp, 1, "function")) {
		fn = 1;
	} else if (pp_comp_is(pp, 0, "module") && pp_comp_is(pp, 1, "function")) {
		if (!kpoint_str_arg(s, pp, 0, &module))
			return -1;
		fn = 1;
	} else {
		return 0;
	}
	if (!kpoint_str_arg(s, pp, fn, NULL))
		return -1;
	int r = kpoint_parse_suffix(s, pp, fn + 1, true, &suf);
	if (r <= 0)
		return r;
	return derive_in(s, p, pp, fn, module, &suf);
}

static void dw_type_name(Dwarf_Die *t, struct strbuf *out, int depth);

/* "int (*) (struct super_block*, struct fs_context*)" */
static void fn_pointer_name(Dwarf_Die *fn, struct strbuf *out, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die t, p;
	bool first = true;

	if (dwarf_formref_die(dwarf_attr(fn, DW_AT_type, &a), &t))
		dw_type_name(&t, out, depth);
	else
		strbuf_addstr(out, "void");
	strbuf_addstr(out, " (*) (");
	if (dwarf_child(fn, &p) == 0) {
		do {
			if (dwarf_tag(&p) != DW_TAG_formal_parameter)
				continue;
			if (!first)
				strbuf_addstr(out, ", ");
			first = false;
			if (dwarf_formref_die(dwarf_attr(&p, DW_AT_type, &a), &t))
				dw_type_name(&t, out, depth);
		} while (dwarf_siblingof(&p, &p) == 0);
	}
	strbuf_addch(out, ')');
}

/* C-like type name as SystemTap's -L prints it: "char const*",
 * "struct file*", "long unsigned int", "struct iovec[]". */
static void dw_type_name(Dwarf_Die *t, struct strbuf *out, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die inner;
	bool has_inner = dwarf_formref_die(dwarf_attr(t, DW_AT_type, &a), &inner) != NULL;
	const char *name = dwarf_diename(t);

	if (depth > 16) {
		strbuf_addstr(out, "?");
		return;
	}
	switch (dwarf_tag(t)) {
	case DW_TAG_pointer_type:
		if (has_inner && dwarf_tag(&inner) == DW_TAG_subroutine_type) {
			fn_pointer_name(&inner, out, depth + 1);
			break;
		}
		if (has_inner)
			dw_type_name(&inner, out, depth + 1);
		else
			strbuf_addstr(out, "void");
		strbuf_addch(out, '*');
		break;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		if (has_inner)
			dw_type_name(&inner, out, depth + 1);
		else
			strbuf_addstr(out, "void");
		strbuf_addstr(out, dwarf_tag(t) == DW_TAG_const_type ? " const" : " volatile");
		break;
	case DW_TAG_array_type:
		if (has_inner)
			dw_type_name(&inner, out, depth + 1);
		strbuf_addstr(out, "[]");
		break;
	case DW_TAG_structure_type:
		strbuf_addf(out, "struct %s", name ? name : "{...}");
		break;
	case DW_TAG_union_type:
		strbuf_addf(out, "union %s", name ? name : "{...}");
		break;
	case DW_TAG_enumeration_type:
		strbuf_addf(out, "enum %s", name ? name : "{...}");
		break;
	case DW_TAG_subroutine_type:
		strbuf_addstr(out, "void");
		break;
	default:
		strbuf_addstr(out, name ? name : "void");
		break;
	}
}

/* A variable is listed only if it has a location at the probe address (as
 * SystemTap): a local set later in the function, or an optimised-out
 * parameter, is not. */
static bool located_at(Dwarf_Die *var, Dwarf_Addr pc)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr_integrate(var, DW_AT_location, &a))
		return false;
	return dwarf_getlocation_addr(&a, pc, &ops, &nops, 1) > 0 && nops > 0;
}

/* " $name:type" for the parameters and outermost locals of the function
 * DIE (in DIE order), preceded by $return for .return probes. Locals
 * come from the outermost scope only. */
bool dwarf_probe_vars(const struct derived_probe *dp, struct strbuf *out)
{
	const struct dw_probe_info *in = dwarf_probe_info(dp);
	Dwarf_Die fn, d, t;
	Dwarf_Attribute a;

	if (!in || !dwarf_offdie(in->img->dbg, in->die, &fn))
		return false;
	if (in->ret && dwarf_formref_die(dwarf_attr_integrate(&fn, DW_AT_type, &a), &t)) {
		strbuf_addstr(out, " $return:");
		dw_type_name(&t, out, 0);
	}
	if (dwarf_child(&fn, &d) != 0)
		return true;
	do {
		int tag = dwarf_tag(&d);
		const char *name = dwarf_diename(&d);
		if ((tag != DW_TAG_formal_parameter && tag != DW_TAG_variable) || !name)
			continue;
		if (!located_at(&d, in->entry))
			continue;
		strbuf_addf(out, " $%s:", name);
		if (dwarf_formref_die(dwarf_attr_integrate(&d, DW_AT_type, &a), &t))
			dw_type_name(&t, out, 0);
		else
			strbuf_addstr(out, "void");
	} while (dwarf_siblingof(&d, &d) == 0);
	return true;
}

static void emit_decls(struct session *s, struct strbuf *out)
{
	kp_emit_decls(s, &dwarf_provider, "dwarf", out);
}

static void emit_register(struct session *s, struct strbuf *out)
{
	kp_emit_register(s, &dwarf_provider, "dwarf", out);
}

static void emit_unregister(struct session *s, struct strbuf *out)
{
	kp_emit_unregister(s, &dwarf_provider, "dwarf", out);
}

const struct provider dwarf_provider = {
	.name = "dwarf",
	.derive = derive,
	.emit_decls = emit_decls,
	.emit_register = emit_register,
	.emit_unregister = emit_unregister,
};
