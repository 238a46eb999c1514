/* env.c - the one reader of the environment (see env.h, env.def). */
#include "env.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

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
