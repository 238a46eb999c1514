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

#include <fnmatch.h>
#include <string.h>

#include "diag.h"
#include "inputs.h"
#include "kfunc_btf.h"
#include "kpoint.h"
#include "target/btf.h"
#include "target/dwarf_scope.h"
#include "target/kernel.h"
#include "target/ksyms.h"
#include "target/tpmeta.h"
#include "target/tracefs.h"

extern const struct provider tracepoint_provider;

#define TP_REG_ARGS 5   /* after __data: rsi rdx rcx r8 r9; then the stack */

/* A derived probe of this family (dp->data). */
struct tp_probe {
	char *name;             /* the tracepoint: "sched_switch" */
	char *system;           /* its system: "sched"; NULL if unknown */
	char *module;           /* the module it is in, NULL for the kernel */
	struct session *s;      /* to open its iterator's DWARF when first needed */
	Dwarf_Off die;          /* __traceiter_NAME's DIE there, 0 if none (listed only) */
	Dwarf_Addr entry;       /* and its entry */
	char *vars;             /* -L's text as the tracepoints' metadata has it, or NULL */
	bool scope_tried;       /* the DWARF was opened for scope */
	struct dw_scope scope;  /* __traceiter_NAME at its entry */
	struct kfunc_btf *btf;  /* or, without DWARF, its arguments as BTF has them */
	bool event_only;        /* a trace event and no tracepoint (syscalls:sys_enter_NAME):
				 * BPF attaches to its perf event, no $variables */
	int nargs;              /* its arguments after __data */
};

/* One probe of p on tracepoint name (of system sys, NULL if unknown; in
 * module, NULL for the kernel) with nargs arguments; its scope comes from
 * t's DWARF when asked (tvar_scope). */
static struct tp_probe *add_probe(struct session *s, struct probe *p, struct probe_point *pp, const char *name,
				  const char *sys, const char *module, int nargs)
{
	struct tp_probe *t = xcalloc(1, sizeof(*t));

	t->name = xstrdup(name);
	t->nargs = nargs;
	t->system = sys ? xstrdup(sys) : NULL;
	t->module = module ? xstrdup(module) : NULL;
	t->s = s;
	struct derived_probe *dp = derived_probe_add(s, p, pp, &tracepoint_provider, STP_PK_NORMAL);
	dp->pp = sys ? xasprintf("kernel.trace(\"%s:%s\")", sys, name) : xasprintf("kernel.trace(\"%s\")", name);
	dp->data = t;
	return t;
}

/* Does tracepoint record r match the point's patterns (sys_pat NULL: any)? */
static bool matches(const struct tpm *r, const char *name_pat, const char *sys_pat)
{
	return !fnmatch(name_pat, r->name, 0) && (!sys_pat || (r->system && !fnmatch(sys_pat, r->system, 0)));
}

static int add_module_live(struct session *s, struct probe *p, struct probe_point *pp, struct dw_image *kernel,
			   const char *module, const char *name_pat, const char *sys_pat);

/* Probes of p on set's records matching the patterns: the kernel's, or
 * the modules' (modules). Unless only listed (-l), only those whose
 * arguments DWARF gives; a module whose DWARF was missing when a cached
 * set was made is looked at again. Their number. */
static int add_records(struct session *s, struct probe *p, struct probe_point *pp, struct dw_image *kernel,
		       const struct tpm_set *set, bool cached, bool modules, const char *name_pat,
		       const char *sys_pat)
{
	bool need_dwarf = !(s->list_mode && !s->list_vars);
	int n = 0;

	for (int i = 0; i < set->tps.len; i++) {
		const struct tpm *r = &set->tps.items[i];
		const struct tpm_module *m = r->module >= 0 ? &set->mods.items[r->module] : NULL;
		if (!m != !modules)
			continue;
		if (m && cached && need_dwarf && m->no_dwarf) {
			if (!i || set->tps.items[i - 1].module != r->module)   /* once a module */
				n += add_module_live(s, p, pp, kernel, m->name, name_pat, sys_pat);
			continue;
		}
		if (!matches(r, name_pat, sys_pat) || (need_dwarf && r->nargs < 0))
			continue;
		if (m && m->dwarf && cached && need_dwarf)   /* as if read now: the run depends on it */
			input_note(s, m->dwarf);
		struct tp_probe *t = add_probe(s, p, pp, r->name, r->system, m ? m->name : NULL, r->nargs < 0 ? 0 : r->nargs);
		if (r->nargs >= 0) {
			t->die = r->die;
			t->entry = r->entry;
		}
		t->vars = r->vars && r->nargs >= 0 ? xstrdup(r->vars) : NULL;
		n++;
	}
	return n;
}

/* The tracepoints of module matching the patterns, found now (its DWARF
 * kept open for their $variables), as probes of p; their number. */
