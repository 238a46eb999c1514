/* spawn.h - the one way the translator runs other programs (make, staprun). */
#ifndef CSTAP_SPAWN_H
#define CSTAP_SPAWN_H

#include <stdbool.h>
#include <stddef.h>

/* Run argv (PATH searched) in dir (NULL: here). If log is non-NULL, the
 * child's stdout and stderr go to that file. Returns the exit status, 128+N
 * for a signal, or -1 if it could not be started. */
int spawn_wait(char *const argv[], const char *dir, const char *log);

/* Run argv (PATH searched), stdin from /dev/null, and return everything it
 * wrote to stdout (NUL-terminated; its length in *len if len is non-NULL).
 * Its stderr is ours if show_stderr, else discarded. NULL if it could not
 * be started or did not exit with 0. */
char *spawn_capture(char *const argv[], size_t *len, bool show_stderr);

/* Directory of our own executable, e.g. ".../translator". */
const char *self_dir(void);

#endif
