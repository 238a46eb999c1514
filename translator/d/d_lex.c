/* d_lex.c - D's tokens (see d_lex.h): keywords, names and types, numbers,
 * strings and characters, operators, probe descriptions, macro variables,
 * comments. Control lines are in d_pragma.c. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d/d_lex.h"
#include "d/d_parse.h"
#include "d/d_pragma.h"
#include "util.h"

/* ---- tables ------------------------------------------------------------------- */

/* D's reserved words; outer: also a keyword where a clause or a
 * declaration may start (DTrace's S2 state), where it starts a declaration */
static const struct {
	const char *name;
	enum d_tok tok;
	bool outer;
} keywords[] = {
	{ "auto", DK_AUTO, true }, { "break", DK_BREAK }, { "case", DK_CASE },
	{ "char", DK_CHAR, true }, { "const", DK_CONST, true }, { "continue", DK_CONTINUE },
	{ "counter", DK_COUNTER, true }, { "default", DK_DEFAULT }, { "do", DK_DO },
	{ "double", DK_DOUBLE, true }, { "else", DK_ELSE }, { "enum", DK_ENUM, true },
	{ "extern", DK_EXTERN, true }, { "float", DK_FLOAT, true }, { "for", DK_FOR },
	{ "goto", DK_GOTO }, { "if", DK_IF }, { "import", DK_IMPORT, true },
	{ "inline", DK_INLINE, true }, { "int", DK_INT, true }, { "long", DK_LONG, true },
	{ "offsetof", DK_OFFSETOF }, { "probe", DK_PROBE }, { "provider", DK_PROVIDER, true },
	{ "register", DK_REGISTER, true }, { "restrict", DK_RESTRICT, true },
	{ "return", DK_RETURN }, { "self", DK_SELF, true }, { "short", DK_SHORT, true },
	{ "signed", DK_SIGNED, true }, { "sizeof", DK_SIZEOF }, { "static", DK_STATIC, true },
	{ "string", DK_STRING, true }, { "stringof", DK_STRINGOF },
	{ "struct", DK_STRUCT, true }, { "switch", DK_SWITCH }, { "this", DK_THIS, true },
	{ "translator", DK_TRANSLATOR, true }, { "typedef", DK_TYPEDEF, true },
	{ "union", DK_UNION, true }, { "unsigned", DK_UNSIGNED, true },
	{ "userland", DK_USERLAND, true }, { "void", DK_VOID, true },
	{ "volatile", DK_VOLATILE, true }, { "while", DK_WHILE }, { "xlate", DK_XLATE },
};

/* DTrace's built-in identifiers (its _dtrace_globals, DTrace 2.0):
 * variables, subroutines, actions and aggregating functions, with the
 * version of D that brought each (a program of an earlier version,
 * #pragma D option version=1.0, may use the name for its own). */
