/* dwarf.c - kernel.function("pattern") and module("m").function("pattern")
 * probes through the DWARF of the target kernel (dwarf_funcs.c), with
 * .call, .return[.maxactive(N)], .exported, .inline (the inlined instances,
 * dwarf_stmt.c) and .label("x"); kernel.statement("f@file:N") and
 * module("m").statement(...) (the first statement of a line, dwarf_stmt.c),
 * kernel.statement(ADDR) and, in guru mode, kernel.statement(ADDR).absolute.
 *
 * Plain .function probes go on the out-of-line instances only.
 * A kernel function is registered as "_stext" + its distance from _stext
 * in the symbol table, so KASLR does not matter and static functions with
 * the same name stay apart; the runtime checks that the kernel finds the
 * expected symbol there. A module function is registered as "module:sym".
 */
#include "provider.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "kpoint.h"
#include "kpsites.h"
#include "kfunc_btf.h"
#include "target/blacklist.h"
#include "target/dwarf_funcs.h"
#include "target/dwarf_scope.h"
#include "target/dwarf_stmt.h"
#include "target/ftrace_sites.h"
#include "target/uimage.h"
#include "uprobes.h"

extern const struct provider dwarf_provider;

/* A derived probe of this family (dp->data): where it is registered, and
 * the DWARF scope of its target variables (none for .absolute). */
struct dwarf_probe {
	struct kp_site site;    /* first: kpsites.h reads it at dp->data */
	struct dw_scope scope;
	bool has_scope;
	bool cold;              /* a .cold part: no DWARF of its own */
};

/* The symbol the runtime must find at the probe's address: only if no
 * other symbol shares the address (aliases print as either name). */
static char *verify_name(const struct ksymtab *t, const struct dw_func *f)
{
	int n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += t->syms[i].addr == f->addr;
	return n == 1 ? xstrdup(f->symbol) : NULL;
}

/* What a point's first component names in pp(): a module, a user file;
 * NULL: as written (a library's point holds the paths already). */
static const char *img_arg(const struct probe_point *pp, const struct dw_image *img)
{
	if (img->user && pp_comp_is(pp, 1, "library"))
		return NULL;
	return img->module ? img->module : img->user;
}

/* The probe's pp(): the point with the arguments of components idx[i]
 * replaced by args[i] (the function or statement, the module of a
 * module("*") point, the label). */
static char *point_text(struct probe_point *pp, const int *idx, const char *const *args, int n)
{
	struct expr *saved[3], tmp[3];
	char *t;

	for (int i = 0; i < n; i++) {
		struct pp_comp *c = pp->comps.items[idx[i]];
		saved[i] = c->arg;
		if (!saved[i] || !args[i])
			continue;
		tmp[i] = *saved[i];
		tmp[i].str = (char *)args[i];
		tmp[i].str_len = strlen(args[i]);
		c->arg = &tmp[i];
	}
	t = pp_text(pp);
	for (int i = 0; i < n; i++)
		pp->comps.items[idx[i]]->arg = saved[i];
	return t;
}

/* A new probe of this family registered at site k; scope, if any, is
 * where its target variables are. */
static struct derived_probe *new_probe(struct session *s, struct probe *p, struct probe_point *pp,
				       const struct kp_site *k, const struct dw_scope *scope)
{
	struct derived_probe *dp = derived_probe_add(s, p, pp, &dwarf_provider, STP_PK_NORMAL);
	struct dwarf_probe *d = xcalloc(1, sizeof(*d));

	d->site = *k;
	if (scope) {
		d->scope = *scope;
		d->has_scope = true;
	}
	dp->data = d;
	return dp;
}

/* A probe at DWARF address a of img (a statement, label or inlined
 * instance), registered at its function symbol + offset: the kernel's as
 * "_stext" + offset, checked against the symbol holding it. */
static bool add_probe_at(struct session *s, struct probe *p, struct probe_point *pp,
			 struct dw_image *img, const struct ksymtab *syms, Dwarf_Addr a,
			 Dwarf_Off die, bool in_body, char *text, bool optional)
{
	struct kp_site k = { .optional = optional };
	const char *sym;
	uint64_t off;

	if (img->user) {
		struct dw_scope scope = { .img = img, .die = die, .entry = a };
		if (in_body)
			dw_scope_find_block(&scope);
		return uprobe_add(s, p, pp, img, a, a, false, die ? &scope : NULL, text);
	}
	if (!dw_addr_symbol(img, syms, a, &sym, &off)) {
		free(text);
		return false;
	}
	if (img->module) {
		k.symbol = xasprintf("%s:%s", img->module, sym);
		k.offset = off;
	} else if (syms->stext && a >= syms->stext) {
		int same = 0;
		for (size_t i = 0; i < syms->n; i++)
			same += syms->syms[i].addr == a - off;
		k.symbol = xstrdup("_stext");
		k.offset = a - syms->stext;
		k.verify = same == 1 ? xstrdup(sym) : NULL;
	} else {
		k.symbol = xstrdup(sym);
		k.offset = off;
	}
	struct dw_scope scope = { .img = img, .die = die, .entry = a };
	if (in_body)   /* statements and labels: also the innermost block */
		dw_scope_find_block(&scope);
	new_probe(s, p, pp, &k, &scope)->pp = text;
	return true;
}

