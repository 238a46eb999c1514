/* kfeatures.c - what the target kernel's headers offer, found by compiling.
 *
 * The runtime's differences between kernels (runtime/kcompat.h) are decided
 * by STP_HAVE_* macros, never by version numbers alone: each macro names a
 * small test that compiles against the kernel's headers exactly when the
 * kernel has the feature (a backport counts; a version number would miss it).
 *
 * All the tests go into one file, one function each, compiled once with
 * -fsyntax-only: gcc reports the errors of every function, and a test with
 * no error on its lines passed. The compiler is run directly with kbuild's
 * include paths (fast); if its verdicts cannot be trusted (a control test
 * that must compile did not, or a sentinel that must not did), kbuild
 * compiles the file instead. The resulting header is cached per kernel build tree
 * (its config, Makefile and compiler) and per test text, so only the first
 * build for a kernel pays for it.
 */
#include "kfeatures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "env.h"
#include "recipe.h"
#include "spawn.h"
#include "util.h"

struct kfeature {
	const char *macro;     /* defined to 1 when body compiles */
	const char *header;    /* what body needs */
	const char *body;      /* statements of a function */
};

/* Keep in step with runtime/kcompat.h, which says what each one changes. */
static const struct kfeature features[] = {
	{ "STP_HAVE_NOFAULT_READS", "linux/uaccess.h",
	  "char b; (void)copy_from_kernel_nofault(&b, (const void *)0, 1);"
	  " (void)copy_from_user_nofault(&b, (const void __user *)0, 1);" },
	{ "STP_HAVE_PROC_OPS", "linux/proc_fs.h",
	  "static const struct proc_ops o = { .proc_read = NULL }; (void)&o;" },
	{ "STP_HAVE_NO_LLSEEK", "linux/fs.h",
	  "loff_t (*f)(struct file *, loff_t, int) = no_llseek; (void)f;" },
	{ "STP_HAVE_MODULE_MEM", "linux/module.h",
	  "struct module *m = NULL; (void)sizeof(m->mem[MOD_RO_AFTER_INIT].size);" },
	{ "STP_HAVE_UPROBE_NOSYNC", "linux/uprobes.h",
	  "struct uprobe *u = uprobe_register(NULL, 0, 0, NULL);"
	  " uprobe_unregister_nosync(u, NULL); uprobe_unregister_sync();" },
	{ "STP_HAVE_TWA_MODE", "linux/task_work.h",
	  "enum task_work_notify_mode m = TWA_SIGNAL; (void)m;" },
	{ "STP_HAVE_STRLCPY", "linux/string.h",
	  "char b[2]; (void)strlcpy(b, \"x\", sizeof(b));" },
};
#define NFEATURES (sizeof(features) / sizeof(features[0]))
#define KFEATURES_VERSION "1"

/* The test file; first[i]..last[i] are the lines of test i; two more come
 * last: CONTROL must compile and SENTINEL must not, or the compiler's
 * verdicts mean nothing. */
#define CONTROL NFEATURES
#define SENTINEL (NFEATURES + 1)
static char *test_source(int first[], int last[])
{
	struct strbuf sb = STRBUF_INIT;
	int line = 1;

	for (size_t i = 0; i < NFEATURES; i++) {
		strbuf_addf(&sb, "#if __has_include(<%s>)\n#include <%s>\n#endif\n",
			    features[i].header, features[i].header);
		line += 3;
	}
	strbuf_addstr(&sb, "#include <linux/sched.h>\n");
	line++;
	for (size_t i = 0; i <= SENTINEL; i++) {
		const char *body = i < NFEATURES ? features[i].body
			: i == CONTROL ? "struct task_struct *t = current; (void)t;"
			: "stp_kfeature_sentinel_undeclared();";
		first[i] = line;
		strbuf_addf(&sb, "void stp_kfeature_%zu(void);\nvoid stp_kfeature_%zu(void)\n{\n\t%s\n}\n",
			    i, i, body);
		line += 5;
		last[i] = line - 1;
	}
	return strbuf_detach(&sb);
}

