/* boot.c - one boot of the QEMU guest: start qemu with four serial
 * ports on socketpairs, relay the channels (see guest.c) while it
 * runs, forward SIGINT, enforce the time limit, and judge the outcome from
 * the control channel and the kernel console log.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "env.h"

enum { CH_CONSOLE, CH_OUT, CH_ERR, CH_CTL, NCH };

/*
 * Kernel console lines that mean the guest kernel is in trouble; any of
 * them fails the run. "WARNING:" is WARN() and lockdep, printed at
 * KERN_WARNING: the guest boots with loglevel=5 so that the console shows it.
 * Not "Call Trace:" alone: every trouble above has its own headline, and a
 * script may call dump_stack() on purpose (tapset logging.stp).
 */
static const char *const trouble[] = {
	"Kernel panic", "BUG:", "Oops", "general protection fault", "WARNING:",
	"soft lockup", "hard LOCKUP", "hung_task", "blocked for more than",
	"Attempted to kill init", "rcu: INFO:", "self-detected stall", "detected stalls on CPU",
};

struct boot {
	struct vm_config *cfg;
	const struct vm_job *jobs;   /* batch, or NULL */
	int njobs;
	const char *outdir;

	int fd[NCH];                 /* host ends of the serial ports; -1 at EOF */
	int logfd;
	char *log_path;
	bool log_is_temp;
	pid_t qemu;
	bool qemu_exited;
	int qemu_status;

	double t0, t_up, t_done;
	double t_frame;         /* the last job's results came (or the guest came up) */
	bool up, done, have_rc, int_pending, timed_out, corrupt;
	int status;                  /* interactive: the command's exit status */
	int nint;                    /* SIGINTs received */
	int fatal_sig;               /* SIGTERM/SIGHUP/second SIGINT: guest killed */
	bool out_dead, err_dead;     /* our stdout/stderr gone (EPIPE): discard */

	struct strbuf line;          /* partial control line */
	int fstate;                  /* batch frame: 0 none, 1 header, 2 OUT, 3 ERR */
	int fid, frc, ftimedout;
	struct strbuf fout, ferr;
	int results;
};

static int sig_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	int e = errno;
	char c = (char)sig;

	if (write(sig_pipe[1], &c, 1) < 0) {
		/* the pipe is full: enough signals are queued */
	}
	errno = e;
}

static const int caught[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
static struct sigaction saved[4];

/* SIGINT/SIGTERM/SIGHUP become events on the poll loop (a signal that
 * comes while the initrd is built waits there); SIGPIPE is ignored (a closed
 * stdout must not kill us while qemu runs). */
int vm_signals_catch(void)
{
	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	for (int i = 0; i < 4; i++) {
		struct sigaction sa = { 0 };
		sa.sa_handler = caught[i] == SIGPIPE ? SIG_IGN : on_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(caught[i], &sa, &saved[i]);
	}
	return 0;
}

void vm_signals_restore(void)
{
	for (int i = 0; i < 4; i++)
		sigaction(caught[i], &saved[i], NULL);
	close(sig_pipe[0]);
	close(sig_pipe[1]);
	sig_pipe[0] = sig_pipe[1] = -1;
}

/* Write everything, waiting if fd is non-blocking; -1 if the reader is gone. */
static int write_fd(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN) {
				struct pollfd pf = { .fd = fd, .events = POLLOUT };
				poll(&pf, 1, 1000);
				continue;
			}
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static char *qemu_binary(struct vm_config *cfg)
{
	const char *q = cfg->qemu;

	if (!q || !*q)
		q = env_or(ENV_CSTAP_QEMU, "qemu-system-x86_64");
	if (strchr(q, '/'))
		return access(q, X_OK) == 0 ? xstrdup(q) : NULL;
	const char *path = env_get(ENV_PATH);
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *s = path; *s;) {
		size_t n = strcspn(s, ":");
		char *p = xasprintf("%.*s/%s", (int)n, n ? s : ".", q);
		if (access(p, X_OK) == 0)
			return p;
		free(p);
		s += n;
		if (*s == ':')
			s++;
	}
	return NULL;
}

