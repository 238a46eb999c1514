/* process.c - the process lifecycle probes (SystemTap's "utrace" probes,
 * which it emulates with tracepoints on kernels without utrace):
 *
 *   process[(PATH|NAME|PID)].begin | .end | .thread.begin | .thread.end
 *   process[(PATH|NAME|PID)].syscall | .syscall.return
 *
 * Without an argument every user process is meant; with a path or a
 * program name (looked up on $PATH, as process("P").function) the
 * processes running that executable; with a number that process.
 * `.begin` fires in the context of each process created (fork) or
 * exec'ing the program, and of each one already running when the script
 * starts; `.end` when it exits; `.thread.*` the same for the threads other
 * than a process's first. `.syscall` has $syscall and $arg1..$arg6,
 * `.syscall.return` $syscall and $return. runtime/process.h does it with the
 * sched_process_fork/exec/exit and raw_syscalls tracepoints.
 */
#include "provider.h"

#include <fnmatch.h>
#include <string.h>

#include "diag.h"
#include "kpoint.h"
#include "target/uimage.h"

extern const struct provider process_provider;

/* Must match runtime/process.h STP_PROC_* */
enum proc_event { EV_BEGIN, EV_END, EV_THREAD_BEGIN, EV_THREAD_END, EV_SYSCALL, EV_SYSCALL_RETURN };

static const struct {
	const char *comps[2];   /* the components after process[(...)] */
	enum proc_event ev;
} events[] = {
	{ { "begin" }, EV_BEGIN },
	{ { "end" }, EV_END },
	{ { "thread", "begin" }, EV_THREAD_BEGIN },
	{ { "thread", "end" }, EV_THREAD_END },
	{ { "syscall" }, EV_SYSCALL },
	{ { "syscall", "return" }, EV_SYSCALL_RETURN },
};
#define N_EVENTS (sizeof(events) / sizeof(events[0]))

/* A derived probe of this family (dp->data). */
struct proc_probe {
	enum proc_event ev;
	char *path;     /* the executable; NULL: any */
	long pid;       /* that process; 0: any */
};

/* The context variables of the syscall probes (tapsets/process.stp) */
#define PROC_RO(v, fn) { "$" #v, fn, NULL, NULL, false, "$" #v " of a process.syscall probe cannot be assigned" }
static const struct ctx_var syscall_vars[] = {
	PROC_RO(syscall, "__proc_syscall_nr"),
	PROC_RO(arg1, "__proc_syscall_arg1"), PROC_RO(arg2, "__proc_syscall_arg2"),
	PROC_RO(arg3, "__proc_syscall_arg3"), PROC_RO(arg4, "__proc_syscall_arg4"),
	PROC_RO(arg5, "__proc_syscall_arg5"), PROC_RO(arg6, "__proc_syscall_arg6"),
};
static const struct ctx_var return_vars[] = {
	PROC_RO(syscall, "__proc_syscall_nr"),
	PROC_RO(return, "__proc_syscall_return"),
};

/* Do components from..end, none with an argument, name event k (their
 * names may be wildcards)? */
static bool match_event(const struct probe_point *pp, int from, size_t k)
{
	int n = events[k].comps[1] ? 2 : 1;

	if (pp->comps.len - from != n)
		return false;
	for (int i = 0; i < n; i++) {
		const struct pp_comp *c = pp->comps.items[from + i];
		if (c->arg || fnmatch(c->name, events[k].comps[i], 0))
			return false;
	}
	return true;
}

static char *event_text(const char *head, size_t k)
{
	return events[k].comps[1] ? xasprintf("%s.%s.%s", head, events[k].comps[0], events[k].comps[1])
				  : xasprintf("%s.%s", head, events[k].comps[0]);
}

