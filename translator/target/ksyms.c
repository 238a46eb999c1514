/* ksyms.c - load and query kernel / module symbol tables (see ksyms.h). */
#include "ksyms.h"

#include "blacklist.h"
#include "debuginfo.h"
#include "inputs.h"
#include "kernel.h"
#include "sysroot.h"
#include "target.h"

#include <ctype.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef VEC(struct ksym) ksymvec;

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_sym(ksymvec *v, uint64_t addr, char type, const char *name)
{
	struct ksym k = { .addr = addr, .type = type, .name = xstrdup(name) };

	vec_push(v, k);
}

static uint64_t find_addr(const struct ksymtab *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->syms[i].name, name))
			return t->syms[i].addr;
	return 0;
}

/* Text the kernel will not probe (blacklist.c names its bounds), and the
 * names NOKPROBE_SYMBOL() lists. */
static void add_bad_ranges(struct ksymtab *t)
{
	for (int i = 0; i < blacklist_n_text_bounds; i++) {
		uint64_t lo = find_addr(t, blacklist_text_bounds[i][0]);
		uint64_t hi = find_addr(t, blacklist_text_bounds[i][1]);
		if (lo && hi > lo) {
			vec_push(&t->bad_lo, lo);
			vec_push(&t->bad_hi, hi);
		}
	}
	for (size_t i = 0; i < t->n; i++)
		if (!strncmp(t->syms[i].name, "_kbl_addr_", 10))
			vec_push(&t->nokprobe, xstrdup(t->syms[i].name + 10));
	if (t->nokprobe.len)
		qsort(t->nokprobe.items, t->nokprobe.len, sizeof(char *), cmp_str);
}

/* EXPORT_SYMBOL(x) leaves a __ksymtab_x symbol: a sorted index of those
 * names answers "is it exported?" for each function a DWARF scan finds. */
static void index_exported(struct ksymtab *t)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strncmp(t->syms[i].name, "__ksymtab_", 10))
			vec_push(&t->exported, t->syms[i].name + 10);
	if (t->exported.len)
		qsort(t->exported.items, t->exported.len, sizeof(char *), cmp_str);
}

static struct ksymtab *finish(ksymvec *v, const char *source, const char *module, bool sorted)
{
	struct ksymtab *t = xcalloc(1, sizeof(*t));

	if (v->len && !sorted)
		qsort(v->items, v->len, sizeof(struct ksym), cmp_ksym);
	t->syms = v->items;
	t->n = v->len;
	t->source = xstrdup(source);
	t->module = module ? xstrdup(module) : NULL;
	index_exported(t);
	if (!module) {
		t->stext = find_addr(t, "_stext");
		add_bad_ranges(t);
	}
	return t;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* System.map / kallsyms format: "ADDR TYPE NAME[\t[module]]". Module
 * symbols of kallsyms are left out. Debian's /boot placeholder has no
 * real symbols and yields NULL. Parsed in place (names point into the
 * file's buffer, which stays): this runs for every kernel probe point,
 * and 100k small allocations are what made it slow. */
static struct ksymtab *load_map(const char *path)
{
	size_t len;
	char *buf = read_file(path, &len), *p, *end;
	ksymvec v = { 0 };
	bool nonzero = false, sorted = true;

	if (!buf)
		return NULL;
	v.cap = (int)(len / 32 + 16);
	v.items = xmalloc((size_t)v.cap * sizeof(struct ksym));
	for (p = buf, end = buf + len; p < end; p = p < end ? p + 1 : p) {
		char *eol = memchr(p, '\n', (size_t)(end - p));
		uint64_t a = 0;
		int h;
		if (!eol)
			eol = end;
		*eol = 0;
		while ((h = hexval(*p)) >= 0)
			a = a << 4 | (uint64_t)h, p++;
		if (p[0] != ' ' || !p[1] || p[2] != ' ' || !p[3] || strchr(p + 3, '[')) {
			p = eol;
			continue;
		}
		struct ksym k = { .addr = a, .type = p[1], .name = p + 3 };
		char *tab = strchr(k.name, '\t');
		if (tab)
			*tab = 0;
		nonzero |= a != 0;
		sorted &= !v.len || v.items[v.len - 1].addr <= a;
		vec_push(&v, k);
		p = eol;
	}
	if (v.len < 1000 || !nonzero) {   /* placeholder or hidden addresses */
		free(v.items);
		free(buf);
		return NULL;
	}
	return finish(&v, path, NULL, sorted);
}

/* System.map's letter for an ELF symbol: functions and markers of
 * executable sections are text (t/T/W), the rest data. */
static char elf_sym_type(Elf *e, const GElf_Sym *sym)
{
	GElf_Shdr sh;
	Elf_Scn *scn = sym->st_shndx && sym->st_shndx < SHN_LORESERVE ? elf_getscn(e, sym->st_shndx) : NULL;
	bool text = scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR);
	int bind = GELF_ST_BIND(sym->st_info);

	if (bind == STB_WEAK)
		return text ? 'W' : 'V';
	if (text)
		return bind == STB_GLOBAL ? 'T' : 't';
	return bind == STB_GLOBAL ? 'D' : 'd';
}

/* The kernel's symbols from the .symtab of its vmlinux (when there is no
 * System.map: debuginfo fetched from debuginfod). */
static struct ksymtab *load_elf_syms(const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf_Scn *scn = NULL;
	ksymvec v = { 0 };
	struct ksymtab *t = NULL;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (e && (scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 1; i < n; i++) {
			GElf_Sym sym;
			const char *name;
			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) == STT_FILE ||
			    GELF_ST_TYPE(sym.st_info) == STT_SECTION || sym.st_shndx == SHN_UNDEF ||
			    !(name = elf_strptr(e, sh.sh_link, sym.st_name)) || !*name)
				continue;
			add_sym(&v, sym.st_value, elf_sym_type(e, &sym), name);
		}
	}
	if (v.len >= 1000)
		t = finish(&v, path, NULL, false);
	else
		free(v.items);
	if (e)
		elf_end(e);
	close(fd);
	return t;
}

