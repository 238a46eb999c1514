/* kernel.c - the target kernel's facts, found once per run (see .h). */
#include "kernel.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "env.h"
#include "spawn.h"
#include "releases.h"
#include "sysroot.h"
#include "target.h"

/* A kernel without /proc/modules, or with modules_disabled set, cannot
 * run our module: pass 5 then boots the target kernel in a guest. */
bool host_can_load_modules(void)
{
	char buf[8] = "";
	FILE *f;

	if (access("/proc/modules", F_OK) != 0)
		return false;
	f = fopen("/proc/sys/kernel/modules_disabled", "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	return buf[0] != '1';
}

/* Decided on the first call (s->kernel_release holds -r by then), so that
 * every pass agrees on the kernel and nobody asks uname again. */
const struct target_kernel *target_kernel(struct session *s)
{
	struct target *t = target_of(s);
	struct target_kernel *k = &t->kernel;
	struct utsname u;

	if (t->kernel_known)
		return k;
	t->kernel_known = true;
	if (uname(&u) == 0)
		k->host_release = xstrdup(u.release);
	k->host_loads_modules = host_can_load_modules();
	k->release = s->kernel_release ? s->kernel_release : env_get(ENV_CSTAP_RELEASE);
	if ((!k->release || !*k->release) && s->sysroot)
		k->release = releases_newest(s->sysroot);
	else if (!k->release || !*k->release)   /* BPF runs here whether or not modules load */
		k->release = k->host_loads_modules || (s->runtime_bpf && !s->remote) ?
			     (k->host_release ? k->host_release : "") : releases_default();
	if (!k->release)
		return k;
	/* a system under a sysroot is not this one, whatever its release */
	k->running = !s->sysroot && k->host_release && !strcmp(k->host_release, k->release);
	k->modules = xasprintf("%s/lib/modules/%s", sysroot_dir(s), k->release);
	k->build = xasprintf("%s/build", k->modules);
	k->image = xasprintf("%s/boot/vmlinuz-%s", sysroot_dir(s), k->release);
	k->debug_root = xasprintf("%s%s", sysroot_dir(s), env_or(ENV_CSTAP_DEBUGINFO_DIR, "/usr/lib/debug"));
	return k;
}

const char *kernel_config_text(struct session *s)
{
	struct target *t = target_of(s);
	const struct target_kernel *k = target_kernel(s);

	if (t->config_read)
		return t->config;
	t->config_read = true;
	if (k->build) {
		char *path = xasprintf("%s/.config", k->build);
		t->config = read_file(path, NULL);
		free(path);
	}
	if (!t->config && k->release) {
		char *path = xasprintf("%s/boot/config-%s", sysroot_dir(s), k->release);
		t->config = read_file(path, NULL);
		free(path);
	}
	if (!t->config && k->running && access("/proc/config.gz", R_OK) == 0) {
		char *argv[] = { (char *)"gzip", (char *)"-dcq", (char *)"/proc/config.gz", NULL };
		size_t n = 0;
		t->config = spawn_capture(argv, &n, false);
	}
	return t->config;
}

bool kernel_config_is(struct session *s, const char *name, const char *value)
{
	const char *text = kernel_config_text(s);
	char *v = text ? config_value(text, name) : NULL;
	bool is = v && !strcmp(v, value);

	free(v);
	return is;
}

void target_kernel_retarget(struct session *s, const char *release)
{
	struct target *t = target_of(s);

	memset(&t->kernel, 0, sizeof(t->kernel));
	t->kernel_known = false;
	free(t->config);
	t->config = NULL;
	t->config_read = false;
	s->kernel_release = release;
	s->kernel_build = target_kernel(s)->build;
}

/* The -dbg packages and $CSTAP_DEBUGINFO_DIR mirror the target's files. */
const char *dw_debug_root(struct session *s)
{
	const char *r = target_kernel(s)->debug_root;

	return r ? r : env_or(ENV_CSTAP_DEBUGINFO_DIR, "/usr/lib/debug");
}

/* "xfs" and "nf-nat" name the same modules as "xfs.ko" and "nf_nat.ko". */
bool kernel_same_module(const char *a, const char *b)
{
	return module_name_eq(a, strlen(a), b);
}

/* Call fn(path, name, priv) for each module of modules.dep: its path
 * relative to /lib/modules/REL and its name ("nf_nat"), until fn returns
 * true. */
static void each_module(struct session *s, bool (*fn)(const char *path, const char *name, void *priv),
			void *priv)
{
	char *dep = xasprintf("%s/modules.dep", target_kernel(s)->modules);
	FILE *f = fopen(dep, "r");
	char line[4096], name[256];

	free(dep);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		char *base = strrchr(line, '/');
		base = base ? base + 1 : line;
		char *dot = strstr(base, ".ko");
		if (!dot || (size_t)(dot - base) >= sizeof(name))
			continue;
		for (size_t i = 0; i < (size_t)(dot - base); i++)
			name[i] = base[i] == '-' ? '_' : base[i];
		name[dot - base] = 0;
		if (fn(line, name, priv))
			break;
	}
	fclose(f);
}

