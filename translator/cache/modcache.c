/* modcache.c - the module cache: a script built before runs again without
 * passes 1-4.
 *
 * SystemTap keys its cache after pass 2, so a hit still pays for parsing the
 * tapsets and reading the kernel's DWARF. cstap keys a run BEFORE pass 1, on
 * all that passes 1-4 read and that can be known up front:
 *   - the script: each file's name (it is in error messages and pp()) and
 *     text, -e and -E texts, the script arguments;
 *   - the options that change passes 1-4 (run_key lists them) and the
 *     environment variables they read;
 *   - the identity (size, mtime, inode) of the stap binary, of every runtime
 *     and tapset file, of the target kernel's image and its kbuild tree.
 * What passes 2-4 read beyond that (the kernel's and modules' debuginfo, the
 * programs process probes name, the symbol map) is noted as it is opened
 * (input_note, translator/inputs.c) and kept in the entry with each file's identity: a
 * lookup is a hit only if they are all still the same. A run whose inputs
 * cannot be listed so (a wildcard over files, @cast headers) is keyed after
 * pass 3 instead, on the C, the build flags and the kernel: its hit skips
 * pass 4 only.
 *
 * An entry is a directory ~/.cache/cstap/modules/<s|c><key>/ with NAME.ko,
 * NAME.c and `meta`: the module's name, what pass 5 needs from pass 2 (the
 * kernel modules the guest loads, the files process probes are on), the
 * inputs, and the diagnostics passes 1-4 printed (a hit prints them again,
 * so a cached run warns as the first one did). Entries are bounded by
 * modules/cache_mb_limit (MiB, default 256 as in SystemTap), the least
 * recently used removed first. --disable-cache skips all this.
 */
#include "modcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "diag.h"
#include "env.h"
#include "passes.h"
#include "build/recipe.h"
#include "target/kernel.h"

#define MODCACHE_VERSION "1"
#define DEFAULT_LIMIT_MB 256

/* "path size mtime.ns inode" of a file, "path -" if it is not there */
static void add_identity(struct strbuf *sb, const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		strbuf_addf(sb, "%s -\n", path);
	else
		strbuf_addf(sb, "%s %lld %lld.%09ld %llu\n", path, (long long)st.st_size,
			    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			    (unsigned long long)st.st_ino);
}

/* The identity of every file under dir (depth levels of subdirectories),
 * in name order. */
