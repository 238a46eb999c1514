/* tracepoint.c - kernel.trace("[system:]name") probes on the tracepoints
 * of the kernel and its modules (`kernel.trace("sched_switch")`,
 * `"sunrpc:*"`, `"*"`: wildcards in both parts).
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
#include "bpf_proto.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <string.h>

#include "diag.h"
#include "kfunc_btf.h"
#include "kpoint.h"
#include "target/btf.h"
#include "target/dwarf_funcs.h"
#include "target/dwarf_scope.h"
#include "target/kernel.h"
#include "target/ksyms.h"
#include "target/ktracepoints.h"
#include "target/tracefs.h"
#include "target/dwarf_types.h"

extern const struct provider tracepoint_provider;

#define TP_PREFIX "__traceiter_"
#define TP_REG_ARGS 5   /* after __data: rsi rdx rcx r8 r9; then the stack */

/* A derived probe of this family (dp->data). */
struct tp_probe {
	char *name;             /* the tracepoint: "sched_switch" */
	char *system;           /* its system: "sched"; NULL if unknown */
	char *module;           /* the module it is in, NULL for the kernel */
	struct dw_scope scope;  /* __traceiter_NAME at its entry */
	struct kfunc_btf *btf;  /* or, without DWARF, its arguments as BTF has them */
	bool event_only;        /* a trace event and no tracepoint (syscalls:sys_enter_NAME):
				 * BPF attaches to its perf event, no $variables */
	int nargs;              /* its arguments after __data */
};

/* What the family learns once per run. */
struct tp_state {
	bool offsets_known;
	struct ktp_layout layout;     /* offsets in struct trace_event_call / _class */
};

/* Where an event's system string is, from the kernel's DWARF. */
static const struct ktp_layout *tp_layout(struct session *s, struct dw_image *kernel)
{
	struct tp_state *st = provider_state(s, &tracepoint_provider, sizeof(*st));

	if (!st->offsets_known) {
		st->layout.class_off = dw_member_offset(kernel, "struct trace_event_call", "class");
		st->layout.system_off = dw_member_offset(kernel, "struct trace_event_class", "system");
		st->offsets_known = true;
	}
	return &st->layout;
}

/* The tracepoint's system (TRACE_SYSTEM: "sched" for sched_switch), as the
 * kernel's tracefs names it: event_NAME's class's system string, read from
 * the image; NULL if the event has no trace_event_call. */
static char *tp_system(struct session *s, struct dw_image *img, const struct ksymtab *syms,
		       const char *name)
{
	char *sym = xasprintf("event_%s", name);
	uint64_t call = 0, cls;
	long class_off = tp_layout(s, img)->class_off, system_off = tp_layout(s, img)->system_off;
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

/* A tracepoint without an event (sched's pelt_cfs_tp ...) has no system
 * string; its TRACE_SYSTEM is, by the kernel's convention, its header's
 * name: include/trace/events/sched.h declares it. NULL if the iterator
 * was not declared in a header. */
static char *header_system(const char *file)
{
	const char *base = strrchr(file, '/');
	size_t len;

	base = base ? base + 1 : file;
	len = strlen(base);
	if (len < 3 || strcmp(base + len - 2, ".h"))
		return NULL;
	return xstrndup(base, len - 2);
}

/* One probe of p on tracepoint name (of system sys, NULL if unknown; in
 * module, NULL for the kernel), its nargs arguments described by its
 * iterator f in img's DWARF (f NULL when only listed: -l needs no DWARF). */
static void add_probe(struct session *s, struct probe *p, struct probe_point *pp, const char *name,
		      char *sys, const char *module, const struct dw_func *f, int nargs, struct dw_image *img)
{
	struct tp_probe *t = xcalloc(1, sizeof(*t));

	t->name = xstrdup(name);
	t->nargs = nargs;
	t->system = sys;
	t->module = module ? xstrdup(module) : NULL;
	if (f)
		t->scope = (struct dw_scope){ .img = img, .die = f->die, .entry = f->addr, .hidden = "__data" };
	struct derived_probe *dp = derived_probe_add(s, p, pp, &tracepoint_provider, STP_PK_NORMAL);
	dp->pp = sys ? xasprintf("kernel.trace(\"%s:%s\")", sys, name) : xasprintf("kernel.trace(\"%s\")", name);
	dp->data = t;
}

/* The kernel's tracepoints matching pat, and sys_pat when given, as probes
 * of p; their number. */
static int add_kernel(struct session *s, struct probe *p, struct probe_point *pp, struct dw_image *img,
		      const struct ksymtab *syms, const struct dw_pattern *pat, const char *sys_pat)
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
		char *sys = tp_system(s, img, syms, name);
		if (!sys && f->file)   /* no event (DECLARE_TRACE): its header's name */
			sys = header_system(f->file);
		if (sys_pat && (!sys || fnmatch(sys_pat, sys, 0))) {
			free(sys);
			continue;
		}
		add_probe(s, p, pp, name, sys, NULL, f, nargs, img);
		n++;
	}
	free(funcs.items);
	return n;
}

