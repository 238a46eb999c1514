/* syscalls_gen.c - the syscall.* tapset, generated for the target kernel.
 *
 * The system calls the tapset library does not write by hand
 * (tapsets/syscalls*.stp) get an alias generated at pass 2 from the
 * kernel's own syscall metadata (struct syscall_metadata __syscall_meta__NAME:
 * the argument names and C types SYSCALL_DEFINEn wrote down), written as
 * SystemTap source parsed like any tapset file:
 *
 *   probe nd_syscall.NAME = kprobe.function("__x64_sys_NAME") ?,
 *                           kprobe.function("__ia32_sys_NAME") ? {
 *           name = "NAME"; ARG = __sc_int(1) ...; argstr = sprintf(...) }
 *   probe nd_syscall.NAME.return = kprobe.function("__x64_sys_NAME").return ?, ... {
 *           name = "NAME"; retval = __sc_retval(); retstr = return_str(1, retval) }
 *   probe syscall.NAME = nd_syscall.NAME { }      (and .return)
 *
 * As SystemTap 4.8 does on kernels whose syscall wrappers take a pt_regs
 * (4.17 on), both syscall.* and nd_syscall.* probe the wrappers with
 * kprobes: arguments come from the task's saved user registers
 * (tapsets/syscall_args.stp), the return value from the return probe's
 * registers; no DWARF is read, and a wrapper with no arguments or no
 * debuginfo works like any other. Only wrappers the kernel has are named.
 * `const char __user *` arguments are also given as quoted user strings
 * (`filename`, with `filename_uaddr`); argstr is generic (numbers, pointers
 * in hex, strings quoted) where the hand-written aliases decode flags.
 *
 * The decoding tables those aliases use (O_* flags, PROT_*, signals, ...)
 * are generated here too, from the target kernel's headers (uapi.c).
 */
#include <stdlib.h>
#include <string.h>

#include "debuginfo.h"
#include "dwarf_types.h"
#include "kernel.h"
#include "ksyms.h"
#include "parse/tapset_index.h"
#include "passes.h"
#include "syscalls_gen.h"
#include "tracefs.h"
#include "uapi.h"

#define META "__syscall_meta__"

/* The kernel's syscall wrappers, one name prefix per ABI: 64-bit, then a
 * 32-bit task's compat and native entries. */
static const char *const wrapper_prefix[] = { "__x64_sys_", "__ia32_compat_sys_", "__ia32_sys_" };
#define NWRAP 3

/* Is the C type a user-space string? (Every pointer a system call takes is
 * a user pointer; the metadata drops the __user marks.) */
static bool is_user_string(const char *type)
{
	const char *star = strchr(type, '*');

	return strstr(type, "char") && star && !strchr(star + 1, '*');
}

/* The reader of an argument of that C type (tapsets/syscall_args.stp). */
static const char *arg_reader(const char *type)
{
	if (strchr(type, '*') || strstr(type, "unsigned long") || strstr(type, "size_t") ||
	    strstr(type, "u64") || strstr(type, "aio_context_t"))
		return "__sc_ulong";
	if (strstr(type, "long") || strstr(type, "loff_t") || strstr(type, "s64") || strstr(type, "off_t") ||
	    strstr(type, "time_t"))
		return "__sc_long";
	if (!strncmp(type, "unsigned", 8) || strstr(type, "u32") || strstr(type, "uid_t") ||
	    strstr(type, "gid_t") || strstr(type, "umode_t") || strstr(type, "mode_t") ||
	    strstr(type, "fmode_t") || strstr(type, "rwf_t") || strstr(type, "qid_t"))
		return "__sc_uint";
	/* int, pid_t, and the other 32-bit signed types */
	return "__sc_int";
}

/* An argument name usable as a script variable: the alias's own
 * variables, the language's reserved words and the library's globals (a
 * prologue's `argv = ...` would set argv.stp's) get "_arg" appended. */
