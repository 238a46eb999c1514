/* library.c - pass 1: parse the user's script, and index the tapset
 * library; pass 2: parse a library file when it first needs it.
 *
 * The library is every *.stp file under the tapset directories (-I DIRs,
 * then the installed/build-tree one), one level of subdirectories deep
 * (e.g. linux/, x86_64/). Pass 1 reads each and scans its top level for
 * the functions, globals and alias names it defines (tapset_index.c); pass
 * 2 parses a file when it resolves a name the index says the file defines
 * (library_need), so a script parses only the files it may use, and
 * pass 2 then keeps only what the script uses. s->library stays in the
 * library's order (the first definition of a name wins, as before).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diag.h"
#include "passes.h"
#include "tapset_index.h"

/* The library's files, as pass 1 found them. */
struct tapset_library {
	VEC(struct srcfile *) files;   /* read, in library order */
	bool *parsed;                  /* by file number: parsed (or failed to) */
	struct tapset_index index;
};

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

/* *.stp files of dir (and of its subdirectories when depth > 0), sorted so
 * that runs are reproducible. */
static void collect(const char *dir, int depth, strvec *out)
{
	strvec names = { 0 };

	if (!dir_entries(dir, &names))
		return;
	for (int i = 0; i < names.len; i++) {
		struct stat st;
		if (stat(names.items[i], &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode) && depth > 0)
			collect(names.items[i], depth - 1, out);
		else if (S_ISREG(st.st_mode) && has_suffix(names.items[i], ".stp"))
			vec_push(out, names.items[i]);
	}
}

static void library_parse(struct session *s, int i);

static struct srcfile *user_file(struct session *s, const char *path)
{
	struct srcfile *f;

	if (!strcmp(path, "-")) {
		size_t len;
		char *text = read_file("/dev/stdin", &len);
		if (!text) {
			diag(s, O_FILE, (struct srcpos){0}, "cannot read the script from stdin: %s", strerror(errno));
			return NULL;
		}
		return srcfile_new("<input>", text, len);
	}
	f = srcfile_read(path);
	if (!f)
		diag(s, O_FILE, (struct srcpos){0}, "cannot read script file '%s': %s", path, strerror(errno));
	return f;
}

int pass1_parse(struct session *s)
{
	struct srcfile *f;
	strvec lib = { 0 };

	if (s->script_text) {
		f = srcfile_new("<input>", xstrdup(s->script_text), strlen(s->script_text));
	} else {
		f = user_file(s, s->script_files.items[0]);
	}
	if (!f)
		return 1;
	s->user = parse_script(s, f);
	for (int i = 1; i < s->script_files.len; i++) {
		struct srcfile *more = user_file(s, s->script_files.items[i]);
		struct script *sc = more ? parse_script(s, more) : NULL;
		if (sc)
			vec_push(&s->user_more, sc);
	}
	/* -E scripts are named as SystemTap names them: <input1>, <input2>... */
	for (int i = 0; i < s->extra_scripts.len; i++) {
		const char *text = s->extra_scripts.items[i];
		struct srcfile *more = srcfile_new(xasprintf("<input%d>", i + 1), xstrdup(text), strlen(text));
		struct script *sc = parse_script(s, more);
		if (sc)
			vec_push(&s->user_more, sc);
	}
	/* the last directory is the library's; those before it came with -I */
	int from_include = 0;
	for (int i = 0; i < s->include_dirs.len; i++) {
		collect(s->include_dirs.items[i], 1, &lib);
		if (i == s->include_dirs.len - 2)
			from_include = lib.len;
	}
	struct tapset_library *tl = xcalloc(1, sizeof(*tl));
	s->tapsets = tl;
	for (int i = 0; i < lib.len; i++) {
		struct srcfile *tf = srcfile_read(lib.items[i]);
		if (!tf) {
			diag(s, O_FILE, (struct srcpos){0}, "cannot read tapset '%s': %s", lib.items[i], strerror(errno));
			continue;
		}
		tf->is_tapset = true;
		tf->from_include = i < from_include;
		tapset_index_scan(&tl->index, tl->files.len, tf->text, tf->len);
		vec_push(&tl->files, tf);
	}
	tl->parsed = xcalloc((size_t)tl->files.len + 1, sizeof(bool));
	s->library_files = tl->files.len;
	/* the -I directories' files are the user's own: parsed now, their
	 * errors reported in pass 1 (and fatal with -W) as SystemTap does */
	for (int i = 0; i < tl->files.len; i++)
		if (tl->files.items[i]->from_include)
			library_parse(s, i);
	return s->errors || !s->user ? 1 : 0;
}

/* Parse library file i into s->library, before the files that come after
 * it in the library and those pass 2 generated. A file with errors costs
 * its own names, not the run (unless -W). */
static void library_parse(struct session *s, int i)
{
	struct tapset_library *tl = s->tapsets;
	int errors = s->errors;

	tl->parsed[i] = true;
	struct script *sc = parse_script(s, tl->files.items[i]);
	if (!sc) {
		if (!s->warnings_are_errors) {
			s->errors = errors;
			diag(s, W_GENERIC, (struct srcpos){0}, "tapset '%s' has errors, and will be skipped",
			     tl->files.items[i]->name);
		}
		return;
	}
	sc->library_file = i;
	int at = 0;
	while (at < s->library.len && s->library.items[at]->library_file >= 0 &&
	       s->library.items[at]->library_file < i)
		at++;
	vec_push(&s->library, sc);
	memmove(s->library.items + at + 1, s->library.items + at,
		(size_t)(s->library.len - 1 - at) * sizeof(*s->library.items));
	s->library.items[at] = sc;
	/* the aliases are listed again when next asked (alias.c) */
	s->aliases.len = 0;
	s->aliases_listed = false;
}

void library_need(struct session *s, int kind, const char *name)
{
	struct tapset_library *tl = s->tapsets;
	intvec files = { 0 };

	if (!tl)
		return;
	tapset_index_files(&tl->index, (enum tapset_name)kind, name, &files);
	for (int i = 0; i < files.len; i++)
		if (!tl->parsed[files.items[i]])
			library_parse(s, files.items[i]);
	free(files.items);
}

void library_need_all(struct session *s)
{
	struct tapset_library *tl = s->tapsets;

	for (int i = 0; tl && i < tl->files.len; i++)
		if (!tl->parsed[i])
			library_parse(s, i);
}

struct tapset_index *library_index(struct session *s)
{
	return s->tapsets ? &s->tapsets->index : NULL;
}
