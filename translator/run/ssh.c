/* ssh.c - pass 5 on other hosts over OpenSSH (--remote=ssh://[USER@]HOST[:PORT],
 * repeatable): ask each host its kernel, build the module once per kernel
 * release (passes 1-4 in a child of this process), copy it to each host, run
 * staprun there, and relay every host's output here line by line, with
 * "N: " before each line under --remote-prefix (N: the host's index, which
 * remote_id() returns there).
 *
 * Ctrl-C closes each session's stdin: the shell around staprun on the host
 * then stops it as a Ctrl-C there would (its end probes still print here); a
 * second Ctrl-C ends the ssh clients. The real ssh client does the transport
 * (its configuration, keys and agent apply); it runs with BatchMode, so a
 * host that wants a password fails with ssh's message instead of waiting on
 * a prompt nobody sees. A host needs a POSIX shell and cstap's staprun on
 * its PATH.
 *
 * The module goes into a directory of its own on each host (mktemp -d, mode
 * 0700), not a predictable /tmp/NAME.ko another user there could create
 * first, link elsewhere or swap before staprun loads it; the run's session
 * loads it only if that directory is still a directory of the ssh user that
 * nobody else may enter, and removes it afterwards.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "options.h"
#include "passes.h"
#include "target/kernel.h"

struct host {
	int index;
	const char *url;
	char *dest, *port;        /* ssh's [USER@]HOST, and -p PORT or NULL */
	char *release, *machine;  /* uname -r, uname -m there */
	char *ko;                 /* the module for its release, here */
	char *rdir;               /* the private directory it was copied to there; NULL: none */
	pid_t pid;                /* its ssh client now; 0: none */
	int status;               /* that client's exit status */
	int in, fd[2];            /* its stdin (our end), stdout, stderr; -1: closed */
	struct strbuf line[2];    /* an unfinished stdout / stderr line */
	struct strbuf kept;       /* stdout, when kept rather than relayed */
	bool keep;
};

static volatile sig_atomic_t interrupts;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupts++;
}

/* ssh://[USER@]HOST[:PORT][/] or [USER@]HOST: ssh's destination and port.
 * false if the host is missing or the port is not a number. */
static bool parse_url(struct host *h)
{
	const char *u = h->url;

	if (!strncmp(u, "ssh://", 6))
		u += 6;
	char *rest = xstrndup(u, strcspn(u, "/"));
	char *at = strrchr(rest, '@');
	char *host = at ? at + 1 : rest, *port = NULL;

	if (*host == '[') {                   /* [v6 address][:port] */
		char *close = strchr(host, ']');
		if (!close)
			return false;
		*close = 0;
		if (close[1] == ':')
			port = close + 2;
		else if (close[1])
			return false;
		memmove(host, host + 1, strlen(host + 1) + 1);
	} else if (strchr(host, ':') && strchr(host, ':') == strrchr(host, ':')) {
		port = strchr(host, ':');
		*port++ = 0;
	}
	if (!*host || *host == '-' || (at && at == rest))
		return false;
	if (port && (!*port || strspn(port, "0123456789") != strlen(port)))
		return false;
	h->port = port ? xstrdup(port) : NULL;
	h->dest = at ? xasprintf("%.*s@%s", (int)(at - rest), rest, host) : xstrdup(host);
	free(rest);
	return true;
}

/* Start `ssh DEST CMD` for h, in its own process group (a terminal's Ctrl-C
 * is ours to pass on), stdout and stderr to pipes; stdin from in_file (a
 * path), else a pipe whose end h->in keeps. */
static int ssh_start(struct host *h, const char *cmd, const char *in_file)
{
	int out[2], err[2], in[2] = { -1, -1 };
	int file = in_file ? open(in_file, O_RDONLY | O_CLOEXEC) : -1;

	if ((in_file && file < 0) || pipe2(out, O_CLOEXEC) < 0 || pipe2(err, O_CLOEXEC) < 0 ||
	    (!in_file && pipe2(in, O_CLOEXEC) < 0))
		return -1;
	const char *argv[] = { "ssh", "-o", "BatchMode=yes", "-p", h->port, "--", h->dest, cmd, NULL };
	if (!h->port)   /* drop "-p PORT" */
		memmove(&argv[3], &argv[5], 4 * sizeof(argv[0]));
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		dup2(in_file ? file : in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execvp(argv[0], (char **)argv);
		fprintf(stderr, "cannot run ssh: %s (apt-get install openssh-client)\n", strerror(errno));
		_exit(255);
	}
	if (file >= 0)
		close(file);
	if (!in_file)
		close(in[0]);
	close(out[1]);
	close(err[1]);
	h->pid = pid;
	h->in = in[1];
	h->fd[0] = out[0];
	h->fd[1] = err[0];
	return 0;
}