#define V(maj, min, mic) ((maj) * 10000 + (min) * 100 + (mic))
static const struct {
	const char *name;
	char kind;
	int version;
} builtins[] = {
	{ "alloca", 'f' }, { "arg0", 'v' }, { "arg1", 'v' }, { "arg2", 'v' }, { "arg3", 'v' },
	{ "arg4", 'v' }, { "arg5", 'v' }, { "arg6", 'v' }, { "arg7", 'v' }, { "arg8", 'v' },
	{ "arg9", 'v' }, { "args", 'v' }, { "avg", 'g' }, { "basename", 'f' }, { "bcopy", 'f' },
	{ "breakpoint", 'a' }, { "caller", 'v' }, { "chill", 'a' }, { "cleanpath", 'f' },
	{ "clear", 'a' }, { "commit", 'a' }, { "copyin", 'f' }, { "copyinstr", 'f' },
	{ "copyinto", 'f' }, { "copyout", 'f' }, { "copyoutstr", 'f' }, { "count", 'g' },
	{ "curcpu", 'v' }, { "curthread", 'v' }, { "cwd", 'v' }, { "d_path", 'f' },
	{ "ddi_pathname", 'f' }, { "denormalize", 'a' }, { "dirname", 'f' }, { "discard", 'a' },
	{ "epid", 'v' }, { "errno", 'v' }, { "execname", 'v' }, { "exit", 'a' },
	{ "freopen", 'a', V(1, 1, 0) }, { "ftruncate", 'a' }, { "func", 'a', V(1, 2, 0) },
	{ "getmajor", 'f' }, { "getminor", 'f' }, { "gid", 'v' }, { "htonl", 'f', V(1, 3, 0) },
	{ "htonll", 'f', V(1, 3, 0) }, { "htons", 'f', V(1, 3, 0) }, { "id", 'v' },
	{ "index", 'f', V(1, 1, 0) }, { "inet_ntoa", 'f', V(1, 5, 0) },
	{ "inet_ntoa6", 'f', V(1, 5, 0) }, { "inet_ntop", 'f', V(1, 5, 0) }, { "ipl", 'v' },
	{ "jstack", 'a' }, { "link_ntop", 'f', V(1, 5, 0) }, { "llquantize", 'g', V(1, 6, 4) },
	{ "lltostr", 'f' }, { "lquantize", 'g' }, { "max", 'g' }, { "min", 'g' },
	{ "mod", 'a', V(1, 2, 0) }, { "msgdsize", 'f' }, { "msgsize", 'f' },
	{ "mutex_owned", 'f' }, { "mutex_owner", 'f' }, { "mutex_type_adaptive", 'f' },
	{ "mutex_type_spin", 'f' }, { "normalize", 'a' }, { "ntohl", 'f', V(1, 3, 0) },
	{ "ntohll", 'f', V(1, 3, 0) }, { "ntohs", 'f', V(1, 3, 0) }, { "panic", 'a' },
	{ "pcap", 'a', V(1, 6, 4) }, { "pid", 'v' }, { "ppid", 'v' }, { "print", 'a', V(2, 0, 0) },
	{ "printa", 'a' }, { "printf", 'a' }, { "probefunc", 'v' }, { "probemod", 'v' },
	{ "probename", 'v' }, { "probeprov", 'v' }, { "progenyof", 'f' }, { "quantize", 'g' },
	{ "raise", 'a' }, { "rand", 'f' }, { "rindex", 'f', V(1, 1, 0) }, { "rw_iswriter", 'f' },
	{ "rw_read_held", 'f' }, { "rw_write_held", 'f' }, { "self", 'v' },
	{ "setopt", 'a', V(1, 2, 0) }, { "speculate", 'a' }, { "speculation", 'f' },
	{ "stack", 'a' }, { "stackdepth", 'v' }, { "stddev", 'g', V(1, 6, 0) }, { "stop", 'a' },
	{ "strchr", 'f', V(1, 1, 0) }, { "strjoin", 'f' }, { "strlen", 'f' },
	{ "strrchr", 'f', V(1, 1, 0) }, { "strstr", 'f', V(1, 1, 0) }, { "strtok", 'f', V(1, 1, 0) },
	{ "substr", 'f', V(1, 1, 0) }, { "sum", 'g' }, { "sym", 'a', V(1, 2, 0) }, { "system", 'a' },
	{ "this", 'v' }, { "tid", 'v' }, { "timestamp", 'v' }, { "tolower", 'f', V(1, 8, 0) },
	{ "toupper", 'f', V(1, 8, 0) }, { "trace", 'a' }, { "tracemem", 'a' }, { "trunc", 'a' },
	{ "uaddr", 'a', V(1, 2, 0) }, { "ucaller", 'v', V(1, 2, 0) }, { "ufunc", 'a', V(1, 2, 0) },
	{ "uid", 'v' }, { "umod", 'a', V(1, 2, 0) }, { "uregs", 'v' }, { "ustack", 'a' },
	{ "ustackdepth", 'v', V(1, 2, 0) }, { "usym", 'a', V(1, 2, 0) }, { "vtimestamp", 'v' },
	{ "walltimestamp", 'v' },
};

int d_version_number(const char *s)
{
	int n[3] = { 0, 0, 0 }, i = 0;

	for (; s && *s; s++) {
		if (*s >= '0' && *s <= '9')
			n[i] = n[i] * 10 + (*s - '0');
		else if (*s != '.' || ++i > 2)
			return -1;
	}
	return s ? V(n[0], n[1], n[2]) : -1;
}

/* DTrace's macro variables ($pid ...): dt_macros */
static const char *const macro_vars[] = {
	"egid", "euid", "gid", "pid", "pgid", "ppid", "sid", "target", "uid",
};

