/* qemu.c - the QEMU runner's entry points: pick the kernel, find
 * staprun/stapio, assemble the per-run initramfs and boot (boot.c).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "spawn.h"
#include "target/releases.h"

#ifndef PKGLIBEXECDIR
#define PKGLIBEXECDIR "/usr/local/libexec/cstap"
#endif

void vm_msg(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", program_invocation_short_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* staprun or stapio: the configured path, $ENV, the build tree, beside
 * stap, the installed location; NULL (with a warning) if none exists. */
static const char *find_tool(const char *given, enum env_var env, const char *name,
			     const char *installed)
{
	const char *e = env_or(env, NULL);

	if (given)
		return given;
	if (e)
		return e;
	/* the build tree's; installed beside stap (its libexec too: a tree
	 * moved or installed under DESTDIR) */
	static const char *const paths[] = { "../staprun/%1$s", "%1$s", "../libexec/cstap/%1$s", NULL };
	char *p = beside_self(name, false, paths);
	if (p)
		return p;
	char *inst = installed ? xstrdup(installed) : NULL;
	if (inst && access(inst, X_OK) == 0)
		return inst;
	vm_msg("warning: %s not found (set $%s); the guest will have none", name, env_name(env));
	free(inst);
	return NULL;
}

/* 512 MiB, or more when the files are big: each is in the initramfs, and a
 * module is read again by finit_module and then laid out (a module with
 * 67,000 probes is 190 MiB): 256 MiB plus three times the files. */
static int default_memory(const struct vm_config *c)
{
	long long bytes = 0;
	struct stat st;

	for (int i = 0; i < c->files.len; i++)
		if (stat(c->files.items[i].host, &st) == 0)
			bytes += st.st_size;
	long long mb = 256 + 3 * (bytes >> 20);
	return mb < 512 ? 512 : mb > 16384 ? 16384 : (int)mb;
}

/* Fill in the defaults of a copy of the caller's config; -1 after a message. */
static int resolve(struct vm_config *c, int default_timeout)
{
	if (!c->release && !c->kernel) {
		c->release = releases_default();
		if (!c->release) {
			vm_msg("no kernel to boot: need /boot/vmlinuz-REL with /lib/modules/REL/build");
			return -1;
		}
	}
	if (!c->root)
		c->root = "";
	if (!c->kernel)
		c->kernel = xasprintf("%s/boot/vmlinuz-%s", c->root, c->release);
	if (access(c->kernel, R_OK) != 0) {
		vm_msg("cannot read the guest kernel %s: %s", c->kernel, strerror(errno));
		return -1;
	}
	if (c->cpus <= 0)
		c->cpus = 1;
	if (c->mem_mb <= 0)
		c->mem_mb = default_memory(c);
	if (c->timeout_s == 0)
		c->timeout_s = default_timeout;
	c->staprun = find_tool(c->staprun, ENV_CSTAP_STAPRUN, "staprun", NULL);
	c->stapio = find_tool(c->stapio, ENV_CSTAP_STAPIO, "stapio", PKGLIBEXECDIR "/stapio");
	return 0;
}

/* The per-run archive: /init, the requested files (and batch job scripts). */
static int run_archive(struct cpio *a, const struct vm_config *c, const char *init,
		       const struct vm_job *jobs, int njobs)
{
	cpio_file(a, "/init", 0755, init, strlen(init));
	for (int i = 0; i < c->files.len; i++) {
		const struct vm_file *f = &c->files.items[i];
		char *guest = f->guest ? xstrdup(f->guest) : realpath(f->host, NULL);
		if (!guest || guest[0] != '/' || !guest[1]) {
			vm_msg("guest path of %s must be absolute: %s", f->host, guest ? guest : strerror(errno));
			free(guest);
			return -1;
		}
		int rc = vm_cpio_host_file(a, f->host, guest, c->verbose);
		free(guest);
		if (rc < 0)
			return -1;
	}
	for (int i = 0; i < njobs; i++) {
		char *p = xasprintf("/cstap/jobs/%d.sh", i + 1);
		char *body = xasprintf("%s\n", jobs[i].cmd);
		cpio_file(a, p, 0644, body, strlen(body));
		free(p);
		free(body);
	}
	cpio_finish(a);
	return 0;
}