static char *var_name(struct session *s, const char *arg)
{
	struct tapset_index *ix = library_index(s);
	intvec files = { 0 };

	if (ix)
		tapset_index_files(ix, TN_GLOBAL, arg, &files);
	free(files.items);
	if (files.len)
		return xasprintf("%s_arg", arg);

	static const char *const taken[] = { "name", "argstr", "retstr", "retval", "probe", "global",
		"function", "if", "else", "for", "foreach", "in", "limit", "return", "delete", "while",
		"break", "continue", "next", "string", "long", "try", "catch", "private", NULL };

	for (int i = 0; taken[i]; i++)
		if (!strcmp(arg, taken[i]))
			return xasprintf("%s_arg", arg);
	return xstrdup(arg);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool in_sorted(const strvec *v, const char *name)
{
	return v->len && bsearch(&name, v->items, (size_t)v->len, sizeof(char *), cmp_str);
}

/* the kernel's syscall wrappers, sorted by name */
typedef VEC(const struct ksym *) wrapvec;

static int cmp_ksym_name(const void *a, const void *b)
{
	return strcmp((*(const struct ksym *const *)a)->name, (*(const struct ksym *const *)b)->name);
}

static const struct ksym *find_wrapper(const wrapvec *w, const char *name)
{
	struct ksym key = { .name = (char *)name };
	const struct ksym *kp = &key, *const *r;

	r = w->len ? bsearch(&kp, w->items, (size_t)w->len, sizeof(*w->items), cmp_ksym_name) : NULL;
	return r ? *r : NULL;
}

/* kprobe.function("WRAPPER")[.return] ?, ... for the wrappers of name the
 * kernel has; a 32-bit wrapper that is the 64-bit one under another name
 * (SYSCALL_DEFINE0's) is left out, or it would fire twice. */
static void wrapper_points(struct strbuf *o, const wrapvec *wrappers, const char *name, bool ret)
{
	const struct ksym *x64 = NULL;
	int n = 0;

	for (int w = 0; w < NWRAP; w++) {
		char *fn = xasprintf("%s%s", wrapper_prefix[w], name);
		const struct ksym *k = find_wrapper(wrappers, fn);
		if (!w)
			x64 = k;
		if (k && (!w || !x64 || k->addr != x64->addr))
			strbuf_addf(o, "%skprobe.function(\"%s\")%s ?", n++ ? ", " : "", fn, ret ? ".return" : "");
		free(fn);
	}
}

/* The names SystemTap's tapset gives system calls the kernel calls
 * otherwise: a newer variant under the older name, the entry a 32-bit task
 * makes under SystemTap's compat_* or *32 name, and the 16-bit-uid and
 * 32-bit-time entries it folds into the call's own alias (which then has
 * two definitions, as sendfile has sendfile64's). NULL: not listed (the
 * call is in neither of x86's syscall tables). */
static const char *const renamed[][2] = {
	{ "sendfile64", "sendfile" }, { "newuname", "uname" }, { "olduname", "uname" },
	{ "getdents64", "getdents" }, { "eventfd2", "eventfd" }, { "signalfd4", "signalfd" },
	{ "inotify_init1", "inotify_init" }, { "old_readdir", "readdir" }, { "old_getrlimit", "getrlimit" },
	{ "oldumount", "umount" }, { "mmap_pgoff", "mmap2" },
	{ "getuid16", "getuid" }, { "geteuid16", "geteuid" }, { "getgid16", "getgid" }, { "getegid16", "getegid" },
	{ "getgroups16", "getgroups" }, { "setgroups16", "setgroups" }, { "getresuid16", "getresuid" },
	{ "getresgid16", "getresgid" }, { "setuid16", "setuid" }, { "setgid16", "setgid" },
	{ "setfsuid16", "setfsuid" }, { "setfsgid16", "setfsgid" },
	{ "clock_adjtime32", "clock_adjtime" }, { "clock_getres_time32", "clock_getres" },
	{ "clock_gettime32", "clock_gettime" }, { "clock_settime32", "clock_settime" },
	{ "io_getevents_time32", "io_getevents" }, { "mq_timedreceive_time32", "mq_timedreceive" },
	{ "mq_timedsend_time32", "mq_timedsend" }, { "rt_sigtimedwait_time32", "rt_sigtimedwait" },
	{ "sched_rr_get_interval_time32", "sched_rr_get_interval" }, { "stime32", "stime" }, { "time32", "time" },
	{ "timer_gettime32", "timer_gettime" }, { "timer_settime32", "timer_settime" },
	{ "timerfd_gettime32", "timerfd_gettime" }, { "timerfd_settime32", "timerfd_settime" },
	{ "ia32_pread64", "pread" }, { "ia32_sync_file_range", "sync_file_range" },
	{ "adjtimex_time32", "compat_adjtimex" }, { "clock_nanosleep_time32", "compat_clock_nanosleep" },
	{ "futex_time32", "compat_futex" }, { "futimesat_time32", "compat_futimesat" },
	{ "nanosleep_time32", "compat_nanosleep" }, { "recvmmsg_time32", "compat_recvmmsg" },
	{ "semtimedop_time32", "compat_sys_semtimedop" }, { "utime32", "compat_utime" },
	{ "utimensat_time32", "compat_utimensat" }, { "utimes_time32", "compat_sys_utimes" },
	{ "ia32_fadvise64", "compat_fadvise64" }, { "ia32_fadvise64_64", "compat_fadvise64_64" },
	{ "ia32_fallocate", "compat_fallocate" }, { "ia32_ftruncate64", "compat_ftruncate64" },
	{ "ia32_readahead", "compat_readahead" }, { "ia32_truncate64", "compat_truncate64" },
	{ "ia32_pwrite64", "pwrite32" },
	{ "gethostname", NULL }, { "sync_file_range2", NULL },
};

static const char *alias_name(const char *kname)
{
	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
		if (!strcmp(kname, renamed[i][0]))
			return renamed[i][1];
	return kname;
}

/* SystemTap's names for entries with no syscall metadata of their own: a
 * 32-bit task's compat_sys_* entries, and calls the kernel no longer
 * implements but a task can still make. The arguments are those of the
 * call shape names (or "TYPE:ARG,..." when it has no metadata either); the
 * probe points, those of the wrappers the kernel has, or else the
 * raw_syscalls tracepoints filtered by the call's number in the 64-bit
 * and 32-bit tables (nr: "64:NAME" / "32:NAME", space-separated). */
static const struct extra_call {
	const char *name, *shape, *wrappers, *nr;
} extra_calls[] = {
	{ "compat_execve", "execve", "__ia32_compat_sys_execve", NULL },
	{ "compat_execveat", "execveat", "__ia32_compat_sys_execveat", NULL },
	{ "compat_getitimer", "getitimer", "__ia32_compat_sys_getitimer", NULL },
	{ "compat_setitimer", "setitimer", "__ia32_compat_sys_setitimer", NULL },
	{ "compat_lookup_dcookie", "u64:cookie,void *:buffer,size_t:len", "__ia32_compat_sys_lookup_dcookie",
	  "32:lookup_dcookie" },
	{ "compat_ppoll", "ppoll", "__ia32_compat_sys_ppoll_time32 __ia32_compat_sys_ppoll_time64", NULL },
	{ "compat_pselect6", "pselect6", "__ia32_compat_sys_pselect6_time32 __ia32_compat_sys_pselect6_time64",
	  NULL },
	{ "compat_recvmmsg", "recvmmsg", "__ia32_compat_sys_recvmmsg_time32 __ia32_compat_sys_recvmmsg_time64",
	  NULL },
	{ "compat_select", "select", "__ia32_compat_sys_select", NULL },
	{ "compat_signalfd", "signalfd4", "__ia32_compat_sys_signalfd __ia32_compat_sys_signalfd4", NULL },
	{ "compat_sys_msgctl", "msgctl", "__ia32_compat_sys_msgctl __ia32_compat_sys_old_msgctl", NULL },
	{ "compat_sys_msgrcv", "msgrcv", "__ia32_compat_sys_msgrcv", NULL },
	{ "compat_sys_msgsnd", "msgsnd", "__ia32_compat_sys_msgsnd", NULL },
	{ "compat_sys_semctl", "semctl", "__ia32_compat_sys_semctl __ia32_compat_sys_old_semctl", NULL },
	{ "compat_sys_shmat", "shmat", "__ia32_compat_sys_shmat", NULL },
	{ "compat_sys_shmctl", "shmctl", "__ia32_compat_sys_shmctl __ia32_compat_sys_old_shmctl", NULL },
	{ "compat_sys_recvmsg", "recvmsg", "__ia32_compat_sys_recvmsg", NULL },
	{ "compat_sys_sendmsg", "sendmsg", "__ia32_compat_sys_sendmsg", NULL },
	{ "compat_vmsplice", "vmsplice", "__ia32_compat_sys_vmsplice", "32:vmsplice" },
	{ "ftruncate64", "ia32_ftruncate64", "__ia32_sys_ia32_ftruncate64", "32:ftruncate64" },
	{ "rt_sigaction32", "rt_sigaction", "__ia32_compat_sys_rt_sigaction", NULL },
	{ "settimeofday32", "settimeofday", "__ia32_compat_sys_settimeofday", NULL },
	{ "ustat32", "ustat", "__ia32_compat_sys_ustat", NULL },
	{ "sigaction", "int:sig,const struct old_sigaction *:act,struct old_sigaction *:oact",
	  "__ia32_compat_sys_sigaction", "32:sigaction" },
	{ "sigaction32", "int:sig,const struct old_sigaction *:act,struct old_sigaction *:oact",
	  "__ia32_compat_sys_sigaction", "32:sigaction" },
	{ "bdflush", "int:func,long:data", NULL, "32:bdflush" },
	{ "sysctl", "struct __sysctl_args *:args", NULL, "64:_sysctl 32:_sysctl" },
};

/* An alias's probe points: the wrappers of system call kname, or the
 * wrapper symbols syms (space-separated) the kernel has, or, when it has
 * none of them, the raw_syscalls tracepoints and the call's numbers nr64
 * and nr32 (-1: not in that table) for the handler to test. */
struct points {
	const char *kname;
	const char *syms;
	long nr64, nr32;
	const char *event;      /* or the kernel's syscalls:sys_enter_/sys_exit_EVENT */
};

enum points_kind { PTS_NONE, PTS_KPROBES, PTS_TRACEPOINT };

/* Writes the points (.return ones if ret), and says which they are. */
static enum points_kind emit_points(struct strbuf *o, const wrapvec *wrappers, const struct points *p, bool ret)
{
	int n = 0;

	if (p->event) {   /* (the task's registers are read, as at the kprobes) */
		strbuf_addf(o, "kernel.trace(\"syscalls:sys_%s_%s\") ?", ret ? "exit" : "enter", p->event);
		return PTS_KPROBES;
	}
	if (p->kname) {
		wrapper_points(o, wrappers, p->kname, ret);
		return PTS_KPROBES;
	}
	for (const char *w = p->syms; w && *w;) {
		size_t len = strcspn(w, " ");
		char *fn = xstrndup(w, len);
		if (find_wrapper(wrappers, fn))
			strbuf_addf(o, "%skprobe.function(\"%s\")%s ?", n++ ? ", " : "", fn, ret ? ".return" : "");
		free(fn);
		w += len + (w[len] == ' ');
	}
	if (n)
		return PTS_KPROBES;
	if (p->nr64 < 0 && p->nr32 < 0)
		return PTS_NONE;
	strbuf_addf(o, "kernel.trace(\"raw_syscalls:%s\")", ret ? "sys_exit" : "sys_enter");
	return PTS_TRACEPOINT;
}

/* The system call an alias of SystemTap's names, its `name`: compat_NAME,
 * compat_sys_NAME and (a 32-bit task's entry) NAME32 are NAME's. */
static char *call_name(const char *alias)
{
	size_t len;

	if (!strncmp(alias, "compat_sys_", 11))
		alias += 11;
	else if (!strncmp(alias, "compat_", 7))
		alias += 7;
	len = strlen(alias);
	if (len > 2 && !strcmp(alias + len - 2, "32"))
		len -= 2;
	return xstrndup(alias, len);
}

/* nd_syscall.NAME and its .return, and syscall.NAME unless the library or
 * an earlier definition has one (defined holds those names, sorted). */
static void gen_one(struct session *s, struct strbuf *o, const wrapvec *wrappers, strvec *defined,
		    const char *name, const struct points *p, int nargs, char **types, char **args)
{
	struct strbuf fmt = STRBUF_INIT, vals = STRBUF_INIT, pts = STRBUF_INIT;
	enum points_kind kind = emit_points(&pts, wrappers, p, false);
	bool tp = kind == PTS_TRACEPOINT;   /* the handler tests the number */

	if (kind == PTS_NONE) {
		strbuf_release(&pts);
		return;
	}
	char *call = call_name(name);
	for (int i = 0; i < nargs; i++) {   /* each argument as a variable of the alias */
		char *a = var_name(s, args[i]);
		free(args[i]);
		args[i] = a;
	}
	strbuf_addf(o, "probe nd_syscall.%s = %s\n{\n", name, pts.buf);
	if (tp)
		strbuf_addf(o, "\tif (!__sc_nr_is(%ld, %ld)) next\n", p->nr64, p->nr32);
	strbuf_addf(o, "\tname = \"%s\"\n", call);
	for (int i = 0; i < nargs; i++) {
		const char *rd = arg_reader(types[i]);
		if (is_user_string(types[i])) {
			strbuf_addf(o, "\t%s_uaddr = %s(%d)\n\t%s = user_string_quoted(%s_uaddr)\n", args[i], rd, i + 1,
				    args[i], args[i]);
			strbuf_addf(&fmt, "%s%%s", i ? ", " : "");
		} else {
			strbuf_addf(o, "\t%s = %s(%d)\n", args[i], rd, i + 1);
			strbuf_addf(&fmt, "%s%s", i ? ", " : "", strchr(types[i], '*') ? "%p" : "%d");
		}
		strbuf_addf(&vals, ", %s", args[i]);
	}
	strbuf_addf(o, "\targstr = sprintf(\"%s\"%s)\n}\n", fmt.buf, vals.buf);
	strbuf_reset(&pts);
	emit_points(&pts, wrappers, p, true);
	strbuf_addf(o, "probe nd_syscall.%s.return = %s\n{\n", name, pts.buf);
	if (tp)
		strbuf_addf(o, "\tif (!__sc_nr_is(%ld, %ld)) next\n", p->nr64, p->nr32);
	strbuf_addf(o, "\tname = \"%s\"\n\tretval = %s\n\tretstr = return_str(1, retval)\n}\n", call,
		    tp ? "__sc_retval_of($ret)" : "__sc_retval()");
	if (!in_sorted(defined, name)) {
		strbuf_addf(o, "probe syscall.%s = nd_syscall.%s { }\n", name, name);
		strbuf_addf(o, "probe syscall.%s.return = nd_syscall.%s.return { }\n", name, name);
		vec_push(defined, xstrdup(name));
		qsort(defined->items, (size_t)defined->len, sizeof(char *), cmp_str);
	}
	strbuf_release(&fmt);
	strbuf_release(&vals);
	strbuf_release(&pts);
	free(call);
}

/* NAME of a kernel.trace("syscalls:sys_enter_NAME") point, or NULL. */
static const char *event_of(const struct probe_point *pp)
{
	static const char pre[] = "syscalls:sys_enter_";

	if (pp->comps.len != 2 || strcmp(pp->comps.items[0]->name, "kernel") ||
	    strcmp(pp->comps.items[1]->name, "trace") || !pp->comps.items[1]->arg ||
	    pp->comps.items[1]->arg->kind != EXPR_STR || strncmp(pp->comps.items[1]->arg->str, pre, sizeof(pre) - 1))
		return NULL;
	return pp->comps.items[1]->arg->str + sizeof(pre) - 1;
}

/* The system calls the library's own aliases cover: NAME of every
 * kprobe.function("__x64_sys_NAME") (or, on a kernel without kprobes,
 * kernel.trace("syscalls:sys_enter_NAME")) an alias named syscall.* or
 * nd_syscall.* probes, into covered; and NAME of every syscall.NAME
 * alias, into defined (both sorted). */
static void library_syscalls(struct session *s, strvec *covered, strvec *defined)
{
	for (int k = 0; k < s->library.len; k++) {
		struct script *sc = s->library.items[k];
		for (int i = 0; i < sc->probes.len; i++) {
			struct probe *a = sc->probes.items[i];
			if (!a->is_alias || !a->alias_names.len || !a->alias_names.items[0]->comps.len)
				continue;
			struct probe_point *an = a->alias_names.items[0];
			const char *first = an->comps.items[0]->name;
			if (strcmp(first, "syscall") && strcmp(first, "nd_syscall"))
				continue;
			if (!strcmp(first, "syscall") && an->comps.len == 2)
				vec_push(defined, xstrdup(an->comps.items[1]->name));
			for (int j = 0; j < a->points.len; j++) {
				struct probe_point *pp = a->points.items[j];
				const char *ev = event_of(pp);
				if (ev)   /* a kernel without kprobes: the syscalls event */
					vec_push(covered, xstrdup(ev));
				if (pp->comps.len < 2 || strcmp(pp->comps.items[0]->name, "kprobe") ||
				    strcmp(pp->comps.items[1]->name, "function") || !pp->comps.items[1]->arg ||
				    pp->comps.items[1]->arg->kind != EXPR_STR)
					continue;
				const char *fn = pp->comps.items[1]->arg->str;
				if (!strncmp(fn, wrapper_prefix[0], strlen(wrapper_prefix[0])))
					vec_push(covered, xstrdup(fn + strlen(wrapper_prefix[0])));
			}
		}
	}
	if (covered->len)
		qsort(covered->items, (size_t)covered->len, sizeof(char *), cmp_str);
	if (defined->len)
		qsort(defined->items, (size_t)defined->len, sizeof(char *), cmp_str);
}

/* The argument types and names of system call name from its metadata
 * (struct syscall_metadata __syscall_meta__NAME); -1 when it has none. */
struct meta_offsets {
	long name, nb, types, args;
};

static int read_meta(struct dw_image *img, const wrapvec *metas, const struct meta_offsets *mo,
		     const char *name, char **types, char **args)
{
	char *sym = xasprintf("%s%s", META, name);
	const struct ksym *k = find_wrapper(metas, sym);
	int32_t nb;
	uint64_t tp, ap;

	free(sym);
	if (!k || !dw_image_read(img, k->addr + mo->nb, &nb, 4) || nb < 0 || nb > 6 ||
	    !dw_image_read(img, k->addr + mo->types, &tp, 8) || !dw_image_read(img, k->addr + mo->args, &ap, 8))
		return -1;
	for (int a = 0; a < nb; a++) {
		types[a] = dw_image_string_at(img, tp + 8 * a);
		args[a] = dw_image_string_at(img, ap + 8 * a);
		if (!types[a] || !args[a])
			return -1;
	}
	return nb;
}

static void free_args(int nb, char **types, char **args)
{
	for (int a = 0; a < nb; a++) {
		free(types[a]);
		free(args[a]);
	}
}

/* The arguments written out as "TYPE:ARG,...". */
static int parse_shape(const char *shape, char **types, char **args)
{
	int n = 0;

	for (const char *p = shape; *p && n < 6; n++) {
		size_t len = strcspn(p, ","), colon = strcspn(p, ":");
		types[n] = xstrndup(p, colon);
		args[n] = xstrndup(p + colon + 1, len - colon - 1);
		p += len + (p[len] == ',');
	}
	return n;
}

/* The call's number in one table ("64:NAME" or "32:NAME" of nr), -1 if none. */
static long call_number(struct uapi *nr64, struct uapi *nr32, const char *nr, const char *abi)
{
	for (const char *p = nr; p && *p;) {
		size_t len = strcspn(p, " ");
		if (!strncmp(p, abi, 3)) {
			char *c = xasprintf("__NR_%.*s", (int)(len - 3), p + 3);
			int64_t v;
			bool ok = uapi_value(abi[0] == '6' ? nr64 : nr32, c, &v);
			free(c);
			if (ok)
				return (long)v;
		}
		p += len + (p[len] == ' ');
	}
	return -1;
}

/* library_syscalls' lists, freed. */
static void free_names(strvec *covered, strvec *defined)
{
	for (int i = 0; i < covered->len; i++)
		free(covered->items[i]);
	for (int i = 0; i < defined->len; i++)
		free(defined->items[i]);
	free(covered->items);
	free(defined->items);
}

/* A kernel without kprobes whose system calls are trace events: the
 * library's aliases probe those (tapsets/syscalls.stp's same condition). */
static bool syscalls_as_events(struct session *s)
{
	return !kernel_config_is(s, "CONFIG_KPROBES", "y") && kernel_config_is(s, "CONFIG_FTRACE_SYSCALLS", "y");
}

/* The arguments of a syscalls:sys_enter_NAME event, from its format's
 * fields after __syscall_nr ("field:const char * filename;"); -1 if none. */
static int event_args(const char *format, char **types, char **args)
{
	const char *p = format ? strstr(format, "field:int __syscall_nr;") : NULL;
	int n = 0;

	if (!p)
		return -1;
	while ((p = strstr(p + 1, "field:")) && n < 6) {
		const char *decl = p + 6, *semi = strchr(decl, ';'), *name = semi;
		if (!semi)
			break;
		while (name > decl && name[-1] != ' ' && name[-1] != '*')
			name--;
		if (name == decl)
			break;
		size_t tl = (size_t)(name - decl);
		while (tl && decl[tl - 1] == ' ')
			tl--;
		types[n] = xstrndup(decl, tl);
		args[n++] = xstrndup(name, (size_t)(semi - name));
	}
	return n;
}

/* Without DWARF on the running kernel: the system calls the library's
 * aliases do not cover, from the syscalls trace events tracefs lists (the
 * arguments as their format files name and type them), probed at those
 * events: what a kernel without kprobes and debuginfo has. */
static char *events_tapset(struct session *s, const char **why)
{
	struct strbuf out = STRBUF_INIT;
	strvec covered = { 0 }, defined = { 0 }, events = { 0 };
	wrapvec none = { 0 };
	int n = 0;

	library_syscalls(s, &covered, &defined);
	tracefs_events_matching(s, "syscalls", "sys_enter_*", &events);
	strbuf_addstr(&out, "// generated by cstap from the kernel's syscalls trace events\n");
	for (int i = 0; i < events.len; i++) {
		const char *kname = events.items[i] + strlen("sys_enter_"), *name = alias_name(kname);
		char *types[6], *args[6];
		if (!name || in_sorted(&covered, kname))
			continue;
		char *format = tracefs_event_format(s, "syscalls", events.items[i]);
		int nb = event_args(format, types, args);
		free(format);
		if (nb < 0)
			continue;
		struct points p = { .event = kname, .nr64 = -1, .nr32 = -1 };
		gen_one(s, &out, &none, &defined, name, &p, nb, types, args);
		free_args(nb, types, args);
		n++;
	}
	free_names(&covered, &defined);
	free(events.items);
	if (!n) {
		strbuf_release(&out);
		*why = "no syscalls trace events in the running kernel's tracefs";
		return NULL;
	}
	return strbuf_detach(&out);
}

char *syscalls_tapset(struct session *s, const char **why)
{
	struct dw_image *img = dw_kernel(s, why);
	const struct ksymtab *syms = img ? ksyms_kernel(s, why) : NULL;
	struct meta_offsets mo;
	struct strbuf out = STRBUF_INIT;
	strvec covered = { 0 }, defined = { 0 };
	wrapvec wrappers = { 0 }, metas = { 0 };
	int n = 0;

	if (!img || !syms)   /* (a kernel whose syscalls are its trace events: BPF) */
		return s->runtime_bpf && syscalls_as_events(s) ? events_tapset(s, why) : NULL;
	mo.name = dw_member_offset(img, "struct syscall_metadata", "name");
	mo.nb = dw_member_offset(img, "struct syscall_metadata", "nb_args");
	mo.types = dw_member_offset(img, "struct syscall_metadata", "types");
	mo.args = dw_member_offset(img, "struct syscall_metadata", "args");
	if (mo.name < 0 || mo.nb < 0 || mo.types < 0 || mo.args < 0) {
		*why = "the kernel has no syscall metadata (CONFIG_FTRACE_SYSCALLS)";
		return NULL;
	}
	library_syscalls(s, &covered, &defined);
	for (size_t i = 0; i < syms->n; i++)
		for (int w = 0; w < NWRAP; w++)
			if (!strncmp(syms->syms[i].name, wrapper_prefix[w], strlen(wrapper_prefix[w])) &&
			    ksym_is_func(&syms->syms[i]))
				vec_push(&wrappers, &syms->syms[i]);
	for (size_t i = 0; i < syms->n; i++)
		if (!strncmp(syms->syms[i].name, META, strlen(META)))
			vec_push(&metas, &syms->syms[i]);
	if (wrappers.len)
		qsort(wrappers.items, (size_t)wrappers.len, sizeof(*wrappers.items), cmp_ksym_name);
	if (metas.len)
		qsort(metas.items, (size_t)metas.len, sizeof(*metas.items), cmp_ksym_name);
	strbuf_addstr(&out, "// generated by cstap from the kernel's syscall metadata\n");
	for (size_t i = 0; i < syms->n; i++) {
		const struct ksym *k = &syms->syms[i];
		char *types[6], *args[6];
		if (strncmp(k->name, META, strlen(META)))
			continue;
		const char *kname = k->name + strlen(META), *name = alias_name(kname);
		char *x64 = xasprintf("%s%s", wrapper_prefix[0], kname);
		bool have = find_wrapper(&wrappers, x64) != NULL;
		free(x64);
		if (!name || !have || in_sorted(&covered, kname))
			continue;
		int nb = read_meta(img, &metas, &mo, kname, types, args);
		if (nb < 0)
			continue;
		struct points p = { .kname = kname, .nr64 = -1, .nr32 = -1 };
		gen_one(s, &out, &wrappers, &defined, name, &p, nb, types, args);
		free_args(nb, types, args);
		n++;
	}
	const char *const nr_headers[2][2] = { { "asm/unistd_64.h", NULL }, { "asm/unistd_32.h", NULL } };
	const char *ignored;
	struct uapi *nr64 = uapi_load(s, nr_headers[0], &ignored), *nr32 = uapi_load(s, nr_headers[1], &ignored);
	for (size_t i = 0; i < sizeof(extra_calls) / sizeof(extra_calls[0]); i++) {
		const struct extra_call *e = &extra_calls[i];
		char *types[6], *args[6];
		int nb = strchr(e->shape, ':') ? parse_shape(e->shape, types, args) :
						 read_meta(img, &metas, &mo, e->shape, types, args);
		if (nb < 0)
			continue;
		struct points p = { .syms = e->wrappers, .nr64 = -1, .nr32 = -1 };
		if (nr64 && nr32) {
			p.nr64 = call_number(nr64, nr32, e->nr, "64:");
			p.nr32 = call_number(nr64, nr32, e->nr, "32:");
		}
		gen_one(s, &out, &wrappers, &defined, e->name, &p, nb, types, args);
		free_args(nb, types, args);
	}
	uapi_free(nr64);
	uapi_free(nr32);
	free_names(&covered, &defined);
	free(wrappers.items);
	free(metas.items);
	if (!n && !covered.len) {
		strbuf_release(&out);
		*why = "no syscall metadata found in the kernel image";
		return NULL;
	}
	return strbuf_detach(&out);
}

/* ---- the decoding tables ------------------------------------------------ */

/* The headers the tables come from (the uapi folders', "!": the kernel's). */
static const char *const dec_headers[] = { "linux/fcntl.h", "linux/mman.h", "asm/signal.h", "linux/futex.h",
	"linux/sched.h", "linux/wait.h", "linux/stat.h", "linux/fs.h", "linux/eventpoll.h", "linux/time.h",
	"linux/in.h", "!linux/socket.h", "!linux/net.h", NULL };

/* One table: __sc_t_NAME(v, bits) in the generated tapset. Its entries are
 * the constants whose names start with one of prefixes (words: "O_" and
 * "SIG*" are prefixes, "FASYNC" one name), in definition order, less
 * those of skip (the same kind of words); rename gives some another name
 * (OLD=NEW). */
struct dec_table {
	const char *name;
	const char *prefixes;
	const char *skip;
	const char *rename;
	bool as_defined;   /* bits print in definition order, not lowest first */
	const char *header; /* read from this header alone (its names clash with others') */
	bool strip;        /* the names print without their prefix */
};

static const struct dec_table dec_tables[] = {
	/* open(2)'s flags past the access mode; O_DSYNC and __O_SYNC print as
	 * O_SYNC, FASYNC as O_ASYNC (as SystemTap does) */
	{ "oflags", "O_ FASYNC __O_SYNC", "O_ACCMODE O_RDONLY O_WRONLY O_RDWR O_SYNC O_TMPFILE O_TMPFILE_MASK O_NDELAY",
	  "O_DSYNC=O_SYNC __O_SYNC=O_SYNC FASYNC=O_ASYNC" },
	{ "prot", "PROT_", "PROT_NONE", NULL },
	{ "mmap", "MAP_", "MAP_TYPE MAP_SHARED_VALIDATE MAP_FILE MAP_ANON MAP_HUGE_SHIFT MAP_HUGE_MASK MAP_HUGE_", NULL },
	/* SIGIOT, SIGPOLL, SIGUNUSED share a number with another name */
	{ "signal", "SIG*", "SIG_ SIGRTMIN SIGRTMAX SIGSTKSZ SIGSTKFLT SIGIOT SIGPOLL SIGUNUSED SIGCLD", NULL },
	{ "sigaction_how", "SIG_BLOCK SIG_UNBLOCK SIG_SETMASK", NULL, NULL },
	{ "sighandler", "SIG_DFL SIG_IGN", NULL, NULL },
	{ "sa_flags", "SA_", "SA_NOMASK SA_ONESHOT SA_UNSUPPORTED SA_EXPOSE_TAGBITS SA_IMMUTABLE", NULL },
	/* the socket families as PF_* (AF_UNIX is AF_LOCAL, AF_ROUTE is AF_NETLINK) */
	{ "family", "AF_", "AF_UNIX AF_ROUTE AF_MAX AF_FILE",
	  "AF_UNSPEC=PF_UNSPEC" },
	{ "socktype", "SOCK_STREAM SOCK_DGRAM SOCK_RAW SOCK_RDM SOCK_SEQPACKET SOCK_DCCP SOCK_PACKET", NULL, NULL },
	{ "sockflags", "SOCK_CLOEXEC SOCK_NONBLOCK", NULL, NULL, true },
	{ "ipproto", "IPPROTO_", "IPPROTO_MAX", NULL },
	/* (without a kbuild tree the C library's names: MSG_PROXY is MSG_PROBE) */
	{ "msg", "MSG_", "MSG_TRYHARD MSG_SENDPAGE_NOPOLICY MSG_EOF MSG_CMSG_COMPAT MSG_INTERNAL_SENDMSG_FLAGS",
	  "MSG_PROXY=MSG_PROBE" },
	{ "at", "AT_", "AT_FDCWD AT_EACCESS AT_STATX_ AT_RECURSIVE", NULL },
	{ "fcntl", "F_", "F_LINUX_SPECIFIC_BASE F_RDLCK F_WRLCK F_UNLCK F_EXLCK F_SHLCK F_OWNER_ F_SEAL_ F_OK", NULL },
	{ "futex", "FUTEX_", "FUTEX_PRIVATE_FLAG FUTEX_CLOCK_REALTIME FUTEX_CMD_MASK FUTEX_OP_ FUTEX_WAITERS "
	  "FUTEX_OWNER_DIED FUTEX_TID_MASK FUTEX_BITSET_MATCH_ANY FUTEX_32 FUTEX_WAITV_MAX FUTEX2_*", NULL },
	{ "clone", "CLONE_", "CLONE_ARGS_SIZE_VER* CLONE_LEGACY_FLAGS CLONE_NEWTIME CLONE_CLEAR_SIGHAND CLONE_INTO_CGROUP", NULL },
	{ "wait", "WNOHANG WSTOPPED WEXITED WCONTINUED WNOWAIT __WNOTHREAD __WALL __WCLONE", NULL, NULL },
	{ "statx", "STATX_", "STATX_ATTR_ STATX_ALL STATX__RESERVED STATX_BASIC_STATS", NULL },
	{ "rename", "RENAME_", NULL, NULL },
	/* mount(2)'s flags, from linux/mount.h alone (msync's MS_ASYNC ... are
	 * others); MS_MGC_* is a magic number in the high bits, the last ones
	 * are the kernel's own superblock flags */
	{ "mountflags", "MS_", "MS_RMT_MASK MS_MGC_VAL MS_MGC_MSK MS_SUBMOUNT MS_NOREMOTELOCK MS_NOSEC "
	  "MS_BORN MS_ACTIVE MS_NOUSER", NULL, false, "linux/mount.h" },
	{ "epoll_ctl", "EPOLL_CTL_", NULL, NULL },
	{ "epoll_flags", "EPOLL_CLOEXEC", NULL, NULL },
	{ "clock", "CLOCK_", NULL, NULL },
	{ "timer", "TIMER_ABSTIME", NULL, NULL },
	/* error numbers, as errno.stp names them (its BPF form reads this
	 * table): up to ENOTRECOVERABLE, the aliases left out */
	{ "errno", "E*", "EDEADLOCK EWOULDBLOCK ERFKILL EHWPOISON", NULL, false, "asm-generic/errno.h" },
	/* system call numbers: read, write ... (64-bit and 32-bit tasks) */
	{ "nr64", "__NR_", NULL, NULL, false, "asm/unistd_64.h", true },
	{ "nr32", "__NR_", NULL, NULL, false, "asm/unistd_32.h", true },
};

/* Does name start with (or, for a word not ending in '_', equal) a word of list? */
static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ' ');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (p[len - 1] == '*' ? !strncmp(name, p, len - 1) :
		    p[len - 1] == '_' ? !strncmp(name, p, len) : (len == n && !strncmp(name, p, len)))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

