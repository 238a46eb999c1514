/* staprun: load a cstap module, run stapio for the session, unload.
 *
 * usage: staprun [-v] [-o FILE] [-c CMD] [-x PID] [-s MB] [-T SECS] MODULE.ko [name=value ...]
 *
 * name=value arguments become the module parameter string (settable script
 * globals); -s MB sizes the module's output buffer. The exit status is
 * stapio's (1 if the script had run-time errors).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "modinfo.h"

#ifndef PKGLIBEXECDIR
#define PKGLIBEXECDIR "/usr/local/libexec/cstap"
#endif

struct options {
	int verbose;
	const char *out_path, *cmd, *target, *bufsize_mb, *timeout;
	const char *ko_path;
	char **params;
	int nparams;
};

static pid_t stapio_pid;

static void usage(void)
{
	fprintf(stderr,
		"usage: staprun [-v] [-o FILE] [-c CMD] [-x PID] [-s MB] [-T SECS] MODULE.ko [name=value ...]\n");
	exit(2);
}

/* A positive integer option value, or exit with a message. */
static const char *check_number(const char *opt, const char *v)
{
	char *end;
	long n = strtol(v, &end, 10);

	if (*v == '\0' || *end != '\0' || n <= 0 || n > INT_MAX) {
		fprintf(stderr, "ERROR: staprun %s wants a positive number, not '%s'\n", opt, v);
		exit(2);
	}
	return v;
}

static void parse_args(struct options *o, int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "+vo:c:x:s:T:h")) != -1) {
		switch (opt) {
		case 'v': o->verbose++; break;
		case 'o': o->out_path = optarg; break;
		case 'c': o->cmd = optarg; break;
		case 'x': o->target = check_number("-x", optarg); break;
		case 's': o->bufsize_mb = check_number("-s", optarg); break;
		case 'T': o->timeout = check_number("-T", optarg); break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	o->ko_path = argv[optind];
	o->params = argv + optind + 1;
	o->nparams = argc - optind - 1;
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
	size_t len = 64 + 64;	/* _stp_bufsize, then the time zone */
	char *s, *p;
	int i;

	for (i = 0; i < o->nparams; i++)
		len += strlen(o->params[i]) + 4;
	s = p = malloc(len);
	if (!s)
		return NULL;
	*p = '\0';
	for (i = 0; i < o->nparams; i++) {
		const char *a = o->params[i], *eq = strchr(a, '=');

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
	const char *argv[20];
	const char *stapio = find_stapio();
	struct sigaction sa;
	int n = 0, status;

	argv[n++] = "stapio";
	if (o->verbose)
		argv[n++] = "-v";
	if (o->out_path) { argv[n++] = "-o"; argv[n++] = o->out_path; }
	if (o->cmd) { argv[n++] = "-c"; argv[n++] = o->cmd; }
	if (o->target) { argv[n++] = "-x"; argv[n++] = o->target; }
	if (o->timeout) { argv[n++] = "-T"; argv[n++] = o->timeout; }
	if (o->bufsize_mb) { argv[n++] = "-s"; argv[n++] = o->bufsize_mb; }
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
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		execv(stapio, (char **)argv);
		fprintf(stderr, "ERROR: cannot run %s: %s (set CSTAP_STAPIO?)\n", stapio, strerror(errno));
		_exit(127);
	}
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

int main(int argc, char **argv)
{
	struct options o = { 0 };
	char modname[MODINFO_NAME_MAX];
	char *params;
	int rc;

	parse_args(&o, argc, argv);
	if (modinfo_module_name(o.ko_path, modname, sizeof(modname)) < 0)
		return 1;
	params = param_string(&o);
	if (!params) {
		fprintf(stderr, "ERROR: out of memory\n");
		return 1;
	}
	if (o.verbose)
		fprintf(stderr, "staprun: loading %s as %s, parameters '%s'\n", o.ko_path, modname, params);
	if (load_module(&o, params) < 0)
		return 1;
	rc = run_stapio(&o, modname);
	if (unload_module(modname, o.verbose) < 0 && rc == 0)
		rc = 1;
	free(params);
	return rc;
}
