/* env.c - the one reader of the environment (see env.h, env.def). */
#include "env.h"
#include "util.h"

#include <dirent.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *const env_names[ENV_COUNT] = {
#define ENV(name, readers, what) [ENV_##name] = #name,
#include "env.def"
#undef ENV
};

/* Messages name the variable so the user knows what to set. */
const char *env_name(enum env_var v)
{
	return env_names[v];
}

/* Read on each call: nothing here sets variables, and children inherit
 * them unchanged. */
const char *env_get(enum env_var v)
{
	return getenv(env_names[v]);
}

/* The "set and not empty" test most variables want. */
const char *env_or(enum env_var v, const char *dflt)
{
	const char *e = env_get(v);

	return e && *e ? e : dflt;
}

char *cache_dir(void)
{
	const char *x = env_get(ENV_XDG_CACHE_HOME), *home = env_get(ENV_HOME);
	char *dir;

	if (x && *x == '/')
		dir = xasprintf("%s/cstap", x);
	else if (home && *home == '/')
		dir = xasprintf("%s/.cache/cstap", home);
	else
		return NULL;
	for (char *s = dir + 1;; s++) {   /* mkdir -p */
		if (*s == '/' || !*s) {
			char save = *s;
			*s = 0;
			if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
				free(dir);
				return NULL;
			}
			*s = save;
			if (!save)
				break;
		}
	}
	return dir;
}

struct cache_entry {
	char *path;
	time_t used;
};

static int newest_first(const void *a, const void *b)
{
	const struct cache_entry *x = a, *y = b;

	return (y->used > x->used) - (y->used < x->used);
}

void cache_prune(const char *dir, const char *prefix, const char *keep, int max_n, long max_age)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	VEC(struct cache_entry) v = { 0 };
	time_t now = time(NULL);

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;
		if (strncmp(e->d_name, prefix, strlen(prefix)) || (keep && !strcmp(e->d_name, keep)))
			continue;
		char *p = xasprintf("%s/%s", dir, e->d_name);
		if (stat(p, &st) != 0) {
			free(p);
			continue;
		}
		vec_push(&v, ((struct cache_entry){ p, st.st_mtime }));
	}
	closedir(d);
	qsort(v.items, (size_t)v.len, sizeof(v.items[0]), newest_first);
	for (int i = 0; i < v.len; i++) {
		if (i >= max_n || now - v.items[i].used > max_age)
			unlink(v.items[i].path);
		free(v.items[i].path);
	}
	free(v.items);
}

void cache_store(const char *dir, const char *path, const void *data, size_t len, const char *prefix,
		 int max_n, long max_age)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char *tmp = xasprintf("%s/.%s.%d", dir, name, (int)getpid());

	if (write_file(tmp, data, len) != 0 || rename(tmp, path) != 0)
		unlink(tmp);
	free(tmp);
	cache_prune(dir, prefix, name, max_n, max_age);
}