/* The modules' tracepoints matching name_pat and sys_pat (NULL: any), as
 * probes of p; their number. Which module defines which tracepoint, of
 * which system, comes from the modules' ELF symbols (ktracepoints.h); the
 * DWARF of a module is read only when its probes need their arguments
 * (not for -l). A module whose system its file does not say gets its
 * name, less a _mod suffix. */
static int add_modules(struct session *s, struct probe *p, struct probe_point *pp, struct dw_image *kernel,
		       const char *name_pat, const char *sys_pat)
{
	const struct ktp_layout *lay = tp_layout(s, kernel);
	bool need_dwarf = !(s->list_mode && !s->list_vars);
	strvec names = { 0 }, paths = { 0 };
	int n = 0;

	kernel_module_files(s, "*", &names, &paths);
	for (int i = 0; i < names.len; i++) {
		const char *mod = names.items[i];
		const struct ktp_module *m = ktp_module(s, mod, paths.items[i], lay);
		struct dw_image *mimg = NULL;
		const struct ksymtab *msyms = NULL;
		dw_funcvec funcs = { 0 };
		bool looked = false;
		for (int j = 0; j < m->n; j++) {
			const struct ktp *tp = &m->tps[j];
			size_t len = strlen(mod);
			char *sys = tp->system ? xstrdup(tp->system)
					       : xstrndup(mod, len - (len > 4 && !strcmp(mod + len - 4, "_mod") ? 4 : 0));
			if (fnmatch(name_pat, tp->name, 0) || (sys_pat && fnmatch(sys_pat, sys, 0))) {
				free(sys);
				continue;
			}
			if (!need_dwarf) {
				add_probe(s, p, pp, tp->name, sys, mod, NULL, 0, NULL);
				n++;
				continue;
			}
			if (!looked) {   /* the module's iterators, once */
				const char *why;
				struct dw_pattern fp = { .func = xasprintf(TP_PREFIX "%s", name_pat), .no_probe = true };
				looked = true;
				mimg = dw_module(s, mod, &why);
				msyms = mimg ? ksyms_module(s, mod, &why) : NULL;
				if (mimg && msyms)
					dw_find_functions(mimg, msyms, &fp, &funcs);
				free(fp.func);
			}
			const struct dw_func *f = NULL;
			for (int k = 0; k < funcs.len && !f; k++)
				if (!strcmp(funcs.items[k].name + strlen(TP_PREFIX), tp->name) &&
				    !strncmp(funcs.items[k].name, TP_PREFIX, strlen(TP_PREFIX)))
					f = &funcs.items[k];
			int nargs = f ? tp_nargs(mimg, f->die) : -1;
			if (nargs < 0) {   /* no DWARF for it: not probed */
				free(sys);
				continue;
			}
			add_probe(s, p, pp, tp->name, sys, mod, f, nargs, mimg);
			n++;
		}
		free(funcs.items);
	}
	for (int i = 0; i < names.len; i++) {
		free(names.items[i]);
		free(paths.items[i]);
	}
	free(names.items);
	free(paths.items);
	return n;
}

/* Without DWARF: the kernel's tracepoints BTF describes matching name_pat
 * (and sys_pat, by the systems the running kernel's tracefs gives; on
 * another kernel the system is not known and not checked), their arguments
 * as BTF types and names them; the number, or -1 with *why when there is
 * no BTF either. The kernel's own only: modules' BTF is not read yet. */
