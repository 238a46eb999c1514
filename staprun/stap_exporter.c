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
 * Anyone who can connect can start the modules of DIR and read every
 * script's metrics, and there is no authentication: so it listens on
 * 127.0.0.1 and ::1 unless -a says otherwise. Each client has a thread of
 * its own (a slow one holds no other), at most MAX_CLIENTS at once (more
 * get 503), a request of at most MAX_REQUEST bytes (431 beyond) that must
 * arrive within REQUEST_SECS of connecting (408), and RESPONSE_SECS to take
 * the answer.
 *
 * usage: stap-exporter [-p PORT] [-a ADDR]... [-d DIR] [-t SECS] [-v]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ctl_proto.h"

#define MAX_STARTED 64
#define NAME_MAX_LEN 56
#define MAX_LISTEN 8		/* -a given this many times at most */
#define MAX_CLIENTS 32		/* connections served at once */
#define MAX_REQUEST 8192	/* request line and headers */
#define REQUEST_SECS 5		/* from connecting to the request's end */
#define RESPONSE_SECS 10	/* to send the answer */

extern char **environ;

struct started {		/* a module this exporter loaded */
	char name[NAME_MAX_LEN];
	time_t last;		/* last scraped */
};

static struct {
	int port;
	const char *addrs[MAX_LISTEN], *dir;
	int naddrs;
	int idle_secs;
	int verbose;
	pthread_mutex_t lock;	/* started[], nstarted, clients */
	pthread_cond_t idle;	/* clients went down */
	struct started started[MAX_STARTED];
	int nstarted;
	int clients;		/* client threads running */
} ex = { .port = 9900, .lock = PTHREAD_MUTEX_INITIALIZER, .idle = PTHREAD_COND_INITIALIZER };

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

/* staprun with these arguments; its exit status (-1: could not run it).
 * posix_spawn, not fork: other threads hold locks a forked child would
 * inherit held. The child gets the default signal handling and mask back
 * (client threads block SIGINT and SIGTERM; SIGPIPE is ignored here). */
static int run_staprun(const char *a1, const char *a2)
{
	char *argv[] = { "staprun", (char *)a1, (char *)a2, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, deflt;
	pid_t pid;
	int status, rc;

	sigemptyset(&none);
	sigemptyset(&deflt);
	sigaddset(&deflt, SIGPIPE);
	sigaddset(&deflt, SIGINT);
	sigaddset(&deflt, SIGTERM);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &deflt);
	rc = posix_spawnp(&pid, "staprun", &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc)
		return -1;
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

/* NAME running, or started now from DIR/NAME.ko; false if neither. Called
 * with ex.lock held: two clients asking for the same module start it once. */
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

	pthread_mutex_lock(&ex.lock);
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
	pthread_mutex_unlock(&ex.lock);
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

/* The modules DIR offers that are not running, as "NAME available". */
static void add_available(struct body *b)
{
	DIR *d = ex.dir ? opendir(ex.dir) : NULL;
	struct dirent *de;

	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);
		char name[NAME_MAX_LEN + 16];

		if (l > 3 && !strcmp(de->d_name + l - 3, ".ko") && l - 3 < NAME_MAX_LEN) {
			snprintf(name, sizeof(name), "%.*s", (int)(l - 3), de->d_name);
			if (!running(name)) {
				strcat(name, " available");
				add_line(b, name);
			}
		}
	}
	if (d)
		closedir(d);
}

/* Milliseconds on a clock no one can set back: the deadlines'. */
static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Wait for events on the client's (non-blocking) socket until deadline:
 * true when they came, false when time ran out or it failed. */
static bool wait_for(int fd, short events, long long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };

	for (;;) {
		long long left = deadline - now_ms();

		if (left <= 0)
			return false;
		int n = poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (n > 0)
			return true;
		if (n < 0 && errno != EINTR)
			return false;
	}
}

/* All n bytes to the client by deadline; a client that does not read them
 * in time is dropped (the caller closes it), so it holds no thread longer. */
static void send_until(int fd, const char *p, size_t n, long long deadline)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN && wait_for(fd, POLLOUT, deadline))
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= w;
	}
}

