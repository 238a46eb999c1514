/* d_parse_expr.c - D's expressions: C's operators and precedence with D's
 * additions (^^, stringof, offsetof, xlate, @aggregations, $macros),
 * one function a grammar rule, the rule above it (as dt_grammar.y has it).
 * Binary operators are parsed by precedence climbing over one table.
 */
#include <string.h>

#include "d/d_parse_int.h"
#include "util.h"

struct d_expr *d_expr_new(enum d_ekind kind, struct d_pos pos)
{
	struct d_expr *e = xcalloc(1, sizeof(*e));

	e->kind = kind;
	e->pos = pos;
	return e;
}

static struct d_expr *unary_expr(struct d_parser *p);
static struct d_expr *cast_expr(struct d_parser *p, bool *is_unary);

/* ---- postfix -------------------------------------------------------------------- */

/* argument_expression_list: assignment_expression { ',' assignment_expression }
 * (up to the closing token, which the caller checks) */
static void argument_list(struct d_parser *p, struct d_expr *e, enum d_tok close)
{
	if (TOK(p) == close)
		return;
	for (;;) {
		vec_push(&e->args, d_parse_assignment(p));
		if (TOK(p) != DP_COMMA)
			break;
		next(p);
	}
}

/* A member name after . or ->: an identifier, a type name or a keyword
 * (x->self). */
static char *member_name(struct d_parser *p)
{
	char *name;

	if (TOK(p) != TK_IDENT && TOK(p) != TK_TNAME &&
	    !(TOK(p) >= DK_AUTO && TOK(p) <= DK_XLATE))
		syntax_error(p);
	name = xstrdup(p->lx.tok.str);
	next(p);
	return name;
}

/* postfix_expression:
 *	primary_expression
 *	| postfix_expression '[' argument_expression_list ']'
 *	| postfix_expression '(' [ argument_expression_list ] ')'
 *	| postfix_expression '.' member | postfix_expression '->' member
 *	| postfix_expression '++' | postfix_expression '--'
 * A call must name its function (D_FUNC_IDENT otherwise, as DTrace says
 * when it builds the call). */
static struct d_expr *postfix_rest(struct d_parser *p, struct d_expr *e)
{
	for (;;) {
		struct d_pos pos = here(p);
		struct d_expr *x;

		switch (TOK(p)) {
		case DP_LBRAC:
			next(p);
			x = d_expr_new(DE_INDEX, pos);
			x->lhs = e;
			if (TOK(p) == DP_RBRAC)
				syntax_error(p);
			argument_list(p, x, DP_RBRAC);
			expect(p, DP_RBRAC);
			break;
		case DP_LPAR:
			next(p);
			x = d_expr_new(DE_CALL, e->pos);
			argument_list(p, x, DP_RPAR);
			if (TOK(p) != DP_RPAR)
				syntax_error(p);
			if (e->kind != DE_IDENT)
				d_parse_error(p, "D_FUNC_IDENT", "function designator is not of function type");
			x->name = e->name;
			next(p);
			break;
		case DP_DOT:
		case DP_ARROW:
			x = d_expr_new(TOK(p) == DP_DOT ? DE_MEMBER : DE_ARROW, pos);
			next(p);
			x->lhs = e;
			x->name = member_name(p);
			break;
		case DP_INC:
		case DP_DEC:
			x = d_expr_new(DE_POSTFIX, pos);
			x->op = TOK(p) == DP_INC ? DOP_POSTINC : DOP_POSTDEC;
			x->lhs = e;
			next(p);
			break;
		default:
			return e;
		}
		e = x;
	}
}

/* offsetof '(' type_name ',' member ')' */
static struct d_expr *offsetof_expr(struct d_parser *p)
{
	struct d_expr *e = d_expr_new(DE_OFFSETOF, here(p));