static void add_tree(struct strbuf *sb, const char *dir, int depth)
{
	strvec names = { 0 };

	if (!dir_entries(dir, &names)) {
		strbuf_addf(sb, "%s -\n", dir);
		return;
	}
	for (int i = 0; i < names.len; i++) {
		struct stat st;
		if (stat(names.items[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			if (depth > 0)
				add_tree(sb, names.items[i], depth - 1);
		} else {
			add_identity(sb, names.items[i]);
		}
		free(names.items[i]);
	}
	free(names.items);
}

static void add_field(struct strbuf *sb, const char *name, const char *value)
{
	strbuf_addf(sb, "%s=", name);
	if (value)
		strbuf_add(sb, value, strlen(value) + 1);   /* NUL: no value runs into the next */
	strbuf_addch(sb, '\n');
}

static void add_list(struct strbuf *sb, const char *name, char **items, int n)
{
	for (int i = 0; i < n; i++)
		add_field(sb, name, items[i]);
}

/* The environment variables passes 1-4 read (env.def): the cache's own
 * place and the programs of pass 5 do not change the module. */
static void add_environment(struct strbuf *sb)
{
	for (int v = 0; v < ENV_COUNT; v++) {
		switch (v) {
		case ENV_TMPDIR: case ENV_HOME: case ENV_XDG_CACHE_HOME: case ENV_CSTAP_STAPRUN:
		case ENV_CSTAP_STAPIO: case ENV_CSTAP_QEMU: case ENV_CSTAP_BUSYBOX: case ENV_CSTAP_NO_RECIPE:
			continue;
		}
		add_field(sb, env_name(v), env_get(v));
	}
}

static char *hex_key(char kind, const struct strbuf *sb)
{
	/* two FNV-1a hashes (the text, and the text reversed in blocks) make a
	 * 128-bit name: an accidental collision would run the wrong module */
	uint64_t a = hash64(sb->buf, sb->len);
	struct strbuf r = STRBUF_INIT;
	for (size_t i = sb->len; i > 0; i -= i > 64 ? 64 : i)
		strbuf_add(&r, sb->buf + (i > 64 ? i - 64 : 0), i > 64 ? 64 : i);
	uint64_t b = hash64(r.buf, r.len) ^ (uint64_t)sb->len;
	strbuf_release(&r);
	return xasprintf("%c%016llx%016llx", kind, (unsigned long long)a, (unsigned long long)b);
}

/* The key before pass 1 (see the top of the file); NULL if the run cannot
 * be keyed so (a script on stdin is read here and kept as -e text). */
static char *run_key(struct session *s)
{
	struct strbuf sb = STRBUF_INIT;
	char *tree = kbuild_tree_stamp(s->kernel_build);

	if (!tree)
		return NULL;
	strbuf_addstr(&sb, "cstap-modcache " MODCACHE_VERSION "\n");
	add_identity(&sb, "/proc/self/exe");
	add_tree(&sb, s->runtime_dir, 3);
	for (int i = 0; i < s->include_dirs.len; i++)
		add_tree(&sb, s->include_dirs.items[i], 2);
	for (int i = 0; i < s->script_files.len; i++) {
		size_t len;
		char *text = read_file(s->script_files.items[i], &len);
		if (!text) {
			strbuf_release(&sb);
			free(tree);
			return NULL;   /* pass 1 says why */
		}
		add_field(&sb, "file", s->script_files.items[i]);
		strbuf_addf(&sb, "%zu:", len);
		strbuf_add(&sb, text, len);
		free(text);
	}
	add_field(&sb, "text", s->script_text);
	add_list(&sb, "extra", s->extra_scripts.items, s->extra_scripts.len);
	add_list(&sb, "arg", s->args.items, s->args.len);
	/* the options passes 1-4 read */
	strbuf_addf(&sb, "flags=%d%d%d%d%d%d%d%d%d%d%d\n", s->guru, s->skip_badvars, s->no_time_limits,
		    s->keep_unused, s->suppress_warnings, s->warnings_are_errors, s->check_version,
		    s->timing, s->ldd, s->all_modules, s->suppress_handler_errors);
	add_field(&sb, "module", s->module_name_given ? s->module_name : NULL);
	add_field(&sb, "cmd", s->cmd);
	strbuf_addf(&sb, "pid=%ld\n", s->target_pid);
	add_list(&sb, "define", s->defines.items, s->defines.len);
	add_list(&sb, "kbuild", s->kbuild_vars.items, s->kbuild_vars.len);
	add_list(&sb, "global", s->globals_set.items, s->globals_set.len);
	add_list(&sb, "unwind", s->unwind_files.items, s->unwind_files.len);
	add_field(&sb, "compatible", s->compatible);
	strbuf_addf(&sb, "privilege=%d\n", (int)s->privilege);
	add_field(&sb, "arch", s->arch);
	add_field(&sb, "release", s->kernel_release);
	add_field(&sb, "kbuild", tree);
	add_field(&sb, "sysroot", s->sysroot);
	add_list(&sb, "sysenv", s->sysenv.items, s->sysenv.len);
	add_identity(&sb, target_kernel(s)->image);
	add_environment(&sb);
	char *key = hex_key('s', &sb);
	strbuf_release(&sb);
	free(tree);
	return key;
}

/* ~/.cache/cstap/modules, created; NULL without a home */
static char *modules_dir(void)
{
	char *dir = cache_dir(), *m;

	if (!dir)
		return NULL;
	m = xasprintf("%s/modules", dir);
	free(dir);
	if (mkdir(m, 0755) < 0 && errno != EEXIST) {
		free(m);
		return NULL;
	}
	return m;
}

struct entry {
	char *dir;            /* the entry's directory */
	char *name;           /* the module's name */
	strvec modules, files, inputs;
	struct strbuf diags;
};

static void entry_free(struct entry *e)
{
	free(e->dir);
	free(e->name);
	for (int i = 0; i < e->modules.len; i++) free(e->modules.items[i]);
	for (int i = 0; i < e->files.len; i++) free(e->files.items[i]);
	for (int i = 0; i < e->inputs.len; i++) free(e->inputs.items[i]);
	free(e->modules.items);
	free(e->files.items);
	free(e->inputs.items);
	strbuf_release(&e->diags);
}

/* Read dir/meta: "name N", "module M", "file F", "input IDENTITY", then
 * "diags" and the diagnostics' text to the end. false: no usable entry. */
static bool entry_read(const char *dir, struct entry *e)
{
	char *path = xasprintf("%s/meta", dir);
	char *text = read_file(path, NULL);

	free(path);
	memset(e, 0, sizeof(*e));
	strbuf_init(&e->diags);
	e->dir = xstrdup(dir);
	if (!text || strncmp(text, "cstap-modcache " MODCACHE_VERSION "\n", 17)) {
		free(text);
		return false;
	}
	for (char *l = strchr(text, '\n') + 1; l && *l;) {
		char *nl = strchr(l, '\n');
		if (!strncmp(l, "diags\n", 6)) {
			strbuf_addstr(&e->diags, l + 6);
			break;
		}
		if (nl)
			*nl = 0;
		if (!strncmp(l, "name ", 5)) e->name = xstrdup(l + 5);
		else if (!strncmp(l, "module ", 7)) vec_push(&e->modules, xstrdup(l + 7));
		else if (!strncmp(l, "file ", 5)) vec_push(&e->files, xstrdup(l + 5));
		else if (!strncmp(l, "input ", 6)) vec_push(&e->inputs, xstrdup(l + 6));
		l = nl ? nl + 1 : NULL;
	}
	free(text);
	return e->name != NULL;
}

/* Is every input of the entry the file it was? */
static bool inputs_unchanged(const struct entry *e)
{
	for (int i = 0; i < e->inputs.len; i++) {
		const char *id = e->inputs.items[i];
		char *path = xstrndup(id, strcspn(id, " "));
		struct strbuf now = STRBUF_INIT;
		add_identity(&now, path);
		bool same = now.len == strlen(id) + 1 && !strncmp(now.buf, id, now.len - 1);
		strbuf_release(&now);
		free(path);
		if (!same)
			return false;
	}
	return true;
}

/* A module of that name is loaded here (another run of the same cached
 * module): this run must build one of its own. */
static bool module_loaded(const char *name)
{
	char *p = xasprintf("/sys/module/%s", name);
	bool yes = access(p, F_OK) == 0;

	free(p);
	return yes;
}

/* The entry key names, if it is usable now: its module becomes this run's. */
static bool use_entry(struct session *s, const char *key, int pass)
{
	char *top = modules_dir();
	struct entry e;

	if (!top)
		return false;
	char *dir = xasprintf("%s/%s", top, key);
	free(top);
	bool ok = entry_read(dir, &e) && inputs_unchanged(&e) && !module_loaded(e.name) &&
		  (!s->module_name_given || !strcmp(e.name, s->module_name));
	char *ko = ok ? xasprintf("%s/%s.ko", dir, e.name) : NULL;
	if (ok && access(ko, R_OK) != 0)
		ok = false;
	if (ok) {
		s->cache_hit = true;
		s->module_name = xstrdup(e.name);
		s->ko_file = ko;
		s->c_file = xasprintf("%s/%s.c", dir, e.name);
		for (int i = 0; i < e.modules.len; i++)
			vec_push(&s->run_modules, xstrdup(e.modules.items[i]));
		for (int i = 0; i < e.files.len; i++)
			vec_push(&s->run_files, xstrdup(e.files.items[i]));
		if (pass == 3)
			fputs(e.diags.buf, stderr);   /* what passes 1-2 said the first time */
		utimensat(AT_FDCWD, dir, NULL, 0);   /* used: last to be evicted */
		if (s->verbose >= 1) {
			if (pass == 3)
				fprintf(stderr, "Pass 3: using cached %s\n", s->c_file);
			fprintf(stderr, "Pass 4: using cached %s\n", s->ko_file);
		}
	} else {
		free(ko);
	}
	entry_free(&e);
	free(dir);
	return ok;
}

int modcache_lookup(struct session *s)
{
	if (s->no_cache || s->last_pass < 4 || s->list_mode || s->dump)
		return 0;
	if (s->script_files.len == 1 && !strcmp(s->script_files.items[0], "-")) {
		size_t len;
		char *text = read_file("/dev/stdin", &len);
		if (!text)
			return 0;   /* pass 1 reports it */
		s->script_text = text;
		s->script_files.len = 0;
	}
	for (int i = 0; i < s->script_files.len; i++)
		if (!strcmp(s->script_files.items[i], "-"))
			return 0;
	s->cache_key = run_key(s);
	if (!s->cache_key)
		return 0;
	if (use_entry(s, s->cache_key, 3))
		return 1;
	s->cache_diags = xcalloc(1, sizeof(*s->cache_diags));
	strbuf_init(s->cache_diags);
	diag_capture(s->cache_diags);
	return 0;
}

/* The key after pass 3: the C, what kbuild is given and the kernel. */
static char *c_key(struct session *s)
{
	struct strbuf sb = STRBUF_INIT;
	size_t len;
	char *c = read_file(s->c_file, &len), *tree = kbuild_tree_stamp(s->kernel_build);

	if (!c || !tree) {
		free(c);
		free(tree);
		return NULL;
	}
	strbuf_addstr(&sb, "cstap-modcache-c " MODCACHE_VERSION "\n");
	add_identity(&sb, "/proc/self/exe");   /* its kernel feature tests (kfeatures.c) */
	strbuf_add(&sb, c, len);
	free(c);
	add_tree(&sb, s->runtime_dir, 3);
	add_field(&sb, "module", s->module_name_given ? s->module_name : NULL);
	add_list(&sb, "define", s->defines.items, s->defines.len);
	add_list(&sb, "kbuild-var", s->kbuild_vars.items, s->kbuild_vars.len);
	add_field(&sb, "kbuild", tree);
	free(tree);
	char *key = hex_key('c', &sb);
	strbuf_release(&sb);
	return key;
}

int modcache_lookup_c(struct session *s)
{
	if (s->no_cache)
		return 0;
	s->cache_c_key = c_key(s);
	if (!s->cache_c_key)
		return 0;
	const char *c_file = s->c_file;
	if (!use_entry(s, s->cache_c_key, 4))
		return 0;
	s->c_file = (char *)c_file;   /* this run's C, identical */
	return 1;
}

static void rm_entry(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (d) {
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
				char *p = xasprintf("%s/%s", dir, de->d_name);
				unlink(p);
				free(p);
			}
		closedir(d);
	}
	rmdir(dir);
}

/* One entry: NAME.ko, NAME.c and meta written in a fresh directory, renamed
 * into place (a concurrent run sees all of it or none). */
static void store_entry(struct session *s, const char *top, const char *key, bool with_inputs)
{
	struct strbuf meta = STRBUF_INIT;
	char *tmp = xasprintf("%s/.new-%s-%d", top, key, (int)getpid());
	char *dir = xasprintf("%s/%s", top, key);
	strvec mods = { 0 }, files = { 0 };

	if (mkdir(tmp, 0755) < 0)
		goto out;
	char *ko = xasprintf("%s/%s.ko", tmp, s->module_name), *c = xasprintf("%s/%s.c", tmp, s->module_name);
	bool ok = copy_file(s->ko_file, ko) == 0 && copy_file(s->c_file, c) == 0;
	free(ko);
	free(c);
	run_guest_inputs(s, &mods, &files);
	strbuf_addf(&meta, "cstap-modcache " MODCACHE_VERSION "\nname %s\n", s->module_name);
	for (int i = 0; i < mods.len; i++)
		strbuf_addf(&meta, "module %s\n", mods.items[i]);
	for (int i = 0; i < files.len; i++)
		strbuf_addf(&meta, "file %s\n", files.items[i]);
	for (int i = 0; with_inputs && i < s->inputs.len; i++) {
		strbuf_addstr(&meta, "input ");
		add_identity(&meta, s->inputs.items[i]);
	}
	strbuf_addstr(&meta, "diags\n");
	if (s->cache_diags)
		strbuf_add(&meta, s->cache_diags->buf, s->cache_diags->len);
	char *mpath = xasprintf("%s/meta", tmp);
	ok = ok && write_file(mpath, meta.buf, meta.len) == 0;
	free(mpath);
	if (ok) {
		rm_entry(dir);   /* a stale entry of the same key (an input changed) */
		ok = rename(tmp, dir) == 0;
	}
	if (!ok)
		rm_entry(tmp);
out:
	free(mods.items);
	free(files.items);
	strbuf_release(&meta);
	free(tmp);
	free(dir);
}

struct sized {
	char *dir;
	long long bytes;
	time_t used;
};

static int oldest_first(const void *a, const void *b)
{
	const struct sized *x = a, *y = b;

	return (x->used > y->used) - (x->used < y->used);
}

/* modules/cache_mb_limit, else the default */
static long long limit_bytes(const char *top)
{
	char *p = xasprintf("%s/cache_mb_limit", top);
	char *text = read_file(p, NULL);
	long long mb = text ? atoll(text) : DEFAULT_LIMIT_MB;

	free(p);
	free(text);
	return (mb > 0 ? mb : DEFAULT_LIMIT_MB) * 1024 * 1024;
}

/* Remove the least recently used entries until the cache fits its limit
 * (keep: an entry never removed, the one just stored). */
static void trim(const char *top, const char *keep, int verbose)
{
	DIR *d = opendir(top);
	struct dirent *de;
	VEC(struct sized) v = { 0 };
	long long total = 0, limit = limit_bytes(top);

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!strncmp(de->d_name, ".new-", 5)) {   /* left by a run that died storing */
			char *p = xasprintf("%s/%s", top, de->d_name);
			struct stat st;
			if (stat(p, &st) == 0 && time(NULL) - st.st_mtime > 3600)
				rm_entry(p);
			free(p);
			continue;
		}
		if (de->d_name[0] != 's' && de->d_name[0] != 'c')
			continue;
		struct sized e = { xasprintf("%s/%s", top, de->d_name), 0, 0 };
		struct stat st;
		DIR *ed = opendir(e.dir);
		struct dirent *f;
		if (stat(e.dir, &st) == 0)
			e.used = st.st_mtime;
		while (ed && (f = readdir(ed))) {
			char *p = xasprintf("%s/%s", e.dir, f->d_name);
			if (f->d_name[0] != '.' && stat(p, &st) == 0)
				e.bytes += st.st_size;
			free(p);
		}
		if (ed)
			closedir(ed);
		total += e.bytes;
		vec_push(&v, e);
	}
	closedir(d);
	if (v.len)
		qsort(v.items, (size_t)v.len, sizeof(v.items[0]), oldest_first);
	for (int i = 0; i < v.len; i++) {
		const char *base = strrchr(v.items[i].dir, '/') + 1;
		if (total > limit && !(keep && !strcmp(base, keep))) {
			if (verbose >= 2)
				fprintf(stderr, "stap: cache: removing %s (%lld bytes)\n", v.items[i].dir,
					v.items[i].bytes);
			rm_entry(v.items[i].dir);
			total -= v.items[i].bytes;
		}
		free(v.items[i].dir);
	}
	free(v.items);
}

void modcache_store(struct session *s)
{
	diag_capture(NULL);
	if (s->no_cache || s->cache_hit || !s->ko_file || !s->c_file)
		return;
	char *top = modules_dir();
	if (!top)
		return;
	if (s->cache_key && !s->inputs_unkeyable)
		store_entry(s, top, s->cache_key, true);
	else if (s->cache_key && s->verbose >= 2)
		fprintf(stderr, "stap: cache: the module is kept by its C only: %s\n", s->inputs_unkeyable);
	if (s->cache_c_key)
		store_entry(s, top, s->cache_c_key, false);
	trim(top, s->cache_key && !s->inputs_unkeyable ? s->cache_key : s->cache_c_key, s->verbose);
	free(top);
}

int modcache_clean(struct session *s)
{
	char *top = modules_dir();

	if (!top) {
		diag(s, O_USAGE, (struct srcpos){0}, "no cache directory (HOME and XDG_CACHE_HOME are unset)");
		return 1;
	}
	trim(top, NULL, s->verbose + 2);
	free(top);
	return 0;
}
