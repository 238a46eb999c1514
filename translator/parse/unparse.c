/* unparse.c - print a parsed script back as SystemTap source (stap -p1).
 *
 * The layout follows SystemTap 4.8's -p1 dump: every operand in
 * parentheses, one statement per line, no indentation, "# file NAME"
 * before each file. It departs from it only where SystemTap's dump would
 * not parse back into the same tree: declared types, 'private', while loops
 * and @choose_defined are kept as written, empty for() parts stay empty,
 * compound statements are not followed by a stray ';', and embedded code is
 * printed verbatim. Printing, then parsing again, gives an identical tree
 * (the round-trip unit test checks this).
 */
#include <inttypes.h>
#include <string.h>

#include "ast.h"

/* A string literal with the escapes the lexer decodes. */
static void put_string(struct strbuf *out, const char *s, size_t n)
{
	strbuf_addch(out, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"': strbuf_addstr(out, "\\\""); break;
		case '\\': strbuf_addstr(out, "\\\\"); break;
		case '\n': strbuf_addstr(out, "\\n"); break;
		case '\t': strbuf_addstr(out, "\\t"); break;
		case '\r': strbuf_addstr(out, "\\r"); break;
		case '\a': strbuf_addstr(out, "\\a"); break;
		case '\b': strbuf_addstr(out, "\\b"); break;
		case '\f': strbuf_addstr(out, "\\f"); break;
		case '\v': strbuf_addstr(out, "\\v"); break;
		default:
			if (c < 0x20 || c == 0x7f)
				strbuf_addf(out, "\\%03o", c);
			else
				strbuf_addch(out, c);
		}
	}
	strbuf_addch(out, '"');
}

static void put_literal(struct strbuf *out, const struct expr *e)
{
	if (e->kind == EXPR_STR)
		put_string(out, e->str, e->str_len);
	else if (e->kind == EXPR_NUM)
		strbuf_addf(out, "%" PRId64, e->num);
	else
		unparse_expr(out, e);
}

/* "(e)" */
static void paren(struct strbuf *out, const struct expr *e)
{
	strbuf_addch(out, '(');
	unparse_expr(out, e);
	strbuf_addch(out, ')');
}

static void put_list(struct strbuf *out, struct expr *const *items, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			strbuf_addstr(out, ", ");
		unparse_expr(out, items[i]);
	}
}

static void put_chain(struct strbuf *out, const struct expr *e)
{
	for (int i = 0; i < e->chain.len; i++) {
		const struct target_step *s = e->chain.items[i];

		if (s->kind == TS_FIELD) {
			strbuf_addstr(out, "->");
			strbuf_addstr(out, s->field);
		} else {
			strbuf_addch(out, '[');
			unparse_expr(out, s->index);
			strbuf_addch(out, ']');
		}
	}
	if (e->suffix)   /* $x$, $p->f$$, $a[1]$, @cast(...)$ */
		strbuf_addstr(out, e->suffix);
}