/* One line of h's output (stdout k=0, stderr k=1) where it goes here. */
static void relay_line(struct session *s, struct host *h, int k, const char *text, size_t len)
{
	FILE *f = k ? stderr : stdout;

	if (!k && h->keep) {
		strbuf_add(&h->kept, text, len);
		return;
	}
	if (s->remote_prefix)
		fprintf(f, "%d: ", h->index);
	fwrite(text, 1, len, f);
	fflush(f);
}

/* Read what h's fd k has; whole lines go on, the rest waits. */
static void drain(struct session *s, struct host *h, int k)
{
	char buf[8192];
	ssize_t n = read(h->fd[k], buf, sizeof(buf));
	struct strbuf *l = &h->line[k];

	if (n < 0 && errno == EINTR)
		return;
	if (n <= 0) {   /* the end: an unfinished last line goes on as it is */
		if (l->len)
			relay_line(s, h, k, l->buf, l->len);
		strbuf_reset(l);
		close(h->fd[k]);
		h->fd[k] = -1;
		return;
	}
	strbuf_add(l, buf, (size_t)n);
	size_t done = 0;
	for (char *nl; (nl = memchr(l->buf + done, '\n', l->len - done)); done = (size_t)(nl + 1 - l->buf))
		relay_line(s, h, k, l->buf + done, (size_t)(nl + 1 - (l->buf + done)));
	memmove(l->buf, l->buf + done, l->len - done);
	l->len -= done;
	l->buf[l->len] = 0;
}

/* Relay the hosts' ssh clients until all have ended. The first Ctrl-C
 * closes their stdin (stop), the next ones end them (SIGTERM). */
static void relay_all(struct session *s, struct host *hosts, int n)
{
	int stopped = 0;

	for (;;) {
		struct pollfd pfd[2 * n];
		struct host *who[2 * n];
		int kind[2 * n], m = 0, running = 0;

		if (interrupts > stopped) {
			for (int i = 0; i < n; i++) {
				if (hosts[i].in >= 0)
					close(hosts[i].in), hosts[i].in = -1;
				else if (hosts[i].pid > 0)
					kill(hosts[i].pid, SIGTERM);
			}
			stopped = interrupts;
		}
		for (int i = 0; i < n; i++) {
			struct host *h = &hosts[i];
			for (int k = 0; k < 2; k++)
				if (h->fd[k] >= 0) {
					pfd[m] = (struct pollfd){ .fd = h->fd[k], .events = POLLIN };
					who[m] = h;
					kind[m++] = k;
				}
			if (h->pid > 0) {
				int st;
				if (h->fd[0] < 0 && h->fd[1] < 0 && waitpid(h->pid, &st, 0) == h->pid) {
					h->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
					h->pid = 0;
					if (h->in >= 0)
						close(h->in), h->in = -1;
				} else {
					running++;
				}
			}
		}
		if (!running && !m)
			return;
		if (poll(pfd, (nfds_t)m, 1000) <= 0)
			continue;
		for (int j = 0; j < m; j++)
			if (pfd[j].revents)
				drain(s, who[j], kind[j]);
	}
}

/* Run cmd on every host at once (stdin: in_file, else a pipe kept open),
 * relaying their output. Clients that could not start get status 255; a
 * host cmd has nothing for (NULL) is skipped, status 0. */
static void run_on_all(struct session *s, struct host *hosts, int n, char *(*cmd)(struct session *, struct host *),
		       const char *(*in_file)(struct host *), bool keep)
{
	for (int i = 0; i < n; i++) {
		struct host *h = &hosts[i];
		char *c = cmd(s, h);
		h->keep = keep;
		strbuf_reset(&h->kept);
		h->status = c ? 255 : 0;
		if (c && ssh_start(h, c, in_file ? in_file(h) : NULL) < 0)
			fprintf(stderr, "stap: cannot start ssh for %s: %s\n", h->url, strerror(errno));
		free(c);
	}
	relay_all(s, hosts, n);
}

static char *uname_cmd(struct session *s, struct host *h)
{
	(void)s, (void)h;
	return xstrdup("uname -r && uname -m");
}

/* The module's path on h: in the directory the copy made there. */
static char *remote_ko(struct session *s, struct host *h)
{
	return xasprintf("%s/%s.ko", h->rdir, s->module_name);
}

/* A private directory (mktemp -d: 0700, a new name) and the module into it;
 * its path on stdout, which the copy's session keeps. A failed copy leaves
 * nothing behind. */
