/* stapio: the user-space half of a running cstap session.
 *
 * Started by staprun once the module is loaded. Talks to the module over
 * /proc/cstap_<module> (records of runtime/ctl_proto.h): checks HELLO,
 * starts the -c command only after the begin probes ran, relays module
 * output to stdout (or -o FILE) and messages to stderr, turns signals, the
 * end of the -c command and the module's EXIT into one STOP, and on
 * DONE prints the summary and exits with the session's status
 * (session_status: 1 if there were run-time errors, else the script's
 * exit_status() if it called it, else 1 if the -c command failed).
 * It can also leave the session running and exit (detach: -L once the
 * begin probes ran, or SIGQUIT at any time), and a later stapio -A attaches
 * to it: the module keeps its output meanwhile (dropped, and counted, when
 * the buffer fills).
 *
 * usage: stapio [-v] [-L | -A] [-F FD] [-N FD] [-o FILE [-S MB[,N]]] [-c CMD] [-x PID] [-T MS] [-s MB] MODULE_NAME
 * (-F: the control file, opened by a setuid staprun for a user who cannot;
 * -N: staprun's note pipe, told when stapio detached;
 * -T: the longest wait between reads, SystemTap's reader timeout)
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <time.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl_proto.h"
#include "stapio_cmd.h"
#include "stapio_system.h"
#include "stapio_bulk.h"
#include "write_all.h"

#define READ_BUF_SIZE (4 * STP_MIN_READ)
/* The reader's pace (relay()): after READ_RAPID small drains in a row,
 * each begun less than READ_RAPID_MS after the last ended (the reader
 * feeding itself), a pause of READ_GAP_MS (SystemTap's reader wakes every
 * 200 ms). */
#define READ_RAPID 8
#define READ_RAPID_MS 2
#define READ_GAP_MS 100

/* A monotonic clock in milliseconds. */
static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* One run relayed: options, the module's control file, the output, the -c child. */
struct relay {
	int verbose;
	const char *out_path;
	const char *cmd;
	pid_t target;		/* -x PID or the -c child */
	int poll_ms;		/* -T MS: the longest wait before reading the module's
				 * buffer (SystemTap's reader timeout) */
	unsigned bufsize_mb;	/* -s MB, for the dropped-output hint */
	const char *modname;
	bool load_only;		/* -L: start the session, then detach */
	bool no_warnings;	/* -w: drop the script's WARNING: lines */
	bool attach;		/* -A: the session runs already: no START */

	int ctl;		/* /proc/cstap_<modname> */
	int note;		/* -N FD: staprun's note pipe, or -1 */
	int out;		/* stdout or -o FILE */
	unsigned out_seq;	/* switch_file() count: FILE, FILE.1, FILE.2 ... */
	uint64_t out_max;	/* -S SIZE: bytes per file (FILE.0, FILE.1 ...), 0 = no limit */
	unsigned out_keep;	/* -S SIZE,N: files kept, the oldest removed; 0 = all */
	uint64_t out_bytes;	/* written to the current file */
	struct cmd_child child;	/* the -c command */
	bool stop_sent, done, detached;
	struct stp_msg_done summary;
	int stdin_file;		/* /proc/systemtap/<modname>/__stdin (input.*), or -1 */
	struct bulk_files bulk;	/* stap -b: a file per CPU */
};

static int sig_pipe[2] = { -1, -1 };

/* Signals only note themselves; the main loop acts (async-signal safety). */
static void on_signal(int sig)
{
	int saved = errno;
	unsigned char b = (unsigned char)sig;

	if (write(sig_pipe[1], &b, 1) < 0) {
		/* pipe full: a STOP is already on its way */
	}
	errno = saved;
}

static void verbose(const struct relay *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->verbose)
		return;
	va_start(ap, fmt);
	fputs("stapio: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static void error_msg(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = snprintf(buf, sizeof(buf), "ERROR: ");
	n += vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(2, buf, n) < 0) {
		/* nowhere left to report it */
	}
}


/* Ask the module (once) to stop: it runs end probes and then sends DONE. */
static void send_stop(struct relay *s, const char *why)
{
	struct stp_msg m = { .type = STP_MSG_STOP, .len = 0 };

	if (s->stop_sent)
		return;
	s->stop_sent = true;
	verbose(s, "sending STOP (%s)", why);
	while (write(s->ctl, &m, sizeof(m)) < 0) {
		if (errno == EINTR)
			continue;
		error_msg("cannot send STOP to the module: %s", strerror(errno));
		s->done = true;
		return;
	}
}

