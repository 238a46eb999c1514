/* bpf_attach.c - perf events for a bundle's kernel programs. A kprobe or
 * tracepoint program runs on every CPU through one event (on CPU 0: the
 * program hangs off the probe, not the event); a timer is one cpu-clock
 * event on CPU 0; profile and perf one event per online CPU. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/hw_breakpoint.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>

#include "bpf_attach.h"
#include "bpf_ksym.h"

#define KPROBE_PMU "/sys/bus/event_source/devices/kprobe"
#define UPROBE_PMU "/sys/bus/event_source/devices/uprobe"

/* The program type the section's events take. */
enum bpf_prog_type attach_prog_type(const struct bundle_prog *p)
{
	switch (p->at.kind) {
	case BA_TIMER:
	case BA_PROFILE:
	case BA_PERF:
	case BA_HWBKPT:
		return BPF_PROG_TYPE_PERF_EVENT;
	case BA_TRACEPOINT:
		return BPF_PROG_TYPE_TRACEPOINT;
	case BA_RAW_TRACEPOINT:
		return BPF_PROG_TYPE_RAW_TRACEPOINT;
	case BA_FENTRY:
	case BA_FEXIT:
		return BPF_PROG_TYPE_TRACING;
	default:
		return BPF_PROG_TYPE_KPROBE;
	}
}

enum bpf_attach_type trampoline_attach_type(const struct bundle_prog *p)
{
	return p->at.kind == BA_FENTRY ? BPF_TRACE_FENTRY : BPF_TRACE_FEXIT;
}

/* Fill why (printf-style) and return -err. */
static int failed(int err, char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -err;
}

/* The first line of a small sysfs/tracefs file. 0 or -errno. */
static int read_line(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* A decimal number from such a file. */
static int read_number(const char *path, long *out)
{
	char buf[64], *end;
	int rc = read_line(path, buf, sizeof(buf));

	if (rc < 0)
		return rc;
	*out = strtol(buf, &end, 10);
	return end == buf ? -EINVAL : 0;
}

/* fd (a perf event or a link) joins a's: closing it detaches. */
static int add_fd(struct attachment *a, int fd, char *why, size_t whylen)
{
	int *fds = realloc(a->fds, (a->n + 1) * sizeof(*fds));

	if (!fds) {
		close(fd);
		return failed(ENOMEM, why, whylen, "out of memory");
	}
	a->fds = fds;
	a->fds[a->n++] = fd;
	return 0;
}

/* One perf event with the program on it, not enabled yet; added to a.
 * pid -1: every task, on cpu; else that process, on any CPU. */
static int open_pid_event(struct perf_event_attr *attr, pid_t pid, int cpu, int prog_fd,
			  struct attachment *a, char *why, size_t whylen)
{
	int fd;

	attr->size = sizeof(*attr);
	attr->disabled = 1;
	fd = (int)syscall(__NR_perf_event_open, attr, pid, pid < 0 ? cpu : -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && pid >= 0)
		return failed(errno, why, whylen, "perf_event_open on pid %d: %s", (int)pid, strerror(errno));
	if (fd < 0)
		return failed(errno, why, whylen, "perf_event_open on CPU %d: %s", cpu, strerror(errno));
	if (add_fd(a, fd, why, whylen) < 0)
		return -ENOMEM;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd) < 0)
		return failed(errno, why, whylen, "PERF_EVENT_IOC_SET_BPF: %s", strerror(errno));
	return 0;
}

static int open_event(struct perf_event_attr *attr, int cpu, int prog_fd, struct attachment *a,
		      char *why, size_t whylen)
{
	return open_pid_event(attr, -1, cpu, prog_fd, a, why, whylen);
}

int attach_enable(struct attachment *a)
{
	for (size_t i = 0; i < a->n && !a->no_enable; i++)
		if (ioctl(a->fds[i], PERF_EVENT_IOC_ENABLE, 0) < 0)
			return -errno;
	return 0;
}

/* The first bit of a PMU's config field (format/NAME: "config:N" or
 * "config:N-M"); -errno. */
