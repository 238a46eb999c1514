/* staprun: load a cstap module, run stapio for the session, unload.
 *
 * usage: staprun [-v] [-w] [-o FILE [-S MB[,N]]] [-c CMD | -x PID] [-s MB | -b MB] [-T MS] [-D]
 *                [-R] [-r N:URI] MODULE.ko [name=value ...]
 *        staprun -L [options] MODULE.ko [name=value ...]   load, start, detach
 *        staprun -A [-o FILE] [-T MS] MODULE               attach to a detached one
 *        staprun -d MODULE|'*'                             remove detached modules
 *
 * name=value arguments become the module parameter string (settable script
 * globals); -w drops the script's warnings; -R loads the module under a
 * name of its own (NAME_PID), so that several sessions of one module run; -r N:URI is what remote_id() and
 * remote_uri() return (stap --remote passes it); -s/-b MB sizes the module's output buffer; -S MB,N writes the
 * output to FILE.0, FILE.1 ... of at most MB each, keeping the last N; -D runs the session
 * in the background (its output to -o FILE) and prints its pid. The exit
 * status is stapio's (1 if the script had run-time errors, else what the
 * script chose with exit_status(), else 1 if the -c command failed). A session left
 * running (-L, or SIGQUIT to stapio) keeps the module loaded; -A attaches
 * to it later and, when that session ends, removes it. Usage errors are
 * tagged [O_USAGE], as the translator's are.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <grp.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ctl_proto.h"
#include "modinfo.h"
#include "module_file.h"
#include "modsig.h"

#ifndef PKGLIBEXECDIR
#define PKGLIBEXECDIR "/usr/local/libexec/cstap"
#endif

struct options {
	int verbose;
	const char *out_path, *cmd, *target, *bufsize_mb, *timeout, *rotate;
	const char *remote_id, *remote_uri;	/* -r N:URI (remote_id(), remote_uri()) */
	bool load_only, attach, remove, daemon;	/* -L -A -d -D */
	bool no_warnings;	/* -w */
	bool rename;		/* -R: load under a name of its own */
	const char *ko_path;	/* the module's file, or its name with -A / -d */
	char **params;
	int nparams;
};

static pid_t stapio_pid;

#define STP_MODULE_NAME_MAX 55	/* the kernel's MODULE_NAME_LEN, less its NUL */
/* what module and parameter names are made of (kbuild's, the script's globals) */
#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_"

static void __attribute__((format(printf, 1, 2), noreturn)) usage_error(const char *fmt, ...);

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr,
		"usage: staprun [-v] [-w] [-o FILE [-S MB[,N]]] [-c CMD | -x PID] [-s MB | -b MB] [-T MS] [-D]\n"
		"               [-R] [-r N:URI] MODULE.ko [name=value ...]\n"
		"       staprun -L [options] MODULE.ko [name=value ...]   load, start and detach\n"
		"       staprun -A [-o FILE] [-T MS] MODULE               attach to a detached session\n"
		"       staprun -d MODULE|'*'                             remove detached modules\n");
	exit(2);
}

/* "HEAD: staprun: MESSAGE (HINT)", tagged as the translator tags its own
 * diagnostics, then exit 1. */
static void __attribute__((noreturn)) tagged_exit(const char *head, const char *hint,
						  const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: staprun: ", head);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (%s)\n", hint);
	exit(1);
}

/* A command-line error. */
static void __attribute__((format(printf, 1, 2), noreturn)) usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tagged_exit("usage error [O_USAGE]", "staprun -h", fmt, ap);
}

/* A positive integer option value up to max, or a usage error. */
static const char *check_number(const char *opt, const char *v, long max)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (*v == '\0' || *end != '\0' || n <= 0 || n > max)
		usage_error("%s wants a number from 1 to %ld, not '%s'", opt, max, v);
	return v;
}

/* -S SIZE[,N]: SIZE MB per output file (1 or more), N files kept (0: all). */
static const char *check_rotation(const char *v)
{
	char *end;
	long size = strtol(v, &end, 10), n = 0;

	if (end != v && *end == ',') {
		const char *p = end + 1;

		n = strtol(p, &end, 10);
		if (end == p)
			n = -1;
	}
	if (end == v || *end != '\0' || size < 1 || size > 4095 || n < 0 || n > 100000)
		usage_error("-S wants SIZE[,N]: a size in MB from 1 to 4095 and a number of files, not '%s'", v);
	return v;
}

