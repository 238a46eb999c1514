/* tpmeta.c - the tracepoints of the kernel and of a module found live,
 * through DWARF and ELF symbols, as records (see tpmeta.h). */
#include "tpmeta.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf_funcs.h"
#include "dwarf_scope.h"
#include "dwarf_types.h"
#include "ktracepoints.h"
#include "target.h"

/* Where an event's system string is (struct trace_event_call's class,
 * trace_event_class's system), from the kernel's DWARF: once per run. */
static const struct ktp_layout *layout_of(struct session *s, struct dw_image *kernel)
{
	struct target *tg = target_of(s);

	if (!tg->tp.offsets_known) {
		tg->tp.layout.class_off = dw_member_offset(kernel, "struct trace_event_call", "class");
		tg->tp.layout.system_off = dw_member_offset(kernel, "struct trace_event_class", "system");
		tg->tp.offsets_known = true;
	}
	return &tg->tp.layout;
}

/* Arguments of the iterator after __data; -1 if it is not a function. */
static int iter_nargs(struct dw_image *img, Dwarf_Off die)
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

/* -L's text of the iterator f of img: its arguments but __data. */
static char *iter_vars(struct dw_image *img, const struct dw_func *f)
{
	struct dw_scope sc = { .img = img, .die = f->die, .entry = f->addr, .hidden = "__data" };
	struct strbuf sb = STRBUF_INIT;

	dw_scope_vars(&sc, &sb);
	return strbuf_detach(&sb);
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

static int cmp_ksym_name(const void *a, const void *b)
{
	const struct ksym *x = *(const struct ksym *const *)a, *y = *(const struct ksym *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The kernel's event_NAME symbols (each event's trace_event_call), by
 * name and then address, for one search per tracepoint. */
typedef VEC(const struct ksym *) ksymptrs;
static void event_symbols(const struct ksymtab *syms, ksymptrs *out)
{
	for (size_t i = 0; i < syms->n; i++)
		if (!strncmp(syms->syms[i].name, "event_", 6))
			vec_push(out, &syms->syms[i]);
	if (out->len > 1)
		qsort(out->items, (size_t)out->len, sizeof(*out->items), cmp_ksym_name);
}

/* The tracepoint's system (TRACE_SYSTEM: "sched" for sched_switch), as the
 * kernel's tracefs names it: event_NAME's class's system string, read from
 * the image; NULL if the event has no trace_event_call. */
static char *event_system(struct session *s, struct dw_image *img, const ksymptrs *events, const char *name)
{
	const struct ktp_layout *lay = layout_of(s, img);
	char *want = xasprintf("event_%s", name);
	int lo = 0, hi = events->len;
	uint64_t cls;

	while (lo < hi) {   /* the first of that name: the lowest address */
		int mid = lo + (hi - lo) / 2;
		if (strcmp(events->items[mid]->name, want) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	bool found = lo < events->len && !strcmp(events->items[lo]->name, want);
	uint64_t call = found ? events->items[lo]->addr : 0;
	free(want);
	if (!call || lay->class_off < 0 || lay->system_off < 0 ||
	    !dw_image_read(img, call + (uint64_t)lay->class_off, &cls, 8))
		return NULL;
	return dw_image_string_at(img, cls + (uint64_t)lay->system_off);
}

void tpm_kernel(struct session *s, struct dw_image *img, const struct ksymtab *syms, const char *name_pat,
		const char *sys_pat, bool with_vars, struct tpm_set *set)
{
	struct dw_pattern pat = { .func = xasprintf(TPM_ITER "%s", name_pat), .no_probe = true };
	dw_funcvec funcs = { 0 };
	ksymptrs events = { 0 };

	dw_find_functions(img, syms, &pat, &funcs);
	event_symbols(syms, &events);
	for (int i = 0; i < funcs.len; i++) {
		const struct dw_func *f = &funcs.items[i];
		const char *name = f->name + strlen(TPM_ITER);
		if (strncmp(f->name, TPM_ITER, strlen(TPM_ITER)) || !*name)
			continue;
		int nargs = iter_nargs(img, f->die);
		if (nargs < 0)
			continue;
		char *sys = event_system(s, img, &events, name);
		if (!sys && f->file)   /* no event (DECLARE_TRACE): its header's name */
			sys = header_system(f->file);
		if (sys_pat && (!sys || fnmatch(sys_pat, sys, 0))) {
			free(sys);
			continue;
		}
		vec_push(&set->tps, ((struct tpm){ .name = xstrdup(name), .system = sys, .module = -1, .nargs = nargs,
						   .die = f->die, .entry = f->addr,
						   .vars = with_vars ? iter_vars(img, f) : NULL }));
	}
	free(events.items);
	free(funcs.items);
	free(pat.func);
}

/* The iterator of tracepoint name among funcs, or NULL. */
static const struct dw_func *iterator_of(const dw_funcvec *funcs, const char *name)
{
	for (int k = 0; k < funcs->len; k++)
		if (!strncmp(funcs->items[k].name, TPM_ITER, strlen(TPM_ITER)) &&
		    !strcmp(funcs->items[k].name + strlen(TPM_ITER), name))
			return &funcs->items[k];
	return NULL;
}

/* Which module defines which tracepoint, of which system, comes from the
 * modules' ELF symbols (ktracepoints.h); a module whose system its file
 * does not say gets its name, less a _mod suffix. The module's DWARF is
 * opened when one of its tracepoints matches, and how says for how long. */
void tpm_module(struct session *s, struct dw_image *kernel, const char *module, const char *path,
		const char *name_pat, const char *sys_pat, enum tpm_dwarf how, bool with_vars,
		struct tpm_set *set)
{
	const struct ktp_module *m = ktp_module(s, module, path, layout_of(s, kernel));
	struct dw_image *mimg = NULL;
	dw_funcvec funcs = { 0 };
	bool looked = false, held = false;
	int mod = -1;
	struct target *tg = target_of(s);

	for (int i = 0; i < tg->dw.modules.len && !held; i++)   /* (probes' scopes point into it) */
		held = tg->dw.modules.items[i]->module && !strcmp(tg->dw.modules.items[i]->module, module);

	for (int j = 0; j < m->n; j++) {
		const struct ktp *tp = &m->tps[j];
		size_t len = strlen(module);
		char *sys = tp->system ? xstrdup(tp->system)
				       : xstrndup(module, len - (len > 4 && !strcmp(module + len - 4, "_mod") ? 4 : 0));
		if (fnmatch(name_pat, tp->name, 0) || (sys_pat && fnmatch(sys_pat, sys, 0))) {
			free(sys);
			continue;
		}
		if (mod < 0) {
			mod = set->mods.len;
			vec_push(&set->mods, ((struct tpm_module){ .name = xstrdup(module) }));
		}
		if (how != TPM_NO_DWARF && !looked) {   /* the module's iterators, once */
			const char *why;
			struct dw_pattern fp = { .func = xasprintf(TPM_ITER "%s", name_pat), .no_probe = true };
			const struct ksymtab *msyms;
			looked = true;
			mimg = dw_module(s, module, &why);
			msyms = mimg ? ksyms_module(s, module, &why) : NULL;
			if (mimg && msyms)
				dw_find_functions(mimg, msyms, &fp, &funcs);
			set->mods.items[mod].no_dwarf = !mimg;
			set->mods.items[mod].dwarf = mimg ? xstrdup(mimg->path) : NULL;
			free(fp.func);
		}
		const struct dw_func *f = mimg ? iterator_of(&funcs, tp->name) : NULL;
		int nargs = f ? iter_nargs(mimg, f->die) : -1;
		vec_push(&set->tps, ((struct tpm){ .name = xstrdup(tp->name), .system = sys, .module = mod, .nargs = nargs,
						   .die = f ? f->die : 0, .entry = f ? f->addr : 0,
						   .vars = f && nargs >= 0 && with_vars ? iter_vars(mimg, f) : NULL }));
	}
	free(funcs.items);
	if (mimg && how == TPM_CLOSE_DWARF && !held)
		dw_module_close(s, mimg);
}

void tpm_set_clear(struct tpm_set *set)
{
	for (int i = 0; i < set->tps.len; i++) {
		free(set->tps.items[i].name);
		free(set->tps.items[i].system);
		free(set->tps.items[i].vars);
	}
	for (int i = 0; i < set->mods.len; i++) {
		free(set->mods.items[i].name);
		free(set->mods.items[i].dwarf);
	}
	free(set->tps.items);
	free(set->mods.items);
	*set = (struct tpm_set){ 0 };
}
