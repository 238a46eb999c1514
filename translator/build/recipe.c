/* recipe.c - a cache of kbuild's commands for one kernel and one set of flags.
 *
 * A module build is four commands, which kbuild records in .cmd files:
 * compile NAME.c (with objtool), modpost, compile NAME.mod.c, link NAME.ko
 * (since 6.10 also compile .module-common.o before the link).
 * We keep them with the build directory and module name replaced by
 * placeholders, keyed by the kernel build tree (and its config's mtime), the
 * compiler's mtime and the module flags. Replaying them costs the compiles
 * only, not kbuild's dozens of compiler probes.
 */
#include "recipe.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "pch.h"
#include "spawn.h"
#include "util.h"

#define RECIPE_VERSION "1"
#define PH_DIR "@CSTAP_DIR@"
#define PH_NAME "@CSTAP_NAME@"

static long long mtime_of(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long long)st.st_mtime : 0;
}

char *kbuild_tree_stamp(const char *build)
{
	char real[PATH_MAX];

	if (!realpath(build, real))
		return NULL;
	char *conf = xasprintf("%s/include/config/auto.conf", build);
	char *mk = xasprintf("%s/Makefile", build);
	char *stamp = xasprintf("%s|%lld|%lld|%lld", real, mtime_of(conf), mtime_of(mk),
				mtime_of("/usr/bin/gcc"));
	free(conf);
	free(mk);
	return stamp;
}

/* ~/.cache/cstap/kbuild-<hash>.recipe for these flags, or NULL without a home */
static char *recipe_path_for(const struct recipe_key *k, const char *flags)
{
	char *dir, *path, *tree = kbuild_tree_stamp(k->build), *stamp;
	uint64_t h;

	if (!tree || !(dir = cache_dir())) {
		free(tree);
		return NULL;
	}
	stamp = xasprintf("%s|%s|" RECIPE_VERSION, tree, flags);
	h = hash64(stamp, strlen(stamp));
	free(stamp);
	free(tree);
	path = xasprintf("%s/kbuild-%016llx.recipe", dir, (unsigned long long)h);
	free(dir);
	return path;
}

static char *recipe_path(const struct recipe_key *k)
{
	return recipe_path_for(k, k->flags);
}

/* The recipe's text with its compile line (the first) going through the
 * precompiled kernel headers (pch.c), made from the -D-less recipe of the
 * same kernel; text itself when there is none. */
static char *with_pch(const struct recipe_key *k, char *text, const char *dir, const char *name)
{
	char *base = NULL, *nl = strchr(text, '\n'), *line, *res;

	if (!k->base_flags || !k->runtime_dir || !nl)
		return text;
	if (strcmp(k->base_flags, k->flags) == 0) {
		base = xstrdup(text);
	} else {
		char *bpath = recipe_path_for(k, k->base_flags);
		base = bpath ? read_file(bpath, NULL) : NULL;
		free(bpath);
	}
	char *bnl = base ? strchr(base, '\n') : NULL;
	if (!bnl) {
		free(base);
		return text;
	}
	*bnl = 0;
	*nl = 0;
	line = pch_compile_line(k->build, base, text, k->runtime_dir, dir, name);
	*nl = '\n';
	free(base);
	if (!line)
		return text;
	/* and the recipe's other compiles (NAME.mod.c, module-common.c) */
	struct strbuf out = STRBUF_INIT;
	strbuf_addf(&out, "%s\n", line);
	for (char *l = nl + 1, *e; *l; l = e + (*e != 0)) {
		e = l + strcspn(l, "\n");
		char *one = xstrndup(l, (size_t)(e - l)), *other = NULL;
		if (strstr(one, " -c -o " PH_DIR "/" PH_NAME ".mod.o "))
			other = pch_other_line(line, one, dir, name, "mod");
		else if (strstr(one, " -c -o " PH_DIR "/.module-common.o "))
			other = pch_other_line(line, one, dir, name, "common");
		strbuf_addf(&out, "%s\n", other ? other : one);
		free(other);
		free(one);
	}
	res = strbuf_detach(&out);
	free(line);
	free(text);
	return res;
}

/* The command of a .cmd file ("cmd_X := ...", with make's escapes undone). */
static char *cmd_of(const char *dir, const char *file)
{
	char *path = xasprintf("%s/%s", dir, file);
	char *text = read_file(path, NULL);
	char *cmd = NULL;

	free(path);
	if (!text || (strncmp(text, "cmd_", 4) != 0 && strncmp(text, "savedcmd_", 9) != 0))
		goto out;   /* 6.2 renamed cmd_X to savedcmd_X */
	char *p = strstr(text, " := ");
	char *end = strchr(text, '\n');
	if (!p || (end && end < p))
		goto out;
	if (end)
		*end = 0;
	char *a = str_replace_all(p + 4, "$$", "$");
	cmd = str_replace_all(a, "$(pound)", "#");
	free(a);
out:
	free(text);
	return cmd;
}