static void add_probe(struct session *s, struct probe *p, struct probe_point *pp, int fn_comp,
		      struct dw_image *img, const struct ksymtab *syms, const struct dw_func *f,
		      const struct kpoint_suffix *suf, bool optional)
{
	char *where = xasprintf("%s@%s:%d", f->name, f->file, f->line);
	struct kp_site k = { .ret = suf->ret, .maxactive = suf->maxactive, .optional = optional };
	int idx[] = { 0, fn_comp };
	const char *args[] = { img_arg(pp, img), where };

	if (img->user) {
		/* a user function's entry probe sits past its prologue, as
		 * SystemTap's; a .return probe's values at entry are read there */
		Dwarf_Addr body = dw_prologue_end(img, f->die, f->addr);
		struct dw_scope scope = { .img = img, .die = f->die, .entry = body, .ret = suf->ret };
		uprobe_add(s, p, pp, img, suf->ret ? f->addr : body, f->addr, suf->ret, &scope,
			   point_text(pp, idx, args, 2));
		free(where);
		return;
	}
	if (img->module) {
		k.symbol = xasprintf("%s:%s", img->module, f->symbol);
	} else if (syms->stext && f->addr >= syms->stext) {
		uint64_t site;
		k.symbol = xstrdup("_stext");
		k.offset = f->addr - syms->stext;
		k.verify = verify_name(syms, f);
		k.func = f->symbol;
		if (!suf->ret && ftrace_site_of(img, f->addr, &site)) {
			k.fentry = true;
			k.fentry_delta = (unsigned)(site - f->addr);
		}
	} else {
		k.symbol = xstrdup(f->symbol);
	}
	struct dw_scope scope = { .img = img, .die = f->die, .entry = f->addr, .ret = suf->ret };
	new_probe(s, p, pp, &k, &scope)->pp = point_text(pp, idx, args, 2);
	free(where);
}

/* A compiler-split part of a function (foo.cold: the code GCC moved out
 * of line into .text.unlikely) is a symbol of its own with no DWARF
 * function: SystemTap lists and probes it as a function named by the
 * symbol, kernel.function("vfs_get_tree.cold"), without target
 * variables; so does cstap, for a pattern without @file that matches the
 * whole symbol name. */
static int probe_cold_parts(struct session *s, struct probe *p, struct probe_point *pp, int fn_comp,
			    struct dw_image *img, const struct ksymtab *syms, const struct dw_pattern *pat,
			    const struct kpoint_suffix *suf, bool optional)
{
	int n = 0, idx[] = { 0, fn_comp };

	if (pat->file || pat->line || suf->exported || !syms)
		return 0;
	for (size_t i = 0; i < syms->n; i++) {
		const struct ksym *k = &syms->syms[i];
		size_t len = strlen(k->name);
		if (!ksym_is_text(k) || len <= 5 || strcmp(k->name + len - 5, ".cold") ||
		    fnmatch(pat->func, k->name, 0) || blacklist_symbol_why(syms, k))
			continue;
		struct kp_site site = { .ret = suf->ret, .maxactive = suf->maxactive, .optional = optional };
		if (img->module) {
			site.symbol = xasprintf("%s:%s", img->module, k->name);
		} else if (syms->stext && k->addr >= syms->stext) {
			int same = 0;
			for (size_t j = 0; j < syms->n; j++)
				same += syms->syms[j].addr == k->addr;
			site.symbol = xstrdup("_stext");
			site.offset = k->addr - syms->stext;
			site.verify = same == 1 ? xstrdup(k->name) : NULL;
		} else {
			site.symbol = xstrdup(k->name);
		}
		const char *args[] = { img->module, k->name };
		struct derived_probe *dp = new_probe(s, p, pp, &site, NULL);
		dp->pp = point_text(pp, idx, args, 2);
		((struct dwarf_probe *)dp->data)->cold = true;
		n++;
	}
	return n;
}

/* What a point asks for in the functions it matches. */
struct dw_request {
	enum { RQ_FUNCTION, RQ_INLINE, RQ_INLINE_OF_FUNCTION, RQ_LABEL, RQ_LABEL_INLINE,
	       RQ_STATEMENT, RQ_PLT } kind;
	struct kpoint_suffix suf;       /* RQ_FUNCTION */
	const char *label;              /* RQ_LABEL: name pattern; RQ_PLT: the function's */
	bool has_line;                  /* RQ_STATEMENT: lines lo..hi, else the entry */
	int lo, hi;
	bool fuzz;                      /* one line asked for (SystemTap's line rules) */
	char *hint;                     /* set when that line has no code: what to try */
};

/* Probes on the statements of f's lines asked for; how many. */
static int probe_lines(struct session *s, struct probe *p, struct probe_point *pp, int fn_comp,
		       struct dw_image *img, const struct ksymtab *syms, const struct dw_func *f,
		       struct dw_request *rq, bool optional)
{
	dw_linevec lines = { 0 };
	int n = 0, idx[] = { 0, fn_comp };