/* Start qemu in its own process group (a terminal's Ctrl-C reaches only us:
 * we decide what the guest gets), dying with us, its own messages in the
 * console log. The guest ends of the socketpairs are passed by number. */
static int spawn_qemu(struct boot *b, const char *initrd, int guest_fd[NCH])
{
	struct vm_config *cfg = b->cfg;
	char *qemu = qemu_binary(cfg);
	VEC(char *) av = { 0 };

	if (!qemu) {
		vm_msg("cannot find %s (apt-get install qemu-system-x86)",
		       cfg->qemu ? cfg->qemu : env_get(ENV_CSTAP_QEMU) ? env_get(ENV_CSTAP_QEMU) : "qemu-system-x86_64");
		return -1;
	}
	vec_push(&av, qemu);
	vec_push(&av, (char *)"-accel");
	vec_push(&av, (char *)(cfg->cpus > 1 ? "tcg,thread=single" : "tcg"));
	vec_push(&av, (char *)"-cpu");
	vec_push(&av, (char *)"max");
	vec_push(&av, (char *)"-m");
	vec_push(&av, xasprintf("%d", cfg->mem_mb));
	vec_push(&av, (char *)"-smp");
	vec_push(&av, xasprintf("%d", cfg->cpus));
	vec_push(&av, (char *)"-nodefaults");
	vec_push(&av, (char *)"-no-user-config");
	vec_push(&av, (char *)"-display");
	vec_push(&av, (char *)"none");
	vec_push(&av, (char *)"-no-reboot");
	vec_push(&av, (char *)"-kernel");
	vec_push(&av, (char *)cfg->kernel);
	vec_push(&av, (char *)"-initrd");
	vec_push(&av, (char *)initrd);
	vec_push(&av, (char *)"-append");
	/* quiet hides KERN_WARNING (WARN()'s report); loglevel=5 shows it */
	vec_push(&av, xasprintf("console=ttyS0 quiet loglevel=5 panic=-1 oops=panic%s%s",
				cfg->append ? " " : "", cfg->append ? cfg->append : ""));
	if (cfg->forwards.len) {
		struct strbuf net = STRBUF_INIT;
		strbuf_addstr(&net, "user,id=net0");
		for (int i = 0; i < cfg->forwards.len; i++) {
			const char *f = cfg->forwards.items[i];
			strbuf_addf(&net, ",hostfwd=tcp:127.0.0.1:%.*s-:%s", (int)strcspn(f, ":"), f,
				    strchr(f, ':') + 1);
		}
		vec_push(&av, (char *)"-netdev");
		vec_push(&av, strbuf_detach(&net));
		vec_push(&av, (char *)"-device");
		vec_push(&av, (char *)"virtio-net-pci,netdev=net0");
	}
	for (int i = 0; i < NCH; i++) {
		vec_push(&av, (char *)"-chardev");
		vec_push(&av, xasprintf("socket,id=s%d,fd=%d", i, guest_fd[i]));
		vec_push(&av, (char *)"-serial");
		vec_push(&av, xasprintf("chardev:s%d", i));
	}
	vec_push(&av, NULL);
	if (cfg->verbose) {
		struct strbuf sb = STRBUF_INIT;
		for (int i = 0; av.items[i]; i++)
			strbuf_addf(&sb, "%s%s", i ? " " : "", av.items[i]);
		vm_msg("%s", sb.buf);
		strbuf_release(&sb);
	}

	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		vm_msg("cannot fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		for (int i = 0; i < 4; i++)
			signal(caught[i], SIG_DFL);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		for (int i = 0; i < NCH; i++)
			fcntl(guest_fd[i], F_SETFD, 0);
		int null = open("/dev/null", O_RDONLY);
		dup2(null, 0);
		dup2(b->logfd, 1);
		dup2(b->logfd, 2);
		execv(av.items[0], av.items);
		dprintf(2, "cannot run %s: %s\n", av.items[0], strerror(errno));
		_exit(127);
	}
	b->qemu = pid;
	return 0;
}

