/* lexer.h - pass 1 internals: the tokenizer and the preprocessor between it
 * and the parser.
 *
 *   srcfile --lexer_next--> raw tokens --pp_next--> parser
 *
 * The lexer knows no context: it returns every token of the language
 * (including %( %? %: %), @define, $1, @1, $#, @#). The preprocessor
 * evaluates conditionals, defines and expands @macros and substitutes script
 * arguments, so the parser sees only the language proper.
 * Both report errors through diag() and then return a TK_ERROR token.
 */
#ifndef CSTAP_LEXER_H
#define CSTAP_LEXER_H

#include "ast.h"

struct session;

struct lexer {
	struct session *s;
	const struct srcfile *file;
	const char *p, *end;
	int line, col;
};

void lexer_init(struct lexer *lx, struct session *s, const struct srcfile *f);
/* Fill *t with the next token; TK_EOF at the end (again on every call). */
void lexer_next(struct lexer *lx, struct token *t);

/* Decode an integer literal's text (decimal, 0x hex, 0 octal; values up to
 * 2^64-1 wrap to int64). False if malformed or out of range. */
bool lex_number(const char *text, int64_t *out);
/* Is name one of the language's reserved words? */
bool is_keyword(const char *name);

/* ---- preprocessor (preprocess.c) ---- */

struct pp;
struct pp *pp_new(struct session *s, const struct srcfile *f);
/* Next token for the parser, with conditionals, macros and arguments
 * resolved. TK_ERROR after a diagnostic; the caller should stop. */
void pp_next(struct pp *pp, struct token *t);

#endif