/* ~/.cache/cstap/kfeatures-<hash>.h for this kernel tree, compiler and tests */
static char *cache_path(const char *build, const char *src)
{
	char *dir, *stamp, *path, *tree = kbuild_tree_stamp(build);

	if (!tree || !(dir = cache_dir())) {
		free(tree);
		return NULL;
	}
	stamp = xasprintf("%s|" KFEATURES_VERSION "|%s", tree, src);
	path = xasprintf("%s/kfeatures-%016llx.h", dir,
			 (unsigned long long)hash64(stamp, strlen(stamp)));
	free(tree);
	free(stamp);
	free(dir);
	return path;
}

/* failed[i] for each test the compiler's log reports an error in; false
 * when the log does not show the compiler judged the tests (CONTROL failed
 * or SENTINEL passed). */
static bool read_verdicts(const char *log, const int first[], const int last[], bool failed[])
{
	char *text = read_file(log, NULL);

	if (!text)
		return false;
	memset(failed, 0, (SENTINEL + 1) * sizeof(bool));
	for (char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char *nl = strchr(l, '\n'), *at = strstr(l, "kfeatures.c:"), *err;
		if (!at || (nl && at > nl) || !(err = strstr(at, "error:")) || (nl && err > nl))
			continue;
		int n = atoi(at + strlen("kfeatures.c:"));
		for (size_t i = 0; i <= SENTINEL; i++)
			if (n >= first[i] && n <= last[i])
				failed[i] = true;
	}
	free(text);
	return !failed[CONTROL] && failed[SENTINEL];
}

/* The kernel's source tree: Debian's build tree has only the generated
 * files and a Makefile that includes the common tree's. */
static char *source_tree(const char *build)
{
	char *mk = xasprintf("%s/Makefile", build);
	char *text = read_file(mk, NULL), *src = NULL;

	free(mk);
	if (text && !strncmp(text, "include ", 8)) {
		char *end = strstr(text + 8, "/Makefile");
		if (end)
			src = xstrndup(text + 8, (size_t)(end - text - 8));
	}
	free(text);
	return src ? src : xstrdup(build);
}

/* The fast way: the compiler the kernel was built with (auto.conf's
 * CONFIG_CC_VERSION_TEXT), with kbuild's include paths and the flags that
 * matter to what headers declare, no kbuild. A fraction of a second. */
static int run_direct(struct session *s, const char *c, const char *log)
{
	const char *b = s->kernel_build;
	char *src = source_tree(b);
	char *conf = xasprintf("%s/include/config/auto.conf", b);
	char *text = read_file(conf, NULL), *cc = xstrdup("gcc");
	char *v = text ? strstr(text, "CONFIG_CC_VERSION_TEXT=") : NULL;

	if (v) {
		v += strlen("CONFIG_CC_VERSION_TEXT=");
		v += *v == '"';
		free(cc);
		cc = xstrndup(v, strcspn(v, " \"\n"));
	}
	char *argv[] = {
		cc, "-nostdinc", "-isystem", NULL,
		xasprintf("-I%s/arch/x86/include", src), xasprintf("-I%s/arch/x86/include/generated", b),
		xasprintf("-I%s/include", src), xasprintf("-I%s/include", b),
		xasprintf("-I%s/arch/x86/include/uapi", src),
		xasprintf("-I%s/arch/x86/include/generated/uapi", b),
		xasprintf("-I%s/include/uapi", src), xasprintf("-I%s/include/generated/uapi", b),
		"-include", xasprintf("%s/include/linux/compiler-version.h", src),
		"-include", xasprintf("%s/include/linux/kconfig.h", src),
		"-include", xasprintf("%s/include/linux/compiler_types.h", src),
		"-D__KERNEL__", "-DMODULE", "-std=gnu11", "-m64", "-mcmodel=kernel", "-mno-red-zone",
		"-fno-PIE", "-fsyntax-only", "-Werror=implicit-function-declaration",
		"-Werror=incompatible-pointer-types", (char *)c, NULL,
	};
	char *pf[] = { cc, "-print-file-name=include", NULL };
	char *inc = spawn_capture(pf, NULL, false);
	int rc = -1;

	if (inc) {
		inc[strcspn(inc, "\n")] = 0;
		argv[3] = inc;
		rc = spawn_wait(argv, NULL, log);
	}
	free(inc);
	free(src);
	free(conf);
	free(text);
	free(cc);
	return rc;
}