static int format_bit(const char *pmu, const char *name, char *why, size_t whylen)
{
	char path[128], fmt[64];
	int rc, bit;

	snprintf(path, sizeof(path), "%s/format/%s", pmu, name);
	rc = read_line(path, fmt, sizeof(fmt));
	if (rc < 0)
		return failed(-rc, why, whylen, "%s: %s", path, strerror(-rc));
	if (sscanf(fmt, "config:%d", &bit) != 1 || bit < 0 || bit > 63)
		return failed(EINVAL, why, whylen, "%s says '%s', not config:N", path, fmt);
	return bit;
}

/* kprobe/kretprobe through the kprobe PMU: the symbol's name (MODULE:SYMBOL
 * too) in config1, the offset in config2, the retprobe bit its format file
 * names; uprobe/uretprobe through the uprobe PMU the same way, with the
 * file's path, the offset in it, and an SDT semaphore's offset in the
 * bits format/ref_ctr_offset names (the kernel counts it up while the
 * probe is on); process(PID)'s on that process alone. */
static int attach_kuprobe(const struct bundle_prog *p, int prog_fd, struct attachment *a,
			  char *why, size_t whylen)
{
	bool user = p->at.kind == BA_UPROBE || p->at.kind == BA_URETPROBE;
	const char *pmu = user ? UPROBE_PMU : KPROBE_PMU;
	struct perf_event_attr attr;
	char path[128];
	long type;
	int rc, bit;

	memset(&attr, 0, sizeof(attr));
	snprintf(path, sizeof(path), "%s/type", pmu);
	rc = read_number(path, &type);
	if (rc < 0)
		return failed(-rc, why, whylen, "the kernel has no %s PMU (%s: %s)", user ? "uprobe" : "kprobe",
			      path, strerror(-rc));
	attr.type = (uint32_t)type;
	attr.config1 = (uint64_t)(uintptr_t)p->at.symbol;
	attr.config2 = (uint64_t)p->at.offset;
	if (p->at.kind == BA_KRETPROBE || p->at.kind == BA_URETPROBE) {
		if ((bit = format_bit(pmu, "retprobe", why, whylen)) < 0)
			return bit;
		attr.config |= 1ull << bit;
	}
	if (p->at.ref_ctr) {
		if ((bit = format_bit(pmu, "ref_ctr_offset", why, whylen)) < 0)
			return bit;
		attr.config |= (uint64_t)p->at.ref_ctr << bit;
	}
	return open_pid_event(&attr, p->at.pid ? (pid_t)p->at.pid : -1, 0, prog_fd, a, why, whylen);
}

/* Where tracefs is (or debugfs's tracing), mounted if neither is there:
 * 0 or -errno. */
static int tracefs_root(const char **root, char *why, size_t whylen)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	struct stat st;
	char path[64];

	for (int tries = 0; tries < 2; tries++) {
		for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
			snprintf(path, sizeof(path), "%s/events", roots[i]);
			if (stat(path, &st) == 0) {
				*root = roots[i];
				return 0;
			}
		}
		if (!tries && mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) < 0)
			return failed(errno, why, whylen, "no tracefs, and mounting it at "
				      "/sys/kernel/tracing failed: %s", strerror(errno));
	}
	return failed(ENOENT, why, whylen, "no tracefs events after mounting it at /sys/kernel/tracing");
}