const struct ksymtab *ksyms_kernel(struct session *s, const char **why)
{
	struct target *tg = target_of(s);
	struct ksymtab *kernel_tab = tg->ksyms.kernel;

	if (!tg->ksyms.tried) {
		const struct target_kernel *k = target_kernel(s);
		const char *rel = k->release;
		char *p;
		tg->ksyms.tried = true;
		if (k->running)
			kernel_tab = load_map("/proc/kallsyms");
		if (!kernel_tab) {
			p = xasprintf("%s/boot/System.map-%s", dw_debug_root(s), rel);
			if ((kernel_tab = load_map(p)))
				input_note(s, p);
			free(p);
		}
		if (!kernel_tab) {
			p = xasprintf("%s/boot/System.map-%s", sysroot_dir(s), rel);
			if ((kernel_tab = load_map(p)))
				input_note(s, p);
			free(p);
		}
		if (!kernel_tab) {   /* the symbols of the kernel's debuginfo (debuginfod) */
			const struct dw_image *img = dw_kernel(s, NULL);
			if (img)
				kernel_tab = load_elf_syms(img->path);
		}
		if (!kernel_tab)
			tg->ksyms.why = xasprintf("no symbol table for kernel %s (install linux-image-%s-dbg "
						  "for /usr/lib/debug/boot/System.map-%s)", rel, rel, rel);
		else if (s->verbose >= 2)
			fprintf(stderr, "kernel symbols: %zu from %s\n", kernel_tab->n, kernel_tab->source);
		tg->ksyms.kernel = kernel_tab;
	}
	if (why)
		*why = tg->ksyms.why;
	return kernel_tab;
}

/* hwbkpt.c and elaborate/tvars.c mark that the code they make adds the
 * load offset, so that the start of the script measures it. */
void ksyms_use_kaslr(struct session *s)
{
	target_of(s)->ksyms.uses_kaslr = true;
}

/* The offset is measured at kfree, a symbol every kernel has: where it is
 * now minus its link-time address. */
bool ksyms_kaslr_ref(struct session *s, uint64_t *addr)
{
	const char *why;
	const struct ksymtab *t;

	if (!target_of(s)->ksyms.uses_kaslr || !(t = ksyms_kernel(s, &why)))
		return false;
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->syms[i].name, "kfree")) {
			*addr = t->syms[i].addr;
			return true;
		}
	return false;
}

/* The lookups live with the kernel's other files (kernel.c); these names
 * are the ones the probe families know. */
char *ksyms_module_path(struct session *s, const char *m)
{
	return kernel_module_path(s, m);
}

void ksyms_module_names(struct session *s, const char *pattern, strvec *out)
{
	kernel_module_names(s, pattern, out);
}

/* Function symbols of an ELF relocatable (.ko). Addresses are made unique
 * per section (index << 32 | value); init/exit sections are marked bad. */
static struct ksymtab *load_ko(const char *path, const char *module)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	Elf_Scn *scn = NULL;
	ksymvec v = { 0 };
	struct ksymtab *t;
	size_t shstrndx;
	VEC(uint64_t) bad = { 0 };

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_getshdrstrndx(e, &shstrndx) != 0) {
		if (e)
			elf_end(e);
		close(fd);
		return NULL;
	}
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *sname = elf_strptr(e, shstrndx, sh.sh_name);
		if ((sh.sh_flags & SHF_EXECINSTR) && sname && blacklist_section(sname))
			vec_push(&bad, (uint64_t)elf_ndxscn(scn));
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t nsyms = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; d && i < nsyms; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
				continue;
			const char *name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			char type = GELF_ST_BIND(sym.st_info) == STB_LOCAL ? 't' : 'T';
			add_sym(&v, ((uint64_t)sym.st_shndx << 32) | sym.st_value, type, name);
		}
	}
	elf_end(e);
	close(fd);
	t = finish(&v, path, module, false);
	for (int i = 0; i < bad.len; i++) {
		vec_push(&t->bad_lo, bad.items[i] << 32);
		vec_push(&t->bad_hi, (bad.items[i] + 1) << 32);
	}
	free(bad.items);
	return t;
}

