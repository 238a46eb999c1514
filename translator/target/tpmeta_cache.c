/* tpmeta_cache.c - every tracepoint of a kernel and its modules, kept on
 * disk per kernel build-id (cache_dir()/tpmeta-BUILDID.txt, written
 * atomically), so that kernel.trace("*") reads one file instead of the
 * DWARF of the kernel and of some 300 modules (see tpmeta.h).
 *
 * The file is text, one record a line, fields separated by tabs:
 *   cstap-tpmeta 2 FINGERPRINT
 *   m NAME NO_DWARF DWARF                a module defining tracepoints (DWARF:
 *                                        the file read, empty if none)
 *   t MODULE NARGS DIE ENTRY NAME SYSTEM VARS   (MODULE -1: the kernel's;
 *                                        SYSTEM empty: unknown)
 *   end NMODULES NTRACEPOINTS
 * The build-id stands for the kernel's DWARF; FINGERPRINT for the module
 * files (each .ko's and its -dbg copy's path, size and modification time):
 * a module added, rebuilt or given its debuginfo makes the file stale, and
 * a stale, truncated or damaged file is built again.
 */
#include "tpmeta.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "env.h"
#include "kernel.h"
#include "kimage.h"
#include "target.h"

#define TPM_MAGIC "cstap-tpmeta 2"

/* What the set depends on beyond the kernel's DWARF: the module files. */
static uint64_t fingerprint(struct session *s)
{
	strvec names = { 0 }, paths = { 0 };
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s\n%s\n", target_kernel(s)->release, dw_debug_root(s));
	kernel_module_files(s, "*", &names, &paths);
	for (int i = 0; i < names.len; i++) {
		char *dbg = kernel_module_debug_path(s, paths.items[i]);
		const char *files[2] = { paths.items[i], dbg };
		strbuf_addf(&sb, "%s", names.items[i]);
		for (int k = 0; k < 2; k++) {
			struct stat st;
			if (files[k] && stat(files[k], &st) == 0)
				strbuf_addf(&sb, " %s %lld %lld.%ld", files[k], (long long)st.st_size,
					    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
			else
				strbuf_addstr(&sb, " -");
		}
		strbuf_addch(&sb, '\n');
		free(dbg);
		free(names.items[i]);
		free(paths.items[i]);
	}
	free(names.items);
	free(paths.items);
	uint64_t h = hash64(sb.buf, sb.len);
	strbuf_release(&sb);
	return h;
}

/* cache_dir()/tpmeta-BUILDID.txt of the kernel's image, or NULL. */
static char *cache_path(struct dw_image *kernel, char **dir)
{
	char *id = elf_build_id_hex(dwarf_getelf(kernel->dbg));

	*dir = id ? cache_dir() : NULL;
	char *path = *dir ? xasprintf("%s/tpmeta-%s.txt", *dir, id) : NULL;
	free(id);
	return path;
}

/* Split line (NUL-terminated, no newline) at tabs into at most max fields;
 * how many. */
static int fields(char *line, char **f, int max)
{
	int n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = 0;
	}
	return line ? max + 1 : n;   /* (more than max: wrong) */
}

/* A decimal or hexadecimal field, wholly a number. */
static bool number(const char *f, int base, long long *out)
{
	char *end;

	if (!*f)
		return false;
	*out = strtoll(f, &end, base);
	return !*end;
}

static bool unumber(const char *f, uint64_t *out)
{
	char *end;

	if (!*f)
		return false;
	*out = strtoull(f, &end, 16);
	return !*end;
}

/* The set in buf (len bytes), if it is whole and made for fp. */
static bool parse(char *buf, size_t len, uint64_t fp, struct tpm_set *set)
{
	char *line = buf, *f[8];
	char head[64];
	bool ended = false;

	snprintf(head, sizeof(head), TPM_MAGIC " %016" PRIx64, fp);
	if (!len || buf[len - 1] != '\n' || memchr(buf, 0, len))
		return false;
	while (!ended && line < buf + len) {
		char *nl = strchr(line, '\n');
		*nl = 0;
		long long a, b;
		uint64_t die, entry;
		int n = fields(line, f, 8);
		if (line == buf) {
			if (strcmp(line, head))
				return false;
		} else if (n == 4 && !strcmp(f[0], "m") && number(f[2], 10, &a) && (a == 0 || a == 1) && *f[1]) {
			vec_push(&set->mods, ((struct tpm_module){ .name = xstrdup(f[1]), .no_dwarf = a,
								   .dwarf = *f[3] ? xstrdup(f[3]) : NULL }));
		} else if (n == 8 && !strcmp(f[0], "t") && number(f[1], 10, &a) && a >= -1 && a < set->mods.len &&
			   number(f[2], 10, &b) && b >= -1 && unumber(f[3], &die) && unumber(f[4], &entry) && *f[5]) {
			vec_push(&set->tps, ((struct tpm){ .name = xstrdup(f[5]), .system = *f[6] ? xstrdup(f[6]) : NULL,
							   .module = (int)a, .nargs = (int)b, .die = die,
							   .entry = entry, .vars = xstrdup(f[7]) }));
		} else if (n == 3 && !strcmp(f[0], "end") && number(f[1], 10, &a) && a == set->mods.len &&
			   number(f[2], 10, &b) && b == set->tps.len) {
			ended = true;
		} else {
			return false;
		}
		line = nl + 1;
	}
	return ended && line == buf + len;
}