/* Append line to tracefs's kprobe_events: 0 or -errno. */
static int kprobe_events(const char *root, const char *line)
{
	char path[64];
	int fd, rc = 0;

	snprintf(path, sizeof(path), "%s/kprobe_events", root);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (write(fd, line, strlen(line)) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

/* A kretprobe with a maxactive: the kprobe PMU has no such setting, so it
 * is made as tracefs's kprobe_events does ("rN:cstap/EVENT PLACE", PLACE
 * an address for an offset from _stext, else SYMBOL+OFFSET), then its
 * trace event gets the program (as a tracepoint's); detach_prog removes
 * it. */
static int attach_kretprobe_tracefs(const struct bundle_prog *p, int prog_fd, struct attachment *a,
				    char *why, size_t whylen)
{
	const char *root;
	char line[512], path[64], place[300];
	struct perf_event_attr attr;
	long id;
	int rc = tracefs_root(&root, why, whylen);

	if (rc < 0)
		return rc;
	if (!strcmp(p->at.symbol, "_stext")) {
		uint64_t stext = bpf_ksym_addr("_stext");
		if (!stext)
			return failed(ENOENT, why, whylen, "no _stext in /proc/kallsyms");
		snprintf(place, sizeof(place), "0x%llx", (unsigned long long)(stext + (uint64_t)p->at.offset));
	} else {
		snprintf(place, sizeof(place), "%s+%lld", p->at.symbol, (long long)p->at.offset);
	}
	snprintf(path, sizeof(path), "cstap/p%d_%d", (int)getpid(), p->id);
	snprintf(line, sizeof(line), "r%d:%s %s\n", p->at.maxactive, path, place);
	rc = kprobe_events(root, line);
	if (rc < 0)
		return failed(-rc, why, whylen, "%s/kprobe_events: %s: %s", root, line, strerror(-rc));
	a->kevent = strdup(path);
	snprintf(line, sizeof(line), "%s/events/%s/id", root, path);
	rc = read_number(line, &id);
	if (rc < 0)
		return failed(-rc, why, whylen, "%s: %s", line, strerror(-rc));
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = (uint64_t)id;
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	return open_event(&attr, 0, prog_fd, a, why, whylen);
}

/* A tracefs kretprobe's misses (kprobe_profile: EVENT NHIT NMISSED), then
 * the kretprobe removed. */
static void remove_kretprobe_tracefs(struct attachment *a)
{
	const char *root;
	char why[8], path[64], line[512], name[256];
	unsigned long long hit, missed;
	FILE *f;

	if (tracefs_root(&root, why, sizeof(why)) < 0)
		return;
	snprintf(path, sizeof(path), "%s/kprobe_profile", root);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %llu %llu", name, &hit, &missed) == 3 &&
		    !strcmp(name, strchr(a->kevent, '/') + 1))
			a->missed += missed;
	if (f)
		fclose(f);
	snprintf(line, sizeof(line), "-:%s\n", a->kevent);
	kprobe_events(root, line);
}

/* The tracepoint's id from tracefs or debugfs's tracing, mounting tracefs
 * if neither is there. */
static int tracepoint_id(const struct bundle_prog *p, long *id, char *why, size_t whylen)
{
	const char *root;
	char path[512];
	int rc;

	if (strchr(p->at.symbol, '/') || strchr(p->at.event, '/') || !strcmp(p->at.symbol, "..") || !strcmp(p->at.event, ".."))
		return failed(EINVAL, why, whylen, "bad tracepoint name %s:%s", p->at.symbol, p->at.event);
	rc = tracefs_root(&root, why, whylen);
	if (rc < 0)
		return rc;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, p->at.symbol, p->at.event);
	rc = read_number(path, id);
	if (rc == 0)
		return 0;
	return failed(-rc, why, whylen, "tracepoint %s:%s (%s): %s", p->at.symbol, p->at.event, path, strerror(-rc));
}

/* The online CPUs, from /sys/devices/system/cpu/online ("0-3,5"). */
static int online_cpus(int **cpus, size_t *n)
{
	char buf[4096], *s;
	int rc = read_line("/sys/devices/system/cpu/online", buf, sizeof(buf));

	*cpus = NULL;
	*n = 0;
	if (rc < 0)
		return rc;
	for (s = buf; *s;) {
		char *end;
		long lo = strtol(s, &end, 10), hi = lo;
		int *c;

		if (end == s)
			return -EINVAL;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		if (hi < lo || hi - lo > 65536)
			return -EINVAL;
		c = realloc(*cpus, (*n + (size_t)(hi - lo + 1)) * sizeof(int));
		if (!c)
			return -ENOMEM;
		*cpus = c;
		for (long k = lo; k <= hi; k++)
			(*cpus)[(*n)++] = (int)k;
		s = *end == ',' ? end + 1 : end;
	}
	return 0;
}