	next(p);
	expect(p, DP_LPAR);
	if (!d_starts_type_name(p))
		syntax_error(p);
	e->cast_type = d_parse_type_name(p);
	expect(p, DP_COMMA);
	if (TOK(p) != TK_IDENT && TOK(p) != TK_TNAME &&
	    !(TOK(p) >= DK_AUTO && TOK(p) <= DK_XLATE))
		syntax_error(p);
	e->name = xstrdup(p->lx.tok.str);
	next(p);
	expect(p, DP_RPAR);
	return e;
}

/* xlate '<' type_name '>' '(' expression ')' */
static struct d_expr *xlate_expr(struct d_parser *p)
{
	struct d_expr *e = d_expr_new(DE_XLATE, here(p));

	next(p);
	expect(p, DP_LT);
	if (!d_starts_type_name(p))
		syntax_error(p);
	e->cast_type = d_parse_type_name(p);
	expect(p, DP_GT);
	expect(p, DP_LPAR);
	e->lhs = d_parse_expression(p);
	expect(p, DP_RPAR);
	return e;
}

/* primary_expression:
 *	IDENT | AGG | INT | STRING | self | this | $macro | '(' expression ')'
 * (the parenthesized one is read by cast_expr and unary_expr, which see
 * the '(' first); offsetof and xlate are primaries too. */
static struct d_expr *primary_expr(struct d_parser *p)
{
	struct d_token *t = &p->lx.tok;
	struct d_expr *e;

	switch (t->kind) {
	case TK_IDENT:
	case DK_SELF:
	case DK_THIS:
		e = d_expr_new(DE_IDENT, t->pos);
		e->name = xstrdup(t->str);
		break;
	case TK_AGG:
		e = d_expr_new(DE_AGG, t->pos);
		e->name = xstrdup(t->str);
		break;
	case TK_MACRO:
		e = d_expr_new(DE_MACRO, t->pos);
		e->name = xstrdup(t->str);
		break;
	case TK_INT:
		/* str: the constant as written, for its suffix and base */
		e = d_expr_new(DE_INT, t->pos);
		e->num = (int64_t)t->num;
		e->str = xstrndup(t->start, t->len);
		e->str_len = t->len;
		break;
	case TK_STR:
		e = d_expr_new(DE_STR, t->pos);
		e->str = t->str;
		e->str_len = t->str_len;
		break;
	case DK_OFFSETOF:
		return offsetof_expr(p);
	case DK_XLATE:
		return xlate_expr(p);
	default:
		syntax_error(p);
	}
	next(p);
	return e;
}

/* '(' expression ')' then what may follow a primary: the '(' is read */
static struct d_expr *paren_rest(struct d_parser *p)
{
	struct d_expr *e = d_parse_expression(p);

	expect(p, DP_RPAR);
	return postfix_rest(p, e);
}

/* ---- unary and cast --------------------------------------------------------------- */

static struct d_expr *unary_node(enum d_op op, struct d_pos pos, struct d_expr *operand)
{
	struct d_expr *e = d_expr_new(DE_UNARY, pos);

	e->op = op;
	e->lhs = operand;
	return e;
}

/* unary_expression:
 *	postfix_expression
 *	| '++' unary_expression | '--' unary_expression
 *	| unary_operator cast_expression        (& * + - ~ !)
 *	| sizeof unary_expression | sizeof '(' type_name ')'
 *	| stringof unary_expression */
static struct d_expr *unary_expr(struct d_parser *p)
{
	struct d_pos pos = here(p);
	struct d_expr *e;
	enum d_op op;

