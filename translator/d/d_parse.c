/* d_parse.c - D programs: the outer level (clauses, declarations,
 * inlines, translators, providers), probe descriptions and statements.
 * Expressions are in d_parse_expr.c, declarations in d_parse_decl.c. Each
 * function parses one rule of DTrace's grammar (dt_grammar.y), written
 * above it.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "d/d_parse_int.h"
#include "d/d_pragma.h"
#include "util.h"

/* ---- probe descriptions --------------------------------------------------------------- */

/* The value of macro variable name in a probe description (DTrace's
 * dt_macros: ids of this process, or $target's). */
static bool macro_value(const struct d_parse_args *args, const char *name, long *v)
{
	if (!strcmp(name, "target"))
		*v = args->target_pid;
	else if (!strcmp(name, "pid"))
		*v = getpid();
	else if (!strcmp(name, "ppid"))
		*v = getppid();
	else if (!strcmp(name, "pgid"))
		*v = getpgid(0);
	else if (!strcmp(name, "sid"))
		*v = getsid(0);
	else if (!strcmp(name, "uid"))
		*v = getuid();
	else if (!strcmp(name, "euid"))
		*v = geteuid();
	else if (!strcmp(name, "gid"))
		*v = getgid();
	else if (!strcmp(name, "egid"))
		*v = getegid();
	else
		return false;
	return true;
}

/* One part of a description with its macro expanded: the text before the
 * first '$', the argument or macro variable, what follows $N. NULL if the
 * macro is not defined. */
static char *expand_part(const char *s, size_t len, const struct d_parse_args *args, bool *arg_used)
{
	const char *v = memchr(s, '$', len), *w, *end = s + len;
	char buf[32], *val;
	long i;

	if (!v)
		return xstrndup(s, len);
	w = v + 1;
	if (w < end && *w == '$' && end - v > 2)
		w++;
	if (w < end && *w >= '0' && *w <= '9') {
		i = strtol(w, (char **)&w, 10);
		if (w > end || i >= args->argc)
			return NULL;
		if (arg_used)
			arg_used[i] = true;
		val = (char *)args->argv[i];
	} else if (w < end) {
		char *name = xstrndup(w, end - w);

		if (!macro_value(args, name, &i))
			return NULL;
		snprintf(buf, sizeof(buf), "%ld", i);
		val = buf;
		w = end;
	} else {
		return NULL;
	}
	return xasprintf("%.*s%s%.*s", (int)(v - s), s, val, (int)(end - w), w);
}

/* DTrace's dtrace_xstr2desc(): the parts split at ':' from the right
 * into name, function, module, provider (starting from spec); a part left
 * over is "Overspecified", an undefined macro is the other error. */
static const char *split_desc(struct d_pdesc *pd, const char *text, enum d_pspec spec,
			      const struct d_parse_args *args, bool *arg_used)
{
	char **parts[] = { &pd->prov, &pd->mod, &pd->func, &pd->name };
	const char *end = text + strlen(text), *q;
	int last = 3 - (int)spec, part = last;
	struct strbuf sb = STRBUF_INIT;

	pd->prov = pd->mod = pd->func = pd->name = NULL;
	do {
		char *s;

		for (q = end; q > text && q[-1] != ':'; q--)
			;
		if (!(s = expand_part(q, end - q, args, arg_used)))
			return "Undefined macro variable in probe description";
		if (part < 0)
			return "Overspecified probe description";
		*parts[part--] = s;
		end = q - 1;
	} while (q > text);
	for (int i = 0; i < 4; i++)
		if (!*parts[i])
			*parts[i] = xstrdup("");
	/* the text as written, macros expanded */
	for (int i = part + 1; i <= last; i++)
		strbuf_addf(&sb, "%s%s", i > part + 1 ? ":" : "", *parts[i]);
	pd->text = strbuf_detach(&sb);
	return NULL;
}