/* The options that cannot go together, each with the reason. */
static void check_combinations(const struct options *o)
{
	if (o->load_only && o->attach)
		usage_error("-L and -A cannot be used together (-L loads a module, -A attaches to a loaded one)");
	if (o->attach && o->bufsize_mb)
		usage_error("-b/-s cannot be used with -A (the buffer is made when the module is loaded)");
	if (o->attach && (o->cmd || o->target))
		usage_error("%s cannot be used with -A (the session's target was set when it started)",
			    o->cmd ? "-c" : "-x");
	if (o->cmd && o->target)
		usage_error("-c and -x cannot be used together");
	if (o->load_only && o->cmd)
		usage_error("-c cannot be used with -L (the command would outlive its session)");
	if (o->daemon && (o->load_only || o->remove || o->cmd))
		usage_error("-D cannot be used with %s", o->load_only ? "-L" : o->remove ? "-d" : "-c");
	if (o->daemon && !o->out_path)
		usage_error("-D needs -o FILE (a session in the background has no terminal)");
	if (o->rotate && !o->out_path)
		usage_error("-S needs -o FILE (it limits the size of the output files)");
	if (o->remove && (o->load_only || o->attach || o->cmd || o->target || o->out_path || o->rename))
		usage_error("-d takes no other option");
	if (o->attach && o->rename)
		usage_error("-R cannot be used with -A (it names a module when loading it)");
}

/* -r N:URI, as stap --remote passes it: the host's index and name */
static void parse_remote(struct options *o, char *arg)
{
	char *colon = strchr(arg, ':');

	if (!colon || colon == arg || strspn(arg, "0123456789") != (size_t)(colon - arg) ||
	    colon - arg > 9 || strpbrk(colon + 1, "\"\n"))
		usage_error("-r wants N:URI (a number, a colon, a name without '\"'), not '%s'", arg);
	*colon = '\0';
	o->remote_id = arg;
	o->remote_uri = colon + 1;
}

static void parse_args(struct options *o, int argc, char **argv)
{
	int opt;

	opterr = 0;   /* our own messages, tagged */
	while ((opt = getopt(argc, argv, "+:vwo:c:x:s:b:T:S:r:RLAdDh")) != -1) {
		switch (opt) {
		case 'v': o->verbose++; break;
		case 'w': o->no_warnings = true; break;
		case 'R': o->rename = true; break;
		case 'r': parse_remote(o, optarg); break;
		case 'o': o->out_path = optarg; break;
		case 'c': o->cmd = optarg; break;
		case 'x': o->target = check_number("-x", optarg, INT_MAX); break;
		case 's': case 'b': o->bufsize_mb = check_number(opt == 's' ? "-s" : "-b", optarg, 4095); break;
		case 'T': o->timeout = check_number("-T", optarg, INT_MAX); break;
		case 'S': o->rotate = check_rotation(optarg); break;
		case 'L': o->load_only = true; break;
		case 'A': o->attach = true; break;
		case 'd': o->remove = true; break;
		case 'D': o->daemon = true; break;
		case 'h': usage();
		case ':': usage_error("option '-%c' needs an argument", optopt);
		default: usage_error("unknown option '-%c'", optopt);
		}
	}
	check_combinations(o);
	if (optind >= argc)
		usage_error("no module given");
	o->ko_path = argv[optind];
	o->params = argv + optind + 1;
	o->nparams = argc - optind - 1;
	if ((o->attach || o->remove) && o->nparams)
		usage_error("module parameters cannot be given with %s", o->attach ? "-A" : "-d");
}

/*
 * Privilege, as SystemTap's staprun has it. staprun is installed setuid
 * root, executable by the group stapusr alone (04110 root:stapusr). Root
 * runs any module; so does a member of stapdev. A member of stapusr or
 * stapsys runs a module only when root vouches for it:
 *   - it is installed in /lib/modules/RELEASE/systemtap/ (a directory only
 *     root can write, every component checked), whatever it does; or
 *   - it is signed by a signer the administrator trusts (a certificate in
 *     /etc/cstap/staprun/: modsig.c) and its signed .modinfo says
 *     stap_privilege=stapusr (stapsys too for members of stapsys): built by
 *     stap --privilege=... --sign-key, so that its process probes see only
 *     that user's processes (_stp_uid).
 * A module's own claim, unsigned, is worth nothing: anyone can write it.
 * The groups are checked before staprun opens any file a user names, and
 * the module is read once (module_file.c). stapio runs as the user, with
 * the control file opened for it.
 */