static int derive(struct session *s, struct probe *p, struct probe_point *pp)
{
	const struct expr *a;
	char *path = NULL, *head;
	long pid = 0;
	int n = 0;

	if (!pp_comp_is(pp, 0, "process") || pp->comps.len < 2)
		return 0;
	bool any = false;
	for (size_t k = 0; k < N_EVENTS && !any; k++)
		any = match_event(pp, 1, k);
	if (!any)
		return 0;
	a = pp->comps.items[0]->arg;
	if (a && a->kind == EXPR_STR) {
		char *why = NULL, *arg = xstrndup(a->str, a->str_len);
		path = uimage_resolve(s, arg, &why);
		/* a program not here (yet) is no error, as in SystemTap: no
		 * process runs it while it is missing */
		if (path) {
			uimage_add_file(s, path);
			free(arg);
		} else {
			path = arg;
		}
		free(why);
		head = xasprintf("process(\"%s\")", path);
	} else if (a && a->kind == EXPR_NUM) {
		if (a->num <= 0) {
			diag(s, E_PROBE_ARG, a->pos, "process(PID) needs a positive process ID, not %lld",
			     (long long)a->num);
			return -1;
		}
		pid = (long)a->num;
		head = xasprintf("process(%ld)", pid);
	} else if (a) {
		diag(s, E_PROBE_ARG, a->pos, "process() takes a program's path or name, or a process ID");
		return -1;
	} else {
		head = xstrdup("process");
	}
	for (size_t k = 0; k < N_EVENTS; k++) {
		if (!match_event(pp, 1, k))
			continue;
		if (events[k].ev == EV_SYSCALL)
			ctx_vars_rewrite(s, p->body, syscall_vars, sizeof(syscall_vars) / sizeof(syscall_vars[0]), NULL);
		else if (events[k].ev == EV_SYSCALL_RETURN)
			ctx_vars_rewrite(s, p->body, return_vars, sizeof(return_vars) / sizeof(return_vars[0]), NULL);
		struct proc_probe *d = xcalloc(1, sizeof(*d));
		d->ev = events[k].ev;
		d->path = path ? xstrdup(path) : NULL;
		d->pid = pid;
		struct derived_probe *dp = derived_probe_add(s, p, pp, &process_provider, STP_PK_NORMAL);
		free(dp->pp);
		dp->pp = event_text(head, k);
		dp->data = d;
		n++;
	}
	free(head);
	free(path);
	return n ? 1 : 0;
}

/* -L: SystemTap 4.8 lists the syscall probes' variables for all of them. */
static void list_vars(struct session *s, const struct derived_probe *dp, struct strbuf *out)
{
	(void)s, (void)dp;
	strbuf_addstr(out, " $syscall:long");
	for (int i = 1; i <= 6; i++)
		strbuf_addf(out, " $arg%d:long", i);
}

static void emit_decls(struct session *s, struct strbuf *out)
{
	static const char *const ev_names[] = { "STP_PROC_BEGIN", "STP_PROC_END", "STP_PROC_THREAD_BEGIN",
						"STP_PROC_THREAD_END", "STP_PROC_SYSCALL", "STP_PROC_SYSCALL_RETURN" };

	strbuf_addf(out, "static struct stp_proc_probe stp_procs[%d] = {\n", provider_probes(s, &process_provider));
	for (int i = 0; i < s->probes.len; i++) {
		const struct derived_probe *dp = s->probes.items[i];
		if (dp->prov != &process_provider)
			continue;
		const struct proc_probe *d = dp->data;
		strbuf_addf(out, "\t{ .event = %s, .pid = %ld, .handler = dp_%d, .path = ", ev_names[d->ev], d->pid,
			    dp->index);
		strbuf_add_cstr_literal(out, d->path);
		strbuf_addstr(out, " },\n");
	}
	strbuf_addstr(out, "};\n\n");
}

static void emit_register(struct session *s, struct strbuf *out)
{
	strbuf_addf(out, "\trc = stp_procs_register(stp_procs, %d);\n\tif (rc)\n\t\treturn rc;\n",
		    provider_probes(s, &process_provider));
}

static void emit_unregister(struct session *s, struct strbuf *out)
{
	strbuf_addf(out, "\tstp_procs_unregister(stp_procs, %d);\n", provider_probes(s, &process_provider));
}

/* As SystemTap 4.8 names them */
static const char *probe_type(const struct derived_probe *dp)
{
	enum proc_event ev = ((const struct proc_probe *)dp->data)->ev;

	return ev == EV_SYSCALL || ev == EV_SYSCALL_RETURN ? "utrace_syscall" : "utrace";
}

static const char *const shapes[] = { "process.begin", "process.end", "process.thread.begin", "process.thread.end",
				      "process.syscall", "process.syscall.return", NULL };

const struct provider process_provider = {
	.name = "process",
	.runtime_header = "process.h",
	.derive = derive,
	.list_vars = list_vars,
	.emit_decls = emit_decls,
	.emit_register = emit_register,
	.emit_unregister = emit_unregister,
	.probe_type = probe_type,
	.shapes = shapes,
	.unprivileged = true,
};
