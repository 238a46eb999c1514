/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel headers every generated module includes, first: runtime.h's
 * own and those of the probe families and tapsets most scripts use. Pass 4
 * compiles this file once per kernel into a GCC precompiled header
 * (translator/build/pch.c), so only kernel headers go here, none that
 * depends on a macro cstap defines (STP_*, stp_kfeatures.h): the precompiled
 * header is read before the module's own #defines.
 */
#ifndef STP_KHEADERS_H
#define STP_KHEADERS_H

/* runtime.h and what it includes */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/fs.h>
#include <linux/proc_fs.h>
#include <linux/poll.h>
#include <linux/wait.h>
#include <linux/irq_work.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/vmalloc.h>
#include <linux/uaccess.h>
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/preempt.h>
#include <linux/cpumask.h>
#include <linux/cache.h>
#include <linux/string.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/kprobes.h>
#include <linux/timex.h>
#include <linux/math64.h>
#include <asm/word-at-a-time.h>
/* timer, kprobe and tracepoint probes (timer.h, kprobes.h, tracepoints.h) */
#include <linux/hrtimer.h>
#include <linux/random.h>
#include <asm/irq_regs.h>
#include <linux/kallsyms.h>
#include <linux/tracepoint.h>
/* process, uprobe and fentry probes, symbols (process.h, uprobes.h,
 * fentry.h, symbols.h) */
#include <linux/uprobes.h>
#include <linux/task_work.h>
#include <linux/sched/task.h>
#include <linux/namei.h>
#include <linux/hashtable.h>
#include <linux/mm_types.h>
#include <linux/cred.h>
#include <linux/pid_namespace.h>
#include <linux/ftrace.h>
#include <linux/sort.h>
#include <linux/trace_recursion.h>
#include <asm/syscall.h>
#include <asm/unwind.h>
/* the syscall and string tapsets */
#include <linux/compat.h>
#include <linux/ctype.h>
#include <linux/sched/task_stack.h>

#endif /* STP_KHEADERS_H */
