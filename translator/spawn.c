/* spawn.c - run a child process and wait for it (see spawn.h). */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

int spawn_wait(char *const argv[], const char *dir, const char *log)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (dir && chdir(dir) != 0)
			_exit(127);
		if (log) {
			int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (fd < 0)
				_exit(127);
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execvp(argv[0], argv);
		fprintf(stderr, "stap: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

char *spawn_capture(char *const argv[], size_t *len, bool show_stderr)
{
	int fd[2], st;
	pid_t pid;

	if (pipe2(fd, O_CLOEXEC) < 0)
		return NULL;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return NULL;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(fd[1], 1);
		if (!show_stderr)
			dup2(null, 2);
		execvp(argv[0], argv);
		if (show_stderr)
			fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fd[1]);
	struct strbuf sb = STRBUF_INIT;
	char buf[65536];
	ssize_t n;
	while ((n = read(fd[0], buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		strbuf_add(&sb, buf, (size_t)n);
	}
	close(fd[0]);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			st = -1;
			break;
		}
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		strbuf_release(&sb);
		return NULL;
	}
	if (len)
		*len = sb.len;
	return strbuf_detach(&sb);
}

char *beside_self(const char *name, bool dir, const char *const *paths)
{
	char real[PATH_MAX];
	struct stat st;

	for (; *paths; paths++) {
		char *rel = xasprintf(*paths, name), *p = xasprintf("%s/%s", self_dir(), rel);
		bool there = dir ? stat(p, &st) == 0 && S_ISDIR(st.st_mode) && realpath(p, real) : access(p, X_OK) == 0;
		free(rel);
		if (there && dir) {
			free(p);
			return xstrdup(real);
		}
		if (there)
			return p;
		free(p);
	}
	return NULL;
}

const char *self_dir(void)
{
	static char dir[PATH_MAX];
	ssize_t n;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n <= 0)
		return strcpy(dir, ".");
	dir[n] = 0;
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = 0;
	return dir;
}
