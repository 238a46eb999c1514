/* stapbpf: run a BPF bundle (NAME.bo, written by stap --runtime=bpf;
 * doc/bpf-bundle.md). Creates the bundle's maps, loads its kernel
 * programs, runs its begin programs in its own interpreter, attaches the
 * kernel programs to their events, prints what they send through the ring
 * buffer until exit(), an error, a signal, the end of the -c command or
 * -T's time, then detaches them and runs the end programs (the error
 * programs instead after a run-time error).
 *
 * usage: stapbpf [-v] [-o FILE] [-c CMD | -x PID] [-s MB] [-T SECONDS] BUNDLE.bo
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf_attach.h"
#include "bpf_funcinfo.h"
#include "bpf_bundle.h"
#include "bpf_proto.h"
#include "bpf_interp.h"
#include "bpf_ksym.h"
#include "bpf_usym.h"
#include "bpf_printf.h"
#include "bpf_procfs.h"
#include "stapio_system.h"
#include "bpf_umap.h"
#include "stapio_cmd.h"


/* One run: options, the bundle, what was created for it, how it goes. */
struct session {
	int verbose;
	bool no_warnings;		/* -w: the -c command's failure unsaid (stap -w) */
	const char *out_path, *cmd, *path;
	pid_t target;			/* -x PID or the -c child */
	int64_t kaslr;			/* the kernel's load offset (@config's third field) */
	int64_t wall_tai;		/* wall clock - TAI clock, ns (@config's fourth) */
	unsigned bufsize_mb;		/* -s MB: the ring buffer's size */
	long time_limit;		/* -T SECONDS, 0: none */

	struct bundle b;
	FILE *out;
	struct umap *maps;		/* by map ID */
	int *prog_fds;			/* by program index; -1 for interpreted ones */
	char **refused;			/* by program index: why the kernel refused to load it
					   (a trampoline's), or NULL */
	uint32_t *prog_ids;		/* by program index: the kernel's ID, 0 for none */
	struct attachment *att;		/* by program index */
	struct ring_buffer *rb;
	struct interp_env env;
	struct cmd_child child;
	struct procfs pf;		/* the procfs probes' FIFOs */

	bool stop;			/* exit(), an error, a signal ... */
	bool error_seen;		/* a run-time error: error programs, not end */
	int errors;			/* run-time errors, for the closing warning */
	int skipped;			/* probes skipped (REC_SKIP), for it too */
	bool skip_reported;		/* more than the bundle's maxskipped */
	bool failed;			/* exit status 1 */
	int exit_status;		/* the script's exit_status(), the low 8 bits, */
	bool exit_status_set;		/* if it called it */
};

static int sig_pipe[2] = { -1, -1 };

/* Signals only note themselves; the main loop acts on them. */
static void on_signal(int sig)
{
	int saved = errno;
	unsigned char c = (unsigned char)sig;

	if (write(sig_pipe[1], &c, 1) < 0) {
		/* the pipe is full: a stop is noted already */
	}
	errno = saved;
}

