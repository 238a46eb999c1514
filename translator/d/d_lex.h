/* d_lex.h - D's tokens, read one at a time as the parser asks for them.
 *
 * D is lexed in two states, as DTrace's lexer does: DL_CLAUSE outside
 * clauses, where a run of [-$:a-zA-Z0-9_.?*\[\]!`] is a probe description
 * (TK_PSPEC) unless it is a declaration keyword or a type name, and DL_EXPR
 * inside declarations and clauses. An identifier is a TK_TNAME or a TK_IDENT
 * by DTrace's rules (struct/union/enum before it, -> or . before it, a known
 * global, the character after it, a type of that name), so the parser sets
 * the few facts those rules read (decl_has_type, typedef_class,
 * xlator_input) before it asks for the next token.
 *
 * Control lines (#pragma D option x, #pragma D attributes ..., # 12 "file",
 * #error ...) are handled here when they are read, as DTrace does: they
 * become d_pragma entries of the program or set the line, and bad ones are
 * the errors DTrace reports (D_PRAGMA_MALFORM, D_PRAGCTL_INVAL ...).
 * Errors go through d_error() and stop the parse.
 */
#ifndef CSTAP_D_LEX_H
#define CSTAP_D_LEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "d/d_ast.h"
#include "d/d_diag.h"
#include "d/d_types.h"

struct d_parse_args;

enum d_tok {
	TK_EOF,
	TK_IDENT, TK_TNAME, TK_INT, TK_STR, TK_AGG, TK_PSPEC, TK_MACRO,
	/* keywords */
	DK_AUTO, DK_BREAK, DK_CASE, DK_CHAR, DK_CONST, DK_CONTINUE, DK_COUNTER,
	DK_DEFAULT, DK_DO, DK_DOUBLE, DK_ELSE, DK_ENUM, DK_EXTERN, DK_FLOAT, DK_FOR,
	DK_GOTO, DK_IF, DK_IMPORT, DK_INLINE, DK_INT, DK_LONG, DK_OFFSETOF, DK_PROBE,
	DK_PROVIDER, DK_REGISTER, DK_RESTRICT, DK_RETURN, DK_SELF, DK_SHORT, DK_SIGNED,
	DK_SIZEOF, DK_STATIC, DK_STRING, DK_STRINGOF, DK_STRUCT, DK_SWITCH, DK_THIS,
	DK_TRANSLATOR, DK_TYPEDEF, DK_UNION, DK_UNSIGNED, DK_USERLAND, DK_VOID,
	DK_VOLATILE, DK_WHILE, DK_XLATE,
	/* punctuators */
	DP_LPAR, DP_RPAR, DP_LBRAC, DP_RBRAC, DP_LBRACE, DP_RBRACE, DP_SEMI, DP_COMMA,
	DP_ELLIPSIS, DP_DOT, DP_ARROW, DP_QUESTION, DP_COLON,
	DP_ASSIGN, DP_MUL_EQ, DP_DIV_EQ, DP_MOD_EQ, DP_ADD_EQ, DP_SUB_EQ, DP_LSH_EQ,
	DP_RSH_EQ, DP_AND_EQ, DP_XOR_EQ, DP_OR_EQ,
	DP_LOR, DP_LXOR, DP_LAND, DP_BOR, DP_XOR, DP_BAND, DP_EQ, DP_NE,
	DP_LT, DP_LE, DP_GT, DP_GE, DP_LSH, DP_RSH, DP_ADD, DP_SUB, DP_MUL, DP_DIV,
	DP_MOD, DP_BNEG, DP_LNEG, DP_INC, DP_DEC,
	DP_EPRED,                /* the '/' that closes a predicate */
};

struct d_token {
	enum d_tok kind;
	struct d_pos pos;
	const char *start;       /* the token's text in the source */
	size_t len;
	char *str;               /* IDENT TNAME PSPEC AGG MACRO: the name as written;
				  * STR: the string with its escapes decoded */
	size_t str_len;
	uint64_t num;            /* INT */
	bool peeked;             /* an identifier DTrace looked past (its error text) */
};

enum d_lexstate {
	DL_CLAUSE,               /* DTrace's S2: probe descriptions and declarations */
	DL_EXPR,                 /* DTrace's S0: clauses and declarations */
};

struct d_lexer {
	struct d_diag *dg;
	struct d_types *types;
	struct d_program *prog;  /* where pragmas go */
	const struct d_parse_args *args;
	bool *arg_used;          /* $N referenced (for D_MACRO_UNUSED) */
	const char *text, *p, *end;
	int line;
	const char *line_start;
	enum d_lexstate state;
	bool sident;             /* after -> or .: an identifier, keywords too */
	struct d_token tok;      /* the current token */
	/* what DTrace's lexer keeps of the parse */
	int parens, brackets, braces;
	bool sou_type;           /* struct/union/enum just read: a tag follows */
	bool sou_deref;          /* -> or . just read: a member name follows */
	bool xlator_input;       /* set by the parser in translator < T x > */
	bool decl_has_type;      /* set by the parser: the declaration has its type */
	bool typedef_class;      /* set by the parser: a typedef declaration */
	bool pspec;              /* #pragma D option pspec */
	bool defaultargs;        /* -xdefaultargs or its pragma */
	int version;             /* -xversion or its pragma (d_builtin_kind), 0: latest */
	struct d_symtab idents;  /* names taken for identifiers by their next char */
};

void d_lex_init(struct d_lexer *lx, struct d_diag *dg, struct d_types *types,
		struct d_program *prog, const struct d_parse_args *args, const char *text);
/* Read the next token into lx->tok, in the current state. */
void d_lex_next(struct d_lexer *lx);
/* DTrace's "syntax error near "TOKEN"" about lx->tok (D_SYNTAX). */
__attribute__((noreturn)) void d_lex_syntax_error(struct d_lexer *lx);
/* D_SYNTAX with a message of its own, at the current token. */
__attribute__((noreturn, format(printf, 2, 3)))
void d_lex_error(struct d_lexer *lx, const char *fmt, ...);

/* A built-in identifier of DTrace: 'v' a variable, 'f' a subroutine,
 * 'a' an action, 'g' an aggregating function; 0 if not one, or if the
 * version of D in force (version: major*10000 + minor*100 + micro, 0 for
 * the latest) predates it. */
int d_builtin_kind(const char *name, int version);
/* "1.6.4" as such a version number; -1 if it is not one. */
int d_version_number(const char *s);
/* A macro variable DTrace defines ($pid, $target ...), without the '$'. */
bool d_macro_var(const char *name);
/* A global name of the program so far: built-in, declared, inline or
 * enumerator (those the lexer takes for identifiers, never for types). */
bool d_lex_global(struct d_lexer *lx, const char *name);
/* The keyword's spelling ("int"), for messages. */
const char *d_tok_name(enum d_tok t);

#endif
