/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap: what the BPF backend's programs (stap --runtime=bpf,
 * translator/translate/bpf/) and stapbpf (stapbpf/) agree on, besides the
 * bundle's text (doc/bpf-bundle.md): the helpers they call, the records
 * they put on the ring buffer, the size of a string. User space only; the
 * module runtime's counterpart is ctl_proto.h.
 */
#ifndef STP_BPF_PROTO_H
#define STP_BPF_PROTO_H

/* the kernel's helper numbers the programs call (include/uapi/linux/bpf.h),
 * and the interpreter's own, which only begin/end/error programs call */
enum {
	H_MAP_LOOKUP = 1, H_MAP_UPDATE = 2, H_MAP_DELETE = 3, H_KTIME_NS = 5, H_PRANDOM_U32 = 7,
	H_SMP_PROCESSOR_ID = 8, H_PID_TGID = 14, H_UID_GID = 15, H_COMM = 16, H_CURRENT_TASK = 35, H_CURRENT_TASK_BTF = 158,
	H_JIFFIES64 = 118,
	H_READ_USER = 112, H_READ_KERNEL = 113, H_READ_USER_STR = 114, H_READ_KERNEL_STR = 115,
	H_BOOT_NS = 125, H_RB_OUTPUT = 130, H_FOR_EACH_MAP = 164, H_SNPRINTF = 165, H_GET_STACK = 67, H_LOOP = 181, H_FUNC_ARG = 183, H_FUNC_RET = 184, H_RB_RESERVE = 131, H_RB_SUBMIT = 132,
	H_RB_DISCARD = 133, H_KTIME_TAI = 208,
	HU_FOREACH_START = 0x1001, HU_FOREACH_NEXT = 0x1002, HU_MAP_CLEAR = 0x1003,
	HU_MAP_COUNT = 0x1004, HU_REALTIME_NS = 0x1005, HU_SPRINTF = 0x1006, HU_PRINT_HIST = 0x1007,
	HU_REREAD = 0x1008, HU_PID_PARENT = 0x1009, HU_KSYM = 0x100a, HU_PROCFS = 0x100b,
};

/* HU_PROCFS(op, str): a procfs probe's file (its $value) */
enum { PROCFS_VALUE = 0, PROCFS_SET = 1, PROCFS_APPEND = 2, PROCFS_ACTIVE = 3 };

/* a ring buffer record's kind: the low 32 bits of its first u64 */
enum { REC_PRINTF = 1, REC_EXIT = 2, REC_ERROR = 3, REC_WARN = 4, REC_SYSTEM = 5, REC_SKIP = 6, REC_QUIET_ERROR = 7,
       REC_STACK = 8, REC_EXIT_STATUS = 9, REC_USTACK = 10,
       REC_STDERR = 11 };

/* A USTACK record's tag: REC_USTACK, its style (bpf_usym.h's
 * bpf_ustack_style) in bits 32-39, the frames to print at most (0: all)
 * from bit 40; then the process's ID, the stack's size in bytes (or
 * bpf_get_stack's error) and the frames */
#define BPF_USTACK_TAG(style, frames) \
	(REC_USTACK | (unsigned long long)(style) << 32 | (unsigned long long)(frames) << 40)

#define BPF_STACK_FRAMES 64	/* a STACK record's frames at most (runtime/symbols.h's STP_BT_MAX) */

#define BPF_STRSZ 64    /* a string: 63 bytes and a NUL, NUL-padded */
/* -D MAXSTRINGLEN=N makes them longer: N rounded up to a power of 2, at
 * the most this (the bundle's strsz line says how long) */
#define BPF_STRSZ_MAX 1024

/* Where and how a program runs: its attach point's kind, the first word of
 * the bundle's "prog ID SECTION" (bpf_attach_word; doc/bpf-bundle.md).
 * The translator's probe families make them (provider.h's bpf_attach),
 * stapbpf loads them (bpf_bundle.c reads, bpf_attach.c attaches). */