enum { GRP_STAPUSR = 1, GRP_STAPSYS = 2, GRP_STAPDEV = 4 };

/* gid of group name in /etc/group, or -1 (no NSS in a static binary). */
static long group_gid(const char *name)
{
	char line[1024];
	size_t n = strlen(name);
	long gid = -1;
	FILE *f = fopen("/etc/group", "r");

	if (!f)
		return -1;
	while (gid < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':') {
			const char *g = strchr(line + n + 1, ':');

			if (g)
				gid = strtol(g + 1, NULL, 10);
		}
	fclose(f);
	return gid;
}

/* GRP_* bits of the calling user's groups. */
static int caller_groups(void)
{
	static const struct { const char *name; int bit; } g[] = {
		{ "stapusr", GRP_STAPUSR }, { "stapsys", GRP_STAPSYS }, { "stapdev", GRP_STAPDEV },
	};
	gid_t list[256];
	int n = getgroups(256, list), bits = 0;

	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++) {
		long gid = group_gid(g[i].name);

		if (gid < 0)
			continue;
		if ((gid_t)gid == getgid())
			bits |= g[i].bit;
		for (int j = 0; j < n; j++)
			if (list[j] == (gid_t)gid)
				bits |= g[i].bit;
	}
	return bits;
}

static void __attribute__((format(printf, 1, 2), noreturn)) privilege_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tagged_exit("run error [R_PRIVILEGE]", "man staprun", fmt, ap);
}

/* A module the caller's groups do not let them load, and the rule why. */
static void __attribute__((format(printf, 1, 2), noreturn)) untrusted_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tagged_exit("run error [R_UNTRUSTED]", "man staprun: TRUST", fmt, ap);
}

/* Running setuid (for someone else than root)? */
static bool setuid_run(void)
{
	return getuid() != geteuid() || getgid() != getegid();
}

/*
 * Setuid: the environment is the caller's. Nothing here runs a shell as
 * root, but a variable that changes how shells or staprun itself behave is
 * dropped anyway, and CSTAP_STAPIO (which stapio to run) is root's to set.
 */
static void clean_environment(void)
{
	static const char *const drop[] = {
		"IFS", "ENV", "BASH_ENV", "CDPATH", "GLOBIGNORE", "SHELLOPTS", "BASHOPTS", "PS4",
		"CSTAP_STAPIO", "OPENSSL_CONF", "OPENSSL_MODULES", "OPENSSL_ENGINES",
	};
	extern char **environ;

	for (size_t i = 0; i < sizeof(drop) / sizeof(drop[0]); i++)
		unsetenv(drop[i]);
	for (char **e = environ; *e;)	/* the loader's and libc's own, whatever glibc left */
		if (!strncmp(*e, "LD_", 3) || !strncmp(*e, "MALLOC_", 7) || !strncmp(*e, "GLIBC_", 6)) {
			char name[128];

			snprintf(name, sizeof(name), "%.*s", (int)strcspn(*e, "="), *e);
			unsetenv(name);
		} else {
			e++;
		}
}

/* Before any file a user names is opened: is the caller root, or in one
 * of the groups, and is staprun setuid root for them? Exits if not. */
static int check_caller(void)
{
	int groups;

	if (getuid() == 0)
		return GRP_STAPDEV;
	groups = caller_groups();
	if (!groups)
		privilege_error("only root and the members of the groups stapdev, stapsys and stapusr may run "
				"cstap modules (uid %d is in none of them)", (int)getuid());
	if (geteuid() != 0)
		privilege_error("staprun is not setuid root here, so it cannot load modules for uid %d "
				"(an administrator installs it 04110 root:stapusr)", (int)getuid());
	return groups;
}

