/* ktracepoints.c - the tracepoints a module defines, from its ELF symbols
 * and relocations (see ktracepoints.h). */
#include "ktracepoints.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernel.h"
#include "target.h"

#define ITER "__traceiter_"
#define STR_PRE "str__"
#define STR_POST "__trace_system_name"

/* A place in the .ko: a section and an offset in it. */
struct loc {
	size_t scn;
	uint64_t off;
};

struct ko {
	Elf *e;
	Elf_Data *syms;
	size_t nsyms, strtab;
};

static const char *sym_name(const struct ko *k, const GElf_Sym *sym)
{
	return elf_strptr(k->e, k->strtab, sym->st_name);
}

/* The NUL-terminated string at l, if it lies in its section's data. */
static char *string_at(const struct ko *k, struct loc l)
{
	Elf_Scn *scn = elf_getscn(k->e, l.scn);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

	if (!d || !d->d_buf || l.off >= d->d_size)
		return NULL;
	const char *p = (const char *)d->d_buf + l.off;
	size_t max = d->d_size - l.off, n = strnlen(p, max);
	return n < max ? xstrndup(p, n) : NULL;
}

/* Where the pointer stored at l points: the relocation that fills it
 * (symbol + addend); false if none does. */
static bool pointer_at(const struct ko *k, struct loc l, struct loc *to)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(k->e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || sh.sh_info != l.scn)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; d && i < n; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			if (!gelf_getrela(d, (int)i, &r) || r.r_offset != l.off)
				continue;
			if (!gelf_getsym(k->syms, (int)GELF_R_SYM(r.r_info), &sym) ||
			    sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
				return false;
			*to = (struct loc){ sym.st_shndx, sym.st_value + (uint64_t)r.r_addend };
			return true;
		}
	}
	return false;
}

/* The system of the event at ev: its class's system string. */
static char *event_system(const struct ko *k, struct loc ev, const struct ktp_layout *lay)
{
	struct loc cls, str;

	if (lay->class_off < 0 || lay->system_off < 0 ||
	    !pointer_at(k, (struct loc){ ev.scn, ev.off + (uint64_t)lay->class_off }, &cls) ||
	    !pointer_at(k, (struct loc){ cls.scn, cls.off + (uint64_t)lay->system_off }, &str))
		return NULL;
	return string_at(k, str);
}

static int cmp_ktp(const void *a, const void *b)
{
	return strcmp(((const struct ktp *)a)->name, ((const struct ktp *)b)->name);
}

/* Read the tracepoints of the .ko at path into m. */
static void read_ko(struct ktp_module *m, const char *path, const struct ktp_layout *lay)
{
	int fd = open(path, O_RDONLY);
	struct ko k = { 0 };
	Elf_Scn *scn = NULL;
	VEC(struct ktp) tps = { 0 };
	VEC(struct loc) events = { 0 };   /* event_NAME of tps.items[i], scn 0 if none */
	char *only_system = NULL;
	int systems = 0;

	if (fd < 0)
		return;
	elf_version(EV_CURRENT);
	k.e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	while (k.e && (scn = elf_nextscn(k.e, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			k.syms = elf_getdata(scn, NULL);
			k.nsyms = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
			k.strtab = sh.sh_link;
			break;
		}
	}
	/* the iterators and the system strings */
	for (size_t i = 0; k.syms && i < k.nsyms; i++) {
		GElf_Sym sym;
		const char *name;
		if (!gelf_getsym(k.syms, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
		    sym.st_shndx >= SHN_LORESERVE || !(name = sym_name(&k, &sym)))
			continue;
		if (!strncmp(name, ITER, strlen(ITER)) && name[strlen(ITER)]) {
			vec_push(&tps, ((struct ktp){ xstrdup(name + strlen(ITER)), NULL }));
		} else if (!strncmp(name, STR_PRE, strlen(STR_PRE)) && strlen(name) > strlen(STR_PRE STR_POST) &&
			   !strcmp(name + strlen(name) - strlen(STR_POST), STR_POST)) {
			systems++;
			free(only_system);
			only_system = string_at(&k, (struct loc){ sym.st_shndx, sym.st_value });
		}
	}
	if (tps.len)
		qsort(tps.items, (size_t)tps.len, sizeof(*tps.items), cmp_ktp);
	if (systems > 1) {
		/* several systems: each event's own, through its class */
		for (int i = 0; i < tps.len; i++)
			vec_push(&events, ((struct loc){ 0, 0 }));
		for (size_t i = 0; tps.len && i < k.nsyms; i++) {
			GElf_Sym sym;
			const char *name;
			if (!gelf_getsym(k.syms, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
			    sym.st_shndx >= SHN_LORESERVE || !(name = sym_name(&k, &sym)) ||
			    strncmp(name, "event_", 6))
				continue;
			struct ktp key = { .name = (char *)name + 6 };
			struct ktp *t = bsearch(&key, tps.items, (size_t)tps.len, sizeof(*tps.items), cmp_ktp);
			if (t)
				events.items[t - tps.items] = (struct loc){ sym.st_shndx, sym.st_value };
		}
		for (int i = 0; i < tps.len; i++)
			if (events.items[i].scn)
				tps.items[i].system = event_system(&k, events.items[i], lay);
	} else if (only_system) {
		for (int i = 0; i < tps.len; i++)
			tps.items[i].system = xstrdup(only_system);
	}
	free(only_system);
	free(events.items);
	if (k.e)
		elf_end(k.e);
	close(fd);
	m->tps = tps.items;
	m->n = tps.len;
}

const struct ktp_module *ktp_module(struct session *s, const char *module, const char *path,
				    const struct ktp_layout *layout)
{
	struct target *tg = target_of(s);

	for (int i = 0; i < tg->tracepoints.len; i++)
		if (!strcmp(tg->tracepoints.items[i]->module, module))
			return tg->tracepoints.items[i];
	struct ktp_module *m = xcalloc(1, sizeof(*m));
	m->module = xstrdup(module);
	const char *ext = strstr(path, ".ko");
	if (ext && strcmp(ext, ".ko")) {
		/* compressed: the -dbg package has the uncompressed one */
		char *dbg = kernel_module_debug_path(s, path);
		if (dbg)
			read_ko(m, dbg, layout);
		free(dbg);
	} else {
		read_ko(m, path, layout);
	}
	vec_push(&tg->tracepoints, m);
	return m;
}
