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
 * status is stapio's (1 if the script had run-time errors). A session left
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

static void __attribute__((format(printf, 1, 2), noreturn)) usage_error(const char *fmt, ...);

/* A module given by name (no '/', no .ko) is one installed for this
 * kernel: /lib/modules/RELEASE/systemtap/NAME.ko, where stap -p4 modules
 * are put for users who may load only those. */
static const char *module_file(const char *arg)
{
	static char path[PATH_MAX];
	size_t len = strlen(arg);
	struct utsname u;

	if (strchr(arg, '/') || (len > 3 && !strcmp(arg + len - 3, ".ko")))
		return arg;
	if (len > STP_MODULE_NAME_MAX)
		usage_error("module name '%s' is longer than %d characters, the kernel's limit", arg,
			    STP_MODULE_NAME_MAX);
	if (uname(&u) < 0)
		return arg;
	snprintf(path, sizeof(path), "/lib/modules/%s/systemtap/%s.ko", u.release, arg);
	return path;
}

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
 * Privilege, as SystemTap's staprun has it: root runs anything; so does a
 * member of the group stapdev; a member of stapsys or stapusr runs only a
 * module an administrator installed in /lib/modules/RELEASE/systemtap/ or
 * one built with --privilege=stapusr|stapsys (its .modinfo says
 * stap_privilege=stapusr), whose process probes then see only that user's
 * processes (_stp_uid). staprun is installed setuid root for them; stapio
 * runs as the user, with the control file opened for it.
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

/* Is the module file one an administrator installed for this kernel? */
static bool installed_module(const char *ko)
{
	char real[PATH_MAX], dir[PATH_MAX + 64];
	struct utsname u;

	if (!realpath(ko, real) || uname(&u) < 0)
		return false;
	snprintf(dir, sizeof(dir), "/lib/modules/%s/systemtap/", u.release);
	return !strncmp(real, dir, strlen(dir)) && !strchr(real + strlen(dir), '/');
}