/* May the caller (groups) load module m? Exits with R_UNTRUSTED if not. */
static void check_load_privilege(const struct module_file *m, const struct modsig_result *sig, int groups)
{
	char level[32] = "";
	const char *who = groups & GRP_STAPSYS ? "stapsys" : "stapusr";

	if (groups & GRP_STAPDEV)
		return;
	if (m->installed)
		return;
	if (sig->verdict == MODSIG_TRUSTED) {
		modinfo_value(m->img, m->elf_len, "stap_privilege", level, sizeof(level));
		if (!strcmp(level, "stapusr") || ((groups & GRP_STAPSYS) && !strcmp(level, "stapsys")))
			return;
		untrusted_error("%s is signed by a trusted signer (%s) but built for %s: as a member of %s "
				"you may run modules built with --privilege=%s", m->path, sig->signer,
				*level ? level : "stapdev", who, who);
	}
	if (sig->verdict == MODSIG_REFUSED)
		untrusted_error("%s is refused: %s; as a member of %s you may run modules signed by a signer "
				"the administrator trusts (" STAPRUN_CERT_DIR "/) or installed by root in "
				"/lib/modules/RELEASE/systemtap/", m->path, sig->why, who);
	untrusted_error("%s is neither signed by a trusted signer (" STAPRUN_CERT_DIR "/) nor installed "
			"by root in /lib/modules/RELEASE/systemtap/%s%s: as a member of %s you may run only those "
			"(or join stapdev)", m->path, m->why[0] ? ": " : "", m->why, who);
}

/* -A / -d by someone else than root: stapdev, or the user the module
 * (built with --privilege) was loaded for. */
static void check_attach_privilege(const char *modname)
{
	char path[128], buf[32] = "";
	FILE *f;

	if (getuid() == 0 || (caller_groups() & GRP_STAPDEV))
		return;
	snprintf(path, sizeof(path), "/sys/module/%s/parameters/_stp_uid", modname);
	f = fopen(path, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	if (!buf[0] || strtoul(buf, NULL, 10) != (unsigned long)getuid())
		privilege_error("module %s was not loaded for uid %d: only root, stapdev and that user may "
				"attach to or remove it", modname, (int)getuid());
}

/* A time zone name fit for the parameter string: letters, digits, + and -. */
static bool tz_name_ok(const char *z)
{
	return z && *z && strspn(z, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-") == strlen(z);
}

/* tz_ctime(): our time zone's offset and name, for modules that take them. */
static int tz_params(const struct module_file *m, char *p, bool space)
{
	time_t now = time(NULL);
	struct tm tm;

	if (modinfo_has_param(m->img, m->elf_len, "_stp_tz_gmtoff") <= 0 || !localtime_r(&now, &tm))
		return 0;
	return sprintf(p, "%s_stp_tz_gmtoff=%ld _stp_tz_name=%.15s", space ? " " : "",
		       (long)tm.tm_gmtoff, tz_name_ok(tm.tm_zone) ? tm.tm_zone : "UTC");
}

/* A name=value argument refused, tagged. */
static void __attribute__((format(printf, 1, 2), noreturn)) param_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tagged_exit("run error [R_PARAM]", "man staprun", fmt, ap);
}

/* Where the kernel's parameter parser splits (its isspace(): the ASCII
 * spaces and Latin-1's no-break space, 0xA0): such a value is quoted. */
static bool kernel_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r') || c == 0xa0;
}

/* s[0..n) for a message: bytes a terminal would act on as \xNN. */
static const char *printable(const char *s, size_t n)
{
	static char buf[256];
	size_t o = 0;

	for (size_t i = 0; i < n && o < sizeof(buf) - 5; i++) {
		unsigned char c = s[i];

		if (c < 0x20 || c >= 0x7f || c == '\\')
			o += sprintf(buf + o, "\\x%02x", c);
		else
			buf[o++] = c;
	}
	buf[o] = '\0';
	return buf;
}

/* A name=value argument as the module may take it: a parameter name of
 * the module's (letters, digits, '_': the kernel reads '-' as '_'), not
 * one of staprun's own, no '"'. */
static void check_param(const struct module_file *m, const char *a)
{
	size_t n = strcspn(a, "=");
	const char *name = printable(a, n);

	if (n == 0 || strspn(a, NAME_CHARS) != n)
		param_error("module parameter '%s': a name is letters, digits and '_'", name);
	if (getuid() != 0 && !strncmp(a, "_stp_", 5))
		param_error("module parameter '%s' is staprun's own", name);
	if (modinfo_has_param(m->img, m->elf_len, a) == 0)
		param_error("module %s has no parameter '%s' (not a global the script lets you set)", m->path, name);
	if (strchr(a, '"'))
		param_error("module parameter '%s': values cannot contain '\"'", name);
}

