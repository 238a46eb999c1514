/* d_prov_psinfo.c - the members of psinfo_t and lwpsinfo_t, the
 * process and thread views DTrace's proc and sched providers pass as
 * args[] (DTrace translates them from the kernel's task_struct): the
 * common members, as expressions of cstap's task tapset over the task.
 * Members not listed are not translated.
 */
#include <stdlib.h>
#include <string.h>

#include "d/d_provider.h"
#include "d/d_sema.h"

struct member {
	const char *name;
	char kind;               /* 'i' int, 'u' unsigned, 'l' 64-bit, 's' string, 'c' char */
	const char *expr;        /* $T: the task */
	const char *current;     /* of the current task: the context's (BEGIN runs in user
				  * space on BPF: no task_struct to read); NULL: expr */
};

static const struct member psinfo[] = {
	{ "pr_pid", 'i', "task_pid($T)", "pid()" },
	{ "pr_ppid", 'i', "task_pid(task_parent($T))", "ppid()" },
	{ "pr_pgid", 'i', "task_pid($T)" },
	{ "pr_sid", 'i', "task_pid($T)" },
	{ "pr_uid", 'u', "task_uid($T)", "uid()" },
	{ "pr_euid", 'u', "task_euid($T)", "euid()" },
	{ "pr_gid", 'u', "task_gid($T)", "gid()" },
	{ "pr_egid", 'u', "task_egid($T)", "egid()" },
	{ "pr_addr", 'l', "$T", "0" },
	{ "pr_fname", 's', "task_execname($T)", "execname()" },
	{ "pr_psargs", 's', "task_execname($T)", "execname()" },
	{ "pr_nlwp", 'i', "1" },
	{ "pr_flag", 'i', "0" },
	{ "pr_dmodel", 'c', "2" },   /* PR_MODEL_LP64 */
	{ "pr_taskid", 'i', "0" },
	{ "pr_projid", 'i', "0" },
	{ "pr_zoneid", 'i', "0" },
	{ NULL, 0, NULL },
};

static const struct member lwpsinfo[] = {
	{ "pr_lwpid", 'i', "task_tid($T)", "tid()" },
	{ "pr_addr", 'l', "$T", "0" },
	{ "pr_pri", 'i', "task_prio($T)", "0" },
	{ "pr_onpro", 'i', "task_cpu($T)", "cpu()" },
	{ "pr_name", 's', "task_execname($T)", "execname()" },
	{ "pr_state", 'c', "task_state($T)", "0" },
	{ "pr_flag", 'i', "0" },
	{ "pr_sname", 'c', "(task_state($T) == 0 ? 82 : 83)", "82" },   /* 'R' running, 'S' sleeping */
	{ NULL, 0, NULL },
};

/* curcpu's: the CPU the probe fires on ($T: the task, whose CPU it is) */
static const struct member cpuinfo[] = {
	{ "cpu_id", 'i', "task_cpu($T)", "cpu()" },
	{ "cpu_pset", 'i', "-1" },
	{ "cpu_chip", 'i', "task_cpu($T)", "cpu()" },
	{ "cpu_lgrp", 'i', "0" },
	{ NULL, 0, NULL },
};

/* the member of a translated type ("psinfo_t *"), NULL when none */
static const struct member *find(const char *type, const char *name)
{
	const struct member *m = !strcmp(type, "psinfo_t *") ? psinfo : !strcmp(type, "lwpsinfo_t *") ? lwpsinfo
				 : !strcmp(type, "cpuinfo_t *") ? cpuinfo : NULL;

	for (; m && m->name; m++)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

/* args[i]->name: its D type (the checker's), NULL when not translated */
struct d_type *d_psinfo_member_type(const char *type, const char *name)
{
	const struct member *m = find(type, name);

	if (!m)
		return NULL;
	switch (m->kind) {
	case 's': return d_ty_string();
	case 'u': return d_ty_int(4, false);
	case 'l': return d_ty_int(8, false);
	case 'c': return d_ty_int(1, true);
	default: return d_ty_int(4, true);
	}
}

/* args[i]->name over the task expression task, appended; false when
 * not translated */
bool d_psinfo_member(const char *type, const char *name, const char *task, struct strbuf *out)
{
	const struct member *m = find(type, name);

	if (!m)
		return false;
	if (m->current && !strcmp(task, "task_current()")) {
		strbuf_addstr(out, m->current);
		return true;
	}
	char *v = str_replace_all(m->expr, "$T", task);
	strbuf_addstr(out, v);
	free(v);
	return true;
}
