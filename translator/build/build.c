/* build.c - pass 4: compile the generated C into NAME.ko with kbuild.
 *
 * The build directory holds NAME.c and a one-line Makefile; kbuild does the
 * rest. -D definitions become -D flags. stp_kfeatures.h beside it says what
 * the kernel offers (kfeatures.c); the generated C includes it first. With -m NAME or at -p4 the module is
 * copied to the current directory, as SystemTap does.
 *
 * Most of a kbuild run is kbuild itself (its Makefiles probe the compiler
 * dozens of times), not our module. So the commands kbuild ran for a module
 * are kept as a recipe (recipe.c), and later builds for the same kernel and
 * flags replay them directly; any failure falls back to kbuild.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "env.h"
#include "kfeatures.h"
#include "modsign.h"
#include "options.h"
#include "passes.h"
#include "recipe.h"
#include "spawn.h"

/* -D NAME=VALUE as a make-safe compiler flag: quote for the shell kbuild
 * uses, and double '$' for make. */
static void add_define(struct strbuf *mk, const char *def)
{
	strbuf_addstr(mk, " '-D");
	for (const char *p = def; *p; p++) {
		if (*p == '\'')
			strbuf_addstr(mk, "'\\''");
		else if (*p == '$')
			strbuf_addstr(mk, "$$");
		else
			strbuf_addch(mk, *p);
	}
	strbuf_addch(mk, '\'');
}

/* Show the compiler's complaints, not kbuild's chatter. */
static void show_build_errors(const char *log)
{
	char *text = read_file(log, NULL);

	if (text)
		fputs(text, stderr);
	free(text);
}

/* -vv: the build replayed kbuild's commands, and went through the
 * precompiled kernel headers (pch.c) or says why GCC refused them. */
static void report_replay(const struct session *s, const char *log)
{
	char *mod = xasprintf("%s/stp_modname.h", s->tmpdir);
	char *text = read_file(log, NULL);
	static const char refused[] = ".gch: not used because ";   /* GCC's -Winvalid-pch */
	const char *why = text ? strstr(text, refused) : NULL;

	fprintf(stderr, "stap: built with the cached kbuild recipe\n");
	if (why) {
		why += sizeof(refused) - 1;
		int n = (int)strcspn(why, "\n[");
		while (n > 0 && why[n - 1] == ' ')
			n--;
		fprintf(stderr, "stap: the precompiled kernel headers were not used: %.*s\n", n, why);
	}
	else if (access(mod, F_OK) == 0)
		fprintf(stderr, "stap: compiled with the precompiled kernel headers\n");
	free(mod);
	free(text);
}

/* The module Makefile's flags, after its obj-m line: the runtime's
 * directory, and the -D definitions when with_defines. Not built for
 * ftrace: the kernel would check each of the module's mcount records at load
 * with a lookup that scans every symbol of the module (test_for_valid_rec:
 * quadratic, hours for the 280,000 handlers of kernel.function("*") under
 * TCG, holding ftrace_lock), a function tracer would trace the handlers, and
 * each entry would pay for the nop. No -Wmisleading-indentation (-Wall's):
 * generated code is not read by people, and GCC 12 checks it by reading
 * each guard's source line from its line cache, a scan from far back in a
 * big file: quadratic (strace.stp's 7 MB of C: 91 of its 210 CPU-s). */
static void add_flags(struct strbuf *mk, const struct session *s, bool with_defines)
{
	strbuf_addf(mk, "ccflags-remove-y := $(CC_FLAGS_FTRACE)\n"
		    "ccflags-y := -I%s -Wno-declaration-after-statement -Wno-misleading-indentation -g0",
		    s->runtime_dir);
	for (int i = 0; with_defines && i < s->defines.len; i++)
		add_define(mk, s->defines.items[i]);
	strbuf_addch(mk, '\n');
}