/* Open -o FILE (seq 0) or FILE.seq, truncated; -1 on failure (reported).
 * With -S every file is numbered, from FILE.0, as SystemTap's are. */
static int open_output(const struct relay *s, unsigned seq)
{
	char *path = NULL;
	int fd;

	if ((seq || s->out_max) && asprintf(&path, "%s.%u", s->out_path, seq) < 0) {
		error_msg("out of memory");
		return -1;
	}
	fd = open(path ? path : s->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		error_msg("cannot open output file %s: %s", path ? path : s->out_path, strerror(errno));
	free(path);
	return fd;
}

/* switch_file(): later output goes to the next file (as SystemTap's stapio
 * names them: FILE, FILE.1, FILE.2 ...); to stdout there is nothing to do. */
static void switch_output(struct relay *s)
{
	int fd;

	if (!s->out_path)
		return;
	fd = open_output(s, s->out_seq + 1);
	if (fd < 0)
		return;	/* keep writing to the current file */
	close(s->out);
	s->out = fd;
	s->out_seq++;
	s->out_bytes = 0;
	verbose(s, "output switched to %s.%u", s->out_path, s->out_seq);
	if (s->out_keep && s->out_seq >= s->out_keep) {	/* -S SIZE,N: the oldest goes */
		char *old;

		if (asprintf(&old, "%s.%u", s->out_path, s->out_seq - s->out_keep) >= 0) {
			unlink(old);
			free(old);
		}
	}
}

/* Module output to the current file; with -S a record that would take the
 * file past SIZE goes to the next one (records are never split). */
static void write_output(struct relay *s, const char *p, size_t n)
{
	if (s->out_max && s->out_bytes && s->out_bytes + n > s->out_max)
		switch_output(s);
	write_all(s->out, p, n);
	s->out_bytes += n;
}

/* Act on the records in buf[0..n). */
static void handle_records(struct relay *s, const char *buf, size_t n)
{
	size_t off = 0;

	while (off + sizeof(struct stp_msg) <= n) {
		struct stp_msg m;
		const char *p = buf + off + sizeof(m);

		memcpy(&m, buf + off, sizeof(m));
		if (m.len > n - off - sizeof(m)) {
			error_msg("truncated record from the module (type %u)", m.type);
			s->done = true;
			return;
		}
		switch (m.type) {
		case STP_MSG_OUT:
			write_output(s, p, m.len);
			break;
		case STP_MSG_BULK_OUT: {	/* stap -b */
			struct stp_msg_bulk b;

			if (m.len < sizeof(b))
				break;
			memcpy(&b, p, sizeof(b));
			bulk_write(&s->bulk, b.cpu, b.seq, p + sizeof(b), m.len - sizeof(b));
			break;
		}
		case STP_MSG_ERR:	/* -w: the script's warnings are dropped */
			if (!(s->no_warnings && m.len >= 8 && !memcmp(p, "WARNING:", 8)))
				write_all(2, p, m.len);
			break;
		case STP_MSG_EXIT:
			send_stop(s, "the script called exit() or hit an error");
			break;
		case STP_MSG_DONE:
			memset(&s->summary, 0, sizeof(s->summary));
			memcpy(&s->summary, p, m.len < sizeof(s->summary) ? m.len : sizeof(s->summary));
			s->done = true;
			break;
		case STP_MSG_HELLO:
			break;	/* checked by await_hello */
		case STP_MSG_SYSTEM:
			system_run(p, m.len, s->out);
			break;
		case STP_MSG_SWITCH_FILE:
			switch_output(s);
			break;
		default:
			verbose(s, "ignoring record of unknown type %u", m.type);
		}
		off += sizeof(m) + m.len;
	}
}

/* Read what the module has now (the fd is non-blocking); false at EOF.
 * *got: records were read; *full: a whole buffer's worth, so more may be
 * waiting (a drain goes on while reads come back full: what a read itself
 * makes the script print, when it probes the read path, waits for the
 * next drain). */
static bool read_records(struct relay *s, char *buf, bool *got, bool *full)
{
	ssize_t n;

	*got = *full = false;
	n = read(s->ctl, buf, READ_BUF_SIZE);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return true;
		error_msg("reading the module's control file: %s", strerror(errno));
		return false;
	}
	if (n == 0)
		return false;
	*got = true;
	*full = n >= STP_MIN_READ;   /* (a read returns at most the module's bounce buffer) */
	handle_records(s, buf, n);
	return true;
}

