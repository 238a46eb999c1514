/* parse.c - pass 1: recursive-descent parser for the SystemTap language.
 *
 * One function per grammar rule, the rule in the comment above it. Tokens
 * come from the preprocessor (lexer.h), which has already resolved %( %)
 * conditionals, @macros and $N/@N script arguments.
 *
 * Errors: the first error is reported with diag() and parsing of the file
 * stops (longjmp back to parse_script, which returns NULL). Nodes are never
 * freed, so abandoning a half-built tree is fine.
 *
 * Recursion is bounded: every nested expression, unary operator, operand of
 * an operator chain and statement counts against MAX_NESTING, so no input
 * can overflow the stack here or in the passes that walk the tree.
 *
 * Node positions: the token that starts the construct, except for infix
 * operators (binary, assignment, ternary, in, =~), which carry the position
 * of the operator, as SystemTap reports them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* vasprintf, strverscmp */
#endif
#include <setjmp.h>
#include <sys/resource.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ast.h"
#include "diag.h"
#include "lexer.h"
#include "session.h"

#define MAX_NESTING 1000
#define MAX_STACK (4u << 20)    /* bytes of stack the parser may use */
#define MAX_EXPANSION 10000     /* probe points from one {a,b}.{c,d} pattern */
#define MAX_EXPANSION_COMPS 1000000 /* components in all those points together */

struct parser {
	struct session *s;
	struct srcfile *file;
	struct pp *pp;
	struct token la[4];     /* lookahead */
	int nla;
	jmp_buf fail;
	int depth;
	uintptr_t stack_base;   /* parse_script's frame: where we started */
	size_t stack_budget;    /* bytes below stack_base we may use */
	bool in_function;       /* 'return' is allowed */
	bool guru_ok;           /* embedded C and guru @operators allowed */
	bool hist_arg;          /* in print's arguments: a bare @hist_* may be the one */
	/* --compatible below 2.6: an '[' after a value was left unparsed
	 * (no autocast); an error right there gets a note saying why */
	bool declined_index;
	struct srcpos declined_pos;
	struct script *sc;
	/* a token of the declaration being parsed was preceded by a systemtap_v
	 * condition: the declaration depends on the version (--check-version) */
	bool version_dependent;
};

typedef VEC(struct pp_comp *) compvec;
typedef VEC(compvec *) altvec;

static struct expr *parse_expression(struct parser *p);
static struct expr *parse_ternary(struct parser *p);
static struct expr *parse_unary(struct parser *p);
static struct expr *parse_value(struct parser *p);
static struct expr *parse_primary(struct parser *p);
static struct stmt *parse_statement(struct parser *p);
static struct stmt *parse_block(struct parser *p);
static bool parser_keyword(const struct parser *p, const char *word);

/* ---- errors and tokens ------------------------------------------------- */

static void describe(const struct token *t, char *buf, size_t n)
{
	switch (t->kind) {
	case TK_EOF: snprintf(buf, n, "end of input"); break;
	case TK_STRING: snprintf(buf, n, "string %.40s", t->text); break;
	case TK_EMBEDDED: snprintf(buf, n, "embedded code %%{"); break;
	default: snprintf(buf, n, "'%.40s'", t->text);
	}
}

static void report(struct parser *p, enum diag_tag tag, struct srcpos pos, const char *msg)
{
	diag(p->s, tag, pos, "%s", msg);
}

__attribute__((noreturn, format(printf, 4, 5)))
static void error_at(struct parser *p, enum diag_tag tag, struct srcpos pos, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	report(p, tag, pos, msg);
	free(msg);
	longjmp(p->fail, 1);
}

static struct token *peek_n(struct parser *p, int n)
{
	while (p->nla <= n) {
		struct token *t = &p->la[p->nla];

		pp_next(p->pp, t);
		if (t->kind == TK_ERROR)
			longjmp(p->fail, 1); /* already reported */
		p->nla++;
	}
	return &p->la[n];
}

static struct token *peek(struct parser *p) { return peek_n(p, 0); }

static struct token next(struct parser *p)
{
	struct token t = *peek(p);

	memmove(&p->la[0], &p->la[1], sizeof(p->la[0]) * (size_t)(p->nla - 1));
	p->nla--;
	p->version_dependent |= t.version_dependent;
	return t;
}

static bool same_pos(struct srcpos a, struct srcpos b)
{
	return a.file == b.file && a.line == b.line && a.col == b.col;
}

/* Error at the next token, with its chain of macro expansions. */
__attribute__((noreturn, format(printf, 3, 4)))
static void error_here(struct parser *p, enum diag_tag tag, const char *fmt, ...)
{
	struct token *t = peek(p);
	char what[64], *msg;
	va_list ap;

	describe(t, what, sizeof(what));
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	diag(p->s, tag, t->pos, "%s, saw %s", msg, what);
	for (struct token *c = t->chain; c; c = c->chain)
		diag_note(p->s, c->pos, "in the expansion of %s", c->text);
	if (p->declined_index && same_pos(p->declined_pos, t->pos))
		diag_note(p->s, t->pos, "indexing an arbitrary expression (autocast) needs "
			  "SystemTap 2.6 or later; --compatible=%s", p->s->compatible);
	free(msg);
	longjmp(p->fail, 1);
}

static bool is_op(const struct token *t, const char *op)
{
	return t->kind == TK_OP && strcmp(t->text, op) == 0;
}

static bool is_kw(const struct token *t, const char *kw)
{
	return t->kind == TK_IDENT && strcmp(t->text, kw) == 0;
}

static bool accept_op(struct parser *p, const char *op)
{
	if (!is_op(peek(p), op))
		return false;
	next(p);
	return true;
}

static bool accept_kw(struct parser *p, const char *kw)
{
	if (!is_kw(peek(p), kw))
		return false;
	next(p);
	return true;
}

static struct token expect_op(struct parser *p, const char *op)
{
	enum diag_tag tag = P_EXPECT_TOKEN;

	if (is_op(peek(p), op))
		return next(p);
	if (!strcmp(op, ")")) tag = P_EXPECT_RPAREN;
	else if (!strcmp(op, "]")) tag = P_EXPECT_RBRACKET;
	else if (!strcmp(op, "}")) tag = P_EXPECT_RBRACE;
	else if (!strcmp(op, "{")) tag = P_EXPECT_LBRACE;
	else if (!strcmp(op, ";")) tag = P_EXPECT_SEMI;
	error_here(p, tag, "expected '%s'", op);
}

/* A name for a variable, function or parameter: not a reserved word. */
static struct token expect_ident(struct parser *p, const char *what)
{
	struct token *t = peek(p);

	if (t->kind != TK_IDENT)
		error_here(p, P_EXPECT_IDENT, "expected %s", what);
	if (parser_keyword(p, t->text))
		error_here(p, P_RESERVED, "expected %s, not a reserved word", what);
	return next(p);
}

/* The depth bound keeps trees shallow enough for every later pass; the
 * stack check catches builds whose frames are much larger than usual (ASan,
 * -O0) or a small stack limit, before the depth bound is reached. */
static void enter(struct parser *p)
{
	uintptr_t here = (uintptr_t)__builtin_frame_address(0);

	if (++p->depth > MAX_NESTING)
		error_here(p, P_NESTING, "nesting deeper than %d levels", MAX_NESTING);
	if (p->stack_base > here && p->stack_base - here > p->stack_budget)
		error_here(p, P_NESTING, "nesting too deep (%d levels use up the parser's stack)",
			   p->depth);
}

