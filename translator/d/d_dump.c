/* d_dump.c - D's tree as S-expressions, one outer item a line:
 *
 *   (clause (:::BEGIN) (pred (== x 1)) (= x (+ 1 2)) (call trace x))
 *   (var global <int> x)  (var global <int> a [<string> <int>])
 *   (typedef foo_t <int>)  (inline <int> N 5)  (type <struct s>)
 *
 * Types print as <their name>; operators as C writes them, prefix ones
 * as (- x), (* p), (& x), (++ x), postfix ones as (x++), (x--).
 */
#include <stdio.h>

#include "d/d_parse.h"
#include "d/d_types.h"
#include "util.h"

/* An operator as C writes it */
static const char *op_text(enum d_op op)
{
	switch (op) {
	case DOP_MUL: return "*";
	case DOP_DIV: return "/";
	case DOP_MOD: return "%";
	case DOP_ADD: return "+";
	case DOP_SUB: return "-";
	case DOP_SHL: return "<<";
	case DOP_SHR: return ">>";
	case DOP_LT: return "<";
	case DOP_GT: return ">";
	case DOP_LE: return "<=";
	case DOP_GE: return ">=";
	case DOP_EQ: return "==";
	case DOP_NE: return "!=";
	case DOP_BAND: return "&";
	case DOP_BXOR: return "^";
	case DOP_BOR: return "|";
	case DOP_LAND: return "&&";
	case DOP_LXOR: return "^^";
	case DOP_LOR: return "||";
	case DOP_COMMA: return ",";
	case DOP_NEG: return "-";
	case DOP_PLUS: return "+";
	case DOP_NOT: return "!";
	case DOP_BITNOT: return "~";
	case DOP_DEREF: return "*";
	case DOP_ADDROF: return "&";
	case DOP_PREINC: return "++";
	case DOP_PREDEC: return "--";
	case DOP_SIZEOF: return "sizeof";
	case DOP_STRINGOF: return "stringof";
	case DOP_POSTINC: return "++";
	case DOP_POSTDEC: return "--";
	case DOP_ASSIGN: return "=";
	default: return "?";
	}
}

static void dump_type(struct strbuf *sb, struct d_type *t)
{
	strbuf_addf(sb, "<%s>", d_type_name(t));
}

static void dump_args(struct strbuf *sb, const struct d_expr *e, int from)
{
	for (int i = from; i < e->args.len; i++) {
		strbuf_addch(sb, ' ');
		d_dump_expr(sb, e->args.items[i]);
	}
}

/* (op operands...), names and constants bare, strings quoted */
void d_dump_expr(struct strbuf *sb, const struct d_expr *e)
{
	switch (e->kind) {
	case DE_INT:
		strbuf_addf(sb, "%lld", (long long)e->num);
		break;
	case DE_STR:
		strbuf_add_cstr_literal(sb, e->str);
		break;
	case DE_IDENT:
	case DE_MACRO:
	case DE_AGG:
		strbuf_addstr(sb, e->name);
		break;
	case DE_INDEX:
		strbuf_addstr(sb, "([] ");
		d_dump_expr(sb, e->lhs);
		dump_args(sb, e, 0);
		strbuf_addch(sb, ')');
		break;
	case DE_CALL:
		strbuf_addf(sb, "(call %s", e->name);
		dump_args(sb, e, 0);
		strbuf_addch(sb, ')');
		break;
	case DE_UNARY:
		strbuf_addf(sb, "(%s ", op_text(e->op));
		d_dump_expr(sb, e->lhs);
		strbuf_addch(sb, ')');
		break;
	case DE_POSTFIX:
		strbuf_addch(sb, '(');
		d_dump_expr(sb, e->lhs);
		strbuf_addf(sb, "%s)", op_text(e->op));
		break;
	case DE_BINARY:
	case DE_ASSIGN:
		strbuf_addf(sb, "(%s%s ", e->kind == DE_ASSIGN && e->op != DOP_ASSIGN ? op_text(e->op) : "",
			    e->kind == DE_ASSIGN ? "=" : op_text(e->op));
		d_dump_expr(sb, e->lhs);
		strbuf_addch(sb, ' ');
		d_dump_expr(sb, e->rhs);
		strbuf_addch(sb, ')');
		break;
	case DE_TERNARY:
		strbuf_addstr(sb, "(?");
		dump_args(sb, e, 0);
		strbuf_addch(sb, ' ');
		d_dump_expr(sb, e->lhs);
		strbuf_addch(sb, ' ');
		d_dump_expr(sb, e->rhs);
		strbuf_addch(sb, ')');
		break;
	case DE_MEMBER:
	case DE_ARROW:
		strbuf_addf(sb, "(%s ", e->kind == DE_MEMBER ? "." : "->");
		d_dump_expr(sb, e->lhs);
		strbuf_addf(sb, " %s)", e->name);
		break;
	case DE_CAST:
		strbuf_addstr(sb, "(cast ");
		dump_type(sb, e->cast_type);
		strbuf_addch(sb, ' ');
		d_dump_expr(sb, e->lhs);
		strbuf_addch(sb, ')');
		break;
	case DE_SIZEOF_TYPE:
		strbuf_addstr(sb, "(sizeof ");
		dump_type(sb, e->cast_type);
		strbuf_addch(sb, ')');
		break;
	case DE_OFFSETOF:
		strbuf_addstr(sb, "(offsetof ");
		dump_type(sb, e->cast_type);
		strbuf_addf(sb, " %s)", e->name);
		break;
	case DE_XLATE:
		strbuf_addstr(sb, "(xlate ");
		dump_type(sb, e->cast_type);
		strbuf_addch(sb, ' ');
		d_dump_expr(sb, e->lhs);
		strbuf_addch(sb, ')');
		break;
	}
}

