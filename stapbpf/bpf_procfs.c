/* bpf_procfs.c - a --runtime=bpf script's procfs files as FIFOs (see
 * bpf_procfs.h). */
#include "bpf_procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROCFS_LOOK_MS 50	/* how often a read FIFO is looked at for a reader */
#define PROCFS_CLOSE_MS 20	/* a reader's close (inotify) to its end (see serve_reader) */
#define PROCFS_BUSY_MS 2000	/* served, no close seen: taken as closed after this */

/* CLOCK_MONOTONIC in ms. */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void *xcalloc_or_die(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fprintf(stderr, "stapbpf: out of memory\n");
		exit(1);
	}
	return p;
}

/* The effective user's name from /etc/passwd (a static stapbpf has no
 * NSS), or its number ("root" for 0). */
static void user_name(char *out, size_t size)
{
	FILE *f = fopen("/etc/passwd", "re");
	char line[512];
	unsigned long uid = geteuid();

	snprintf(out, size, uid ? "%lu" : "root", uid);   /* a guest's initramfs has no passwd */
	while (f && fgets(line, sizeof(line), f)) {
		char *name = line, *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2 || strtoul(c2 + 1, NULL, 10) != uid)
			continue;
		size_t len = (size_t)(c1 - name) < size - 1 ? (size_t)(c1 - name) : size - 1;
		memcpy(out, name, len);
		out[len] = '\0';
		break;
	}
	if (f)
		fclose(f);
}

/* mkdir -p of path's directories (all of it when whole). */
static int make_dirs(char *path, bool whole)
{
	for (char *p = path + 1;; p++) {
		if (*p && *p != '/')
			continue;
		if (!*p && !whole)
			return 0;
		char c = *p;
		*p = '\0';
		int rc = mkdir(path, 0755);
		*p = c;
		if (rc < 0 && errno != EEXIST)
			return -1;
		if (!c)
			return 0;
	}
}

/* The file of path, added if new. */
static struct procfs_file *file_of(struct procfs *pf, const struct bundle_prog *p)
{
	for (size_t i = 0; i < pf->n; i++)
		if (!strcmp(pf->files[i].path, p->at.symbol))
			return &pf->files[i];
	struct procfs_file *f = &pf->files[pf->n++];
	*f = (struct procfs_file){ .path = p->at.symbol, .write = p->at.kind == BA_PROCFS_WRITE, .fd = -1,
				   .wfd = -1, .wd = -1 };
	return f;
}