/* Half the stack limit, at most MAX_STACK. */
static size_t stack_budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 2 < MAX_STACK)
		return (size_t)rl.rlim_cur / 2;
	return MAX_STACK;
}

static void leave(struct parser *p, int n)
{
	p->depth -= n;
}

static void need_guru(struct parser *p, struct srcpos pos, enum diag_tag tag, const char *what)
{
	if (!p->guru_ok)
		error_at(p, tag, pos, "%s needs guru mode (-g)", what);
}

/* Does --compatible ask for a SystemTap older than version? Versions compare
 * as numbers piece by piece ("2.10" is after "2.6"), as SystemTap does.
 * Tapset files always get today's language (they still see systemtap_v),
 * so that the library need not be written for every old version. */
static bool compat_before(const struct parser *p, const char *version)
{
	return p->s && p->s->compatible && !(p->file && p->file->is_tapset) &&
	       strverscmp(p->s->compatible, version) < 0;
}

/* Is the word a keyword here? 'private' is one from SystemTap 3.0 on; before,
 * it is an ordinary name. */
static bool parser_keyword(const struct parser *p, const char *word)
{
	if (!strcmp(word, "private") && compat_before(p, "3.0"))
		return false;
	return is_keyword(word);
}

/* Refuse a construct that the --compatible version did not have yet. */
__attribute__((noreturn))
static void refuse_compat(struct parser *p, struct srcpos pos, const char *what, const char *since)
{
	error_at(p, P_COMPAT, pos, "%s needs SystemTap %s or later; --compatible=%s",
		 what, since, p->s->compatible);
}

/* Offset of pos in its file, or -1 if it is not inside the file's text. */
static long offset_of(struct srcpos pos)
{
	const char *t = pos.file->text, *end = t + pos.file->len;
	int line = 1;

	while (t < end && line < pos.line)
		if (*t++ == '\n')
			line++;
	if (line != pos.line || pos.col < 1 || pos.col - 1 > end - t)
		return -1;
	return (long)(t - pos.file->text) + pos.col - 1;
}

/* Before SystemTap 2.0 the lexer glued adjacent string literals only across
 * blanks: a comment (or anything else) between them kept them apart. True if
 * b follows a in the same file with nothing but blanks in between. */
static bool blank_between(const struct token *a, const struct token *b)
{
	const struct srcfile *f = a->pos.file;
	long ea, sb;

	if (!f || f != b->pos.file || a->chain || b->chain)
		return false;
	ea = offset_of(a->pos);
	sb = offset_of(b->pos);
	if (ea < 0 || sb < 0 || (size_t)ea + strlen(a->text) > f->len ||
	    memcmp(f->text + ea, a->text, strlen(a->text)) != 0)
		return false; /* a's text is not there as written (a substituted @N) */
	for (ea += (long)strlen(a->text); ea < sb; ea++)
		if (!strchr(" \t\r\n\f\v", f->text[ea]))
			return false;
	return ea == sb;
}

/* ---- literals ---------------------------------------------------------- */

/* string := STRING {STRING}   (adjacent literals are one string; before
 * SystemTap 2.0 only when just blanks separate them) */
static struct expr *parse_string(struct parser *p)
{
	struct token t = next(p);
	struct expr *e = expr_new(EXPR_STR, t.pos);
	struct strbuf sb = STRBUF_INIT;
	bool old_glue = compat_before(p, "2.0");

	strbuf_add(&sb, t.str, t.str_len);
	while (peek(p)->kind == TK_STRING && (!old_glue || blank_between(&t, peek(p)))) {
		t = next(p);
		strbuf_add(&sb, t.str, t.str_len);
	}
	e->str_len = sb.len;
	e->str = strbuf_detach(&sb);
	return e;
}

/* literal := ['-'] NUMBER | string */
static struct expr *parse_literal(struct parser *p, bool strings, bool numbers)
{
	struct token *t = peek(p);

	if (strings && t->kind == TK_STRING)
		return parse_string(p);
	if (numbers && (t->kind == TK_NUMBER || (is_op(t, "-") && peek_n(p, 1)->kind == TK_NUMBER))) {
		bool neg = accept_op(p, "-");
		struct token n = next(p);
		struct expr *e = expr_new(EXPR_NUM, n.pos);

		e->num = neg ? (int64_t)(0 - (uint64_t)n.num) : n.num;
		return e;
	}
	error_here(p, P_EXPECT_LITERAL, "expected %s",
		   strings && numbers ? "a number or string literal"
		   : strings ? "a string literal" : "a number");
}

/* ---- expressions -------------------------------------------------------- */

static struct expr *binary(enum expr_kind kind, struct token op, struct expr *l, struct expr *r)
{
	struct expr *e = expr_new(kind, op.pos);

	e->op = op_of(kind, op.text);
	e->lhs = l;
	e->rhs = r;
	return e;
}

static bool is_op_in(const struct token *t, const char *const *ops)
{
	for (; *ops; ops++)
		if (is_op(t, *ops))
			return true;
	return false;
}

/* expression := assignment
 * assignment := ternary [ASSIGN_OP assignment]   (right associative) */
static struct expr *parse_expression(struct parser *p)
{
	static const char *const assign_ops[] = {
		"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=", ".=",
		"<<<", NULL,
	};
	struct expr *lhs;

	enter(p);
	lhs = parse_ternary(p);
	if (is_op_in(peek(p), assign_ops)) {
		struct token op = next(p);

		lhs = binary(EXPR_ASSIGN, op, lhs, parse_expression(p));
	}
	leave(p, 1);
	return lhs;
}

typedef struct expr *(*rule_fn)(struct parser *);

/* Left-associative chain: operand {op operand}. Each operand deepens the
 * (left-leaning) tree, so it counts against the nesting bound. */
static struct expr *left_chain(struct parser *p, rule_fn operand, const char *const *ops)
{
	struct expr *e = operand(p);
	int n = 0;

	while (is_op_in(peek(p), ops)) {
		struct token op = next(p);

		enter(p);
		n++;
		e = binary(EXPR_BINARY, op, e, operand(p));
	}
	leave(p, n);
	return e;
}

/* multiplicative := unary {('*' | '/' | '%') unary} */
static struct expr *parse_multiplicative(struct parser *p)
{
	static const char *const ops[] = { "*", "/", "%", NULL };
	return left_chain(p, parse_unary, ops);
}

/* additive := multiplicative {('+' | '-') multiplicative} */
static struct expr *parse_additive(struct parser *p)
{
	static const char *const ops[] = { "+", "-", NULL };
	return left_chain(p, parse_multiplicative, ops);
}

/* concat := additive {'.' additive} */
static struct expr *parse_concat(struct parser *p)
{
	static const char *const ops[] = { ".", NULL };
	return left_chain(p, parse_additive, ops);
}

/* shift := concat {('<<' | '>>' | '>>>') concat} */
static struct expr *parse_shift(struct parser *p)
{
	static const char *const ops[] = { "<<", ">>", ">>>", NULL };
	return left_chain(p, parse_concat, ops);
}

/* comparison := shift ( ('=~' | '!~') string | {CMP_OP shift} )
 * A regex match takes a literal pattern and does not chain. */