	dw_function_lines(img, f, rq->lo, rq->hi, rq->fuzz, &lines);
	if (rq->fuzz && !lines.len && !rq->hint) {
		int before, after;
		dw_nearest_lines(img, f, rq->lo, &before, &after);
		struct strbuf sb = STRBUF_INIT;
		strbuf_addf(&sb, "no line records for %s:%d", f->file, rq->lo);
		if (before && after)
			strbuf_addf(&sb, " (try :%d or :%d)", before, after);
		else if (before || after)
			strbuf_addf(&sb, " (try :%d)", before ? before : after);
		rq->hint = strbuf_detach(&sb);
	}
	for (int i = 0; i < lines.len; i++) {
		char *where = xasprintf("%s@%s:%d", f->name, f->file, lines.items[i].line);
		const char *args[] = { img_arg(pp, img), where };
		n += add_probe_at(s, p, pp, img, syms, lines.items[i].addr, f->die, true,
				  point_text(pp, idx, args, 2), optional);
		free(where);
	}
	free(lines.items);
	return n;
}

/* Probes on f's labels asked for; how many. */
static int probe_labels(struct session *s, struct probe *p, struct probe_point *pp, int fn_comp,
			struct dw_image *img, const struct ksymtab *syms, const struct dw_func *f,
			struct dw_request *rq, bool optional)
{
	dw_labelvec labels = { 0 };
	int n = 0, idx[] = { 0, fn_comp, fn_comp + 1 };

	dw_function_labels(img, f, rq->label, &labels);
	for (int i = 0; i < labels.len; i++) {
		char *where = xasprintf("%s@%s:%d", f->name, f->file, labels.items[i].line);
		const char *args[] = { img_arg(pp, img), where, labels.items[i].name };
		n += add_probe_at(s, p, pp, img, syms, labels.items[i].addr, f->die, true,
				  point_text(pp, idx, args, 3), optional);
		free(where);
		free(labels.items[i].name);
	}
	free(labels.items);
	return n;
}

/* Probes on what rq asks for in the functions of img matching pat; how
 * many were added. */
static int probe_image(struct session *s, struct probe *p, struct probe_point *pp, int fn_comp,
		       struct dw_image *img, const struct ksymtab *syms, const struct dw_pattern *pat,
		       struct dw_request *rq, bool optional)
{
	dw_funcvec funcs = { 0 };
	int n = 0, idx[] = { 0, fn_comp };

	if (rq->kind == RQ_INLINE || rq->kind == RQ_INLINE_OF_FUNCTION || rq->kind == RQ_LABEL_INLINE)
		dw_find_inlines(img, syms, pat, &funcs);
	else
		dw_find_functions(img, syms, pat, &funcs);
	for (int i = 0; i < funcs.len; i++) {
		const struct dw_func *f = &funcs.items[i];
		switch (rq->kind) {
		case RQ_FUNCTION:
			if (rq->suf.exported && !f->exported)
				continue;
			add_probe(s, p, pp, fn_comp, img, syms, f, &rq->suf, optional);
			n++;
			break;
		case RQ_INLINE:
		case RQ_INLINE_OF_FUNCTION: {
			char *where = xasprintf("%s@%s:%d", f->name, f->file, f->line);
			const char *args[] = { img_arg(pp, img), where };
			n += add_probe_at(s, p, pp, img, syms, f->addr, f->die, false,
					  point_text(pp, idx, args, 2), optional);
			free(where);
			break;
		}
		case RQ_LABEL:
			n += probe_labels(s, p, pp, fn_comp, img, syms, f, rq, optional);
			break;
		case RQ_LABEL_INLINE:
			n += probe_labels(s, p, pp, fn_comp, img, syms, f, rq, optional);
			break;
		case RQ_PLT:   /* derive_process takes them */
			break;
		case RQ_STATEMENT:
			if (rq->has_line) {
				n += probe_lines(s, p, pp, fn_comp, img, syms, f, rq, optional);
			} else {
				add_probe(s, p, pp, fn_comp, img, syms, f, &rq->suf, optional);
				n++;
			}
			break;
		}
	}
	free(funcs.items);
	if (rq->kind == RQ_FUNCTION)
		n += probe_cold_parts(s, p, pp, fn_comp, img, syms, pat, &rq->suf, optional);
	if (rq->kind == RQ_FUNCTION && !rq->suf.ret && !rq->suf.call && !rq->suf.exported) {
		/* a plain .function also probes the inlined instances, as
		 * SystemTap does (.call and .return: the out-of-line ones only) */
		rq->kind = RQ_INLINE_OF_FUNCTION;
		n += probe_image(s, p, pp, fn_comp, img, syms, pat, rq, optional);
		rq->kind = RQ_FUNCTION;
	}
	if (rq->kind == RQ_LABEL) {   /* labels of inlined instances too */
		rq->kind = RQ_LABEL_INLINE;
		n += probe_image(s, p, pp, fn_comp, img, syms, pat, rq, optional);
		rq->kind = RQ_LABEL;
	}
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
		if (ksym_is_text(&t->syms[i]) && strstr(name, ".cold") && fnmatch(pattern, name, 0) == 0)
			return true;   /* a split part, probed by its own name */
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
			  struct dw_request *rq)
{
	strvec names = { 0 };
	int n = 0;

