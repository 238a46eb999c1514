/* dwarf_stmt.c - statements, labels and inlined instances (see .h). */
#include "dwarf_stmt.h"
#include "blacklist.h"
#include "dwarf_inlines.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <gelf.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int cmp_line(const void *a, const void *b)
{
	const struct dw_line *x = a, *y = b;

	return x->line - y->line;
}

struct rec { int line; Dwarf_Addr addr; bool stmt, owner, ours; };

/* A line's statement: the lowest address where it is the first
 * statement record (a later record at the same address, say of a callee
 * inlined there, does not own it); a line with no statement record at all
 * (a closing brace) takes its lowest address. This is what SystemTap
 * lists. Lines of f's file before f's declaration (same-file callees
 * inlined into f) are not f's. */
void dw_function_lines(struct dw_image *img, const struct dw_func *f, int lo, int hi, bool fuzz,
		       dw_linevec *out)
{
	Dwarf_Die fn, cu;
	Dwarf_Lines *lines;
	size_t n;
	VEC(struct rec) recs = { 0 };
	dw_linevec all = { 0 };
	char *last_src = NULL;
	bool last_ok = false;

	if (!dwarf_offdie(img->dbg, f->die, &fn) || !dwarf_diecu(&fn, &cu, NULL, NULL) ||
	    dwarf_getsrclines(&cu, &lines, &n) != 0)
		return;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		struct rec r = { 0 };
		if (!l || dwarf_lineno(l, &r.line) || dwarf_lineaddr(l, &r.addr) ||
		    dwarf_linebeginstatement(l, &r.stmt) || dwarf_haspc(&fn, r.addr) <= 0)
			continue;
		const char *src = dwarf_linesrc(l, NULL, NULL);
		if (!src)
			continue;
		if (!last_src || strcmp(last_src, src)) {   /* runs of one file: compare once */
			char *rel = dw_source_name(img, src);
			last_ok = !strcmp(rel, f->file);
			free(rel);
			free(last_src);
			last_src = xstrdup(src);
		}
		r.ours = last_ok && r.line >= f->line;
		r.owner = r.stmt;
		for (int k = recs.len - 1; r.stmt && k >= 0 && recs.items[k].addr == r.addr; k--)
			if (recs.items[k].stmt)
				r.owner = false;
		vec_push(&recs, r);
	}
	free(last_src);
	for (int i = 0; i < recs.len; i++) {
		struct rec *r = &recs.items[i];
		if (!r->ours)
			continue;
		int k;
		for (k = 0; k < all.len && all.items[k].line != r->line; k++)
			;
		if (k == all.len) {
			struct dw_line dl = { r->line, ~(Dwarf_Addr)0 };
			vec_push(&all, dl);
		}
	}
	for (int k = 0; k < all.len; k++) {
		Dwarf_Addr best = ~(Dwarf_Addr)0, any = ~(Dwarf_Addr)0;
		bool has_stmt = false;
		for (int i = 0; i < recs.len; i++) {
			struct rec *r = &recs.items[i];
			if (!r->ours || r->line != all.items[k].line)
				continue;
			has_stmt |= r->stmt;
			if (r->owner && r->addr < best)
				best = r->addr;
			if (r->addr < any)
				any = r->addr;
		}
		all.items[k].addr = has_stmt ? best : any;
	}
	int m = 0;
	for (int k = 0; k < all.len; k++)
		if (all.items[k].addr != ~(Dwarf_Addr)0)
			all.items[m++] = all.items[k];
	all.len = m;
	if (all.len > 1)
		qsort(all.items, all.len, sizeof(struct dw_line), cmp_line);
	for (int k = 0; k < all.len; k++)
		if (all.items[k].line >= lo && all.items[k].line <= hi)
			vec_push(out, all.items[k]);
	/* one line asked for that has records but owns no address (it shares
	 * one with the line before it): that shared address */
	if (fuzz && lo == hi && !out->len) {
		struct dw_line dl = { lo, ~(Dwarf_Addr)0 };
		for (int i = 0; i < recs.len; i++)
			if (recs.items[i].ours && recs.items[i].line == lo && recs.items[i].addr < dl.addr)
				dl.addr = recs.items[i].addr;
		if (dl.addr != ~(Dwarf_Addr)0)
			vec_push(out, dl);
	}
	free(recs.items);
	free(all.items);
}