static struct expr *parse_comparison(struct parser *p)
{
	static const char *const ops[] = { "==", "!=", "<", ">", "<=", ">=", NULL };
	struct expr *e = parse_shift(p);
	int n = 0;

	if (is_op(peek(p), "=~") || is_op(peek(p), "!~")) {
		struct token op = next(p);

		if (peek(p)->kind != TK_STRING)
			error_here(p, P_EXPECT_LITERAL, "expected a literal string (regular expression) after '%s'",
				   op.text);
		return binary(EXPR_REGEX, op, e, parse_string(p));
	}
	while (is_op_in(peek(p), ops)) {
		struct token op = next(p);

		enter(p);
		n++;
		e = binary(EXPR_BINARY, op, e, parse_shift(p));
	}
	leave(p, n);
	return e;
}

/* indexable := IDENT | '@hist_log' (...) | '@hist_linear' (...) */
static struct expr *parse_indexable(struct parser *p)
{
	struct token *t = peek(p);

	if (t->kind == TK_AT_OP && (!strcmp(t->text, "@hist_log") || !strcmp(t->text, "@hist_linear")))
		return parse_primary(p);
	{
		struct token id = expect_ident(p, "an array name");
		struct expr *e = expr_new(EXPR_VAR, id.pos);

		e->name = id.text;
		return e;
	}
}

/* keys := key {',' key} ;  key := '*' | expression */
static void parse_keys(struct parser *p, struct expr *into, bool stars)
{
	do {
		if (stars && is_op(peek(p), "*") &&
		    (is_op(peek_n(p, 1), ",") || is_op(peek_n(p, 1), "]"))) {
			vec_push(&into->args, expr_new(EXPR_STAR, next(p).pos));
			continue;
		}
		if (is_op(peek(p), "]"))
			error_here(p, P_EXPECT_EXPR, "expected an index expression");
		vec_push(&into->args, parse_expression(p));
	} while (accept_op(p, ","));
}

/* array_in := '[' keys ']' 'in' indexable | comparison ['in' indexable] */
static struct expr *parse_array_in(struct parser *p)
{
	struct expr *e;

	if (is_op(peek(p), "[")) {
		struct token lb = next(p);

		e = expr_new(EXPR_IN, lb.pos);
		parse_keys(p, e, true);
		expect_op(p, "]");
		if (!is_kw(peek(p), "in"))
			error_here(p, P_EXPECT_IN, "expected 'in' after [keys]");
		e->pos = next(p).pos;
		e->lhs = parse_indexable(p);
		return e;
	}
	e = parse_comparison(p);
	if (is_kw(peek(p), "in")) {
		struct expr *in = expr_new(EXPR_IN, next(p).pos);

		vec_push(&in->args, e);
		in->lhs = parse_indexable(p);
		return in;
	}
	return e;
}

/* bit_and := array_in {'&' array_in} */
static struct expr *parse_bit_and(struct parser *p)
{
	static const char *const ops[] = { "&", NULL };
	return left_chain(p, parse_array_in, ops);
}

/* bit_xor := bit_and {'^' bit_and} */
static struct expr *parse_bit_xor(struct parser *p)
{
	static const char *const ops[] = { "^", NULL };
	return left_chain(p, parse_bit_and, ops);
}

/* bit_or := bit_xor {'|' bit_xor} */
static struct expr *parse_bit_or(struct parser *p)
{
	static const char *const ops[] = { "|", NULL };
	return left_chain(p, parse_bit_xor, ops);
}

/* logical_and := bit_or {'&&' bit_or} */
static struct expr *parse_logical_and(struct parser *p)
{
	static const char *const ops[] = { "&&", NULL };
	return left_chain(p, parse_bit_or, ops);
}

/* logical_or := logical_and {'||' logical_and} */
static struct expr *parse_logical_or(struct parser *p)
{
	static const char *const ops[] = { "||", NULL };
	return left_chain(p, parse_logical_and, ops);
}

/* ternary := logical_or ['?' expression ':' ternary]
 * Before SystemTap 4.0 (--compatible=3.x and older) the third operand was a
 * whole expression, so it took in an assignment: a ? b : c = d was
 * a ? b : (c = d), where it is now (a ? b : c) = d, as in C. */
static struct expr *parse_ternary(struct parser *p)
{
	struct expr *cond = parse_logical_or(p), *e;
	struct token q;

	if (!is_op(peek(p), "?"))
		return cond;
	q = next(p);
	e = expr_new(EXPR_TERNARY, q.pos);
	vec_push(&e->args, cond);
	vec_push(&e->args, parse_expression(p));
	expect_op(p, ":");
	enter(p);
	vec_push(&e->args, compat_before(p, "4.0") ? parse_expression(p) : parse_ternary(p));
	leave(p, 1);
	return e;
}

/* unary := '-' NUMBER | ('!' | '~' | '-' | '+') unary | ('++' | '--') value
 *        | '&' value | postfix
 * postfix := value ['++' | '--'] */
static struct expr *parse_unary(struct parser *p)
{
	struct token *t = peek(p);
	struct expr *e;

	if (is_op(t, "-") && peek_n(p, 1)->kind == TK_NUMBER &&
	    !is_op(peek_n(p, 2), "->") && !is_op(peek_n(p, 2), "[") &&
	    !is_op(peek_n(p, 2), "$") && !is_op(peek_n(p, 2), "$$")) {
		/* a negative literal is one number (it prints back as -5) */
		struct token op = next(p), n = next(p);

		e = expr_new(EXPR_NUM, op.pos);
		e->num = (int64_t)(0 - (uint64_t)n.num);
		return e;
	}
	if (is_op(t, "!") || is_op(t, "~") || is_op(t, "-") || is_op(t, "+")) {
		struct token op = next(p);

		enter(p);
		e = expr_new(EXPR_UNARY, op.pos);
		e->op = op_of(EXPR_UNARY, op.text);
		e->lhs = parse_unary(p);
		leave(p, 1);
		return e;
	}
	if (is_op(t, "++") || is_op(t, "--")) {
		struct token op = next(p);

		e = expr_new(EXPR_PREINC, op.pos);
		e->op = op_of(EXPR_PREINC, op.text);
		e->lhs = parse_value(p);
		return e;
	}
	if (is_op(t, "&")) {
		struct token op = next(p);

		e = expr_new(EXPR_ADDROF, op.pos);
		if (compat_before(p, "2.6") && is_op(peek(p), "("))
			refuse_compat(p, op.pos, "'&' of a parenthesized expression", "2.6");
		e->lhs = parse_value(p);
		if (compat_before(p, "2.6") && e->lhs->kind != EXPR_TARGET &&
		    e->lhs->kind != EXPR_CAST && e->lhs->kind != EXPR_ATVAR)
			refuse_compat(p, op.pos, "'&' of anything but a $target, @cast or @var", "2.6");
		return e;
	}
	e = parse_value(p);
	if (is_op(peek(p), "++") || is_op(peek(p), "--")) {
		struct token op = next(p);
		struct expr *inc = expr_new(EXPR_POSTINC, op.pos);

		inc->op = op_of(EXPR_POSTINC, op.text);
		inc->lhs = e;
		return inc;
	}
	return e;
}