void unparse_expr(struct strbuf *out, const struct expr *e)
{
	switch (e->kind) {
	case EXPR_NUM:
	case EXPR_STR:
		put_literal(out, e);
		break;
	case EXPR_VAR:
		strbuf_addstr(out, e->name);
		break;
	case EXPR_INDEX:
		if (e->name)
			strbuf_addstr(out, e->name);
		else
			unparse_expr(out, e->lhs);
		strbuf_addch(out, '[');
		put_list(out, e->args.items, e->args.len);
		strbuf_addch(out, ']');
		break;
	case EXPR_STAR:
		strbuf_addch(out, '*');
		break;
	case EXPR_CALL:
		strbuf_addstr(out, e->name);
		strbuf_addch(out, '(');
		put_list(out, e->args.items, e->args.len);
		strbuf_addch(out, ')');
		break;
	case EXPR_UNARY:
	case EXPR_PREINC:
		strbuf_addstr(out, expr_op_text(e));
		paren(out, e->lhs);
		break;
	case EXPR_POSTINC:
		paren(out, e->lhs);
		strbuf_addstr(out, expr_op_text(e));
		break;
	case EXPR_BINARY:
	case EXPR_ASSIGN:
		paren(out, e->lhs);
		strbuf_addf(out, " %s ", expr_op_text(e));
		paren(out, e->rhs);
		break;
	case EXPR_REGEX:
		paren(out, e->lhs);
		strbuf_addf(out, " %s ", expr_op_text(e));
		put_literal(out, e->rhs);
		break;
	case EXPR_TERNARY:
		paren(out, e->args.items[0]);
		strbuf_addch(out, '?');
		paren(out, e->args.items[1]);
		strbuf_addch(out, ':');
		paren(out, e->args.items[2]);
		break;
	case EXPR_IN:
		strbuf_addch(out, '[');
		put_list(out, e->args.items, e->args.len);
		strbuf_addstr(out, "] in ");
		unparse_expr(out, e->lhs);
		break;
	case EXPR_STATOP:
		strbuf_addf(out, "@%s(", e->name);
		unparse_expr(out, e->lhs);
		for (int i = 0; i < e->args.len; i++) {
			strbuf_addstr(out, ", ");
			unparse_expr(out, e->args.items[i]);
		}
		strbuf_addch(out, ')');
		break;
	case EXPR_HIST:
		strbuf_addf(out, "@%s(", e->name);
		unparse_expr(out, e->lhs);
		for (int i = 0; i < e->args.len; i++) {
			strbuf_addstr(out, ", ");
			unparse_expr(out, e->args.items[i]);
		}
		strbuf_addch(out, ')');
		break;
	case EXPR_TARGET:
		strbuf_addstr(out, e->name);
		put_chain(out, e);
		break;
	case EXPR_AUTOCAST:
		paren(out, e->lhs);
		put_chain(out, e);
		break;
	case EXPR_CAST:
		if (!e->str) {   /* an autocast typed in pass 2: as written */
			paren(out, e->lhs);
			put_chain(out, e);
			break;
		}
		strbuf_addstr(out, "@cast(");
		unparse_expr(out, e->lhs);
		strbuf_addstr(out, ", ");
		put_string(out, e->str, strlen(e->str));
		if (e->module) {
			strbuf_addstr(out, ", ");
			put_string(out, e->module, strlen(e->module));
		}
		strbuf_addch(out, ')');
		put_chain(out, e);
		break;
	case EXPR_ATVAR:
		strbuf_addstr(out, "@var(");
		put_string(out, e->name, strlen(e->name));
		if (e->module) {
			strbuf_addstr(out, ", ");
			put_string(out, e->module, strlen(e->module));
		}
		strbuf_addch(out, ')');
		put_chain(out, e);
		break;
	case EXPR_DEFINED:
	case EXPR_ENTRY:
		strbuf_addstr(out, e->kind == EXPR_DEFINED ? "@defined(" : "@entry(");
		unparse_expr(out, e->lhs);
		strbuf_addch(out, ')');
		break;
	case EXPR_CHOOSE:
		strbuf_addstr(out, "@choose_defined(");
		put_list(out, e->args.items, e->args.len);
		strbuf_addch(out, ')');
		break;
	case EXPR_PERF:
		strbuf_addstr(out, "@perf(");
		put_string(out, e->str, e->str_len);
		strbuf_addch(out, ')');
		break;
	case EXPR_EMBEDDED:
		strbuf_addstr(out, "%{");
		strbuf_addstr(out, e->str);
		strbuf_addstr(out, "%}");
		break;
	case EXPR_ADDROF:
		strbuf_addch(out, '&');
		if (e->lhs->kind == EXPR_TARGET || e->lhs->kind == EXPR_AUTOCAST ||
		    e->lhs->kind == EXPR_CAST || e->lhs->kind == EXPR_ATVAR)
			unparse_expr(out, e->lhs);
		else
			paren(out, e->lhs);
		break;
	case EXPR_PARAM:
		strbuf_addstr(out, e->name ? e->name : "$?");
		break;
	}
}

static void put_indent(struct strbuf *out, int indent)
{
	for (int i = 0; i < indent; i++)
		strbuf_addch(out, '\t');
}

static void put_sort(struct strbuf *out, const struct stmt *st, int column)
{
	if (st->sort_dir && st->sort_column == column)
		strbuf_addch(out, st->sort_dir > 0 ? '+' : '-');
}