static int add_module_live(struct session *s, struct probe *p, struct probe_point *pp, struct dw_image *kernel,
			   const char *module, const char *name_pat, const char *sys_pat)
{
	struct tpm_set live = { 0 };
	char *path = kernel_module_path(s, module);
	int n = 0;

	if (path) {
		tpm_module(s, kernel, module, path, name_pat, sys_pat, TPM_KEEP_DWARF, false, &live);
		n = add_records(s, p, pp, kernel, &live, false, true, name_pat, sys_pat);
	}
	tpm_set_clear(&live);
	free(path);
	return n;
}

/* The tracepoints of the kernel, then of its modules (unless the name
 * is one the kernel has: a tracepoint's name is unique), matching the
 * patterns, as probes of p; their number. From the cached metadata of
 * every tracepoint when there is one; kernel.trace("*") makes it (one
 * walk of every module's DWARF, kept for the next runs); any other point
 * without it finds only what it matches, as cheaply as it can: its
 * modules' DWARF is read only when their probes need their arguments (not
 * for -l), and stays open for them. */
static int add_dwarf(struct session *s, struct probe *p, struct probe_point *pp, struct dw_image *img,
		     const struct ksymtab *syms, const struct tpm_set *all, const char *name_pat,
		     const char *sys_pat)
{
	bool need_dwarf = !(s->list_mode && !s->list_vars);
	bool every = !strcmp(name_pat, "*") && (!sys_pat || !strcmp(sys_pat, "*"));
	bool wild = kpoint_has_wildcard(name_pat);
	int n;

	if (!all && every && need_dwarf)
		all = tpm_build_all(s, img, syms);
	if (all) {
		n = add_records(s, p, pp, img, all, true, false, name_pat, sys_pat);
		if (!n || wild)
			n += add_records(s, p, pp, img, all, true, true, name_pat, sys_pat);
		return n;
	}
	struct tpm_set live = { 0 };
	tpm_kernel(s, img, syms, name_pat, sys_pat, false, &live);
	n = add_records(s, p, pp, img, &live, false, false, name_pat, sys_pat);
	if (!n || wild) {
		strvec names = { 0 }, paths = { 0 };
		kernel_module_files(s, "*", &names, &paths);
		for (int i = 0; i < names.len; i++) {
			tpm_module(s, img, names.items[i], paths.items[i], name_pat, sys_pat,
				   need_dwarf ? TPM_KEEP_DWARF : TPM_NO_DWARF, false, &live);
			free(names.items[i]);
			free(paths.items[i]);
		}
		free(names.items);
		free(paths.items);
		n += add_records(s, p, pp, img, &live, false, true, name_pat, sys_pat);
	}
	tpm_set_clear(&live);
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
		struct tp_probe *t = add_probe(s, p, pp, name, sys, NULL, btf_nparams(b, proto) - 1);
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
			add_probe(s, p, pp, events.items[i], "syscalls", NULL, 0)->event_only = true;
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
	img = dw_kernel(s, &why);
	const struct tpm_set *all = img ? tpm_cached(s, img) : NULL;
	syms = img && !all ? ksyms_kernel(s, &why) : NULL;   /* (the cached set needs none) */
	int n;
	if (!img || (!all && !syms)) {
		const char *bwhy = NULL;
		n = add_btf(s, p, pp, name_pat, sys_pat, &bwhy);
		if (n < 0 && !pp->optional)
			diag(s, E_PROBE_POINT, pp->pos, "cannot resolve %s: %s; %s", pp_text(pp), why, bwhy);
		if (n < 0) {
			free(sys_pat);
			return pp->optional ? 1 : -1;
		}
	} else {
		n = add_dwarf(s, p, pp, img, syms, all, name_pat, sys_pat);
	}
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

/* The iterator's DWARF image is opened the first time a probe's scope is
 * asked for (the kernel's, or its module's: dw_module keeps it for the
 * others). Its DIE is not read here: reading any DIE makes libdw walk the
 * unit headers before it (~100 MB of the kernel's), and pass 2 asks for
 * a scope even of a body without $variables. */
static const struct dw_scope *tvar_scope(const struct derived_probe *dp)
{
	struct tp_probe *t = dp->data;

	if (!t->scope_tried && t->die && !t->btf) {
		const char *why;
		t->scope_tried = true;
		struct dw_image *img = t->module ? dw_module(t->s, t->module, &why) : dw_kernel(t->s, &why);
		if (img)
			t->scope = (struct dw_scope){ .img = img, .die = t->die, .entry = t->entry, .hidden = "__data" };
	}
	return t->scope.img ? &t->scope : NULL;   /* (none when only listed) */
}

static void list_vars(struct session *s, const struct derived_probe *dp, struct strbuf *out)
{
	const struct tp_probe *t = dp->data;

	if (t->btf)
		kfunc_btf_list_vars(s, t->btf, out);
	else if (t->vars)
		strbuf_addstr(out, t->vars);
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