	ksyms_module_names(s, module, &names);
	for (int i = 0; i < names.len; i++) {
		const char *why = NULL;
		const struct ksymtab *syms = ksyms_module(s, names.items[i], NULL);
		/* inlined functions have no symbols: no shortcut for them */
		bool by_symbol = rq->kind != RQ_INLINE && rq->kind != RQ_LABEL;
		if (!syms || (by_symbol && !any_symbol_matches(syms, pat->func)))
			continue;
		struct dw_image *img = dw_module(s, names.items[i], &why);
		if (!img) {
			if (s->verbose >= 2)
				fprintf(stderr, "skipping module %s: %s\n", names.items[i], why);
			continue;
		}
		n += probe_image(s, p, pp, fn_comp, img, syms, pat, rq, true);
	}
	for (int i = 0; i < names.len; i++)
		free(names.items[i]);
	free(names.items);
	return n ? 1 : kpoint_no_match(s, pp, NULL, NULL);
}

/* "func@file:LINES" of a statement: the function pattern, and the lines
 * ("N", "N-M" or "*"); false if malformed. */
static bool parse_statement(const char *text, struct dw_pattern *pat, struct dw_request *rq)
{
	const char *at = strchr(text, '@'), *colon = at ? strrchr(at, ':') : NULL;

	if (!colon)
		return dw_pattern_parse(text, pat);
	char *head = xstrndup(text, (size_t)(colon - text)), *end;
	bool ok = dw_pattern_parse(head, pat);
	free(head);
	const char *l = colon + 1;
	rq->has_line = true;
	if (!strcmp(l, "*")) {
		rq->lo = 1;
		rq->hi = INT_MAX;
		return ok;
	}
	long lo = strtol(l, &end, 10), hi = lo;
	if (*end == '-')
		hi = strtol(end + 1, &end, 10);
	else
		rq->fuzz = true;
	if (end == l || *end || lo <= 0 || hi < lo || hi > INT_MAX)
		return false;
	rq->lo = (int)lo;
	rq->hi = (int)hi;
	return ok;
}

/* A point naming one function that matched nothing: if it is there but
 * blacklisted (target/blacklist.c), say so and why (E_BLACKLISTED), rather
 * than "no match". Scans again keeping the refused functions, which costs
 * only on this error path. True if it reported. */
static bool report_blacklisted(struct session *s, struct probe_point *pp, struct dw_image *img,
			       const struct ksymtab *syms, struct dw_pattern *pat, const struct dw_request *rq)
{
	dw_funcvec funcs = { 0 };
	const char *why = NULL;

	pat->keep_refused = true;
	if (rq->kind == RQ_INLINE || rq->kind == RQ_INLINE_OF_FUNCTION || rq->kind == RQ_LABEL_INLINE)
		dw_find_inlines(img, syms, pat, &funcs);
	else
		dw_find_functions(img, syms, pat, &funcs);
	if (!funcs.len && rq->kind == RQ_FUNCTION)
		dw_find_inlines(img, syms, pat, &funcs);
	pat->keep_refused = false;
	for (int i = 0; i < funcs.len && !why; i++)
		why = funcs.items[i].refused;
	if (why) {
		char *t = pp_text(pp);
		diag(s, E_BLACKLISTED, pp->pos, "%s is blacklisted: %s", t, why);
		free(t);
	}
	for (int i = 0; i < funcs.len; i++) {
		free(funcs.items[i].name);
		free(funcs.items[i].file);
		free(funcs.items[i].symbol);
	}
	free(funcs.items);
	return why != NULL;
}

/* The point's functions or statements in the kernel, module `module`, or
 * (uimg not NULL) a user file. */
