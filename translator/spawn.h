/* spawn.h - the one way the translator runs other programs (make, staprun). */
#ifndef CSTAP_SPAWN_H
#define CSTAP_SPAWN_H

/* Run argv (PATH searched) in dir (NULL: here). If log is non-NULL, the
 * child's stdout and stderr go to that file. Returns the exit status, 128+N
 * for a signal, or -1 if it could not be started. */
int spawn_wait(char *const argv[], const char *dir, const char *log);

/* Directory of our own executable, e.g. ".../translator". */
const char *self_dir(void);

#endif