/* probe_specifier: PSPEC | INT (a probe's number); D_PDESC_INVAL when it
 * cannot be split or expanded */
static struct d_pdesc *probe_specifier(struct d_parser *p)
{
	struct d_pdesc *pd = xcalloc(1, sizeof(*pd));
	const struct d_token *t = &p->lx.tok;
	const char *err;

	pd->pos = t->pos;
	if (t->kind == TK_INT) {
		if (t->num > UINT32_MAX)
			d_parse_error(p, "D_PDESC_INVAL", "identifier %llu exceeds maximum probe id",
				      (unsigned long long)t->num);
		pd->id = (uint32_t)t->num;
		pd->text = xstrdup(t->str);
		pd->prov = pd->mod = pd->func = pd->name = xstrdup("");
		return pd;
	}
	if ((err = split_desc(pd, t->str, p->args->spec, p->args, p->lx.arg_used)))
		d_parse_error(p, "D_PDESC_INVAL", "invalid probe description \"%s\": %s", t->str, err);
	return pd;
}

struct d_pdesc *d_parse_pdesc(struct d_diag *dg, const char *text, const struct d_parse_args *args)
{
	struct d_pdesc *pd = xcalloc(1, sizeof(*pd));
	const char *err = split_desc(pd, text, args->spec, args, NULL);
	struct d_pos none = { 0, 0 };

	if (err)
		d_error(dg, "D_PDESC_INVAL", none, "invalid probe description \"%s\": %s", text, err);
	return pd;
}

/* ---- statements ---------------------------------------------------------------------- */

static struct d_stmt *stmt_new(enum d_skind kind, struct d_pos pos)
{
	struct d_stmt *s = xcalloc(1, sizeof(*s));

	s->kind = kind;
	s->pos = pos;
	return s;
}

static struct d_stmt *statement(struct d_parser *p, bool last);
static void statement_list(struct d_parser *p, void *out);

/* statement_or_block: statement | '{' statement_list '}' */
static struct d_stmt *statement_or_block(struct d_parser *p)
{
	struct d_stmt *s;

	if (TOK(p) != DP_LBRACE)
		return statement(p, false);
	s = stmt_new(DS_BLOCK, here(p));
	next(p);
	statement_list(p, &s->stmts);
	expect(p, DP_RBRACE);
	return s;
}

/* if '(' expression ')' statement_or_block [ else statement_or_block ] */
static struct d_stmt *if_statement(struct d_parser *p)
{
	struct d_stmt *s = stmt_new(DS_IF, here(p));

	next(p);
	expect(p, DP_LPAR);
	s->expr = d_parse_expression(p);
	expect(p, DP_RPAR);
	s->then = statement_or_block(p);
	if (TOK(p) == DK_ELSE) {
		next(p);
		s->els = statement_or_block(p);
	}
	return s;
}

/* statement: ';' | expression ';' | if_statement
 * (last: the expression may end at the block's '}') */
static struct d_stmt *statement(struct d_parser *p, bool last)
{
	struct d_stmt *s;

	switch (TOK(p)) {
	case DP_SEMI:
		s = stmt_new(DS_EMPTY, here(p));
		next(p);
		return s;
	case DK_IF:
		return if_statement(p);
	default:
		s = stmt_new(DS_EXPR, here(p));
		s->expr = d_parse_expression(p);
		if (TOK(p) == DP_SEMI)
			next(p);
		else if (!last || TOK(p) != DP_RBRACE)
			syntax_error(p);
		return s;
	}
}

/* statement_list: { statement } [ expression ]   (up to the '}') */
static void statement_list(struct d_parser *p, void *out)
{
	VEC(struct d_stmt *) *list = out;

	while (TOK(p) != DP_RBRACE)
		vec_push(list, statement(p, true));
}

/* ---- clauses ------------------------------------------------------------------------- */