static int derive_in(struct session *s, struct probe *p, struct probe_point *pp, int fn_comp,
		     const char *module, struct dw_image *uimg, struct dw_request *rq)
{
	const char *text = pp->comps.items[fn_comp]->arg->str, *why = NULL;
	struct dw_pattern pat;
	struct dw_image *img;
	const struct ksymtab *syms;

	if (rq->kind == RQ_STATEMENT ? !parse_statement(text, &pat, rq) : !dw_pattern_parse(text, &pat)) {
		diag(s, E_PROBE_ARG, pp->comps.items[fn_comp]->pos,
		     rq->kind == RQ_STATEMENT ? "malformed statement \"%s\" (want NAME[@FILE[:LINE[-LINE]|:*]])"
					      : "malformed function pattern \"%s\" (want NAME[@FILE[:LINE]])", text);
		return -1;
	}
	if (kpoint_has_wildcard(pat.func))
		rq->fuzz = false;   /* only one function's line maps forward */
	if (module && kpoint_has_wildcard(module))
		return derive_modules(s, p, pp, fn_comp, module, &pat, rq);
	if (uimg && !uimg->dbg) {   /* no DWARF: function symbols, no target variables */
		int n = 0;
		if (rq->kind == RQ_FUNCTION && !pat.file && !pat.line)
			n = uprobe_add_symbols(s, p, pp, fn_comp, uimg, pat.func, rq->suf.ret, s->probes.len);
		else if (!pp->optional)
			why = "no debuginfo for it (only .function(\"NAME\") probes on its symbols)";
		if (n || pp->optional)
			return 1;
		if (why) {
			char *t = pp_text(pp);
			diag(s, E_PROBE_POINT, pp->pos, "cannot resolve %s: %s", t, why);
			free(t);
			return -1;
		}
		return kpoint_no_match(s, pp, NULL, NULL);
	}
	if (uimg) {
		img = uimg;
		syms = NULL;
	} else {
		img = module ? dw_module(s, module, &why) : dw_kernel(s, &why);
		syms = img ? (module ? ksyms_module(s, module, NULL) : ksyms_kernel(s, &why)) : NULL;
	}
	/* a kernel without debuginfo: its functions through BTF, by name */
	if (!img && !module && !uimg && rq->kind == RQ_FUNCTION && !pat.file && !pat.line && !rq->suf.exported)
		return kfunc_btf_derive(s, p, pp, fn_comp, pat.func, rq->suf.ret, rq->suf.maxactive, why);
	if (!img || (!module && !uimg && !syms)) {
		if (pp->optional)
			return 1;
		char *t = pp_text(pp);
		diag(s, E_PROBE_POINT, pp->pos, "cannot resolve %s: %s%s", t, why,
		     !img && !module && !uimg ? "; without it, the kernel's BTF gives kernel.function(\"NAME\")"
						"[.call|.return] probes only: no source files, lines, statements, "
						"inlined copies or labels" : "");
		free(t);
		return -1;
	}
	bool wild = kpoint_has_wildcard(text) || rq->kind == RQ_INLINE || rq->kind == RQ_LABEL ||
		    (rq->kind == RQ_STATEMENT && !rq->fuzz && rq->has_line);
	int first = s->probes.len;
	int found = probe_image(s, p, pp, fn_comp, img, syms, &pat, rq, wild || pp->optional);
	/* a user file's functions without DWARF (crt code) through its symbols */
	if (uimg && rq->kind == RQ_FUNCTION && !pat.file && !pat.line)
		found += uprobe_add_symbols(s, p, pp, fn_comp, img, pat.func, rq->suf.ret, first);
	if (!found && !uimg && !pp->optional && !kpoint_has_wildcard(pat.func) &&
	    report_blacklisted(s, pp, img, syms, &pat, rq))
		return -1;
	if (!found) {
		if (rq->hint && !pp->optional) {
			char *t = pp_text(pp);
			diag(s, E_PROBE_POINT, pp->pos, "no match for probe point %s: %s", t, rq->hint);
			free(t);
			return -1;
		}
		return kpoint_no_match(s, pp, syms, kpoint_has_wildcard(pat.func) ? NULL : pat.func);
	}
	return 1;
}

/* kernel.statement(ADDR): a link-time address inside a kernel function
 * (registered as "_stext" + offset, so KASLR does not matter);
 * kernel.statement(ADDR).absolute: a run-time address as is, guru mode. */
static int derive_address(struct session *s, struct probe *p, struct probe_point *pp)
{
	int64_t addr;
	const char *why = NULL, *sym;
	uint64_t off;

	if (!pp_comp_num(pp, 1, &addr))
		return 0;
	/* addresses print in hex, as SystemTap prints them */
	char *text = xasprintf("kernel.statement(0x%llx)%s", (unsigned long long)addr,
			       pp->comps.len == 3 ? ".absolute" : "");
	if (pp->comps.len == 3 && pp_comp_is(pp, 2, "absolute")) {
		if (!s->guru && !s->list_mode) {   /* listing it is harmless */
			diag(s, E_GURU, pp->pos, "absolute statement probe in unprivileged script; need stap -g");
			return -1;
		}
		struct kp_site k = { .addr = (uint64_t)addr };
		new_probe(s, p, pp, &k, NULL)->pp = text;
		return 1;
	}
	if (pp->comps.len != 2) {
		free(text);
		return 0;
	}
	struct dw_image *img = dw_kernel(s, &why);
	const struct ksymtab *syms = img ? ksyms_kernel(s, &why) : NULL;
	if (!img || !syms || !dw_addr_symbol(img, syms, (uint64_t)addr, &sym, &off)) {
		if (!why && !pp->optional)
			diag(s, E_PROBE_POINT, pp->pos, "no kernel function holds the address of %s", text);
		else if (!pp->optional)
			diag(s, E_PROBE_POINT, pp->pos, "cannot resolve %s: %s", text, why);
		free(text);
		return pp->optional ? 1 : -1;
	}
	/* the function DIE holding the address, for target variables */
	struct dw_pattern pat = { .func = xstrndup(sym, strcspn(sym, ".")) };
	dw_funcvec funcs = { 0 };
	Dwarf_Off die = 0;
	dw_find_functions(img, syms, &pat, &funcs);
	for (int i = 0; i < funcs.len; i++)
		if (funcs.items[i].addr == (uint64_t)addr - off)
			die = funcs.items[i].die;
	free(funcs.items);
	free(pat.func);
	return add_probe_at(s, p, pp, img, syms, (uint64_t)addr, die, die != 0, text,
			    pp->optional) ? 1 : -1;
}