struct dec_collect {
	const struct dec_table *t;
	VEC(struct sc_dec_entry) e;
};

static void dec_entry(void *arg, const char *name, int64_t v)
{
	struct dec_collect *c = arg;
	char *shown = NULL;

	for (const char *p = c->t->rename; p && *p;) {   /* OLD=NEW */
		const char *eq = strchr(p, '='), *e = strchr(p, ' ');
		size_t len = e ? (size_t)(e - eq - 1) : strlen(eq + 1);
		if ((size_t)(eq - p) == strlen(name) && !strncmp(p, name, (size_t)(eq - p)))
			shown = xstrndup(eq + 1, len);
		p = e ? e + 1 : NULL;
	}
	if (!shown && !strcmp(c->t->name, "family"))   /* the families print as PF_* */
		shown = xasprintf("PF_%s", name + 3);
	if (!shown && c->t->strip)
		shown = xstrdup(name + strcspn(c->t->prefixes, " "));
	struct sc_dec_entry d = { shown ? shown : xstrdup(name), v };
	vec_push(&c->e, d);
}

static bool dec_want(void *arg, const char *name)
{
	const struct dec_collect *c = arg;

	return in_list(c->t->prefixes, name) && !(c->t->skip && in_list(c->t->skip, name));
}

/* Every table, built once per run (the module's tapset text and the BPF
 * backend's code both come from it). */