/* Split trailing '$' / '$$' off a name ("$var$" -> "$var" + "$"). */
static char *split_suffix(struct parser *p, struct token *t, char *name, char **suffix)
{
	size_t n = strlen(name), k = 0;
	size_t min = name[0] == '$' ? (name[1] == '$' ? 3 : 2) : 1;

	while (n - k > min && name[n - k - 1] == '$')
		k++;
	if (k > 2)
		error_at(p, P_BAD_TARGET, t->pos, "too many '$' after '%s'", name);
	*suffix = k ? xstrdup(name + n - k) : NULL;
	return xstrndup(name, n - k);
}

static void add_step(struct expr *e, int kind, struct srcpos pos, char *field, struct expr *index)
{
	struct target_step *s = xcalloc(1, sizeof(*s));

	s->kind = kind;
	s->pos = pos;
	s->field = field;
	s->index = index;
	vec_push(&e->chain, s);
}

/* chain := {'->' (FIELD | '$' | '$$') | '[' expression ']'} ['$' | '$$']
 * Appended to e's own chain; ends at a pretty-print suffix. */
static void parse_chain(struct parser *p, struct expr *e)
{
	for (;;) {
		struct token *t = peek(p);

		if (e->suffix)
			return;
		if (is_op(t, "->")) {
			struct token f;

			next(p);
			t = peek(p);
			if (is_op(t, "$") || is_op(t, "$$")) {
				e->suffix = next(p).text;
				return;
			}
			if (t->kind != TK_IDENT)
				error_here(p, P_BAD_TARGET, "expected a field name after '->'");
			f = next(p);
			add_step(e, TS_FIELD, f.pos, split_suffix(p, &f, f.text, &e->suffix), NULL);
		} else if (is_op(t, "[")) {
			struct srcpos pos = next(p).pos;
			struct expr *ix = parse_expression(p);

			expect_op(p, "]");
			add_step(e, TS_INDEX, pos, NULL, ix);
		} else if (is_op(t, "$") || is_op(t, "$$")) {
			e->suffix = next(p).text;
		} else {
			return;
		}
	}
}

/* args := '(' [expression {',' expression}] ')' */
static void parse_call_args(struct parser *p, struct expr *e)
{
	expect_op(p, "(");
	if (accept_op(p, ")"))
		return;
	do
		vec_push(&e->args, parse_expression(p));
	while (accept_op(p, ","));
	expect_op(p, ")");
}

/* The print family is checked here, as SystemTap does: printf needs a
 * literal format, printd a literal delimiter and two values. */
static void check_print(struct parser *p, struct expr *e, struct token *name)
{
	const char *n = e->name;
	const struct print_kind *k = e->print;
	bool fmt = k && k->formatted, delim = k && k->delim;
	bool any = k && !fmt && !delim && !k->newline;

	if ((fmt || delim) && (!e->args.len || e->args.items[0]->kind != EXPR_STR))
		error_at(p, P_PRINT_ARGS, e->args.len ? e->args.items[0]->pos : name->pos,
			 "%s needs a literal string %s as its first argument", n,
			 fmt ? "format" : "delimiter");
	if (delim && e->args.len < 3)
		error_at(p, P_PRINT_ARGS, name->pos, "%s needs a delimiter and at least two values", n);
	for (int i = 0; i < e->args.len; i++)
		if (e->args.items[i]->kind == EXPR_HIST && e->args.len > 1)
			error_at(p, P_EXPECT_EXPR, e->args.items[i]->pos,
				 "base histogram operator where expression expected");
	if (any && !e->args.len)
		error_at(p, P_PRINT_ARGS, name->pos, "%s needs at least one argument", n);
}

/* print(hist) / println / sprint / sprintln: the one place a histogram is a
 * value, and then as the only argument, as in SystemTap. */
static bool hist_printer(const struct print_kind *k)
{
	return k && !k->formatted && !k->delim;
}

static const char *const stat_ops[] = { "@count", "@sum", "@min", "@max", "@avg", "@variance", NULL };