/* The inlined subroutines of die's tree (lexical blocks looked into, inlined
 * ones depth levels deep) whose function matches pat: probes at their entry,
 * as .callee's pp() names them. Calls that are not inlined are not found:
 * as SystemTap 4.8 on this kernel (DWARF 5 call sites). */
static int probe_callees(struct session *s, struct probe *p, struct probe_point *pp, struct dw_image *img,
			 const struct ksymtab *syms, const struct dw_func *caller, Dwarf_Die *die, const char *pat,
			 int depth, bool optional)
{
	Dwarf_Die c;
	int n = 0;

	if (dwarf_child(die, &c) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_lexical_block) {
			n += probe_callees(s, p, pp, img, syms, caller, &c, pat, depth, optional);
			continue;
		}
		if (tag != DW_TAG_inlined_subroutine)
			continue;
		const char *name = dwarf_diename(&c);
		Dwarf_Addr entry;
		int line = 0;
		if (name && fnmatch(pat, name, 0) == 0 &&
		    (dwarf_entrypc(&c, &entry) == 0 || dwarf_lowpc(&c, &entry) == 0)) {
			Dwarf_Attribute a;
			Dwarf_Die origin;
			const char *file = NULL;
			if (dwarf_formref_die(dwarf_attr(&c, DW_AT_abstract_origin, &a), &origin)) {
				file = dwarf_decl_file(&origin);
				dwarf_decl_line(&origin, &line);
			}
			char *rel = file ? dw_source_relative(file) : xstrdup("?");
			char *where = img->module ? xasprintf("module(\"%s\")", img->module) : xstrdup("kernel");
			/* -l lists it under its caller; pp() is the callee's, as SystemTap's */
			char *list = xasprintf("%s.function(\"%s@%s:%d\").callee(\"%s@%s:%d\")", where, caller->name,
					       caller->file, caller->line, name, rel, line);
			char *text = xasprintf("%s.function(\"%s@%s:%d\")", where, name, rel, line);
			free(where);
			int before = s->probes.len;
			free(rel);
			n += add_probe_at(s, p, pp, img, syms, entry, dwarf_dieoffset(&c), false, text, optional);
			if (s->probes.len > before)
				s->probes.items[before]->list_pp = list;
			else
				free(list);
		}
		if (depth > 1)
			n += probe_callees(s, p, pp, img, syms, caller, &c, pat, depth - 1, optional);
	} while (dwarf_siblingof(&c, &c) == 0);
	return n;
}

/* kernel.function("f").callee("g") / .callees[(N)]: g (every callee) where
 * f's code has it inlined. */
static int derive_callees(struct session *s, struct probe *p, struct probe_point *pp, int fn, const char *module)
{
	const char *why = NULL, *pat = "*";
	int64_t depth = 1;
	struct pp_comp *c = pp->comps.items[fn + 1];
	struct dw_pattern fpat;

	if (!strcmp(c->name, "callee")) {
		if (!kpoint_str_arg(s, pp, fn + 1, &pat))
			return -1;
	} else if (c->arg && (!pp_comp_num(pp, fn + 1, &depth) || depth < 1)) {
		diag(s, E_PROBE_ARG, c->pos, "callees takes a depth of 1 or more");
		return -1;
	}
	if (pp->comps.len > fn + 2) {
		diag(s, E_NOT_SUPPORTED, pp->comps.items[fn + 2]->pos,
		     "callee probes are on inlined callees: no .call or .return");
		return -1;
	}
	if (!dw_pattern_parse(pp->comps.items[fn]->arg->str, &fpat))
		return 0;
	struct dw_image *img = module ? dw_module(s, module, &why) : dw_kernel(s, &why);
	const struct ksymtab *syms = img ? (module ? ksyms_module(s, module, NULL) : ksyms_kernel(s, &why)) : NULL;
	if (!img || !syms) {
		if (pp->optional)
			return 1;
		diag(s, E_PROBE_POINT, pp->pos, "cannot resolve %s: %s", pp_text(pp), why ? why : "no debuginfo");
		return -1;
	}
	dw_funcvec funcs = { 0 };
	int n = 0;
	dw_find_functions(img, syms, &fpat, &funcs);
	for (int i = 0; i < funcs.len; i++) {
		Dwarf_Die d;
		if (dwarf_offdie(img->dbg, funcs.items[i].die, &d))
			n += probe_callees(s, p, pp, img, syms, &funcs.items[i], &d, pat, (int)depth, true);
	}
	free(funcs.items);
	if (!n && !pp->optional) {
		diag(s, E_PROBE_POINT, pp->pos, "no match for probe point %s (no inlined callee of that name)",
		     pp_text(pp));
		return -1;
	}
	return 1;
}

/* A copy of pp whose component i has its own string argument str. */
static void own_str_arg(struct probe_point *pp, int i, const char *str)
{
	struct pp_comp *c = xmalloc(sizeof(*c));
	struct expr *e = xcalloc(1, sizeof(*e));

	*c = *pp->comps.items[i];
	if (c->arg)
		*e = *c->arg;
	e->kind = EXPR_STR;
	e->str = (char *)str;
	e->str_len = strlen(str);
	c->arg = e;
	pp->comps.items[i] = c;
}

/* process("P")[.library("L")].function/.statement: the same requests as
 * in the kernel, over each user file. pp() names the program and the
 * library by path, as SystemTap's. */