int d_builtin_kind(const char *name, int version)
{
	size_t lo = 0, hi = sizeof(builtins) / sizeof(builtins[0]);

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strcmp(name, builtins[mid].name);

		if (!c)
			return !version || builtins[mid].version <= version ? builtins[mid].kind : 0;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

bool d_macro_var(const char *name)
{
	for (size_t i = 0; i < sizeof(macro_vars) / sizeof(macro_vars[0]); i++)
		if (!strcmp(name, macro_vars[i]))
			return true;
	return false;
}

const char *d_tok_name(enum d_tok t)
{
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (keywords[i].tok == t)
			return keywords[i].name;
	return "?";
}

/* The keyword s[0..n) is, or TK_EOF (outer: one of those a declaration
 * starts with, the only ones outside clauses). */
static enum d_tok keyword(const char *s, size_t n, bool outer)
{
	for (size_t i = 0; i < sizeof(keywords) / sizeof(keywords[0]); i++)
		if (strlen(keywords[i].name) == n && !memcmp(keywords[i].name, s, n) &&
		    (!outer || keywords[i].outer))
			return keywords[i].tok;
	return TK_EOF;
}

bool d_lex_global(struct d_lexer *lx, const char *name)
{
	return d_builtin_kind(name, lx->version) || d_types_decl(lx->types, DSC_GLOBAL, name) ||
		d_types_enumerator(lx->types, name, NULL, NULL);
}

/* ---- positions and errors ---------------------------------------------------------- */

static struct d_pos pos_of(const struct d_lexer *lx, const char *p)
{
	struct d_pos pos = { lx->line, (int)(p - lx->line_start) + 1 };

	return pos;
}

/* Move to q, counting the newlines passed. */
static void move_to(struct d_lexer *lx, const char *q)
{
	for (; lx->p < q; lx->p++)
		if (*lx->p == '\n') {
			lx->line++;
			lx->line_start = lx->p + 1;
		}
}

void d_lex_error(struct d_lexer *lx, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	d_error(lx->dg, "D_SYNTAX", lx->tok.pos, "%s", msg);
}

/* The text DTrace shows after "near": the token, cropped at a newline.
 * DTrace's lexer reads past an identifier it has to classify and puts back
 * the blanks as spaces and newlines, which leaves its text running on: the
 * identifier, then the rest of its line up to the first newline put back. */
static char *near_text(const struct d_lexer *lx, const struct d_token *t)
{
	const char *p = t->start + t->len, *q;
	size_t blanks = 0, newlines = 0;
	struct strbuf sb = STRBUF_INIT;

	if (!t->peeked) {
		size_t n = 0;

		while (n < t->len && t->start[n] != '\n')
			n++;
		return xstrndup(t->start, n);
	}
	strbuf_add(&sb, t->start, t->len);
	for (q = p; q < lx->end && strchr("\f\n\r\t\v ", *q); q++) {
		blanks++;
		newlines += *q == '\n';
	}
	for (size_t i = 0; i < blanks - newlines; i++)
		strbuf_addch(&sb, ' ');
	if (!newlines && q < lx->end)
		strbuf_add(&sb, q, strcspn(q, "\n"));
	return strbuf_detach(&sb);
}

void d_lex_syntax_error(struct d_lexer *lx)
{
	if (lx->tok.kind == TK_EOF)
		d_error(lx->dg, "D_SYNTAX", lx->tok.pos, "syntax error near end of input");
	d_error(lx->dg, "D_SYNTAX", lx->tok.pos, "syntax error near \"%s\"", near_text(lx, &lx->tok));
}

/* A character no token starts with: DTrace's catch-all rule. */
__attribute__((noreturn)) static void bad_char(struct d_lexer *lx, const char *p)
{
	d_error(lx->dg, "D_SYNTAX", pos_of(lx, p), "syntax error near \"%c\"", *p);
}

/* ---- setup ---------------------------------------------------------------------- */

void d_lex_init(struct d_lexer *lx, struct d_diag *dg, struct d_types *types,
		struct d_program *prog, const struct d_parse_args *args, const char *text)
{
	memset(lx, 0, sizeof(*lx));
	lx->dg = dg;
	lx->types = types;
	lx->prog = prog;
	lx->args = args;
	lx->arg_used = xcalloc(args->argc + 1, sizeof(bool));
	lx->text = lx->p = lx->line_start = text;
	lx->end = text + strlen(text);
	lx->line = 1;
	lx->state = DL_CLAUSE;
	lx->pspec = args->pspec;
	lx->version = args->version ? d_version_number(args->version) : 0;
	lx->defaultargs = args->defaultargs;
}

/* ---- blanks, comments, control lines ----------------------------------------------- */

/* Only blanks between the start of p's line and p (a '#' there starts a
 * control line). */
static bool at_line_start(const struct d_lexer *lx, const char *p)
{
	for (const char *q = lx->line_start; q < p; q++)
		if (!strchr(" \f\t\v", *q))
			return false;
	return true;
}

/* A comment from lx->p (its opening): DTrace refuses one inside it and one
 * without its end. */
static void skip_comment(struct d_lexer *lx)
{
	const char *q = lx->p + 2;

	for (;;) {
		if (q >= lx->end) {
			move_to(lx, q);
			d_error(lx->dg, "D_SYNTAX", pos_of(lx, q),
				"end-of-file encountered before matching */");
		}
		if (q[0] == '*' && q[1] == '/')
			break;
		if (q[0] == '/' && q[1] == '*') {
			move_to(lx, q);
			d_error(lx->dg, "D_SYNTAX", pos_of(lx, q), "/* encountered inside a comment");
		}
		q++;
	}
	move_to(lx, q + 2);
}

/* Skip blanks, comments, "\\\n" and control lines up to the next token. */
static void skip_blanks(struct d_lexer *lx)
{
	for (;;) {
		const char *p = lx->p;

		if (p >= lx->end)
			return;
		if (strchr("\f\n\r\t\v ", *p) && *p) {
			move_to(lx, p + 1);
		} else if (p[0] == '/' && p[1] == '*') {
			skip_comment(lx);
		} else if (p[0] == '\\' && p[1] == '\n' && lx->state == DL_EXPR) {
			move_to(lx, p + 2);
		} else if (p[0] == '#' && !lx->sident && at_line_start(lx, p)) {
			if (p[1] == '!')      /* #!/usr/sbin/dtrace -s */
				move_to(lx, p + strcspn(p, "\n"));
			else
				d_control_line(lx);
		} else {
			return;
		}
	}
}

/* ---- numbers ---------------------------------------------------------------------- */

/* The length of DTrace's RGX_INT at p: ([0-9]+|0[xX][0-9A-Fa-f]+)[uU]?[lL]?[lL]? */
static size_t int_len(const char *p)
{
	const char *q = p;

	if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X') && isxdigit((unsigned char)q[2])) {
		q += 2;
		while (isxdigit((unsigned char)*q))
			q++;
	} else {
		while (isdigit((unsigned char)*q))
			q++;
	}
	if (q == p)
		return 0;
	if (*q == 'u' || *q == 'U')
		q++;
	for (int i = 0; i < 2 && (*q == 'l' || *q == 'L'); i++)
		q++;
	return q - p;
}

