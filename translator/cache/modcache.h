/* modcache.h - the module cache: a run whose inputs are those of an earlier
 * run gets that run's module without passes 1-4 (see modcache.c).
 */
#ifndef CSTAP_MODCACHE_H
#define CSTAP_MODCACHE_H

#include "session.h"

/* Before pass 1: 1 if the cache holds this run's module (s->ko_file,
 * s->c_file and s->module_name set, the warnings the building run printed
 * printed again), else 0 (and passes 1-4 record what modcache_store needs). */
int modcache_lookup(struct session *s);

/* Before pass 4: 1 if the cache holds a module built from the same C, flags
 * and kernel (s->ko_file set), else 0. For runs the first lookup cannot key. */
int modcache_lookup_c(struct session *s);

/* After pass 4: keep the module under the keys of both lookups, then bound
 * the cache's size. Failures only cost the next run a build. */
void modcache_store(struct session *s);

/* Pass 2-4 read path (debuginfo, a probed program, a symbol map): a later
 * lookup is a hit only while it is the same file. */
void modcache_note_input(struct session *s, const char *path);

/* This run's module cannot be keyed before pass 1 (why: a wildcard over
 * files, headers compiled for @cast); modcache_lookup_c still applies. */
void modcache_unkeyable(struct session *s, const char *why);

/* --clean-cache: bound the cache to its size limit now; 0 or 1 on error. */
int modcache_clean(struct session *s);

#endif