/* Tell the guest to interrupt its job (once it listens: after "UP"). */
static void send_int(struct boot *b)
{
	if (b->fd[CH_CTL] >= 0 && write_fd(b->fd[CH_CTL], "INT\n", 4) == 0)
		b->int_pending = false;
}

static bool valid_b64(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '+' || c == '/';
}

/* Decode base64 (whitespace ignored) into out; -1 if malformed. */
static int b64_decode(const char *s, size_t n, struct strbuf *out)
{
	unsigned acc = 0;
	int bits = 0, pad = 0;

	for (size_t i = 0; i < n; i++) {
		int c = (unsigned char)s[i], v;
		if (c == '\n' || c == '\r' || c == ' ')
			continue;
		if (c == '=') {
			pad++;
			continue;
		}
		if (pad || !valid_b64(c))
			return -1;
		if (c >= 'A' && c <= 'Z')
			v = c - 'A';
		else if (c >= 'a' && c <= 'z')
			v = c - 'a' + 26;
		else if (c >= '0' && c <= '9')
			v = c - '0' + 52;
		else
			v = c == '+' ? 62 : 63;
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			strbuf_addch(out, (char)((acc >> bits) & 0xff));
		}
	}
	return pad > 2 ? -1 : 0;
}

/* A batch job's frame is complete: write NAME.out, NAME.err, NAME.rc, and
 * NAME.secs (since the previous job's results: the jobs run one after the
 * other, so about the job's time in the guest; where a suite's time goes). */
static void finish_frame(struct boot *b)
{
	if (b->fid < 1 || b->fid > b->njobs) {
		vm_msg("the guest sent results for an unknown job %d", b->fid);
		b->corrupt = true;
		return;
	}
	const char *name = b->jobs[b->fid - 1].name;
	struct strbuf out = STRBUF_INIT, err = STRBUF_INIT;
	if (b64_decode(b->fout.buf, b->fout.len, &out) < 0 || b64_decode(b->ferr.buf, b->ferr.len, &err) < 0) {
		vm_msg("job %s: corrupt results from the guest", name);
		b->corrupt = true;
	}
	char *p = xasprintf("%s/%s.out", b->outdir, name);
	char *rc = xasprintf("%d\n", b->frc);
	int w = write_file(p, out.buf, out.len);
	free(p);
	p = xasprintf("%s/%s.err", b->outdir, name);
	w |= write_file(p, err.buf, err.len);
	free(p);
	p = xasprintf("%s/%s.rc", b->outdir, name);
	w |= write_file(p, rc, strlen(rc));
	free(p);
	double t = now_ms();
	char *secs = xasprintf("%.1f\n", (t - (b->t_frame ? b->t_frame : b->t0)) / 1e3);
	b->t_frame = t;
	p = xasprintf("%s/%s.secs", b->outdir, name);
	w |= write_file(p, secs, strlen(secs));
	free(secs);
	if (w)
		vm_msg("cannot write the results of job %s in %s: %s", name, b->outdir, strerror(errno));
	free(p);
	free(rc);
	strbuf_release(&out);
	strbuf_release(&err);
	if (b->ftimedout)
		vm_msg("job %s timed out after %d s", name,
		       b->jobs[b->fid - 1].timeout_s > 0 ? b->jobs[b->fid - 1].timeout_s : 60);
	if (b->cfg->verbose)
		vm_msg("job %s: status %d (%.1f s since boot)", name, b->frc, (now_ms() - b->t0) / 1e3);
	b->results++;
}

