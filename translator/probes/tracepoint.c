/* tracepoint.c - kernel.trace("name") probes on the kernel's tracepoints
 * (`kernel.trace("sched_switch")`, wildcards, "system:name" with the system
 * part ignored).
 *
 * Every tracepoint TP has an iterator function __traceiter_TP(void *__data,
 * proto...) in the kernel, whose DWARF names and types the tracepoint's
 * arguments. The module registers, for each probe, a function taking
 * (void *data, one 64-bit word per argument) with
 * tracepoint_probe_register() (a module's, when the module comes, see
 * runtime/tracepoints.h); the handler lays them out in a pt_regs as
 * the C calling convention passes them to __traceiter_TP (rdi, rsi, rdx,
 * rcx, r8, r9, then the stack above a return address, which the handler
 * builds on its own stack and points sp at), so that $prev, $next and
 * $$parms resolve through the iterator's DWARF at its entry, like any other
 * target variable, however many arguments the tracepoint has.
 */
#include "provider.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <string.h>

#include "diag.h"
#include "kpoint.h"
#include "target/dwarf_funcs.h"
#include "target/dwarf_scope.h"
#include "target/ksyms.h"
#include "target/tvars.h"

extern const struct provider tracepoint_provider;

#define TP_PREFIX "__traceiter_"
#define TP_REG_ARGS 5   /* after __data: rsi rdx rcx r8 r9; then the stack */

/* A derived probe of this family (dp->data). */
struct tp_probe {
	char *name;             /* the tracepoint: "sched_switch" */
	char *system;           /* its system: "sched"; NULL if unknown */
	char *module;           /* the module it is in, NULL for the kernel */
	struct dw_scope scope;  /* __traceiter_NAME at its entry */
	int nargs;              /* its arguments after __data */
};

/* What the family learns once per run. */
struct tp_state {
	bool offsets_known;
	long class_off, system_off;   /* in struct trace_event_call / _class */
};

/* The tracepoint's system (TRACE_SYSTEM: "sched" for sched_switch), as the
 * kernel's tracefs names it: event_NAME's class's system string, read from
 * the image; NULL if the event has no trace_event_call. */
static char *tp_system(struct session *s, struct dw_image *img, const struct ksymtab *syms,
		       const char *name)
{
	struct tp_state *st = provider_state(s, &tracepoint_provider, sizeof(*st));
	char *sym = xasprintf("event_%s", name);
	uint64_t call = 0, cls;

	if (!st->offsets_known) {
		st->class_off = dw_member_offset(img, "struct trace_event_call", "class");
		st->system_off = dw_member_offset(img, "struct trace_event_class", "system");
		st->offsets_known = true;
	}
	long class_off = st->class_off, system_off = st->system_off;
	for (size_t i = 0; i < syms->n && !call; i++)
		if (!strcmp(syms->syms[i].name, sym))
			call = syms->syms[i].addr;
	free(sym);
	if (!call || class_off < 0 || system_off < 0 || !dw_image_read(img, call + class_off, &cls, 8))
		return NULL;
	return dw_image_string_at(img, cls + system_off);
}

/* Arguments of the iterator after __data; -1 if it is not a function. */
static int tp_nargs(struct dw_image *img, Dwarf_Off die)
{
	Dwarf_Die fn, d;
	int n = 0;

	if (!dwarf_offdie(img->dbg, die, &fn))
		return -1;
	if (dwarf_child(&fn, &d) != 0)
		return 0;
	do
		n += dwarf_tag(&d) == DW_TAG_formal_parameter;
	while (dwarf_siblingof(&d, &d) == 0);
	return n - 1;
}

/* The tracepoints of one image (the kernel's, or module's) matching pat,
 * and sys_pat when given, as probes of p; their number. A module's system
 * is its name (less a _mod suffix) when its image does not say (its
 * pointers need relocating). */
