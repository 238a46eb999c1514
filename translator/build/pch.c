/* pch.c - the kernel headers every module includes, compiled once per kernel.
 *
 * Of the ~2.5 s gcc spends on a small module, about a third is reading the
 * kernel's headers (55,000 lines after the preprocessor). So a recipe replay
 * (recipe.c) compiles against a GCC precompiled header: pch-HASH.h in the
 * cache, which includes what kbuild's command line -includes
 * (compiler-version.h, kconfig.h, compiler_types.h) and then the runtime's
 * kheaders.h, and pch-HASH.h.gch beside it. The compile line -includes
 * pch-HASH.h in place of kbuild's three, and then the module's own
 * stp_modname.h with the KBUILD_*MODNAME defines kbuild passes as -D (they
 * differ per module, and GCC refuses a PCH when a macro it saw is defined
 * otherwise; no kernel header expands them).
 *
 * The .gch is made from the compile line of the recipe without -D options
 * (the common case), so modules with -D NAME=VALUE share it: GCC takes it
 * only when every macro defined before it is one the headers never look at,
 * and otherwise reads pch-HASH.h as text, which is what the module would
 * have included anyway. HASH covers the kernel build tree, that compile line
 * and kheaders.h. A kernel whose headers do not precompile gets a .failed
 * mark and plain compiles.
 */
#include "pch.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "recipe.h"
#include "spawn.h"
#include "util.h"

#define PCH_VERSION "1"
#define PCH_KEEP 8   /* files: four precompiled headers (.h and .gch each) */

static const char *const modname_defs[] = {
	"-DKBUILD_BASENAME='\"@CSTAP_NAME@\"'",
	"-DKBUILD_MODNAME='\"@CSTAP_NAME@\"'",
	"-D__KBUILD_MODNAME=kmod_@CSTAP_NAME@",
};

/* Remove the first " WORD" (a whole word) from s, in place; false if absent. */
static bool drop_word(char *s, const char *word)
{
	size_t n = strlen(word);

	for (char *p = strstr(s, word); p; p = strstr(p + 1, word)) {
		if (p > s && p[-1] == ' ' && (p[n] == ' ' || p[n] == 0)) {
			memmove(p - 1, p + n, strlen(p + n) + 1);
			return true;
		}
	}
	return false;
}

/* Remove kbuild's three module-name -D words from s; false if one is absent. */
static bool drop_modname_defs(char *s)
{
	for (size_t i = 0; i < sizeof(modname_defs) / sizeof(modname_defs[0]); i++)
		if (!drop_word(s, modname_defs[i]))
			return false;
	return true;
}

/* The "-include A -include B ..." run of a compile line: its start and end
 * in *from, *to, and the #include lines of the files in hdr. */
static bool find_includes(const char *line, const char **from, const char **to, struct strbuf *hdr)
{
	const char *p = strstr(line, " -include ");

	if (!p)
		return false;
	*from = p + 1;
	while (strncmp(p, " -include ", 10) == 0) {
		const char *f = p + 10, *e = strchr(f, ' ');
		if (!e || f[0] != '/')
			return false;
		strbuf_addf(hdr, "#include \"%.*s\"\n", (int)(e - f), f);
		p = e;
	}
	*to = p;
	return true;
}

/* The file's identity for the key: path, size, mtime. */
static void add_stamp(struct strbuf *sb, const char *path)
{
	struct stat st;

	if (stat(path, &st) == 0)
		strbuf_addf(sb, "|%s %lld %lld", path, (long long)st.st_size, (long long)st.st_mtime);
	else
		strbuf_addf(sb, "|%s -", path);
}

/* Make cache/pch-HASH.h.gch with `args` (the -D-less recipe's compile line
 * less its -includes, module name and output); 0 on success, else the
 * compiler's status (128 + N: killed by signal N). */
static int make_gch(const char *build, const char *args, const char *hfile, const char *gch)
{
	char *tmp = xasprintf("%s.%d", gch, (int)getpid());
	char *cmd = xasprintf("cd '%s' && %s -x c-header -o '%s' '%s'", build, args, tmp, hfile);
	char *argv[] = { "/bin/sh", "-c", cmd, NULL };
	int rc = spawn_wait(argv, NULL, "/dev/null");

	if (rc == 0 && rename(tmp, gch) != 0)
		rc = 1;
	if (rc != 0)
		unlink(tmp);
	free(tmp);
	free(cmd);
	return rc;
}

/* The value of the first "WORD<value>" in line ending at a space or the
 * end, with the quotes '" "' around it dropped; NULL if absent. */
static char *word_value(const char *line, const char *word)
{
	const char *p = strstr(line, word);

	if (!p)
		return NULL;
	p += strlen(word);
	size_t n = strcspn(p, " ");
	if (n >= 4 && !strncmp(p, "'\"", 2) && !strncmp(p + n - 2, "\"'", 2))
		return xstrndup(p + 2, n - 4);
	return xstrndup(p, n);
}

/* Write header path with the KBUILD_*MODNAME names kbuild passes a file
 * as -D options (the compile lines here drop those, so that the
 * precompiled header's macros match): 0 or -1. */
static int write_modname_header(const char *path, const char *base, const char *mname, const char *kmod)
{
	char *defs = xasprintf("#define KBUILD_BASENAME \"%s\"\n#define KBUILD_MODNAME \"%s\"\n"
			       "#define __KBUILD_MODNAME %s\n", base, mname, kmod);
	int rc = write_file(path, defs, strlen(defs));

	free(defs);
	return rc;
}

