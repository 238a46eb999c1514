/* dwarf_funcs.c - kernel.function pattern matching over DWARF (see .h). */
#include "dwarf_funcs.h"
#include "blacklist.h"
#include "uimage.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool dw_pattern_parse(const char *text, struct dw_pattern *p)
{
	const char *at = strchr(text, '@');

	memset(p, 0, sizeof(*p));
	p->func = at ? xstrndup(text, (size_t)(at - text)) : xstrdup(text);
	if (!*p->func)
		return false;
	if (at) {
		const char *colon = strrchr(at + 1, ':');
		p->file = colon ? xstrndup(at + 1, (size_t)(colon - at - 1)) : xstrdup(at + 1);
		if (colon) {
			char *end;
			long l = strtol(colon + 1, &end, 10);
			if (*end || l <= 0)
				return false;
			p->line = (int)l;
		}
		if (!*p->file)
			return false;
	}
	return true;
}

/* Declaring files print relative to the kernel source tree: "./x" -> "x",
 * "/build/.../linux-6.1.192/arch/x" -> "arch/x". */
char *dw_source_relative(const char *f)
{
	if (!f)
		return xstrdup("");
	while (!strncmp(f, "./", 2))
		f += 2;
	if (f[0] == '/') {
		const char *p = strstr(f, "/linux-");
		if (p && (p = strchr(p + 1, '/')))
			f = p + 1;
	}
	return xstrdup(f);
}

char *dw_source_name(const struct dw_image *img, const char *f)
{
	return img->user ? xstrdup(f ? f : "") : dw_source_relative(f);
}

/* A file pattern matches the whole path, or its tail after a '/':
 * "read_write.c" and "fs/read_write.c" both match "fs/read_write.c". */
bool dw_file_matches(const char *pat, const char *file)
{
	size_t lp = strlen(pat), lf = strlen(file);

	if (fnmatch(pat, file, 0) == 0)
		return true;
	if (strpbrk(pat, "*?[") || lp >= lf)
		return false;
	return file[lf - lp - 1] == '/' && !strcmp(file + lf - lp, pat);
}

bool dw_pattern_names_source(const char *pat)
{
	size_t n = strlen(pat);

	return n > 2 && pat[n - 2] == '.' && strchr("cSs", pat[n - 1]);
}

/* "foo.isra.0" / "foo.constprop.0" are clones of foo: match them as foo. */
static bool symbol_matches(const char *pat, const char *sym)
{
	const char *dot = strchr(sym, '.');
	char base[512];

	if (!dot)
		return fnmatch(pat, sym, 0) == 0;
	if ((size_t)(dot - sym) >= sizeof(base))
		return false;
	memcpy(base, sym, (size_t)(dot - sym));
	base[dot - sym] = 0;
	return fnmatch(pat, base, 0) == 0;
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* EXPORT_SYMBOL(x): in the table's index of __ksymtab_x names (ksyms.c). */
static bool is_exported(const struct ksymtab *t, const char *sym)
{
	const char *key = sym;

	return t->exported.len &&
	       bsearch(&key, t->exported.items, t->exported.len, sizeof(char *), cmp_strp);
}

/* The function symbol of img at DWARF address a (NULL if none). */
static const char *symbol_at(struct dw_image *img, const struct ksymtab *syms, Dwarf_Addr a)
{
	if (!img->mod) {
		const struct ksym *k = ksym_at(syms, a);
		return k ? k->name : NULL;
	}
	GElf_Off off;
	GElf_Sym sym;
	const char *n = dwfl_module_addrinfo(img->mod, a + img->bias, &off, &sym, NULL, NULL, NULL);
	return n && off == 0 && GELF_ST_TYPE(sym.st_info) == STT_FUNC ? n : NULL;
}

/* Why a function is refused (blacklist.c): the kernel's verdict on the
 * text at a (kernel: by address; module: by its symbol's section), then
 * cstap's rules on its name and declaring file (name NULL: not those);
 * NULL if it is not. */
static const char *refused_why(struct dw_image *img, const struct ksymtab *syms, Dwarf_Addr a,
			       const char *sym, const char *name, const char *file)
{
	const char *why = NULL;

	if (img->user)
		return NULL;
	if (!img->mod) {
		const struct ksym *k = ksym_at(syms, a);
		why = k ? blacklist_kernel_why(syms, k) : "no function symbol at its entry";
	} else {
		for (size_t i = 0; syms && i < syms->n && !why; i++)
			if (!strcmp(syms->syms[i].name, sym))
				why = blacklist_kernel_why(syms, &syms->syms[i]);
	}
	return why || !name ? why : blacklist_function_why(name, file);
}

/* Entry of an out-of-line function: low_pc/entry_pc, or the first range
 * that starts at a function symbol (hot/cold split functions). */
static bool func_entry(struct dw_image *img, const struct ksymtab *syms, Dwarf_Die *d,
		       Dwarf_Addr *entry, const char **sym)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;

	if (dwarf_hasattr(d, DW_AT_declaration))
		return false;
	if (dwarf_entrypc(d, entry) == 0)
		return (*sym = symbol_at(img, syms, *entry)) != NULL;
	while ((off = dwarf_ranges(d, off, &base, &lo, &hi)) > 0) {
		const char *n = symbol_at(img, syms, lo);
		if (n && !strstr(n, ".cold")) {
			*entry = lo;
			*sym = n;
			return true;
		}
	}
	return false;
}