/* One line from the guest's control channel (protocol: guest.c). */
static void ctl_line(struct boot *b, char *l)
{
	/* inside a frame every line is base64 (a multiple of 4 characters) up to
	 * "ERR" or "END <id>" */
	if (b->fstate >= 2 && strcmp(l, "ERR") && strncmp(l, "END ", 4)) {
		strbuf_addstr(b->fstate == 2 ? &b->fout : &b->ferr, l);
		return;
	}
	if (!strcmp(l, "UP")) {
		b->up = true;
		b->t_up = now_ms();
		b->t_frame = b->t_up;
		if (b->cfg->verbose)
			vm_msg("guest up after %.2f s", (b->t_up - b->t0) / 1e3);
		if (b->int_pending)
			send_int(b);
	} else if (!strncmp(l, "RC ", 3)) {
		b->status = atoi(l + 3);
		b->have_rc = true;
		b->t_done = now_ms();
	} else if (sscanf(l, "RESULT %d %d %d", &b->fid, &b->frc, &b->ftimedout) == 3) {
		b->fstate = 1;
		strbuf_reset(&b->fout);
		strbuf_reset(&b->ferr);
	} else if (b->fstate && !strcmp(l, "OUT")) {
		b->fstate = 2;
	} else if (b->fstate && !strcmp(l, "ERR")) {
		b->fstate = 3;
	} else if (b->fstate && !strncmp(l, "END ", 4)) {
		finish_frame(b);
		b->fstate = 0;
	} else if (!strcmp(l, "DONE")) {
		b->done = true;
		b->t_done = now_ms();
		if (b->cfg->verbose)
			vm_msg("guest done after %.2f s", (b->t_done - b->t0) / 1e3);
	} else {
		vm_msg("unexpected line from the guest: %.80s", l);
		b->corrupt = true;
	}
}

static void on_ctl(struct boot *b, const char *p, size_t n)
{
	strbuf_add(&b->line, p, n);
	char *s = b->line.buf, *nl;
	while ((nl = memchr(s, '\n', b->line.len - (size_t)(s - b->line.buf)))) {
		*nl = 0;
		ctl_line(b, s);
		s = nl + 1;
	}
	size_t rest = b->line.len - (size_t)(s - b->line.buf);
	memmove(b->line.buf, s, rest);
	b->line.len = rest;
	b->line.buf[rest] = 0;
}

/* Console bytes: to the log without the serial console's '\r's (and to our
 * stderr with -vv). */
static void on_console(struct boot *b, const char *p, size_t n)
{
	char buf[4096];
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (p[i] != '\r')
			buf[m++] = p[i];
	write_fd(b->logfd, buf, m);
	if (b->cfg->verbose > 1)
		write_fd(2, buf, m);
}

static void on_channel(struct boot *b, int ch)
{
	char buf[4096];
	ssize_t n = read(b->fd[ch], buf, sizeof(buf));

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(b->fd[ch]);
		b->fd[ch] = -1;
		return;
	}
	switch (ch) {
	case CH_CONSOLE:
		on_console(b, buf, (size_t)n);
		break;
	case CH_OUT:
		if (!b->out_dead && write_fd(1, buf, (size_t)n) < 0)
			b->out_dead = true;
		break;
	case CH_ERR:
		if (!b->err_dead && write_fd(2, buf, (size_t)n) < 0)
			b->err_dead = true;
		break;
	case CH_CTL:
		on_ctl(b, buf, (size_t)n);
		break;
	}
}

static void kill_qemu(struct boot *b)
{
	if (b->qemu > 0 && !b->qemu_exited)
		kill(b->qemu, SIGKILL);
}

static void on_signal_event(struct boot *b)
{
	char c;

	while (read(sig_pipe[0], &c, 1) == 1) {
		if (c == SIGINT && ++b->nint == 1) {
			if (b->cfg->verbose || b->jobs)
				vm_msg("interrupt: forwarding SIGINT to the guest (again to kill the guest)");
			b->int_pending = true;
			if (b->up)
				send_int(b);
		} else {
			b->fatal_sig = c;
			kill_qemu(b);
		}
	}
}