/* The length of DTrace's RGX_FP at p (which it refuses): digits with an
 * optional '.', or '.' digits; an exponent; an f/l suffix. */
static size_t fp_len(const char *p)
{
	const char *q = p;

	if (isdigit((unsigned char)*q)) {
		while (isdigit((unsigned char)*q))
			q++;
		if (*q == '.')
			q++;
		while (isdigit((unsigned char)*q))
			q++;
	} else if (*q == '.' && isdigit((unsigned char)q[1])) {
		q++;
		while (isdigit((unsigned char)*q))
			q++;
	} else {
		return 0;
	}
	if ((*q == 'e' || *q == 'E')) {
		const char *e = q + 1;

		if (*e == '+' || *e == '-')
			e++;
		if (isdigit((unsigned char)*e)) {
			while (isdigit((unsigned char)*e))
				e++;
			q = e;
		}
	}
	if (*q && strchr("fFlL", *q))
		q++;
	return q - p;
}

/* The value of an integer constant as strtoull reads it, with DTrace's
 * errors for one too big and one with a digit its base has not. */
uint64_t d_lex_int_value(struct d_lexer *lx, const char *text, size_t n, struct d_pos pos)
{
	char *s = xstrndup(text, n), *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno == ERANGE)
		d_error(lx->dg, "D_INT_OFLOW", pos, "constant %s results in integer overflow", s);
	if (*end && !strchr("uUlL", *end))
		d_error(lx->dg, "D_INT_DIGIT", pos, "constant %s contains invalid digit %c", s, *end);
	free(s);
	return v;
}

/* An integer constant (clauses refuse what DTrace reads as floating point:
 * "1.5", "1e3", "2f"). */