struct module_find {
	const char *want;
	char *path;
};

static bool find_module(const char *path, const char *name, void *priv)
{
	struct module_find *m = priv;

	if (!kernel_same_module(name, m->want))
		return false;
	m->path = xstrdup(path);
	return true;
}

/* The path of module m's .ko under /lib/modules/REL, from modules.dep. */
char *kernel_module_path(struct session *s, const char *m)
{
	struct module_find mf = { .want = m };

	each_module(s, find_module, &mf);
	if (!mf.path)
		return NULL;
	char *full = xasprintf("%s/%s", target_kernel(s)->modules, mf.path);
	free(mf.path);
	return full;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

struct module_match {
	const char *pattern;
	strvec *out;
};

static bool match_module(const char *path, const char *name, void *priv)
{
	struct module_match *m = priv;

	(void)path;
	if (fnmatch(m->pattern, name, 0) == 0)
		vec_push(m->out, xstrdup(name));
	return false;
}

void kernel_module_names(struct session *s, const char *pattern, strvec *out)
{
	struct module_match mm = { pattern, out };

	each_module(s, match_module, &mm);
	qsort(out->items, (size_t)out->len, sizeof(char *), cmp_name);
}

struct module_file {
	char *name, *path;
};

struct module_files {
	const char *pattern;
	VEC(struct module_file) v;
};

static bool match_file(const char *path, const char *name, void *priv)
{
	struct module_files *m = priv;

	if (fnmatch(m->pattern, name, 0) == 0)
		vec_push(&m->v, ((struct module_file){ xstrdup(name), xstrdup(path) }));
	return false;
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct module_file *)a)->name, ((const struct module_file *)b)->name);
}

void kernel_module_files(struct session *s, const char *pattern, strvec *names, strvec *paths)
{
	struct module_files mf = { .pattern = pattern };

	each_module(s, match_file, &mf);
	qsort(mf.v.items, (size_t)mf.v.len, sizeof(*mf.v.items), cmp_file);
	for (int i = 0; i < mf.v.len; i++) {
		vec_push(names, mf.v.items[i].name);
		vec_push(paths, xasprintf("%s/%s", target_kernel(s)->modules, mf.v.items[i].path));
		free(mf.v.items[i].path);
	}
	free(mf.v.items);
}

/* Same relative path as under /lib/modules/REL, under the debug root:
 * the -dbg package's copy is uncompressed and has the DWARF. */
char *kernel_module_debug_path(struct session *s, const char *ko)
{
	const char *rel = strstr(ko, "/kernel/");

	if (!rel)
		return NULL;
	const char *end = strstr(rel, ".ko");
	return xasprintf("%s/lib/modules/%s%.*s.ko", dw_debug_root(s), target_kernel(s)->release,
			 (int)(end ? end - rel : (long)strlen(rel)), rel);
}
