/* env.c - the one reader of the environment (see env.h, env.def). */
#include "env.h"

#include <stdlib.h>

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