static void lex_number(struct d_lexer *lx, bool fp_allowed_error)
{
	const char *p = lx->p;
	size_t n = int_len(p);

	if (fp_allowed_error && fp_len(p) > n)
		d_error(lx->dg, "D_SYNTAX", pos_of(lx, p), "floating-point constants are not permitted");
	lx->tok.kind = TK_INT;
	lx->tok.num = d_lex_int_value(lx, p, n, pos_of(lx, p));
	lx->tok.str = xstrndup(p, n);
	move_to(lx, p + n);
}

/* ---- strings and characters ---------------------------------------------------------- */

/* Decode C escapes into out; the decoded length. A string (str) keeps \\
 * and \? as written, as DTrace's strings do (printf's format reads them:
 * copy_text, d_lower_fmt.c); a character constant decodes them. */
size_t d_lex_unescape(const char *s, size_t n, char *out, bool str)
{
	const char *end = s + n;
	size_t len = 0;

	while (s < end) {
		int c = (unsigned char)*s++;

		if (c == '\\' && s < end && str && (*s == '\\' || *s == '?')) {
			out[len++] = '\\';
			c = (unsigned char)*s++;
		} else if (c == '\\' && s < end) {
			c = (unsigned char)*s++;
			switch (c) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'a': c = '\a'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'v': c = '\v'; break;
			case 'x': {
				int v = 0, i = 0;

				for (; i < 2 && s < end && isxdigit((unsigned char)*s); i++, s++)
					v = v * 16 + (isdigit((unsigned char)*s) ? *s - '0'
						      : tolower((unsigned char)*s) - 'a' + 10);
				c = i ? v : 'x';
				break;
			}
			case '0': case '1': case '2': case '3':
			case '4': case '5': case '6': case '7': {
				int v = c - '0';

				for (int i = 1; i < 3 && s < end && *s >= '0' && *s <= '7'; i++, s++)
					v = v * 8 + (*s - '0');
				c = v & 0xff;
				break;
			}
			default:
				break;   /* \\ \" \' and any other: the character */
			}
		}
		out[len++] = (char)c;
	}
	out[len] = 0;
	return len;
}

/* The end of a quoted run from p (at the opening quote): the closing quote,
 * or NULL with *nl set when a newline comes first (DTrace's RGX_STR/RGX_CHR:
 * a backslash escapes any character but a newline). */
static const char *quoted_end(const struct d_lexer *lx, const char *p, bool *nl)
{
	char quote = *p++;

	*nl = false;
	while (p < lx->end) {
		if (*p == quote)
			return p;
		if (*p == '\n') {
			*nl = true;
			return NULL;
		}
		if (*p == '\\') {
			if (p + 1 >= lx->end || p[1] == '\n')
				return NULL;
			p++;
		}
		p++;
	}
	return NULL;
}

/* "..." into a string token; a newline in it is D_STR_NL, reported on
 * the line after as DTrace counts it. */
void d_lex_string(struct d_lexer *lx, struct d_token *t)
{
	const char *p = lx->p;
	bool nl;
	const char *q = quoted_end(lx, p, &nl);

	if (!q) {
		if (!nl)
			bad_char(lx, p);
		move_to(lx, p + strcspn(p, "\n") + 1);
		d_error(lx->dg, "D_STR_NL", pos_of(lx, lx->p), "newline encountered in string literal");
	}
	t->kind = TK_STR;
	t->str = xmalloc(q - p);
	t->str_len = d_lex_unescape(p + 1, q - p - 1, t->str, true);
	move_to(lx, q + 1);
}

/* 'c' (up to eight characters, the first the most significant) */
static void lex_char(struct d_lexer *lx)
{
	const char *p = lx->p;
	bool nl;
	const char *q = quoted_end(lx, p, &nl);
	char buf[64], *s;
	size_t n;

	if (!q) {
		if (!nl)
			bad_char(lx, p);
		move_to(lx, p + strcspn(p, "\n") + 1);
		d_error(lx->dg, "D_CHR_NL", pos_of(lx, lx->p),
			"newline encountered in character constant");
	}
	if (q == p + 1)
		d_error(lx->dg, "D_CHR_NULL", pos_of(lx, p), "empty character constant");
	s = q - p < (long)sizeof(buf) ? buf : xmalloc(q - p);
	n = d_lex_unescape(p + 1, q - p - 1, s, false);
	if (n > 8)
		d_error(lx->dg, "D_CHR_OFLOW", pos_of(lx, p), "character constant is too long");
	lx->tok.kind = TK_INT;
	lx->tok.num = 0;
	for (size_t i = 0; i < n; i++)
		lx->tok.num = lx->tok.num << 8 | (unsigned char)s[i];
	lx->tok.str = xstrndup(p, q + 1 - p);
	move_to(lx, q + 1);
}

