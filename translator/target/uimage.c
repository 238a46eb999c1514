/* uimage.c - user-space ELF files of process probes (see uimage.h). */
#include "uimage.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <glob.h>
#include <sys/stat.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debuginfod.h"
#include "env.h"
#include "inputs.h"
#include "kimage.h"
#include "spawn.h"
#include "sysroot.h"
#include "target.h"

/* Is the target's file there, readable (X_OK: runnable) here? */
static bool target_access(struct session *s, const char *path, int mode)
{
	char *host = sysroot_host(s, path);
	bool ok = access(host, mode) == 0;

	free(host);
	return ok;
}

char *uimage_resolve(struct session *s, const char *arg, char **why)
{
	char *real;

	if (!*arg) {
		*why = xstrdup("empty process name");
		return NULL;
	}
	if (strchr(arg, '/')) {
		char *rwhy = NULL;
		if ((real = sysroot_realpath(s, arg, &rwhy)) && target_access(s, real, R_OK)) {
			free(rwhy);
			return real;
		}
		free(real);
		*why = s->sysroot && rwhy ? rwhy : xasprintf("cannot find executable '%s'", arg);
		if (*why != rwhy)
			free(rwhy);
		return NULL;
	}
	/* a bare name: the first executable of that name on the target's $PATH */
	const char *path = sysroot_env(s, "PATH");
	if (!path)
		path = env_or(ENV_PATH, "/usr/local/bin:/usr/bin:/bin");
	for (const char *p = path; *p; ) {
		size_t n = strcspn(p, ":");
		char *cand = xasprintf("%.*s/%s", (int)n, n ? p : ".", arg), *rwhy = NULL;
		real = sysroot_realpath(s, cand, &rwhy);
		free(cand);
		free(rwhy);
		if (real && target_access(s, real, X_OK))
			return real;
		free(real);
		p += n + (p[n] == ':');
	}
	*why = xasprintf("cannot find executable '%s' on $PATH", arg);
	return NULL;
}

static bool has_path(const strvec *v, const char *path)
{
	for (int k = 0; k < v->len; k++)
		if (!strcmp(v->items[k], path))
			return true;
	return false;
}

/* Add the (allocated) path once. */
static void add_path(strvec *out, char *path)
{
	if (has_path(out, path))
		free(path);
	else
		vec_push(out, path);
}

/* Does path start as an ELF file does? A glob's match that does not (a
 * linker script named libc.so, a text file) is no program to probe. */
static bool looks_elf(const char *path)
{
	char magic[4];
	FILE *f = fopen(path, "rb");
	bool elf = f && fread(magic, 1, 4, f) == 4 && !memcmp(magic, "\177ELF", 4);

	if (f)
		fclose(f);
	return elf;
}

void uimage_glob(struct session *s, const char *pattern, strvec *out)
{
	char *host_pattern = sysroot_host(s, pattern);
	size_t root = strlen(sysroot_dir(s));
	glob_t g;

	if (glob(host_pattern, 0, NULL, &g) != 0) {
		free(host_pattern);
		return;
	}
	free(host_pattern);
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct stat st;
		char *why = NULL, *real;
		if (stat(g.gl_pathv[i], &st) || !S_ISREG(st.st_mode) || !looks_elf(g.gl_pathv[i]) ||
		    !(real = sysroot_realpath(s, g.gl_pathv[i] + root, &why))) {
			free(why);
			continue;
		}
		add_path(out, real);
	}
	globfree(&g);
}

/* The library name as the target's loader finds it on dirs (a
 * colon-separated list; $ORIGIN is the directory of the object that
 * needs it): its target path, or NULL. */
static char *find_library(struct session *s, const char *name, const char *dirs, const char *origin)
{
	char *real = NULL;

	for (const char *p = dirs; *p && !real; ) {
		size_t l = strcspn(p, ":");
		char *why = NULL, *cand = NULL;

		if (l && !strncmp(p, "$ORIGIN", 7))
			cand = xasprintf("%s%.*s/%s", origin, (int)l - 7, p + 7, name);
		else if (l)
			cand = xasprintf("%.*s/%s", (int)l, p, name);
		if (cand && cand[0] == '/' && (real = sysroot_realpath(s, cand, &why)) &&
		    !target_access(s, real, R_OK)) {
			free(real);
			real = NULL;
		}
		free(why);
		free(cand);
		p += l + (p[l] == ':');
	}
	return real;
}

