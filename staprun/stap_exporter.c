/* stap-exporter: serve the metrics of running cstap scripts over HTTP, for
 * Prometheus to scrape.
 *
 * A script's `probe prometheus` (tapsets/prometheus.stp) fills the file
 * /proc/systemtap/MODULE/__prometheus in Prometheus's text format when it is
 * read. stap-exporter runs where the modules run (a static binary, like
 * staprun) and answers:
 *   GET /metrics   every running cstap module's metrics, one after another
 *   GET /NAME      module NAME's metrics; with -d DIR, a NAME not running
 *                  is started first from DIR/NAME.ko (staprun -L: loaded and
 *                  detached, so it keeps running between scrapes)
 *   GET /          the modules running and those DIR offers, one a line
 * With -t SECS, a module it started and nobody scraped for SECS is removed
 * (staprun -d). The modules are built elsewhere once (stap -p4 -m NAME).
 *
 * usage: stap-exporter [-p PORT] [-a ADDR] [-d DIR] [-t SECS] [-v]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ctl_proto.h"
#include "write_all.h"

#define MAX_STARTED 64
#define NAME_MAX_LEN 56

struct started {		/* a module this exporter loaded */
	char name[NAME_MAX_LEN];
	time_t last;		/* last scraped */
};

static struct {
	int port;
	const char *addr, *dir;
	int idle_secs;
	int verbose;
	struct started started[MAX_STARTED];
	int nstarted;
} ex = { .port = 9900, .addr = "0.0.0.0" };

static volatile sig_atomic_t stopping;

static void on_stop(int sig)
{
	stopping = 1;
}

static bool valid_name(const char *n)
{
	size_t len = strlen(n);

	if (!len || len >= NAME_MAX_LEN)
		return false;
	for (; *n; n++)
		if (!(*n == '_' || (*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') ||
		      (*n >= '0' && *n <= '9')))
			return false;
	return true;
}

static bool running(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/proc/" STP_PROC_PREFIX "%s", name);
	return access(path, F_OK) == 0;
}

/* Append the whole of path to *buf (a procfs file: read to EOF). */
static bool append_file(const char *path, char **buf, size_t *len, size_t *cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	for (;;) {
		if (*cap - *len < 65536) {
			char *b = realloc(*buf, *cap * 2 + 65536);

			if (!b)
				break;
			*buf = b;
			*cap = *cap * 2 + 65536;
		}
		n = read(fd, *buf + *len, *cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += n;
	}
	close(fd);
	return true;
}

static bool append_metrics(const char *name, char **buf, size_t *len, size_t *cap)
{
	char path[160];

	snprintf(path, sizeof(path), "/proc/systemtap/%s/__prometheus", name);
	return append_file(path, buf, len, cap);
}

/* staprun with these arguments; its exit status (-1: could not run it). */
static int run_staprun(const char *a1, const char *a2)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);

		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
		}
		execlp("staprun", "staprun", a1, a2, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static struct started *find_started(const char *name)
{
	for (int i = 0; i < ex.nstarted; i++)
		if (!strcmp(ex.started[i].name, name))
			return &ex.started[i];
	return NULL;
}

/* NAME running, or started now from DIR/NAME.ko; false if neither. */
static bool ensure_running(const char *name)
{
	char ko[PATH_MAX];
	struct started *s;

	if (running(name))
		goto used;
	if (!ex.dir)
		return false;
	snprintf(ko, sizeof(ko), "%s/%s.ko", ex.dir, name);
	if (access(ko, R_OK) != 0 || ex.nstarted == MAX_STARTED)
		return false;
	if (ex.verbose)
		fprintf(stderr, "stap-exporter: starting %s\n", ko);
	if (run_staprun("-L", ko) != 0 || !running(name)) {
		fprintf(stderr, "stap-exporter: staprun -L %s failed\n", ko);
		return false;
	}
used:
	s = find_started(name);
	if (!s && running(name) && ex.dir) {
		snprintf(ko, sizeof(ko), "%s/%s.ko", ex.dir, name);
		if (access(ko, R_OK) == 0 && ex.nstarted < MAX_STARTED) {
			s = &ex.started[ex.nstarted++];
			snprintf(s->name, sizeof(s->name), "%s", name);
		}
	}
	if (s)
		s->last = time(NULL);
	return true;
}

/* -t: remove the modules this exporter started that nobody scraped lately. */
static void stop_idle(bool all)
{
	time_t now = time(NULL);

	for (int i = 0; i < ex.nstarted; i++) {
		struct started *s = &ex.started[i];

		if (!all && (!ex.idle_secs || now - s->last < ex.idle_secs))
			continue;
		if (ex.verbose)
			fprintf(stderr, "stap-exporter: removing %s\n", s->name);
		if (running(s->name))
			run_staprun("-d", s->name);
		ex.started[i--] = ex.started[--ex.nstarted];
	}
}

/* The running cstap modules' names, from /proc/cstap_* . */
static int each_running(void (*fn)(const char *name, void *p), void *p)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, STP_PROC_PREFIX, strlen(STP_PROC_PREFIX))) {
			fn(de->d_name + strlen(STP_PROC_PREFIX), p);
			n++;
		}
	closedir(d);
	return n;
}