static bool in_list(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

/* at_operator := STATOP '(' expression [',' expression] ')'
 *   | '@hist_log' '(' expression ')'
 *   | '@hist_linear' '(' expression ',' expression ',' expression ',' expression ')'
 *   | '@cast' '(' expression ',' string [',' string] ')' chain
 *   | '@var' '(' string [',' string] ')' chain
 *   | '@defined' '(' expression ')' | '@entry' '(' expression ')'
 *   | '@choose_defined' '(' expression ',' expression ')'
 *   | '@perf' '(' string ')' | '@probewrite' '(' expression ')'
 *   | ('@kregister' | '@uregister' | '@kderef' | '@uderef' | '@const') args  (guru) */
static struct expr *parse_at_operator(struct parser *p)
{
	struct token t = next(p);
	const char *n = t.text;
	struct expr *e;

	if (in_list(n, stat_ops)) {
		e = expr_new(EXPR_STATOP, t.pos);
		e->name = xstrdup(n + 1);
		e->statop = (enum stat_op)stat_op_of(e->name);
		expect_op(p, "(");
		e->lhs = parse_expression(p);
		if (!strcmp(n, "@variance") && accept_op(p, ","))
			vec_push(&e->args, parse_expression(p));
		expect_op(p, ")");
		return e;
	}
	if (!strcmp(n, "@hist_log") || !strcmp(n, "@hist_linear")) {
		e = expr_new(EXPR_HIST, t.pos);
		e->name = xstrdup(n + 1);
		expect_op(p, "(");
		e->lhs = parse_expression(p);
		if (!strcmp(n, "@hist_linear")) {
			for (int i = 0; i < 3; i++) {
				expect_op(p, ",");
				vec_push(&e->args, parse_expression(p));
			}
		}
		expect_op(p, ")");
		return e;
	}
	if (!strcmp(n, "@cast")) {
		e = expr_new(EXPR_CAST, t.pos);
		expect_op(p, "(");
		e->lhs = parse_expression(p);
		expect_op(p, ",");
		e->str = parse_literal(p, true, false)->str;
		if (accept_op(p, ","))
			e->module = parse_literal(p, true, false)->str;
		expect_op(p, ")");
		parse_chain(p, e);
		return e;
	}
	if (!strcmp(n, "@var")) {
		e = expr_new(EXPR_ATVAR, t.pos);
		expect_op(p, "(");
		e->name = parse_literal(p, true, false)->str;
		if (accept_op(p, ","))
			e->module = parse_literal(p, true, false)->str;
		expect_op(p, ")");
		parse_chain(p, e);
		return e;
	}
	if (!strcmp(n, "@defined") || !strcmp(n, "@entry")) {
		e = expr_new(!strcmp(n, "@defined") ? EXPR_DEFINED : EXPR_ENTRY, t.pos);
		expect_op(p, "(");
		e->lhs = parse_expression(p);
		expect_op(p, ")");
		return e;
	}
	if (!strcmp(n, "@choose_defined")) {
		e = expr_new(EXPR_CHOOSE, t.pos);
		expect_op(p, "(");
		vec_push(&e->args, parse_expression(p));
		expect_op(p, ",");
		vec_push(&e->args, parse_expression(p));
		expect_op(p, ")");
		return e;
	}
	if (!strcmp(n, "@perf")) {
		struct expr *name;

		e = expr_new(EXPR_PERF, t.pos);
		expect_op(p, "(");
		name = parse_literal(p, true, false);
		if (!name->str_len)
			error_at(p, P_SYNTAX, name->pos, "@perf needs a counter name");
		e->str = name->str;
		e->str_len = name->str_len;
		expect_op(p, ")");
		return e;
	}
	if (!strcmp(n, "@probewrite")) {
		e = expr_new(EXPR_CALL, t.pos);
		e->name = t.text;
		expect_op(p, "(");
		vec_push(&e->args, parse_expression(p));
		expect_op(p, ")");
		return e;
	}
	if (!strcmp(n, "@kregister") || !strcmp(n, "@uregister") || !strcmp(n, "@kderef") ||
	    !strcmp(n, "@uderef") || !strcmp(n, "@const")) {
		int want = (!strcmp(n, "@kderef") || !strcmp(n, "@uderef")) ? 2 : 1;

		need_guru(p, t.pos, P_GURU_ONLY, n);
		e = expr_new(EXPR_CALL, t.pos);
		e->name = t.text;
		parse_call_args(p, e);
		if (e->args.len != want)
			error_at(p, P_SYNTAX, t.pos, "%s takes %d argument%s", n, want, want > 1 ? "s" : "");
		if (!strcmp(n, "@const") && e->args.items[0]->kind != EXPR_STR)
			error_at(p, P_EXPECT_LITERAL, e->args.items[0]->pos, "@const takes a literal string");
		return e;
	}
	error_at(p, P_MACRO_UNDEFINED, t.pos, "unknown macro or @operator '%s'", n);
}

/* primary := NUMBER | string | '(' expression ')' | EMBEDDED
 *          | TARGET chain | at_operator
 *          | IDENT '(' args ')' | IDENT '[' keys ']' | IDENT */
static struct expr *parse_primary(struct parser *p)
{
	struct token *t = peek(p);
	struct expr *e;

	switch (t->kind) {
	case TK_NUMBER:
		e = expr_new(EXPR_NUM, t->pos);
		e->num = next(p).num;
		return e;
	case TK_STRING:
		return parse_string(p);
	case TK_EMBEDDED: {
		struct token c = next(p);

		need_guru(p, c.pos, P_EMBEDDED_NOT_GURU, "embedded C code");
		e = expr_new(EXPR_EMBEDDED, c.pos);
		e->str = c.str;
		e->str_len = c.str_len;
		return e;
	}
	case TK_DOLLAR_VAR: {
		struct token v = next(p);

		e = expr_new(EXPR_TARGET, v.pos);
		e->name = split_suffix(p, &v, v.text, &e->suffix);
		parse_chain(p, e);
		return e;
	}
	case TK_AT_OP:
		return parse_at_operator(p);
	case TK_IDENT: {
		struct token id;

		if (parser_keyword(p, t->text))
			error_here(p, P_EXPECT_EXPR, "expected an expression (reserved word)");
		id = next(p);
		if (is_op(peek(p), "(")) {
			e = expr_new(EXPR_CALL, id.pos);
			e->name = id.text;
			e->print = print_kind(id.text);
			bool outer = p->hist_arg;

			p->hist_arg = hist_printer(e->print);
			parse_call_args(p, e);
			p->hist_arg = outer;
			check_print(p, e, &id);
			return e;
		}
		if (is_op(peek(p), "[")) {
			e = expr_new(EXPR_INDEX, id.pos);
			e->name = id.text;
			next(p);
			parse_keys(p, e, true);
			expect_op(p, "]");
			return e;
		}
		e = expr_new(EXPR_VAR, id.pos);
		e->name = id.text;
		return e;
	}
	default:
		break;
	}
	if (is_op(t, "(")) {
		next(p);
		e = parse_expression(p);
		expect_op(p, ")");
		return e;
	}
	error_here(p, P_EXPECT_EXPR, "expected an expression");
}

/* value := primary [hist_index] [autocast]
 * hist_index := '[' expression ']'          (after @hist_log/@hist_linear)
 * autocast := chain (on anything that is not a $target, @cast or @var,
 *             which carry their own chain) */
static struct expr *parse_value(struct parser *p)
{
	struct expr *e = parse_primary(p);
	struct expr *ac;

	if (e->kind == EXPR_HIST && !is_op(peek(p), "[") && !(p->hist_arg && is_op(peek(p), ")")))
		error_at(p, P_EXPECT_EXPR, e->pos, "base histogram operator where expression expected");
	if (e->kind == EXPR_HIST && is_op(peek(p), "[")) {
		struct expr *ix = expr_new(EXPR_INDEX, next(p).pos);

		ix->lhs = e;
		vec_push(&ix->args, parse_expression(p));
		expect_op(p, "]");
		e = ix;
	}
	if (e->kind == EXPR_TARGET || e->kind == EXPR_CAST || e->kind == EXPR_ATVAR)
		return e;
	if (!is_op(peek(p), "->") && !is_op(peek(p), "[") && !is_op(peek(p), "$") &&
	    !is_op(peek(p), "$$"))
		return e;
	if (compat_before(p, "2.6")) {
		/* Before autocast, "f() [1] in a" on one line was two statements,
		 * so a '[' is left alone; '->' and '$' cannot start anything. */
		if (is_op(peek(p), "[")) {
			p->declined_index = true;
			p->declined_pos = peek(p)->pos;
			return e;
		}
		refuse_compat(p, peek(p)->pos, "a '->' or '$' suffix on an arbitrary expression "
			      "(autocast)", "2.6");
	}
	ac = expr_new(EXPR_AUTOCAST, peek(p)->pos);
	ac->lhs = e;
	parse_chain(p, ac);
	return ac;
}

/* ---- statements ---------------------------------------------------------- */

/* Simple statements may be followed by one ';'. */
static void optional_semi(struct parser *p)
{
	accept_op(p, ";");
}

/* block := '{' {statement} '}' */
static struct stmt *parse_block(struct parser *p)
{
	struct token lb = expect_op(p, "{");
	struct stmt *b = stmt_new(STMT_BLOCK, lb.pos);

	while (!is_op(peek(p), "}")) {
		if (peek(p)->kind == TK_EOF)
			error_at(p, P_EXPECT_RBRACE, lb.pos, "this '{' is not closed by '}'");
		vec_push(&b->stmts, parse_statement(p));
	}
	next(p);
	return b;
}

static struct expr *var_from(struct token *t)
{
	struct expr *e = expr_new(EXPR_VAR, t->pos);

	e->name = t->text;
	return e;
}

/* sort := ['+' | '-'] ; at most one sort spec per foreach */
static void parse_sort(struct parser *p, struct stmt *st, int column)
{
	if (!is_op(peek(p), "+") && !is_op(peek(p), "-"))
		return;
	if (st->sort_dir)
		error_here(p, P_BAD_FOREACH, "only one sort order may be given in a foreach");
	st->sort_dir = is_op(peek(p), "+") ? 1 : -1;
	st->sort_column = column;
	next(p);
}

/* foreach := 'foreach' '(' [IDENT sort '='] (IDENT sort | '[' IDENT sort {',' IDENT sort} ']')
 *            'in' array [sort | STATOP sort] ['limit' expression] ')' statement
 * array := IDENT ['[' keys ']'] | hist_op */
static struct stmt *parse_foreach(struct parser *p, struct token *kw)
{
	struct stmt *st = stmt_new(STMT_FOREACH, kw->pos);
	struct token *t;

	expect_op(p, "(");
	bool sorted_value = is_op(peek_n(p, 1), "+") || is_op(peek_n(p, 1), "-");
	if (peek(p)->kind == TK_IDENT && is_op(peek_n(p, sorted_value ? 2 : 1), "=")) {
		struct token v = expect_ident(p, "a variable for the value");

		st->value = var_from(&v);
		parse_sort(p, st, 0);   /* v- = k: sorted by value */
		next(p);
	}
	if (accept_op(p, "[")) {
		do {
			struct token k = expect_ident(p, "a key variable");

			vec_push(&st->keys, var_from(&k));
			parse_sort(p, st, st->keys.len);
		} while (accept_op(p, ","));
		expect_op(p, "]");
	} else {
		t = peek(p);
		if (t->kind != TK_IDENT)
			error_here(p, P_BAD_FOREACH, "expected a key variable or '[' in foreach");
		struct token k = expect_ident(p, "a key variable");

		vec_push(&st->keys, var_from(&k));
		parse_sort(p, st, 1);
	}
	if (!accept_kw(p, "in"))
		error_here(p, P_EXPECT_IN, "expected 'in' in foreach");
	t = peek(p);
	if (t->kind == TK_AT_OP && (!strcmp(t->text, "@hist_log") || !strcmp(t->text, "@hist_linear"))) {
		st->array = parse_primary(p);
	} else {
		struct token a = expect_ident(p, "an array name");

		st->array = var_from(&a);
		if (is_op(peek(p), "[")) {
			struct expr *ix = expr_new(EXPR_INDEX, a.pos);

			ix->name = a.text;
			next(p);
			parse_keys(p, ix, true);
			expect_op(p, "]");
			st->array = ix;
		}
	}
	t = peek(p);
	if (t->kind == TK_AT_OP) {
		struct token agg = next(p);

		if (!in_list(agg.text, stat_ops) || !strcmp(agg.text, "@variance"))
			error_at(p, P_BAD_FOREACH, agg.pos,
				 "expected @count, @sum, @min, @max or @avg to sort on");
		if (!is_op(peek(p), "+") && !is_op(peek(p), "-"))
			error_here(p, P_BAD_FOREACH, "expected '+' or '-' after %s", agg.text);
		st->sort_aggr = xstrdup(agg.text + 1);
		if (stat_op_of(st->sort_aggr) >= 0)
			st->sort_op = (enum stat_op)stat_op_of(st->sort_aggr);
	}
	parse_sort(p, st, 0);
	if (accept_kw(p, "limit"))
		st->limit = parse_expression(p);
	expect_op(p, ")");
	st->body = parse_statement(p);
	return st;
}

/* for := 'for' '(' [expression] ';' [expression] ';' [expression] ')' statement */
static struct stmt *parse_for(struct parser *p, struct token *kw)
{
	struct stmt *st = stmt_new(STMT_FOR, kw->pos);

	expect_op(p, "(");
	if (!is_op(peek(p), ";"))
		st->init = parse_expression(p);
	expect_op(p, ";");
	if (!is_op(peek(p), ";"))
		st->expr = parse_expression(p);
	expect_op(p, ";");
	if (!is_op(peek(p), ")"))
		st->step = parse_expression(p);
	expect_op(p, ")");
	st->body = parse_statement(p);
	return st;
}

/* cond := '(' expression ')' */
static struct expr *parse_paren_cond(struct parser *p)
{
	struct expr *e;

	expect_op(p, "(");
	e = parse_expression(p);
	expect_op(p, ")");
	return e;
}

/* try := 'try' block 'catch' ['(' IDENT ')'] block */
static struct stmt *parse_try(struct parser *p, struct token *kw)
{
	struct stmt *st = stmt_new(STMT_TRY, kw->pos);

	st->body = parse_block(p);
	if (!accept_kw(p, "catch"))
		error_here(p, P_EXPECT_TOKEN, "expected 'catch' after the try block");
	if (accept_op(p, "(")) {
		struct token v = expect_ident(p, "a variable for the error message");

		st->catch_var = var_from(&v);
		expect_op(p, ")");
	}
	st->els = parse_block(p);
	return st;
}

/* statement := ';' | block | if | while | for | foreach | try
 *            | 'return' [expression] | 'next' | 'break' | 'continue'
 *            | 'delete' expression | EMBEDDED | expression      [';'] */
static struct stmt *parse_statement(struct parser *p)
{
	struct token *t = peek(p);
	struct stmt *st;

	enter(p);
	if (is_op(t, ";")) {
		st = stmt_new(STMT_NULL, next(p).pos);
	} else if (is_op(t, "{")) {
		st = parse_block(p);
	} else if (t->kind == TK_EMBEDDED) {
		struct token c = next(p);

		need_guru(p, c.pos, P_EMBEDDED_NOT_GURU, "embedded C code");
		st = stmt_new(STMT_EMBEDDED, c.pos);
		st->code = c.str;
		optional_semi(p);
	} else if (t->kind == TK_IDENT && parser_keyword(p, t->text)) {
		struct token kw = next(p);

		if (!strcmp(kw.text, "if")) {
			st = stmt_new(STMT_IF, kw.pos);
			st->expr = parse_paren_cond(p);
			st->body = parse_statement(p);
			if (accept_kw(p, "else"))
				st->els = parse_statement(p);
		} else if (!strcmp(kw.text, "while")) {
			st = stmt_new(STMT_WHILE, kw.pos);
			st->expr = parse_paren_cond(p);
			st->body = parse_statement(p);
		} else if (!strcmp(kw.text, "for")) {
			st = parse_for(p, &kw);
		} else if (!strcmp(kw.text, "foreach")) {
			st = parse_foreach(p, &kw);
		} else if (!strcmp(kw.text, "try")) {
			st = parse_try(p, &kw);
		} else if (!strcmp(kw.text, "return")) {
			if (!p->in_function)
				error_at(p, P_BAD_CONTEXT, kw.pos, "'return' outside a function");
			st = stmt_new(STMT_RETURN, kw.pos);
			if (!is_op(peek(p), ";") && !is_op(peek(p), "}"))
				st->expr = parse_expression(p);
			optional_semi(p);
		} else if (!strcmp(kw.text, "next") || !strcmp(kw.text, "break") ||
			   !strcmp(kw.text, "continue")) {
			st = stmt_new(kw.text[0] == 'n' ? STMT_NEXT : kw.text[0] == 'b' ? STMT_BREAK : STMT_CONTINUE,
				      kw.pos);
			optional_semi(p);
		} else if (!strcmp(kw.text, "delete")) {
			st = stmt_new(STMT_DELETE, kw.pos);
			st->expr = parse_expression(p);
			optional_semi(p);
		} else {
			error_at(p, P_EXPECT_STMT, kw.pos, "expected a statement, saw '%s'", kw.text);
		}
	} else {
		st = stmt_new(STMT_EXPR, t->pos);
		st->expr = parse_expression(p);
		optional_semi(p);
	}
	leave(p, 1);
	return st;
}

/* ---- probe points -------------------------------------------------------- */

/* comp := NAME ['(' literal ')']
 * NAME := glued run of IDENT / '*' tokens ("vfs_*", "*abc*") */
static struct pp_comp *parse_component(struct parser *p)
{
	struct pp_comp *c = xcalloc(1, sizeof(*c));
	struct strbuf sb = STRBUF_INIT;
	struct token *t = peek(p);

	if (t->kind == TK_AT_OP)
		error_here(p, P_MACRO_UNDEFINED, "unknown macro");
	if (t->kind != TK_IDENT && !is_op(t, "*"))
		error_here(p, P_EXPECT_PROBE_POINT, "expected a probe point component name");
	c->pos = t->pos;
	strbuf_addstr(&sb, next(p).text);
	for (;;) {
		t = peek(p);
		if (!t->glued || (t->kind != TK_IDENT && !is_op(t, "*")))
			break;
		strbuf_addstr(&sb, next(p).text);
	}
	c->name = strbuf_detach(&sb);
	if (accept_op(p, "(")) {
		c->arg = parse_literal(p, true, true);
		expect_op(p, ")");
	}
	return c;
}

static compvec *comps_copy(const compvec *v)
{
	compvec *n = xcalloc(1, sizeof(*n));

	for (int i = 0; i < v->len; i++)
		vec_push(n, v->items[i]);
	return n;
}

static altvec *parse_pp_seq(struct parser *p);

static void check_expansion(struct parser *p, struct srcpos pos, long points, long comps)
{
	if (points > MAX_EXPANSION || comps > MAX_EXPANSION_COMPS)
		error_at(p, P_SYNTAX, pos, "probe point pattern expands to too many points");
}

/* Components in all alternatives together. */
static long comp_total(const altvec *v)
{
	long n = 0;

	for (int i = 0; i < v->len; i++)
		n += v->items[i]->len;
	return n;
}

/* ['!' | '?']...: 1 for '?', 2|1 for '!' */
static unsigned char parse_pp_flags(struct parser *p)
{
	unsigned char f = 0;

	for (;;) {
		if (is_op(peek(p), "?") && !(f & 1))
			f |= 1;
		else if (is_op(peek(p), "!") && !(f & 2))
			f |= 3;
		else
			return f;
		next(p);
	}
}

/* elem := '{' seq ['!' | '?'] {',' seq ['!' | '?']} '}' | comp     (brace alternatives) */
static altvec *parse_pp_elem(struct parser *p)
{
	altvec *alts = xcalloc(1, sizeof(*alts));
	struct srcpos pos = peek(p)->pos;

	if (accept_op(p, "{")) {
		enter(p);
		do {
			altvec *sub = parse_pp_seq(p);
			unsigned char f = parse_pp_flags(p);

			for (int i = 0; i < sub->len; i++) {
				compvec *c = sub->items[i];
				c->items[c->len - 1]->alt_flags |= f;   /* the points made from it */
				vec_push(alts, c);
			}
			check_expansion(p, pos, alts->len, 0);
		} while (accept_op(p, ","));
		expect_op(p, "}");
		leave(p, 1);
	} else {
		compvec *one = xcalloc(1, sizeof(*one));

		vec_push(one, parse_component(p));
		vec_push(alts, one);
	}
	return alts;
}

/* seq := elem {'.' elem}    (expanded into every combination)
 * A plain dotted name (one alternative on each side) is extended in place,
 * so long names cost linear time; products are bounded in points and in
 * components. */
static altvec *parse_pp_seq(struct parser *p)
{
	altvec *acc = parse_pp_elem(p);
	long acc_comps = comp_total(acc);

	while (is_op(peek(p), ".")) {
		struct token dot = next(p);
		altvec *rhs = parse_pp_elem(p), *prod;
		long rhs_comps = comp_total(rhs);

		check_expansion(p, dot.pos, (long)acc->len * rhs->len,
				acc_comps * rhs->len + rhs_comps * acc->len);
		if (acc->len == 1 && rhs->len == 1) {
			compvec *c = acc->items[0];

			for (int k = 0; k < rhs->items[0]->len; k++)
				vec_push(c, rhs->items[0]->items[k]);
			acc_comps = c->len;
			continue;
		}
		prod = xcalloc(1, sizeof(*prod));
		for (int i = 0; i < acc->len; i++) {
			for (int j = 0; j < rhs->len; j++) {
				compvec *c = comps_copy(acc->items[i]);

				for (int k = 0; k < rhs->items[j]->len; k++)
					vec_push(c, rhs->items[j]->items[k]);
				vec_push(prod, c);
			}
		}
		acc = prod;
		acc_comps = comp_total(acc);
	}
	return acc;
}

/* probe_point := seq ['!' | '?'] ['if' '(' expression ')'] */
static void parse_probe_point(struct parser *p, void *into_v)
{
	VEC(struct probe_point *) *into = into_v;
	struct srcpos pos = peek(p)->pos;
	altvec *alts = parse_pp_seq(p);
	unsigned char flags = parse_pp_flags(p);
	struct expr *cond = NULL;

	if (accept_kw(p, "if"))
		cond = parse_paren_cond(p);
	for (int i = 0; i < alts->len; i++) {
		struct probe_point *pp = xcalloc(1, sizeof(*pp));
		unsigned char f = flags;

		pp->pos = pos;
		pp->comps.items = alts->items[i]->items;
		pp->comps.len = pp->comps.cap = alts->items[i]->len;
		for (int k = 0; k < pp->comps.len; k++)
			f |= pp->comps.items[k]->alt_flags;
		pp->optional = f & 1;
		pp->sufficient = (f & 2) != 0;
		pp->cond = cond;
		vec_push(into, pp);
	}
}

/* probe := 'probe' pp_list [('=' | '+=') pp_list] block [',' block]
 *          (the second block only for an alias: its epilogue)
 * pp_list := probe_point {',' probe_point} */
static void parse_probe(struct parser *p, struct token *kw)
{
	struct probe *pr = xcalloc(1, sizeof(*pr));

	pr->pos = kw->pos;
	pr->file = p->file;
	do
		parse_probe_point(p, &pr->points);
	while (accept_op(p, ","));
	if (is_op(peek(p), "=") || is_op(peek(p), "+=")) {
		struct token op = next(p);

		for (int i = 0; i < pr->points.len; i++) {
			struct probe_point *a = pr->points.items[i];

			if (a->optional || a->sufficient || a->cond)
				error_at(p, P_ALIAS, a->pos, "a probe alias name cannot be optional, "
					 "sufficient or conditional");
		}
		pr->is_alias = true;
		pr->alias_epilogue = op.text[0] == '+';
		pr->alias_names.items = pr->points.items;
		pr->alias_names.len = pr->points.len;
		pr->alias_names.cap = pr->points.cap;
		memset(&pr->points, 0, sizeof(pr->points));
		do
			parse_probe_point(p, &pr->points);
		while (accept_op(p, ","));
	}
	p->in_function = false;
	pr->body = parse_block(p);
	if (pr->is_alias && accept_op(p, ","))
		pr->epilogue = parse_block(p);
	pr->version_dependent = p->version_dependent;
	vec_push(&p->sc->probes, pr);
}

/* ---- declarations ------------------------------------------------------- */

static struct sym *find_global(struct script *sc, const char *name)
{
	for (int i = 0; i < sc->globals.len; i++)
		if (!strcmp(sc->globals.items[i]->name, name))
			return sc->globals.items[i];
	return NULL;
}

/* global_var := IDENT ['%'] ['[' NUMBER ']' ['%']] ['=' literal] */
static void parse_global_var(struct parser *p, bool is_private)
{
	struct token id = expect_ident(p, "a global variable name");
	struct sym *g = xcalloc(1, sizeof(*g));

	if (find_global(p->sc, id.text))
		error_at(p, P_DUPLICATE, id.pos, "global '%s' is declared twice", id.text);
	g->kind = SYM_GLOBAL;
	g->name = id.text;
	g->pos = id.pos;
	g->nkeys = -1;
	g->is_private = is_private;
	g->file = p->file;
	if (accept_op(p, "%"))
		g->wrap = g->is_array = true;
	if (is_op(peek(p), "[")) {
		struct token lb = next(p), n;

		g->is_array = true;
		if (peek(p)->kind != TK_NUMBER)
			error_here(p, P_EXPECT_LITERAL, "expected the array size (a number)");
		n = next(p);
		if (n.num <= 0)
			error_at(p, P_SYNTAX, n.pos, "array size must be positive");
		g->max_entries = n.num;
		(void)lb;
		expect_op(p, "]");
		if (accept_op(p, "%"))
			g->wrap = true;
	}
	if (is_op(peek(p), "=")) {
		if (g->is_array)
			error_here(p, P_SYNTAX, "an array cannot be initialized");
		next(p);
		g->init = parse_literal(p, true, true);
	}
	vec_push(&p->sc->globals, g);
}

/* global := 'global' global_var {',' global_var} [';'] */
static void parse_global(struct parser *p, bool is_private)
{
	int first = p->sc->globals.len;

	do
		parse_global_var(p, is_private);
	while (accept_op(p, ","));
	optional_semi(p);
	for (int i = first; i < p->sc->globals.len; i++)
		p->sc->globals.items[i]->version_dependent = p->version_dependent;
}

/* type := 'long' | 'string' */
static enum type parse_type(struct parser *p)
{
	if (accept_kw(p, "long"))
		return TYPE_LONG;
	if (accept_kw(p, "string"))
		return TYPE_STRING;
	error_here(p, P_EXPECT_TYPE, "expected a type, 'long' or 'string'");
}

/* Pragma comments in embedded C: / * pure * /, / * unprivileged * / ... */
static void collect_pragmas(struct func *f, const char *code)
{
	const char *s = code, *w;
	size_t n;

	while ((w = pragma_next(&s, &n)))
		vec_push(&f->pragmas, xstrndup(w, n));
}

/* function := 'function' IDENT [':' type] '(' [param {',' param}] ')'
 *             [':' (type | NUMBER)] (block | EMBEDDED)
 * param := IDENT [':' type] */
static void parse_function(struct parser *p, bool is_private)
{
	struct token id = expect_ident(p, "a function name");
	struct func *f = xcalloc(1, sizeof(*f));

	f->name = id.text;
	f->pos = id.pos;
	f->is_private = is_private;
	f->file = p->file;
	f->ret = TYPE_UNKNOWN;
	if (accept_op(p, ":")) {
		f->ret = parse_type(p);
		f->ret_declared = true;
	}
	expect_op(p, "(");
	if (!is_op(peek(p), ")")) {
		do {
			struct token pn = expect_ident(p, "a parameter name");
			struct sym *a = xcalloc(1, sizeof(*a));

			for (int i = 0; i < f->params.len; i++)
				if (!strcmp(f->params.items[i]->name, pn.text))
					error_at(p, P_DUPLICATE, pn.pos, "parameter '%s' is declared twice",
						 pn.text);
			a->kind = SYM_PARAM;
			a->name = pn.text;
			a->pos = pn.pos;
			a->nkeys = -1;
			a->file = p->file;
			if (accept_op(p, ":"))
				a->type = parse_type(p);
			vec_push(&f->params, a);
		} while (accept_op(p, ","));
	}
	expect_op(p, ")");
	if (accept_op(p, ":")) {
		if (peek(p)->kind == TK_NUMBER) {
			f->priority = next(p).num;
		} else {
			if (f->ret_declared)
				error_here(p, P_SYNTAX, "the return type is already declared");
			f->ret = parse_type(p);
			f->ret_declared = true;
		}
	}
	if (peek(p)->kind == TK_EMBEDDED) {
		struct token c = next(p);

		need_guru(p, c.pos, P_EMBEDDED_NOT_GURU, "a function in embedded C");
		f->embedded = c.str;
		collect_pragmas(f, c.str);
	} else {
		if (!is_op(peek(p), "{"))
			error_here(p, P_EXPECT_LBRACE, "expected the function body '{' or %%{");
		p->in_function = true;
		f->body = parse_block(p);
		p->in_function = false;
	}
	f->version_dependent = p->version_dependent;
	vec_push(&p->sc->funcs, f);
}

/* declaration := 'probe' probe | 'global' global | 'function' function
 *              | 'private' ('global' global | 'function' function | global)
 *              | EMBEDDED */
static void parse_declaration(struct parser *p)
{
	struct token t;

	p->version_dependent = false;
	t = next(p);

	if (t.kind == TK_EMBEDDED) {
		struct embed *em = xcalloc(1, sizeof(*em));

		need_guru(p, t.pos, P_EMBEDDED_NOT_GURU, "embedded C code");
		em->code = t.str;
		em->pos = t.pos;
		em->file = p->file;
		vec_push(&p->sc->embeds, em);
	} else if (is_kw(&t, "probe")) {
		parse_probe(p, &t);
	} else if (is_kw(&t, "global")) {
		parse_global(p, false);
	} else if (is_kw(&t, "function")) {
		parse_function(p, false);
	} else if (is_kw(&t, "private") && parser_keyword(p, "private")) {
		if (accept_kw(p, "global"))
			parse_global(p, true);
		else if (accept_kw(p, "function"))
			parse_function(p, true);
		else if (peek(p)->kind == TK_IDENT && !parser_keyword(p, peek(p)->text))
			parse_global(p, true); /* "private x" is a private global */
		else
			error_here(p, P_BAD_PRIVATE, "expected 'global', 'function' or a variable "
				   "name after 'private'");
	} else {
		char what[64];

		describe(&t, what, sizeof(what));
		error_at(p, P_TOPLEVEL, t.pos, "expected 'probe', 'global', 'function', 'private' "
			 "or %%{, saw %s", what);
	}
}

/* script := {declaration} EOF */
struct script *parse_script(struct session *s, struct srcfile *f)
{
	struct parser *p = xcalloc(1, sizeof(*p));
	struct script *sc = xcalloc(1, sizeof(*sc));

	sc->library_file = -1;
	int ndecl = 0;

	p->s = s;
	p->stack_base = (uintptr_t)__builtin_frame_address(0);
	p->stack_budget = stack_budget();
	p->file = f;
	p->guru_ok = (s && s->guru) || f->is_tapset;
	p->sc = sc;
	sc->file = f;
	p->pp = pp_new(s, f);
	if (setjmp(p->fail))
		return NULL;
	while (peek(p)->kind != TK_EOF) {
		parse_declaration(p);
		ndecl++;
	}
	if (!ndecl && !f->is_tapset && !f->is_macro) {
		struct srcpos pos = { .file = NULL };

		error_at(p, P_EMPTY, pos, "input file '%s' is empty (no probes, functions or "
			 "globals after preprocessing)", f->name);
	}
	return sc;
}