/* Placeholders for the directory and the module name, only where kbuild
 * puts them, so a name that also occurs elsewhere is left alone. */
static char *generalize(const char *cmd, const char *dir, const char *name)
{
	const char *pairs[][2] = {
		{ xasprintf("%s/.%s.", dir, name), PH_DIR "/." PH_NAME "." },
		{ xasprintf("%s/%s.", dir, name), PH_DIR "/" PH_NAME "." },
		{ xasprintf("'\"%s\"'", name), "'\"" PH_NAME "\"'" },
		{ xasprintf("'\"%s.mod\"'", name), "'\"" PH_NAME ".mod\"'" },
		{ xasprintf("=kmod_%s ", name), "=kmod_" PH_NAME " " },
		{ xstrdup(dir), PH_DIR },
	};
	char *s = xstrdup(cmd);

	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		char *t = str_replace_all(s, pairs[i][0], pairs[i][1]);
		free(s);
		free((char *)pairs[i][0]);
		s = t;
	}
	return s;
}

void recipe_record(const struct recipe_key *k, const char *dir, const char *name)
{
	/* 6.10 and later also link .module-common.o, built in the module's
	 * directory: its compile comes before the link when kbuild ran it */
	char *files[] = {
		xasprintf(".%s.o.cmd", name), xstrdup(".Module.symvers.cmd"),
		xasprintf(".%s.mod.o.cmd", name), xstrdup("..module-common.o.cmd"),
		xasprintf(".%s.ko.cmd", name),
	};
	int nfiles = sizeof(files) / sizeof(files[0]);
	struct strbuf out = STRBUF_INIT;
	char *path = recipe_path(k);
	bool ok = path != NULL;

	for (int i = 0; i < nfiles && ok; i++) {
		char *cmd = cmd_of(dir, files[i]);
		if (!cmd && i == 3)
			continue;
		if (!cmd || strstr(cmd, "@CSTAP_") || strchr(cmd, '\n')) {
			ok = false;
		} else {
			char *g = generalize(cmd, dir, name);
			strbuf_addf(&out, "%s\n", g);
			free(g);
		}
		free(cmd);
	}
	char *cdir = ok ? cache_dir() : NULL;
	if (cdir)   /* one per kernel and set of -D flags: keep the 64 last used */
		cache_store(cdir, path, out.buf, out.len, "kbuild-", 64, 30L * 86400);
	free(cdir);
	for (int i = 0; i < nfiles; i++)
		free(files[i]);
	free(path);
	strbuf_release(&out);
}

int recipe_replay(const struct recipe_key *k, const char *dir, const char *name, const char *log)
{
	char *path = recipe_path(k);
	char *text = path ? read_file(path, NULL) : NULL;
	struct strbuf sh = STRBUF_INIT;
	int rc;

	if (text)
		utimensat(AT_FDCWD, path, NULL, 0);   /* mark as used, for cache_prune */
	free(path);
	if (!text)
		return 1;
	text = with_pch(k, text, dir, name);
	char *a = str_replace_all(text, PH_DIR, dir);
	char *cmds = str_replace_all(a, PH_NAME, name);
	free(a);
	free(text);

	/* the inputs kbuild would have written for modpost */
	write_file(xasprintf("%s/%s.mod", dir, name), xasprintf("%s/%s.o\n", dir, name),
		   strlen(dir) + strlen(name) + 4);
	/* modules.order names NAME.ko up to 6.1 (modpost is fed it through sed
	 * 's/ko$/o/'), NAME.o later */
	char *order = xasprintf("%s/%s.%s\n", dir, name, strstr(cmds, "s/ko$/o/") ? "ko" : "o");
	write_file(xasprintf("%s/modules.order", dir), order, strlen(order));

	/* objtool reads what kbuild exports (6.12: SRCARCH); cstap builds for x86 */
	strbuf_addf(&sh, "set -e; cd '%s'; export SRCARCH=x86 ARCH=x86\n", k->build);
	int i = 0;
	for (char *line = strtok(cmds, "\n"); line; line = strtok(NULL, "\n"), i++) {
		strbuf_addf(&sh, "( %s )\n", line);
		if (i == 0)   /* modpost reads NAME.o's sources from .NAME.o.cmd, as fixdep writes it */
			strbuf_addf(&sh, "scripts/basic/fixdep '%s/.%s.o.d' '%s/%s.o' cmd > '%s/.%s.o.cmd'\n",
				    dir, name, dir, name, dir, name);
	}
	char *argv[] = { "/bin/sh", "-c", sh.buf, NULL };
	rc = spawn_wait(argv, NULL, log);
	if (rc != 0 && log)    /* kbuild runs next: keep what went wrong */
		rename(log, xasprintf("%s.recipe", log));
	free(cmds);
	strbuf_release(&sh);
	if (rc == 0) {
		char *ko = xasprintf("%s/%s.ko", dir, name);
		rc = access(ko, R_OK) != 0;
		free(ko);
	}
	return rc;
}
