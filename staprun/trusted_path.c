/* trusted_path.c - see trusted_path.h. The path is made canonical first
 * (Debian's /lib is a symlink to usr/lib), then walked from / one component
 * at a time with O_NOFOLLOW, each checked on its descriptor: a component
 * that changes between the two is a symlink the walk refuses, and one that
 * is root's and writable by no one else cannot be changed by a user. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trusted_path.h"

static int refuse(char *why, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* -1, with the reason in why[] */
static int refuse(char *why, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, size, fmt, ap);
	va_end(ap);
	return -1;
}

/* Root's and writable by neither its group nor others? */
static int root_only(const struct stat *st)
{
	return st->st_uid == 0 && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

int trusted_dir_open(const char *path, char *why, size_t whysize)
{
	char real[PATH_MAX], walked[PATH_MAX] = "";
	struct stat st;
	int fd;

	if (!realpath(path, real))
		return refuse(why, whysize, "%s: %s", path, strerror(errno));
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !root_only(&st)) {
		if (fd >= 0)
			close(fd);
		return refuse(why, whysize, "/ is not root's alone");
	}
	for (char *comp = strtok(real, "/"); comp; comp = strtok(NULL, "/")) {
		int next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		close(fd);
		snprintf(walked + strlen(walked), sizeof(walked) - strlen(walked), "/%s", comp);
		if (next < 0)
			return refuse(why, whysize, "%s: %s", walked, strerror(errno));
		if (fstat(next, &st) < 0 || !root_only(&st)) {
			close(next);
			return refuse(why, whysize, "%s is not owned by root or is writable by others", walked);
		}
		fd = next;
	}
	return fd;
}

int trusted_file_open(int dirfd, const char *name, struct stat *st, char *why, size_t whysize)
{
	int fd;

	if (!*name || strchr(name, '/'))
		return refuse(why, whysize, "'%s' is not a file name", name);
	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return refuse(why, whysize, "%s: %s", name, strerror(errno));
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode) || !root_only(st)) {
		close(fd);
		return refuse(why, whysize, "%s is not a regular file owned by root and writable by root alone", name);
	}
	return fd;
}
