/* stapio_cmd.h - the -c command: forked early (its pid is target()), but
 * held on a pipe until the begin probes have run, then exec'd. */
#ifndef STAPIO_CMD_H
#define STAPIO_CMD_H

#include <stdbool.h>
#include <sys/types.h>

struct cmd_child {
	pid_t pid;	/* 0: no command */
	int go_fd;	/* write end of the hold pipe, -1 once released */
	bool exited;
	bool killed;	/* ended by cmd_child_finish, not on its own */
	int status;	/* waitpid status once exited */
};

int cmd_child_spawn(struct cmd_child *c, const char *cmd);
void cmd_child_release(struct cmd_child *c);
/* After cmd_child_finish: a command that failed on its own (a non-zero
 * exit, a signal) is said as SystemTap's stapio says it, unless quiet;
 * true then (the session's exit status is 1). */
bool cmd_child_report(const struct cmd_child *c, bool quiet);
void cmd_child_abort(struct cmd_child *c);
bool cmd_child_reap(struct cmd_child *c);
void cmd_child_finish(struct cmd_child *c);

#endif /* STAPIO_CMD_H */
