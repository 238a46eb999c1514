/* bpf_usym.c - user-space addresses named from the process's mappings and
 * its files' ELF symbols (bpf_usym.h). */
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf_usym.h"

/* one file-backed mapping of /proc/PID/maps */
struct umap {
	uint64_t start, end, off;
	char *path;
};

/* the mappings of the process last asked about */
static struct {
	uint32_t tgid;
	bool read;
	struct umap *v;
	size_t n;
} maps;

struct usym {
	uint64_t value, size;
	char *name;
};

/* a file's functions and where its loadable segments go */
struct ufile {
	char *path;
	struct usym *syms;
	size_t nsyms, cap;
	struct { uint64_t off, size, vaddr; } load[16];
	int nload;
	struct ufile *next;
};
static struct ufile *files;

void bpf_usym_forget_maps(void)
{
	for (size_t i = 0; i < maps.n; i++)
		free(maps.v[i].path);
	free(maps.v);
	memset(&maps, 0, sizeof(maps));
}

/* /proc/tgid/maps' file-backed lines, once per record */
static void read_maps(uint32_t tgid)
{
	char name[64], line[4096];
	FILE *f;

	if (maps.read && maps.tgid == tgid)
		return;
	bpf_usym_forget_maps();
	maps.read = true;
	maps.tgid = tgid;
	snprintf(name, sizeof(name), "/proc/%u/maps", tgid);
	f = fopen(name, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, end, off;
		int at = 0;
		char *path, *nl;

		if (sscanf(line, "%llx-%llx %*4s %llx %*s %*u %n", &start, &end, &off, &at) < 3 || !at)
			continue;
		path = line + at;
		if (*path != '/')
			continue;   /* anonymous, [stack], [vdso] ... */
		if ((nl = strchr(path, '\n')))
			*nl = 0;
		struct umap *v = realloc(maps.v, (maps.n + 1) * sizeof(*v));
		if (!v)
			break;
		maps.v = v;
		maps.v[maps.n++] = (struct umap){ start, end, off, strdup(path) };
	}
	fclose(f);
}

static int by_value(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;

	return x->value < y->value ? -1 : x->value > y->value;
}

/* the functions of elf's symbol tables (.symtab and .dynsym), sorted */
static void read_symbols(struct ufile *uf, Elf *elf)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;
			int type;

			if (!gelf_getsym(data, (int)i, &sym))
				break;
			type = GELF_ST_TYPE(sym.st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
			    !sym.st_value || !(name = elf_strptr(elf, sh.sh_link, sym.st_name)) || !*name)
				continue;
			if (uf->nsyms == uf->cap) {
				size_t cap = uf->cap ? 2 * uf->cap : 256;
				struct usym *s = realloc(uf->syms, cap * sizeof(*s));
				if (!s)
					return;
				uf->syms = s;
				uf->cap = cap;
			}
			uf->syms[uf->nsyms++] = (struct usym){ sym.st_value, sym.st_size, strdup(name) };
		}
	}
	qsort(uf->syms, uf->nsyms, sizeof(*uf->syms), by_value);
}

/* /usr/lib/debug/.build-id/xx/yyyy.debug: the separate debug file of elf
 * (its .symtab: the local functions a stripped file lacks), "" if none */
static void debug_file(Elf *elf, char *out, size_t n)
{
	Elf_Scn *scn = NULL;

	out[0] = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(data = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			const unsigned char *id = (const unsigned char *)data->d_buf + desc_off;
			size_t len;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 || nh.n_descsz < 2 ||
			    memcmp((const char *)data->d_buf + name_off, "GNU", 4))
				continue;
			len = (size_t)snprintf(out, n, "/usr/lib/debug/.build-id/%02x/", id[0]);
			for (size_t i = 1; i < nh.n_descsz && len + 3 < n; i++)
				len += (size_t)snprintf(out + len, n - len, "%02x", id[i]);
			snprintf(out + len, n - len, ".debug");
			return;
		}
	}
}

