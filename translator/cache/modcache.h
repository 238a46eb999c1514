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

/* After pass 4: keep the module under the keys of both lookups (the first
 * with the files the run read, s->inputs: a later lookup is a hit only
 * while they are the same; none if s->inputs_unkeyable), then bound
 * the cache's size. Failures only cost the next run a build. */
void modcache_store(struct session *s);

/* --clean-cache: bound the cache to its size limit now; 0 or 1 on error. */
int modcache_clean(struct session *s);

#endif
