/* debuginfod.h - fetch debuginfo by build-id from the debuginfod servers
 * of $DEBUGINFOD_URLS (libdebuginfod), when none is installed. The client
 * caches what it downloads ($DEBUGINFOD_CACHE_PATH, else
 * ~/.cache/debuginfod_client); progress is shown only when stderr is a
 * terminal.
 */
#ifndef CSTAP_DEBUGINFOD_H
#define CSTAP_DEBUGINFOD_H

#include "session.h"

/* The path (in the client's cache) of the debuginfo for build_id (hex) of
 * `what` ("kernel 6.1.0-56-cloud-amd64", "module brd"); NULL with *why set
 * (a string that stays valid) when there is none or no server is
 * configured. */
char *debuginfod_fetch(struct session *s, const char *build_id, const char *what, const char **why);

#endif
