/* bpf_attach.h - a bundle's kernel programs attached to their events
 * through perf_event_open: kprobes and kretprobes (the kprobe PMU),
 * timers and profile (software cpu-clock events), tracepoints. */
#ifndef BPF_ATTACH_H
#define BPF_ATTACH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>

#include "bpf_bundle.h"

/* The perf events one program is attached through: closing them detaches it. */
struct attachment {
	int *fds;
	size_t n;
	bool no_enable;		/* a raw tracepoint's link fd: no perf event to enable */
	char *kevent;		/* a kretprobe made in tracefs (maxactive): "GROUP/EVENT" */
	uint64_t missed;	/* its misses, read when it goes (detach_prog) */
};

/* The program type p is loaded as (KPROBE, PERF_EVENT or TRACEPOINT). */
enum bpf_prog_type attach_prog_type(const struct bundle_prog *p);
/* A trampoline program's attach type (BPF_TRACE_FENTRY, _FEXIT), which its
 * load and its link both name. */
enum bpf_attach_type trampoline_attach_type(const struct bundle_prog *p);

/* Attach the loaded program prog_fd where p's section says: 0, or -errno
 * with the step that failed described in why. */
int attach_prog(const struct bundle_prog *p, int prog_fd, struct attachment *a, char *why, size_t whylen);

/* Enable a's events. Every program is attached first and then all are
 * enabled: no probe counts what stapbpf itself does between two attaches
 * (its reads of sysfs, say), so probes on one function agree. */
int attach_enable(struct attachment *a);

void detach_prog(struct attachment *a);

#endif /* BPF_ATTACH_H */