const struct ksymtab *ksyms_module(struct session *s, const char *module, const char **why)
{
	struct target *tg = target_of(s);
	char **last_why = &tg->ksyms.module_why;

	for (int i = 0; i < tg->ksyms.modules.len; i++)
		if (kernel_same_module(module, tg->ksyms.modules.items[i]->module))
			return tg->ksyms.modules.items[i];
	char *path = ksyms_module_path(s, module);
	struct ksymtab *t = NULL;
	if (path && strstr(path, ".ko") && strcmp(strstr(path, ".ko"), ".ko")) {
		/* compressed: the -dbg package has the uncompressed one */
		char *dbg = kernel_module_debug_path(s, path);
		t = dbg ? load_ko(dbg, module) : NULL;
		free(dbg);
	} else if (path) {
		t = load_ko(path, module);
	}
	free(*last_why);
	*last_why = path ? xasprintf("cannot read the symbols of %s", path)
			 : xasprintf("no module '%s' for kernel %s", module, target_kernel(s)->release);
	free(path);
	if (why)
		*why = t ? NULL : *last_why;
	if (t)
		vec_push(&tg->ksyms.modules, t);
	return t;
}

bool ksym_is_text(const struct ksym *k)
{
	return k->type == 't' || k->type == 'T' || k->type == 'w' || k->type == 'W';
}

bool ksym_is_func(const struct ksym *k)
{
	return ksym_is_text(k) && !strstr(k->name, ".cold") && !strstr(k->name, ".part.");
}

const struct ksym *ksym_at(const struct ksymtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {      /* first symbol with address >= addr */
		size_t mid = (lo + hi) / 2;
		if (t->syms[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < t->n && t->syms[lo].addr == addr; lo++)
		if (ksym_is_func(&t->syms[lo]))
			return &t->syms[lo];
	return NULL;
}

static int cmp_ksym_name(const void *a, const void *b)
{
	const struct ksym *x = *(const struct ksym *const *)a, *y = *(const struct ksym *const *)b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->addr > y->addr) - (x->addr < y->addr);
}

size_t ksym_named(const struct ksymtab *t, const char *name, const struct ksym *const **first)
{
	struct ksymtab *m = (struct ksymtab *)t;   /* the index is a cache: built once, never changes t */
	size_t lo = 0, hi;

	if (!m->funcs_by_name) {
		m->funcs_by_name = xmalloc((t->n + 1) * sizeof(*m->funcs_by_name));
		for (size_t i = 0; i < t->n; i++)
			if (ksym_is_func(&t->syms[i]))
				m->funcs_by_name[m->n_funcs++] = &t->syms[i];
		qsort(m->funcs_by_name, m->n_funcs, sizeof(*m->funcs_by_name), cmp_ksym_name);
	}
	hi = t->n_funcs;
	while (lo < hi) {   /* the first entry >= name */
		size_t mid = (lo + hi) / 2;
		if (strcmp(t->funcs_by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*first = t->funcs_by_name + lo;
	for (hi = lo; hi < t->n_funcs && !strcmp(t->funcs_by_name[hi]->name, name); hi++)
		;
	return hi - lo;
}

int ksym_count_name(const struct ksymtab *t, const char *name)
{
	int n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += ksym_is_func(&t->syms[i]) && !strcmp(t->syms[i].name, name);
	return n;
}

int edit_distance(const char *a, const char *b, int cap)
{
	size_t la = strlen(a), lb = strlen(b);
	int row[lb + 1];

	if ((la > lb ? la - lb : lb - la) > (size_t)cap)
		return cap + 1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		int diag = row[0], best;
		row[0] = (int)i;
		best = row[0];
		for (size_t j = 1; j <= lb; j++) {
			int up = row[j];
			int v = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < v)
				v = up + 1;
			if (row[j - 1] + 1 < v)
				v = row[j - 1] + 1;
			diag = up;
			row[j] = v;
			if (v < best)
				best = v;
		}
		if (best > cap)
			return cap + 1;
	}
	return row[lb];
}

struct cand { const char *name; int d; };

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return x->d != y->d ? x->d - y->d : strcmp(x->name, y->name);
}

char *ksyms_similar(const struct ksymtab *t, const char *name, int max)
{
	int cap = strlen(name) < 6 ? 1 : 2;
	VEC(struct cand) v = { 0 };
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < t->n; i++) {
		if (!ksym_is_func(&t->syms[i]) || strchr(t->syms[i].name, '.'))
			continue;
		int d = edit_distance(name, t->syms[i].name, cap);
		if (d <= cap && d > 0) {
			struct cand c = { t->syms[i].name, d };
			vec_push(&v, c);
		}
	}
	if (v.len)
		qsort(v.items, v.len, sizeof(v.items[0]), cmp_cand);
	for (int i = 0, shown = 0; i < v.len && shown < max; i++) {
		if (i && !strcmp(v.items[i].name, v.items[i - 1].name))
			continue;
		strbuf_addf(&sb, "%s%s", shown ? ", " : "", v.items[i].name);
		shown++;
	}
	free(v.items);
	if (!sb.len) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}
