/* module_file.c - see module_file.h. staprun runs setuid root: a path a
 * user names is opened with the user's file system ids (setfsuid), so root
 * never opens, for a user, a file that user could not open (a device node
 * whose open has effects, another user's file); only the installed modules'
 * directory is opened as root, and only through trusted_path's checks. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "module_file.h"
#include "modsig_format.h"
#include "trusted_path.h"

bool module_file_is_name(const char *arg)
{
	size_t len = strlen(arg);

	return !strchr(arg, '/') && !(len > 3 && !strcmp(arg + len - 3, ".ko"));
}

/* The installed modules' directory of the running kernel, or -1 (why[]). */
static int installed_dir(char *why, size_t size)
{
	char dir[512];
	struct utsname u;

	if (uname(&u) < 0) {
		snprintf(why, size, "uname: %s", strerror(errno));
		return -1;
	}
	snprintf(dir, sizeof(dir), "/lib/modules/%s/systemtap", u.release);
	return trusted_dir_open(dir, why, size);
}

/* open(2) of path with the caller's file system ids; errno kept. */
static int open_as_caller(const char *path)
{
	int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, fd, err;

	if (getuid() == 0)
		return open(path, flags);
	setfsgid(getgid());
	setfsuid(getuid());
	if ((uid_t)setfsuid(getuid()) != getuid() || (gid_t)setfsgid(getgid()) != getgid()) {
		errno = EPERM;	/* cannot act as the caller: refuse rather than act as root */
		fd = -1;
	} else {
		fd = open(path, flags | O_NOFOLLOW);
	}
	err = errno;
	setfsuid(geteuid());
	setfsgid(getegid());
	errno = err;
	return fd;
}

/* The whole of a regular file of at most MODULE_FILE_MAX bytes. */
static int read_all(int fd, const char *path, struct module_file *m)
{
	struct stat st;
	size_t got = 0;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "ERROR: staprun: %s is not a regular file\n", path);
		return -1;
	}
	if (st.st_size <= 0 || (unsigned long long)st.st_size > MODULE_FILE_MAX) {
		fprintf(stderr, "ERROR: staprun: %s is %s\n", path, st.st_size ? "too large for a module" : "empty");
		return -1;
	}
	m->img = malloc(st.st_size);
	if (!m->img) {
		fprintf(stderr, "ERROR: staprun: out of memory reading %s\n", path);
		return -1;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, m->img + got, st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "ERROR: staprun: cannot read %s: %s\n", path, n ? strerror(errno) : "file shrank");
			free(m->img);
			m->img = NULL;
			return -1;
		}
		got += n;
	}
	m->len = m->elf_len = got;
	{
		const unsigned char *sig;
		size_t content_len, sig_len;

		if (modsig_split(m->img, m->len, &content_len, &sig, &sig_len) == 1)
			m->elf_len = content_len;
	}
	return 0;
}

/* Is the open file (st) the installed file of the same base name? (Why
 * not does not matter: the file named is another one.) */
static bool is_installed(const struct stat *st, const char *path)
{
	const char *base = strrchr(path, '/');
	char why[512];
	struct stat ist;
	int dfd = installed_dir(why, sizeof(why)), fd;

	if (dfd < 0)
		return false;
	fd = trusted_file_open(dfd, base ? base + 1 : path, &ist, why, sizeof(why));
	close(dfd);
	if (fd < 0)
		return false;
	close(fd);
	return ist.st_dev == st->st_dev && ist.st_ino == st->st_ino;
}

/* NAME: the installed NAME.ko, through the trusted directory. */
static int read_installed(const char *name, struct module_file *m)
{
	char file[300];
	struct stat st;
	int dfd, fd, rc;

	snprintf(file, sizeof(file), "%s.ko", name);
	dfd = installed_dir(m->why, sizeof(m->why));
	if (dfd < 0)
		return MODULE_FILE_UNTRUSTED;
	fd = trusted_file_open(dfd, file, &st, m->why, sizeof(m->why));
	close(dfd);
	if (fd < 0)
		return MODULE_FILE_UNTRUSTED;
	rc = read_all(fd, m->path, m);
	close(fd);
	m->installed = rc == 0;
	return rc;
}

int module_file_read(const char *arg, struct module_file *m)
{
	struct utsname u;
	struct stat st;
	int fd, rc;

	memset(m, 0, sizeof(*m));
	if (module_file_is_name(arg)) {
		if (uname(&u) < 0)
			return -1;
		snprintf(m->path, sizeof(m->path), "/lib/modules/%s/systemtap/%s.ko", u.release, arg);
		return read_installed(arg, m);
	}
	snprintf(m->path, sizeof(m->path), "%s", arg);
	fd = open_as_caller(arg);
	if (fd < 0) {
		fprintf(stderr, "ERROR: staprun: cannot open module %s: %s\n", arg,
			errno == ELOOP ? "it is a symbolic link (name the file itself)" : strerror(errno));
		return -1;
	}
	rc = read_all(fd, arg, m);
	if (rc == 0 && getuid() != 0 && fstat(fd, &st) == 0)
		m->installed = is_installed(&st, arg);
	close(fd);
	return rc;
}
