/* sdt.c - SDT markers of user ELF files and their arguments (sdt.h). */
#include "sdt.h"
#include "debuginfo.h"

#include <ctype.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NT_STAPSDT 3

/* A section's header by name. */
static bool find_section(Elf *e, const char *name, GElf_Shdr *out, Elf_Scn **scn_out)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;
		if (gelf_getshdr(scn, out) && (n = elf_strptr(e, shstrndx, out->sh_name)) && !strcmp(n, name)) {
			if (scn_out)
				*scn_out = scn;
			return true;
		}
	}
	return false;
}

static uint64_t get_addr(const unsigned char *p, bool is64, bool big)
{
	uint64_t v = 0;
	int n = is64 ? 8 : 4;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[big ? i : n - 1 - i] << (8 * (n - 1 - i));
	return v;
}

bool sdt_markers(const char *path, sdtvec *out, char **why)
{
	int fd = open(path, O_RDONLY);
	Elf *e;
	GElf_Shdr sh, base_sh;
	Elf_Scn *scn;

	elf_version(EV_CURRENT);
	if (fd < 0 || !(e = elf_begin(fd, ELF_C_READ_MMAP, NULL)) || elf_kind(e) != ELF_K_ELF) {
		*why = xasprintf("cannot read %s as an ELF file", path);
		if (fd >= 0)
			close(fd);
		return false;
	}
	GElf_Ehdr eh;
	gelf_getehdr(e, &eh);
	bool is64 = eh.e_ident[EI_CLASS] == ELFCLASS64, big = eh.e_ident[EI_DATA] == ELFDATA2MSB;
	bool has_base = find_section(e, ".stapsdt.base", &base_sh, NULL);
	Elf_Data *d;
	if (find_section(e, ".note.stapsdt", &sh, &scn) && sh.sh_type == SHT_NOTE && (d = elf_getdata(scn, NULL))) {
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		int asz = is64 ? 8 : 4;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			const unsigned char *desc = (const unsigned char *)d->d_buf + desc_off;
			const char *end = (const char *)desc + nh.n_descsz;
			if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
			    memcmp((const char *)d->d_buf + name_off, "stapsdt", 8) || nh.n_descsz < 3u * asz)
				continue;
			const char *prov = (const char *)desc + 3 * asz;
			const char *name = prov + strnlen(prov, end - prov) + 1;
			const char *args = name < end ? name + strnlen(name, end - name) + 1 : end;
			if (args >= end || memchr(args, 0, end - args) == NULL)
				continue;   /* malformed */
			struct sdt_marker m = {
				.provider = xstrdup(prov),
				.name = xstrdup(name),
				.pc = get_addr(desc, is64, big),
				.sem = get_addr(desc + 2 * asz, is64, big),
				.args = xstrdup(args),
			};
			/* prelinked: everything moved as far as .stapsdt.base did */
			uint64_t base = get_addr(desc + asz, is64, big);
			if (has_base && base && base != base_sh.sh_addr) {
				m.pc += base_sh.sh_addr - base;
				if (m.sem)
					m.sem += base_sh.sh_addr - base;
			}
			vec_push(out, m);
		}
	}
	elf_end(e);
	close(fd);
	return true;
}

void sdt_markers_free(sdtvec *v)
{
	for (int i = 0; i < v->len; i++) {
		free(v->items[i].provider);
		free(v->items[i].name);
		free(v->items[i].args);
	}
	free(v->items);
	memset(v, 0, sizeof(*v));
}

int sdt_arg_count(const char *args)
{
	int n = 0;

	for (const char *p = args; *p; ) {
		p += strspn(p, " ");
		if (!*p)
			break;
		n++;
		p += strcspn(p, " ");
	}
	return n;
}

/* ---- x86-64 gas operands ---------------------------------------------------------- */

/* A register: its DWARF number (the runtime's stp_dwarf_reg), how many
 * bytes of it are named and from which bit. */
struct reg { int dwarf, size, shift; };

