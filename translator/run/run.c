/* run.c - pass 5: run the module with staprun, on this kernel or in a QEMU
 * guest booting the target kernel (--remote=qemu, or automatically when this
 * kernel cannot load modules or is not the target).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diag.h"
#include "env.h"
#include "passes.h"
#include "options.h"
#include "probes/provider.h"
#include "remote/qemu.h"
#include "spawn.h"
#include "target/kernel.h"
#include "target/sysroot.h"
#include "target/uimage.h"

/* name's file in $PATH, or name itself when none is there */
static const char *path_lookup(const char *name)
{
	const char *path = getenv("PATH");

	for (const char *d = path; d && *d; d += strcspn(d, ":") + (d[strcspn(d, ":")] == ':')) {
		size_t n = strcspn(d, ":");
		char *p = xasprintf("%.*s/%s", (int)(n ? n : 1), n ? d : ".", name);
		if (access(p, X_OK) == 0)
			return p;
		free(p);
	}
	return name;
}

/* staprun (or stapbpf) of the build tree, else the installed one beside
 * stap or on PATH (a guest needs its file, not a name to exec) */
static const char *find_staprun(const struct session *s)
{
	const char *e = s->runtime_bpf ? NULL : env_or(ENV_CSTAP_STAPRUN, NULL);
	const char *name = s->runtime_bpf ? "stapbpf" : "staprun";

	if (e)
		return e;
	/* the build tree's staprun/staprun, stapbpf/stapbpf; installed, beside stap */
	static const char *const paths[] = { "../%1$s/%1$s", "%1$s", NULL };
	char *p = beside_self(name, false, paths);

	return p ? p : path_lookup(name);
}

/* -c CMD as the guest runs it. Its program runs from its absolute host
 * path, which the guest gets (*file), when the command names it by a path
 * (./prog) or a process probe is on it (-c ls with process("ls") probes:
 * the host's /usr/bin/ls, not the guest's busybox applet). */
static const char *guest_cmd(struct session *s, const strvec *ufiles, char **file)
{
	const char *c = s->cmd + strspn(s->cmd, " \t");
	char *word = xstrndup(c, strcspn(c, " \t;|&<>")), *why = NULL;
	char *path = uimage_resolve(s, word, &why);
	bool use = path && strchr(word, '/');

	for (int i = 0; path && !use && i < ufiles->len; i++)
		use = !strcmp(ufiles->items[i], path);
	const char *cmd = use ? xasprintf("%s%s", path, c + strlen(word)) : s->cmd;
	*file = use ? path : NULL;
	if (!use)
		free(path);
	free(word);
	free(why);
	return cmd;
}

/* (--runtime=bpf: stapbpf, which takes the options of staprun's but -S,
 * -F and -G: those its bundle has or it has no use for; its -w leaves
 * unsaid a -c command's failure, as staprun's) */
void staprun_args(struct session *s, strvec *argv, const char *ko, const char *cmd, bool remote)
{
	bool bpf = s->runtime_bpf;

	vec_push(argv, (char *)(bpf ? "stapbpf" : "staprun"));
	for (int i = 1; i < s->verbose; i++)
		vec_push(argv, (char *)"-v");
	if (s->suppress_warnings)
		vec_push(argv, (char *)"-w");
	if (s->output_file && !remote) {
		vec_push(argv, (char *)"-o");
		vec_push(argv, (char *)s->output_file);
		if (s->rotate && !bpf) {
			vec_push(argv, (char *)"-S");
			vec_push(argv, (char *)s->rotate);
		}
	}
	if (s->flight && !bpf)   /* SystemTap's flight recorder: detached, or a daemon writing -o */
		vec_push(argv, (char *)(s->output_file ? "-D" : "-L"));
	if (cmd) {
		vec_push(argv, (char *)"-c");
		vec_push(argv, (char *)cmd);
	}
	if (s->target_pid) {
		vec_push(argv, (char *)"-x");
		vec_push(argv, xasprintf("%ld", s->target_pid));
	}
	if (s->bufsize_mb) {
		vec_push(argv, (char *)"-s");
		vec_push(argv, xasprintf("%d", s->bufsize_mb));
	}
	vec_push(argv, (char *)ko);
	for (int i = 0; i < s->globals_set.len && !bpf; i++)
		vec_push(argv, s->globals_set.items[i]);
	vec_push(argv, NULL);
}

const char *staprun_here_only(const struct session *s, const char **what, const char **use)
{
	if (s->flight)
		return *what = "flight recorder", *use = "-L or -D", "-F";
	if (s->rotate)
		return *what = "output file switching", *use = "-o FILE -S", "-S";
	if (s->bulk)
		return *what = "per-CPU files", *use = "[-o FILE]", "-b";
	return NULL;
}

/* -vv: the staprun command, as SystemTap shows it ("Running ...") */
static void show_command(struct session *s, char *const argv[])
{
	if (s->verbose < 2)
		return;
	fprintf(stderr, "Running");
	for (int i = 0; argv[i]; i++)
		fprintf(stderr, " %s", argv[i]);
	fprintf(stderr, "\n");
}

