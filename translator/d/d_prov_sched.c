/* d_prov_sched.c - the sched provider: a thread switched to (on-cpu,
 * which fires for the thread switched to: its pid, tid, execname and
 * self-> variables) or from (off-cpu, whose arguments are the next
 * thread), going to sleep or preempted there (sched:sched_switch), woken
 * (sched:sched_wakeup), the clock tick (timer.profile: each CPU's, for the
 * thread it interrupts). Queueing, surrendering the CPU and priority
 * changes have no tracepoint: kernel functions (the module runtime's
 * kprobes).
 */
#include "d/d_provider.h"

#define SWITCH "kernel.trace(\"sched:sched_switch\")"
#define THREAD(t) { "lwpsinfo_t *", t }, { "psinfo_t *", t }

static const struct d_tprobe probes[] = {
	{ "change-pri", "kernel.function(\"set_user_nice\")", NULL, NULL,
	  { THREAD("$p"), { "pri_t", "$nice + 120" } } },
	{ "dequeue", "kernel.function(\"dequeue_task\")", NULL, NULL,
	  { THREAD("$p"), { "cpuinfo_t *", "0" }, { "int", "0" } } },
	{ "enqueue", "kernel.function(\"enqueue_task\")", NULL, NULL,
	  { THREAD("$p"), { "cpuinfo_t *", "0" } } },
	{ "off-cpu", SWITCH, NULL, NULL, { THREAD("$next") } },
	{ "on-cpu", SWITCH, NULL, "$next", { { NULL } } },
	{ "preempt", SWITCH, "$preempt", NULL, { { NULL } } },
	{ "remain-cpu", "kernel.function(\"do_sched_yield\")", NULL, NULL, { { NULL } } },
	{ "sleep", SWITCH, "!$preempt && $prev_state != 0", NULL, { { NULL } } },
	{ "surrender", "kernel.function(\"resched_curr\")", NULL, NULL, { THREAD("task_current()") } },
	{ "tick", "timer.profile", NULL, NULL, { THREAD("task_current()") } },
	{ "wakeup", "kernel.trace(\"sched:sched_wakeup\")", NULL, NULL, { THREAD("$p") } },
};

static const struct d_ptable table = { "sched", "vmlinux", probes, sizeof(probes) / sizeof(probes[0]) };

const struct d_family d_fam_sched = D_TABLE_FAMILY("sched", table, "Private", "Private", "Unknown",
						   "Evolving", "Evolving", "ISA");
