/* bpf_procfs.h - a --runtime=bpf script's procfs files. A module's are
 * under /proc/systemtap/MODULE/; stapbpf's are FIFOs under
 * /var/tmp/systemtap-USER/MODULE/, where SystemTap's stapbpf puts them. A
 * reader opening a read file runs its read probes, whose $value is what it
 * reads; what a writer writes into a write file runs its write probes, a
 * string at a time. "__stdin" (input.char, input.line) is no FIFO but
 * stapbpf's standard input. A FIFO goes one way: a file is read or
 * written, not both (the translator refuses a script that has both). */
#ifndef BPF_PROCFS_H
#define BPF_PROCFS_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

#include "bpf_bundle.h"

struct procfs_file {
	const char *path;		/* as the script names it, relative */
	char *fifo;		/* its FIFO; NULL for __stdin */
	bool write;		/* written by users: its write probes */
	size_t size;		/* a read's buffer: maxsize (or 512) and a NUL */
	const struct bundle_prog **progs;	/* its probes, in bundle order */
	size_t nprogs;
	int fd;			/* write: the read end stapbpf holds (0: stdin); -1 none */
	int wfd;		/* read: the write end while a reader is served, else -1 */
	char *pending;		/* read: what the reader has still to get */
	size_t plen, poff;
	int wd;			/* read: the FIFO's inotify watch */
	bool busy;		/* read: served, and its reader has not closed yet */
	long long since;	/* read: busy since (ms), else not looked at before */
};

struct procfs {
	struct procfs_file *files;
	size_t n;
	char *dir;		/* /var/tmp/systemtap-USER/MODULE, or NULL */
	int inotify;		/* a reader's close of a read FIFO, -1 none */
};

/* Run the probe p with $value the file's buffer of size bytes (its NUL
 * included). */
typedef void (*procfs_run_fn)(void *ctx, const struct bundle_prog *p, char *buf, size_t size);

/* The files of b's procfs probes, made; 0, or -1 with a message on stderr. */
int procfs_open(struct procfs *pf, const struct bundle *b);

/* The descriptors to poll for the files (at most procfs_npoll()), and the
 * milliseconds to wait at most: a read FIFO's reader is looked for every
 * 50 ms (a FIFO tells no one that a reader waits), -1 when none is. */
size_t procfs_npoll(const struct procfs *pf);
size_t procfs_pollfds(const struct procfs *pf, struct pollfd *pfds, int *wait_ms);

/* Serve what the poll found (pfds as procfs_pollfds made them, revents
 * set): readers, writers' data, stdin. */
void procfs_serve(struct procfs *pf, const struct pollfd *pfds, size_t n, procfs_run_fn run, void *ctx);

/* The FIFOs and their directories removed. */
void procfs_close(struct procfs *pf);

#endif /* BPF_PROCFS_H */
