/* main.c - stap: the five passes, in order.
 *
 *   1 parse        the user's script and the tapset library
 *   2 elaborate    resolve names and probe points, infer types
 *   3 translate    write the module's C source
 *   4 build        compile it into a kernel module with kbuild
 *   5 run          load and run it with staprun (here or in a QEMU guest)
 *
 * The module cache (cache/modcache.c) skips passes 1-4 for a run whose
 * inputs an earlier run had, and pass 4 for C built before.
 * -p N stops after pass N; -v reports each pass as SystemTap does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cache/modcache.h"
#include "diag.h"
#include "d/d_main.h"
#include "passes.h"
#include "translate/bpf/bpf.h"
#include "elaborate/listing.h"
#include "options.h"
#include "session.h"

struct pass_clock {
	double real;
	struct rusage ru;
};

static void clock_start(struct pass_clock *c)
{
	c->real = now_ms();
	getrusage(RUSAGE_SELF, &c->ru);
}

static long tv_ms(struct timeval a, struct timeval b)
{
	return (b.tv_sec - a.tv_sec) * 1000 + (b.tv_usec - a.tv_usec) / 1000;
}

/* "using Nvirt/Nres/Nshr/Ndata kb" from /proc/self/statm, as SystemTap prints */
static void mem_usage(char *buf, size_t n)
{
	unsigned long size = 0, res = 0, shr = 0, text, lib, data = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	long kb = sysconf(_SC_PAGESIZE) / 1024;

	if (f) {
		if (fscanf(f, "%lu %lu %lu %lu %lu %lu", &size, &res, &shr, &text, &lib, &data) != 6)
			size = res = shr = data = 0;
		fclose(f);
	}
	snprintf(buf, n, "%luvirt/%lures/%lushr/%ludata kb", size * kb, res * kb, shr * kb, data * kb);
}

/* "in Xusr/Ysys/Zreal ms." for the pass that started at c; children count
 * too, so pass 4's kbuild time shows up as SystemTap shows it. */
static void clock_report(const struct pass_clock *c, char *buf, size_t n)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	long usr = tv_ms(c->ru.ru_utime, self.ru_utime) + kids.ru_utime.tv_sec * 1000 + kids.ru_utime.tv_usec / 1000;
	long sys = tv_ms(c->ru.ru_stime, self.ru_stime) + kids.ru_stime.tv_sec * 1000 + kids.ru_stime.tv_usec / 1000;
	snprintf(buf, n, "in %ldusr/%ldsys/%ldreal ms.", usr, sys, (long)(now_ms() - c->real));
}

static int count_funcs_embeds(struct session *s, int *embeds)
{
	*embeds = s->embeds.len;
	for (int i = 0; i < s->funcs.len; i++)
		*embeds += s->funcs.items[i]->embedded != NULL;
	return s->funcs.len;
}

/* The -v line of each pass, in SystemTap's words. */
static void report_pass(struct session *s, int pass, const struct pass_clock *c)
{
	char mem[128], t[96];
	int embeds, nfuncs;

	if (s->verbose < 1)
		return;
	mem_usage(mem, sizeof(mem));
	clock_report(c, t, sizeof(t));
	switch (pass) {
	case 1:
		fprintf(stderr, "Pass 1: parsed user script and %d library scripts using %s, %s\n",
			s->library_files, mem, t);
		break;
	case 2:
		nfuncs = count_funcs_embeds(s, &embeds);
		fprintf(stderr, "Pass 2: analyzed script: %d probe%s, %d function%s, %d embed%s, %d global%s using %s, %s\n",
			s->probes.len, s->probes.len == 1 ? "" : "s", nfuncs, nfuncs == 1 ? "" : "s",
			embeds, embeds == 1 ? "" : "s", s->globals.len, s->globals.len == 1 ? "" : "s", mem, t);
		break;
	case 3:
		fprintf(stderr, "Pass 3: translated to C into \"%s\" using %s, %s\n", s->c_file, mem, t);
		break;
	case 4:
		fprintf(stderr, "Pass 4: compiled C into \"%s\" %s\n", s->ko_file, t);
		break;
	case 5:
		fprintf(stderr, "Pass 5: run completed %s\n", t);
		break;
	}
}

static int run_pass(struct session *s, int pass, int (*fn)(struct session *))
{
	struct pass_clock c;
	int rc;

	if (pass == 5 && s->verbose)
		fprintf(stderr, "Pass 5: starting run.\n");
	clock_start(&c);
	rc = fn(s);
	if (rc && pass < 5) {
		fprintf(stderr, "Pass %d: %s failed.  [man error::pass%d]\n", pass,
			(const char *[]){ "", "parse", "analysis", "translation", "compilation", "run" }[pass], pass);
		return rc;
	}
	report_pass(s, pass, &c);
	return rc;
}