/* ---- names ---------------------------------------------------------------------- */

static bool ident_start(int c)
{
	return isalpha(c) || c == '_' || c == '`';
}

static bool ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '`';
}

/* DTrace's id_or_type(): an identifier or a type name. A name DTrace
 * cannot rule out otherwise is decided by the character after it: ++, --,
 * [, = (not ==), ; , (outside parentheses), > (in a translator's input)
 * make it an identifier, remembered as one; else it is a type if a type
 * has that name and the declaration being read has no type yet. */
static enum d_tok ident_or_type(struct d_lexer *lx, const char *name)
{
	const char *q = lx->p;
	bool ident = false;

	if (lx->sou_type) {
		lx->sou_type = false;
		return TK_TNAME;
	}
	if (lx->sou_deref) {
		lx->sou_deref = false;
		return TK_IDENT;
	}
	if (d_lex_global(lx, name) || d_symtab_get(&lx->idents, name))
		return TK_IDENT;
	lx->tok.peeked = true;
	while (q < lx->end && strchr("\f\n\r\t\v ", *q))
		q++;
	switch (q < lx->end ? *q : 0) {
	case '+':
	case '-':
		ident = q[1] == q[0];
		break;
	case '=':
		ident = q[1] != '=';
		break;
	case '[':
	case ';':
		ident = true;
		break;
	case ',':
		ident = lx->parens == 0;
		break;
	case '>':
		ident = lx->xlator_input;
		break;
	}
	if (ident) {
		if (!lx->typedef_class)
			d_symtab_put(&lx->idents, name, lx);
		return TK_IDENT;
	}
	if (!d_type_lookup(lx->types, name) || lx->decl_has_type)
		return TK_IDENT;
	return TK_TNAME;
}

/* $1 $$1 $name $$name in an expression: kept as written (TK_MACRO); an
 * argument not given or a macro variable DTrace lacks is D_MACRO_UNDEF. */
static void lex_macro(struct d_lexer *lx)
{
	const char *p = lx->p, *q = p + 1;
	bool dollar2 = *q == '$';

	if (dollar2)
		q++;
	if (isdigit((unsigned char)*q)) {
		long i;

		while (isdigit((unsigned char)*q))
			q++;
		lx->tok.str = xstrndup(p, q - p);
		i = strtol(p + (dollar2 ? 2 : 1), NULL, 10);
		if (i >= lx->args->argc && !lx->defaultargs)
			d_error(lx->dg, "D_MACRO_UNDEF", pos_of(lx, p),
				"macro argument %s is not defined", lx->tok.str);
		if (i < lx->args->argc)
			lx->arg_used[i] = true;
	} else if (ident_start((unsigned char)*q)) {
		while (ident_char((unsigned char)*q))
			q++;
		lx->tok.str = xstrndup(p, q - p);
		if (!d_macro_var(lx->tok.str + (dollar2 ? 2 : 1)))
			d_error(lx->dg, "D_MACRO_UNDEF", pos_of(lx, p),
				"macro variable %s is not defined", lx->tok.str);
	} else {
		bad_char(lx, p);
	}
	lx->tok.kind = TK_MACRO;
	move_to(lx, q);
}

/* ---- the two states ---------------------------------------------------------------- */

static bool pspec_char(int c)
{
	return c && (isalnum(c) || strchr("-$:_.?*\\[]!`", c));
}

/* Outside clauses (DTrace's S2): a probe description, or the keyword or
 * type name that starts a declaration; with no ':' '-' '.' '?' '!' or '`'
 * in it a word may be a type ("int*x;" declares x unless pspec is set). */