static int derive_process(struct session *s, struct probe *p, struct probe_point *pp, int fn,
			  struct dw_request *rq)
{
	strvec files = { 0 };
	struct probe_point *q = pp;
	char *exe = NULL;
	int n = 0, first = s->probes.len;

	if (!uprobe_process_files(s, pp, fn == 2, &files, &exe))
		return pp->optional ? 1 : -1;
	if (fn == 2 || !pp->comps.items[0]->arg || pp->comps.items[0]->arg->kind == EXPR_NUM) {
		/* the paths in a copy of the point */
		q = xmalloc(sizeof(*q));
		*q = *pp;
		memset(&q->comps, 0, sizeof(q->comps));
		for (int i = 0; i < pp->comps.len; i++)
			vec_push(&q->comps, pp->comps.items[i]);
		own_str_arg(q, 0, exe);
		if (fn == 2)
			own_str_arg(q, 1, "");
	}
	for (int i = 0; i < files.len; i++) {
		const char *why = NULL;
		struct dw_image *img = dw_user(s, files.items[i], &why);
		int r;
		if (!img) {
			if (pp->optional)
				continue;
			char *t = pp_text(pp);
			diag(s, E_PROBE_POINT, pp->pos, "cannot resolve %s: %s", t, why);
			free(t);
			return -1;
		}
		if (fn == 2) {
			q->comps.items[1]->arg->str = files.items[i];
			q->comps.items[1]->arg->str_len = strlen(files.items[i]);
		}
		if (rq->kind == RQ_PLT)
			r = uprobe_add_plt(s, p, q, fn, img, rq->label, rq->suf.ret) > 0;
		else if ((r = derive_in(s, p, q, fn, NULL, img, rq)) < 0)
			return r;
		n += r;
	}
	uprobe_restrict(s, pp, first);   /* -c/-x's program, process(PID) */
	if (!n && rq->kind == RQ_PLT)
		return kpoint_no_match(s, pp, NULL, NULL);
	return n ? 1 : -1;
}

/* The DIE of the function of img whose code holds DWARF address a, or 0. */
static Dwarf_Off function_at(struct dw_image *img, Dwarf_Addr a)
{
	Dwarf_Die cu, d;

	if (!img->dbg || !dwarf_addrdie(img->dbg, a, &cu) || dwarf_child(&cu, &d) != 0)
		return 0;
	do {
		if (dwarf_tag(&d) == DW_TAG_subprogram && dwarf_haspc(&d, a) > 0)
			return dwarf_dieoffset(&d);
	} while (dwarf_siblingof(&d, &d) == 0);
	return 0;
}

/* Is a the address of a line-table row of img (no DWARF: any is)? Else
 * *before is the nearest row's below it, as SystemTap suggests it. */
static bool statement_start(struct dw_image *img, Dwarf_Addr a, Dwarf_Addr *before)
{
	Dwarf_Die cu;
	Dwarf_Lines *lines;
	size_t n;

	if (!img->dbg || !dwarf_addrdie(img->dbg, a, &cu) || dwarf_getsrclines(&cu, &lines, &n) != 0)
		return true;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Addr la;
		if (dwarf_lineaddr(dwarf_onesrcline(lines, i), &la) != 0)
			continue;
		if (la == a)
			return true;
		if (la < a && la > *before)
			*before = la;
	}
	return false;
}

/* process("P").statement(ADDR): a link-time address of the program (as
 * `objdump -d` shows it); its function's variables are its target
 * variables. pp() prints the address in hex, as SystemTap. */
static int derive_process_addr(struct session *s, struct probe *p, struct probe_point *pp)
{
	int64_t addr;
	strvec files = { 0 };
	char *exe = NULL;
	int n = 0, first = s->probes.len;

	if (!pp_comp_num(pp, 1, &addr) || pp->comps.len != 2)
		return 0;
	if (!uprobe_process_files(s, pp, false, &files, &exe))
		return pp->optional ? 1 : -1;
	for (int i = 0; i < files.len; i++) {
		const char *why = NULL;
		struct dw_image *img = dw_user(s, files.items[i], &why);
		if (!img)
			continue;
		Dwarf_Addr before = 0;
		if (!pp->optional && !s->list_mode && !statement_start(img, (Dwarf_Addr)addr, &before)) {
			diag(s, E_PROBE_POINT, pp->pos, "address 0x%llx does not match the beginning of a "
			     "statement (try 0x%llx)", (unsigned long long)addr, (unsigned long long)before);
			return -1;
		}
		char *text = xasprintf("process(\"%s\").statement(0x%llx)", img->user, (unsigned long long)addr);
		Dwarf_Off die = function_at(img, (Dwarf_Addr)addr);
		n += add_probe_at(s, p, pp, img, NULL, (Dwarf_Addr)addr, die, die != 0, text, pp->optional);
	}
	if (!n && !pp->optional) {
		char *t = pp_text(pp);
		diag(s, E_PROBE_POINT, pp->pos, "no match for probe point %s: the address is in no loadable segment", t);
		free(t);
		return -1;
	}
	uprobe_restrict(s, pp, first);
	return 1;
}