int pass4_build(struct session *s)
{
	struct strbuf mk = STRBUF_INIT;
	struct stat st;

	if (stat(s->kernel_build, &st) != 0) {
		diag(s, B_NO_KERNEL, (struct srcpos){0},
		     "no kernel build tree at %s (apt-get install linux-headers-%s)", s->kernel_build,
		     s->kernel_release);
		return 1;
	}
	char *features = kfeatures_header(s);   /* what runtime/kcompat.h decides on */
	if (!features)
		return 1;
	char *fpath = xasprintf("%s/stp_kfeatures.h", s->tmpdir);
	write_file(fpath, features, strlen(features));
	free(fpath);
	free(features);
	strbuf_addf(&mk, "obj-m := %s.o\n", s->module_name);
	size_t flags_at = mk.len;
	add_flags(&mk, s, true);
	char *mkfile = xasprintf("%s/Makefile", s->tmpdir);
	write_file(mkfile, mk.buf, mk.len);

	char *log = xasprintf("%s/build.log", s->tmpdir);
	/* the recipe is for any module name: keyed on the flags, not on obj-m */
	struct strbuf base_flags = STRBUF_INIT;   /* whose recipe makes the precompiled headers */
	add_flags(&base_flags, s, false);
	struct recipe_key key = { .build = s->kernel_build, .flags = mk.buf + flags_at,
				  .base_flags = base_flags.buf, .runtime_dir = s->runtime_dir };
	/* a recipe has no make variables: -B builds with kbuild itself */
	int rc = env_get(ENV_CSTAP_NO_RECIPE) || s->kbuild_vars.len ? 1
		 : recipe_replay(&key, s->tmpdir, s->module_name, log);
	if (rc == 0 && s->verbose >= 2)
		report_replay(s, log);
	if (rc != 0) {
		strvec argv = { 0 };
		vec_push(&argv, "make");
		vec_push(&argv, "-C");
		vec_push(&argv, (char *)s->kernel_build);
		vec_push(&argv, xasprintf("M=%s", s->tmpdir));
		for (int i = 0; i < s->kbuild_vars.len; i++)
			vec_push(&argv, s->kbuild_vars.items[i]);
		vec_push(&argv, "modules");
		vec_push(&argv, "-s");
		vec_push(&argv, NULL);
		rc = spawn_wait(argv.items, NULL, s->verbose >= 3 ? NULL : log);
		if (rc == 0 && !s->kbuild_vars.len)
			recipe_record(&key, s->tmpdir, s->module_name);
	}
	strbuf_release(&base_flags);
	if (rc != 0) {
		if (s->verbose < 3)
			show_build_errors(log);
		diag(s, B_KBUILD, (struct srcpos){0}, "kbuild failed with status %d (module source: %s)",
		     rc, s->c_file);
		s->keep_tmpdir = true;
		return 1;
	}
	s->ko_file = xasprintf("%s/%s.ko", s->tmpdir, s->module_name);
	return deliver_module(s);
}

/* Does the user get a copy of the module in the current directory? */
static bool delivers_copy(const struct session *s)
{
	return !s->module_stays && (s->last_pass == 4 || s->module_name_given);
}

int sign_module(struct session *s)
{
	char err[1024];
	const char *out = s->ko_file;

	if (!s->sign_key || s->runtime_bpf)
		return 0;
	if (s->cache_hit && !delivers_copy(s)) {   /* the cache's file: sign a copy */
		if (!s->tmpdir && session_mkdtemp(s))
			return 1;
		out = xasprintf("%s/%s.ko", s->tmpdir, s->module_name);
	}
	if (module_sign(s->ko_file, out, s->sign_key, s->sign_cert, err, sizeof(err)) != 0) {
		diag(s, B_SIGN, (struct srcpos){0}, "%s", err);
		return 1;
	}
	if (s->verbose >= 2)
		fprintf(stderr, "Pass 4: signed \"%s\" with %s\n", out, s->sign_cert);
	s->ko_file = (char *)out;
	return 0;
}

int deliver_module(struct session *s)
{
	if (delivers_copy(s)) {
		char *here = xasprintf("%s.%s", s->module_name, s->runtime_bpf ? "bo" : "ko");
		if (copy_file(s->ko_file, here) != 0) {
			diag(s, B_KBUILD, (struct srcpos){0}, "cannot copy the module to %s: %s", here, strerror(errno));
			return 1;
		}
		s->ko_file = here;
		if (s->last_pass == 4)
			printf("%s\n", here);
	}
	return 0;
}