/* A write FIFO's read end, open without waiting for a writer. */
static int open_write_fifo(struct procfs_file *f)
{
	f->fd = open(f->fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (f->fd < 0)
		fprintf(stderr, "ERROR: cannot open procfs FIFO %s: %s\n", f->fifo, strerror(errno));
	return f->fd;
}

/* One file's FIFO made, with the mode its probes give it. */
static int make_fifo(struct procfs *pf, struct procfs_file *f, unsigned mode)
{
	size_t len = strlen(pf->dir) + strlen(f->path) + 2;

	f->fifo = xcalloc_or_die(len, 1);
	snprintf(f->fifo, len, "%s/%s", pf->dir, f->path);
	if (make_dirs(f->fifo, false) < 0 || (unlink(f->fifo) < 0 && errno != ENOENT) ||
	    mkfifo(f->fifo, mode) < 0 || chmod(f->fifo, mode) < 0) {
		fprintf(stderr, "ERROR: cannot make procfs FIFO %s: %s\n", f->fifo, strerror(errno));
		return -1;
	}
	if (f->write)
		return open_write_fifo(f) < 0 ? -1 : 0;
	f->wd = inotify_add_watch(pf->inotify, f->fifo, IN_CLOSE_NOWRITE);
	if (f->wd < 0) {
		fprintf(stderr, "ERROR: cannot watch procfs FIFO %s: %s\n", f->fifo, strerror(errno));
		return -1;
	}
	return 0;
}

int procfs_open(struct procfs *pf, const struct bundle *b)
{
	char user[64];
	unsigned modes[b->nprogs + 1];

	*pf = (struct procfs){ .inotify = -1 };
	pf->files = xcalloc_or_die(b->nprogs, sizeof(*pf->files));
	for (size_t i = 0; i < b->nprogs; i++) {
		const struct bundle_prog *p = &b->progs[i];
		if (p->at.kind != BA_PROCFS_READ && p->at.kind != BA_PROCFS_WRITE)
			continue;
		struct procfs_file *f = file_of(pf, p);
		size_t k = (size_t)(f - pf->files);
		if (f->write != (p->at.kind == BA_PROCFS_WRITE)) {
			fprintf(stderr, "ERROR: procfs file %s has read and write probes: a FIFO goes one way\n",
				f->path);
			return -1;
		}
		if (!f->nprogs)
			modes[k] = 0;
		modes[k] |= (unsigned)p->at.offset;
		if (!f->write && (size_t)(p->at.period ? p->at.period : 512) + 1 > f->size)
			f->size = (size_t)(p->at.period ? p->at.period : 512) + 1;
		f->progs = realloc(f->progs, (f->nprogs + 1) * sizeof(*f->progs));
		if (!f->progs)
			return -1;
		f->progs[f->nprogs++] = p;
	}
	if (!pf->n)
		return 0;
	user_name(user, sizeof(user));
	size_t len = strlen(user) + strlen(b->module) + 32;
	pf->dir = xcalloc_or_die(len, 1);
	snprintf(pf->dir, len, "/var/tmp/systemtap-%s/%s", user, b->module);
	if (make_dirs(pf->dir, true) < 0) {
		fprintf(stderr, "ERROR: cannot make %s: %s\n", pf->dir, strerror(errno));
		return -1;
	}
	pf->inotify = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (pf->inotify < 0) {
		fprintf(stderr, "ERROR: inotify: %s\n", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < pf->n; i++) {
		struct procfs_file *f = &pf->files[i];
		if (f->write && !strcmp(f->path, "__stdin"))
			f->fd = 0;
		else if (make_fifo(pf, f, modes[i]) < 0)
			return -1;
	}
	return 0;
}

size_t procfs_npoll(const struct procfs *pf)
{
	return pf->n + 1;
}

size_t procfs_pollfds(const struct procfs *pf, struct pollfd *pfds, int *wait_ms)
{
	size_t n = 0;

	*wait_ms = -1;
	for (size_t i = 0; i < pf->n; i++) {
		const struct procfs_file *f = &pf->files[i];
		if (f->write && f->fd >= 0)
			pfds[n++] = (struct pollfd){ .fd = f->fd, .events = POLLIN };
		else if (!f->write && f->wfd >= 0)
			pfds[n++] = (struct pollfd){ .fd = f->wfd, .events = POLLOUT };
		else if (!f->write)
			*wait_ms = PROCFS_LOOK_MS;
	}
	if (pf->inotify >= 0)
		pfds[n++] = (struct pollfd){ .fd = pf->inotify, .events = POLLIN };
	return n;
}

/* More of a read's text to its reader; the write end closed (its EOF)
 * once all is written, or the reader is gone. */
static void feed_reader(struct procfs_file *f)
{
	while (f->poff < f->plen) {
		ssize_t w = write(f->wfd, f->pending + f->poff, f->plen - f->poff);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			return;
		if (w <= 0)
			break;
		f->poff += (size_t)w;
	}
	close(f->wfd);
	f->wfd = -1;
	free(f->pending);
	f->pending = NULL;
}

/* A reader waits on f: its read probes fill the buffer it gets. The FIFO
 * opens for writing only when a reader has it open, so that is how a
 * reader is found. Until that reader closes it the file is busy, so that
 * it does not get a second copy. Its close is seen by inotify, but the
 * kernel tells inotify before the reader is gone from the FIFO: the file
 * is looked at again PROCFS_CLOSE_MS after, and after PROCFS_BUSY_MS if
 * no close comes. */
static void serve_reader(struct procfs_file *f, procfs_run_fn run, void *ctx)
{
	long long t = now_ms();

	if (f->busy && t - f->since < PROCFS_BUSY_MS)
		return;
	if (!f->busy && t < f->since)
		return;
	f->busy = false;
	f->wfd = open(f->fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	if (f->wfd < 0)
		return;		/* ENXIO: no reader */
	f->pending = xcalloc_or_die(f->size, 1);
	for (size_t k = 0; k < f->nprogs; k++)
		run(ctx, f->progs[k], f->pending, f->size);
	f->plen = strnlen(f->pending, f->size - 1);
	f->poff = 0;
	f->busy = true;
	f->since = t;
	feed_reader(f);
}

/* A writer's data: the write probes run on each string's worth (stdin's:
 * on each character); at its end the FIFO opens again for the next
 * writer. */
static void take_writes(struct procfs_file *f, procfs_run_fn run, void *ctx)
{
	char buf[BPF_STRSZ_MAX];
	ssize_t n = read(f->fd, buf, bundle_strsz - 1);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n > 0 && f->fifo) {
		buf[n] = '\0';
		for (size_t k = 0; k < f->nprogs; k++)
			run(ctx, f->progs[k], buf, bundle_strsz);
		return;
	}
	for (ssize_t i = 0; i < n; i++) {   /* stdin: a character at a time, as stapio gives it */
		char one[BPF_STRSZ_MAX] = { buf[i] };
		for (size_t k = 0; k < f->nprogs; k++)
			run(ctx, f->progs[k], one, bundle_strsz);
	}
	if (n > 0)
		return;
	if (f->fd > 0)
		close(f->fd);
	f->fd = -1;
	if (f->fifo)
		open_write_fifo(f);
}

/* What writers have written into f so far, taken (before a reader is
 * served: a write that came first must have run its probes, as a write of
 * a /proc file runs them before it returns). */
static void take_all_writes(struct procfs_file *f, procfs_run_fn run, void *ctx)
{
	int fd = f->fd;
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (f->fd == fd && fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & (POLLIN | POLLHUP)))
		take_writes(f, run, ctx);
}

void procfs_serve(struct procfs *pf, const struct pollfd *pfds, size_t n, procfs_run_fn run, void *ctx)
{
	char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t len;

	while (pf->inotify >= 0 && (len = read(pf->inotify, ev, sizeof(ev))) > 0)
		for (char *p = ev; p < ev + len; p += sizeof(struct inotify_event) + ((struct inotify_event *)p)->len)
			for (size_t i = 0; i < pf->n; i++)
				if (pf->files[i].wd == ((struct inotify_event *)p)->wd && pf->files[i].busy &&
				    pf->files[i].wfd < 0) {
					pf->files[i].busy = false;
					pf->files[i].since = now_ms() + PROCFS_CLOSE_MS;
				}
	for (size_t k = 0; k < n; k++) {
		if (!pfds[k].revents || pfds[k].fd == pf->inotify)
			continue;
		for (size_t i = 0; i < pf->n; i++) {
			struct procfs_file *f = &pf->files[i];
			if (f->write && !f->fifo && f->fd == pfds[k].fd) {   /* stdin */
				take_writes(f, run, ctx);
				break;
			}
			if (!f->write && f->wfd == pfds[k].fd) {
				feed_reader(f);
				break;
			}
		}
	}
	for (size_t i = 0; i < pf->n; i++)
		if (pf->files[i].write && pf->files[i].fifo)
			take_all_writes(&pf->files[i], run, ctx);
	for (size_t i = 0; i < pf->n; i++)
		if (!pf->files[i].write && pf->files[i].wfd < 0)
			serve_reader(&pf->files[i], run, ctx);
}

void procfs_close(struct procfs *pf)
{
	for (size_t i = 0; i < pf->n; i++) {
		struct procfs_file *f = &pf->files[i];
		if (f->fd > 0)
			close(f->fd);
		if (f->wfd >= 0)
			close(f->wfd);
		if (f->fifo) {
			unlink(f->fifo);
			/* its directories under pf->dir, deepest first, if empty */
			for (char *s = strrchr(f->fifo, '/'); s && s > f->fifo + strlen(pf->dir);
			     s = strrchr(f->fifo, '/')) {
				*s = '\0';
				rmdir(f->fifo);
			}
		}
		free(f->fifo);
		free(f->pending);
		free(f->progs);
	}
	if (pf->dir)
		rmdir(pf->dir);
	if (pf->inotify >= 0)
		close(pf->inotify);
	free(pf->dir);
	free(pf->files);
	*pf = (struct procfs){ .inotify = -1 };
}
