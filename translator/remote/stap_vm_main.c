/* stap_vm_main.c - stap-vm: run a command, or a batch of jobs, in the QEMU
 * guest that stap's pass 5 uses (see qemu.h). For users who want to
 * run staprun on a module by hand, and for the test suite.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "qemu.h"
#include "target/releases.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_VM 125   /* stap-vm itself or the guest failed (like timeout(1)) */

static const char usage_text[] =
	"usage: stap-vm [OPTIONS] [--] CMD [ARGS...]      run CMD in the guest, its stdout/stderr\n"
	"                                                 streamed here; Ctrl-C is forwarded once\n"
	"       stap-vm [OPTIONS] -b JOBFILE -O OUTDIR    run many jobs in one boot\n"
	"       stap-vm --default-release                 print the default kernel release\n"
	"       stap-vm --releases                        print every bootable release, default first\n"
	"options:\n"
	"  -r REL           kernel release (default: stap-vm --default-release)\n"
	"  -k FILE          kernel image (default /boot/vmlinuz-REL)\n"
	"  -s CPUS          guest CPUs (default 1; more use single-threaded TCG)\n"
	"  -m MB            guest memory (default 512, or 256 + 3 x the files copied in)\n"
	"  -t SECS          time limit for the whole guest (default 60 + 60 per job; 0: none)\n"
	"  -f HOST[:GUEST]  copy HOST into the guest at GUEST (default: HOST's absolute\n"
	"                   path); programs get their shared libraries; repeatable\n"
	"  -M MODULE        load MODULE of the guest kernel (from /lib/modules/REL, with\n"
	"                   its dependencies) before the command or jobs; repeatable\n"
	"  -p HOST:GUEST    forward TCP port HOST of 127.0.0.1 here to port GUEST of the\n"
	"                   guest (user networking; the guest is 10.0.2.15); repeatable\n"
	"  -l FILE          keep the guest's kernel console log in FILE\n"
	"  -a ARGS          extra kernel command line arguments\n"
	"  -v               progress and timings on stderr (-vv: also the guest console)\n"
	"JOBFILE: one job a line, NAME<TAB>TIMEOUT-SECS<TAB>SHELL-COMMAND; blank lines and\n"
	"  # comments ignored. Results: OUTDIR/NAME.out, NAME.err (byte-exact), NAME.rc,\n  NAME.secs (the job's seconds in the guest, about).\n"
	"In the guest: staprun at /usr/bin/staprun, stapio at /usr/libexec/cstap/stapio;\n"
	"  they come from $CSTAP_STAPRUN/$CSTAP_STAPIO, else the build tree, else the\n"
	"  installed ones.\n"
	"exit status: CMD's; with -b 0 if the guest finished (whatever the jobs did);\n"
	"  125 if stap-vm or the guest failed, also when the guest kernel's console\n"
	"  reported trouble (BUG, Oops, WARNING, RCU stall, lockup).\n";

static __attribute__((noreturn)) void usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "stap-vm: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(stap-vm -h for help)\n");
	exit(EXIT_VM);
}

static int parse_int(const char *s, const char *what, int min)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);

	if (errno || end == s || *end || v < min || v > INT_MAX)
		usage_error(what, s);
	return (int)v;
}

/* JOBFILE lines: NAME<TAB>TIMEOUT<TAB>CMD (the command may hold tabs). */
static int read_jobs(const char *path, struct vm_job **jobs)
{
	char *text = read_file(path, NULL);
	VEC(struct vm_job) v = { 0 };
	int lineno = 0;

	if (!text) {
		fprintf(stderr, "stap-vm: cannot read %s: %s\n", path, strerror(errno));
		exit(EXIT_VM);
	}
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		if (line[strspn(line, " \t\r")] == 0 || line[strspn(line, " \t")] == '#')
			continue;
		char *t1 = strchr(line, '\t');
		char *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (!t2) {
			fprintf(stderr, "stap-vm: %s:%d: expected NAME<TAB>TIMEOUT<TAB>CMD\n", path, lineno);
			exit(EXIT_VM);
		}
		*t1 = *t2 = 0;
		struct vm_job j = { .name = line, .cmd = t2 + 1 };
		char *end;
		long t = strtol(t1 + 1, &end, 10);
		if (end == t1 + 1 || *end || t <= 0 || t > 86400) {
			fprintf(stderr, "stap-vm: %s:%d: bad timeout '%s'\n", path, lineno, t1 + 1);
			exit(EXIT_VM);
		}
		j.timeout_s = (int)t;
		vec_push(&v, j);
	}
	*jobs = v.items;
	return v.len;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "default-release", no_argument, NULL, 'D' },
		{ "releases", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct vm_config cfg = { 0 };
	const char *jobfile = NULL, *outdir = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "+r:k:s:m:t:f:M:p:l:a:b:O:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': cfg.release = optarg; break;
		case 'k': cfg.kernel = optarg; break;
		case 's': cfg.cpus = parse_int(optarg, "bad CPU count '%s'", 1); break;
		case 'm': cfg.mem_mb = parse_int(optarg, "bad memory size '%s'", 64); break;
		case 't':
			cfg.timeout_s = parse_int(optarg, "bad time limit '%s'", 0);
			if (cfg.timeout_s == 0)
				cfg.timeout_s = -1;   /* no limit */
			break;
		case 'M': vec_push(&cfg.modules, optarg); break;
		case 'p': {
			unsigned h, g;
			char end;
			if (sscanf(optarg, "%u:%u%c", &h, &g, &end) != 2 || !h || !g || h > 65535 || g > 65535)
				usage_error("-p wants HOSTPORT:GUESTPORT, not '%s'", optarg);
			vec_push(&cfg.forwards, optarg);
			break;
		}
		case 'l': cfg.console_log = optarg; break;
		case 'a': cfg.append = optarg; break;
		case 'b': jobfile = optarg; break;
		case 'O': outdir = optarg; break;
		case 'v': cfg.verbose++; break;
		case 'f': {
			struct vm_file f = { .host = optarg };
			char *colon = strchr(optarg, ':');
			if (colon) {
				*colon = 0;
				f.guest = colon + 1;
				if (f.guest[0] != '/')
					usage_error("-f: the guest path must be absolute: '%s'", f.guest);
			}
			vec_push(&cfg.files, f);
			break;
		}
		case 'R': {
			strvec v = releases_bootable();
			for (int i = 0; i < v.len; i++)
				printf("%s\n", v.items[i]);
			return v.len ? 0 : 1;
		}
		case 'D': {
			const char *rel = releases_default();
			if (!rel) {
				fprintf(stderr, "stap-vm: no kernel found: need /boot/vmlinuz-REL with /lib/modules/REL/build\n");
				return 1;
			}
			printf("%s\n", rel);
			return 0;
		}
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			usage_error("%s", "bad option");
		}
	}
	if (jobfile) {
		if (!outdir)
			usage_error("%s", "-b JOBFILE needs -O OUTDIR");
		if (optind < argc)
			usage_error("unexpected argument '%s' with -b", argv[optind]);
		struct vm_job *jobs;
		int n = read_jobs(jobfile, &jobs);
		if (n == 0)
			usage_error("no jobs in %s", jobfile);
		return vm_run_batch(&cfg, jobs, n, outdir) == 0 ? 0 : EXIT_VM;
	}
	if (outdir)
		usage_error("%s", "-O needs -b JOBFILE");
	if (optind >= argc)
		usage_error("%s", "no command (stap-vm [OPTIONS] -- CMD [ARGS...])");
	int rc = vm_run_interactive(&cfg, argv + optind);
	return rc < 0 ? EXIT_VM : rc;
}