/* May the caller load ko? Exits with R_PRIVILEGE if not. */
static void check_load_privilege(const char *ko)
{
	char level[32] = "";
	int groups;

	if (getuid() == 0)
		return;
	groups = caller_groups();
	if (!groups)
		privilege_error("only root and the members of the groups stapdev, stapsys and stapusr may run "
				"cstap modules (uid %d is in none of them)", (int)getuid());
	if (geteuid() != 0)
		privilege_error("staprun is not setuid root here, so it cannot load modules for uid %d "
				"(an administrator installs it with chmod 4755)", (int)getuid());
	if (groups & GRP_STAPDEV)
		return;
	modinfo_value(ko, "stap_privilege", level, sizeof(level));
	if (installed_module(ko) || !strcmp(level, "stapusr") || ((groups & GRP_STAPSYS) && !strcmp(level, "stapsys")))
		return;
	privilege_error("%s needs the group stapdev: as a member of %s you may run modules built with "
			"--privilege=stapusr, or installed in /lib/modules/RELEASE/systemtap/", ko,
			groups & GRP_STAPSYS ? "stapsys" : "stapusr");
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

/* tz_ctime(): our time zone's offset and name, for modules that take them. */
static int tz_params(const struct options *o, char *p, bool space)
{
	time_t now = time(NULL);
	struct tm tm;

	if (modinfo_has_param(o->ko_path, "_stp_tz_gmtoff") <= 0 || !localtime_r(&now, &tm))
		return 0;
	return sprintf(p, "%s_stp_tz_gmtoff=%ld _stp_tz_name=%.15s", space ? " " : "",
		       (long)tm.tm_gmtoff, tm.tm_zone && !strpbrk(tm.tm_zone, " \"") ? tm.tm_zone : "UTC");
}

/*
 * The module parameter string: "a=1 b=\"x y\"" (the kernel's parser
 * takes double quotes around values with spaces), plus _stp_bufsize=MB.
 */
static char *param_string(const struct options *o)
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
		const char *a = o->params[i], *eq = strchr(a, '=');

		if (getuid() != 0 && !strncmp(a, "_stp_", 5)) {
			fprintf(stderr, "ERROR: module parameter '%.*s' is staprun's own\n", (int)strcspn(a, "="), a);
			exit(1);
		}
		if (modinfo_has_param(o->ko_path, a) == 0) {
			fprintf(stderr, "ERROR: module %s has no parameter '%.*s' (not a global the script lets you set)\n",
				o->ko_path, (int)strcspn(a, "="), a);
			exit(1);
		}
		if (strchr(a, '"')) {
			fprintf(stderr, "ERROR: module parameter '%s': values cannot contain '\"'\n", a);
			exit(1);
		}
		if (eq && strpbrk(eq, " \t\n"))
			p += sprintf(p, "%s%.*s\"%s\"", i ? " " : "", (int)(eq + 1 - a), a, eq + 1);
		else
			p += sprintf(p, "%s%s", i ? " " : "", a);
	}
	if (o->bufsize_mb)
		p += sprintf(p, "%s_stp_bufsize=%s", *s ? " " : "", o->bufsize_mb);
	if (modinfo_has_param(o->ko_path, "_stp_uid") > 0)   /* --privilege: whose processes */
		p += sprintf(p, "%s_stp_uid=%u", *s ? " " : "", (unsigned)getuid());
	if (getuid() != 0 && modinfo_has_param(o->ko_path, "_stp_procfs_uid") > 0)   /* the caller's files */
		p += sprintf(p, "%s_stp_procfs_uid=%u _stp_procfs_gid=%u", *s ? " " : "", (unsigned)getuid(),
			     (unsigned)getgid());
	if (o->remote_id && modinfo_has_param(o->ko_path, "_stp_remote_id") > 0)
		p += sprintf(p, "%s_stp_remote_id=%s _stp_remote_uri=\"%s\"", *s ? " " : "", o->remote_id,
			     o->remote_uri);
	p += tz_params(o, p, *s != '\0');
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
	case EKEYREJECTED: return "module signature rejected";
	case EBUSY: return "module is busy (being loaded or unloaded)";
	case ENOMEM: return "out of memory (smaller -s?)";
	default: return strerror(err);
	}
}

/* -R: the module is loaded from memory as `name` (init_module) */
static int load_renamed(const struct options *o, const char *params, const char *old, const char *name)
{
	size_t len;
	void *image = modinfo_read_file(o->ko_path, &len);
	long rc;

	if (!image)
		return -1;
	if (modinfo_rename(image, len, old, name) < 0) {
		free(image);
		return -1;
	}
	rc = syscall(SYS_init_module, image, len, params);
	free(image);
	if (rc < 0) {
		fprintf(stderr, "ERROR: cannot load module %s as %s: %s\n", o->ko_path, name, load_error_hint(errno));
		return -1;
	}
	return 0;
}

/* finit_module, or init_module from memory where finit is missing. */
static int load_module(const struct options *o, const char *params)
{
	int fd = open(o->ko_path, O_RDONLY | O_CLOEXEC);
	long rc;

	if (fd < 0) {
		fprintf(stderr, "ERROR: cannot open module %s: %s\n", o->ko_path, strerror(errno));
		return -1;
	}
	rc = syscall(SYS_finit_module, fd, params, 0);
	if (rc < 0 && errno == ENOSYS) {
		size_t len;
		void *image = modinfo_read_file(o->ko_path, &len);

		if (image) {
			rc = syscall(SYS_init_module, image, len, params);
			free(image);
		}
	}
	close(fd);
	if (rc < 0) {
		fprintf(stderr, "ERROR: cannot load module %s: %s\n", o->ko_path, load_error_hint(errno));
		return -1;
	}
	return 0;
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

	if (env && *env)
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

/* Run stapio and return its exit status in shell terms. */
static int run_stapio(const struct options *o, const char *modname)
{
	const char *argv[24];
	const char *stapio = find_stapio();
	char ctl_arg[16];
	int ctl = -1;
	struct sigaction sa;
	int n = 0, status;

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
			return 1;
		}
		snprintf(ctl_arg, sizeof(ctl_arg), "%d", ctl);
		argv[n++] = "-F";
		argv[n++] = ctl_arg;
	}
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
		execv(stapio, (char **)argv);
		fprintf(stderr, "ERROR: cannot run %s: %s (set CSTAP_STAPIO?)\n", stapio, strerror(errno));
		_exit(127);
	}
	if (ctl >= 0)
		close(ctl);	/* stapio has it */
	while (waitpid(stapio_pid, &status, 0) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "ERROR: waitpid: %s\n", strerror(errno));
			return 1;
		}
	stapio_pid = 0;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	fprintf(stderr, "ERROR: stapio killed by signal %d\n", WTERMSIG(status));
	return 128 + WTERMSIG(status);
}