/* A string the file's lines and fields can hold. */
static bool storable(const char *str)
{
	return !str || !strpbrk(str, "\t\n");
}

/* The file's text of set; NULL if some string cannot be written. */
static char *format(const struct tpm_set *set, uint64_t fp, size_t *len)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, TPM_MAGIC " %016" PRIx64 "\n", fp);
	for (int i = 0; i < set->mods.len; i++) {
		const struct tpm_module *m = &set->mods.items[i];
		if (!storable(m->name) || !storable(m->dwarf)) {
			strbuf_release(&sb);
			return NULL;
		}
		strbuf_addf(&sb, "m\t%s\t%d\t%s\n", m->name, m->no_dwarf, m->dwarf ? m->dwarf : "");
	}
	for (int i = 0; i < set->tps.len; i++) {
		const struct tpm *t = &set->tps.items[i];
		if (!storable(t->name) || !storable(t->system) || !storable(t->vars)) {
			strbuf_release(&sb);
			return NULL;
		}
		strbuf_addf(&sb, "t\t%d\t%d\t%" PRIx64 "\t%" PRIx64 "\t%s\t%s\t%s\n", t->module, t->nargs, t->die,
			    t->entry, t->name, t->system ? t->system : "", t->vars ? t->vars : "");
	}
	strbuf_addf(&sb, "end\t%d\t%d\n", set->mods.len, set->tps.len);
	*len = sb.len;
	return strbuf_detach(&sb);
}

const struct tpm_set *tpm_cached(struct session *s, struct dw_image *kernel)
{
	struct target *tg = target_of(s);

	if (tg->tp.all || tg->tp.tried)
		return tg->tp.all;
	tg->tp.tried = true;
	char *dir, *path = cache_path(kernel, &dir);
	size_t len = 0;
	char *buf = path ? read_file(path, &len) : NULL;
	struct tpm_set *set = xcalloc(1, sizeof(*set));
	if (buf && parse(buf, len, fingerprint(s), set)) {
		tg->tp.all = set;
		utimensat(AT_FDCWD, path, NULL, 0);   /* used, for cache_prune */
		if (s->verbose >= 2)
			fprintf(stderr, "tracepoints: %d from %s\n", set->tps.len, path);
	} else {
		if (buf && s->verbose >= 2)
			fprintf(stderr, "tracepoints: %s is stale or damaged: found again\n", path);
		tpm_set_clear(set);
		free(set);
	}
	free(buf);
	free(path);
	free(dir);
	return tg->tp.all;
}

const struct tpm_set *tpm_build_all(struct session *s, struct dw_image *kernel, const struct ksymtab *syms)
{
	struct target *tg = target_of(s);
	strvec names = { 0 }, paths = { 0 };
	struct tpm_set *set = xcalloc(1, sizeof(*set));

	tpm_kernel(s, kernel, syms, "*", NULL, true, set);
	kernel_module_files(s, "*", &names, &paths);
	for (int i = 0; i < names.len; i++) {
		tpm_module(s, kernel, names.items[i], paths.items[i], "*", NULL, TPM_CLOSE_DWARF, true, set);
		free(names.items[i]);
		free(paths.items[i]);
	}
	free(names.items);
	free(paths.items);
	tg->tp.all = set;
	tg->tp.tried = true;
	char *dir, *path = cache_path(kernel, &dir);
	size_t len;
	uint64_t fp = path ? fingerprint(s) : 0;
	char *text = path ? format(set, fp, &len) : NULL;
	if (text) {   /* (a kernel's: ~500 KB) */
		cache_store(dir, path, text, len, "tpmeta-", 8, 90L * 86400);
		if (s->verbose >= 2)
			fprintf(stderr, "tracepoints: %d kept in %s\n", set->tps.len, path);
	}
	free(text);
	free(path);
	free(dir);
	return set;
}