/* First record: the module's protocol version must be ours. */
static int await_hello(struct relay *s, char *buf)
{
	struct pollfd pfd = { .fd = s->ctl, .events = POLLIN };
	struct stp_msg m;
	struct stp_msg_hello h;
	ssize_t n;

	for (;;) {
		n = read(s->ctl, buf, READ_BUF_SIZE);
		if (n >= 0 || errno != EAGAIN)
			break;
		poll(&pfd, 1, 1000);
	}
	if (n < (ssize_t)(sizeof(m) + sizeof(h))) {
		error_msg("no HELLO from module %s: %s", s->modname,
			  n < 0 ? strerror(errno) : "short read");
		return -1;
	}
	memcpy(&m, buf, sizeof(m));
	memcpy(&h, buf + sizeof(m), sizeof(h));
	if (m.type != STP_MSG_HELLO || m.len != sizeof(h)) {
		error_msg("module %s did not start with HELLO", s->modname);
		return -1;
	}
	if (h.proto_version != STP_PROTO_VERSION) {
		error_msg("module %s speaks control protocol version %u, this stapio %u: "
			  "rebuild the module with the same cstap", s->modname,
			  h.proto_version, STP_PROTO_VERSION);
		return -1;
	}
	handle_records(s, buf, n);
	return 0;
}

/* START: the write returns when the begin probes have run. -2: the module
 * refused to start and queued an ERROR line saying why. */
static int send_start(struct relay *s)
{
	struct {
		struct stp_msg m;
		struct stp_msg_start st;
	} rec = {
		.m = { .type = STP_MSG_START, .len = sizeof(struct stp_msg_start) },
		.st = { .proto_version = STP_PROTO_VERSION, .target_pid = s->target },
	};

	verbose(s, "sending START (target %d)", (int)s->target);
	while (write(s->ctl, &rec, sizeof(rec)) < 0) {
		if (errno == EINTR)
			continue;
		if (errno == ECANCELED)	/* the module said why (its globals): pass it on */
			return -2;
		error_msg("module %s refused START: %s", s->modname, strerror(errno));
		return -1;
	}
	return 0;
}

/* A signal noted by on_signal: decide whether the session should stop. */
static void handle_signal(struct relay *s, int sig)
{
	switch (sig) {
	case SIGCHLD:
		if (cmd_child_reap(&s->child))
			send_stop(s, "the -c command exited");
		break;
	case SIGQUIT:		/* detach: the session goes on without us */
		verbose(s, "detaching (SIGQUIT)");
		s->detached = true;
		break;
	default:
		send_stop(s, strsignal(sig));
	}
}

/* The script's input probes (input.char, input.line: procfs("__stdin").write)
 * get stdin, a character per write as input.char wants; false at EOF. */
static bool forward_stdin(struct relay *s)
{
	char in[256];
	ssize_t n = read(STDIN_FILENO, in, sizeof(in));

	if (n <= 0)
		return n < 0 && errno == EINTR;
	for (ssize_t i = 0; i < n; i++)
		while (write(s->stdin_file, &in[i], 1) < 0 && errno == EINTR)
			;
	return true;
}