static const char *reason(int code)
{
	switch (code) {
	case 200: return "OK";
	case 404: return "Not Found";
	case 408: return "Request Timeout";
	case 431: return "Request Header Fields Too Large";
	case 503: return "Service Unavailable";
	default: return "Bad Request";
	}
}

/* The answer, sent by RESPONSE_SECS from now (0: what the socket takes at
 * once, for the accept loop's 503, which must not wait on anyone). */
static void respond_within(int fd, int secs, int code, const char *type, const char *body, size_t len)
{
	long long deadline = now_ms() + secs * 1000LL;
	char head[256];
	int n = snprintf(head, sizeof(head),
			 "HTTP/1.0 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
			 code, reason(code), type, len);

	send_until(fd, head, n, deadline);
	send_until(fd, body, len, deadline);
}

static void respond(int fd, int code, const char *type, const char *body, size_t len)
{
	respond_within(fd, RESPONSE_SECS, code, type, body, len);
}

/* An error's answer: its reason as the body. */
static void respond_error(int fd, int secs, int code)
{
	char body[64];
	int n = snprintf(body, sizeof(body), "%s\n", reason(code));

	respond_within(fd, secs, code, "text/plain", body, n);
}

/* Close after the answer without resetting it: a client whose request we
 * did not read to its end (431) would otherwise get a TCP reset that can
 * arrive before the answer. Its rest is read and dropped, a second at most. */
static void linger_close(int fd)
{
	long long deadline = now_ms() + 1000;
	char sink[4096];

	shutdown(fd, SHUT_WR);
	for (int i = 0; i < 64; i++) {
		ssize_t r = recv(fd, sink, sizeof(sink), 0);

		if (r == 0 || (r < 0 && errno != EINTR && (errno != EAGAIN || !wait_for(fd, POLLIN, deadline))))
			break;
	}
	close(fd);
}

/* Read the request (its line and headers, up to the empty line) into req by
 * deadline: 0, or the status to refuse it with: 431 too long, 408 too slow,
 * 400 the client ended it first (a request line alone then is enough). */
static int read_request(int fd, char *req, size_t cap, long long deadline)
{
	size_t n = 0;

	for (;;) {
		req[n] = '\0';
		if (strstr(req, "\r\n\r\n") || strstr(req, "\n\n"))
			return 0;
		if (n == cap - 1)
			return 431;
		ssize_t r = recv(fd, req + n, cap - 1 - n, 0);
		if (r > 0) {
			n += r;
			continue;
		}
		if (r == 0)
			return strchr(req, '\n') ? 0 : 400;
		if (errno == EINTR || (errno == EAGAIN && wait_for(fd, POLLIN, deadline)))
			continue;
		return errno == EAGAIN ? 408 : 400;
	}
}

/* "GET PATH[ HTTP/x.y]" on the request's first line: PATH into path, or
 * false (another method, no path, a path longer than any answer's). */
static bool parse_get(const char *req, char *path, size_t cap)
{
	size_t len;

	if (strncmp(req, "GET ", 4))
		return false;
	req += 4;
	len = strcspn(req, " \r\n");
	if (!len || len >= cap)
		return false;
	memcpy(path, req, len);
	path[len] = '\0';
	return true;
}

/* path's answer into b: 200, or 404 for no such module. */
static int route(const char *path, struct body *b)
{
	bool ok;

	if (!strcmp(path, "/metrics")) {
		each_running(add_module_metrics, b);
		return 200;
	}
	if (!strcmp(path, "/")) {
		each_running(add_running_name, b);
		add_available(b);
		return 200;
	}
	if (!valid_name(path + 1))
		return 404;
	pthread_mutex_lock(&ex.lock);
	ok = ensure_running(path + 1);
	pthread_mutex_unlock(&ex.lock);
	if (!ok)
		return 404;
	append_metrics(path + 1, &b->buf, &b->len, &b->cap);
	return 200;
}