static bool parse_reg(const char **pp, struct reg *r)
{
	static const char *const r64[] = { "rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp" };
	static const char *const r32[] = { "eax", "edx", "ecx", "ebx", "esi", "edi", "ebp", "esp" };
	static const char *const r16[] = { "ax", "dx", "cx", "bx", "si", "di", "bp", "sp" };
	static const char *const r8[] = { "al", "dl", "cl", "bl", "sil", "dil", "bpl", "spl" };
	static const char *const r8h[] = { "ah", "dh", "ch", "bh" };
	const char *p = *pp;
	char name[8];
	size_t n = 0;

	if (*p != '%')
		return false;
	p++;
	while (isalnum((unsigned char)p[n]) && n < sizeof(name) - 1)
		n++;
	memcpy(name, p, n);
	name[n] = 0;
	*pp = p + n;
	*r = (struct reg){ -1, 8, 0 };
	for (int i = 0; i < 8; i++) {
		if (!strcmp(name, r64[i]))
			*r = (struct reg){ i, 8, 0 };
		else if (!strcmp(name, r32[i]))
			*r = (struct reg){ i, 4, 0 };
		else if (!strcmp(name, r16[i]))
			*r = (struct reg){ i, 2, 0 };
		else if (!strcmp(name, r8[i]))
			*r = (struct reg){ i, 1, 0 };
		else if (i < 4 && !strcmp(name, r8h[i]))
			*r = (struct reg){ i, 1, 8 };
	}
	if (!strcmp(name, "rip"))
		*r = (struct reg){ 16, 8, 0 };
	if (name[0] == 'r' && isdigit((unsigned char)name[1])) {   /* r8 .. r15, r8d, r8w, r8b */
		char *end;
		long k = strtol(name + 1, &end, 10);
		int size = !*end ? 8 : !strcmp(end, "d") ? 4 : !strcmp(end, "w") ? 2 :
			   (!strcmp(end, "b") || !strcmp(end, "l")) ? 1 : 0;
		if (k >= 8 && k <= 15 && size)
			*r = (struct reg){ (int)k, size, 0 };
	}
	return r->dwarf >= 0;
}

/* A register's value, cut to its size (unsigned). */
static const struct lx *reg_value(const struct reg *r)
{
	const struct lx *v = lx_leaf(LX_REG, r->dwarf);

	if (r->size == 8)
		return v;
	return lx_bin(LX_AND, lx_bin(LX_SHR, v, lx_const(r->shift)), lx_hex((1ULL << (8 * r->size)) - 1));
}

static bool parse_int(const char **pp, int64_t *v)
{
	char *end;
	const char *p = *pp;
	bool neg = *p == '-';

	if (*p == '-' || *p == '+')
		p++;
	if (!isdigit((unsigned char)*p))
		return false;
	uint64_t u = strtoull(p, &end, 0);
	*v = neg ? -(int64_t)u : (int64_t)u;
	*pp = end;
	return true;
}

/* The link-time value of a symbol of the file (.symtab, else .dynsym). */
static bool file_symbol(const char *path, const char *name, uint64_t *addr)
{
	int fd;
	Elf *e = elf_file_open(path, &fd);
	bool found = false;

	for (int pass = 0; e && pass < 2 && !found; pass++) {
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;
		while (!found && (scn = elf_nextscn(e, scn))) {
			if (!gelf_getshdr(scn, &sh) || sh.sh_type != (pass ? SHT_DYNSYM : SHT_SYMTAB))
				continue;
			Elf_Data *d = elf_getdata(scn, NULL);
			size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
			for (size_t i = 1; d && i < n && !found; i++) {
				GElf_Sym sym;
				const char *sn;
				if (gelf_getsym(d, (int)i, &sym) && sym.st_shndx != SHN_UNDEF &&
				    (sn = elf_strptr(e, sh.sh_link, sym.st_name)) && !strcmp(sn, name)) {
					*addr = sym.st_value;
					found = true;
				}
			}
		}
	}
	elf_file_close(e, fd);
	return found;
}

/* A displacement: an integer, or symbol[+-integer] (its run-time address:
 * the load bias added). */
