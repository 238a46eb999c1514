/* stapio_cmd.c - running the -c command for stapio. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>

#include "stapio_cmd.h"

/*
 * The command's words as SystemTap's stapio takes them: wordexp(3) without
 * command substitution (quotes, $VAR, ~ and globs expanded), then exec'd
 * directly, so the target is the command itself. What wordexp refuses
 * (| & ; < > ( ) { } or a newline outside quotes, $(...), an undefined
 * variable, bad quoting) or a first word that assigns a variable (FOO=1
 * cmd) goes to /bin/sh -c instead; false then.
 */
static bool command_words(const char *cmd, wordexp_t *w)
{
	const char *eq;

	if (wordexp(cmd, w, WRDE_NOCMD | WRDE_UNDEF) != 0)
		return false;
	if (w->we_wordc == 0)
		return true;
	eq = strchr(w->we_wordv[0], '=');
	if (eq && eq != w->we_wordv[0] && strspn(w->we_wordv[0], "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			  "abcdefghijklmnopqrstuvwxyz0123456789_") == (size_t)(eq - w->we_wordv[0])) {
		wordfree(w);
		return false;
	}
	return true;
}

/* In the child: wait for the go byte, then exec the command. */
static void child_run(int hold_fd, const char *cmd)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGALRM, SIGPIPE };
	wordexp_t w;
	char go = 0;
	sigset_t none;
	size_t i;
	ssize_t r;

	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	do
		r = read(hold_fd, &go, 1);
	while (r < 0 && errno == EINTR);
	if (r != 1 || go != 'g')
		_exit(127);	/* stapio gave up before START */
	close(hold_fd);
	if (!command_words(cmd, &w)) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		fprintf(stderr, "ERROR: cannot run /bin/sh for -c: %s\n", strerror(errno));
		_exit(127);
	}
	if (w.we_wordc == 0)
		_exit(0);
	execvp(w.we_wordv[0], w.we_wordv);
	fprintf(stderr, "ERROR: cannot run -c command '%s': %s\n", w.we_wordv[0], strerror(errno));
	_exit(127);
}

/* Fork the command, held until cmd_child_release(); -1 on failure. */
int cmd_child_spawn(struct cmd_child *c, const char *cmd)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0) {
		fprintf(stderr, "ERROR: pipe for -c: %s\n", strerror(errno));
		return -1;
	}
	c->pid = fork();
	if (c->pid < 0) {
		fprintf(stderr, "ERROR: fork for -c: %s\n", strerror(errno));
		c->pid = 0;
		return -1;
	}
	if (c->pid == 0) {
		close(p[1]);
		child_run(p[0], cmd);
	}
	close(p[0]);
	c->go_fd = p[1];
	c->exited = false;
	c->killed = false;
	return 0;
}

/* The begin probes ran: let the command exec. */
void cmd_child_release(struct cmd_child *c)
{
	if (c->pid <= 0 || c->go_fd < 0)
		return;
	if (write(c->go_fd, "g", 1) != 1)
		fprintf(stderr, "ERROR: cannot release the -c command: %s\n", strerror(errno));
	close(c->go_fd);
	c->go_fd = -1;
}

/* START failed: the held child exits without running anything. */
void cmd_child_abort(struct cmd_child *c)
{
	if (c->pid <= 0)
		return;
	if (c->go_fd >= 0)
		close(c->go_fd);
	c->go_fd = -1;
	c->killed = true;	/* it never ran: nothing of its own to report */
	while (!c->exited && waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
		;
	c->exited = true;
}

/* After SIGCHLD: true if the command has just exited. */
bool cmd_child_reap(struct cmd_child *c)
{
	if (c->pid <= 0 || c->exited)
		return false;
	if (waitpid(c->pid, &c->status, WNOHANG) != c->pid)
		return false;
	c->exited = true;
	return true;
}

/* Session over: a command still running gets SIGTERM, then SIGKILL. */
void cmd_child_finish(struct cmd_child *c)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int i;

	if (c->pid <= 0)
		return;
	cmd_child_release(c);
	if (c->exited || cmd_child_reap(c))
		return;
	c->killed = true;
	kill(c->pid, SIGTERM);
	for (i = 0; i < 50; i++) {
		if (cmd_child_reap(c))
			return;
		nanosleep(&ts, NULL);
	}
	kill(c->pid, SIGKILL);
	while (waitpid(c->pid, &c->status, 0) < 0 && errno == EINTR)
		;
	c->exited = true;
}

bool cmd_child_report(const struct cmd_child *c, bool quiet)
{
	if (c->pid <= 0 || !c->exited || c->killed)
		return false;
	if (WIFEXITED(c->status) && WEXITSTATUS(c->status) != 0) {
		if (!quiet)
			fprintf(stderr, "WARNING: Child process exited with status %d\n", WEXITSTATUS(c->status));
		return true;
	}
	if (WIFSIGNALED(c->status)) {
		if (!quiet)
			fprintf(stderr, "WARNING: Child process exited with signal %d (%s)\n",
				WTERMSIG(c->status), strsignal(WTERMSIG(c->status)));
		return true;
	}
	return false;
}
