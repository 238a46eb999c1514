/* debuginfo.c - find and open kernel / module debuginfo (see .h). */
#include "debuginfo.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debuginfod.h"
#include "inputs.h"
#include "kernel.h"
#include "kimage.h"
#include "sysroot.h"
#include "target.h"
#include "uimage.h"
#include "util.h"


/* qsort/bsearch order of DIE offsets */
int dw_off_cmp(const void *a, const void *b)
{
	Dwarf_Off x = *(const Dwarf_Off *)a, y = *(const Dwarf_Off *)b;

	return x < y ? -1 : x > y;
}

/* The running kernel's build-id, from the raw notes in /sys/kernel/notes. */
static char *running_build_id(void)
{
	size_t len, off = 0;
	char *buf = read_file("/sys/kernel/notes", &len);

	while (buf && off + 12 <= len) {
		uint32_t nsz, dsz, type;
		memcpy(&nsz, buf + off, 4);
		memcpy(&dsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		size_t name = off + 12, desc = name + ((nsz + 3) & ~3u);
		if (desc + dsz > len)
			break;
		if (type == NT_GNU_BUILD_ID && nsz == 4 && !memcmp(buf + name, "GNU", 4)) {
			struct strbuf sb = STRBUF_INIT;
			for (uint32_t i = 0; i < dsz; i++)
				strbuf_addf(&sb, "%02x", (unsigned char)buf[desc + i]);
			free(buf);
			return strbuf_detach(&sb);
		}
		off = desc + ((dsz + 3) & ~3u);
	}
	free(buf);
	return NULL;
}

/* Candidate paths of the kernel's debuginfo, most specific first; *kb_id
 * is the build-id of the kbuild tree's vmlinux, if it has one. */
static strvec kernel_candidates(struct session *s, char **kb_id)
{
	const struct target_kernel *k = target_kernel(s);
	strvec v = { 0 };
	const char *root = dw_debug_root(s);
	char *kb = xasprintf("%s/vmlinux", k->build);
	char *id = access(kb, R_OK) == 0 ? elf_file_build_id(kb) : NULL;

	if (id && strlen(id) > 2)
		vec_push(&v, xasprintf("%s/.build-id/%.2s/%s.debug", root, id, id + 2));
	vec_push(&v, xasprintf("%s/boot/vmlinux-%s", root, k->release));
	vec_push(&v, xasprintf("%s/lib/modules/%s/vmlinux", root, k->release));
	vec_push(&v, xasprintf("%s/boot/vmlinux-%s", sysroot_dir(s), k->release));
	free(kb);
	*kb_id = id;
	return v;
}

/* Open path's DWARF if it has the build-id `want` (any if NULL). */
static struct dw_image *try_kernel(struct session *s, const char *path, const char *want)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return NULL;
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	char *id = e ? elf_build_id_hex(e) : NULL;
	Dwarf *d = NULL;
	if (e && (!want || (id && !strcmp(id, want))))
		d = dwarf_begin_elf(e, DWARF_C_READ, NULL);
	if (!d) {
		if (want && id && strcmp(id, want)) {
			char **why = &target_of(s)->dw.why;
			free(*why);
			*why = xasprintf("%s has build-id %s, the kernel %s", path, id, want);
		}
		if (e)
			elf_end(e);
		close(fd);
		free(id);
		return NULL;
	}
	free(id);
	struct dw_image *img = xcalloc(1, sizeof(*img));
	img->path = xstrdup(path);
	img->dbg = d;   /* the descriptor stays open for the mmap's life */
	input_note(s, path);
	if (s->verbose >= 2)
		fprintf(stderr, "kernel debuginfo: %s\n", img->path);
	return img;
}

/* Installed debuginfo first; else ask debuginfod by the build-id of the
 * kernel: the running one's, the kbuild tree's vmlinux's, or the one in
 * /boot/vmlinuz-REL. */