static bool parse_disp(const char *path, const char **pp, const struct lx **c, bool *sym_based, char **why)
{
	const char *p = *pp;
	int64_t v = 0;

	*sym_based = false;
	if (*p == '(' || !*p) {
		*c = lx_const(0);
		return true;
	}
	if (parse_int(&p, &v)) {
		*pp = p;
		*c = lx_const(v);
		return true;
	}
	size_t n = 0;
	while (p[n] && (isalnum((unsigned char)p[n]) || strchr("_.$@", p[n])))
		n++;
	if (!n) {
		*why = xasprintf("cannot parse '%s'", *pp);
		return false;
	}
	char *sym = xstrndup(p, n);
	uint64_t addr;
	p += n;
	if ((*p == '+' || *p == '-') && !parse_int(&p, &v)) {
		*why = xasprintf("cannot parse '%s'", *pp);
		free(sym);
		return false;
	}
	if (!file_symbol(path, sym, &addr)) {
		*why = xasprintf("no symbol '%s' in %s", sym, path);
		free(sym);
		return false;
	}
	free(sym);
	*pp = p;
	*sym_based = true;
	*c = lx_add_k(lx_bin(LX_ADD, lx_hex(addr), lx_leaf(LX_UBIAS, 0)), v);
	return true;
}

/* The n-th (1 ..) space-separated word of args. */
static char *nth_arg(const char *args, int n)
{
	const char *p = args;

	for (int i = 1; *p; i++) {
		p += strspn(p, " ");
		size_t len = strcspn(p, " ");
		if (i == n)
			return len ? xstrndup(p, len) : NULL;
		p += len;
	}
	return NULL;
}

const struct lx *sdt_arg_lx(const char *path, const char *args, int n, char **why)
{
	char *word = nth_arg(args, n);
	const char *p = word, *at;
	const struct lx *c = NULL, *disp = NULL;
	int size = 8;
	bool sign = true;
	struct reg r;

	if (!word) {
		*why = xasprintf("the marker has no argument %d", n);
		return NULL;
	}
	/* "[-]SIZE@" (an argument without one is a signed long) */
	if ((at = strchr(p, '@')) && (isdigit((unsigned char)*p) || (*p == '-' && isdigit((unsigned char)p[1])))) {
		sign = *p == '-';
		size = atoi(p + sign);
		if (size != 1 && size != 2 && size != 4 && size != 8) {
			*why = xasprintf("argument %d ('%s') has a size of %d bytes", n, word, size);
			free(word);
			return NULL;
		}
		p = at + 1;
	}
	bool sym_based;
	if (*p == '%') {   /* a register */
		if (!parse_reg(&p, &r) || *p)
			goto bad;
		c = lx_fit(reg_value(&r), r.size < size ? r.size : size, sign && r.size >= size);
	} else if (*p == '$') {   /* a constant */
		int64_t v;
		p++;
		if (!parse_int(&p, &v) || *p)
			goto bad;
		c = lx_fit(lx_const(v), size, sign);
	} else {   /* memory: disp(base,index,scale), disp(%rip), symbol */
		if (!parse_disp(path, &p, &disp, &sym_based, why))
			goto fail;
		const struct lx *addr = NULL;
		if (*p == '(') {
			struct reg b = { -1, 8, 0 }, x = { -1, 8, 0 };
			int64_t scale = 1;
			p++;
			if (*p == '%' && !parse_reg(&p, &b))
				goto bad;
			if (*p == ',') {
				p++;
				if (!parse_reg(&p, &x))
					goto bad;
				if (*p == ',') {
					p++;
					if (!parse_int(&p, &scale))
						goto bad;
				}
			}
			if (*p++ != ')' || *p)
				goto bad;
			if (b.dwarf == 16) {   /* %rip: gas resolved the symbol's address */
				if (!sym_based) {
					*why = xasprintf("argument %d ('%s'): a %%rip-relative address without a symbol", n, word);
					goto fail;
				}
				b.dwarf = -1;
			}
			const struct lx *base = b.dwarf >= 0 ? reg_value(&b) : lx_const(0);
			const struct lx *index = x.dwarf >= 0 ? lx_bin(LX_MUL, reg_value(&x), lx_const(scale)) : lx_const(0);
			addr = lx_bin(LX_ADD, lx_bin(LX_ADD, disp, base), index);
		} else if (!*p && sym_based) {   /* a symbol: its address */
			addr = disp;
		} else {
			goto bad;
		}
		c = lx_fit(lx_load(addr, size, true), size, sign);
	}
	free(word);
	return c;
bad:
	*why = xasprintf("cannot parse argument %d ('%s') of the marker", n, word);
fail:
	free(word);
	return NULL;
}