char *pch_other_line(const char *pch_line, const char *line, const char *dir, const char *name,
		     const char *tag)
{
	const char *pc = strstr(pch_line, " -c -o "), *c = strstr(line, " -c -o ");
	char *mod = xasprintf("%s/stp_modname.h", dir);
	char *inc = strstr(pch_line, mod);
	char *base = word_value(line, "-DKBUILD_BASENAME="), *mname = word_value(line, "-DKBUILD_MODNAME=");
	char *kmod = word_value(line, "-D__KBUILD_MODNAME="), *dep = word_value(line, "-Wp,-MMD,");
	char *res = NULL;

	if (!pc || !c || !inc || inc > pc || !base || !mname || !kmod || !dep || strchr(c, ';'))
		goto out;
	/* the file's own names, @CSTAP_NAME@ made the module's */
	char *own = xasprintf("%s/stp_modname_%s.h", dir, tag);
	char *b = str_replace_all(base, "@CSTAP_NAME@", name), *m = str_replace_all(mname, "@CSTAP_NAME@", name);
	char *k = str_replace_all(kmod, "@CSTAP_NAME@", name);
	int wrc = write_modname_header(own, b, m, k);
	free(b);
	free(m);
	free(k);
	if (wrc == 0) {
		/* the compile line's words up to its own header, the file's header,
		 * the rest up to -c -o, the file's dependency file, then its -c -o */
		struct strbuf out = STRBUF_INIT;
		strbuf_add(&out, pch_line, (size_t)(inc - pch_line));
		strbuf_addstr(&out, own);
		strbuf_add(&out, inc + strlen(mod), (size_t)(pc - inc - strlen(mod)));
		strbuf_addstr(&out, c);
		char *t = strbuf_detach(&out);
		char *d = strstr(t, "-Wp,-MMD,");
		if (d) {
			size_t n = strcspn(d, " ");
			res = xasprintf("%.*s-Wp,-MMD,%s%s", (int)(d - t), t, dep, d + n);
			free(t);
		} else {
			res = t;
		}
	}
	free(own);
out:
	free(mod);
	free(base);
	free(mname);
	free(kmod);
	free(dep);
	return res;
}

char *pch_compile_line(const char *build, const char *base_line, const char *line,
		       const char *runtime_dir, const char *dir, const char *name)
{
	const char *bfrom, *bto, *from, *to;
	struct strbuf hdr = STRBUF_INIT, key = STRBUF_INIT, out = STRBUF_INIT, tmp = STRBUF_INIT;
	char *args = NULL, *cdir = NULL, *hfile = NULL, *gch = NULL, *failed = NULL, *res = NULL;
	char *tree = kbuild_tree_stamp(build);

	if (!tree || !(cdir = cache_dir()) || !find_includes(base_line, &bfrom, &bto, &hdr) ||
	    !find_includes(line, &from, &to, &tmp))
		goto out;
	/* the .gch's command: the base line up to " -c -o ", less the
	 * dependency file, the -includes and the module's name */
	const char *c = strstr(base_line, " -c -o ");
	if (!c || c < bto)
		goto out;
	args = xasprintf("%.*s%.*s", (int)(bfrom - base_line), base_line, (int)(c - bto), bto);
	bool ok = drop_modname_defs(args);
	char *mmd = strstr(args, " -Wp,-MMD,");
	if (mmd) {   /* up to the next word, or the end */
		char *e = mmd + 1 + strcspn(mmd + 1, " ");
		memmove(mmd, e, strlen(e) + 1);
	}
	if (!ok || strstr(args, "@CSTAP_"))
		goto out;

	char *kheaders = xasprintf("%s/kheaders.h", runtime_dir);
	strbuf_addf(&key, "%s|%s|%s", tree, args, PCH_VERSION);
	add_stamp(&key, kheaders);
	free(kheaders);
	uint64_t h = hash64(key.buf, key.len);
	hfile = xasprintf("%s/pch-%016llx.h", cdir, (unsigned long long)h);
	gch = xasprintf("%s.gch", hfile);
	failed = xasprintf("%s.failed", hfile);
	if (access(failed, F_OK) == 0)
		goto out;
	if (access(gch, R_OK) != 0) {
		strbuf_addstr(&hdr, "#include \"kheaders.h\"\n");
		char *text = xasprintf("/* cstap: the kernel headers every module includes, precompiled "
				       "(translator/build/pch.c) */\n%s", hdr.buf);
		const char *base = strrchr(hfile, '/') + 1;
		cache_store(cdir, hfile, text, strlen(text), "pch-", PCH_KEEP, 30L * 86400);
		free(text);
		int rc = make_gch(build, args, hfile, gch);
		if (rc != 0) {
			if (rc > 0 && rc < 128)   /* the headers do not precompile: not again */
				write_file(failed, "", 0);
			goto out;
		}
		cache_prune(cdir, "pch-", base, PCH_KEEP, 30L * 86400);
	}
	utimensat(AT_FDCWD, hfile, NULL, 0);   /* used: for cache_prune */
	utimensat(AT_FDCWD, gch, NULL, 0);

	/* the module's names, after the precompiled header */
	char *mod = xasprintf("%s/stp_modname.h", dir), *kmod = xasprintf("kmod_%s", name);
	int wrc = write_modname_header(mod, name, name, kmod);
	free(kmod);
	strbuf_add(&out, line, (size_t)(from - line));
	strbuf_addf(&out, "-Winvalid-pch -include %s -include %s", hfile, mod);
	strbuf_addstr(&out, to);
	free(mod);
	res = strbuf_detach(&out);
	if (wrc != 0 || !drop_modname_defs(res)) {
		free(res);
		res = NULL;
	}
out:
	free(tree);
	free(cdir);
	free(args);
	free(hfile);
	free(gch);
	free(failed);
	strbuf_release(&hdr);
	strbuf_release(&key);
	strbuf_release(&out);
	strbuf_release(&tmp);
	return res;
}