static void lex_outer(struct d_lexer *lx)
{
	const char *p = lx->p, *q = p;
	enum d_tok kw;
	char *word, *star;

	if (isdigit((unsigned char)*p)) {
		lex_number(lx, false);
		return;
	}
	if (!pspec_char((unsigned char)*p) || *p == '`') {
		switch (*p) {
		case '/': lx->tok.kind = DP_DIV; break;
		case ',': lx->tok.kind = DP_COMMA; break;
		case '{':
			lx->tok.kind = DP_LBRACE;
			lx->braces++;
			lx->sou_type = false;
			break;
		default:
			bad_char(lx, p);
		}
		move_to(lx, p + 1);
		return;
	}
	while (pspec_char((unsigned char)*q))
		q++;
	if ((kw = keyword(p, q - p, true)) != TK_EOF) {
		lx->tok.kind = kw;
		lx->state = DL_EXPR;
		lx->sou_type = kw == DK_STRUCT || kw == DK_UNION || kw == DK_ENUM;
		move_to(lx, q);
		return;
	}
	word = xstrndup(p, q - p);
	lx->tok.kind = TK_PSPEC;
	lx->tok.str = word;
	if (!lx->pspec && !strpbrk(word, ":-.?!`") && strcmp(word, "BEGIN") &&
	    strcmp(word, "END") && strcmp(word, "ERROR")) {
		char *name = xstrdup(word);

		if ((star = strchr(name, '*')) && star > name)
			*star = 0;
		if (d_type_lookup(lx->types, name)) {
			lx->tok.kind = TK_TNAME;
			lx->tok.str = name;
			lx->state = DL_EXPR;
			q = p + strlen(name);
		}
	}
	move_to(lx, q);
}

/* The '/' of a division or the one closing a predicate: the latter when
 * the next thing but blanks is the end, ';', '{' or '/' (DTrace's rule). */
static void lex_slash(struct d_lexer *lx)
{
	const char *q = lx->p + 1;

	while (q < lx->end && strchr("\f\n\r\t\v ", *q))
		q++;
	if (q >= lx->end || strchr(";{/", *q)) {
		if (lx->parens || lx->brackets) {
			move_to(lx, q);
			d_error(lx->dg, "D_SYNTAX", pos_of(lx, q), "closing %c expected in predicate before /",
				lx->parens ? ')' : ']');
		}
		lx->tok.kind = DP_EPRED;
	} else {
		lx->tok.kind = DP_DIV;
	}
	move_to(lx, lx->p + 1);
}

/* The operator at p, longest first. */
static const struct {
	const char *text;
	enum d_tok tok;
} operators[] = {
	{ "<<=", DP_LSH_EQ }, { ">>=", DP_RSH_EQ }, { "...", DP_ELLIPSIS },
	{ "->", DP_ARROW }, { "++", DP_INC }, { "--", DP_DEC }, { "<<", DP_LSH },
	{ ">>", DP_RSH }, { "<=", DP_LE }, { ">=", DP_GE }, { "==", DP_EQ }, { "!=", DP_NE },
	{ "&&", DP_LAND }, { "||", DP_LOR }, { "^^", DP_LXOR }, { "+=", DP_ADD_EQ },
	{ "-=", DP_SUB_EQ }, { "*=", DP_MUL_EQ }, { "/=", DP_DIV_EQ }, { "%=", DP_MOD_EQ },
	{ "&=", DP_AND_EQ }, { "^=", DP_XOR_EQ }, { "|=", DP_OR_EQ },
	{ "(", DP_LPAR }, { ")", DP_RPAR }, { "[", DP_LBRAC }, { "]", DP_RBRAC },
	{ "{", DP_LBRACE }, { "}", DP_RBRACE }, { ";", DP_SEMI }, { ",", DP_COMMA },
	{ ".", DP_DOT }, { "?", DP_QUESTION }, { ":", DP_COLON }, { "=", DP_ASSIGN },
	{ "|", DP_BOR }, { "^", DP_XOR }, { "&", DP_BAND }, { "<", DP_LT }, { ">", DP_GT },
	{ "+", DP_ADD }, { "-", DP_SUB }, { "*", DP_MUL }, { "%", DP_MOD }, { "~", DP_BNEG },
	{ "!", DP_LNEG },
};

/* An operator or punctuator, with the counts and flags DTrace keeps as it
 * reads them: unmatched ) ] } are errors here. */
