/* d_parse.h - D programs into D's tree (d_ast.h).
 *
 * d_parse() reads a whole program (a -s file, or the text of -n/-P/-m/-f),
 * declaring its types in the d_types table as it goes (DTrace does the
 * same: a type is known from its declaration on, and the lexer needs it to
 * tell a cast from a parenthesized expression). Lexical, syntax and
 * declaration errors are DTrace's (D_SYNTAX, D_DECL_*, D_PRAGMA_*, ...),
 * reported with d_error(), which long-jumps to dg->abort: set it first.
 * What needs the types of expressions (D_OP_*, D_PROTO_*, D_IDENT_UNDEF ...)
 * is left to the checker.
 *
 * Macro arguments ($1, $$1, $target, $pid ...) are expanded as text in
 * probe descriptions (pid$target::main:entry, profile-$1); in expressions
 * they stay DE_MACRO nodes, except that an undefined one is D_MACRO_UNDEF.
 */
#ifndef CSTAP_D_PARSE_H
#define CSTAP_D_PARSE_H

#include <stdbool.h>
#include <stdio.h>

#include "d/d_ast.h"
#include "d/d_diag.h"
#include "d/d_types.h"

/* What a probe description of fewer than four parts ends with: its last
 * part is the probe name for a program and -n (BEGIN is :::BEGIN), the
 * function for -f, the module for -m, the provider for -P. */
enum d_pspec {
	D_PSPEC_NAME,
	D_PSPEC_FUNCTION,
	D_PSPEC_MODULE,
	D_PSPEC_PROVIDER,
};

struct d_parse_args {
	int argc;                /* macro arguments $0 .. $argc-1 (argv[0]: $0) */
	const char *const *argv;
	long target_pid;         /* $target: the -c or -p process, 0 if none */
	enum d_pspec spec;       /* D_PSPEC_NAME (0) for programs and -n */
	bool is_file;            /* a -s file: a description needs a predicate or a body */
	bool defaultargs;        /* -xdefaultargs: $N past the arguments is 0 or "" */
	bool argref;             /* -xargref: unreferenced arguments are no error */
	bool allow_empty;        /* -xempty: a program of no clauses is no error */
	bool pspec;              /* -xpspec: ambiguous outer words are descriptions */
	const char *version;     /* -xversion: the built-ins of that version of D only */
};

/* Parse the program text (name: what d_program->name says). */
struct d_program *d_parse(struct d_diag *dg, struct d_types *types, const char *name,
			  const char *text, const struct d_parse_args *args);

/* A probe description alone, as -P/-m/-f/-n give one without a clause:
 * its parts split from the right as args->spec says, macros expanded.
 * D_PDESC_INVAL when it has too many parts or an undefined macro. */
struct d_pdesc *d_parse_pdesc(struct d_diag *dg, const char *text, const struct d_parse_args *args);

/* Print the tree as S-expressions (one top-level item a line group), for
 * debugging and the unit tests. */
void d_dump_program(FILE *f, const struct d_program *prog);
void d_dump_expr(struct strbuf *sb, const struct d_expr *e);
void d_dump_stmt(struct strbuf *sb, const struct d_stmt *s);

#endif