/*
 * The module parameter string: "a=1 b=\"x y\"" (the kernel's parser
 * takes double quotes around values it would split), plus staprun's own
 * (_stp_bufsize, _stp_uid ...), which only root may give by hand.
 */
static char *param_string(const struct options *o, const struct module_file *m)
{
	size_t len = 64 + 64 + 32 + 64 + 64;	/* _stp_bufsize, the time zone, _stp_uid, -r, procfs owner */
	char *s, *p;
	int i;

	for (i = 0; i < o->nparams; i++)
		len += strlen(o->params[i]) + 4;
	if (o->remote_uri)
		len += strlen(o->remote_uri);
	s = p = malloc(len);
	if (!s)
		return NULL;
	*p = '\0';
	for (i = 0; i < o->nparams; i++) {
		const char *a = o->params[i], *eq = strchr(a, '='), *c;
		bool quote = false;

		check_param(m, a);
		for (c = eq; c && *c; c++)
			quote |= kernel_space(*c);
		if (quote)
			p += sprintf(p, "%s%.*s\"%s\"", i ? " " : "", (int)(eq + 1 - a), a, eq + 1);
		else
			p += sprintf(p, "%s%s", i ? " " : "", a);
	}
	if (o->bufsize_mb)
		p += sprintf(p, "%s_stp_bufsize=%s", *s ? " " : "", o->bufsize_mb);
	if (modinfo_has_param(m->img, m->elf_len, "_stp_uid") > 0)   /* --privilege: whose processes */
		p += sprintf(p, "%s_stp_uid=%u", *s ? " " : "", (unsigned)getuid());
	if (getuid() != 0 && modinfo_has_param(m->img, m->elf_len, "_stp_procfs_uid") > 0)   /* the caller's files */
		p += sprintf(p, "%s_stp_procfs_uid=%u _stp_procfs_gid=%u", *s ? " " : "", (unsigned)getuid(),
			     (unsigned)getgid());
	if (o->remote_id && modinfo_has_param(m->img, m->elf_len, "_stp_remote_id") > 0)
		p += sprintf(p, "%s_stp_remote_id=%s _stp_remote_uri=\"%s\"", *s ? " " : "", o->remote_id,
			     o->remote_uri);
	p += tz_params(m, p, *s != '\0');
	return s;
}

/* Why init_module said no, in words a user can act on. */
static const char *load_error_hint(int err)
{
	switch (err) {
	case EEXIST: return "a module of that name is already loaded (another session running? try rmmod)";
	case ENOEXEC: return "invalid module format: built for another kernel, or vermagic mismatch (see dmesg)";
	case EPERM: return "operation not permitted: must be root, and module loading must not be disabled";
	case ENOSYS: return "this kernel has no loadable module support";
	case ENOENT: return "unknown module parameter or missing symbol (see dmesg)";
	case EINVAL: return "invalid parameter value or module (see dmesg)";
	case EBUSY: return "module is busy (being loaded or unloaded)";
	case ENOMEM: return "out of memory (smaller -s?)";
	default: return strerror(err);
	}
}

/* Is the kernel locked down (/sys/kernel/security/lockdown: "none
 * [integrity] confidentiality")? It then loads only signed modules. */
static bool lockdown_active(void)
{
	char buf[128] = "";
	FILE *f = fopen("/sys/kernel/security/lockdown", "r");

	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	fclose(f);
	return strchr(buf, '[') && !strstr(buf, "[none]");
}

/* The kernel refused the module's signature (it loads only signed modules:
 * module.sig_enforce=1, lockdown, Secure Boot): say what to do, tagged. */
static void __attribute__((noreturn)) signature_refused(const struct module_file *m, int err)
{
	bool signed_image = m->elf_len < m->len;	/* a well-formed signature appended */

	fprintf(stderr, "run error [R_MODSIG]: staprun: the kernel refused %s: ", m->path);
	if (err == EPERM && !signed_image)
		fprintf(stderr, "kernel lockdown allows only signed modules and this one is not signed: build it "
			"with stap --sign-key KEY --sign-cert CERT, with a key the kernel trusts (mokutil --import CERT, "
			"then reboot to enroll it)");
	else if (!signed_image)
		fprintf(stderr, "the kernel loads only signed modules (module.sig_enforce, lockdown or Secure Boot) "
			"and this one is not signed: build it with stap --sign-key KEY --sign-cert CERT, with a key "
			"the kernel trusts (mokutil --import CERT, then reboot to enroll it)");
	else
		fprintf(stderr, "it is signed, but not with a key the kernel trusts (or it was altered after "
			"signing): enroll the signer's certificate (mokutil --import CERT, then reboot) or sign "
			"with a key the kernel trusts");
	fprintf(stderr, " (man staprun: SIGNING)\n");
	exit(1);
}