/* One client: its request, bounded in size and time, then the answer. */
static void serve(int fd)
{
	char req[MAX_REQUEST], path[NAME_MAX_LEN + 16];
	struct body b = { 0 };
	int code = read_request(fd, req, sizeof(req), now_ms() + REQUEST_SECS * 1000LL);

	if (code) {
		if (ex.verbose)
			fprintf(stderr, "stap-exporter: request refused: %d %s\n", code, reason(code));
		respond_error(fd, RESPONSE_SECS, code);
		return;
	}
	if (!parse_get(req, path, sizeof(path))) {
		code = strncmp(req, "GET ", 4) ? 400 : 404;
		respond(fd, code, "text/plain", code == 400 ? "only GET\n" : "no such module\n", code == 400 ? 9 : 15);
		return;
	}
	if (ex.verbose)
		fprintf(stderr, "stap-exporter: GET %s\n", path);
	if (route(path, &b) == 404)
		respond(fd, 404, "text/plain", "no such module\n", 15);
	else
		respond(fd, 200, "text/plain; version=0.0.4; charset=utf-8", b.buf ? b.buf : "", b.len);
	free(b.buf);
}

/* A client's thread: serve it, close it, and count it out. */
static void *client_thread(void *arg)
{
	int fd = (int)(intptr_t)arg;

	serve(fd);
	linger_close(fd);
	pthread_mutex_lock(&ex.lock);
	ex.clients--;
	pthread_cond_signal(&ex.idle);
	pthread_mutex_unlock(&ex.lock);
	return NULL;
}

/* 503 to a connection over MAX_CLIENTS, from the accept loop, which waits
 * for no client: what the socket takes at once, what it has read dropped
 * (closing on unread data would reset the connection under the answer). */
static void refuse_busy(int fd)
{
	char sink[4096];

	if (ex.verbose)
		fprintf(stderr, "stap-exporter: %d clients already: 503\n", MAX_CLIENTS);
	respond_error(fd, 0, 503);
	shutdown(fd, SHUT_WR);
	while (recv(fd, sink, sizeof(sink), MSG_DONTWAIT) > 0)
		;
	close(fd);
}

/* A new connection gets a thread of its own (with SIGINT and SIGTERM
 * blocked: they are the main loop's), or 503 when MAX_CLIENTS are served. */
static void admit(int fd)
{
	pthread_attr_t attr;
	pthread_t t;
	sigset_t stop, old;
	bool full;

	pthread_mutex_lock(&ex.lock);
	full = ex.clients >= MAX_CLIENTS;
	if (!full)
		ex.clients++;
	pthread_mutex_unlock(&ex.lock);
	if (full) {
		refuse_busy(fd);
		return;
	}
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	if (pthread_create(&t, &attr, client_thread, (void *)(intptr_t)fd) != 0) {
		refuse_busy(fd);
		pthread_mutex_lock(&ex.lock);
		ex.clients--;
		pthread_mutex_unlock(&ex.lock);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}

/* addr (IPv4, or IPv6 bare or in brackets) into sin or sin6: its
 * family, 0 if it is neither. */
static int parse_addr(const char *addr, struct sockaddr_in *sin, struct sockaddr_in6 *sin6)
{
	char a6[INET6_ADDRSTRLEN + 2];
	size_t len = strlen(addr);

	if (len >= 2 && len < sizeof(a6) && addr[0] == '[' && addr[len - 1] == ']')
		snprintf(a6, sizeof(a6), "%.*s", (int)(len - 2), addr + 1);
	else
		snprintf(a6, sizeof(a6), "%s", addr);
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1)
		return AF_INET;
	if (inet_pton(AF_INET6, a6, &sin6->sin6_addr) == 1)
		return AF_INET6;
	return 0;
}

/* A listening socket on addr and ex.port; -1 with errno set. An IPv6
 * socket takes IPv6 only, so that "::1" and "127.0.0.1" (or "::" and
 * "0.0.0.0") listen side by side. */
static int listen_on(const char *addr)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(ex.port) };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6, .sin6_port = htons(ex.port) };
	int one = 1, fd, family = parse_addr(addr, &sin, &sin6);

	fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    (family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0) ||
	    (family == AF_INET ? bind(fd, (struct sockaddr *)&sin, sizeof(sin))
			       : bind(fd, (struct sockaddr *)&sin6, sizeof(sin6))) < 0 ||
	    listen(fd, 64) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* The listening sockets into fds: each -a ADDR, else the loopback ones
 * (::1 only where this host has IPv6). Their number, or -1 (said why). */
