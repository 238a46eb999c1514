/* trusted_path.h - files only root can have written: a directory whose
 * every component is root's and writable by no one else, and regular files
 * in it that are root's and writable by no one else. staprun trusts the
 * modules installed in /lib/modules/RELEASE/systemtap/ and the signers'
 * certificates in /etc/cstap/staprun/ only when they are such files. */
#ifndef STAPRUN_TRUSTED_PATH_H
#define STAPRUN_TRUSTED_PATH_H

#include <stddef.h>
#include <sys/stat.h>

/* A descriptor of directory `path` (O_DIRECTORY), or -1 with why[] saying
 * which component is not root's or is writable by others (or missing). */
int trusted_dir_open(const char *path, char *why, size_t whysize);

/* A read-only descriptor of `name` in dirfd (no symlink, no subdirectory),
 * or -1 with why[]; *st is its fstat. */
int trusted_file_open(int dirfd, const char *name, struct stat *st, char *why, size_t whysize);

#endif /* STAPRUN_TRUSTED_PATH_H */
