/* d_diag.h - how the D front end reports a compile error.
 *
 * DTrace stops at the first error and says it in one line, with its own
 * stable tag (the D_* names of DTrace's dt_errtags.h, the ones its test
 * suite asserts):
 *
 *   dtrace: failed to compile script x.d: [D_SYNTAX] line 3: syntax error near "}"
 *
 * then, as every cstap diagnostic, the source line and a caret under the
 * column. d_error() prints that once and long-jumps back to d_compile()'s
 * caller (the parse or check that found it stops there).
 *
 * Where stderr is no terminal (a script reads it, a test compares it) the
 * line is DTrace's word for word: the tag only under -xerrtags, no caret
 * line, and no "line N:" for a program given on the command line (-n, -P,
 * -m, -f, -i), as DTrace says none there.
 */
#ifndef CSTAP_D_DIAG_H
#define CSTAP_D_DIAG_H

#include <setjmp.h>
#include <stdbool.h>

#include "d/d_ast.h"

struct d_diag {
	const char *what;        /* "failed to compile script x.d", "invalid probe specifier T" */
	const char *text;        /* the source, for the caret line (NULL: none) */
	jmp_buf *abort;          /* where d_error() returns to; NULL: it returns */
	bool errtags;            /* -xerrtags: the tag even where stderr is no terminal */
	bool no_lines;           /* the source is a command-line argument */
	int errors;
	const char *tag;         /* the first error's tag */
};

/* Report the first error and abort to diag->abort. pos.line 0: no line. */
void d_error(struct d_diag *dg, const char *tag, struct d_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5), noreturn));
/* The same without the long jump (for errors found after compiling). */
void d_error_at(struct d_diag *dg, const char *tag, struct d_pos pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