/* Statements end with ';' when their grammar allows one (expression,
 * return, delete ...), so any statement can be followed by 'else'. */
void unparse_stmt(struct strbuf *out, const struct stmt *st, int indent)
{
	switch (st->kind) {
	case STMT_BLOCK:
		strbuf_addstr(out, "{\n");
		for (int i = 0; i < st->stmts.len; i++) {
			put_indent(out, indent);
			unparse_stmt(out, st->stmts.items[i], indent);
			strbuf_addch(out, '\n');
		}
		put_indent(out, indent);
		strbuf_addch(out, '}');
		break;
	case STMT_EXPR:
		unparse_expr(out, st->expr);
		strbuf_addch(out, ';');
		break;
	case STMT_NULL:
		strbuf_addch(out, ';');
		break;
	case STMT_IF:
		strbuf_addstr(out, "if (");
		unparse_expr(out, st->expr);
		strbuf_addstr(out, ") ");
		unparse_stmt(out, st->body, indent);
		if (st->els) {
			strbuf_addch(out, '\n');
			put_indent(out, indent);
			strbuf_addstr(out, "else ");
			unparse_stmt(out, st->els, indent);
		}
		break;
	case STMT_WHILE:
		strbuf_addstr(out, "while (");
		unparse_expr(out, st->expr);
		strbuf_addstr(out, ") ");
		unparse_stmt(out, st->body, indent);
		break;
	case STMT_FOR:
		strbuf_addstr(out, "for (");
		if (st->init)
			unparse_expr(out, st->init);
		strbuf_addstr(out, "; ");
		if (st->expr)
			unparse_expr(out, st->expr);
		strbuf_addstr(out, "; ");
		if (st->step)
			unparse_expr(out, st->step);
		strbuf_addstr(out, ") ");
		unparse_stmt(out, st->body, indent);
		break;
	case STMT_FOREACH:
		strbuf_addstr(out, "foreach (");
		if (st->value) {
			unparse_expr(out, st->value);
			strbuf_addstr(out, " = ");
		}
		strbuf_addch(out, '[');
		for (int i = 0; i < st->keys.len; i++) {
			if (i)
				strbuf_addstr(out, ", ");
			unparse_expr(out, st->keys.items[i]);
			put_sort(out, st, i + 1);
		}
		strbuf_addstr(out, "] in ");
		unparse_expr(out, st->array);
		if (st->sort_aggr)
			strbuf_addf(out, " @%s", st->sort_aggr);
		put_sort(out, st, 0);
		if (st->limit) {
			strbuf_addstr(out, " limit ");
			unparse_expr(out, st->limit);
		}
		strbuf_addstr(out, ") ");
		unparse_stmt(out, st->body, indent);
		break;
	case STMT_BREAK:
		strbuf_addstr(out, "break;");
		break;
	case STMT_CONTINUE:
		strbuf_addstr(out, "continue;");
		break;
	case STMT_NEXT:
		strbuf_addstr(out, "next;");
		break;
	case STMT_RETURN:
		strbuf_addstr(out, "return");
		if (st->expr) {
			strbuf_addch(out, ' ');
			unparse_expr(out, st->expr);
		}
		strbuf_addch(out, ';');
		break;
	case STMT_DELETE:
		strbuf_addstr(out, "delete ");
		unparse_expr(out, st->expr);
		strbuf_addch(out, ';');
		break;
	case STMT_TRY:
		strbuf_addstr(out, "try ");
		unparse_stmt(out, st->body, indent);
		strbuf_addstr(out, " catch ");
		if (st->catch_var) {
			strbuf_addch(out, '(');
			unparse_expr(out, st->catch_var);
			strbuf_addstr(out, ") ");
		}
		unparse_stmt(out, st->els, indent);
		break;
	case STMT_EMBEDDED:
		strbuf_addstr(out, "%{");
		strbuf_addstr(out, st->code);
		strbuf_addstr(out, "%};");
		break;
	}
}

