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
/* The first of paths (NULL-ended, relative to self_dir(), each a format
 * of name: "../%1$s/%1$s") that is there: an executable file, or a
 * directory when dir; its path (a directory's resolved), or NULL. How the
 * build tree's and an installed tree's programs and files are found. */
char *beside_self(const char *name, bool dir, const char *const *paths);

#endif