static char *copy_cmd(struct session *s, struct host *h)
{
	(void)h;
	char *name = xasprintf("%s.ko", s->module_name);
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, "umask 077; d=$(mktemp -d \"${TMPDIR:-/tmp}/stapremote.XXXXXX\") || exit 1; cat > \"$d\"/");
	strbuf_add_shell_quoted(&sb, name);
	strbuf_addstr(&sb, " || { rm -rf \"$d\"; exit 1; }; printf '%s\\n' \"$d\"");
	free(name);
	return strbuf_detach(&sb);
}

/* The directory the copy printed (its last line): an absolute path, else
 * NULL (a shell's startup files may print before it). */
static char *copied_dir(struct host *h)
{
	const char *out = h->kept.buf;
	size_t len = h->kept.len;

	while (len && out[len - 1] == '\n')
		len--;
	const char *line = out + len;
	while (line > out && line[-1] != '\n')
		line--;
	if (len == (size_t)(line - out) || *line != '/')
		return NULL;
	return xstrndup(line, len - (size_t)(line - out));
}

/* the copy's stdin: the module built for h's release */
static const char *ko_of(struct host *h)
{
	return h->ko;
}

/* Shell that sets d to h's directory and goes on only if it is still what
 * the copy made: a directory (not a link to one) of this user, mode 0700.
 * Otherwise someone replaced it, and neither the module in it nor the
 * directory is touched. */
static void add_private_dir_check(struct strbuf *sb, struct host *h)
{
	strbuf_addstr(sb, "d=");
	strbuf_add_shell_quoted(sb, h->rdir);
	strbuf_addstr(sb, "; set -- $(ls -ldn \"$d\" 2>/dev/null); case \"$1:$3\" in \"drwx------\"*\":$(id -u)\") ;; "
		      "*) echo \"stap: $d is no longer a private directory of $(id -un): module not loaded\" >&2; exit 1;; esac; ");
}

/* staprun in the background with its index and URL (remote_id(),
 * remote_uri()); when the session's stdin ends (our Ctrl-C, or ssh lost),
 * SIGTERM stops it as Ctrl-C would; the module's directory goes after the
 * run. */
static char *run_cmd(struct session *s, struct host *h)
{
	strvec argv = { 0 };
	char *ko = remote_ko(s, h);
	char *id = xasprintf("%d:%s", h->index, h->url);
	struct strbuf sb = STRBUF_INIT;

	staprun_args(s, &argv, ko, s->cmd, true);
	add_private_dir_check(&sb, h);
	strbuf_addstr(&sb, "exec 3<&0; staprun -r ");
	strbuf_add_shell_quoted(&sb, id);
	for (int i = 1; argv.items[i]; i++) {
		strbuf_addch(&sb, ' ');
		strbuf_add_shell_quoted(&sb, argv.items[i]);
	}
	strbuf_addstr(&sb, " </dev/null & p=$!; (read x <&3; kill -TERM $p) 2>/dev/null & w=$!; "
		      "wait $p; rc=$?; kill $w 2>/dev/null; rm -rf \"$d\"; exit $rc");
	free(argv.items);
	free(id);
	free(ko);
	return strbuf_detach(&sb);
}

/* A copied module that will not run (another host failed, or Ctrl-C): its
 * directory goes. Hosts without one are skipped (NULL). */
static char *cleanup_cmd(struct session *s, struct host *h)
{
	(void)s;
	if (!h->rdir)
		return NULL;
	struct strbuf sb = STRBUF_INIT;
	add_private_dir_check(&sb, h);
	strbuf_addstr(&sb, "rm -rf \"$d\"");
	return strbuf_detach(&sb);
}

/* Passes 1-4 for one release in a child (its session is ours as parsed,
 * retargeted); the module is copied to `out`. */