struct body {
	char *buf;
	size_t len, cap;
};

static void add_module_metrics(const char *name, void *p)
{
	struct body *b = p;

	append_metrics(name, &b->buf, &b->len, &b->cap);
}

static void add_line(struct body *b, const char *s)
{
	size_t n = strlen(s);

	if (b->cap - b->len < n + 2) {
		char *nb = realloc(b->buf, b->cap * 2 + n + 256);

		if (!nb)
			return;
		b->buf = nb;
		b->cap = b->cap * 2 + n + 256;
	}
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len++] = '\n';
}

static void add_running_name(const char *name, void *p)
{
	char line[NAME_MAX_LEN + 16];

	snprintf(line, sizeof(line), "%s running", name);
	add_line(p, line);
}


static void respond(int fd, int code, const char *type, const char *body, size_t len)
{
	char head[256];
	int n = snprintf(head, sizeof(head),
			 "HTTP/1.0 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
			 code, code == 200 ? "OK" : code == 404 ? "Not Found" : "Bad Request", type, len);

	write_all(fd, head, n);
	write_all(fd, body, len);
}

/* One request: read its first line, answer, close. */
static void serve(int fd)
{
	char req[1024], path[512];
	struct body b = { 0 };
	ssize_t n = 0, r;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	while (n < (ssize_t)sizeof(req) - 1 && !memchr(req, '\n', n) && poll(&pfd, 1, 5000) > 0) {
		r = read(fd, req + n, sizeof(req) - 1 - n);
		if (r <= 0)
			break;
		n += r;
	}
	req[n] = '\0';
	if (sscanf(req, "GET %511s", path) != 1) {
		respond(fd, 400, "text/plain", "only GET\n", 9);
		return;
	}
	if (ex.verbose)
		fprintf(stderr, "stap-exporter: GET %s\n", path);
	if (!strcmp(path, "/metrics")) {
		each_running(add_module_metrics, &b);
	} else if (!strcmp(path, "/")) {
		each_running(add_running_name, &b);
		DIR *d = ex.dir ? opendir(ex.dir) : NULL;
		struct dirent *de;

		while (d && (de = readdir(d))) {
			size_t l = strlen(de->d_name);
			char name[NAME_MAX_LEN + 16];

			if (l > 3 && !strcmp(de->d_name + l - 3, ".ko") && l - 3 < NAME_MAX_LEN) {
				snprintf(name, sizeof(name), "%.*s", (int)(l - 3), de->d_name);
				if (!running(name)) {
					strcat(name, " available");
					add_line(&b, name);
				}
			}
		}
		if (d)
			closedir(d);
	} else if (valid_name(path + 1) && ensure_running(path + 1)) {
		append_metrics(path + 1, &b.buf, &b.len, &b.cap);
	} else {
		respond(fd, 404, "text/plain", "no such module\n", 15);
		return;
	}
	respond(fd, 200, "text/plain; version=0.0.4; charset=utf-8", b.buf ? b.buf : "", b.len);
	free(b.buf);
}

static void usage(void)
{
	fprintf(stderr, "usage: stap-exporter [-p PORT] [-a ADDR] [-d DIR] [-t SECS] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct sigaction act = { .sa_handler = on_stop };
	int opt, one = 1, lfd;

	while ((opt = getopt(argc, argv, "p:a:d:t:vh")) != -1) {
		switch (opt) {
		case 'p': ex.port = atoi(optarg); break;
		case 'a': ex.addr = optarg; break;
		case 'd': ex.dir = optarg; break;
		case 't': ex.idle_secs = atoi(optarg); break;
		case 'v': ex.verbose++; break;
		default: usage();
		}
	}
	if (optind != argc || ex.port <= 0 || ex.port > 65535 || inet_pton(AF_INET, ex.addr, &sa.sin_addr) != 1)
		usage();
	sa.sin_port = htons(ex.port);
	sigaction(SIGINT, &act, NULL);
	sigaction(SIGTERM, &act, NULL);
	signal(SIGPIPE, SIG_IGN);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(lfd, 16) < 0) {
		fprintf(stderr, "stap-exporter: cannot listen on %s:%d: %s\n", ex.addr, ex.port, strerror(errno));
		return 1;
	}
	if (ex.verbose)
		fprintf(stderr, "stap-exporter: listening on %s:%d\n", ex.addr, ex.port);
	while (!stopping) {
		struct pollfd pfd = { .fd = lfd, .events = POLLIN };

		if (poll(&pfd, 1, 1000) > 0) {
			int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

			if (fd >= 0) {
				serve(fd);
				close(fd);
			}
		}
		stop_idle(false);
	}
	stop_idle(true);	/* what it started goes with it */
	close(lfd);
	return 0;
}
