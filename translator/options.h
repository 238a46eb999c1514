/* options.h - command line and session setup (options.c). */
#ifndef CSTAP_OPTIONS_H
#define CSTAP_OPTIONS_H

#include "session.h"

void session_init(struct session *s);
/* 0: go on; -1: done, exit 0 (--help); >0: exit with that status */
int parse_options(struct session *s, int argc, char **argv);
/* -D NAME=VALUE's value as a number (-D NAME alone: 1); dflt when no -D
 * names it. The last one wins, as in the C compiler. */
long long session_define(const struct session *s, const char *name, long long dflt);
/* Remove the build directory, or say where it is kept (-k). */
void cleanup_session(struct session *s);
int session_mkdtemp(struct session *s);

#endif
