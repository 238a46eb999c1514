/* attach.c - what the target kernel attaches BPF programs to (attach.h). */
#include "attach.h"

#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpf_proto.h"
#include "btf.h"
#include "kernel.h"
#include "target.h"

/* Is the running kernel's perf PMU dir (kprobe, uprobe) there? */
static bool has_pmu(const char *name)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", name);
	return access(path, R_OK) == 0;
}

/* The running kernel's answer to a BPF trampoline on func: a program
 * returning 0 loaded for fentry and attached for an instant; NULL when it
 * attached, else why not. Tried once a run (the answer is the kernel's
 * policy, not the function's), and only as root: a user's EPERM says
 * nothing of what stap run as root would meet. */
static const char *trampoline_tried(struct session *s, const char *func)
{
	struct target *t = target_of(s);
	const struct btf *b = btf_kernel(s, NULL);
	uint32_t id = b ? btf_func_id(b, func) : 0;

	if (t->attach.tried || !id || geteuid() != 0)
		return t->attach.trampoline_why;
	t->attach.tried = true;
	struct bpf_insn prog[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr a;
	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_TRACING;
	a.expected_attach_type = BPF_TRACE_FENTRY;
	a.attach_btf_id = id;
	a.insns = (uintptr_t)prog;
	a.insn_cnt = 2;
	a.license = (uintptr_t)"GPL";
	int fd = (int)syscall(__NR_bpf, BPF_PROG_LOAD, &a, sizeof(a));
	if (fd < 0) {
		t->attach.trampoline_why = xasprintf("the kernel refused a BPF trampoline: %s", strerror(errno));
		return t->attach.trampoline_why;
	}
	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.prog_fd = (uint32_t)fd;
	int link = (int)syscall(__NR_bpf, BPF_RAW_TRACEPOINT_OPEN, &a, sizeof(a));
	if (link < 0)
		t->attach.trampoline_why = xasprintf("the kernel cannot attach a BPF trampoline: %s", strerror(errno));
	else
		close(link);
	close(fd);
	return t->attach.trampoline_why;
}

/* Is the target's configuration known and without CONFIG_name=y? */
static bool config_lacks(struct session *s, const char *name)
{
	return kernel_config_text(s) && !kernel_config_is(s, name, "y");
}

const char *bpf_attach_refused(struct session *s, int kind, const char *func)
{
	bool running = target_kernel(s)->running;

	switch (kind) {
	case BA_KPROBE:
	case BA_KRETPROBE:
		if (running ? !has_pmu("kprobe") : config_lacks(s, "CONFIG_KPROBES"))
			return running ? "no kprobe PMU (kprobes are not configured in this kernel)"
				       : "the kernel has no kprobes (CONFIG_KPROBES is not set)";
		return NULL;
	case BA_UPROBE:
	case BA_URETPROBE:
		if (running ? !has_pmu("uprobe") : config_lacks(s, "CONFIG_UPROBES"))
			return running ? "no uprobe PMU" : "the kernel has no uprobes (CONFIG_UPROBES is not set)";
		return NULL;
	case BA_FENTRY:
	case BA_FEXIT:
		if (!running)
			return config_lacks(s, "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS")
				       ? "the kernel has no BPF trampolines (CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS is not set)"
				       : NULL;
		return func ? trampoline_tried(s, func) : NULL;
	default:
		return NULL;
	}
}