/* init_module of the image read and checked (renamed first with -R). */
static int load_module(struct module_file *m, const char *params, const char *old, const char *name)
{
	if (old && modinfo_rename(m->img, m->elf_len, old, name) < 0)
		return -1;
	if (syscall(SYS_init_module, m->img, m->len, params) == 0)
		return 0;
	if (errno == EKEYREJECTED || errno == ENOKEY || errno == EBADMSG ||
	    (errno == EPERM && lockdown_active()))
		signature_refused(m, errno);
	fprintf(stderr, "ERROR: cannot load module %s%s%s: %s\n", m->path, old ? " as " : "", old ? name : "",
		load_error_hint(errno));
	return -1;
}

/* delete_module, retrying while the module is still in use for a moment. */
static int unload_module(const char *name, int verbose)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	int i;

	for (i = 0; i < 50; i++) {
		if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0) {
			if (verbose)
				fprintf(stderr, "staprun: module %s removed\n", name);
			return 0;
		}
		if (errno != EAGAIN && errno != EBUSY)
			break;
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "ERROR: cannot remove module %s: %s\n", name, strerror(errno));
	return -1;
}

/* $CSTAP_STAPIO, else next to this staprun, else the installed one.
 * (staprun is its own program: it reads the variable itself; what it does
 * is listed with the translator's in translator/env.def and README.md.) */
static const char *find_stapio(void)
{
	static char path[PATH_MAX];
	const char *env = getenv("CSTAP_STAPIO");
	ssize_t n;
	char *slash;

	if (env && *env)	/* a setuid staprun has dropped it (clean_environment) */
		return env;
	n = readlink("/proc/self/exe", path, sizeof(path) - 8);
	if (n > 0) {
		path[n] = '\0';
		slash = strrchr(path, '/');
		if (slash) {
			strcpy(slash + 1, "stapio");
			if (access(path, X_OK) == 0)
				return path;
		}
	}
	return PKGLIBEXECDIR "/stapio";
}

/* Ctrl-C on staprun alone (e.g. `timeout -s INT`) must reach stapio. */
static void forward_signal(int sig)
{
	if (stapio_pid > 0)
		kill(stapio_pid, sig);
}

/* Did stapio say on the note pipe (read end fd) that it detached? Read
 * once it exited: what it wrote is there, and no one else writes. */
static bool stapio_detached(int fd)
{
	char c;

	return read(fd, &c, 1) == 1 && c == STAPIO_NOTE_DETACHED;
}

/* Run stapio and return its exit status in shell terms; *detached: it left
 * the session running (told on a pipe: the script may choose any status). */