static int add_image(struct session *s, struct probe *p, struct probe_point *pp, struct dw_image *img,
		     const struct ksymtab *syms, const struct dw_pattern *pat, const char *sys_pat,
		     const char *module)
{
	dw_funcvec funcs = { 0 };
	int n = 0;

	dw_find_functions(img, syms, pat, &funcs);
	for (int i = 0; i < funcs.len; i++) {
		const struct dw_func *f = &funcs.items[i];
		const char *name = f->name + strlen(TP_PREFIX);
		if (strncmp(f->name, TP_PREFIX, strlen(TP_PREFIX)) || !*name)
			continue;
		int nargs = tp_nargs(img, f->die);
		if (nargs < 0)
			continue;
		char *sys = module ? NULL : tp_system(s, img, syms, name);
		if (!sys && module)   /* its module's name, less a _mod suffix */
			sys = xstrndup(module, strlen(module) - (strlen(module) > 4 &&
					   !strcmp(module + strlen(module) - 4, "_mod") ? 4 : 0));
		if (sys_pat && (!sys || fnmatch(sys_pat, sys, 0)))
			continue;
		struct tp_probe *t = xcalloc(1, sizeof(*t));
		t->name = xstrdup(name);
		t->nargs = nargs;
		t->system = sys;
		t->module = module ? xstrdup(module) : NULL;
		t->scope = (struct dw_scope){ .img = img, .die = f->die, .entry = f->addr, .hidden = "__data" };
		struct derived_probe *dp = derived_probe_add(s, p, pp, &tracepoint_provider, PK_NORMAL);
		dp->pp = sys ? xasprintf("kernel.trace(\"%s:%s\")", sys, name) : xasprintf("kernel.trace(\"%s\")", name);
		dp->data = t;
		n++;
	}
	free(funcs.items);
	return n;
}

/* kernel.trace("[SYSTEM:]NAME"): the kernel's tracepoints; with a SYSTEM,
 * also those of the module of that name (sunrpc:*, xfs:*, btrfs:* ...) or
 * SYSTEM_mod (scsi:* is scsi_mod's). */
static int derive(struct session *s, struct probe *p, struct probe_point *pp)
{
	const char *arg, *why = NULL, *colon;
	struct dw_image *img;
	const struct ksymtab *syms;

	if (!pp_comp_is(pp, 0, "kernel") || !pp_comp_is(pp, 1, "trace"))
		return 0;
	if (!kpoint_str_arg(s, pp, 1, &arg))
		return -1;
	if (pp->comps.len != 2) {   /* (an alias's kernel.trace alternative given .return: the next) */
		if (pp->optional)
			return 1;
		diag(s, E_PROBE_POINT, pp->comps.items[2]->pos, "kernel.trace takes no further components");
		return -1;
	}
	colon = strchr(arg, ':');
	char *sys_pat = colon ? xstrndup(arg, (size_t)(colon - arg)) : NULL;
	struct dw_pattern pat = { .func = xasprintf(TP_PREFIX "%s", colon ? colon + 1 : arg) };
	img = dw_kernel(s, &why);
	syms = img ? ksyms_kernel(s, &why) : NULL;
	if (!img || !syms) {
		if (pp->optional)
			return 1;
		diag(s, E_PROBE_POINT, pp->pos, "cannot resolve %s: %s", pp_text(pp), why);
		return -1;
	}
	int n = add_image(s, p, pp, img, syms, &pat, sys_pat, NULL);
	if (sys_pat && !kpoint_has_wildcard(sys_pat)) {
		/* the module named as the system, or SYSTEM_mod (scsi: scsi_mod);
		 * not every module's DWARF for a wildcard */
		char *names[2] = { sys_pat, xasprintf("%s_mod", sys_pat) };
		for (int k = 0; k < 2; k++) {
			strvec mods = { 0 };
			ksyms_module_names(s, names[k], &mods);
			for (int i = 0; i < mods.len; i++) {
				struct dw_image *mimg = dw_module(s, mods.items[i], &why);
				const struct ksymtab *msyms = mimg ? ksyms_module(s, mods.items[i], &why) : NULL;
				if (mimg && msyms)
					n += add_image(s, p, pp, mimg, msyms, &pat, sys_pat, mods.items[i]);
			}
		}
		free(names[1]);
	}
	if (!n) {
		if (pp->optional || s->errors)
			return 1;
		diag(s, E_PROBE_POINT, pp->pos, "no match for probe point %s (no such tracepoint)", pp_text(pp));
		return -1;
	}
	return 1;
}

/* The modules the probes' tracepoints are in: the guest loads them. */
static void guest_modules(struct session *s, strvec *out)
{
	for (int i = 0; i < s->probes.len; i++) {
		const struct derived_probe *dp = s->probes.items[i];
		const struct tp_probe *t = dp->data;
		bool seen = false;
		if (dp->prov != &tracepoint_provider || !t->module)
			continue;
		for (int j = 0; j < out->len && !seen; j++)
			seen = !strcmp(out->items[j], t->module);
		if (!seen)
			vec_push(out, xstrdup(t->module));
	}
}