	switch (TOK(p)) {
	case DP_INC:
	case DP_DEC:
		op = TOK(p) == DP_INC ? DOP_PREINC : DOP_PREDEC;
		next(p);
		return unary_node(op, pos, unary_expr(p));
	case DP_BAND: op = DOP_ADDROF; break;
	case DP_MUL: op = DOP_DEREF; break;
	case DP_ADD: op = DOP_PLUS; break;
	case DP_SUB: op = DOP_NEG; break;
	case DP_BNEG: op = DOP_BITNOT; break;
	case DP_LNEG: op = DOP_NOT; break;
	case DK_SIZEOF:
		next(p);
		if (TOK(p) != DP_LPAR)
			return unary_node(DOP_SIZEOF, pos, unary_expr(p));
		next(p);
		if (d_starts_type_name(p)) {
			e = d_expr_new(DE_SIZEOF_TYPE, pos);
			e->cast_type = d_parse_type_name(p);
			expect(p, DP_RPAR);
			return e;
		}
		return unary_node(DOP_SIZEOF, pos, paren_rest(p));
	case DK_STRINGOF:
		next(p);
		return unary_node(DOP_STRINGOF, pos, unary_expr(p));
	case DP_LPAR:
		/* a parenthesized expression: no cast here */
		next(p);
		if (d_starts_type_name(p))
			syntax_error(p);
		return paren_rest(p);
	default:
		return postfix_rest(p, primary_expr(p));
	}
	next(p);
	return unary_node(op, pos, cast_expr(p, NULL));
}

/* cast_expression: unary_expression | '(' type_name ')' cast_expression
 * (*is_unary: it was a unary_expression, which may be assigned to) */
static struct d_expr *cast_expr(struct d_parser *p, bool *is_unary)
{
	struct d_pos pos = here(p);
	struct d_expr *e;

	if (is_unary)
		*is_unary = true;
	if (TOK(p) != DP_LPAR)
		return unary_expr(p);
	next(p);
	if (!d_starts_type_name(p))
		return paren_rest(p);
	e = d_expr_new(DE_CAST, pos);
	e->cast_type = d_parse_type_name(p);
	expect(p, DP_RPAR);
	e->lhs = cast_expr(p, NULL);
	if (is_unary)
		*is_unary = false;
	return e;
}

/* ---- binary ------------------------------------------------------------------------ */

/* The binary operators, tightest last (as dt_grammar.y's precedence):
 * || ^^ && | ^ & == != < <= > >= << >> + - * / % */