/* The events of p's section, each with the program on it. */
int attach_prog(const struct bundle_prog *p, int prog_fd, struct attachment *a, char *why, size_t whylen)
{
	struct perf_event_attr attr;
	int *cpus = NULL;
	size_t ncpus = 0;
	long id = 0;
	int rc;

	memset(&attr, 0, sizeof(attr));
	why[0] = '\0';
	switch (p->at.kind) {
	case BA_KRETPROBE:
		if (p->at.maxactive)
			return attach_kretprobe_tracefs(p, prog_fd, a, why, whylen);
		/* fall through */
	case BA_KPROBE:
	case BA_UPROBE:
	case BA_URETPROBE:
		return attach_kuprobe(p, prog_fd, a, why, whylen);
	case BA_TRACEPOINT:
		rc = tracepoint_id(p, &id, why, whylen);
		if (rc < 0)
			return rc;
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = (uint64_t)id;
		attr.sample_period = 1;
		attr.wakeup_events = 1;
		return open_event(&attr, 0, prog_fd, a, why, whylen);
	case BA_RAW_TRACEPOINT: {   /* attached at once; @config's run flag holds it */
		int fd = bpf_raw_tracepoint_open(p->at.event, prog_fd);
		if (fd < 0)
			return failed(errno, why, whylen, "BPF_RAW_TRACEPOINT_OPEN %s: %s", p->at.event,
				      strerror(errno));
		a->no_enable = true;
		return add_fd(a, fd, why, whylen);
	}
	case BA_FENTRY:   /* the trampoline's link, made at once: @config's run flag holds it */
	case BA_FEXIT: {
		int fd = bpf_link_create(prog_fd, 0, trampoline_attach_type(p), NULL);
		if (fd < 0)
			return failed(errno, why, whylen, "a BPF trampoline on %s: %s", p->at.symbol,
				      strerror(errno));
		a->no_enable = true;
		return add_fd(a, fd, why, whylen);
	}
	case BA_HWBKPT:   /* every access the watchpoint takes is a sample */
		attr.type = PERF_TYPE_BREAKPOINT;
		attr.bp_type = p->at.bp_rw ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W;
		attr.bp_addr = p->at.bp_addr;
		attr.bp_len = (uint64_t)p->at.bp_len;
		attr.sample_period = 1;
		attr.wakeup_events = 1;
		goto every_cpu;
	case BA_TIMER:
	case BA_PROFILE:
	case BA_PERF:
		attr.type = p->at.kind == BA_PERF ? p->at.perf_type : PERF_TYPE_SOFTWARE;
		attr.config = p->at.kind == BA_PERF ? p->at.perf_config : PERF_COUNT_SW_CPU_CLOCK;
		if (p->at.period < 0) {	/* perf's -Hz */
			attr.freq = 1;
			attr.sample_freq = (uint64_t)-p->at.period;
		} else {
			attr.sample_period = (uint64_t)p->at.period;
		}
		if (p->at.kind == BA_TIMER)
			return open_event(&attr, 0, prog_fd, a, why, whylen);
every_cpu:
		rc = online_cpus(&cpus, &ncpus);
		if (rc < 0) {
			free(cpus);
			return failed(-rc, why, whylen, "/sys/devices/system/cpu/online: %s", strerror(-rc));
		}
		for (size_t i = 0; i < ncpus && rc == 0; i++)
			rc = open_event(&attr, cpus[i], prog_fd, a, why, whylen);
		free(cpus);
		return rc;
	default:
		return failed(EINVAL, why, whylen, "section %s is not attached to the kernel", p->section);
	}
}

/* Closing a perf event detaches its program. */
void detach_prog(struct attachment *a)
{
	for (size_t i = 0; i < a->n; i++)
		close(a->fds[i]);
	free(a->fds);
	a->fds = NULL;
	a->n = 0;
	if (a->kevent)
		remove_kretprobe_tracefs(a);
	free(a->kevent);
	a->kevent = NULL;
}
