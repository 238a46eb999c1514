/* stapio_system.h - the commands a script runs with system(). */
#ifndef STAPIO_SYSTEM_H
#define STAPIO_SYSTEM_H

#include <stddef.h>

/* Run "/bin/sh -c CMD" with its stdout on out_fd, and wait for it. */
void system_run(const char *cmd, size_t len, int out_fd);

#endif