static struct sc_dec_table *tables;
static const struct session *tables_of;

static const struct sc_dec_table *build_tables(struct session *s, const char **why)
{
	size_t nt = sizeof(dec_tables) / sizeof(dec_tables[0]);

	if (tables && tables_of == s)
		return tables;
	struct uapi *u = uapi_load(s, dec_headers, why);
	if (!u)
		return NULL;
	tables = xcalloc(nt, sizeof(*tables));
	tables_of = s;
	for (size_t i = 0; i < nt; i++) {
		const struct dec_table *t = &dec_tables[i];
		struct uapi *own = NULL;
		if (t->header) {
			const char *const one[] = { t->header, NULL };
			own = uapi_load(s, one, why);
		}
		struct dec_collect c = { .t = t };
		if (!t->header || own)
			uapi_each(own ? own : u, dec_want, dec_entry, &c);
		uapi_free(own);
		/* by value (bits print lowest first), stably: of two names of
		 * one value the first defined is the value's name */
		for (int a = 1; a < c.e.len && !t->as_defined; a++)
			for (int b = a; b > 0 && (uint64_t)c.e.items[b - 1].v > (uint64_t)c.e.items[b].v; b--) {
				struct sc_dec_entry x = c.e.items[b];
				c.e.items[b] = c.e.items[b - 1];
				c.e.items[b - 1] = x;
			}
		tables[i] = (struct sc_dec_table){ t->name, c.e.items, c.e.len };
	}
	uapi_free(u);
	return tables;
}

