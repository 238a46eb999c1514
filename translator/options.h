/* options.h - command line and session setup (options.c). */
#ifndef CSTAP_OPTIONS_H
#define CSTAP_OPTIONS_H

#include "session.h"

void session_init(struct session *s);
/* 0: go on; -1: done, exit 0 (--help); >0: exit with that status */
int parse_options(struct session *s, int argc, char **argv);
/* Remove the build directory, or say where it is kept (-k). */
void cleanup_session(struct session *s);

#endif