void dw_nearest_lines(struct dw_image *img, const struct dw_func *f, int line, int *before, int *after)
{
	dw_linevec all = { 0 };

	*before = *after = 0;
	dw_function_lines(img, f, 1, INT_MAX, false, &all);
	for (int k = 0; k < all.len; k++) {
		if (all.items[k].line < line)
			*before = all.items[k].line;
		else if (all.items[k].line > line && !*after)
			*after = all.items[k].line;
	}
	free(all.items);
}

/* Labels under d (lexical blocks included, inlined callees not). */
static void labels_under(Dwarf_Die *d, const char *pattern, dw_labelvec *out)
{
	Dwarf_Die c;

	if (dwarf_child(d, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_label) {
			const char *name = dwarf_diename(&c);
			Dwarf_Addr a;
			int line = 0;
			if (!name || fnmatch(pattern, name, 0) || dwarf_lowpc(&c, &a) != 0)
				continue;
			dwarf_decl_line(&c, &line);
			struct dw_label l = { xstrdup(name), line, a };
			vec_push(out, l);
		} else if (tag == DW_TAG_lexical_block) {
			labels_under(&c, pattern, out);
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

void dw_function_labels(struct dw_image *img, const struct dw_func *f, const char *pattern,
			dw_labelvec *out)
{
	Dwarf_Die fn;

	if (dwarf_offdie(img->dbg, f->die, &fn))
		labels_under(&fn, pattern, out);
}

/* The text symbol of a kernel table holding addr: the last one that starts
 * at or before it, a compiler's split-off part (foo.cold, foo.part.0)
 * included: that is what the running kernel's kallsyms names there. */
static const struct ksym *kernel_holder(const struct ksymtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo > 0 && !ksym_is_text(&t->syms[lo - 1]))
		lo--;
	return lo ? &t->syms[lo - 1] : NULL;
}

bool dw_addr_symbol(struct dw_image *img, const struct ksymtab *syms, Dwarf_Addr addr,
		    const char **sym, uint64_t *off)
{
	if (img->mod) {
		GElf_Off o;
		GElf_Sym s;
		const char *n = dwfl_module_addrinfo(img->mod, addr + img->bias, &o, &s, NULL, NULL, NULL);
		if (!n || GELF_ST_TYPE(s.st_info) != STT_FUNC)
			return false;
		*sym = n;
		*off = o;
		return true;
	}
	const struct ksym *k = syms ? kernel_holder(syms, addr) : NULL;
	if (!k)
		return false;
	*sym = k->name;
	*off = addr - k->addr;
	return true;
}

/* Why a probe at a (in the function symbol sym) is refused, NULL if it is
 * not: the kernel's verdict on that text and cstap's on the name of the
 * function holding it (blacklist.c), then cstap's on the inlined function
 * itself (name, declaring file): an inlined copy of a refused function is
 * refused too, and so is any code inside a refused function. */
static const char *refused_why(struct dw_image *img, const struct ksymtab *syms, Dwarf_Addr a,
			       const char *sym, const char *name, const char *file)
{
	const char *why = NULL;

	if (!syms)
		return NULL;
	if (!img->mod) {
		const struct ksym *k = kernel_holder(syms, a);
		why = k ? blacklist_symbol_why(syms, k) : NULL;
	} else {
		for (size_t i = 0; i < syms->n && !why; i++)
			if (!strcmp(syms->syms[i].name, sym))
				why = blacklist_symbol_why(syms, &syms->syms[i]);
	}
	return why ? why : blacklist_function_why(name, file);
}

/* An inlined instance's entry: DW_AT_entry_pc or low_pc, else (GCC gives
 * some instances only DW_AT_ranges: vfs_dedupe_file_range_compare in 6.1)
 * the lowest address of its ranges, where SystemTap probes it too. */
static bool inline_entry(Dwarf_Die *d, Dwarf_Addr *a)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	bool found = false;

	if (dwarf_entrypc(d, a) == 0)
		return true;
	while ((off = dwarf_ranges(d, off, &base, &lo, &hi)) > 0)
		if (!found || lo < *a) {
			*a = lo;
			found = true;
		}
	return found;
}

static void inlines_under(struct dw_image *img, const struct ksymtab *syms, const struct dw_pattern *p,
			  Dwarf_Die *d, dw_funcvec *out)
{
	Dwarf_Die c;

	if (dwarf_child(d, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		if (tag == DW_TAG_inlined_subroutine) {
			const char *name = dwarf_diename(&c), *sym;
			Dwarf_Addr a;
			uint64_t off;
			int line = 0;
			if (name && !fnmatch(p->func, name, 0) && inline_entry(&c, &a) &&
			    dwarf_decl_line(&c, &line) == 0 && (!p->line || line == p->line) &&
			    dw_addr_symbol(img, syms, a, &sym, &off)) {
				char *file = dw_source_name(img, dwarf_decl_file(&c));
				const char *why = NULL;
				if ((!p->file || dw_file_matches(p->file, file)) &&
				    (!(why = refused_why(img, syms, a, sym, name, file)) || p->keep_refused)) {
					struct dw_func f = { .name = xstrdup(name), .file = file,
							     .line = line, .addr = a, .symbol = xstrdup(sym),
							     .die = dwarf_dieoffset(&c), .refused = why };
					vec_push(out, f);
				} else {
					free(file);
				}
			}
		}
		if (dw_inline_may_hold(tag))
			inlines_under(img, syms, p, &c, out);
	} while (dwarf_siblingof(&c, &c) == 0);
}


/* The units to walk for p, each at most once: through the index of
 * inlined functions (dwarf_inlines.c) only the units holding an instance
 * of a matching name; else every unit. With a pattern only a source file
 * can match (by_name) the caller walks only the units of that name: few,
 * cheaper than making or reading the index. */
static void units_to_walk(struct dw_image *img, const struct dw_pattern *p, bool by_name,
			  dw_offvec *out)
{
	const struct dw_inline_index *idx = by_name ? NULL : dw_inline_index(img, true);
	Dwarf_Off off = 0, next;
	size_t hsize;

	if (idx) {
		dw_inline_units(idx, p->func, out);
		return;
	}
	while (dwarf_nextcu(img->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		vec_push(out, off + hsize);
		off = next;
	}
}

void dw_find_inlines(struct dw_image *img, const struct ksymtab *syms, const struct dw_pattern *p,
		     dw_funcvec *out)
{
	bool by_name = p->file && dw_pattern_names_source(p->file);
	dw_offvec units = { 0 };
	int first = out->len;

	units_to_walk(img, p, by_name, &units);
	for (int i = 0; i < units.len; i++) {
		Dwarf_Die cu;
		if (dwarf_offdie(img->dbg, units.items[i], &cu)) {
			char *n = dw_source_relative(dwarf_diename(&cu));
			if (!by_name || dw_file_matches(p->file, n))
				inlines_under(img, syms, p, &cu, out);
			free(n);
		}
	}
	free(units.items);
	if (out->len - first > 1)
		qsort(out->items + first, out->len - first, sizeof(struct dw_func), dw_func_cmp);
}

/* Was the unit compiled with optimization (an -O other than -O0 in its
 * DW_AT_producer)? Unoptimized code keeps parameters in the frame, which
 * the prologue sets up. */
static bool unit_optimized(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *prod = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &a));

	for (const char *p = prod; p && (p = strstr(p, " -O")); p += 3)
		if (p[3] != '0')
			return true;
	return false;
}

Dwarf_Addr dw_prologue_end(struct dw_image *img, Dwarf_Off die, Dwarf_Addr entry)
{
	Dwarf_Die fn, cu;
	Dwarf_Lines *lines;
	size_t n;

	if (!dwarf_offdie(img->dbg, die, &fn) || !dwarf_diecu(&fn, &cu, NULL, NULL) ||
	    unit_optimized(&cu) || dwarf_getsrclines(&cu, &lines, &n) != 0)
		return entry;
	/* gcc marks no prologue_end: the first row past the entry (of the
	 * same line too: "int f(int x) { return x; }"), as SystemTap */
	Dwarf_Addr best = entry;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool end = false;
		if (!l || dwarf_lineaddr(l, &a) || dwarf_haspc(&fn, a) <= 0 || a <= entry)
			continue;
		dwarf_lineprologueend(l, &end);
		if (end)
			return a;
		if (best == entry || a < best)
			best = a;
	}
	return best;
}