void d_dump_stmt(struct strbuf *sb, const struct d_stmt *s)
{
	switch (s->kind) {
	case DS_EXPR:
		d_dump_expr(sb, s->expr);
		break;
	case DS_EMPTY:
		strbuf_addstr(sb, "(;)");
		break;
	case DS_IF:
		strbuf_addstr(sb, "(if ");
		d_dump_expr(sb, s->expr);
		strbuf_addch(sb, ' ');
		d_dump_stmt(sb, s->then);
		if (s->els) {
			strbuf_addch(sb, ' ');
			d_dump_stmt(sb, s->els);
		}
		strbuf_addch(sb, ')');
		break;
	case DS_BLOCK:
		strbuf_addstr(sb, "(block");
		for (int i = 0; i < s->stmts.len; i++) {
			strbuf_addch(sb, ' ');
			d_dump_stmt(sb, s->stmts.items[i]);
		}
		strbuf_addch(sb, ')');
		break;
	}
}

static void dump_clause(struct strbuf *sb, const struct d_clause *c)
{
	strbuf_addstr(sb, "(clause (");
	for (int i = 0; i < c->descs.len; i++) {
		const struct d_pdesc *d = c->descs.items[i];

		if (d->id)
			strbuf_addf(sb, "%s%u", i ? " " : "", d->id);
		else
			strbuf_addf(sb, "%s%s:%s:%s:%s", i ? " " : "", d->prov, d->mod, d->func, d->name);
	}
	strbuf_addch(sb, ')');
	if (c->pred) {
		strbuf_addstr(sb, " (pred ");
		d_dump_expr(sb, c->pred);
		strbuf_addch(sb, ')');
	}
	for (int i = 0; i < c->body.len; i++) {
		strbuf_addch(sb, ' ');
		d_dump_stmt(sb, c->body.items[i]);
	}
	strbuf_addch(sb, ')');
}

