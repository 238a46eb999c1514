/* d_prov_proc.c - the proc provider on the kernel's tracepoints: a
 * process or thread made (task:task_newtask, told apart by CLONE_THREAD),
 * exec tried (the execve/execveat system calls), succeeded
 * (sched:sched_process_exec) or failed (their return), a thread or the
 * whole process exiting (sched:sched_process_exit: the last thread
 * exits the process), signals sent (signal:signal_generate; discarded when
 * the target ignores it), handled (signal:signal_deliver) or taken by
 * sigtimedwait (cleared). start and lwp-start fire in the new thread, which
 * no tracepoint does: schedule_tail, a kernel function (the module
 * runtime's kprobes).
 */
#include "d/d_provider.h"

#define EXEC_NR(nr) "(" nr " == 59 || " nr " == 322)"   /* execve, execveat */
#define EXIT_CODE "@cast($p, \"task_struct\", \"kernel\")->exit_code"
/* the process's last thread exiting: the tracepoint says so since 6.16;
 * before, the thread-group leader's exit stands for it */
#define GROUP_DEAD "(@defined($group_dead) ? $group_dead : task_tid($p) == task_pid($p))"

static const struct d_tprobe probes[] = {
	{ "create", "kernel.trace(\"task:task_newtask\")", "($clone_flags & 65536) == 0", NULL,
	  { { "psinfo_t *", "$task" } } },
	{ "exec", "kernel.trace(\"raw_syscalls:sys_enter\")", EXEC_NR("$id"), NULL,
	  { { "string", "user_string($id == 59 ? $regs->di : $regs->si, \"\")" } } },
	{ "exec-failure", "kernel.trace(\"raw_syscalls:sys_exit\")", EXEC_NR("$regs->orig_ax") " && $ret < 0", NULL,
	  { { "int", "-$ret" } } },
	{ "exec-success", "kernel.trace(\"sched:sched_process_exec\")", NULL, NULL, { { NULL } } },
	{ "exit", "kernel.trace(\"sched:sched_process_exit\")", GROUP_DEAD, NULL,
	  { { "int", "((" EXIT_CODE " & 127) == 0 ? 1 : (" EXIT_CODE " & 128) ? 3 : 2)" } } },   /* CLD_* */
	{ "lwp-create", "kernel.trace(\"task:task_newtask\")", "($clone_flags & 65536) != 0", NULL,
	  { { "lwpsinfo_t *", "$task" }, { "psinfo_t *", "$task" } } },
	{ "lwp-exit", "kernel.trace(\"sched:sched_process_exit\")", "!" GROUP_DEAD, NULL, { { NULL } } },
	{ "lwp-start", "kernel.function(\"schedule_tail\")", NULL, NULL, { { NULL } } },
	{ "signal-clear", "kernel.trace(\"raw_syscalls:sys_exit\")", "$regs->orig_ax == 128 && $ret > 0", NULL,
	  { { "int", "$ret" } } },
	{ "signal-discard", "kernel.trace(\"signal:signal_generate\")", "$result == 1", NULL,
	  { { "lwpsinfo_t *", "$task" }, { "psinfo_t *", "$task" }, { "int", "$sig" } } },
	{ "signal-handle", "kernel.trace(\"signal:signal_deliver\")", NULL, NULL,
	  { { "int", "$sig" }, { "siginfo_t *", "$info" }, { "void (*)(void)", "$ka->sa->sa_handler" } } },
	{ "signal-send", "kernel.trace(\"signal:signal_generate\")", NULL, NULL,
	  { { "lwpsinfo_t *", "$task" }, { "psinfo_t *", "$task" }, { "int", "$sig" } } },
	{ "start", "kernel.function(\"schedule_tail\")", "pid() == tid()", NULL, { { NULL } } },
};

static const struct d_ptable table = { "proc", "vmlinux", probes, sizeof(probes) / sizeof(probes[0]) };

const struct d_family d_fam_proc = D_TABLE_FAMILY("proc", table, "Evolving", "Evolving", "ISA",
						  "Evolving", "Evolving", "ISA");