/* -v: what stapbpf does, on stderr. */
static void verbose(const struct session *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->verbose)
		return;
	va_start(ap, fmt);
	fputs("stapbpf: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Messages go after the output already printed, on a terminal too. */
static void error_msg(struct session *s, const char *fmt, ...)
{
	va_list ap;

	fflush(s->out);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* The session stops (once; -v says why): the main loop ends at its next round. */
static void request_stop(struct session *s, const char *why)
{
	if (!s->stop)
		verbose(s, "stopping: %s", why);
	s->stop = true;
}

/* A record's formatted text, for ERROR and WARN: prefix, text, newline. */
static void message_record(struct session *s, const char *prefix, const struct bundle_fmt *f,
			   const uint8_t *args, size_t len)
{
	size_t n;
	char *text = bpf_format(f, args, len, &n);

	if (!text) {
		error_msg(s, "stapbpf: a %s record shorter than its format's arguments", prefix);
		return;
	}
	fflush(s->out);
	fputs(prefix, stderr);
	fwrite(text, 1, n, stderr);
	if (!n || text[n - 1] != '\n')
		fputc('\n', stderr);
	free(text);
}

/* stderr_print(text): the text as it is, after the output before it */
static void stderr_record(struct session *s, const struct bundle_fmt *f, const uint8_t *args, size_t len)
{
	size_t n;
	char *text = bpf_format(f, args, len, &n);

	if (!text) {
		error_msg(s, "stapbpf: a stderr record shorter than its format's arguments");
		return;
	}
	fflush(s->out);
	fwrite(text, 1, n, stderr);
	free(text);
}

/* system(cmd): run after the output before it, as stapio runs it, with
 * its standard output where the script's goes; waited for. */
static void system_record(struct session *s, const struct bundle_fmt *f, const uint8_t *args, size_t len)
{
	size_t n;
	char *cmd = bpf_format(f, args, len, &n);

	if (!cmd) {
		error_msg(s, "stapbpf: a system record shorter than its format's arguments");
		return;
	}
	fflush(s->out);
	system_run(cmd, n, fileno(s->out));
	free(cmd);
}

/* " 0xffffffff8110b0c0 : ksys_read+0x0/0xf0 [kernel]\n", as the module's
 * print_backtrace() line (runtime/symbols.h) */
static void print_frame(struct session *s, uint64_t a)
{
	char sym[128];

	bpf_ksym_name(sym, sizeof(sym), a, true);
	fprintf(s->out, " 0x%016llx : %s\n", (unsigned long long)a, sym);
}

/* A STACK record (print_backtrace()): its size in bytes, then the frames;
 * prog, when not 0, the ID + 1 of the kretprobe program it came from,
 * whose function comes first, as SystemTap prints it in a return probe. */
static void print_stack_record(struct session *s, uint32_t prog, const uint8_t *p, size_t size)
{
	uint64_t from = 0;
	int64_t bytes;

	if (size < 8)
		return;
	for (size_t i = 0; prog && i < s->b.nprogs; i++)
		if (s->b.progs[i].id == (int)prog - 1 && s->b.progs[i].at.kind == BA_KRETPROBE) {
			from = bpf_ksym_addr(s->b.progs[i].at.symbol);
			from = from ? from + (uint64_t)s->b.progs[i].at.offset : 0;
		}
	memcpy(&bytes, p, 8);
	for (int64_t i = 0; i + 8 <= bytes && 8 + i + 8 <= (int64_t)size; i += 8) {
		uint64_t a;

		memcpy(&a, p + 8 + i, 8);
		if (i == 0 && from) {
			fputs("Returning from: ", s->out);
			print_frame(s, from);
			fputs("Returning to  : ", s->out);
		}
		print_frame(s, a);
	}
}

/* A USTACK record (print_ubacktrace(), dtrace's ustack()): the tag's
 * style and frame limit, then the process, the stack's size in bytes and
 * the frames, named from the process's mappings as they are now. */
static void print_ustack_record(struct session *s, uint64_t tag, const uint8_t *p, size_t size)
{
	int style = (int)((tag >> 32) & 0xff), frames = (int)(tag >> 40);
	uint64_t tgid;
	int64_t bytes;

	if (size < 16)
		return;
	memcpy(&tgid, p, 8);
	memcpy(&bytes, p + 8, 8);
	bpf_usym_forget_maps();
	for (int64_t i = 0, n = 0; i + 8 <= bytes && 16 + i + 8 <= (int64_t)size; i += 8) {
		uint64_t a;

		if (frames && n++ == frames)
			break;
		memcpy(&a, p + 16 + i, 8);
		bpf_usym_frame(s->out, (uint32_t)tgid, a, (enum bpf_ustack_style)style);
	}
}

/* One ring buffer record, from the kernel or from the interpreter. */
static void handle_record(void *ctx, const void *data, size_t size)
{
	struct session *s = ctx;
	const uint8_t *p = data;
	const struct bundle_fmt *f;
	uint64_t tag;
	uint32_t kind;

	if (size < 8) {
		error_msg(s, "stapbpf: a ring buffer record of %zu bytes, shorter than its tag", size);
		return;
	}
	memcpy(&tag, p, 8);
	kind = (uint32_t)tag;
	if (kind == REC_EXIT) {
		request_stop(s, "the script called exit()");
		return;
	}
	if (kind == REC_EXIT_STATUS) {   /* exit_status(n): the last one wins */
		int64_t n;

		if (size < 16) {
			error_msg(s, "stapbpf: an exit status record of %zu bytes, shorter than its value", size);
			return;
		}
		memcpy(&n, p + 8, 8);
		s->exit_status = (int)(n & 0xff);
		s->exit_status_set = true;
		return;
	}
	if (kind == REC_SKIP) {
		s->skipped++;
		if (s->b.maxskipped >= 0 && s->skipped > s->b.maxskipped && !s->skip_reported) {
			/* the module's error, once: the session stops */
			s->skip_reported = true;
			error_msg(s, "ERROR: Skipped too many probes, check MAXSKIPPED or try again with stap -t for more details.");
			s->errors++;
			s->error_seen = s->failed = true;
			request_stop(s, "too many skipped probes");
		}
		return;
	}
	if (kind == REC_QUIET_ERROR) {   /* --suppress-handler-errors: only counted */
		s->errors++;
		return;
	}
	if (kind == REC_STACK) {
		print_stack_record(s, (uint32_t)(tag >> 32), p + 8, size - 8);
		return;
	}
	if (kind == REC_USTACK) {
		print_ustack_record(s, tag, p + 8, size - 8);
		return;
	}
	if (kind != REC_PRINTF && kind != REC_ERROR && kind != REC_WARN && kind != REC_SYSTEM &&
	    kind != REC_STDERR) {
		verbose(s, "ignoring a record of unknown kind %u", kind);
		return;
	}
	f = bundle_fmt_of(&s->b, tag >> 32);
	if (!f) {
		error_msg(s, "stapbpf: a record names fmt %llu, which %s has not",
			  (unsigned long long)(tag >> 32), s->path);
		return;
	}
	switch (kind) {
	case REC_PRINTF:
		if (bpf_printf(s->out, f, p + 8, size - 8) < 0)
			error_msg(s, "stapbpf: a printf record (fmt %llu) shorter than its arguments",
				  (unsigned long long)(tag >> 32));
		break;
	case REC_ERROR:
		message_record(s, "ERROR: ", f, p + 8, size - 8);
		s->errors++;
		s->error_seen = s->failed = true;
		request_stop(s, "a run-time error");
		break;
	case REC_WARN:
		message_record(s, "WARNING: ", f, p + 8, size - 8);
		break;
	case REC_SYSTEM:
		system_record(s, f, p + 8, size - 8);
		break;
	case REC_STDERR:
		stderr_record(s, f, p + 8, size - 8);
		break;
	}
}

/* libbpf's ring buffer callback: the kernel's records go where the interpreter's do. */
static int ringbuf_record(void *ctx, void *data, size_t size)
{
	handle_record(ctx, data, size);
	return 0;
}

/* A kernel object name: letters, digits, '_' and '.', at most 15. */
static void object_name(char *dst, const char *src)
{
	size_t n = 0;

	for (; *src && n < BPF_OBJ_NAME_LEN - 1; src++)
		if ((*src >= 'a' && *src <= 'z') || (*src >= 'A' && *src <= 'Z') ||
		    (*src >= '0' && *src <= '9') || *src == '_' || *src == '.')
			dst[n++] = *src;
	dst[n] = '\0';
}

/* -s MB as a ring buffer size: a power of two of bytes. */
static uint32_t ringbuf_size(const struct session *s, const struct bundle_map *m)
{
	uint64_t want = (uint64_t)s->bufsize_mb << 20, size = 4096;

	if (!s->bufsize_mb)
		return m->max_entries;
	while (size < want)
		size <<= 1;
	return (uint32_t)size;
}

/* The hits the kernel itself skipped: a program that fired while another
 * BPF program ran on its CPU (the kernel counts them from Linux 6.7 on; a
 * probe that fires inside another is what the module counts as skipped),
 * and a tracefs kretprobe's misses (no instance free: its maxactive). The
 * programs' fds are closed once attached: they are found by ID. */
static int kernel_skipped(const struct session *s)
{
	int64_t n = 0;

	for (size_t i = 0; s->prog_ids && i < s->b.nprogs; i++) {
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		int fd = s->prog_ids[i] ? bpf_prog_get_fd_by_id(s->prog_ids[i]) : -1;

		memset(&info, 0, sizeof(info));
		if (fd >= 0 && bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
			n += (int64_t)info.recursion_misses;
		if (fd >= 0)
			close(fd);
		n += (int64_t)s->att[i].missed;   /* a tracefs kretprobe's misses */
	}
	return (int)(n > INT_MAX ? INT_MAX : n);
}

/* -t's report, after the end programs, as the module prints it
 * (runtime/timing.h): each probe hit at least once, its CPUs' records
 * (hits, min, max, sum, mean, m2) merged with Chan's formula. The figures
 * are ns (bpf_ktime_get_ns), where the module's are cycles. */
static void timing_report(struct session *s)
{
	const struct bundle_map *m = bundle_find_map(&s->b, "@timing");
	size_t stride = m ? (m->val_size + 7) / 8 * 8 : 0;
	int64_t *cpus = m ? calloc(s->maps[m->id].ncpus, stride) : NULL;

	if (!cpus)
		return;
	fputs("----- probe hit report: \n", s->out);
	for (size_t i = 0; i < s->b.ntiming; i++) {
		const struct bundle_timing *t = &s->b.timing[i];
		int64_t hits = 0, min = 0, max = 0, sum = 0, mean = 0, m2 = 0;
		uint32_t key = (uint32_t)t->index;

		if (bpf_map_lookup_elem(s->maps[m->id].fd, &key, cpus) < 0)
			continue;
		for (int c = 0; c < s->maps[m->id].ncpus; c++) {
			const int64_t *v = (const int64_t *)((const uint8_t *)cpus + c * stride);
			int64_t n = hits + v[0], delta = v[4] - mean;

			if (!v[0])
				continue;
			if (!hits) {
				hits = v[0], min = v[1], max = v[2], sum = v[3], mean = v[4], m2 = v[5];
				continue;
			}
			m2 += v[5] + delta * delta * hits / n * v[0];
			mean += delta * v[0] / n;
			hits = n;
			sum += v[3];
			min = v[1] < min ? v[1] : min;
			max = v[2] > max ? v[2] : max;
		}
		if (!hits)
			continue;
		fprintf(s->out, "%s, hits: %lld, cycles: %lldmin/%lldavg/%lldmax, variance: %lld, from: %s, index: %d\n",
			t->head, (long long)hits, (long long)min, (long long)(sum / hits), (long long)max,
			(long long)(hits > 1 ? m2 / (hits - 1) : 0), t->from, t->index);
	}
	fputs("----- refresh report:\n", s->out);
	free(cpus);
}

/* A rodata map: its value written, then frozen, so that the verifier takes
 * it as the constant a helper's format must be (bpf_snprintf); -1 and
 * errno on failure. */
static int create_rodata(const struct bundle_map *m, const char *name)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_RDONLY_PROG);
	uint8_t *val = calloc(1, m->val_size);
	uint32_t key = 0;
	int fd = val ? bpf_map_create(BPF_MAP_TYPE_ARRAY, name, 4, m->val_size, 1, &o) : -1;

	if (fd >= 0 && m->init)
		memcpy(val, m->init, m->init_len);
	if (fd >= 0 && (bpf_map_update_elem(fd, &key, val, BPF_ANY) < 0 || bpf_map_freeze(fd) < 0)) {
		int e = errno;

		close(fd);
		errno = e;
		fd = -1;
	}
	free(val);
	return fd;
}

/* The bundle's maps in the kernel, in ID order (the programs name them by
 * ID); the ring buffer sized by -s when given. */
static int create_maps(struct session *s)
{
	static const enum bpf_map_type types[] = {
		[BM_HASH] = BPF_MAP_TYPE_HASH, [BM_ARRAY] = BPF_MAP_TYPE_ARRAY,
		[BM_PERCPU_HASH] = BPF_MAP_TYPE_PERCPU_HASH,
		[BM_PERCPU_ARRAY] = BPF_MAP_TYPE_PERCPU_ARRAY, [BM_RINGBUF] = BPF_MAP_TYPE_RINGBUF,
		[BM_LRU_HASH] = BPF_MAP_TYPE_LRU_HASH, [BM_RODATA] = BPF_MAP_TYPE_ARRAY,
	};
	int ncpus = libbpf_num_possible_cpus();

	if (ncpus < 0) {
		error_msg(s, "ERROR: cannot count the possible CPUs: %s", strerror(-ncpus));
		return -1;
	}
	s->maps = calloc(s->b.nmaps ? s->b.nmaps : 1, sizeof(*s->maps));
	if (!s->maps)
		return -1;
	for (size_t i = 0; i < s->b.nmaps; i++) {
		const struct bundle_map *m = &s->b.maps[i];
		uint32_t max = m->kind == BM_RINGBUF ? ringbuf_size(s, m) : m->max_entries;
		char name[BPF_OBJ_NAME_LEN];
		int fd;

		object_name(name, m->name);
		fd = m->kind == BM_RODATA ? create_rodata(m, name) :
		     bpf_map_create(types[m->kind], name, m->key_size, m->val_size, max, NULL);
		if (fd < 0 && m->name[0] != '@') {   /* a script global: as the module runtime says it */
			verbose(s, "map %d (%s, %u entries): %s", m->id, m->name, max, strerror(errno));
			error_msg(s, "ERROR: global variable '__global_%s' allocation failed", m->name);
			return -1;
		}
		if (fd < 0) {
			error_msg(s, "ERROR: cannot create map %d (%s, %u entries): %s", m->id, m->name, max,
				  strerror(errno));
			return -1;
		}
		s->maps[i] = (struct umap){ .m = m, .fd = fd, .ncpus = ncpus };
		verbose(s, "map %d (%s): %u entries, fd %d", m->id, m->name, max, fd);
	}
	return 0;
}

/* The kernel's load offset (KASLR) the bundle's addresses of kernel data
 * need: where /proc/kallsyms has the bundle's symbol, minus its link-time
 * address; 0 when the bundle names none. */
static int kaslr_offset(struct session *s, int64_t *off)
{
	uint64_t addr;

	*off = 0;
	if (!s->b.kaslr_sym)
		return 0;
	addr = bpf_ksym_addr(s->b.kaslr_sym);
	if (!addr) {
		error_msg(s, "ERROR: cannot find the kernel's '%s' in /proc/kallsyms (or its address reads 0: "
			  "kernel.kptr_restrict)", s->b.kaslr_sym);
		return -1;
	}
	*off = (int64_t)(addr - s->b.kaslr_addr);
	verbose(s, "kernel load offset 0x%llx (%s)", (unsigned long long)*off, s->b.kaslr_sym);
	return 0;
}

/* The local time zone, as staprun gives it to a module: its offset east of
 * UTC in seconds (8 bytes at off) and its name (at most 15 bytes, "UTC"
 * when it has none or a space, at name). */
static void local_zone(uint8_t *off, char *name)
{
	time_t now = time(NULL);
	int64_t gmtoff = 0;
	struct tm tm;

	strcpy(name, "UTC");
	if (localtime_r(&now, &tm)) {
		gmtoff = tm.tm_gmtoff;
		if (tm.tm_zone && !strpbrk(tm.tm_zone, " \""))
			snprintf(name, 16, "%.15s", tm.tm_zone);
	}
	memcpy(off, &gmtoff, 8);
}

/* target() for the programs: @config's first field; its second, when it
 * has one, says whether the kernel programs may run (1 once every one is
 * attached, 0 again before any is detached: all start and stop together). */
static int write_config(struct session *s, int64_t running)
{
	const struct bundle_map *m = bundle_find_map(&s->b, "@config");
	uint8_t *key, *val;
	int64_t pid = s->target;
	int rc;

	if (!m)
		return 0;
	key = calloc(1, m->key_size);
	val = calloc(1, m->val_size);
	if (!key || !val || m->val_size < 8) {
		free(key);
		free(val);
		error_msg(s, "ERROR: cannot set @config (its value is not a number)");
		return -1;
	}
	memcpy(val, &pid, 8);
	if (m->val_size >= 16)
		memcpy(val + 8, &running, 8);
	if (m->val_size >= 24)
		memcpy(val + 16, &s->kaslr, 8);
	if (m->val_size >= 32)
		memcpy(val + 24, &s->wall_tai, 8);
	if (m->val_size >= 56)
		local_zone(val + 32, (char *)val + 40);
	rc = umap_write(&s->maps[m->id], key, val, BPF_ANY);
	free(key);
	free(val);
	if (rc < 0) {
		error_msg(s, "ERROR: cannot set @config: %s", strerror(-rc));
		return -1;
	}
	return 0;
}

/* The wall clock minus the kernel's TAI clock, in whole seconds (the leap
 * seconds, which is all they differ by): a kernel program adds it to
 * bpf_ktime_get_tai_ns() for the time of day (gettimeofday_*()). */
static int64_t wall_minus_tai(void)
{
	struct timespec r, t;
	int64_t d;

	if (clock_gettime(CLOCK_TAI, &t) < 0 || clock_gettime(CLOCK_REALTIME, &r) < 0)
		return 0;
	d = (int64_t)(r.tv_sec - t.tv_sec) * 1000000000 + (r.tv_nsec - t.tv_nsec);
	d += d < 0 ? -500000000 : 500000000;
	return d / 1000000000 * 1000000000;
}

/* Where an instruction line of the verifier's log ("12: (85) call ...")
 * starts, or NULL if l is not one. */
static bool insn_line(const char *l, long *insn)
{
	char *end;

	if (*l < '0' || *l > '9')
		return false;
	*insn = strtol(l, &end, 10);
	return !strncmp(end, ": (", 3);
}

/* "ERROR [B_VERIFIER]" with the script position of the instruction the
 * log names last (its "N: (..." line, else an "insn N" in its last
 * words), and the log from that line on (the verifier state after "; "
 * and the statistics left out; at most the last 4 lines). False, and
 * nothing said, when the log has nothing but statistics: the verifier
 * accepted the program and the load failed for another reason. */
static bool report_verifier(struct session *s, const struct bundle_prog *p, char *log)
{
	const char *lines[4];
	size_t nl = 0;
	long insn = -1, n;
	const char *pos, *w;

	if (s->verbose)
		fprintf(stderr, "stapbpf: the verifier's log for probe %d:\n%s\n", p->id, log);
	for (char *l = strtok(log, "\n"), *cut; l; l = strtok(NULL, "\n")) {
		if (!*l || !strncmp(l, "processed ", 10) || !strncmp(l, "verification time", 17) ||
		    !strncmp(l, "stack depth", 11))
			continue;
		if (insn_line(l, &n)) {
			insn = n;
			nl = 0;
			if ((cut = strstr(l, " ; ")) != NULL)
				*cut = '\0';
			for (cut = l + strlen(l); cut > l && cut[-1] == ' ';)
				*--cut = '\0';
		}
		if (nl == sizeof(lines) / sizeof(lines[0])) {
			memmove(lines, lines + 1, sizeof(lines) - sizeof(lines[0]));
			nl--;
		}
		lines[nl++] = l;
	}
	if (nl == 0)
		return false;
	for (size_t i = nl; insn < 0 && i-- > 0;)	/* "back-edge from insn 7 to 3" */
		for (w = strstr(lines[i], "insn "); w && insn < 0; w = strstr(w + 5, "insn "))
			if (w[5] >= '0' && w[5] <= '9')
				insn = strtol(w + 5, NULL, 10);
	pos = insn >= 0 ? bundle_pos_of(p, (size_t)insn) : NULL;
	fflush(s->out);
	fprintf(stderr, "ERROR [B_VERIFIER]: the kernel's BPF verifier refused probe %d (%s):", p->id,
		pos ? pos : p->section);
	for (size_t i = 0; i < nl; i++)
		fprintf(stderr, "%s%s", i ? " | " : " ", lines[i]);
	fputc('\n', stderr);
	return true;
}

/* What a program's load says beside its instructions: its callbacks' BTF
 * (fi); a trampoline's kind and the kernel function it is for (the BTF id
 * of FUNCTION in vmlinux), which the kernel binds it to at load. */
static void load_opts(const struct bundle_prog *p, const struct funcinfo *fi, int btf_id,
		      struct bpf_prog_load_opts *opts)
{
	if (fi->n) {
		opts->prog_btf_fd = (uint32_t)fi->btf_fd;
		opts->func_info = fi->rec;
		opts->func_info_cnt = fi->n;
		opts->func_info_rec_size = sizeof(*fi->rec);
	}
	if (bpf_attach_trampoline(p->at.kind)) {
		opts->expected_attach_type = trampoline_attach_type(p);
		opts->attach_btf_id = (uint32_t)btf_id;
	}
}

/* Load one kernel program; when the kernel refuses it, again with the
 * verifier's log (bigger buffers while the log does not fit). -1 after
 * an error said; -2 with why when the kernel refuses a trampoline before
 * verifying it (no BTF for the function, no trampolines, a policy that
 * forbids them): a probe that cannot be attached, as a kprobe without
 * the kprobe PMU. */
static int load_prog(struct session *s, const struct bundle_prog *p, char *why, size_t whylen)
{
	bool trampoline = bpf_attach_trampoline(p->at.kind);
	int btf_id = trampoline ? libbpf_find_vmlinux_btf_id(p->at.symbol, trampoline_attach_type(p)) : 0;
	struct bpf_insn *insns = malloc(p->ninsns * sizeof(*insns));
	struct funcinfo fi;
	char name[BPF_OBJ_NAME_LEN], buf[32];
	char *log = NULL;
	int fd, err;

	if (!insns)
		return -1;
	memcpy(insns, p->insns, p->ninsns * sizeof(*insns));
	for (size_t i = 0; i + 1 < p->ninsns; i++)	/* map IDs become fds */
		if (insns[i].code == (BPF_LD | BPF_IMM | BPF_DW)) {
			if (insns[i].src_reg == BPF_PSEUDO_MAP_FD)
				insns[i].imm = s->maps[insns[i].imm].fd;
			i++;
		}
	err = funcinfo_make(insns, p->ninsns, &fi);
	if (err < 0) {
		free(insns);
		error_msg(s, "ERROR: cannot load probe %d (%s): the BTF of its callbacks: %s", p->id,
			  p->section, strerror(-err));
		return -1;
	}
	snprintf(buf, sizeof(buf), "stap_%d", p->id);
	object_name(name, buf);
	if (trampoline && btf_id < 0) {
		free(insns);
		funcinfo_free(&fi);
		snprintf(why, whylen, "the kernel's BTF has no function %s for a BPF trampoline: %s",
			 p->at.symbol, strerror(-btf_id));
		return -2;
	}
	{
		LIBBPF_OPTS(bpf_prog_load_opts, opts);
		load_opts(p, &fi, btf_id, &opts);
		fd = bpf_prog_load(attach_prog_type(p), name, "GPL", insns, p->ninsns, &opts);
		err = errno;
	}
	for (size_t size = 1 << 20; fd < 0 && size <= (256u << 20); size *= 16) {
		LIBBPF_OPTS(bpf_prog_load_opts, opts, .log_level = 1, .log_size = (uint32_t)size);
		load_opts(p, &fi, btf_id, &opts);
		free(log);
		log = calloc(1, size);
		if (!log)
			break;
		opts.log_buf = log;
		fd = bpf_prog_load(attach_prog_type(p), name, "GPL", insns, p->ninsns, &opts);
		err = errno;
		if (fd >= 0 || err != ENOSPC)
			break;
	}
	free(insns);
	funcinfo_free(&fi);
	if (fd >= 0) {
		free(log);
		verbose(s, "loaded probe %d (%s), fd %d", p->id, p->section, fd);
		return fd;
	}
	if (trampoline && (!log || !*log)) {
		snprintf(why, whylen, "the kernel refused a BPF trampoline (%s) on %s: %s%s",
			 bpf_attach_word(p->at.kind), p->at.symbol, strerror(err),
			 err == EPERM ? " (a security policy, or no trampolines)" : "");
		free(log);
		return -2;
	}
	if (!log || !report_verifier(s, p, log))
		error_msg(s, "ERROR: cannot load probe %d (%s): %s", p->id, p->section, strerror(err));
	free(log);
	return -1;
}

/* A program is an fd until it is attached: a bundle of many thousands
 * of probes (a wildcard) needs the hard limit of open files. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* FNV-1a of a program's type and instructions. */
static uint64_t prog_hash(const struct bundle_prog *p)
{
	uint64_t h = 14695981039346656037ull ^ (uint64_t)attach_prog_type(p);
	const unsigned char *b = (const unsigned char *)p->insns;

	for (size_t i = 0; i < p->ninsns * sizeof(*p->insns); i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

/* The same program loaded once serves both, unless the kernel binds each
 * to its function (a trampoline's). */
static bool same_prog(const struct bundle_prog *a, const struct bundle_prog *b)
{
	if (attach_prog_type(a) == BPF_PROG_TYPE_TRACING)
		return false;
	return attach_prog_type(a) == attach_prog_type(b) && a->ninsns == b->ninsns &&
	       !memcmp(a->insns, b->insns, a->ninsns * sizeof(*a->insns));
}

/* Every kernel program loaded before anything runs, so that a verifier
 * rejection stops the session before its begin programs. Programs with
 * the same type and instructions (the probes of a wildcard whose body
 * reads nothing of its own probe) are loaded once and attached many
 * times: the verifier's time is per load (a TCG guest took 200 s for
 * 1,200 kprobes, each loaded). The copies get no ID: the kernel's
 * skipped count is the program's, counted once. */
static int load_programs(struct session *s)
{
	size_t cap = 16;
	while (cap < s->b.nprogs * 2)
		cap *= 2;
	ssize_t *seen = malloc(cap * sizeof(*seen));   /* open addressing: program index, -1 */
	if (!seen)
		return -1;
	for (size_t i = 0; i < cap; i++)
		seen[i] = -1;

	s->prog_fds = malloc((s->b.nprogs ? s->b.nprogs : 1) * sizeof(int));
	s->prog_ids = calloc(s->b.nprogs ? s->b.nprogs : 1, sizeof(*s->prog_ids));
	s->att = calloc(s->b.nprogs ? s->b.nprogs : 1, sizeof(*s->att));
	s->refused = calloc(s->b.nprogs ? s->b.nprogs : 1, sizeof(*s->refused));
	if (!s->prog_fds || !s->att || !s->prog_ids || !s->refused) {
		free(seen);
		return -1;
	}
	for (size_t i = 0; i < s->b.nprogs; i++)
		s->prog_fds[i] = -1;
	raise_fd_limit();
	for (size_t i = 0; i < s->b.nprogs; i++) {
		if (bundle_prog_is_user(&s->b.progs[i]))
			continue;
		size_t k = prog_hash(&s->b.progs[i]) & (cap - 1);
		while (seen[k] >= 0 && !same_prog(&s->b.progs[seen[k]], &s->b.progs[i]))
			k = (k + 1) & (cap - 1);
		if (seen[k] >= 0) {
			s->prog_fds[i] = fcntl(s->prog_fds[seen[k]], F_DUPFD_CLOEXEC, 0);
			if (s->prog_fds[i] < 0) {
				error_msg(s, "ERROR: cannot load probe %d (%s): %s", s->b.progs[i].id,
					  s->b.progs[i].section, strerror(errno));
				free(seen);
				return -1;
			}
			verbose(s, "probe %d (%s): the program of probe %d, fd %d", s->b.progs[i].id,
				s->b.progs[i].section, s->b.progs[seen[k]].id, s->prog_fds[i]);
			continue;
		}
		seen[k] = (ssize_t)i;
		char why[512];
		int fd = load_prog(s, &s->b.progs[i], why, sizeof(why));
		if (fd == -2) {   /* attach_all says so */
			s->refused[i] = strdup(why);
			continue;
		}
		if (fd < 0) {
			free(seen);
			return -1;
		}
		s->prog_fds[i] = fd;
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(s->prog_fds[i], &info, &len) == 0)
			s->prog_ids[i] = info.id;   /* its fd goes once attached */
	}
	free(seen);
	return 0;
}

/* The interpreted programs of one kind, in ID order; begin ones stop
 * once the session is stopping (exit() or an error in an earlier one). */
static void run_programs(struct session *s, enum bpf_attach_kind kind)
{
	for (size_t i = 0; i < s->b.nprogs; i++) {
		if (s->b.progs[i].at.kind != kind || (kind == BA_BEGIN && s->stop))
			continue;
		if (interp_run(&s->env, &s->b.progs[i]) < 0) {
			s->failed = true;
			if (kind == BA_BEGIN)
				s->error_seen = true;
			request_stop(s, "an interpreted program failed");
		}
	}
	fflush(s->out);
}

/* A kprobe the kernel will not put on this site, or a watchpoint with no
 * debug register left, as opposed to such probes not working at all (no
 * PMU: B_ATTACH). */
static bool site_refused(const struct bundle_prog *p, int rc)
{
	if (p->at.kind == BA_HWBKPT)   /* no debug register left (x86 has 4), as the module */
		return rc == -ENOSPC;
	return (p->at.kind == BA_KPROBE || p->at.kind == BA_KRETPROBE || p->at.kind == BA_UPROBE ||
		p->at.kind == BA_URETPROBE || bpf_attach_trampoline(p->at.kind)) &&
	       (rc == -EINVAL || rc == -ENOENT || rc == -EBUSY || rc == -EEXIST || rc == -EILSEQ ||
		rc == -EOPNOTSUPP);
}

/* What attach_all learnt of the script's probes (a bundle's "from N"):
 * how many kernel programs each has, how many went on, and the first
 * reason one did not. */
struct probe_tally {
	int programs, attached, quiet;   /* quiet: optional ones that failed unsaid */
	const char *written;
	char why[360];
};

/* A probe of the script none of whose kernel programs went on is never
 * silent, even when each was optional (a wildcard's function, a '?'
 * point, an alias's alternatives): a warning with the first reason, unless
 * each failure was warned of already. None at all of the script's is an
 * error. 0, or -1 after that error. */
static int report_unattached(struct session *s, struct probe_tally *t, int nt, int programs, int attached)
{
	for (int k = 0; k < nt; k++)
		if (t[k].programs && !t[k].attached && t[k].quiet)
			fprintf(stderr, "WARNING: probe %s: none of its %d point%s could be attached: %s\n",
				t[k].written, t[k].programs, t[k].programs == 1 ? "" : "s", t[k].why);
	if (programs && !attached) {
		error_msg(s, "ERROR [B_ATTACH]: none of the script's %d kernel probe point%s could be attached",
			  programs, programs == 1 ? "" : "s");
		return -1;
	}
	return 0;
}

/* The kernel programs on their events, after the begin programs ran. */
static int attach_all(struct session *s)
{
	int nt = 0, programs = 0, attached = 0;
	struct probe_tally *t;

	for (size_t i = 0; i < s->b.nprogs; i++)
		if (s->b.progs[i].from >= nt)
			nt = s->b.progs[i].from + 1;
	t = calloc(nt ? nt : 1, sizeof(*t));
	size_t *order = malloc((s->b.nprogs ? s->b.nprogs : 1) * sizeof(*order)), no = 0;
	if (!t || !order) {
		free(t);
		free(order);
		return -1;
	}
	/* in the bundle's order (the script's probes on one point run so, as
	 * the module's), but a kernel function's trampoline runs the program
	 * attached last first: those in the reverse order, after the rest */
	for (size_t i = 0; i < s->b.nprogs; i++)
		if (!bpf_attach_trampoline(s->b.progs[i].at.kind))
			order[no++] = i;
	for (size_t i = s->b.nprogs; i-- > 0;)
		if (bpf_attach_trampoline(s->b.progs[i].at.kind))
			order[no++] = i;
	for (size_t oi = 0; oi < no; oi++) {
		size_t i = order[oi];
		const struct bundle_prog *p = &s->b.progs[i];
		struct probe_tally *pt = p->from >= 0 ? &t[p->from] : NULL;
		char why[512];
		int rc;

		if (s->prog_fds[i] < 0 && !s->refused[i])
			continue;
		programs++;
		if (pt) {
			pt->programs++;
			pt->written = p->written;
		}
		if (s->refused[i]) {
			rc = -EPERM;
			snprintf(why, sizeof(why), "%s", s->refused[i]);
		} else {
			rc = attach_prog(p, s->prog_fds[i], &s->att[i], why, sizeof(why));
		}
		if (rc < 0 && (s->refused[i] || site_refused(p, rc))) {
			/* as the module runtime: the kernel refuses this one
			 * function (blacklisted, notrace): skipped, with a
			 * warning unless the point was a wildcard's or '?' */
			if (!p->at.optional)
				fprintf(stderr, "WARNING: probe %s registration error (rc %d)%s%s\n",
					p->pp ? p->pp : p->section, rc, why[0] ? "\n    " : "", why);
			if (pt)
				pt->quiet += p->at.optional;
			if (pt && !pt->why[0])
				snprintf(pt->why, sizeof(pt->why), "%.120s (rc %d%s%.200s)", p->pp ? p->pp : p->section, rc,
					 why[0] ? ": " : "", why);
			detach_prog(&s->att[i]);
			if (s->prog_fds[i] >= 0)
				close(s->prog_fds[i]);
			s->prog_fds[i] = -1;
			continue;
		}
		if (rc < 0) {
			error_msg(s, "ERROR [B_ATTACH]: cannot attach probe %d (%s): %s", p->id, p->section,
				  strerror(-rc));
			if (why[0])
				fprintf(stderr, "    %s\n", why);
			free(t);
			free(order);
			return -1;
		}
		attached++;
		if (pt)
			pt->attached++;
		verbose(s, "attached probe %d (%s): %zu perf event(s)", p->id, p->section, s->att[i].n);
		close(s->prog_fds[i]);	/* its events hold it: one fd less per probe */
		s->prog_fds[i] = -1;
	}
	int rc = report_unattached(s, t, nt, programs, attached);
	free(t);
	free(order);
	if (rc < 0)
		return -1;
	for (size_t i = 0; i < s->b.nprogs; i++) {
		rc = attach_enable(&s->att[i]);
		if (rc < 0) {
			error_msg(s, "ERROR [B_ATTACH]: cannot enable probe %d (%s): %s", (int)i,
				  s->b.progs[i].section, strerror(-rc));
			return -1;
		}
	}
	return 0;
}

struct detacher {
	struct session *s;
	atomic_size_t next;     /* the next program to detach */
};

static void *detach_some(void *arg)
{
	struct detacher *d = arg;
	size_t i;

	while ((i = atomic_fetch_add(&d->next, 1)) < d->s->b.nprogs)
		detach_prog(&d->s->att[i]);
	return NULL;
}

/* The events closed: no kernel program runs after this. A kprobe's close
 * waits for an RCU grace period of its own (unregister_kprobe), one
 * after the other: 1,200 kprobes took minutes in a TCG guest. Closed by
 * many threads at once, the waits share grace periods. */
static void detach_all(struct session *s)
{
	enum { THREADS = 32 };
	struct detacher d = { .s = s };
	pthread_t t[THREADS];
	int n = 0;

	if (!s->att)
		return;
	atomic_init(&d.next, 0);
	if (s->b.nprogs >= 2 * THREADS)
		while (n < THREADS && pthread_create(&t[n], NULL, detach_some, &d) == 0)
			n++;
	detach_some(&d);   /* (and alone when threads cannot be made) */
	while (n > 0)
		pthread_join(t[--n], NULL);
}

/* SIGINT/SIGTERM/SIGHUP stop the session, SIGCHLD may (-c): all through a pipe. */
static int setup_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD };
	struct sigaction sa;

	if (pipe2(sig_pipe, O_NONBLOCK | O_CLOEXEC) < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: the poll returns */
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* The signals noted since the last round. */
static void handle_signals(struct session *s)
{
	unsigned char sig;

	while (read(sig_pipe[0], &sig, 1) == 1) {
		if (sig == SIGCHLD) {
			if (cmd_child_reap(&s->child))
				request_stop(s, "the -c command exited");
		} else {
			request_stop(s, strsignal(sig));
		}
	}
}

/* Monotonic seconds, for -T. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A user-space program while the kernel programs run (utimer, procfs):
 * the kernel's records so far are printed first, so the output keeps the
 * order in which things happened; a failure is an error that stops the
 * session, as an error in a kernel program. */
static void run_user(struct session *s, const struct bundle_prog *p)
{
	if (s->rb)
		ring_buffer__consume(s->rb);
	if (interp_run(&s->env, p) < 0) {
		s->failed = s->error_seen = true;
		request_stop(s, "an interpreted program failed");
	}
	fflush(s->out);
}

/* A utimer's next period in seconds: a .randomize(M) one's moved by a
 * uniform offset in [-M, M], as the module's timers. */
static double timer_period(const struct bundle_prog *p)
{
	int64_t ns = p->at.period;

	if (p->at.randomize) {
		uint64_t r;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (uint64_t)random() << 31 ^ (uint64_t)random();
		ns += (int64_t)(r % (uint64_t)(2 * p->at.randomize + 1)) - p->at.randomize;
	}
	return (ns > 0 ? ns : 1) / 1e9;
}

/*
 * Run the utimer programs that are due at t (the kernel's records before
 * them first), each then due a period later, missed periods skipped as a
 * kernel timer's are; the milliseconds until the next one is due, at
 * most max_ms.
 */
static int run_timers(struct session *s, double *due, double t, int max_ms)
{
	double next = t + max_ms / 1e3;

	for (size_t i = 0; i < s->b.nprogs && due; i++) {
		const struct bundle_prog *p = &s->b.progs[i];

		if (p->at.kind != BA_UTIMER)
			continue;
		if (due[i] == 0)
			due[i] = t + timer_period(p);
		if (due[i] <= t && !s->stop) {
			run_user(s, p);
			while (due[i] <= t)
				due[i] += timer_period(p);
		}
		if (due[i] < next)
			next = due[i];
	}
	return next <= t ? 0 : (int)((next - t) * 1e3) + 1;
}

/* A procfs probe on its file (procfs_serve): the kernel's records first,
 * as before a utimer program. */
static void run_procfs(void *ctx, const struct bundle_prog *p, char *buf, size_t size)
{
	struct session *s = ctx;

	if (s->stop)
		return;
	s->env.procfs_buf = buf;
	s->env.procfs_size = size;
	run_user(s, p);
	s->env.procfs_buf = NULL;
	s->env.procfs_size = 0;
}

/* The kernel programs' records, the utimer programs on their times and
 * the procfs files' readers and writers, until something stops the
 * session. */
static void relay(struct session *s)
{
	double deadline = s->time_limit ? now() + s->time_limit : 0;
	double *due = calloc(s->b.nprogs + 1, sizeof(*due));
	struct pollfd *pfds = calloc(2 + procfs_npoll(&s->pf), sizeof(*pfds));

	while (!s->stop && due && pfds) {
		int wait = run_timers(s, due, now(), 100), look;
		size_t n = 0, first;

		pfds[n++] = (struct pollfd){ .fd = sig_pipe[0], .events = POLLIN };
		if (s->rb)
			pfds[n++] = (struct pollfd){ .fd = ring_buffer__epoll_fd(s->rb), .events = POLLIN };
		first = n;
		n += procfs_pollfds(&s->pf, pfds + n, &look);
		if (look >= 0 && look < wait)
			wait = look;
		if (poll(pfds, n, wait) < 0 && errno != EINTR) {
			error_msg(s, "ERROR: poll: %s", strerror(errno));
			s->failed = true;
			break;
		}
		if (s->rb) {
			int c = ring_buffer__consume(s->rb);
			if (c < 0) {
				error_msg(s, "ERROR: reading the ring buffer: %s", strerror(-c));
				s->failed = true;
				break;
			}
			if (c > 0)
				fflush(s->out);
		}
		if (s->pf.n)
			procfs_serve(&s->pf, pfds + first, n - first, run_procfs, s);
		handle_signals(s);
		if (deadline && now() >= deadline)
			request_stop(s, "the -T time is over");
	}
	free(pfds);
	free(due);
}

/* The usage line (-h: status 0; mistakes: 2). */
static void usage(int status)
{
	fprintf(stderr, "usage: stapbpf [-v] [-w] [-o FILE] [-c CMD | -x PID] [-s MB] [-T SECONDS] BUNDLE.bo\n");
	exit(status);
}

/* A positive number option, or a usage error. */
static long option_number(const char *opt, const char *arg, long max)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (end == arg || *end || v < 1 || v > max) {
		fprintf(stderr, "stapbpf: %s wants a number from 1 to %ld, not '%s'\n", opt, max, arg);
		usage(2);
	}
	return v;
}

/* The options into s; usage errors exit with status 2. */
static void parse_args(struct session *s, int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "+vwo:c:x:s:T:h")) != -1) {
		switch (opt) {
		case 'v': s->verbose++; break;
		case 'w': s->no_warnings = true; break;
		case 'o': s->out_path = optarg; break;
		case 'c': s->cmd = optarg; break;
		case 'x': s->target = (pid_t)option_number("-x", optarg, 0x7fffffff); break;
		case 's': s->bufsize_mb = (unsigned)option_number("-s", optarg, 2048); break;
		case 'T': s->time_limit = option_number("-T", optarg, 100000000); break;
		case 'h': usage(0); break;
		default: usage(2);
		}
	}
	if (s->cmd && s->target) {
		fprintf(stderr, "stapbpf: -c and -x cannot be used together\n");
		usage(2);
	}
	if (optind != argc - 1)
		usage(2);
	s->path = argv[optind];
}