static int run_stapio(const struct options *o, const char *modname, bool *detached)
{
	const char *argv[26];
	const char *stapio = find_stapio();
	char ctl_arg[16], note_arg[16];
	int ctl = -1, note[2];
	struct sigaction sa;
	int n = 0, status;

	*detached = false;
	if (pipe2(note, O_CLOEXEC | O_NONBLOCK) < 0) {
		fprintf(stderr, "ERROR: pipe: %s\n", strerror(errno));
		return 1;
	}

	argv[n++] = "stapio";
	if (o->verbose)
		argv[n++] = "-v";
	if (o->no_warnings)
		argv[n++] = "-w";
	if (o->load_only)
		argv[n++] = "-L";
	if (o->attach)
		argv[n++] = "-A";
	if (o->out_path) { argv[n++] = "-o"; argv[n++] = o->out_path; }
	if (o->cmd) { argv[n++] = "-c"; argv[n++] = o->cmd; }
	if (o->target) { argv[n++] = "-x"; argv[n++] = o->target; }
	if (o->timeout) { argv[n++] = "-T"; argv[n++] = o->timeout; }
	if (o->bufsize_mb) { argv[n++] = "-s"; argv[n++] = o->bufsize_mb; }
	if (o->rotate) { argv[n++] = "-S"; argv[n++] = o->rotate; }
	if (getuid() != 0) {	/* stapio runs as the user: the control file is opened here */
		char path[128];

		snprintf(path, sizeof(path), "/proc/" STP_PROC_PREFIX "%s", modname);
		ctl = open(path, O_RDWR | O_NONBLOCK);
		if (ctl < 0) {
			fprintf(stderr, "ERROR: cannot open %s: %s\n", path, strerror(errno));
			close(note[0]);
			close(note[1]);
			return 1;
		}
		snprintf(ctl_arg, sizeof(ctl_arg), "%d", ctl);
		argv[n++] = "-F";
		argv[n++] = ctl_arg;
	}
	snprintf(note_arg, sizeof(note_arg), "%d", note[1]);
	argv[n++] = "-N";
	argv[n++] = note_arg;
	argv[n++] = modname;
	argv[n] = NULL;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward_signal;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	stapio_pid = fork();
	if (stapio_pid < 0) {
		fprintf(stderr, "ERROR: fork: %s\n", strerror(errno));
		close(note[0]);
		close(note[1]);
		return 1;
	}
	if (stapio_pid == 0) {
		if (getuid() != 0 && (setgroups(0, NULL) < 0 || setgid(getgid()) < 0 || setuid(getuid()) < 0)) {
			fprintf(stderr, "ERROR: cannot drop privileges for stapio: %s\n", strerror(errno));
			_exit(127);
		}
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		fcntl(note[1], F_SETFD, 0);	/* stapio's -N; blocking, as it expects */
		fcntl(note[1], F_SETFL, 0);
		execv(stapio, (char **)argv);
		fprintf(stderr, "ERROR: cannot run %s: %s (set CSTAP_STAPIO?)\n", stapio, strerror(errno));
		_exit(127);
	}
	if (ctl >= 0)
		close(ctl);	/* stapio has it */
	close(note[1]);
	while (waitpid(stapio_pid, &status, 0) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "ERROR: waitpid: %s\n", strerror(errno));
			close(note[0]);
			return 1;
		}
	stapio_pid = 0;
	*detached = stapio_detached(note[0]);
	close(note[0]);
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	fprintf(stderr, "ERROR: stapio killed by signal %d\n", WTERMSIG(status));
	return 128 + WTERMSIG(status);
}

/* A module name is letters, digits and '_' (what kbuild makes), at most
 * the kernel's length: it goes into /proc and /sys paths. Exits if not. */
static void check_module_name(const char *name)
{
	size_t n = strlen(name);

	if (n > STP_MODULE_NAME_MAX)
		usage_error("module name '%s' is longer than %d characters, the kernel's limit", name,
			    STP_MODULE_NAME_MAX);
	if (n == 0 || strspn(name, NAME_CHARS) != n)
		usage_error("module name '%s' is not letters, digits and '_'", name);
}

/* The name of a loaded cstap module: arg is its name, or its .ko file.
 * Exits with an error when no such module runs a session. */
static void loaded_module_name(const char *arg, char *name, size_t size)
{
	char path[128 + MODINFO_NAME_MAX];
	struct module_file m;

	if (!module_file_is_name(arg)) {
		if (module_file_read(arg, &m) < 0 || modinfo_module_name(m.img, m.elf_len, arg, name, size) < 0)
			exit(1);
		free(m.img);
	} else {
		snprintf(name, size, "%s", arg);
	}
	check_module_name(name);
	snprintf(path, sizeof(path), "/proc/" STP_PROC_PREFIX "%s", name);
	if (access(path, F_OK) != 0) {
		fprintf(stderr, "ERROR: no cstap module %s is loaded (%s: %s)\n", name, path, strerror(errno));
		exit(1);
	}
}

/* -d: remove the module (every cstap module for '*'); a session still
 * attached keeps its module busy and it stays. */