/* Under a sysroot ldd would ask this system's loader: follow the
 * DT_NEEDED entries instead, looked up as the target's loader would
 * (--sysenv's LD_LIBRARY_PATH, DT_RUNPATH/DT_RPATH with $ORIGIN, the
 * usual directories), breadth first, each library once. */
static void needed_libraries(struct session *s, const char *exe, strvec *found)
{
	strvec todo = { 0 };
	static const char *const std_dirs = "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:/lib:/usr/lib";

	vec_push(&todo, xstrdup(exe));
	for (int t = 0; t < todo.len; t++) {
		char *host = sysroot_host(s, todo.items[t]);
		int fd;
		Elf *e = elf_file_open(host, &fd);
		Elf_Scn *scn = NULL;
		GElf_Shdr sh;
		strvec needed = { 0 };
		char *runpath = NULL;

		free(host);
		while (e && (scn = elf_nextscn(e, scn)))
			if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNAMIC) {
				Elf_Data *d = elf_getdata(scn, NULL);
				GElf_Dyn dyn;
				for (int i = 0; d && gelf_getdyn(d, i, &dyn); i++) {
					const char *str = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
					if (str && dyn.d_tag == DT_NEEDED)
						vec_push(&needed, xstrdup(str));
					else if (str && (dyn.d_tag == DT_RUNPATH || dyn.d_tag == DT_RPATH) && !runpath)
						runpath = xstrdup(str);
				}
			}
		elf_file_close(e, fd);
		char *origin = xstrdup(todo.items[t]);
		*strrchr(origin, '/') = 0;
		const char *env = sysroot_env(s, "LD_LIBRARY_PATH");
		struct strbuf dirs = STRBUF_INIT;
		strbuf_addf(&dirs, "%s:%s:%s", env ? env : "", runpath ? runpath : "", std_dirs);
		for (int n = 0; n < needed.len; n++) {
			char *real = find_library(s, needed.items[n], dirs.buf, origin);
			if (real && !has_path(&todo, real)) {
				vec_push(&todo, real);
				vec_push(found, xstrdup(real));
			} else {
				free(real);
			}
			free(needed.items[n]);
		}
		free(needed.items);
		strbuf_release(&dirs);
		free(runpath);
		free(origin);
	}
	for (int t = 0; t < todo.len; t++)
		free(todo.items[t]);
	free(todo.items);
}

void uimage_libraries(struct session *s, const char *exe, const char *lib, strvec *out)
{
	char buf[PATH_MAX];

	if (lib[0] == '/') {
		char *why = NULL, *real = sysroot_realpath(s, lib, &why);
		if (real)
			vec_push(out, real);
		free(why);
		return;
	}
	if (s->sysroot) {
		strvec libs = { 0 };
		needed_libraries(s, exe, &libs);
		for (int i = 0; i < libs.len; i++) {
			const char *base = strrchr(libs.items[i], '/') + 1;
			if (fnmatch(lib, libs.items[i], 0) == 0 || fnmatch(lib, base, 0) == 0)
				add_path(out, libs.items[i]);
			else
				free(libs.items[i]);
		}
		free(libs.items);
		return;
	}
	char *argv[] = { (char *)"ldd", (char *)exe, NULL };
	char *text = spawn_capture(argv, NULL, false);
	/* "\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" and the
	 * loader's "\t/lib64/ld-linux-x86-64.so.2 (0x...)" */
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		char *arrow = strstr(line, "=> "), *p = arrow ? arrow + 3 : line + strspn(line, " \t");
		if (*p != '/')
			continue;
		p[strcspn(p, " (")] = 0;
		const char *base = strrchr(p, '/') + 1;
		if ((fnmatch(lib, p, 0) == 0 || fnmatch(lib, base, 0) == 0) && realpath(p, buf))
			add_path(out, xstrdup(buf));
	}
	free(text);
}

struct dw_image *dw_user(struct session *s, const char *path, const char **why)
{
	struct target *t = target_of(s);