/* Is addr one of the sorted symbol addresses? */
static bool in_addrs(const usymvec *v, Dwarf_Addr addr)
{
	int lo = 0, hi = v ? v->len : 0;

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (v->items[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return v && lo < v->len && v->items[lo].addr == addr;
}

/* Check one top-level DIE of a unit against the pattern; alias (user
 * files): the addresses of the symbols matching it, which match the
 * function DIE at that address whatever its DWARF name (malloc is
 * __libc_malloc in libc's DWARF). */
static void check_die(struct dw_image *img, const struct ksymtab *syms, const struct dw_pattern *p,
		      const usymvec *alias, Dwarf_Die *d, dw_funcvec *out)
{
	Dwarf_Addr entry;
	const char *sym, *name = dwarf_diename(d);
	int line = 0;

	bool named = name && fnmatch(p->func, name, 0) == 0;

	/* (the name first: func_entry's symbol lookup is what costs, a
	 * module's through libdwfl; only user files match by address too) */
	if (!name || (!named && !(alias && alias->len)) || !func_entry(img, syms, d, &entry, &sym) ||
	    (!named && !in_addrs(alias, entry)))
		return;
	dwarf_decl_line(d, &line);
	if (p->line && line != p->line)
		return;
	char *file = dw_source_name(img, dwarf_decl_file(d));
	const char *refused = NULL;
	if ((p->file && !dw_file_matches(p->file, file)) ||
	    ((refused = refused_why(img, syms, entry, sym, p->no_probe ? NULL : name, file)) &&
	     !p->keep_refused)) {
		free(file);
		return;
	}
	struct dw_func f = { .name = xstrdup(name), .file = file, .line = line, .addr = entry,
			     .symbol = xstrdup(sym), .die = dwarf_dieoffset(d), .refused = refused };
	f.exported = syms && is_exported(syms, sym);
	vec_push(out, f);
}

static void scan_unit(struct dw_image *img, const struct ksymtab *syms, const struct dw_pattern *p,
		      const usymvec *alias, Dwarf_Die *cu, dw_funcvec *out)
{
	Dwarf_Die d;

	if (dwarf_child(cu, &d) != 0)
		return;
	do {
		if (dwarf_tag(&d) == DW_TAG_subprogram)
			check_die(img, syms, p, alias, &d, out);
	} while (dwarf_siblingof(&d, &d) == 0);
}

static int cmp_usym_addr(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}


struct arange { uint64_t lo, hi; Dwarf_Off cu; };
typedef VEC(struct arange) arangevec;
struct dw_aranges { arangevec v; };   /* hangs off its dw_image */

/* Free the index of an image being closed (dw_module_close). */
void dw_aranges_free(struct dw_aranges *a)
{
	if (a)
		free(a->v.items);
	free(a);
}

static int cmp_arange(const void *a, const void *b)
{
	const struct arange *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static uint64_t get_le(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* .debug_aranges read directly: libdw's dwarf_getaranges() also visits
 * every unit of .debug_info, which costs more than all the rest of a
 * lookup (~60 ms for the kernel). Sorted by start address. */
static bool read_aranges(Dwarf *dbg, arangevec *out)
{
	Elf *e = dwarf_getelf(dbg);
	size_t shstr;
	Elf_Scn *scn = NULL;
	Elf_Data *d = NULL;

	if (!e || elf_getshdrstrndx(e, &shstr) != 0)
		return false;
	while (!d && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstr, sh.sh_name) : NULL;
		if (n && !strcmp(n, ".debug_aranges") && sh.sh_type == SHT_PROGBITS)
			d = elf_getdata(scn, NULL);
	}
	if (!d || !d->d_buf)
		return false;
	const unsigned char *p = d->d_buf, *end = p + d->d_size;
	while (p + 16 <= end) {
		const unsigned char *set = p;
		uint64_t len = get_le(p, 4);
		int osz = 4;
		p += 4;
		if (len == 0xffffffff) {
			len = get_le(p, 8);
			p += 8;
			osz = 8;
		}
		const unsigned char *next = p + len;
		if (next > end || len < (uint64_t)(2 + osz + 2))
			return false;
		Dwarf_Off cu = get_le(p + 2, osz);
		int asz = p[2 + osz];
		if (asz != 4 && asz != 8)
			return false;
		p += 2 + osz + 2;
		size_t used = (size_t)(p - set), tuple = 2 * (size_t)asz;
		p += (tuple - used % tuple) % tuple;
		for (; p + tuple <= next; p += tuple) {
			uint64_t lo = get_le(p, asz), l = get_le(p + asz, asz);
			if (!lo && !l)
				break;
			struct arange a = { lo, lo + l, cu };
			vec_push(out, a);
		}
		p = next;
	}
	if (out->len)
		qsort(out->items, out->len, sizeof(struct arange), cmp_arange);
	return out->len > 0;
}

static bool find_cu(const arangevec *v, uint64_t addr, Dwarf_Off *cu)
{
	int lo = 0, hi = v->len;

	while (lo < hi) {     /* last range starting at or before addr */
		int mid = (lo + hi) / 2;
		if (v->items[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= v->items[lo - 1].hi)
		return false;
	*cu = v->items[lo - 1].cu;
	return true;
}

/* Units (header offsets) holding functions whose symbol matches, found
 * through .debug_aranges. False if that is not possible. */
static bool units_by_symbol(struct dw_image *img, const struct ksymtab *syms, const char *pat,
			    dw_offvec *units)
{
	if (img->mod || !syms)
		return false;
	if (!img->aranges) {   /* read once per image */
		img->aranges = xcalloc(1, sizeof(*img->aranges));
		if (!read_aranges(img->dbg, &img->aranges->v))
			return false;
	}
	const arangevec *ar = &img->aranges->v;
	if (!ar->len)
		return false;
	for (size_t i = 0; i < syms->n; i++) {
		const struct ksym *k = &syms->syms[i];
		Dwarf_Off cu;
		if (ksym_is_func(k) && symbol_matches(pat, k->name) && find_cu(ar, k->addr, &cu))
			vec_push(units, cu);
	}
	return true;
}

static bool all_wild(const char *pat)
{
	return strspn(pat, "*") == strlen(pat);
}

int dw_func_cmp(const void *a, const void *b)
{
	const struct dw_func *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (!c)
		c = strcmp(x->file, y->file);
	if (!c)
		c = x->addr < y->addr ? -1 : x->addr > y->addr;
	return c;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct dw_func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void dw_find_functions(struct dw_image *img, const struct ksymtab *syms,
		       const struct dw_pattern *p, dw_funcvec *out)
{
	dw_offvec units = { 0 };
	int first = out->len;
	usymvec alias = { 0 };

	if (img->user) {   /* by address: the symbols' are link-time, as DWARF's */
		uimage_functions(img, p->func, &alias);
		if (alias.len > 1)
			qsort(alias.items, alias.len, sizeof(struct usym), cmp_usym_addr);
	}

	if (!all_wild(p->func) && units_by_symbol(img, syms, p->func, &units)) {
		if (units.len)
			qsort(units.items, units.len, sizeof(Dwarf_Off), dw_off_cmp);
		for (int i = 0; i < units.len; i++) {
			Dwarf_Die cu;
			Dwarf_Off next;
			size_t hsize;
			if (i && units.items[i] == units.items[i - 1])
				continue;
			if (dwarf_next_unit(img->dbg, units.items[i], &next, &hsize, NULL, NULL, NULL,
					    NULL, NULL, NULL) == 0 &&
			    dwarf_offdie(img->dbg, units.items[i] + hsize, &cu))
				scan_unit(img, syms, p, &alias, &cu, out);
		}
	} else {
		/* every unit; with a pattern only a source file can match (".c",
		 * ".S": not a header, whose functions are in other units) only
		 * the units of that name */
		bool by_name = p->file && dw_pattern_names_source(p->file);
		Dwarf_Off off = 0, next;
		size_t hsize;
		while (dwarf_nextcu(img->dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
			Dwarf_Die cu;
			if (dwarf_offdie(img->dbg, off + hsize, &cu)) {
				char *n = dw_source_relative(dwarf_diename(&cu));
				if (!by_name || dw_file_matches(p->file, n))
					scan_unit(img, syms, p, &alias, &cu, out);
				free(n);
			}
			off = next;
		}
	}
	free(units.items);
	for (int i = 0; i < alias.len; i++)
		free(alias.items[i].name);
	free(alias.items);
	/* one entry per address: a unit may be reached twice */
	if (out->len - first > 1)
		qsort(out->items + first, out->len - first, sizeof(struct dw_func), cmp_addr);
	int n = first;
	for (int i = first; i < out->len; i++)
		if (n == first || out->items[n - 1].addr != out->items[i].addr)
			out->items[n++] = out->items[i];
	out->len = n;
	if (out->len - first > 1)
		qsort(out->items + first, out->len - first, sizeof(struct dw_func), dw_func_cmp);
}