/* --runtime=bpf: pass 2, then the script lowered to BPF, so that what BPF
 * cannot do is refused in pass 2 */
static int pass2_elaborate_bpf(struct session *s)
{
	int rc = pass2_elaborate(s);

	if (rc || (s->bpf_unit = bpf_lower(s)))
		return rc;
	if (s->runtime_auto)   /* BPF because this host loads no modules */
		fprintf(stderr, "stap: this kernel loads no modules, and the script needs the module runtime: "
			"--runtime=kernel runs it in a QEMU guest of an installed kernel\n");
	return 1;
}

/* build() stopped the run early, as asked (-p1..-p3, -l, --dump-*) */
#define STOPPED (-1)

/* Passes 1-4: 0 with the module in s->ko_file, STOPPED, or the failing
 * pass's status. The module cache skips what an earlier run did. */
static int build(struct session *s)
{
	int rc;

	/* the module of an earlier run with the same inputs skips passes 1-4 */
	if (modcache_lookup(s))
		return deliver_module(s) || sign_module(s);
	if ((rc = run_pass(s, 1, pass1_parse)))
		return rc;
	if (s->dump)
		return (rc = dump_lists(s)) ? rc : STOPPED;
	if (s->last_pass == 1)
		return print_pass1(s), STOPPED;
	if ((rc = run_pass(s, 2, s->runtime_bpf ? pass2_elaborate_bpf : pass2_elaborate)))
		return rc;
	if (s->list_mode)
		return (rc = list_probe_points(s)) ? rc : STOPPED;
	if (s->last_pass == 2)
		return print_pass2(s), STOPPED;
	if ((rc = run_pass(s, 3, pass3_translate)))
		return rc;
	if (s->last_pass == 3)
		return STOPPED;
	if (s->runtime_bpf) {   /* the bundle is the product: no pass 4 */
		s->ko_file = s->c_file;
		return deliver_module(s);
	}
	/* one built from the same C skips pass 4 */
	if (modcache_lookup_c(s))
		rc = deliver_module(s);
	else
		rc = run_pass(s, 4, pass4_build);
	if (rc == 0)
		modcache_store(s);
	return rc ? rc : sign_module(s);
}

/* stap's command line, passes 1-5; before_run (when given) is told once
 * passes 1-4 succeeded and pass 5 starts (dtrace's "matched N probes") */
int stap_run(int argc, char **argv, void (*before_run)(struct session *, void *), void *arg)
{
	struct session s;
	int rc;

	session_init(&s);
	if ((rc = parse_options(&s, argc, argv)) != 0)
		return rc < 0 ? 0 : rc;

	/* --remote=ssh://HOST: passes 1-4 once per kernel the hosts run, then
	 * pass 5 on every host at once */
	if (s.ssh_remotes.len && s.last_pass == 5 && !s.dump && !s.list_mode)
		return pass5_ssh(&s, build);

	rc = build(&s);
	if (rc || s.last_pass == 4)
		return cleanup_session(&s), rc == STOPPED ? 0 : rc;
	if (before_run)
		before_run(&s, arg);
	rc = run_pass(&s, 5, pass5_run);
	cleanup_session(&s);
	return rc;
}

/* dtrace -e: passes 1-4 for their errors alone, the module neither
 * copied to the current directory nor named on stdout */
int stap_compile_only(int argc, char **argv)
{
	struct session s;
	int rc;

	session_init(&s);
	if ((rc = parse_options(&s, argc, argv)) != 0)
		return rc < 0 ? 0 : rc;
	s.last_pass = 4;
	s.module_stays = true;
	rc = build(&s);
	cleanup_session(&s);
	return rc == STOPPED ? 0 : rc;
}

/* run as dtrace (or stap --dtrace ...): DTrace's command line and D */
static bool dtrace_mode(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');

	base = base ? base + 1 : argv[0];
	return !strcmp(base, "dtrace") || (argc > 1 && !strcmp(argv[1], "--dtrace"));
}

int main(int argc, char **argv)
{
	if (dtrace_mode(argc, argv)) {
		if (argc > 1 && !strcmp(argv[1], "--dtrace")) {
			argv[1] = argv[0];
			return dtrace_main(argc - 1, argv + 1);
		}
		return dtrace_main(argc, argv);
	}
	return stap_run(argc, argv, NULL, NULL);
}