/* The name of a loaded cstap module: arg is its name, or its .ko file.
 * Exits with an error when no such module runs a session. */
static void loaded_module_name(const char *arg, char *name, size_t size)
{
	char path[128 + MODINFO_NAME_MAX];
	size_t len = strlen(arg);

	if (strchr(arg, '/') || (len > 3 && !strcmp(arg + len - 3, ".ko"))) {
		if (modinfo_module_name(arg, name, size) < 0)
			exit(1);
	} else if (len > STP_MODULE_NAME_MAX) {
		usage_error("module name '%s' is longer than %d characters, the kernel's limit", arg,
			    STP_MODULE_NAME_MAX);
	} else {
		snprintf(name, size, "%s", arg);
	}
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

int main(int argc, char **argv)
{
	struct options o = { 0 };
	char modname[MODINFO_NAME_MAX];
	char *params;
	int rc;

	parse_args(&o, argc, argv);
	if (o.remove) {
		if (getuid() != 0 && strcmp(o.ko_path, "*") == 0 && !(caller_groups() & GRP_STAPDEV))
			privilege_error("-d '*' is for root and stapdev");
		if (getuid() != 0 && strcmp(o.ko_path, "*") != 0) {
			loaded_module_name(o.ko_path, modname, sizeof(modname));
			check_attach_privilege(modname);
		}
		return remove_modules(&o);
	}
	if (o.attach) {
		loaded_module_name(o.ko_path, modname, sizeof(modname));
		check_attach_privilege(modname);
		rc = run_stapio(&o, modname);
	} else {
		o.ko_path = module_file(o.ko_path);
		if (modinfo_module_name(o.ko_path, modname, sizeof(modname)) < 0)
			return 1;
		check_load_privilege(o.ko_path);
		params = param_string(&o);
		if (!params) {
			fprintf(stderr, "ERROR: out of memory\n");
			return 1;
		}
		if (o.daemon)
			daemonize();
		if (o.rename) {	/* NAME_PID, cut to the kernel's limit */
			char old[MODINFO_NAME_MAX], pid[16];

			strcpy(old, modname);
			snprintf(pid, sizeof(pid), "_%d", (int)getpid());
			snprintf(modname, sizeof(modname), "%.*s%s", (int)(STP_MODULE_NAME_MAX - strlen(pid)), old, pid);
			if (o.verbose)
				fprintf(stderr, "staprun: loading %s as %s, parameters '%s'\n", o.ko_path, modname, params);
			if (load_renamed(&o, params, old, modname) < 0)
				return 1;
		} else {
			if (o.verbose)
				fprintf(stderr, "staprun: loading %s as %s, parameters '%s'\n", o.ko_path, modname, params);
			if (load_module(&o, params) < 0)
				return 1;
		}
		free(params);
		rc = run_stapio(&o, modname);
	}
	if (rc == STAPIO_EXIT_DETACHED)
		return 0;	/* the session goes on: the module stays */
	if (unload_module(modname, o.verbose) < 0 && rc == 0)
		rc = 1;
	return rc;
}