const struct sc_dec_table *syscalls_decoder_table(struct session *s, const char *name)
{
	const char *why = NULL;
	const struct sc_dec_table *all = build_tables(s, &why);

	for (size_t i = 0; all && i < sizeof(dec_tables) / sizeof(dec_tables[0]); i++)
		if (!strcmp(all[i].name, name))
			return &all[i];
	return NULL;
}

char *syscalls_decoders(struct session *s, const char **why)
{
	const struct sc_dec_table *all = build_tables(s, why);
	struct strbuf o = STRBUF_INIT;

	if (!all)
		return NULL;
	strbuf_addstr(&o, "// generated by cstap from the target kernel's headers\n");
	strbuf_addstr(&o, "%{\n#include \"syscall_decode.h\"\n%}\n");
	for (size_t i = 0; i < sizeof(dec_tables) / sizeof(dec_tables[0]); i++) {
		strbuf_addf(&o, "function __sc_t_%s:string(v:long, bits:long) %%{ /* bpf:sc_decode */ /* pure */ /* unprivileged */\n"
			    "\tstatic const struct stp_sc_sym t[] = {\n", all[i].name);
		for (int a = 0; a < all[i].n; a++)
			strbuf_addf(&o, "\t\t{ \"%s\", %lldLL },\n", all[i].e[a].name, (long long)all[i].e[a].v);
		strbuf_addstr(&o, "\t\t{ NULL, 0 }\n\t};\n\n\tstp_sc_decode(STAP_RETVALUE, t, STAP_ARG_v, STAP_ARG_bits);\n%}\n");
	}
	return strbuf_detach(&o);
}