	for (int i = 0; i < t->dw.users.len; i++)
		if (!strcmp(t->dw.users.items[i]->user, path)) {
			/* this file's why, not the last one opened */
			struct dw_image *img = t->dw.users.items[i];
			free(t->dw.user_why);
			t->dw.user_why = img->dbg ? NULL : xasprintf("no debuginfo for %s", path);
			*why = t->dw.user_why;
			return img;
		}
	elf_version(EV_CURRENT);
	char *host = sysroot_host(s, path);   /* read here; path is the target's */
	input_note(s, host);
	Dwfl *dwfl = dwfl_begin(dw_offline_callbacks(s));
	Dwfl_Module *mod = dwfl ? dwfl_report_offline(dwfl, path, host, -1) : NULL;
	if (!mod) {
		free(host);
		free(t->dw.user_why);
		t->dw.user_why = xasprintf("cannot read %s as an ELF file: %s", path, dwfl_errmsg(-1));
		*why = t->dw.user_why;
		if (dwfl)
			dwfl_end(dwfl);
		return NULL;
	}
	dwfl_report_end(dwfl, NULL, NULL);
	struct dw_image *img = xcalloc(1, sizeof(*img));
	img->path = host;
	img->user = xstrdup(path);
	img->dwfl = dwfl;
	img->mod = mod;
	img->dbg = dwfl_module_getdwarf(mod, &img->bias);
	const char *dwhy = "not asked";
	if (!img->dbg) {   /* none installed: debuginfod by build-id */
		char *id = elf_file_build_id(host);
		char *got = id ? debuginfod_fetch(s, id, path, &dwhy) : NULL;
		if (!id)
			dwhy = "the file has no build-id";
		if (got && elf_has_debug_info(got)) {   /* its symbols and DWARF */
			Dwfl *d2 = dwfl_begin(dw_offline_callbacks(s));
			Dwfl_Module *m2 = d2 ? dwfl_report_offline(d2, path, got, -1) : NULL;
			if (m2) {
				dwfl_report_end(d2, NULL, NULL);
				img->dbg = dwfl_module_getdwarf(m2, &img->bias);
			}
			if (img->dbg) {
				dwfl_end(dwfl);
				img->dwfl = d2;
				img->mod = m2;
			} else if (d2) {
				dwfl_end(d2);
			}
		}
		free(got);
		free(id);
	}
	free(t->dw.user_why);
	t->dw.user_why = img->dbg ? NULL : xasprintf("no debuginfo for %s (debuginfod: %s)", path, dwhy);
	*why = t->dw.user_why;
	vec_push(&t->dw.users, img);
	uimage_add_file(s, path);
	return img;
}

bool uimage_file_offset(struct dw_image *img, uint64_t vaddr, uint64_t *off)
{
	int fd;   /* the file itself, not its debuginfo */
	Elf *e = elf_file_open(img->path, &fd);
	size_t n;
	bool found = false;

	if (e && elf_getphdrnum(e, &n) == 0)
		for (size_t i = 0; i < n && !found; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD ||
			    vaddr < ph.p_vaddr || vaddr >= ph.p_vaddr + ph.p_filesz)
				continue;
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			found = true;
		}
	elf_file_close(e, fd);
	return found;
}

bool uimage_is_dyn(struct dw_image *img)
{
	GElf_Addr bias;
	Elf *e = dwfl_module_getelf(img->mod, &bias);
	GElf_Ehdr eh;

	return e && gelf_getehdr(e, &eh) && eh.e_type == ET_DYN;
}

bool uimage_is_entry(struct dw_image *img, uint64_t vaddr)
{
	GElf_Addr bias;
	Elf *e = dwfl_module_getelf(img->mod, &bias);
	GElf_Ehdr eh;

	return e && gelf_getehdr(e, &eh) && eh.e_entry && eh.e_entry == vaddr;
}

static int cmp_usym(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->addr > y->addr) - (x->addr < y->addr);
}

void uimage_each_symbol(struct dw_image *img, uimage_sym_fn *fn, void *ctx)
{
	int n = dwfl_module_getsymtab(img->mod);
	GElf_Addr elf_bias;

	dwfl_module_getelf(img->mod, &elf_bias);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(img->mod, i, &sym, &addr, NULL, NULL, NULL);
		if (name && *name && sym.st_shndx != SHN_UNDEF && sym.st_value)
			fn(name, &sym, addr - elf_bias, ctx);
	}
}

