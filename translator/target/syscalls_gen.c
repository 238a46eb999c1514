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
#include "ksyms.h"
#include "syscalls_gen.h"
#include "tvars.h"
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
 * variables and the language's reserved words get "_arg" appended. */
static char *var_name(const char *arg)
{
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

/* The name SystemTap's tapset gives the system call the kernel calls
 * kname (its newer variant, or the one x86-64 has). */
static const char *alias_name(const char *kname)
{
	static const char *const renamed[][2] = { { "sendfile64", "sendfile" }, { "newuname", "uname" },
		{ "getdents64", "getdents" }, { "eventfd2", "eventfd" }, { "signalfd4", "signalfd" },
		{ "inotify_init1", "inotify_init" }, { "old_readdir", "readdir" }, { "old_getrlimit", "getrlimit" },
		{ "oldumount", "umount" } };

	for (size_t i = 0; i < sizeof(renamed) / sizeof(renamed[0]); i++)
		if (!strcmp(kname, renamed[i][0]))
			return renamed[i][1];
	return kname;
}

static void gen_one(struct strbuf *o, const wrapvec *wrappers, const char *kname, int nargs, char **types,
		    char **args)
{
	struct strbuf fmt = STRBUF_INIT, vals = STRBUF_INIT;
	const char *name = alias_name(kname);

	strbuf_addf(o, "probe nd_syscall.%s = ", name);
	wrapper_points(o, wrappers, kname, false);
	strbuf_addf(o, "\n{\n\tname = \"%s\"\n", name);
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
	strbuf_addf(o, "probe nd_syscall.%s.return = ", name);
	wrapper_points(o, wrappers, kname, true);
	strbuf_addf(o, "\n{\n\tname = \"%s\"\n\tretval = __sc_retval()\n\tretstr = return_str(1, retval)\n}\n", name);
	char *plain = xasprintf("%s%s", wrapper_prefix[0], name);
	bool twin = name != kname && find_wrapper(wrappers, plain);
	free(plain);
	if (!twin) {   /* sendfile64 joins sendfile's syscall.sendfile where both are */
		strbuf_addf(o, "probe syscall.%s = nd_syscall.%s { }\n", name, name);
		strbuf_addf(o, "probe syscall.%s.return = nd_syscall.%s.return { }\n", name, name);
	}
	strbuf_release(&fmt);
	strbuf_release(&vals);
}

/* The system calls the library's own aliases cover: NAME of every
 * kprobe.function("__x64_sys_NAME") an alias named syscall.* or
 * nd_syscall.* probes (sorted). */
static void covered_syscalls(struct session *s, strvec *out)
{
	for (int k = 0; k < s->library.len; k++) {
		struct script *sc = s->library.items[k];
		for (int i = 0; i < sc->probes.len; i++) {
			struct probe *a = sc->probes.items[i];
			if (!a->is_alias || !a->alias_names.len || !a->alias_names.items[0]->comps.len)
				continue;
			const char *first = a->alias_names.items[0]->comps.items[0]->name;
			if (strcmp(first, "syscall") && strcmp(first, "nd_syscall"))
				continue;
			for (int j = 0; j < a->points.len; j++) {
				struct probe_point *pp = a->points.items[j];
				if (pp->comps.len < 2 || strcmp(pp->comps.items[0]->name, "kprobe") ||
				    strcmp(pp->comps.items[1]->name, "function") || !pp->comps.items[1]->arg ||
				    pp->comps.items[1]->arg->kind != EXPR_STR)
					continue;
				const char *fn = pp->comps.items[1]->arg->str;
				if (!strncmp(fn, wrapper_prefix[0], strlen(wrapper_prefix[0])))
					vec_push(out, xstrdup(fn + strlen(wrapper_prefix[0])));
			}
		}
	}
	if (out->len)
		qsort(out->items, (size_t)out->len, sizeof(char *), cmp_str);
}

char *syscalls_tapset(struct session *s, const char **why)
{
	struct dw_image *img = dw_kernel(s, why);
	const struct ksymtab *syms = img ? ksyms_kernel(s, why) : NULL;
	long o_name, o_nb, o_types, o_args;
	struct strbuf out = STRBUF_INIT;
	strvec covered = { 0 };
	wrapvec wrappers = { 0 };
	int n = 0;

	if (!img || !syms)
		return NULL;
	o_name = dw_member_offset(img, "struct syscall_metadata", "name");
	o_nb = dw_member_offset(img, "struct syscall_metadata", "nb_args");
	o_types = dw_member_offset(img, "struct syscall_metadata", "types");
	o_args = dw_member_offset(img, "struct syscall_metadata", "args");
	if (o_name < 0 || o_nb < 0 || o_types < 0 || o_args < 0) {
		*why = "the kernel has no syscall metadata (CONFIG_FTRACE_SYSCALLS)";
		return NULL;
	}
	covered_syscalls(s, &covered);
	for (size_t i = 0; i < syms->n; i++)
		for (int w = 0; w < NWRAP; w++)
			if (!strncmp(syms->syms[i].name, wrapper_prefix[w], strlen(wrapper_prefix[w])) &&
			    ksym_is_func(&syms->syms[i]))
				vec_push(&wrappers, &syms->syms[i]);
	if (wrappers.len)
		qsort(wrappers.items, (size_t)wrappers.len, sizeof(*wrappers.items), cmp_ksym_name);
	strbuf_addstr(&out, "// generated by cstap from the kernel's syscall metadata\n");
	for (size_t i = 0; i < syms->n; i++) {
		const struct ksym *k = &syms->syms[i];
		int32_t nb;
		uint64_t tp, ap;
		char *types[6], *args[6];
		if (strncmp(k->name, META, strlen(META)))
			continue;
		const char *name = k->name + strlen(META);
		char *x64 = xasprintf("%s%s", wrapper_prefix[0], name);
		bool have = find_wrapper(&wrappers, x64) != NULL;
		free(x64);
		if (!have || in_sorted(&covered, name))
			continue;
		if (!dw_image_read(img, k->addr + o_nb, &nb, 4) || nb < 0 || nb > 6 ||
		    !dw_image_read(img, k->addr + o_types, &tp, 8) || !dw_image_read(img, k->addr + o_args, &ap, 8))
			continue;
		bool ok = true;
		for (int a = 0; a < nb && ok; a++) {
			types[a] = dw_image_string_at(img, tp + 8 * a);
			args[a] = dw_image_string_at(img, ap + 8 * a);
			ok = types[a] && args[a];
		}
		if (!ok)
			continue;
		for (int a = 0; a < nb; a++)
			args[a] = var_name(args[a]);
		gen_one(&out, &wrappers, name, nb, types, args);
		n++;
	}
	for (int i = 0; i < covered.len; i++)
		free(covered.items[i]);
	free(covered.items);
	free(wrappers.items);
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
	{ "family", "AF_", "AF_UNIX AF_ROUTE AF_MAX",
	  "AF_UNSPEC=PF_UNSPEC" },
	{ "socktype", "SOCK_STREAM SOCK_DGRAM SOCK_RAW SOCK_RDM SOCK_SEQPACKET SOCK_DCCP SOCK_PACKET", NULL, NULL },
	{ "sockflags", "SOCK_CLOEXEC SOCK_NONBLOCK", NULL, NULL, true },
	{ "ipproto", "IPPROTO_", "IPPROTO_MAX", NULL },
	{ "msg", "MSG_", "MSG_TRYHARD MSG_SENDPAGE_NOPOLICY MSG_EOF MSG_CMSG_COMPAT MSG_INTERNAL_SENDMSG_FLAGS", NULL },
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

struct dec_entry {
	char *name;
	int64_t v;
};

struct dec_collect {
	const struct dec_table *t;
	VEC(struct dec_entry) e;
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
	struct dec_entry d = { shown ? shown : xstrdup(name), v };
	vec_push(&c->e, d);
}

static bool dec_want(void *arg, const char *name)
{
	const struct dec_collect *c = arg;

	return in_list(c->t->prefixes, name) && !(c->t->skip && in_list(c->t->skip, name));
}

char *syscalls_decoders(struct session *s, const char **why)
{
	struct uapi *u = uapi_load(s, dec_headers, why);
	struct strbuf o = STRBUF_INIT;

	if (!u)
		return NULL;
	strbuf_addstr(&o, "// generated by cstap from the target kernel's headers\n");
	strbuf_addstr(&o, "%{\n#include \"syscall_decode.h\"\n%}\n");
	for (size_t i = 0; i < sizeof(dec_tables) / sizeof(dec_tables[0]); i++) {
		const struct dec_table *t = &dec_tables[i];
		struct uapi *own = NULL;
		if (t->header) {
			const char *const one[] = { t->header, NULL };
			own = uapi_load(s, one, why);
		}
		struct dec_collect c = { .t = t };
		strbuf_addf(&o, "function __sc_t_%s:string(v:long, bits:long) %%{ /* pure */ /* unprivileged */\n"
			    "\tstatic const struct stp_sc_sym t[] = {\n", t->name);
		if (!t->header || own)
			uapi_each(own ? own : u, dec_want, dec_entry, &c);
		uapi_free(own);
		/* by value (bits print lowest first), stably: of two names of
		 * one value the first defined is the value's name */
		for (int a = 1; a < c.e.len && !t->as_defined; a++)
			for (int b = a; b > 0 && (uint64_t)c.e.items[b - 1].v > (uint64_t)c.e.items[b].v; b--) {
				struct dec_entry x = c.e.items[b];
				c.e.items[b] = c.e.items[b - 1];
				c.e.items[b - 1] = x;
			}
		for (int a = 0; a < c.e.len; a++) {
			strbuf_addf(&o, "\t\t{ \"%s\", %lldLL },\n", c.e.items[a].name, (long long)c.e.items[a].v);
			free(c.e.items[a].name);
		}
		free(c.e.items);
		strbuf_addstr(&o, "\t\t{ NULL, 0 }\n\t};\n\n\tstp_sc_decode(STAP_RETVALUE, t, STAP_ARG_v, STAP_ARG_bits);\n%}\n");
	}
	uapi_free(u);
	return strbuf_detach(&o);
}