static bool use_guest(struct session *s)
{
	const struct target_kernel *k = target_kernel(s);

	if (s->remote)
		return true;
	if (s->runtime_auto)
		fprintf(stderr, "stap: this kernel loads no modules; running the script with the BPF runtime "
			"(--runtime=kernel runs a module in a QEMU guest)\n");
	if (!k->host_loads_modules && !s->runtime_bpf) {
		if (!s->no_guest_notice)
			fprintf(stderr, "stap: this kernel cannot load modules; running in a QEMU guest (kernel %s)\n",
				k->release);
		return true;
	}
	if (k->host_release && !k->running) {
		if (!s->no_guest_notice)
			fprintf(stderr, "stap: %s for kernel %s, not this one (%s); running in a QEMU guest\n",
				s->runtime_bpf ? "programs made" : "module built", k->release, k->host_release);
		return true;
	}
	return false;
}

/* -o FILE with a guest: the guest's stdout lands in FILE on this host. */
static int redirect_stdout(struct session *s)
{
	if (!s->output_file)
		return 0;
	if (!freopen(s->output_file, "w", stdout)) {
		diag(s, R_RUN, (struct srcpos){0}, "cannot open output file '%s'", s->output_file);
		return 1;
	}
	return 0;
}

void run_guest_inputs(struct session *s, strvec *mods, strvec *files)
{
	if (s->cache_hit) {   /* as the run that built the module found them */
		for (int i = 0; i < s->run_modules.len; i++)
			vec_push(mods, s->run_modules.items[i]);
		for (int i = 0; i < s->run_files.len; i++)
			vec_push(files, s->run_files.items[i]);
		return;
	}
	for (int i = 0; providers[i]; i++)
		if (providers[i]->guest_modules && provider_probes(s, providers[i]))
			providers[i]->guest_modules(s, mods);
	const strvec *ufiles = uimage_files(s);
	for (int i = 0; i < ufiles->len; i++)
		vec_push(files, ufiles->items[i]);
}

int pass5_run(struct session *s)
{
	strvec argv = { 0 };

	if (!use_guest(s)) {
		staprun_args(s, &argv, s->ko_file, s->cmd, false);
		argv.items[0] = (char *)find_staprun(s);
		show_command(s, argv.items);
		int rc = spawn_wait(argv.items, NULL, NULL);
		if (rc < 0)
			diag(s, R_RUN, (struct srcpos){0}, "cannot run staprun");
		return rc < 0 ? 1 : rc;
	}

	/* the guest powers off after the run, and its files stay in it */
	const char *what, *use;
	const char *opt = staprun_here_only(s, &what, &use);
	if (opt) {
		diag(s, O_USAGE, (struct srcpos){0}, "%s (%s) needs a host that loads modules: the QEMU guest powers "
		     "off after the run (build with -p4 and use staprun %s on the target host)", opt, what, use);
		return 1;
	}
	/* no time limit: a script may run until exit() or Ctrl-C */
	struct vm_config cfg = { .release = target_kernel(s)->release, .root = s->sysroot, .verbose = s->verbose > 1 ? s->verbose - 1 : 0, .timeout_s = -1 };
	char *guest_ko = xasprintf("/ko/%s.%s", s->module_name, s->runtime_bpf ? "bo" : "ko");
	struct vm_file f = { .host = s->ko_file, .guest = guest_ko };
	vec_push(&cfg.files, f);
	if (s->runtime_bpf) {   /* stapbpf is not in the guest's base archive */
		struct vm_file b = { .host = find_staprun(s), .guest = "/bin/stapbpf" };
		if (!strchr(b.host, '/')) {
			diag(s, R_RUN, (struct srcpos){0}, "cannot find stapbpf for the guest");
			return 1;
		}
		vec_push(&cfg.files, b);
	}
	/* the guest boots with no modules: load those the probes are in; and
	 * the files process probes are on, at the same paths (programs with
	 * their shared libraries) */
	strvec mods = { 0 }, ufiles = { 0 };
	run_guest_inputs(s, &mods, &ufiles);
	for (int i = 0; i < mods.len; i++)
		vec_push(&cfg.modules, mods.items[i]);
	for (int i = 0; i < ufiles.len; i++) {   /* the target's path; read under --sysroot */
		struct vm_file uf = { .host = sysroot_host(s, ufiles.items[i]), .guest = ufiles.items[i] };
		vec_push(&cfg.files, uf);
	}
	char *cmd_file = NULL;
	const char *cmd = s->cmd ? guest_cmd(s, &ufiles, &cmd_file) : NULL;
	if (cmd_file) {
		struct vm_file cf = { .host = sysroot_host(s, cmd_file), .guest = cmd_file };
		vec_push(&cfg.files, cf);
	}
	staprun_args(s, &argv, guest_ko, cmd, true);
	show_command(s, argv.items);
	if (redirect_stdout(s))
		return 1;
	int rc = vm_run_interactive(&cfg, argv.items);
	fflush(stdout);
	if (rc < 0) {
		diag(s, R_GUEST, (struct srcpos){0}, "the QEMU guest did not finish the run");
		return 1;
	}
	return rc;
}
