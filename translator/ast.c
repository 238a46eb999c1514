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

/* Each operator's spelling and the expressions it is spelled so in; a
 * binary operator with a compound assignment has that one's too. */
static const struct {
	const char *text, *compound;
	enum expr_kind kind;
} op_spellings[] = {
	[OP_MUL] = { "*", "*=", EXPR_BINARY },     [OP_DIV] = { "/", "/=", EXPR_BINARY },
	[OP_MOD] = { "%", "%=", EXPR_BINARY },     [OP_ADD] = { "+", "+=", EXPR_BINARY },
	[OP_SUB] = { "-", "-=", EXPR_BINARY },     [OP_CAT] = { ".", ".=", EXPR_BINARY },
	[OP_SHL] = { "<<", "<<=", EXPR_BINARY },   [OP_SHR] = { ">>", ">>=", EXPR_BINARY },
	[OP_USHR] = { ">>>", NULL, EXPR_BINARY },  [OP_AND] = { "&", "&=", EXPR_BINARY },
	[OP_XOR] = { "^", "^=", EXPR_BINARY },     [OP_OR] = { "|", "|=", EXPR_BINARY },
	[OP_LAND] = { "&&", NULL, EXPR_BINARY },   [OP_LOR] = { "||", NULL, EXPR_BINARY },
	[OP_LT] = { "<", NULL, EXPR_BINARY },      [OP_GT] = { ">", NULL, EXPR_BINARY },
	[OP_LE] = { "<=", NULL, EXPR_BINARY },     [OP_GE] = { ">=", NULL, EXPR_BINARY },
	[OP_EQ] = { "==", NULL, EXPR_BINARY },     [OP_NE] = { "!=", NULL, EXPR_BINARY },
	[OP_NEG] = { "-", NULL, EXPR_UNARY },      [OP_PLUS] = { "+", NULL, EXPR_UNARY },
	[OP_NOT] = { "!", NULL, EXPR_UNARY },      [OP_BITNOT] = { "~", NULL, EXPR_UNARY },
	[OP_INC] = { "++", NULL, EXPR_PREINC },    [OP_DEC] = { "--", NULL, EXPR_PREINC },
	[OP_REGEX_MATCH] = { "=~", NULL, EXPR_REGEX }, [OP_REGEX_NOMATCH] = { "!~", NULL, EXPR_REGEX },
	[OP_ASSIGN] = { "=", NULL, EXPR_ASSIGN },  [OP_STAT_ADD] = { "<<<", NULL, EXPR_ASSIGN },
};
#define N_OPS (sizeof(op_spellings) / sizeof(op_spellings[0]))

/* The operators spelled starting with each character (pass 1 asks for
 * every operator it reads: no walk of the whole table). */
static const unsigned char *ops_starting(unsigned char c)
{
	static unsigned char by_first[128][12];
	static bool built;

	if (!built) {
		for (size_t i = OP_NONE + 1; i < N_OPS; i++)
			for (int k = 0; k < 2; k++) {
				const char *t = k ? op_spellings[i].compound : op_spellings[i].text;
				unsigned char *l = t ? by_first[(unsigned char)t[0] & 127] : NULL;
				int n = 0;
				while (l && l[n] && l[n] != i)
					n++;
				if (l && !l[n])
					l[n] = (unsigned char)i;
			}
		built = true;
	}
	return by_first[c & 127];
}

enum op_kind op_of(enum expr_kind kind, const char *text)
{
	if (kind == EXPR_POSTINC)
		kind = EXPR_PREINC;
	for (const unsigned char *i = ops_starting((unsigned char)text[0]); *i; i++) {
		const char *spelled = op_spellings[*i].kind == kind ? op_spellings[*i].text
				      : kind == EXPR_ASSIGN ? op_spellings[*i].compound : NULL;
		if (spelled && !strcmp(text, spelled))
			return (enum op_kind)*i;
	}
	return OP_NONE;
}

const char *op_text(enum op_kind op)
{
	return op_spellings[op].text;
}

const char *expr_op_text(const struct expr *e)
{
	if (e->kind == EXPR_ASSIGN && op_spellings[e->op].compound)
		return op_spellings[e->op].compound;
	return op_text(e->op);
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