static int open_listeners(int *fds)
{
	static const char *loopback[] = { "127.0.0.1", "::1" };
	bool dflt = ex.naddrs == 0;
	const char **addrs = dflt ? loopback : ex.addrs;
	int n = dflt ? 2 : ex.naddrs, m = 0;

	for (int i = 0; i < n; i++) {
		int fd = listen_on(addrs[i]);

		if (fd < 0 && dflt && i == 1 && (errno == EADDRNOTAVAIL || errno == EAFNOSUPPORT))
			continue;	/* no IPv6 here */
		if (fd < 0) {
			fprintf(stderr, "stap-exporter: cannot listen on %s port %d: %s\n", addrs[i], ex.port,
				strerror(errno));
			while (m)
				close(fds[--m]);
			return -1;
		}
		if (ex.verbose)
			fprintf(stderr, "stap-exporter: listening on %s port %d\n", addrs[i], ex.port);
		fds[m++] = fd;
	}
	return m;
}

/* Accept on every listener until SIGINT or SIGTERM; each second, the idle
 * modules go (-t). */
static void accept_loop(int *fds, int n)
{
	while (!stopping) {
		struct pollfd pfd[MAX_LISTEN];

		for (int i = 0; i < n; i++)
			pfd[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
		if (poll(pfd, n, 1000) > 0)
			for (int i = 0; i < n; i++) {
				int fd = pfd[i].revents ? accept4(fds[i], NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK) : -1;

				if (fd >= 0)
					admit(fd);
			}
		stop_idle(false);
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: stap-exporter [-p PORT] [-a ADDR]... [-d DIR] [-t SECS] [-v]\n"
		"  -p, --port PORT       listen on PORT (default 9900)\n"
		"  -a, --listen ADDR     listen on ADDR, IPv4 or IPv6, repeatable (default 127.0.0.1 and ::1;\n"
		"                        0.0.0.0 and :: are every address)\n"
		"  -d DIR                start DIR/NAME.ko when /NAME is asked for\n"
		"  -t, -k, --keepalive SECS  remove a module it started that nobody scraped for SECS\n"
		"  -v                    say what it does\n"
		"  -h, --help            this text\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "listen", required_argument, NULL, 'a' },
		{ "keepalive", required_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct sigaction act = { .sa_handler = on_stop };
	int opt, fds[MAX_LISTEN], n;

	while ((opt = getopt_long(argc, argv, "p:a:d:t:k:vh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'p': ex.port = atoi(optarg); break;
		case 'a': {
			struct sockaddr_in sin;
			struct sockaddr_in6 sin6;

			if (!parse_addr(optarg, &sin, &sin6)) {
				fprintf(stderr, "stap-exporter: -a %s: not an IPv4 or IPv6 address\n", optarg);
				usage();
			}
			if (ex.naddrs == MAX_LISTEN)
				usage();
			ex.addrs[ex.naddrs++] = optarg;
			break;
		}
		case 'd': ex.dir = optarg; break;
		case 't': case 'k': ex.idle_secs = atoi(optarg); break;
		case 'v': ex.verbose++; break;
		default: usage();
		}
	}
	if (optind != argc || ex.port <= 0 || ex.port > 65535)
		usage();
	sigaction(SIGINT, &act, NULL);
	sigaction(SIGTERM, &act, NULL);
	signal(SIGPIPE, SIG_IGN);
	n = open_listeners(fds);
	if (n < 0)
		return 1;
	accept_loop(fds, n);
	while (n)
		close(fds[--n]);
	pthread_mutex_lock(&ex.lock);	/* the clients end within their deadlines */
	while (ex.clients)
		pthread_cond_wait(&ex.idle, &ex.lock);
	pthread_mutex_unlock(&ex.lock);
	stop_idle(true);	/* what it started goes with it */
	return 0;
}