static int remove_modules(const struct options *o)
{
	char name[MODINFO_NAME_MAX], line[512];
	int rc = 0, n = 0;
	FILE *f;

	if (strcmp(o->ko_path, "*") != 0) {
		loaded_module_name(o->ko_path, name, sizeof(name));
		return unload_module(name, o->verbose) < 0;
	}
	f = fopen("/proc/modules", "r");
	if (!f) {
		fprintf(stderr, "ERROR: cannot read /proc/modules: %s\n", strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		char path[128 + MODINFO_NAME_MAX];

		if (sscanf(line, "%63s", name) != 1)
			continue;
		snprintf(path, sizeof(path), "/proc/" STP_PROC_PREFIX "%s", name);
		if (access(path, F_OK) == 0) {
			n++;
			if (unload_module(name, o->verbose) < 0)
				rc = 1;
		}
	}
	fclose(f);
	if (o->verbose)
		fprintf(stderr, "staprun: %d cstap module%s found\n", n, n == 1 ? "" : "s");
	return rc;
}

/* -D: go on in the background; the parent prints the pid and returns. */
static void daemonize(void)
{
	pid_t pid = fork();
	int fd;

	if (pid < 0) {
		fprintf(stderr, "ERROR: fork: %s\n", strerror(errno));
		exit(1);
	}
	if (pid > 0) {
		printf("%d\n", (int)pid);
		exit(0);
	}
	setsid();
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		if (fd > 1)
			close(fd);
	}
}

/* Load the module (read once, checked, loaded from that copy), run its
 * session; the session's status. */
static int load_and_run(struct options *o, int groups)
{
	struct module_file m;
	struct modsig_result sig = { .verdict = MODSIG_UNSIGNED };
	char modname[MODINFO_NAME_MAX], old[MODINFO_NAME_MAX];
	char *params;
	bool detached;
	int rc;

	if (module_file_is_name(o->ko_path))
		check_module_name(o->ko_path);
	rc = module_file_read(o->ko_path, &m);
	if (rc == MODULE_FILE_UNTRUSTED && (groups & GRP_STAPDEV)) {   /* they may load any file */
		char path[sizeof(m.path)];

		strcpy(path, m.path);
		rc = module_file_read(path, &m);
	}
	if (rc == MODULE_FILE_UNTRUSTED)
		untrusted_error("%s is not an installed module: %s", m.path, m.why);
	if (rc < 0 || modinfo_module_name(m.img, m.elf_len, m.path, modname, sizeof(modname)) < 0)
		return 1;
	check_module_name(modname);
	if (!(groups & GRP_STAPDEV))
		modsig_check(m.img, m.len, &sig);
	check_load_privilege(&m, &sig, groups);
	params = param_string(o, &m);
	if (!params) {
		fprintf(stderr, "ERROR: out of memory\n");
		return 1;
	}
	if (o->daemon)
		daemonize();
	strcpy(old, modname);
	if (o->rename) {	/* NAME_PID, cut to the kernel's limit */
		char pid[16];

		snprintf(pid, sizeof(pid), "_%d", (int)getpid());
		snprintf(modname, sizeof(modname), "%.*s%s", (int)(STP_MODULE_NAME_MAX - strlen(pid)), old, pid);
	}
	if (o->verbose)
		fprintf(stderr, "staprun: loading %s as %s, parameters '%s'\n", m.path, modname, params);
	if (load_module(&m, params, o->rename ? old : NULL, modname) < 0)
		return 1;
	free(params);
	free(m.img);
	rc = run_stapio(o, modname, &detached);
	if (detached)
		return 0;	/* the session goes on: the module stays */
	if (unload_module(modname, o->verbose) < 0 && rc == 0)
		rc = 1;
	return rc;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	char modname[MODINFO_NAME_MAX];
	bool detached;
	int groups, rc;

	if (setuid_run())
		clean_environment();
	parse_args(&o, argc, argv);
	groups = check_caller();	/* before any file a user names is opened */
	if (o.remove) {
		if (strcmp(o.ko_path, "*") == 0 && !(groups & GRP_STAPDEV))
			privilege_error("-d '*' is for root and stapdev");
		if (getuid() != 0 && strcmp(o.ko_path, "*") != 0) {
			loaded_module_name(o.ko_path, modname, sizeof(modname));
			check_attach_privilege(modname);
		}
		return remove_modules(&o);
	}
	if (!o.attach)
		return load_and_run(&o, groups);
	loaded_module_name(o.ko_path, modname, sizeof(modname));
	check_attach_privilege(modname);
	rc = run_stapio(&o, modname, &detached);
	if (detached)
		return 0;
	if (unload_module(modname, o.verbose) < 0 && rc == 0)
		rc = 1;
	return rc;
}