/* The "irq" system's tracepoints (irq_handler_entry, softirq_entry,
 * tasklet_entry ...) fire in hard or soft interrupt context. */
static bool in_irq(const struct derived_probe *dp)
{
	const struct tp_probe *t = dp->data;

	return t->system && !strcmp(t->system, "irq");
}

static const struct dw_scope *tvar_scope(const struct derived_probe *dp)
{
	return &((const struct tp_probe *)dp->data)->scope;
}

static void list_vars(struct session *s, const struct derived_probe *dp, struct strbuf *out)
{
	dw_scope_vars(tvar_scope(dp), out);
}

/* The kernel calls the handler as the tracepoint's probe: (void *data,
 * its arguments...), each passed as a 64-bit word. The first five after
 * data go to the registers the iterator receives them in; the others to
 * a stack laid out as at the iterator's entry (a return address slot, then
 * the arguments in order), which regs.sp points at. */
static void tracepoint_gen(const struct derived_probe *dp, struct strbuf *params, struct strbuf *fill)
{
	static const char *const regs[TP_REG_ARGS] = { "si", "dx", "cx", "r8", "r9" };
	const struct tp_probe *t = dp->data;

	strbuf_addstr(params, "void *data");
	for (int i = 1; i <= t->nargs; i++)
		strbuf_addf(params, ", u64 a%d", i);
	if (t->nargs > TP_REG_ARGS) {
		strbuf_addstr(fill, "\tu64 stack[] = { 0");
		for (int i = TP_REG_ARGS + 1; i <= t->nargs; i++)
			strbuf_addf(fill, ", a%d", i);
		strbuf_addstr(fill, " };\n");
	}
	strbuf_addstr(fill, "\tstruct pt_regs regs = { .di = (unsigned long)data");
	for (int i = 1; i <= t->nargs && i <= TP_REG_ARGS; i++)
		strbuf_addf(fill, ", .%s = a%d", regs[i - 1], i);
	if (t->nargs > TP_REG_ARGS)
		strbuf_addstr(fill, ", .sp = (unsigned long)stack");
	strbuf_addstr(fill, " };\n\n\tc->regs = &regs;\n");
}

static const struct handler_abi tracepoint_abi = { .gen = tracepoint_gen };

static void emit_decls(struct session *s, struct strbuf *out)
{
	int n = provider_probes(s, &tracepoint_provider);

	if (!n)
		return;
	strbuf_addf(out, "static struct stp_tracepoint stp_tps[%d] = {\n", n);
	for (int i = 0; i < s->probes.len; i++) {
		const struct derived_probe *dp = s->probes.items[i];
		if (dp->prov != &tracepoint_provider)
			continue;
		const struct tp_probe *t = dp->data;
		strbuf_addf(out, "\t{ .name = \"%s\", .probe = (void *)dp_%d, .pp = \"%s\"", t->name, dp->index, t->name);
		if (t->module)
			strbuf_addf(out, ", .module = \"%s\"", t->module);
		strbuf_addstr(out, " },\n");
	}
	strbuf_addstr(out, "};\n");
}

static void emit_register(struct session *s, struct strbuf *out)
{
	int n = provider_probes(s, &tracepoint_provider);

	if (n)
		strbuf_addf(out, "\trc = stp_tracepoints_register(stp_tps, %d);\n\tif (rc)\n\t\treturn rc;\n", n);
}

static void emit_unregister(struct session *s, struct strbuf *out)
{
	int n = provider_probes(s, &tracepoint_provider);

	if (n)
		strbuf_addf(out, "\tstp_tracepoints_unregister(stp_tps, %d);\n", n);
}

/* As SystemTap 4.8 names it (its addr() is then 0: no registers). */
static const char *probe_type(const struct derived_probe *dp)
{
	return "kernel_tracepoint";
}

static const char *const shapes[] = { "kernel.trace()", NULL };

const struct provider tracepoint_provider = {
	.name = "tracepoint",
	.runtime_header = "tracepoints.h",
	.probe_type = probe_type,
	.derive = derive,
	.tvar_scope = tvar_scope,
	.list_vars = list_vars,
	.handler = &tracepoint_abi,
	.emit_decls = emit_decls,
	.emit_register = emit_register,
	.emit_unregister = emit_unregister,
	.in_irq = in_irq,
	.guest_modules = guest_modules,
	.shapes = shapes,
};