/* Everything before the kernel programs run: maps, @config (the -c child
 * made, held), programs loaded, the ring buffer opened. */
static int prepare(struct session *s)
{
	if (create_maps(s) < 0)
		return -1;
	if (s->cmd) {
		if (cmd_child_spawn(&s->child, s->cmd) < 0)
			return -1;
		s->target = s->child.pid;
		verbose(s, "-c command is pid %d", (int)s->target);
	}
	s->wall_tai = wall_minus_tai();
	if (procfs_open(&s->pf, &s->b) < 0)
		return -1;
	if (s->pf.dir)
		verbose(s, "procfs files: FIFOs in %s", s->pf.dir);
	if (kaslr_offset(s, &s->kaslr) < 0 || write_config(s, 0) < 0 || load_programs(s) < 0)
		return -1;
	for (size_t i = 0; i < s->b.nprogs; i++)   /* a watched symbol where it is now */
		if (s->b.progs[i].at.kind == BA_HWBKPT && s->b.progs[i].at.bp_linked)
			s->b.progs[i].at.bp_addr += (uint64_t)s->kaslr;
	if (s->b.nmaps && s->b.maps[0].kind == BM_RINGBUF) {
		s->rb = ring_buffer__new(s->maps[0].fd, ringbuf_record, s, NULL);
		if (!s->rb) {
			error_msg(s, "ERROR: cannot map the ring buffer: %s", strerror(errno));
			return -1;
		}
	}
	s->env = (struct interp_env){ .b = &s->b, .maps = s->maps, .on_record = handle_record, .out = s->out,
				      .ctx = s, .verbose = s->verbose };
	return 0;
}