/* the functions of the separate debug file, when there is one */
static void read_debug_symbols(struct ufile *uf, Elf *elf)
{
	char path[256];
	int fd;
	Elf *dbg;

	debug_file(elf, path, sizeof(path));
	if (!path[0] || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	dbg = elf_begin(fd, ELF_C_READ, NULL);
	if (dbg && elf_kind(dbg) == ELF_K_ELF)
		read_symbols(uf, dbg);
	if (dbg)
		elf_end(dbg);
	close(fd);
}

/* the file of a mapping, read once: from /proc/PID/map_files (the very
 * file mapped, even deleted or in another mount namespace), else its path */
static struct ufile *file_of(uint32_t tgid, const struct umap *m)
{
	struct ufile *uf;
	char name[96];
	int fd;
	Elf *elf;

	for (uf = files; uf; uf = uf->next)
		if (!strcmp(uf->path, m->path))
			return uf;
	uf = calloc(1, sizeof(*uf));
	if (!uf)
		return NULL;
	uf->path = strdup(m->path);
	uf->next = files;
	files = uf;
	snprintf(name, sizeof(name), "/proc/%u/map_files/%llx-%llx", tgid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return uf;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF) {
		size_t n = 0;

		elf_getphdrnum(elf, &n);
		for (size_t i = 0; i < n && uf->nload < 16; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
				uf->load[uf->nload++] = (typeof(uf->load[0])){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
		}
		read_debug_symbols(uf, elf);
		read_symbols(uf, elf);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return uf;
}

/* the function holding vaddr, NULL if none */
static const struct usym *symbol_at(const struct ufile *uf, uint64_t vaddr)
{
	size_t lo = 0, hi = uf->nsyms;

	while (lo < hi) {   /* the first symbol past vaddr */
		size_t mid = (lo + hi) / 2;
		if (uf->syms[mid].value <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	const struct usym *s = &uf->syms[lo - 1];
	return !s->size || vaddr < s->value + s->size ? s : NULL;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

void bpf_usym_frame(FILE *out, uint32_t tgid, uint64_t pc, enum bpf_ustack_style style)
{
	const struct umap *m = NULL;
	const struct usym *s = NULL;
	uint64_t lo = UINT64_MAX, hi = 0, vaddr = 0;

	read_maps(tgid);
	for (size_t i = 0; i < maps.n && !m; i++)
		if (pc >= maps.v[i].start && pc < maps.v[i].end)
			m = &maps.v[i];
	if (m) {
		struct ufile *uf = file_of(tgid, m);
		uint64_t off = pc - m->start + m->off;

		vaddr = off;
		for (int i = 0; uf && i < uf->nload; i++)
			if (off >= uf->load[i].off && off < uf->load[i].off + uf->load[i].size)
				vaddr = off - uf->load[i].off + uf->load[i].vaddr;
		s = uf ? symbol_at(uf, vaddr) : NULL;
		for (size_t i = 0; i < maps.n; i++)   /* the file's whole extent */
			if (!strcmp(maps.v[i].path, m->path)) {
				lo = maps.v[i].start < lo ? maps.v[i].start : lo;
				hi = maps.v[i].end > hi ? maps.v[i].end : hi;
			}
	}
	if (style == BPF_USTACK_DTRACE) {   /* DTrace's: no "+0x0", the file's base name */
		fprintf(out, "%14s", "");
		if (s && vaddr != s->value)
			fprintf(out, "%s`%s+0x%llx\n", base_name(m->path), s->name,
				(unsigned long long)(vaddr - s->value));
		else if (s)
			fprintf(out, "%s`%s\n", base_name(m->path), s->name);
		else if (m)
			fprintf(out, "%s`0x%llx\n", base_name(m->path), (unsigned long long)pc);
		else
			fprintf(out, "0x%llx\n", (unsigned long long)pc);
		return;
	}
	if (s)   /* the module runtime's lines (runtime/ustack.h) */
		fprintf(out, " 0x%llx : %s+0x%llx/0x%llx [%s]\n", (unsigned long long)pc, s->name,
			(unsigned long long)(vaddr - s->value), (unsigned long long)s->size, m->path);
	else if (m)
		fprintf(out, " 0x%llx [%s+0x%llx/0x%llx]\n", (unsigned long long)pc, m->path,
			(unsigned long long)(pc - lo), (unsigned long long)(hi - lo));
	else
		fprintf(out, " 0x%llx\n", (unsigned long long)pc);
}