/* probe_definition:
 *	probe_specifiers
 *	| probe_specifiers '{' statement_list '}'
 *	| probe_specifiers '/' expression '/' '{' statement_list '}'
 * probe_specifiers: probe_specifier { ',' probe_specifier }
 * A file's description needs a predicate or a body (a -n one may stand
 * alone, as dtrace -n BEGIN). */
static void probe_definition(struct d_parser *p)
{
	struct d_clause *c = xcalloc(1, sizeof(*c));

	c->pos = here(p);
	c->index = p->prog->clauses.len;
	for (;;) {
		vec_push(&c->descs, probe_specifier(p));
		next(p);
		if (TOK(p) != DP_COMMA)
			break;
		next(p);
		if (TOK(p) != TK_PSPEC && TOK(p) != TK_INT)
			syntax_error(p);
	}
	p->lx.state = DL_EXPR;
	if (TOK(p) == DP_DIV) {
		struct d_pos epred;

		next(p);
		c->pred = d_parse_expression(p);
		if (TOK(p) != DP_EPRED)
			syntax_error(p);
		epred = here(p);
		next(p);
		if (TOK(p) != DP_LBRACE)
			d_error(p->dg, "D_SYNTAX", epred,
				"expected actions { } following probe description and predicate");
	}
	if (TOK(p) == DP_LBRACE) {
		next(p);
		statement_list(p, &c->body);
		p->lx.state = DL_CLAUSE;
		next(p);
	} else {
		if (p->args->is_file)
			d_error(p->dg, "D_SYNTAX", c->descs.items[0]->pos,
				"expected predicate and/or actions following probe description");
		p->lx.state = DL_CLAUSE;
	}
	vec_push(&p->prog->clauses, c);
}

/* external_declaration:
 *	inline_definition | translator_definition | provider_definition
 *	| probe_definition | declaration */
static void external_declaration(struct d_parser *p)
{
	switch (TOK(p)) {
	case TK_PSPEC:
	case TK_INT:
		probe_definition(p);
		break;
	case DK_INLINE:
		d_parse_inline(p);
		break;
	case DK_TRANSLATOR:
		d_parse_translator(p);
		break;
	case DK_PROVIDER:
		d_parse_provider(p);
		break;
	default:
		if (!d_starts_declaration(p))
			syntax_error(p);
		d_parse_declaration(p);
		break;
	}
}

/* After the parse, as DTrace's dt_compile(): pragmas naming nothing
 * declared, the last argument never used, nothing in the program. */
static void final_checks(struct d_parser *p)
{
	const struct d_parse_args *args = p->args;
	struct d_program *prog = p->prog;
	bool inlines = false;

	d_pragma_check_unused(&p->lx);
	if (args->argc > 1 && !args->argref && !p->lx.arg_used[args->argc - 1])
		d_parse_error(p, "D_MACRO_UNUSED", "extraneous argument '%s' ($%d is not referenced)",
			      args->argv[args->argc - 1], args->argc - 1);
	for (int i = 0; i < prog->decls.len; i++)
		inlines |= prog->decls.items[i]->kind == DD_INLINE;
	if (!prog->clauses.len && !prog->xlators.len && !prog->providers.len && !inlines &&
	    !args->allow_empty)
		d_parse_error(p, "D_EMPTY", "empty D program translation unit");
}

/* translation_unit: { external_declaration } */
struct d_program *d_parse(struct d_diag *dg, struct d_types *types, const char *name,
			  const char *text, const struct d_parse_args *args)
{
	struct d_parser *p = xcalloc(1, sizeof(*p));

	p->dg = dg;
	p->types = types;
	p->args = args;
	p->prog = xcalloc(1, sizeof(*p->prog));
	p->prog->name = name;
	p->prog->text = text;
	d_lex_init(&p->lx, dg, types, p->prog, args, text);
	next(p);
	while (TOK(p) != TK_EOF)
		external_declaration(p);
	final_checks(p);
	return p->prog;
}