static struct dw_image *open_kernel(struct session *s)
{
	char *kb_id;
	strvec c = kernel_candidates(s, &kb_id);
	const struct target_kernel *k = target_kernel(s);
	const char *rel = k->release;
	char *want = k->running ? running_build_id() : NULL;
	struct dw_image *img = NULL;

	elf_version(EV_CURRENT);
	for (int i = 0; !img && i < c.len; i++)
		img = try_kernel(s, c.items[i], want);
	if (!img) {
		char *id = want ? xstrdup(want) : kb_id ? xstrdup(kb_id) : NULL;
		if (!id)
			id = kimage_build_id(k->image);
		const char *dwhy = "the kernel's build-id is unknown";
		char *what = xasprintf("kernel %s", rel);
		char *path = id ? debuginfod_fetch(s, id, what, &dwhy) : NULL;
		if (path)
			img = try_kernel(s, path, id);
		if (!img && !target_of(s)->dw.why)
			target_of(s)->dw.why = xasprintf("no debuginfo for kernel %s (install linux-image-%s-dbg; "
							 "debuginfod: %s)", rel, rel, dwhy);
		free(path);
		free(what);
		free(id);
	}
	for (int i = 0; i < c.len; i++)
		free(c.items[i]);
	free(c.items);
	free(kb_id);
	free(want);
	return img;
}

struct dw_image *dw_kernel(struct session *s, const char **why)
{
	struct target *t = target_of(s);

	if (!t->dw.tried) {
		t->dw.tried = true;
		t->dw.kernel = open_kernel(s);
	}
	if (why)
		*why = t->dw.why;
	return t->dw.kernel;
}

const Dwfl_Callbacks *dw_offline_callbacks(struct session *s)
{
	struct target *t = target_of(s);

	if (!t->dw.path) {
		t->dw.path = xasprintf(":.debug:%s", dw_debug_root(s));
		t->dw.offline = (Dwfl_Callbacks){
			.find_debuginfo = dwfl_standard_find_debuginfo,
			.section_address = dwfl_offline_section_address,
			.debuginfo_path = &t->dw.path,
		};
	}
	return &t->dw.offline;
}

Elf *elf_file_open(const char *path, int *fd)
{
	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY);
	return *fd >= 0 ? elf_begin(*fd, ELF_C_READ_MMAP, NULL) : NULL;
}

void elf_file_close(Elf *e, int fd)
{
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
}

bool elf_has_debug_info(const char *path)
{
	int fd;
	Elf *e = elf_file_open(path, &fd);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	if (e && elf_getshdrstrndx(e, &shstrndx) == 0)
		while (!found && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
			found = name && !strcmp(name, ".debug_info");
		}
	elf_file_close(e, fd);
	return found;
}

/* The module's debug .ko: same relative path as in /lib/modules, under
 * /usr/lib/debug/lib/modules; else the installed .ko (it may have DWARF). */
static char *module_debug_path(struct session *s, const char *module)
{
	char *ko = kernel_module_path(s, module);
	char *dbg;

	if (!ko)
		return NULL;
	dbg = kernel_module_debug_path(s, ko);
	if (!dbg)
		return ko;
	if (access(dbg, R_OK) == 0) {
		free(ko);
		return dbg;
	}
	free(dbg);
	return ko;
}

struct dw_image *dw_module(struct session *s, const char *module, const char **why)
{
	struct target *t = target_of(s);
	const char *rel = target_kernel(s)->release;
	char **last_why = &t->dw.module_why;
	char *path;