/* Build the initrd in a temp dir, boot, clean up. */
static int run_vm(struct vm_config *c, const char *init, const struct vm_job *jobs, int njobs,
		  const char *outdir, int *status)
{
	char *work = xasprintf("%s/cstap-vm.XXXXXX", env_or(ENV_TMPDIR, "/tmp"));
	struct cpio a;
	int ret = -1;

	if (!mkdtemp(work)) {
		vm_msg("cannot create a temp dir %s: %s", work, strerror(errno));
		free(work);
		return -1;
	}
	if (vm_signals_catch() < 0) {
		vm_msg("pipe: %s", strerror(errno));
		rmdir(work);
		free(work);
		return -1;
	}
	char *initrd = xasprintf("%s/initrd.cpio", work);
	double t0 = now_ms();
	cpio_init(&a, 1u << 20);
	if (run_archive(&a, c, init, jobs, njobs) == 0 &&
	    vm_write_initrd(initrd, c->staprun, c->stapio, &a, c->verbose) == 0) {
		if (c->verbose)
			vm_msg("initrd ready in %.0f ms (kernel %s)", now_ms() - t0, c->kernel);
		ret = vm_boot(c, initrd, jobs, njobs, outdir, status);
	}
	cpio_release(&a);
	unlink(initrd);
	rmdir(work);
	vm_signals_restore();
	free(initrd);
	free(work);
	return ret;
}

int vm_run_interactive(struct vm_config *cfg, char *const argv[])
{
	struct vm_config c = *cfg;
	int status = -1;

	if (!argv || !argv[0]) {
		vm_msg("no command to run in the guest");
		return -1;
	}
	if (resolve(&c, 120) < 0)
		return -1;
	char *prelude = vm_modules_prelude(&c);
	if (!prelude)
		return -1;
	char *init = vm_init_interactive(argv, prelude);
	free(prelude);
	int ret = run_vm(&c, init, NULL, 0, NULL, &status);
	free(init);
	return ret < 0 ? -1 : status;
}

static bool valid_name(const char *s)
{
	if (!s || !*s || *s == '.')
		return false;
	for (; *s; s++)
		if (!(*s == '_' || *s == '-' || *s == '.' || (*s >= '0' && *s <= '9') ||
		      (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
			return false;
	return true;
}

/* mkdir -p */
static int make_dirs(const char *path)
{
	char *p = xstrdup(path);
	int rc = 0;

	for (char *s = p + 1;; s++) {
		if (*s == '/' || !*s) {
			char save = *s;
			*s = 0;
			if (mkdir(p, 0755) < 0 && errno != EEXIST)
				rc = -1;
			*s = save;
			if (!save)
				break;
		}
	}
	free(p);
	return rc == 0 && is_dir(path) ? 0 : -1;
}

int vm_run_batch(struct vm_config *cfg, const struct vm_job *jobs, int njobs, const char *outdir)
{
	struct vm_config c = *cfg;
	int timeout = 60;

	for (int i = 0; i < njobs; i++) {
		if (!valid_name(jobs[i].name)) {
			vm_msg("bad job name '%s' (letters, digits, _ . - only)", jobs[i].name ? jobs[i].name : "");
			return -1;
		}
		for (int k = 0; k < i; k++)
			if (!strcmp(jobs[k].name, jobs[i].name)) {
				vm_msg("job name '%s' used twice", jobs[i].name);
				return -1;
			}
		if (!jobs[i].cmd) {
			vm_msg("job %s has no command", jobs[i].name);
			return -1;
		}
		int t = jobs[i].timeout_s > 0 ? jobs[i].timeout_s : 60;
		timeout += t + 10 > 60 ? t + 10 : 60;
	}
	if (make_dirs(outdir) < 0) {
		vm_msg("cannot create the output directory %s: %s", outdir, strerror(errno));
		return -1;
	}
	/* stale results of an earlier run must not pass for this run's */
	static const char *const ext[] = { "out", "err", "rc" };
	for (int i = 0; i < njobs; i++)
		for (int k = 0; k < 3; k++) {
			char *p = xasprintf("%s/%s.%s", outdir, jobs[i].name, ext[k]);
			unlink(p);
			free(p);
		}
	if (resolve(&c, timeout) < 0)
		return -1;
	char *prelude = vm_modules_prelude(&c);
	if (!prelude)
		return -1;
	char *init = vm_init_batch(jobs, njobs, prelude);
	free(prelude);
	int ret = run_vm(&c, init, jobs, njobs, outdir, NULL);
	free(init);
	return ret;
}
