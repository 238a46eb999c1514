/* stapio_system.c - system(CMD) in a script: the module sends the command
 * (STP_MSG_SYSTEM, after the probe's earlier output) and stapio runs it with
 * /bin/sh, as the user running stapio, waiting for it as SystemTap's stapio
 * does: its output lands between the script's output before and after.
 */
#include "stapio_system.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

void system_run(const char *cmd, size_t len, int out_fd)
{
	char *c = strndup(cmd, len);
	pid_t pid;

	if (!c)
		return;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		if (out_fd != 1)
			dup2(out_fd, 1);
		execl("/bin/sh", "sh", "-c", c, (char *)NULL);
		fprintf(stderr, "ERROR: system(): cannot run /bin/sh: %s\n", strerror(errno));
		_exit(127);
	}
	free(c);
	if (pid < 0) {
		fprintf(stderr, "ERROR: system(): fork: %s\n", strerror(errno));
		return;
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}
