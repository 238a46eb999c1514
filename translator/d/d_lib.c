/* d_lib.c - D's library types (psinfo_t, lwpsinfo_t), the members the
 * library's translators define, and its constants.
 *
 * The structures are proc(4)'s, as DTrace's documentation lists them; the
 * translated members are the ones that guide documents "as available to
 * DTrace consumers" (the others are in the type but have no conversion:
 * D_XLATE_NOCONV), with lwpsinfo_t's pr_name, which DTrace on Linux fills
 * from the task's comm.
 */
#include <string.h>

#include "d/d_lib.h"
#include "d/d_provider.h"
#include "util.h"

/* one member of a library structure: its C type and name (an array: n) */
struct lib_member {
	const char *type, *name;
	int n;
};

static const struct lib_member timestruc_members[] = {
	{ "long", "tv_sec", 0 }, { "long", "tv_nsec", 0 }, { NULL, NULL, 0 },
};

static const struct lib_member lwpsinfo_members[] = {
	{ "int", "pr_flag", 0 }, { "id_t", "pr_lwpid", 0 }, { "uintptr_t", "pr_addr", 0 },
	{ "uintptr_t", "pr_wchan", 0 }, { "char", "pr_stype", 0 }, { "char", "pr_state", 0 },
	{ "char", "pr_sname", 0 }, { "char", "pr_nice", 0 }, { "short", "pr_syscall", 0 },
	{ "char", "pr_oldpri", 0 }, { "char", "pr_cpu", 0 }, { "int", "pr_pri", 0 },
	{ "ushort_t", "pr_pctcpu", 0 }, { "ushort_t", "pr_pad", 0 },
	{ "timestruc_t", "pr_start", 0 }, { "timestruc_t", "pr_time", 0 },
	{ "char", "pr_clname", 8 }, { "char", "pr_name", 16 },
	{ "processorid_t", "pr_onpro", 0 }, { "processorid_t", "pr_bindpro", 0 },
	{ "psetid_t", "pr_bindpset", 0 }, { "lgrp_id_t", "pr_lgrp", 0 }, { NULL, NULL, 0 },
};

static const struct lib_member psinfo_members[] = {
	{ "int", "pr_flag", 0 }, { "int", "pr_nlwp", 0 }, { "pid_t", "pr_pid", 0 },
	{ "pid_t", "pr_ppid", 0 }, { "pid_t", "pr_pgid", 0 }, { "pid_t", "pr_sid", 0 },
	{ "uid_t", "pr_uid", 0 }, { "uid_t", "pr_euid", 0 }, { "gid_t", "pr_gid", 0 },
	{ "gid_t", "pr_egid", 0 }, { "uintptr_t", "pr_addr", 0 }, { "size_t", "pr_size", 0 },
	{ "size_t", "pr_rssize", 0 }, { "dev_t", "pr_ttydev", 0 }, { "ushort_t", "pr_pctcpu", 0 },
	{ "ushort_t", "pr_pctmem", 0 }, { "timestruc_t", "pr_start", 0 },
	{ "timestruc_t", "pr_time", 0 }, { "timestruc_t", "pr_ctime", 0 },
	{ "char", "pr_fname", 16 }, { "char", "pr_psargs", 80 }, { "int", "pr_wstat", 0 },
	{ "int", "pr_argc", 0 }, { "uintptr_t", "pr_argv", 0 }, { "uintptr_t", "pr_envp", 0 },
	{ "char", "pr_dmodel", 0 }, { "taskid_t", "pr_taskid", 0 }, { "projid_t", "pr_projid", 0 },
	{ "int", "pr_nzomb", 0 }, { "id_t", "pr_poolid", 0 }, { "zoneid_t", "pr_zoneid", 0 },
	{ "id_t", "pr_contract", 0 }, { "lwpsinfo_t", "pr_lwp", 0 }, { NULL, NULL, 0 },
};

static const struct lib_member cpuinfo_members[] = {
	{ "processorid_t", "cpu_id", 0 }, { "psetid_t", "cpu_pset", 0 }, { "chipid_t", "cpu_chip", 0 },
	{ "lgrp_id_t", "cpu_lgrp", 0 }, { NULL, NULL, 0 },
};

/* the library's typedefs of structures: name, struct tag, members */
static const struct {
	const char *name, *tag;
	const struct lib_member *members;
} lib_types[] = {
	{ "timestruc_t", "timestruc", timestruc_members },
	{ "lwpsinfo_t", "lwpsinfo", lwpsinfo_members },
	{ "psinfo_t", "psinfo", psinfo_members },
	{ "cpuinfo_t", "cpuinfo", cpuinfo_members },
};

static const char *const psinfo_xlated[] = {
	"pr_nlwp", "pr_pid", "pr_ppid", "pr_pgid", "pr_sid", "pr_uid", "pr_euid", "pr_gid",
	"pr_egid", "pr_addr", "pr_ttydev", "pr_start", "pr_fname", "pr_psargs", "pr_argc",
	"pr_argv", "pr_envp", "pr_dmodel", "pr_taskid", "pr_projid", "pr_poolid", "pr_zoneid",
	NULL,
};

static const char *const lwpsinfo_xlated[] = {
	"pr_flag", "pr_lwpid", "pr_addr", "pr_wchan", "pr_stype", "pr_state", "pr_sname",
	"pr_syscall", "pr_pri", "pr_clname", "pr_name", "pr_onpro", "pr_bindpro", "pr_bindpset",
	NULL,
};