static int binary_prec(enum d_tok t, enum d_op *op)
{
	static const struct {
		enum d_tok tok;
		enum d_op op;
		int prec;
	} ops[] = {
		{ DP_LOR, DOP_LOR, 1 }, { DP_LXOR, DOP_LXOR, 2 }, { DP_LAND, DOP_LAND, 3 },
		{ DP_BOR, DOP_BOR, 4 }, { DP_XOR, DOP_BXOR, 5 }, { DP_BAND, DOP_BAND, 6 },
		{ DP_EQ, DOP_EQ, 7 }, { DP_NE, DOP_NE, 7 },
		{ DP_LT, DOP_LT, 8 }, { DP_LE, DOP_LE, 8 }, { DP_GT, DOP_GT, 8 }, { DP_GE, DOP_GE, 8 },
		{ DP_LSH, DOP_SHL, 9 }, { DP_RSH, DOP_SHR, 9 },
		{ DP_ADD, DOP_ADD, 10 }, { DP_SUB, DOP_SUB, 10 },
		{ DP_MUL, DOP_MUL, 11 }, { DP_DIV, DOP_DIV, 11 }, { DP_MOD, DOP_MOD, 11 },
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (ops[i].tok == t) {
			*op = ops[i].op;
			return ops[i].prec;
		}
	return 0;
}

/* logical_or_expression ... multiplicative_expression: lhs (a cast
 * expression already read) followed by operators of precedence >= min,
 * all left-associative. */
static struct d_expr *binary_rest(struct d_parser *p, struct d_expr *lhs, int min)
{
	enum d_op op;
	int prec;

	while ((prec = binary_prec(TOK(p), &op)) >= min && prec) {
		struct d_expr *e = d_expr_new(DE_BINARY, here(p));

		next(p);
		e->op = op;
		e->lhs = lhs;
		e->rhs = binary_rest(p, cast_expr(p, NULL), prec + 1);
		lhs = e;
	}
	return lhs;
}

/* conditional_expression:
 *	logical_or_expression [ '?' expression ':' conditional_expression ]
 * (cond: the logical_or_expression already read) */
static struct d_expr *conditional_rest(struct d_parser *p, struct d_expr *cond)
{
	struct d_expr *e;

	if (TOK(p) != DP_QUESTION)
		return cond;
	e = d_expr_new(DE_TERNARY, here(p));
	next(p);
	vec_push(&e->args, cond);
	e->lhs = d_parse_expression(p);
	expect(p, DP_COLON);
	e->rhs = d_parse_conditional(p);
	return e;
}

struct d_expr *d_parse_conditional(struct d_parser *p)
{
	return conditional_rest(p, binary_rest(p, cast_expr(p, NULL), 1));
}

static bool assign_op(enum d_tok t, enum d_op *op)
{
	switch (t) {
	case DP_ASSIGN: *op = DOP_ASSIGN; return true;
	case DP_MUL_EQ: *op = DOP_MUL; return true;
	case DP_DIV_EQ: *op = DOP_DIV; return true;
	case DP_MOD_EQ: *op = DOP_MOD; return true;
	case DP_ADD_EQ: *op = DOP_ADD; return true;
	case DP_SUB_EQ: *op = DOP_SUB; return true;
	case DP_LSH_EQ: *op = DOP_SHL; return true;
	case DP_RSH_EQ: *op = DOP_SHR; return true;
	case DP_AND_EQ: *op = DOP_BAND; return true;
	case DP_XOR_EQ: *op = DOP_BXOR; return true;
	case DP_OR_EQ: *op = DOP_BOR; return true;
	default: return false;
	}
}

/* assignment_expression:
 *	conditional_expression
 *	| unary_expression assignment_operator assignment_expression */
struct d_expr *d_parse_assignment(struct d_parser *p)
{
	bool is_unary;
	struct d_expr *e = cast_expr(p, &is_unary), *a;
	enum d_op op;

	if (!assign_op(TOK(p), &op))
		return conditional_rest(p, binary_rest(p, e, 1));
	if (!is_unary)
		syntax_error(p);
	a = d_expr_new(DE_ASSIGN, here(p));
	next(p);
	a->op = op;
	a->lhs = e;
	a->rhs = d_parse_assignment(p);
	return a;
}

/* expression: assignment_expression { ',' assignment_expression } */
struct d_expr *d_parse_expression(struct d_parser *p)
{
	struct d_expr *e = d_parse_assignment(p);

	while (TOK(p) == DP_COMMA) {
		struct d_expr *c = d_expr_new(DE_BINARY, here(p));

		next(p);
		c->op = DOP_COMMA;
		c->lhs = e;
		c->rhs = d_parse_assignment(p);
		e = c;
	}
	return e;
}

/* ---- constant folding ------------------------------------------------------------- */

void d_check_idents(struct d_parser *p, const struct d_expr *e)
{
	if (!e)
		return;
	if (e->kind == DE_IDENT && !d_lex_global(&p->lx, e->name))
		d_error(p->dg, "D_IDENT_UNDEF", e->pos, "failed to resolve %s: Unknown variable name",
			e->name);
	d_check_idents(p, e->lhs);
	d_check_idents(p, e->rhs);
	for (int i = 0; i < e->args.len; i++)
		d_check_idents(p, e->args.items[i]);
}

bool d_const_int(struct d_parser *p, const struct d_expr *e, int64_t *v, bool *is_unsigned)
{
	int64_t a, b, c;
	bool ua = false, ub = false;
	struct d_type *t;

	*is_unsigned = false;
	switch (e->kind) {
	case DE_INT:
		*v = e->num;
		*is_unsigned = (e->str && strpbrk(e->str, "uU")) || e->num < 0;
		return true;
	case DE_IDENT:
		return d_types_enumerator(p->types, e->name, NULL, v);
	case DE_SIZEOF_TYPE:
		*v = d_type_resolve(e->cast_type)->size;
		*is_unsigned = true;
		return *v > 0;
	case DE_CAST:
		t = d_type_resolve(e->cast_type);
		if (!d_type_is_integer(t) || !d_const_int(p, e->lhs, &a, &ua))
			return false;
		if (t->size < 8) {
			int bits = (int)t->size * 8;
			uint64_t m = (1ULL << bits) - 1;

			a = (int64_t)((uint64_t)a & m);
			if (t->is_signed && (a >> (bits - 1)) & 1)
				a = (int64_t)((uint64_t)a | ~m);
		}
		*v = a;
		*is_unsigned = !t->is_signed;
		return true;
	case DE_UNARY:
		if (!d_const_int(p, e->lhs, &a, &ua))
			return false;
		*is_unsigned = ua;
		switch (e->op) {
		case DOP_NEG: *v = (int64_t)(0 - (uint64_t)a); return true;
		case DOP_PLUS: *v = a; return true;
		case DOP_BITNOT: *v = ~a; return true;
		case DOP_NOT: *v = !a; *is_unsigned = false; return true;
		default: return false;
		}
	case DE_TERNARY:
		if (!d_const_int(p, e->args.items[0], &c, &ua))
			return false;
		return d_const_int(p, c ? e->lhs : e->rhs, v, is_unsigned);
	case DE_BINARY:
		if (!d_const_int(p, e->lhs, &a, &ua) || !d_const_int(p, e->rhs, &b, &ub))
			return false;
		*is_unsigned = ua || ub;
		switch (e->op) {
		case DOP_ADD: *v = (int64_t)((uint64_t)a + (uint64_t)b); return true;
		case DOP_SUB: *v = (int64_t)((uint64_t)a - (uint64_t)b); return true;
		case DOP_MUL: *v = (int64_t)((uint64_t)a * (uint64_t)b); return true;
		case DOP_DIV:
		case DOP_MOD:
			if (!b)
				return false;
			if (*is_unsigned)
				*v = e->op == DOP_DIV ? (int64_t)((uint64_t)a / (uint64_t)b)
					: (int64_t)((uint64_t)a % (uint64_t)b);
			else if (b == -1)
				*v = e->op == DOP_DIV ? (int64_t)(0 - (uint64_t)a) : 0;
			else
				*v = e->op == DOP_DIV ? a / b : a % b;
			return true;
		case DOP_SHL: *v = (int64_t)((uint64_t)a << (b & 63)); return true;
		case DOP_SHR:
			*v = ua ? (int64_t)((uint64_t)a >> (b & 63)) : a >> (b & 63);
			return true;
		case DOP_BAND: *v = a & b; return true;
		case DOP_BOR: *v = a | b; return true;
		case DOP_BXOR: *v = a ^ b; return true;
		case DOP_LAND: *v = a && b; break;
		case DOP_LOR: *v = a || b; break;
		case DOP_LXOR: *v = !a != !b; break;
		case DOP_EQ: *v = a == b; break;
		case DOP_NE: *v = a != b; break;
		case DOP_LT: *v = *is_unsigned ? (uint64_t)a < (uint64_t)b : a < b; break;
		case DOP_LE: *v = *is_unsigned ? (uint64_t)a <= (uint64_t)b : a <= b; break;
		case DOP_GT: *v = *is_unsigned ? (uint64_t)a > (uint64_t)b : a > b; break;
		case DOP_GE: *v = *is_unsigned ? (uint64_t)a >= (uint64_t)b : a >= b; break;
		case DOP_COMMA: *v = b; *is_unsigned = ub; return true;
		default: return false;
		}
		*is_unsigned = false;
		return true;
	default:
		return false;
	}
}
