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
	case TYPE_LONG: return "long";
	case TYPE_STRING: return "string";
	case TYPE_STATS: return "stats";
	case TYPE_VOID: return "void";
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

/* Copies of trees, for probe aliases: each expansion of an alias gets its
 * own prologue and body, since pass 2 annotates nodes (symbols, types). */
#define CLONE_VEC(dst, src, fn) do { \
	(dst).items = NULL; (dst).len = (dst).cap = 0; \
	for (int i_ = 0; i_ < (src).len; i_++) \
		vec_push(&(dst), fn((src).items[i_])); \
} while (0)

struct target_step *step_clone(const struct target_step *s)
{
	struct target_step *c = xmalloc(sizeof(*c));

	*c = *s;
	c->index = expr_clone(s->index);
	return c;
}

struct expr *expr_clone(const struct expr *e)
{
	struct expr *c;

	if (!e)
		return NULL;
	c = xmalloc(sizeof(*c));
	*c = *e;
	c->lhs = expr_clone(e->lhs);
	c->rhs = expr_clone(e->rhs);
	CLONE_VEC(c->args, e->args, expr_clone);
	CLONE_VEC(c->chain, e->chain, step_clone);
	return c;
}

struct stmt *stmt_clone(const struct stmt *st)
{
	struct stmt *c;

	if (!st)
		return NULL;
	c = xmalloc(sizeof(*c));
	*c = *st;
	CLONE_VEC(c->stmts, st->stmts, stmt_clone);
	c->expr = expr_clone(st->expr);
	c->body = stmt_clone(st->body);
	c->els = stmt_clone(st->els);
	c->init = expr_clone(st->init);
	c->step = expr_clone(st->step);
	CLONE_VEC(c->keys, st->keys, expr_clone);
	c->value = expr_clone(st->value);
	c->array = expr_clone(st->array);
	c->limit = expr_clone(st->limit);
	c->catch_var = expr_clone(st->catch_var);
	return c;
}

const char *pragma_next(const char **s, size_t *len)
{
	const char *c = *s;

	while (c && (c = strstr(c, "/*"))) {
		const char *e = strstr(c + 2, "*/"), *a, *b;

		if (!e)
			break;
		for (a = c + 2; a < e && (*a == ' ' || *a == '\t'); a++)
			;
		for (b = e; b > a && (b[-1] == ' ' || b[-1] == '\t'); b--)
			;
		c = e + 2;
		if (b > a && !memchr(a, ' ', (size_t)(b - a)) &&
		    !memchr(a, '\n', (size_t)(b - a))) {
			*s = c;
			*len = (size_t)(b - a);
			return a;
		}
	}
	*s = NULL;
	return NULL;
}

int stat_op_of(const char *name)
{
	static const char *const names[] = {
		[SO_COUNT] = "count", [SO_SUM] = "sum", [SO_MIN] = "min", [SO_MAX] = "max",
		[SO_AVG] = "avg", [SO_VARIANCE] = "variance",
	};

	for (int i = 0; name && i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(name, names[i]))
			return i;
	return -1;
}

const struct print_kind *print_kind(const char *name)
{
	static const struct print_kind kinds[] = {
		{ "print", false, false, false, false },   { "println", false, false, false, true },
		{ "printd", false, false, true, false },   { "printdln", false, false, true, true },
		{ "printf", false, true, false, false },   { "sprint", true, false, false, false },
		{ "sprintd", true, false, true, false },   { "sprintdln", true, false, true, true },
		{ "sprintf", true, true, false, false },   { "sprintln", true, false, false, true },
	};

	if (!name || (name[0] != 'p' && name[0] != 's'))
		return NULL;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!strcmp(name, kinds[i].name))
			return &kinds[i];
	return NULL;
}

bool expr_is_update(const struct expr *e)
{
	return e->kind == EXPR_ASSIGN || e->kind == EXPR_PREINC || e->kind == EXPR_POSTINC;
}