/* Close what the run made (the kernel frees maps and programs with their
 * last fd). */
static void cleanup(struct session *s)
{
	detach_all(s);
	procfs_close(&s->pf);
	ring_buffer__free(s->rb);
	for (size_t i = 0; s->prog_fds && i < s->b.nprogs; i++)
		if (s->prog_fds[i] >= 0)
			close(s->prog_fds[i]);
	for (size_t i = 0; s->maps && i < s->b.nmaps; i++)
		if (s->maps[i].m)
			close(s->maps[i].fd);
	for (size_t i = 0; s->refused && i < s->b.nprogs; i++)
		free(s->refused[i]);
	free(s->refused);
	free(s->prog_fds);
	free(s->prog_ids);
	free(s->att);
	free(s->maps);
	bundle_free(&s->b);
}

/* The status stapbpf exits with, as stapio decides it for the module: 1
 * after run-time errors, whatever the script chose; else the script's
 * exit_status() if it called it (over a failed -c command's); else 1 if
 * the -c command failed. */
static int exit_code(const struct session *s, bool child_failed)
{
	if (s->failed)
		return 1;
	if (s->exit_status_set)
		return s->exit_status;
	return child_failed;
}

/* Prepare, begin, attach, relay, detach, drain, end: see the comment at the top. */
int main(int argc, char **argv)
{
	struct session s = { .child = { .go_fd = -1 }, .pf = { .inotify = -1 } };
	bool child_failed;
	int rc;

	parse_args(&s, argc, argv);
	s.out = stdout;
	if (bundle_parse(s.path, &s.b) < 0)
		return 1;
	if (s.out_path && !(s.out = fopen(s.out_path, "we"))) {
		fprintf(stderr, "ERROR: cannot open output file %s: %s\n", s.out_path, strerror(errno));
		return 1;
	}
	if (setup_signals() < 0) {
		fprintf(stderr, "ERROR: signal pipe: %s\n", strerror(errno));
		return 1;
	}
	if (prepare(&s) < 0) {
		cmd_child_abort(&s.child);
		cleanup(&s);
		return 1;
	}
	run_programs(&s, BA_BEGIN);
	handle_signals(&s);	/* Ctrl-C while loading: nothing attached */
	if (!s.stop && attach_all(&s) < 0) {
		/* as in the module runtime: a failed registration is a run-time error */
		s.error_seen = s.failed = true;
		request_stop(&s, "a probe could not be attached");
	}
	if (!s.stop && write_config(&s, 1) < 0)   /* every probe armed: now they run */
		request_stop(&s, "@config could not be written");
	if (s.stop)
		cmd_child_abort(&s.child);	/* it never runs */
	else
		cmd_child_release(&s.child);
	relay(&s);
	write_config(&s, 0);   /* none runs while they are detached one by one */
	detach_all(&s);
	if (s.rb && ring_buffer__consume(s.rb) > 0)
		fflush(s.out);
	run_programs(&s, s.error_seen ? BA_ERROR : BA_END);
	if (s.b.ntiming)
		timing_report(&s);
	s.skipped += kernel_skipped(&s);
	cmd_child_finish(&s.child);
	child_failed = cmd_child_report(&s.child, s.no_warnings);
	if (s.errors || s.skipped)   /* as stapio closes such a session */
		fprintf(stderr, "WARNING: Number of errors: %d, skipped probes: %d\n", s.errors, s.skipped);
	rc = exit_code(&s, child_failed);
	if (fflush(s.out) != 0 || (s.out != stdout && fclose(s.out) != 0)) {
		fprintf(stderr, "ERROR: cannot write the output: %s\n", strerror(errno));
		rc = 1;
	}
	cleanup(&s);
	return rc;
}
