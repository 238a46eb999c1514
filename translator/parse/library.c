/* library.c - pass 1: parse the user's script and the tapset library.
 *
 * The library is every *.stp file under the tapset directories (-I DIRs,
 * then the installed/build-tree one), one level of subdirectories deep
 * (e.g. linux/, x86_64/). Pass 2 then keeps only what the script uses.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diag.h"
#include "passes.h"

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
	for (int i = 0; i < lib.len; i++) {
		struct srcfile *tf = srcfile_read(lib.items[i]);
		if (!tf) {
			diag(s, O_FILE, (struct srcpos){0}, "cannot read tapset '%s': %s", lib.items[i], strerror(errno));
			continue;
		}
		tf->is_tapset = true;
		tf->from_include = i < from_include;
		int errors = s->errors;
		struct script *sc = parse_script(s, tf);
		if (sc)
			vec_push(&s->library, sc);
		else if (!s->warnings_are_errors) {
			/* a broken tapset costs its own functions, not the whole run */
			s->errors = errors;
			diag(s, W_GENERIC, (struct srcpos){0}, "tapset '%s' has errors, and will be skipped", tf->name);
		}
		s->library_files++;
	}
	return s->errors || !s->user ? 1 : 0;
}