/* The sure way: kbuild itself, as for the module (seconds). */
static void run_kbuild(struct session *s, const char *dir, const char *log)
{
	static const char makefile[] = "obj-m := kfeatures.o\nccflags-y := -fsyntax-only "
		"-Werror=implicit-function-declaration -Werror=incompatible-pointer-types\n";
	char *mk = xasprintf("%s/Makefile", dir), *mflag = xasprintf("M=%s", dir);

	if (write_file(mk, makefile, strlen(makefile)) == 0) {
		char *argv[] = { "make", "-C", (char *)s->kernel_build, mflag, "kfeatures.o", NULL };
		spawn_wait(argv, NULL, log);   /* fails by design: -fsyntax-only leaves no .o */
	}
	free(mk);
	free(mflag);
}

/* Compile the tests in dir; failed[i] for each test the compiler refused.
 * -1 when neither way gave verdicts. */
static int run_tests(struct session *s, const char *dir, const char *src, const int first[],
		     const int last[], bool failed[])
{
	char *c = xasprintf("%s/kfeatures.c", dir), *log = xasprintf("%s/kfeatures.log", dir);
	int rc = -1;

	mkdir(dir, 0755);
	if (write_file(c, src, strlen(src)) == 0) {
		run_direct(s, c, log);
		if (read_verdicts(log, first, last, failed))
			rc = 0;
		else if (run_kbuild(s, dir, log), read_verdicts(log, first, last, failed))
			rc = 0;
	}
	free(c);
	free(log);
	return rc;
}

char *kfeatures_header(struct session *s)
{
	int first[SENTINEL + 1], last[SENTINEL + 1];
	bool failed[SENTINEL + 1];
	char *src = test_source(first, last);
	char *path = cache_path(s->kernel_build, src);
	char *hdr = path ? read_file(path, NULL) : NULL;
	double t0 = now_ms();

	if (hdr) {
		free(src);
		free(path);
		return hdr;
	}
	char *dir = xasprintf("%s/kfeatures", s->tmpdir);
	if (run_tests(s, dir, src, first, last, failed) != 0) {
		diag(s, B_KFEATURES, (struct srcpos){0},
		     "cannot test the features of kernel %s: the compiler gave no verdicts (see %s/kfeatures.log)",
		     s->kernel_release, dir);
		s->keep_tmpdir = true;
		free(src);
		free(path);
		free(dir);
		return NULL;
	}
	struct strbuf sb = STRBUF_INIT;
	strbuf_addf(&sb, "/* kernel %s: features found by compiling (translator/build/kfeatures.c) */\n"
		    "#ifndef STP_KFEATURES_H\n#define STP_KFEATURES_H\n", s->kernel_release);
	for (size_t i = 0; i < NFEATURES; i++)
		strbuf_addf(&sb, failed[i] ? "/* #undef %s */\n" : "#define %s 1\n", features[i].macro);
	strbuf_addstr(&sb, "#endif\n");
	char *kdir = path ? cache_dir() : NULL;
	if (kdir)   /* one per kernel tree and version of the tests */
		cache_store(kdir, path, sb.buf, sb.len, "kfeatures-", 16, 180L * 86400);
	free(kdir);
	if (s->verbose >= 2)
		fprintf(stderr, "stap: kernel features of %s tested in %.0f ms\n", s->kernel_release,
			now_ms() - t0);
	free(src);
	free(path);
	free(dir);
	return strbuf_detach(&sb);
}