static void dump_decl(struct strbuf *sb, const struct d_decl *d)
{
	static const char *const storage[] = { "global", "self", "this" };

	switch (d->kind) {
	case DD_VAR:
		strbuf_addf(sb, "(%s %s ", d->is_extern ? "extern" : "var", storage[d->storage]);
		break;
	case DD_FUNC:
		strbuf_addstr(sb, "(extern func ");
		break;
	case DD_TYPEDEF:
		strbuf_addf(sb, "(typedef %s ", d->name);
		dump_type(sb, d->type);
		strbuf_addch(sb, ')');
		return;
	case DD_INLINE:
		strbuf_addstr(sb, "(inline ");
		break;
	case DD_TYPE:
		strbuf_addstr(sb, "(type ");
		dump_type(sb, d->type);
		strbuf_addch(sb, ')');
		return;
	}
	dump_type(sb, d->type);
	strbuf_addf(sb, " %s", d->name);
	if (d->assoc) {
		strbuf_addstr(sb, " [");
		for (int i = 0; i < d->keys.len; i++) {
			if (i)
				strbuf_addch(sb, ' ');
			dump_type(sb, d->keys.items[i]);
			if (d->key_names.len > i && d->key_names.items[i])
				strbuf_addf(sb, " %s", d->key_names.items[i]);
		}
		strbuf_addch(sb, ']');
	}
	if (d->init) {
		strbuf_addch(sb, ' ');
		d_dump_expr(sb, d->init);
	}
	strbuf_addch(sb, ')');
}

static void dump_xlator(struct strbuf *sb, const struct d_xlator *x)
{
	strbuf_addstr(sb, "(translator ");
	dump_type(sb, x->to);
	strbuf_addch(sb, ' ');
	dump_type(sb, x->from);
	strbuf_addf(sb, " %s", x->from_name);
	for (int i = 0; i < x->members.len; i++) {
		strbuf_addf(sb, " (%s ", x->members.items[i]);
		d_dump_expr(sb, x->exprs.items[i]);
		strbuf_addch(sb, ')');
	}
	strbuf_addch(sb, ')');
}

static void dump_provider(struct strbuf *sb, const struct d_provider *pv)
{
	strbuf_addf(sb, "(provider %s", pv->name);
	for (int i = 0; i < pv->probes.len; i++) {
		const struct d_probe_decl *pr = pv->probes.items[i];

		strbuf_addf(sb, " (probe %s (", pr->name);
		for (int j = 0; j < pr->args.len; j++) {
			strbuf_addstr(sb, j ? " " : "");
			dump_type(sb, pr->args.items[j]);
		}
		strbuf_addch(sb, ')');
		if (pr->has_xargs) {
			strbuf_addstr(sb, " (");
			for (int j = 0; j < pr->xargs.len; j++) {
				strbuf_addstr(sb, j ? " " : "");
				dump_type(sb, pr->xargs.items[j]);
			}
			strbuf_addch(sb, ')');
		}
		strbuf_addch(sb, ')');
	}
	strbuf_addch(sb, ')');
}

/* The items in source order (they are kept by kind: merge by position). */
void d_dump_program(FILE *f, const struct d_program *prog)
{
	int ip = 0, id = 0, ix = 0, ic = 0, iv = 0;

	for (;;) {
		struct d_pos best = { 1 << 30, 1 << 30 }, pos;
		int which = -1;
		struct strbuf sb = STRBUF_INIT;

#define CONSIDER(vec, idx, n) \
		if (idx < prog->vec.len) { \
			pos = prog->vec.items[idx]->pos; \
			if (pos.line < best.line || (pos.line == best.line && pos.col < best.col)) { \
				best = pos; \
				which = n; \
			} \
		}
		CONSIDER(pragmas, ip, 0)
		CONSIDER(decls, id, 1)
		CONSIDER(xlators, ix, 2)
		CONSIDER(clauses, ic, 3)
		CONSIDER(providers, iv, 4)
#undef CONSIDER
		switch (which) {
		case 0: {
			const struct d_pragma *pr = prog->pragmas.items[ip++];

			strbuf_addf(&sb, "(pragma %s %s%s%s)", pr->kind == DP_OPTION ? "option" : "D",
				    pr->name, pr->value ? " " : "", pr->value ? pr->value : "");
			break;
		}
		case 1:
			dump_decl(&sb, prog->decls.items[id++]);
			break;
		case 2:
			dump_xlator(&sb, prog->xlators.items[ix++]);
			break;
		case 3:
			dump_clause(&sb, prog->clauses.items[ic++]);
			break;
		case 4:
			dump_provider(&sb, prog->providers.items[iv++]);
			break;
		default:
			return;
		}
		fprintf(f, "%s\n", sb.buf);
		strbuf_release(&sb);
	}
}