/* Main loop: relay records and react to signals until DONE (or EOF). */
static int relay(struct relay *s, char *buf)
{
	struct pollfd pfd[3] = {
		{ .fd = s->ctl, .events = POLLIN },
		{ .fd = sig_pipe[0], .events = POLLIN },
		{ .fd = s->stdin_file >= 0 ? STDIN_FILENO : -1, .events = POLLIN },
	};
	bool got, full, pace = false;
	uint64_t drained = 0;   /* when the last drain ended */
	int rapid = 0;          /* small drains in a row, each at once after the last */
	int gap = s->poll_ms > 0 && s->poll_ms < READ_GAP_MS ? s->poll_ms : READ_GAP_MS;

	while (!s->done && !s->detached) {
		/* The reader's pace. Each read of the control file runs the
		 * kernel's read path, which the script may probe (callgraph.stp
		 * on fs/proc): woken by what its own read made the script print,
		 * the reader would feed itself without bound. A run of
		 * READ_RAPID small drains each begun at once after the one
		 * before is that loop: the next drain waits gap ms. Output
		 * coming fast (reads of a record's room or more) never waits
		 * (the ring would fill), and output now and then is read at once
		 * (in its order with the -c command's). Signals and input are
		 * taken at once. */
		pfd[0].fd = pace ? -1 : s->ctl;
		if (poll(pfd, 3, pace ? gap : s->poll_ms > 0 ? s->poll_ms : 500) < 0 && errno != EINTR) {
			error_msg("poll: %s", strerror(errno));
			return -1;
		}
		if (pfd[1].revents & POLLIN) {
			unsigned char sig;

			while (read(sig_pipe[0], &sig, 1) == 1)
				handle_signal(s, sig);
		}
		if ((pfd[2].revents & (POLLIN | POLLHUP)) && !forward_stdin(s))
			pfd[2].fd = -1;		/* EOF: no more input */
		/* read even without POLLIN: the poll timeout is a safety net */
		bool any = false, any_full = false;
		uint64_t start = now_ms();
		do {
			if (!read_records(s, buf, &got, &full)) {
				if (!s->done) {
					error_msg("module %s closed the control channel without DONE",
						  s->modname);
					return -1;
				}
				break;
			}
			any |= got;
			any_full |= full;
		} while (full && !s->done && !s->detached);
		rapid = any && !any_full && start - drained < READ_RAPID_MS ? rapid + 1 : 0;
		pace = rapid >= READ_RAPID;
		if (pace)
			rapid = 0;
		drained = now_ms();
	}
	return 0;
}

/* The end-of-session warnings; true if run-time errors fail the session. */
static bool summarize(const struct relay *s)
{
	const struct stp_msg_done *d = &s->summary;
	char buf[256];
	int n;

	if (s->no_warnings)
		return d->errors > d->suppressed;
	if (d->dropped_bytes > 0) {
		n = snprintf(buf, sizeof(buf),
			     "WARNING: %" PRId64 " bytes of output were dropped (buffer full; try -s %u)\n",
			     d->dropped_bytes, s->bufsize_mb * 2);
		write_all(2, buf, n);
	}
	if (d->errors || d->skipped) {
		n = snprintf(buf, sizeof(buf), "WARNING: Number of errors: %d, skipped probes: %d\n",
			     d->errors, d->skipped);
		write_all(2, buf, n);
	}
	return d->errors > d->suppressed;	/* suppressed ones do not fail the run */
}

/* stapio's exit status at the end: run-time errors make it 1 whatever the
 * script chose; else the script's exit_status() when it called it (even 0:
 * the script's word is taken over a failed -c command's); else 1 if the -c
 * command failed, 0 if not. */
static int session_status(const struct relay *s, bool errors, bool child_failed)
{
	int32_t st = s->summary.exit_status;

	if (errors)
		return 1;
	if (st & STP_EXIT_STATUS_SET)
		return st & 0xff;
	return child_failed;
}

/* Tell staprun (-N) that the session goes on without us: its module stays.
 * Not an exit status, which the script may choose to be anything. */
static void note_detached(const struct relay *s)
{
	char c = STAPIO_NOTE_DETACHED;

	if (s->note >= 0)
		while (write(s->note, &c, 1) < 0 && errno == EINTR)
			;
}

static void usage(void)
{
	fprintf(stderr, "usage: stapio [-v] [-w] [-L | -A] [-N FD] [-o FILE [-S MB[,N]]] [-c CMD] [-x PID] [-T MS] [-s MB] MODULE_NAME\n");
	exit(2);
}

