/* regex.h - compile a SystemTap regular expression (s =~ "re", POSIX
 * extended syntax) into the small backtracking program runtime/regex.h
 * runs, at translation time: a bad pattern is a pass-2 error, and the
 * module carries no regex compiler.
 *
 * Supported: literals and \ escapes, ., [...] with ranges, negation and
 * [:class:], ^, $, ( ), |, *, +, ?, {m}, {m,}, {m,n} (n at most 255).
 */
#ifndef CSTAP_REGEX_H
#define CSTAP_REGEX_H

#include "util.h"

/* One instruction, as runtime/regex.h's struct stp_re_insn: x and y are
 * relative jump targets. */
struct regex_insn {
	unsigned char op, arg;
	int x, y;
};
enum { REGEX_CHAR = 1, REGEX_ANY, REGEX_CLASS, REGEX_SPLIT, REGEX_JMP, REGEX_SAVE, REGEX_BOL, REGEX_EOL,
       REGEX_MATCH };

struct regex_prog {
	struct regex_insn *prog;        /* the program, ninsns of them */
	unsigned char (*cls)[32];       /* its class bitmaps, nclasses of them */
	struct strbuf insns;    /* C initialisers of struct stp_re_insn, one a line */
	struct strbuf classes;  /* C initialisers of the 32-byte class bitmaps */
	int ninsns, nclasses;
	int ngroups;            /* ( ) groups, not counting the whole match */
	int id;                 /* its tables are re_<id> and re_<id>_cls in the module */
};

/* Compile re; false with *err set (a static message) if it is not valid. */
bool regex_compile(const char *re, struct regex_prog *out, const char **err);

#endif
