/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap: what the BPF backend's programs (stap --runtime=bpf,
 * translator/translate/bpf/) and stapbpf (staprun/) agree on, besides the
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
	H_SMP_PROCESSOR_ID = 8, H_PID_TGID = 14, H_UID_GID = 15, H_COMM = 16, H_CURRENT_TASK = 35,
	H_JIFFIES64 = 118,
	H_READ_USER = 112, H_READ_KERNEL = 113, H_READ_USER_STR = 114, H_READ_KERNEL_STR = 115,
	H_BOOT_NS = 125, H_RB_OUTPUT = 130, H_FOR_EACH_MAP = 164, H_SNPRINTF = 165, H_GET_STACK = 67, H_LOOP = 181, H_RB_RESERVE = 131, H_RB_SUBMIT = 132,
	H_RB_DISCARD = 133, H_KTIME_TAI = 208,
	HU_FOREACH_START = 0x1001, HU_FOREACH_NEXT = 0x1002, HU_MAP_CLEAR = 0x1003,
	HU_MAP_COUNT = 0x1004, HU_REALTIME_NS = 0x1005, HU_SPRINTF = 0x1006, HU_PRINT_HIST = 0x1007,
	HU_REREAD = 0x1008, HU_PID_PARENT = 0x1009, HU_KSYM = 0x100a, HU_PROCFS = 0x100b,
};

/* HU_PROCFS(op, str): a procfs probe's file (its $value) */
enum { PROCFS_VALUE = 0, PROCFS_SET = 1, PROCFS_APPEND = 2, PROCFS_ACTIVE = 3 };

/* a ring buffer record's kind: the low 32 bits of its first u64 */
enum { REC_PRINTF = 1, REC_EXIT = 2, REC_ERROR = 3, REC_WARN = 4, REC_SYSTEM = 5, REC_SKIP = 6, REC_QUIET_ERROR = 7,
       REC_STACK = 8 };

#define BPF_STACK_FRAMES 64	/* a STACK record's frames at most (runtime/symbols.h's STP_BT_MAX) */

#define BPF_STRSZ 64    /* a string: 63 bytes and a NUL, NUL-padded */

#endif /* STP_BPF_PROTO_H */