static int build_for(struct session *s, int (*build)(struct session *), const char *release, const char *out)
{
	fflush(NULL);
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		target_kernel_retarget(s, release);
		int rc = build(s);
		if (rc == 0 && copy_file(s->ko_file, out) != 0) {
			diag(s, R_REMOTE, (struct srcpos){0}, "cannot copy the module to %s: %s", out, strerror(errno));
			rc = 1;
		}
		cleanup_session(s);
		fflush(NULL);
		_exit(rc ? (rc > 0 && rc < 256 ? rc : 1) : 0);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* "ssh exited with 255" is ssh's own failure (it printed why) */
static bool host_failed(struct session *s, struct host *h, const char *what)
{
	if (h->status == 0)
		return false;
	diag(s, R_REMOTE, (struct srcpos){0}, "%s: %s failed (ssh exit status %d)", h->url, what, h->status);
	return true;
}

/* The copy told where it put the module on h (h->rdir); false: it did not. */
static bool copied(struct session *s, struct host *h)
{
	h->rdir = copied_dir(h);
	if (h->rdir)
		return true;
	diag(s, R_REMOTE, (struct srcpos){0}, "%s: the copy did not say where the module went", h->url);
	return false;
}

int pass5_ssh(struct session *s, int (*build)(struct session *))
{
	int n = s->ssh_remotes.len, rc = 0;
	bool ran = false;
	struct host *hosts = xcalloc((size_t)n, sizeof(*hosts));
	struct sigaction sa = { .sa_handler = on_interrupt }, old_int, old_term;
	char *work = xasprintf("%s/stapremoteXXXXXX", s->tmp_base ? s->tmp_base : "/tmp");

	for (int i = 0; i < n; i++) {
		struct host *h = &hosts[i];
		*h = (struct host){ .index = i, .url = s->ssh_remotes.items[i], .in = -1, .fd = { -1, -1 },
				    .line = { STRBUF_INIT, STRBUF_INIT }, .kept = STRBUF_INIT };
		if (!parse_url(h)) {
			diag(s, O_USAGE, (struct srcpos){0}, "--remote: bad ssh URL '%s' (ssh://[USER@]HOST[:PORT])", h->url);
			return 1;
		}
	}
	const char *what, *use, *opt = staprun_here_only(s, &what, &use);
	if (opt) {
		diag(s, O_USAGE, (struct srcpos){0}, "%s is not supported with --remote=ssh (build with -p4 and run "
		     "staprun %s on each host)", opt, use);
		return 1;
	}
	if (!mkdtemp(work)) {
		diag(s, R_REMOTE, (struct srcpos){0}, "cannot create a directory in %s: %s", s->tmp_base ? s->tmp_base : "/tmp", strerror(errno));
		return 1;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	/* each host's kernel */
	run_on_all(s, hosts, n, uname_cmd, NULL, true);
	for (int i = 0; i < n && !interrupts; i++) {
		struct host *h = &hosts[i];
		char *nl = strchr(h->kept.buf, '\n');
		if (host_failed(s, h, "asking its kernel (uname)") || !nl) {
			rc = 1;
			continue;
		}
		h->release = xstrndup(h->kept.buf, (size_t)(nl - h->kept.buf));
		h->machine = xstrndup(nl + 1, strcspn(nl + 1, "\n"));
		if (strcmp(h->machine, "x86_64")) {
			diag(s, R_REMOTE, (struct srcpos){0}, "%s runs %s; cstap builds for x86_64 only", h->url, h->machine);
			rc = 1;
		}
		if (s->verbose)
			fprintf(stderr, "stap: %s runs kernel %s\n", h->url, h->release);
	}

	/* one build per release, hosts in order */
	for (int i = 0; i < n && !rc && !interrupts; i++) {
		struct host *h = &hosts[i];
		for (int k = 0; k < i && !h->ko; k++)
			if (!strcmp(hosts[k].release, h->release))
				h->ko = hosts[k].ko;
		if (h->ko)
			continue;
		char *dir = xasprintf("%s/%d", work, i);
		mkdir(dir, 0700);
		h->ko = xasprintf("%s/%s.ko", dir, s->module_name);
		free(dir);
		if (s->verbose)
			fprintf(stderr, "stap: building for kernel %s\n", h->release);
		if (build_for(s, build, h->release, h->ko))
			rc = 1;
	}

	/* copy, then run everywhere at once */
	if (!rc && !interrupts) {
		run_on_all(s, hosts, n, copy_cmd, ko_of, true);
		for (int i = 0; i < n; i++)
			rc |= host_failed(s, &hosts[i], "copying the module") || !copied(s, &hosts[i]);
	}
	if (!rc && !interrupts) {
		if (s->output_file && !freopen(s->output_file, "w", stdout)) {
			diag(s, R_RUN, (struct srcpos){0}, "cannot open output file '%s'", s->output_file);
			rc = 1;
		} else {
			ran = true;
			if (s->verbose)
				fprintf(stderr, "Pass 5: starting run on %d host%s.\n", n, n == 1 ? "" : "s");
			run_on_all(s, hosts, n, run_cmd, NULL, false);
			if (s->verbose)
				fprintf(stderr, "Pass 5: run completed.\n");
			for (int i = 0; i < n; i++)
				if (hosts[i].status) {
					if (s->verbose || hosts[i].status == 255)
						host_failed(s, &hosts[i], "the run");
					rc = hosts[i].status;
				}
		}
	}
	if (!ran)
		run_on_all(s, hosts, n, cleanup_cmd, NULL, false);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	for (int i = 0; i < n; i++)
		if (hosts[i].ko)
			unlink(hosts[i].ko);
	for (int i = 0; i < n; i++) {
		char *dir = xasprintf("%s/%d", work, i);
		rmdir(dir);
		free(dir);
	}
	rmdir(work);
	free(work);
	if (!ran && interrupts && !rc)
		rc = 130;   /* stopped before the run, as a shell counts SIGINT */
	return rc;
}
