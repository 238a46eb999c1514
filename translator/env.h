/* env.h - the environment variables cstap reads, one table (env.def), so
 * that what a variable does is written down once and nobody else calls
 * getenv(). Shared by stap and stap-vm.
 */
#ifndef CSTAP_ENV_H
#define CSTAP_ENV_H

#include <stddef.h>

enum env_var {
#define ENV(name, readers, what) ENV_##name,
#include "env.def"
#undef ENV
	ENV_COUNT
};

/* The variable's value; NULL when it is not set. */
const char *env_get(enum env_var v);
/* Its value when set and not empty, else dflt. */
const char *env_or(enum env_var v, const char *dflt);
/* Its name ("TMPDIR"), for messages that tell the user what to set. */
const char *env_name(enum env_var v);

/* $XDG_CACHE_HOME/cstap or ~/.cache/cstap, created; NULL if impossible.
 * Every cache cstap keeps lives there. */
char *cache_dir(void);
/* Bound one kind of cache entry (names starting with prefix) in dir: drop
 * those not used (mtime) for max_age seconds, and the oldest beyond max_n;
 * never keep (a name, or NULL). Using an entry should touch it. */
void cache_prune(const char *dir, const char *prefix, const char *keep, int max_n, long max_age);
/* Write the cache entry at path (in dir, named prefix...) whole or not at
 * all (a hidden temporary file renamed), then bound that kind of entry as
 * cache_prune does. */
void cache_store(const char *dir, const char *path, const void *data, size_t len, const char *prefix,
		 int max_n, long max_age);

#endif