/* The relay loop: until qemu is gone and every channel is drained. */
static void relay(struct boot *b)
{
	double deadline = b->t0 + b->cfg->timeout_s * 1e3, exited_at = 0;

	for (;;) {
		struct pollfd pf[NCH + 1];
		int map[NCH + 1], n = 0;
		for (int i = 0; i < NCH; i++)
			if (b->fd[i] >= 0) {
				pf[n] = (struct pollfd){ .fd = b->fd[i], .events = POLLIN };
				map[n++] = i;
			}
		pf[n] = (struct pollfd){ .fd = sig_pipe[0], .events = POLLIN };
		map[n] = -1;
		if (!b->qemu_exited) {
			int st = 0;
			pid_t w = waitpid(b->qemu, &st, WNOHANG);
			if (w == b->qemu || (w < 0 && errno == ECHILD)) {   /* ECHILD: reaped by
									      the caller's handler */
				b->qemu_exited = true;
				b->qemu_status = st;
				exited_at = now_ms();
			}
		}
		if (b->qemu_exited && (n == 0 || now_ms() - exited_at > 2000))
			break;
		double now = now_ms();
		if (!b->qemu_exited && b->cfg->timeout_s > 0 && now > deadline) {
			b->timed_out = true;
			kill_qemu(b);
		}
		/* finished but not powered off: no need to wait long */
		if (!b->qemu_exited && (b->done || b->have_rc) && now - b->t_done > 15000)
			kill_qemu(b);
		if (poll(pf, (nfds_t)n + 1, 100) <= 0)
			continue;
		for (int i = 0; i <= n; i++) {
			if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (map[i] < 0)
				on_signal_event(b);
			else
				on_channel(b, map[i]);
		}
	}
}

/* Print the console lines that show kernel trouble (at most 12). */
static int print_trouble(const char *log)
{
	int found = 0;

	for (const char *l = log; *l && found < 12;) {
		const char *e = strchr(l, '\n');
		size_t n = e ? (size_t)(e - l) : strlen(l);
		for (size_t k = 0; k < sizeof(trouble) / sizeof(trouble[0]); k++) {
			if (memmem(l, n, trouble[k], strlen(trouble[k]))) {
				fprintf(stderr, "  | %.*s\n", (int)n, l);
				found++;
				break;
			}
		}
		l = e ? e + 1 : l + n;
	}
	return found;
}

static void print_tail(const char *log, int lines)
{
	size_t len = strlen(log);
	const char *s = log + len;

	if (s > log && s[-1] == '\n')
		s--;
	for (int k = 0; s > log; s--)
		if (s[-1] == '\n' && ++k == lines)
			break;
	fprintf(stderr, "--- last lines of the guest console ---\n%s%s--- end of console ---\n", s,
		len && log[len - 1] != '\n' ? "\n" : "");
}

static bool has_trouble(const char *log)
{
	for (size_t k = 0; k < sizeof(trouble) / sizeof(trouble[0]); k++)
		if (strstr(log, trouble[k]))
			return true;
	return false;
}

/* Judge the run; on failure say why, with the console's tail. */
static int verdict(struct boot *b)
{
	char *log = read_file(b->log_path, NULL);
	bool finished = b->jobs ? b->done : (b->have_rc || b->done);
	int ret = 0;

	if (!log)
		log = xstrdup("");
	if (b->fatal_sig) {
		vm_msg("guest killed (%sSIG%s on the host); console log: %s",
		       b->fatal_sig == SIGINT ? "second " : "", sigabbrev_np(b->fatal_sig), b->log_path);
		ret = -1;
	} else if (!finished) {
		const char *why;
		if (b->timed_out)
			why = xasprintf("timed out after %d s", b->cfg->timeout_s);
		else if (strstr(log, "Kernel panic"))
			why = "the guest kernel panicked";
		else if (b->qemu_exited && WIFEXITED(b->qemu_status) && WEXITSTATUS(b->qemu_status))
			why = xasprintf("qemu exited with status %d", WEXITSTATUS(b->qemu_status));
		else if (b->qemu_exited && WIFSIGNALED(b->qemu_status))
			why = xasprintf("qemu killed by SIG%s", sigabbrev_np(WTERMSIG(b->qemu_status)));
		else
			why = "the guest stopped early";
		vm_msg("the guest did not %s: %s; console log: %s", b->up ? "finish" : "boot", why, b->log_path);
		print_trouble(log);
		print_tail(log, 25);
		ret = -1;
	} else if (b->corrupt) {
		vm_msg("garbled messages from the guest; console log: %s", b->log_path);
		ret = -1;
	} else if (has_trouble(log)) {
		/* the run finished, but a warning, stall or lockup is a failure too */
		vm_msg("the guest kernel reported problems; console log: %s", b->log_path);
		print_trouble(log);
		ret = -1;
	}
	if (ret < 0)
		b->log_is_temp = false;
	free(log);
	return ret;
}

