/* ast.c - constructors for syntax-tree nodes and source files (see ast.h). */
#include "ast.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct expr *expr_new(enum expr_kind kind, struct srcpos pos)
{
	struct expr *e = xcalloc(1, sizeof(*e));

	e->kind = kind;
	e->pos = pos;
	return e;
}

/* Unsorted is -1, not 0 (0 means "sorted on the value"), so every
 * statement starts with an explicit sort_column. */
struct stmt *stmt_new(enum stmt_kind kind, struct srcpos pos)
{
	struct stmt *st = xcalloc(1, sizeof(*st));

	st->kind = kind;
	st->pos = pos;
	st->sort_column = -1;
	return st;
}

const char *type_name(enum type t)
{
	switch (t) {
	case T_LONG: return "long";
	case T_STRING: return "string";
	case T_STATS: return "stats";
	case T_VOID: return "void";
	default: return "unknown";
	}
}

/* text must be NUL-terminated at text[len]; the srcfile takes ownership. */
struct srcfile *srcfile_new(const char *name, char *text, size_t len)
{
	struct srcfile *f = xcalloc(1, sizeof(*f));
	size_t n = strlen(name);

	f->name = xstrdup(name);
	f->text = text;
	f->len = len;
	f->is_macro = n > 5 && strcmp(name + n - 5, ".stpm") == 0;
	return f;
}

struct srcfile *srcfile_read(const char *path)
{
	size_t len;
	char *text = read_file(path, &len);

	if (!text)
		return NULL;
	if (memchr(text, 0, len)) {
		/* a NUL byte would silently truncate the lexer's view */
		free(text);
		errno = EINVAL;
		return NULL;
	}
	return srcfile_new(path, text, len);
}