	if (strchr(module, '/') && !dw_is_header_module(module)) {
		/* a user file's (@cast(p, "struct x", "/usr/bin/prog"), @var) */
		char *uwhy = NULL, *upath = uimage_resolve(s, module, &uwhy);
		struct dw_image *u = upath ? dw_user(s, upath, why) : NULL;
		if (!upath)
			*why = t->dw.module_why = uwhy;
		free(upath);
		return u && u->dbg ? u : NULL;
	}
	for (int i = 0; i < t->dw.modules.len; i++)
		if (!strcmp(t->dw.modules.items[i]->module, module))
			return t->dw.modules.items[i];
	free(*last_why);
	*last_why = NULL;
	elf_version(EV_CURRENT);
	const Dwfl_Callbacks *callbacks = dw_offline_callbacks(s);
	bool headers = dw_is_header_module(module);
	path = headers ? dw_header_types_file(s, module, last_why) : module_debug_path(s, module);
	if (!path && headers) {
		*why = *last_why;
		return NULL;
	}
	if (!path) {
		*last_why = xasprintf("no module '%s' for kernel %s", module, rel);
		*why = *last_why;
		return NULL;
	}
	/* no DWARF installed: ask debuginfod by the module's build-id (here,
	 * not in libdwfl, so that a terminal shows the download) */
	const char *dwhy = "not asked";
	if (!headers && !elf_has_debug_info(path)) {
		char *id = elf_file_build_id(path), *what = xasprintf("module %s", module);
		char *got = id ? debuginfod_fetch(s, id, what, &dwhy) : NULL;
		if (!id)
			dwhy = "the module has no build-id";
		if (got) {
			free(path);
			path = got;
		}
		free(id);
		free(what);
	}
	if (headers)
		input_unkeyable(s, "@cast with C headers");
	else
		input_note(s, path);
	Dwfl *dwfl = dwfl_begin(callbacks);
	Dwfl_Module *mod = dwfl ? dwfl_report_offline(dwfl, module, path, -1) : NULL;
	Dwarf_Addr bias = 0;
	Dwarf *d = NULL;
	if (mod) {
		dwfl_report_end(dwfl, NULL, NULL);
		d = dwfl_module_getdwarf(mod, &bias);
	}
	if (!d) {
		*last_why = xasprintf("no debuginfo in %s for module '%s' (install linux-image-%s-dbg;"
				      " debuginfod: %s)", path, module, rel, dwhy);
		*why = *last_why;
		if (dwfl)
			dwfl_end(dwfl);
		free(path);
		return NULL;
	}
	if (headers) {   /* mapped now: the compiled file and its directory go */
		unlink(path);
		char *slash = strrchr(path, '/');
		if (slash) {
			*slash = 0;
			rmdir(path);
			*slash = '/';
		}
	}
	struct dw_image *img = xcalloc(1, sizeof(*img));
	img->path = path;
	img->module = xstrdup(module);
	img->dbg = d;
	img->bias = bias;
	img->dwfl = dwfl;
	img->mod = mod;
	vec_push(&t->dw.modules, img);
	return img;
}

void dw_module_close(struct session *s, struct dw_image *img)
{
	struct target *t = target_of(s);
	int n = 0;

	for (int i = 0; i < t->dw.modules.len; i++)
		if (t->dw.modules.items[i] != img)
			t->dw.modules.items[n++] = t->dw.modules.items[i];
	t->dw.modules.len = n;
	dw_type_cache_free(img->types);
	dw_aranges_free(img->aranges);
	dw_inline_index_free(img->inlines);
	free(img->ftrace_sites);
	dwfl_end(img->dwfl);
	free(img->path);
	free(img->module);
	free(img);
}

bool dw_image_read(struct dw_image *img, uint64_t addr, void *buf, size_t n)
{
	Elf *elf = dwarf_getelf(img->dbg);
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || addr < sh.sh_addr ||
		    addr + n > sh.sh_addr + sh.sh_size)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || addr - sh.sh_addr + n > d->d_size)
			return false;
		memcpy(buf, (char *)d->d_buf + (addr - sh.sh_addr), n);
		return true;
	}
	return false;
}

char *dw_image_string_at(struct dw_image *img, uint64_t ptr_addr)
{
	uint64_t p;
	char buf[128];

	if (!dw_image_read(img, ptr_addr, &p, 8))
		return NULL;
	for (size_t i = 0; i < sizeof(buf); i++) {
		if (!dw_image_read(img, p + i, &buf[i], 1))
			return NULL;
		if (!buf[i])
			return xstrdup(buf);
	}
	return NULL;
}