/* A member type by name, int when the table has no such type. */
static struct d_type *member_type(struct d_types *ts, const struct lib_member *m)
{
	struct d_type *t = d_lib_type(ts, m->type);

	if (!t)
		t = d_type_lookup(ts, m->type);
	if (!t)
		t = d_type_lookup(ts, "int");
	return m->n ? d_type_array(ts, t, m->n) : t;
}

/* The i-th library structure, defined once (the typedef then is the table's). */
static struct d_type *define(struct d_types *ts, size_t i)
{
	struct d_type *t = d_typedef_lookup(ts, lib_types[i].name), *s;

	if (t)
		return t;
	s = d_sou_begin(ts, DT_STRUCT, lib_types[i].tag);
	for (const struct lib_member *m = lib_types[i].members; m->name; m++)
		d_sou_add(ts, s, m->name, member_type(ts, m), 0);
	d_sou_end(ts, s);
	return d_typedef_declare(ts, lib_types[i].name, s);
}

struct d_type *d_lib_type(struct d_types *ts, const char *name)
{
	for (size_t i = 0; i < sizeof(lib_types) / sizeof(lib_types[0]); i++) {
		if (!strcmp(name, lib_types[i].name))
			return define(ts, i);
		if (!strncmp(name, "struct ", 7) && !strcmp(name + 7, lib_types[i].tag)) {
			define(ts, i);
			return d_type_local_tag(ts, DT_STRUCT, lib_types[i].tag);
		}
	}
	return NULL;
}

const char *const *d_lib_xlated(const char *type)
{
	if (!strcmp(type, "psinfo_t"))
		return psinfo_xlated;
	if (!strcmp(type, "lwpsinfo_t"))
		return lwpsinfo_xlated;
	return NULL;
}

/* x86_64's registers as uregs[] indexes them (the order of the kernel's
 * struct pt_regs), and the names common to every architecture. */
static const struct {
	const char *name;
	int value;
} regs[] = {
	{ "R_R15", 0 }, { "R_R14", 1 }, { "R_R13", 2 }, { "R_R12", 3 }, { "R_RBP", 4 },
	{ "R_RBX", 5 }, { "R_R11", 6 }, { "R_R10", 7 }, { "R_R9", 8 }, { "R_R8", 9 },
	{ "R_RAX", 10 }, { "R_RCX", 11 }, { "R_RDX", 12 }, { "R_RSI", 13 }, { "R_RDI", 14 },
	{ "R_TRAPNO", 15 }, { "R_RIP", 16 }, { "R_CS", 17 }, { "R_RFL", 18 }, { "R_RSP", 19 },
	{ "R_SS", 20 }, { "R_FS", 21 }, { "R_GS", 22 }, { "R_ES", 23 }, { "R_DS", 24 },
	{ "R_PC", 16 }, { "R_SP", 19 }, { "R_FP", 4 }, { "R_PS", 18 }, { "R_R0", 10 },
	{ "R_R1", 12 },
};

/* the library's other constants */
static const struct {
	const char *name;
	int value;
} consts[] = {
	{ "NULL", 0 },
	/* the faults ERROR reports in arg4 */
	{ "DTRACEFLT_UNKNOWN", 0 }, { "DTRACEFLT_BADADDR", 1 }, { "DTRACEFLT_BADALIGN", 2 },
	{ "DTRACEFLT_ILLOP", 3 }, { "DTRACEFLT_DIVZERO", 4 }, { "DTRACEFLT_NOSCRATCH", 5 },
	{ "DTRACEFLT_KPRIV", 6 }, { "DTRACEFLT_UPRIV", 7 }, { "DTRACEFLT_TUPOFLOW", 8 },
	{ "DTRACEFLT_BADSTACK", 9 },
	/* address families (inet_ntop) and Linux's signals (raise) */
	{ "AF_INET", 2 }, { "AF_INET6", 10 },
	/* psinfo_t's pr_dmodel; time units */
	{ "PR_MODEL_ILP32", 1 }, { "PR_MODEL_LP64", 2 },
	{ "NANOSEC", 1000000000 }, { "MICROSEC", 1000000 }, { "MILLISEC", 1000 },
	{ "SIGHUP", 1 }, { "SIGINT", 2 }, { "SIGQUIT", 3 }, { "SIGILL", 4 }, { "SIGTRAP", 5 },
	{ "SIGABRT", 6 }, { "SIGBUS", 7 }, { "SIGFPE", 8 }, { "SIGKILL", 9 }, { "SIGUSR1", 10 },
	{ "SIGSEGV", 11 }, { "SIGUSR2", 12 }, { "SIGPIPE", 13 }, { "SIGALRM", 14 }, { "SIGTERM", 15 },
	{ "SIGCHLD", 17 }, { "SIGCONT", 18 }, { "SIGSTOP", 19 }, { "SIGTSTP", 20 },
};

bool d_lib_constant(const char *name, int64_t *value)
{
	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (!strcmp(name, regs[i].name)) {
			*value = regs[i].value;
			return true;
		}
	for (size_t i = 0; i < sizeof(consts) / sizeof(consts[0]); i++)
		if (!strcmp(name, consts[i].name)) {
			*value = consts[i].value;
			return true;
		}
	return d_provider_constant(name, value);   /* the providers' (SIG*, E*, CLD_*) */
}

int d_lib_nregs(void)
{
	return 25;
}