/* The console log: cfg->console_log, or a temp file kept only on trouble. */
static int open_log(struct boot *b)
{
	if (b->cfg->console_log) {
		b->log_path = xstrdup(b->cfg->console_log);
		b->logfd = open(b->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	} else {
		b->log_path = xasprintf("%s/cstap-vm-XXXXXX.console", env_or(ENV_TMPDIR, "/tmp"));
		b->logfd = mkostemps(b->log_path, 8, O_APPEND | O_CLOEXEC);
		b->log_is_temp = true;
	}
	if (b->logfd < 0) {
		vm_msg("cannot create the console log %s: %s", b->log_path, strerror(errno));
		return -1;
	}
	return 0;
}

/* One line per boot in $CSTAP_VM_TIMES, so that make check can say how many
 * boots each suite made and how long they took (O_APPEND: suites that run
 * at once share the file). */
static void note_boot_time(const struct boot *b)
{
	const char *path = env_get(ENV_CSTAP_VM_TIMES);
	FILE *f;

	if (!path || !*path || !(f = fopen(path, "a")))
		return;
	fprintf(f, "%s\t%d\t%d\t%.1f\n", b->cfg->release ? b->cfg->release : "-",
		b->cfg->cpus > 1 ? b->cfg->cpus : 1, b->jobs ? b->njobs : 0, (now_ms() - b->t0) / 1e3);
	fclose(f);
}

int vm_boot(struct vm_config *cfg, const char *initrd, const struct vm_job *jobs, int njobs,
	    const char *outdir, int *status)
{
	struct boot b = { .cfg = cfg, .jobs = jobs, .njobs = njobs, .outdir = outdir, .logfd = -1 };
	int guest_fd[NCH], ret = -1;

	strbuf_init(&b.line);
	strbuf_init(&b.fout);
	strbuf_init(&b.ferr);
	for (int i = 0; i < NCH; i++)
		b.fd[i] = guest_fd[i] = -1;
	if (open_log(&b) < 0)
		goto out;
	for (int i = 0; i < NCH; i++) {
		int sp[2];
		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0) {
			vm_msg("socketpair: %s", strerror(errno));
			goto out;
		}
		b.fd[i] = sp[0];
		guest_fd[i] = sp[1];
		fcntl(b.fd[i], F_SETFL, O_NONBLOCK);
	}
	fflush(stdout);
	fflush(stderr);
	b.t0 = now_ms();
	if (spawn_qemu(&b, initrd, guest_fd) == 0) {
		for (int i = 0; i < NCH; i++) {
			close(guest_fd[i]);
			guest_fd[i] = -1;
		}
		relay(&b);
		kill_qemu(&b);
		if (!b.qemu_exited) {
			while (waitpid(b.qemu, &b.qemu_status, 0) < 0 && errno == EINTR)
				;
			b.qemu_exited = true;
		}
		if (cfg->verbose)
			vm_msg("qemu ran %.2f s", (now_ms() - b.t0) / 1e3);
		note_boot_time(&b);
		ret = verdict(&b);
		if (status)
			*status = b.status;
		if (ret == 0 && jobs && b.results < njobs) {
			vm_msg("%s%d of %d jobs did not run", b.nint ? "interrupted: " : "", njobs - b.results, njobs);
			ret = -1;
		}
	}
out:
	for (int i = 0; i < NCH; i++) {
		if (b.fd[i] >= 0)
			close(b.fd[i]);
		if (guest_fd[i] >= 0)
			close(guest_fd[i]);
	}
	if (b.logfd >= 0)
		close(b.logfd);
	if (b.log_is_temp)   /* verdict() keeps the log when it names it */
		unlink(b.log_path);
	free(b.log_path);
	strbuf_release(&b.line);
	strbuf_release(&b.fout);
	strbuf_release(&b.ferr);
	return ret;
}