enum bpf_attach_kind {
	BA_BEGIN,
	BA_END,
	BA_ERROR,
	BA_KPROBE,
	BA_KRETPROBE,
	BA_TIMER,
	BA_PROFILE,
	BA_PERF,
	BA_TRACEPOINT,
	BA_RAW_TRACEPOINT,
	BA_UPROBE,
	BA_URETPROBE,
	BA_PROCFS_READ,		/* run when its FIFO is read / written (user space) */
	BA_PROCFS_WRITE,
	BA_HWBKPT,		/* a perf breakpoint event on every CPU */
	BA_UTIMER,		/* a timer probe stapbpf runs itself */
	BA_FENTRY,		/* a BPF trampoline on a kernel function's entry / return */
	BA_FEXIT,
	BA_NKINDS
};

/* The SECTION word of kind k, or NULL: one table for the writer and the reader. */
static inline const char *bpf_attach_word(int k)
{
	static const char *const words[BA_NKINDS] = {
		[BA_BEGIN] = "begin", [BA_END] = "end", [BA_ERROR] = "error",
		[BA_KPROBE] = "kprobe", [BA_KRETPROBE] = "kretprobe", [BA_TIMER] = "timer",
		[BA_PROFILE] = "profile", [BA_PERF] = "perf", [BA_TRACEPOINT] = "tracepoint",
		[BA_RAW_TRACEPOINT] = "raw_tracepoint", [BA_UPROBE] = "uprobe", [BA_URETPROBE] = "uretprobe",
		[BA_PROCFS_READ] = "procfs_read", [BA_PROCFS_WRITE] = "procfs_write", [BA_HWBKPT] = "hwbkpt",
		[BA_UTIMER] = "utimer", [BA_FENTRY] = "fentry", [BA_FEXIT] = "fexit",
	};
	return k >= 0 && k < BA_NKINDS ? words[k] : 0;
}

/* Is a program of kind k a BPF trampoline's (fentry, fexit): bound at load
 * to its kernel function, its context that function's arguments? */
static inline int bpf_attach_trampoline(int k)
{
	return k == BA_FENTRY || k == BA_FEXIT;
}

/* Does a program of kind k run in stapbpf's interpreter (user space) rather
 * than in the kernel? */
static inline int bpf_attach_in_user(int k)
{
	return k == BA_BEGIN || k == BA_END || k == BA_ERROR || k == BA_UTIMER ||
	       k == BA_PROCFS_READ || k == BA_PROCFS_WRITE;
}

/* One program's attach point, typed: what a probe family says of its probe
 * and stapbpf attaches; the bundle spells it as SECTION's words. The fields
 * a kind does not use are 0. */
struct bpf_attach {
	enum bpf_attach_kind kind;
	const char *symbol;	/* kprobe: SYMBOL ("_stext", "MODULE:SYMBOL"); fentry/fexit:
				   FUNCTION (vmlinux's BTF names it); uprobe: FILE;
				   tracepoint: SYSTEM; procfs: PATH (relative) */
	const char *event;	/* (raw_)tracepoint: NAME */
	long long offset;	/* kprobe, uprobe: OFFSET; procfs: the FIFO's MODE */
	long long ref_ctr;	/* uprobe: its SDT semaphore's file offset, or 0 */
	long long pid;		/* uprobe: the one process it fires in, or 0 */
	int maxactive;		/* kretprobe: instances at most (tracefs), or 0 */
	unsigned perf_type;	/* perf: perf_event_attr's type and config */
	long long perf_config;
	long long period;	/* timer, utimer: ns; perf: events, or -Hz;
				   procfs_read: the buffer's size (0: 512) */
	long long randomize;	/* timer, utimer: each period moves by up to this, in ns */
	long long bp_addr;	/* hwbkpt: the address watched (linked: a link-time */
	int bp_len;		/* address, the kernel's load offset added), its */
	int bp_rw;		/* length, 1 when reads count too */
	int bp_linked;
	int optional;		/* failing to attach it is no error (a wildcard's function) */
};

#endif /* STP_BPF_PROTO_H */
