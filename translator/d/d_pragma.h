/* d_pragma.h - D's control lines, read by the lexer (d_lex.c) as DTrace
 * reads them: #pragma D option, #pragma D attributes/binding/depends_on,
 * #error, #ident, #line and cpp's "# 12 "file"" line markers. Lexer
 * internals shared by d_lex.c and d_pragma.c are declared here too. */
#ifndef CSTAP_D_PRAGMA_H
#define CSTAP_D_PRAGMA_H

#include "d/d_lex.h"

/* The control line at lx->p (a '#' first on its line): read it up to its
 * newline and act on it. */
void d_control_line(struct d_lexer *lx);

/* At the end of the parse: the attributes and binding pragmas naming no
 * variable or inline the program declared (D_PRAGMA_UNUSED). */
void d_pragma_check_unused(struct d_lexer *lx);

/* lexer internals */
uint64_t d_lex_int_value(struct d_lexer *lx, const char *text, size_t n, struct d_pos pos);
size_t d_lex_unescape(const char *s, size_t n, char *out, bool str);
void d_lex_string(struct d_lexer *lx, struct d_token *t);

#endif
