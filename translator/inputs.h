/* inputs.h - the files this run read and whether the run can be cached.
 *
 * Passes 2-4 note here what they read beyond what is known before pass 1
 * (debuginfo, a probed program, a symbol map), and why a run's inputs
 * cannot be listed before pass 1 at all. The module cache (cache/modcache.c)
 * reads both from the session to key the module; the code that reads the
 * files (target/, probes/) needs to know nothing of the cache.
 */
#ifndef CSTAP_INPUTS_H
#define CSTAP_INPUTS_H

#include "session.h"

/* Passes 2-4 read path: the run's module is the same only while it is the
 * same file (s->inputs, each path once). */
void input_note(struct session *s, const char *path);

/* This run's inputs cannot be listed before pass 1 (why: a wildcard over
 * files, headers compiled for @cast); the first reason is kept
 * (s->inputs_unkeyable). */
void input_unkeyable(struct session *s, const char *why);

#endif