void unparse_probe_point(struct strbuf *out, const struct probe_point *pp)
{
	for (int i = 0; i < pp->comps.len; i++) {
		const struct pp_comp *c = pp->comps.items[i];

		if (i)
			strbuf_addch(out, '.');
		strbuf_addstr(out, c->name);
		if (c->arg) {
			strbuf_addch(out, '(');
			put_literal(out, c->arg);
			strbuf_addch(out, ')');
		}
	}
	if (pp->sufficient)
		strbuf_addch(out, '!');
	else if (pp->optional)
		strbuf_addch(out, '?');
	if (pp->cond) {
		strbuf_addstr(out, " if (");
		unparse_expr(out, pp->cond);
		strbuf_addch(out, ')');
	}
}

static void put_points(struct strbuf *out, struct probe_point *const *pts, int n)
{
	for (int i = 0; i < n; i++) {
		if (i)
			strbuf_addch(out, ',');
		unparse_probe_point(out, pts[i]);
	}
}

static void put_probe(struct strbuf *out, const struct probe *pr)
{
	strbuf_addstr(out, "probe ");
	if (pr->is_alias) {
		put_points(out, pr->alias_names.items, pr->alias_names.len);
		strbuf_addstr(out, pr->alias_epilogue ? " += " : " = ");
	}
	put_points(out, pr->points.items, pr->points.len);
	unparse_stmt(out, pr->body, 0);
	if (pr->epilogue) {
		strbuf_addch(out, ',');
		unparse_stmt(out, pr->epilogue, 0);
	}
	strbuf_addch(out, '\n');
}

static void put_global(struct strbuf *out, const struct sym *g)
{
	strbuf_addstr(out, g->is_private ? "private global " : "global ");
	strbuf_addstr(out, g->name);
	if (g->wrap)
		strbuf_addch(out, '%');
	if (g->max_entries)
		strbuf_addf(out, "[%" PRId64 "]", g->max_entries);
	if (g->init) {
		strbuf_addstr(out, " = ");
		put_literal(out, g->init);
	}
	strbuf_addch(out, '\n');
}

static void put_type(struct strbuf *out, enum type t)
{
	if (t == TYPE_LONG || t == TYPE_STRING)
		strbuf_addf(out, ":%s", type_name(t));
}

static void put_func(struct strbuf *out, const struct func *f)
{
	strbuf_addstr(out, f->is_private ? "private function " : "function ");
	strbuf_addstr(out, f->name);
	if (f->ret_declared)
		put_type(out, f->ret);
	strbuf_addstr(out, " (");
	for (int i = 0; i < f->params.len; i++) {
		if (i)
			strbuf_addstr(out, ", ");
		strbuf_addstr(out, f->params.items[i]->name);
		put_type(out, f->params.items[i]->type);
	}
	strbuf_addch(out, ')');
	if (f->priority)
		strbuf_addf(out, " : %" PRId64, f->priority);
	strbuf_addch(out, '\n');
	if (f->embedded) {
		strbuf_addstr(out, "%{");
		strbuf_addstr(out, f->embedded);
		strbuf_addstr(out, "%}");
	} else if (f->body) {
		unparse_stmt(out, f->body, 0);
	}
	strbuf_addch(out, '\n');
}

/* One file, in SystemTap's order: embedded C, globals, aliases, probes,
 * functions. The caller prints the "# parse tree dump" heading once. */
void unparse_script(struct strbuf *out, const struct script *sc)
{
	strbuf_addf(out, "# file %s\n", sc->file ? sc->file->name : "<input>");
	for (int i = 0; i < sc->embeds.len; i++) {
		strbuf_addstr(out, "%{");
		strbuf_addstr(out, sc->embeds.items[i]->code);
		strbuf_addstr(out, "%}\n");
	}
	for (int i = 0; i < sc->globals.len; i++)
		put_global(out, sc->globals.items[i]);
	for (int i = 0; i < sc->probes.len; i++)
		if (sc->probes.items[i]->is_alias)
			put_probe(out, sc->probes.items[i]);
	for (int i = 0; i < sc->probes.len; i++)
		if (!sc->probes.items[i]->is_alias)
			put_probe(out, sc->probes.items[i]);
	for (int i = 0; i < sc->funcs.len; i++)
		put_func(out, sc->funcs.items[i]);
	strbuf_addch(out, '\n');
}