static void parse_args(struct relay *s, int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "+vwLAo:c:x:T:s:S:F:N:")) != -1) {
		switch (opt) {
		case 'v': s->verbose++; break;
		case 'w': s->no_warnings = true; break;
		case 'L': s->load_only = true; break;
		case 'F': s->ctl = atoi(optarg); break;	/* opened by staprun (setuid) */
		case 'N': s->note = atoi(optarg); break;
		case 'A': s->attach = true; break;
		case 'o': s->out_path = optarg; break;
		case 'c': s->cmd = optarg; break;
		case 'x': s->target = atoi(optarg); break;
		case 'T': s->poll_ms = atoi(optarg); break;
		case 's': s->bufsize_mb = strtoul(optarg, NULL, 10); break;
		case 'S': {	/* SIZE[,N], checked by staprun */
			char *end;

			s->out_max = strtoull(optarg, &end, 10) << 20;
			s->out_keep = *end == ',' ? strtoul(end + 1, NULL, 10) : 0;
			break;
		}
		default: usage();
		}
	}
	if (optind != argc - 1)
		usage();
	s->modname = argv[optind];
	if (!s->bufsize_mb)
		s->bufsize_mb = 1;
}

static int setup_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGALRM, SIGQUIT };
	struct sigaction sa;
	size_t i;

	if (pipe2(sig_pipe, O_NONBLOCK | O_CLOEXEC) < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: interrupt blocking calls */
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* START the session: the -c command is made first (target() is its pid)
 * but runs only once the begin probes ran and printed. */
static int start_session(struct relay *s, char *buf)
{
	int rc;

	if (s->cmd) {
		if (cmd_child_spawn(&s->child, s->cmd) < 0)
			return -1;
		s->target = s->child.pid;
		verbose(s, "-c command is pid %d", (int)s->target);
	}
	rc = send_start(s);
	if (rc < 0) {
		cmd_child_abort(&s->child);
		for (bool got = rc == -2, full; got;)	/* its ERROR line */
			if (!read_records(s, buf, &got, &full))
				break;
		return -1;
	}
	for (bool got, full = true; full && !s->done;)   /* what the begin probes printed */
		if (!read_records(s, buf, &got, &full))
			break;
	if (s->stop_sent)
		cmd_child_abort(&s->child);	/* exit() in a begin probe: never run it */
	else
		cmd_child_release(&s->child);
	return 0;
}

int main(int argc, char **argv)
{
	struct relay s = { .out = 1, .ctl = -1, .note = -1, .child = { .go_fd = -1 }, .stdin_file = -1 };
	char path[256];
	char *buf;
	bool child_failed, errors;
	int rc;

	parse_args(&s, argc, argv);
	if (s.note >= 0)	/* the -c command and system() do not get it */
		fcntl(s.note, F_SETFD, FD_CLOEXEC);
	s.bulk.base = s.out_path;	/* records come from START on: begin's output too */
	if (setup_signals() < 0) {
		error_msg("signal pipe: %s", strerror(errno));
		return 1;
	}
	buf = malloc(READ_BUF_SIZE);
	if (!buf) {
		error_msg("out of memory");
		return 1;
	}
	if (s.out_path) {
		s.out = open_output(&s, 0);
		if (s.out < 0)
			return 1;
	}
	snprintf(path, sizeof(path), "/proc/" STP_PROC_PREFIX "%s", s.modname);
	if (s.ctl < 0)
		s.ctl = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	else
		fcntl(s.ctl, F_SETFD, FD_CLOEXEC);
	if (s.ctl < 0) {
		error_msg("cannot open %s: %s", path, strerror(errno));
		return 1;
	}
	if (await_hello(&s, buf) < 0)
		return 1;
	if (!s.attach && start_session(&s, buf) < 0)
		return 1;
	if (s.load_only && !s.done)
		s.detached = true;
	/* made by the script's start when it has input probes */
	snprintf(path, sizeof(path), "/proc/systemtap/%s/__stdin", s.modname);
	s.stdin_file = open(path, O_WRONLY | O_CLOEXEC);
	rc = relay(&s, buf);
	if (s.bulk.nfd && s.out_path && !s.out_seq && !s.out_bytes)
		unlink(s.out_path);	/* stap -b: FILE_N only, as SystemTap */
	bulk_close(&s.bulk);
	if (s.stdin_file >= 0)
		close(s.stdin_file);
	close(s.ctl);
	if (s.detached && !s.done) {
		fprintf(stderr, "Disconnecting from systemtap module.\n"
			"To reconnect, type \"staprun -A %s\"\n", s.modname);
		note_detached(&s);
		return 0;
	}
	cmd_child_finish(&s.child);
	child_failed = cmd_child_report(&s.child, s.no_warnings);
	if (rc < 0)
		return 1;
	errors = summarize(&s);
	return session_status(&s, errors, child_failed);
}