/* process("P")[.library("L")].plt[("F")][.return]: the PLT entries of
 * the functions F (every one without F). */
static int derive_plt(struct session *s, struct probe *p, struct probe_point *pp, int fn)
{
	struct dw_request rq = { .kind = RQ_PLT, .label = "*" };

	if (pp->comps.items[fn]->arg && !kpoint_str_arg(s, pp, fn, &rq.label))
		return -1;
	if (pp->comps.len == fn + 2 && pp_comp_is(pp, fn + 1, "return") && !pp->comps.items[fn + 1]->arg)
		rq.suf.ret = true;
	else if (pp->comps.len != fn + 1)
		return 0;
	return derive_process(s, p, pp, fn, &rq);
}

static int derive(struct session *s, struct probe *p, struct probe_point *pp)
{
	struct dw_request rq = { .kind = RQ_FUNCTION };
	const char *module = NULL;
	int fn = 1;
	bool process = pp_comp_is(pp, 0, "process");

	if (pp_comp_is(pp, 0, "kernel") && pp_comp_is(pp, 1, "statement") && pp->comps.items[1]->arg &&
	    pp->comps.items[1]->arg->kind != EXPR_STR)
		return derive_address(s, p, pp);
	if (process) {
		if (pp_comp_is(pp, 1, "library"))
			fn = 2;
		if (pp_comp_is(pp, fn, "plt"))
			return derive_plt(s, p, pp, fn);
		if (fn == 1 && pp_comp_is(pp, 1, "statement") && pp->comps.items[1]->arg &&
		    pp->comps.items[1]->arg->kind == EXPR_NUM)
			return derive_process_addr(s, p, pp);
		if (!pp_comp_is(pp, fn, "function") && !pp_comp_is(pp, fn, "statement"))
			return 0;
	} else if (pp_comp_is(pp, 0, "module")) {
		if (!pp_comp_is(pp, 1, "function") && !pp_comp_is(pp, 1, "statement"))
			return 0;
		if (!kpoint_str_arg(s, pp, 0, &module))
			return -1;
	} else if (!pp_comp_is(pp, 0, "kernel") ||
		   (!pp_comp_is(pp, 1, "function") && !pp_comp_is(pp, 1, "statement"))) {
		return 0;
	}
	if (!kpoint_str_arg(s, pp, fn, NULL))
		return -1;
	if (pp_comp_is(pp, fn, "statement")) {
		rq.kind = RQ_STATEMENT;
		if (pp->comps.len != fn + 1)
			return 0;
	} else if (pp->comps.len == fn + 2 && pp_comp_is(pp, fn + 1, "inline") && !pp->comps.items[fn + 1]->arg) {
		rq.kind = RQ_INLINE;
	} else if (!process && (pp_comp_is(pp, fn + 1, "callee") || pp_comp_is(pp, fn + 1, "callees"))) {
		return derive_callees(s, p, pp, fn, module);
	} else if (pp->comps.len == fn + 2 && pp_comp_is(pp, fn + 1, "label")) {
		if (!kpoint_str_arg(s, pp, fn + 1, &rq.label))
			return -1;
		rq.kind = RQ_LABEL;
	} else {
		int r = kpoint_parse_suffix(s, pp, fn + 1, true, &rq.suf);
		if (r <= 0)
			return r;
		if (process && (rq.suf.exported || rq.suf.maxactive))
			return 0;
	}
	return process ? derive_process(s, p, pp, fn, &rq) : derive_in(s, p, pp, fn, module, NULL, &rq);
}

static const struct dw_scope *tvar_scope(const struct derived_probe *dp)
{
	const struct dwarf_probe *d = dp->data;

	return d->has_scope ? &d->scope : NULL;
}

static bool without_dwarf(const struct derived_probe *dp)
{
	return ((const struct dwarf_probe *)dp->data)->cold;
}

static void list_vars(struct session *s, const struct derived_probe *dp, struct strbuf *out)
{
	const struct dw_scope *sc = tvar_scope(dp);

	if (sc)
		dw_scope_vars(sc, out);
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

static void guest_modules(struct session *s, strvec *out)
{
	kp_guest_modules(s, &dwarf_provider, out);
}

static const char *const shapes[] = { "kernel.function()", "kernel.statement()", "module.function()", "module.statement()",
				      "process.function()", "process.statement()", "process.plt", NULL };

const struct provider dwarf_provider = {
	.calls_shared = true,
	.bpf_attach = kp_bpf_attach,
	.bpf_trampoline = kp_bpf_trampoline,
	.bpf_entry_attach = kp_bpf_entry_attach,
	.bpf_context = kp_bpf_context,
	.takes_kprobe = kp_takes_kprobe,
	.name = "dwarf",
	.runtime_header = "kprobes.h",
	.probe_type = kp_probe_type,
	.is_return = kp_is_return,   /* a .cold part's .return: @entry without DWARF */
	.without_dwarf = without_dwarf,
	.derive = derive,
	.tvar_scope = tvar_scope,
	.list_vars = list_vars,
	.emit_decls = emit_decls,
	.emit_register = emit_register,
	.emit_unregister = emit_unregister,
	.shows_origin = true,
	.guest_modules = guest_modules,
	.shapes = shapes,
};