struct func_match {
	const char *pattern;
	usymvec *out;
	int first;
};

static void add_function(const char *name, const GElf_Sym *sym, uint64_t addr, void *ctx)
{
	struct func_match *m = ctx;

	if (GELF_ST_TYPE(sym->st_info) != STT_FUNC || fnmatch(m->pattern, name, 0) != 0)
		return;
	for (int k = m->first; k < m->out->len; k++)   /* .symtab and .dynsym both name it */
		if (m->out->items[k].addr == addr && !strcmp(m->out->items[k].name, name))
			return;
	vec_push(m->out, ((struct usym){ addr, xstrdup(name) }));
}

void uimage_functions(struct dw_image *img, const char *pattern, usymvec *out)
{
	struct func_match m = { pattern, out, out->len };

	uimage_each_symbol(img, add_function, &m);
	if (out->len - m.first > 1)
		qsort(out->items + m.first, out->len - m.first, sizeof(struct usym), cmp_usym);
}

const strvec *uimage_files(struct session *s)
{
	return &target_of(s)->dw.user_files;
}

/* The name of a dynamic symbol without its version ("printf@GLIBC_2.2.5"
 * is read as "printf"). */
static char *unversioned(const char *name)
{
	return xstrndup(name, strcspn(name, "@"));
}

void uimage_plt(struct dw_image *img, const char *pattern, usymvec *out)
{
	int fd;
	Elf *e = elf_file_open(img->path, &fd);
	Elf_Scn *scn = NULL, *rela = NULL;
	GElf_Addr plt = 0, plt_sec = 0;
	size_t shstrndx;
	int first = out->len;

	if (!e || elf_getshdrstrndx(e, &shstrndx) != 0)
		goto done;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
		if (!n)
			continue;
		if (!strcmp(n, ".rela.plt"))
			rela = scn;
		else if (!strcmp(n, ".plt"))
			plt = sh.sh_addr;
		else if (!strcmp(n, ".plt.sec"))
			plt_sec = sh.sh_addr;
	}
	GElf_Shdr rsh;
	if (!rela || !plt || !gelf_getshdr(rela, &rsh))
		goto done;
	Elf_Scn *symscn = elf_getscn(e, rsh.sh_link);
	GElf_Shdr ssh;
	Elf_Data *rd = elf_getdata(rela, NULL), *sd = symscn ? elf_getdata(symscn, NULL) : NULL;
	if (!rd || !sd || !gelf_getshdr(symscn, &ssh) || !rsh.sh_entsize)
		goto done;
	/* entry i of .rela.plt is PLT entry i: in .plt.sec (IBT), else after
	 * .plt's first entry; 16 bytes each on x86-64 */
	for (size_t i = 0; i < rsh.sh_size / rsh.sh_entsize; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		const char *name;
		if (!gelf_getrela(rd, (int)i, &r))
			continue;
		/* an IRELATIVE slot (libc's ifuncs) calls no named function: "",
		 * as SystemTap lists it */
		name = "";
		if (GELF_R_TYPE(r.r_info) == R_X86_64_JUMP_SLOT &&
		    (!gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym) ||
		     !(name = elf_strptr(e, ssh.sh_link, sym.st_name))))
			continue;
		char *base = unversioned(name);
		if (fnmatch(pattern, base, 0) != 0) {
			free(base);
			continue;
		}
		uint64_t addr = plt_sec ? plt_sec + 16 * i : plt + 16 * (i + 1);
		vec_push(out, ((struct usym){ addr, base }));
	}
	if (out->len - first > 1)
		qsort(out->items + first, out->len - first, sizeof(struct usym), cmp_usym);
done:
	elf_file_close(e, fd);
}

void uimage_add_file(struct session *s, const char *path)
{
	strvec *files = &target_of(s)->dw.user_files;

	for (int i = 0; i < files->len; i++)
		if (!strcmp(files->items[i], path))
			return;
	vec_push(files, xstrdup(path));
}