static int add_btf(struct session *s, struct probe *p, struct probe_point *pp, const char *name_pat,
		   const char *sys_pat, const char **why)
{
	const struct btf *b = btf_kernel(s, why);
	strvec names = { 0 };
	int n = 0;

	if (!b)
		return -1;
	btf_tracepoints_matching(b, name_pat, &names);
	for (int i = 0; i < names.len; i++) {
		const char *name = names.items[i];
		bool known;
		const char *sys = tracefs_event_system(s, name, &known);
		uint32_t proto = btf_tracepoint_proto(b, name);
		if (!proto || (sys_pat && known && (!sys || fnmatch(sys_pat, sys, 0))))
			continue;
		add_probe(s, p, pp, name, sys ? xstrdup(sys) : NULL, NULL, NULL, btf_nparams(b, proto) - 1, NULL);
		struct tp_probe *t = s->probes.items[s->probes.len - 1]->data;
		t->btf = kfunc_btf_params(b, name, proto, 1);
		n++;
	}
	free(names.items);
	/* the syscalls system's events are the raw_syscalls tracepoints' ftrace
	 * events, one a call: BPF attaches to them (perf), a module cannot */
	if (sys_pat && !fnmatch(sys_pat, "syscalls", 0) && s->runtime_bpf) {
		strvec events = { 0 };
		tracefs_events_matching(s, "syscalls", name_pat, &events);
		for (int i = 0; i < events.len; i++) {
			add_probe(s, p, pp, events.items[i], xstrdup("syscalls"), NULL, NULL, 0, NULL);
			((struct tp_probe *)s->probes.items[s->probes.len - 1]->data)->event_only = true;
			n++;
		}
		free(events.items);
	}
	return n;
}

/* kernel.trace("[SYSTEM:]NAME"): the tracepoints of the kernel and of its
 * modules (sunrpc:*, xfs:*, scsi:* in scsi_mod ...), through DWARF, or
 * through BTF when there is none. */
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
	const char *name_pat = colon ? colon + 1 : arg;
	struct dw_pattern pat = { .func = xasprintf(TP_PREFIX "%s", name_pat), .no_probe = true };
	img = dw_kernel(s, &why);
	syms = img ? ksyms_kernel(s, &why) : NULL;
	int n;
	if (!img || !syms) {
		const char *bwhy = NULL;
		n = add_btf(s, p, pp, name_pat, sys_pat, &bwhy);
		if (n < 0 && !pp->optional)
			diag(s, E_PROBE_POINT, pp->pos, "cannot resolve %s: %s; %s", pp_text(pp), why, bwhy);
		if (n < 0) {
			free(pat.func);
			free(sys_pat);
			return pp->optional ? 1 : -1;
		}
	} else {
		n = add_kernel(s, p, pp, img, syms, &pat, sys_pat);
		/* a tracepoint's name is unique: one the kernel has is no module's */
		if (!n || kpoint_has_wildcard(name_pat))
			n += add_modules(s, p, pp, img, name_pat, sys_pat);
	}
	free(pat.func);
	free(sys_pat);
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
	const struct tp_probe *t = dp->data;

	return t->scope.img ? &t->scope : NULL;   /* (none when only listed) */
}

static void list_vars(struct session *s, const struct derived_probe *dp, struct strbuf *out)
{
	const struct tp_probe *t = dp->data;

	if (t->btf)
		kfunc_btf_list_vars(s, t->btf, out);
	else if (tvar_scope(dp))
		dw_scope_vars(tvar_scope(dp), out);
}

/* Through BTF: the arguments where the handler puts them (tracepoint_gen),
 * as at a function's entry; through DWARF, none of this family's own. */
static int tvar_code(struct session *s, const struct derived_probe *dp, const struct expr *e,
		     const struct lx **value, lpvec **pretty, char **why)
{
	const struct tp_probe *t = dp->data;

	if (t->event_only) {
		*why = xasprintf("%s is a trace event of the syscalls system, not a tracepoint: it has no "
				 "arguments to read (the syscall tapsets read the task's registers)", t->name);
		return -1;
	}
	return t->btf ? kfunc_btf_tvar(s, t->btf, e, value, pretty, why) : 0;
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

/* --runtime=bpf: a raw tracepoint, whose context is the arguments the
 * module's handler gets after __data (its pt_regs si, dx, cx, r8, r9, then
 * the stack sp points at) */
static int bpf_attach(const struct derived_probe *dp, struct bpf_attach *at, const char **why)
{
	const struct tp_probe *t = dp->data;

	(void)why;
	if (t->event_only)   /* its perf event: the context is its record */
		*at = (struct bpf_attach){ .kind = BA_TRACEPOINT, .symbol = t->system, .event = t->name };
	else
		*at = (struct bpf_attach){ .kind = BA_RAW_TRACEPOINT, .event = t->name };
	return 0;
}

static const char *const shapes[] = { "kernel.trace()", NULL };

const struct provider tracepoint_provider = {
	.name = "tracepoint",
	.runtime_header = "tracepoints.h",
	.probe_type = probe_type,
	.derive = derive,
	.tvar_scope = tvar_scope,
	.tvar_code = tvar_code,
	.list_vars = list_vars,
	.handler = &tracepoint_abi,
	.emit_decls = emit_decls,
	.emit_register = emit_register,
	.emit_unregister = emit_unregister,
	.in_irq = in_irq,
	.guest_modules = guest_modules,
	.bpf_attach = bpf_attach,
	.shapes = shapes,
};