static void lex_operator(struct d_lexer *lx)
{
	const char *p = lx->p;
	size_t i, n = sizeof(operators) / sizeof(operators[0]);

	for (i = 0; i < n; i++)
		if (!strncmp(p, operators[i].text, strlen(operators[i].text)))
			break;
	if (i == n)
		bad_char(lx, p);
	lx->tok.kind = operators[i].tok;
	move_to(lx, p + strlen(operators[i].text));
	switch (lx->tok.kind) {
	case DP_LPAR:
		lx->parens++;
		lx->sou_type = false;
		break;
	case DP_RPAR:
		if (--lx->parens < 0)
			d_lex_error(lx, "extra ) in input stream");
		lx->sou_type = false;
		break;
	case DP_LBRAC:
		lx->brackets++;
		break;
	case DP_RBRAC:
		if (--lx->brackets < 0)
			d_lex_error(lx, "extra ] in input stream");
		break;
	case DP_LBRACE:
		lx->braces++;
		lx->sou_type = false;
		break;
	case DP_RBRACE:
		if (--lx->braces < 0)
			d_lex_error(lx, "extra } in input stream");
		break;
	case DP_LT:
	case DP_GT:
		lx->sou_type = false;
		break;
	case DP_DOT:
	case DP_ARROW:
		lx->sou_deref = true;
		lx->sident = true;
		break;
	default:
		break;
	}
}

/* After -> or . : a member name, which may be a keyword (x->self). */
static bool lex_member(struct d_lexer *lx)
{
	const char *p = lx->p, *q = p;

	lx->sident = false;
	if (*p == '$' && isdigit((unsigned char)p[1])) {
		long i = strtol(p + 1, (char **)&q, 10);

		lx->tok.kind = TK_IDENT;
		lx->tok.str = xstrdup(i < lx->args->argc ? lx->args->argv[i] : "0");
		if (i < lx->args->argc)
			lx->arg_used[i] = true;
		lx->sou_deref = false;
		move_to(lx, q);
		return true;
	}
	if (!ident_start((unsigned char)*p))
		return false;
	while (ident_char((unsigned char)*q))
		q++;
	lx->tok.kind = TK_IDENT;
	lx->tok.str = xstrndup(p, q - p);
	lx->sou_deref = false;
	move_to(lx, q);
	return true;
}

/* In clauses and declarations (DTrace's S0). */
static void lex_expr(struct d_lexer *lx)
{
	const char *p = lx->p, *q = p;
	int c = (unsigned char)*p;

	if (lx->sident && lex_member(lx))
		return;
	if (ident_start(c)) {
		enum d_tok kw;

		while (ident_char((unsigned char)*q))
			q++;
		if ((kw = keyword(p, q - p, false)) != TK_EOF) {
			lx->tok.kind = kw;
			if (kw == DK_STRUCT || kw == DK_UNION || kw == DK_ENUM)
				lx->sou_type = true;
			move_to(lx, q);
			return;
		}
		lx->tok.str = xstrndup(p, q - p);
		move_to(lx, q);
		lx->tok.kind = ident_or_type(lx, lx->tok.str);
		return;
	}
	if (isdigit(c) || (c == '.' && isdigit((unsigned char)p[1]))) {
		lex_number(lx, true);
		return;
	}
	switch (c) {
	case '$':
		lex_macro(lx);
		return;
	case '@':
		q = p + 1;
		if (isalpha((unsigned char)*q) || *q == '_')
			while (isalnum((unsigned char)*q) || *q == '_')
				q++;
		lx->tok.kind = TK_AGG;
		lx->tok.str = xstrndup(p, q - p);
		move_to(lx, q);
		return;
	case '"':
		d_lex_string(lx, &lx->tok);
		return;
	case '\'':
		lex_char(lx);
		return;
	case '/':
		if (p[1] != '=') {
			lex_slash(lx);
			return;
		}
		break;
	}
	lex_operator(lx);
}

/* The token at lx->p after blanks, comments and control lines. */
void d_lex_next(struct d_lexer *lx)
{
	memset(&lx->tok, 0, sizeof(lx->tok));
	skip_blanks(lx);
	lx->tok.start = lx->p;
	lx->tok.pos = pos_of(lx, lx->p);
	if (lx->p >= lx->end) {
		lx->tok.kind = TK_EOF;
		lx->tok.len = 0;
		return;
	}
	if (lx->state == DL_CLAUSE && !lx->sident)
		lex_outer(lx);
	else
		lex_expr(lx);
	lx->tok.len = lx->p - lx->tok.start;
	if (!lx->tok.str)
		lx->tok.str = xstrndup(lx->tok.start, lx->tok.len);
	if (lx->tok.kind != TK_STR)
		lx->tok.str_len = strlen(lx->tok.str);
}
