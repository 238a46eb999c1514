/* lexer.c - turns one source file into SystemTap tokens (see lexer.h).
 *
 * Token rules (SystemTap language reference, section 5):
 *   identifiers  [A-Za-z_][A-Za-z0-9_$]*      (keywords are identifiers too)
 *   $name $$vars target variables; a bare "$" / "$$" is an operator (the
 *                autocast pretty-print suffix)
 *   $N @N $# @#  script arguments (TK_PARAM)
 *   @name        @-operators and macro uses (TK_AT_OP)
 *   numbers      C decimal / 0x hex / 0 octal, no suffixes
 *   "strings"    C escapes, no raw newline
 *   %{ code %}   embedded C (TK_EMBEDDED)
 *   comments     # ... , // ... , / * ... * /
 */
#include "lexer.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "session.h"

static const char *const keywords[] = {
	"probe", "global", "function", "if", "else", "for", "foreach", "in",
	"limit", "return", "delete", "while", "break", "continue", "next",
	"string", "long", "try", "catch", "private", NULL,
};

bool is_keyword(const char *name)
{
	for (int i = 0; keywords[i]; i++)
		if (strcmp(name, keywords[i]) == 0)
			return true;
	return false;
}

/* Longest operators first so that "<<=" wins over "<<" and "<". */
static const char *const operators[] = {
	"<<<", ">>>", "<<=", ">>=",
	"==", "!=", "<=", ">=", "&&", "||", "++", "--", "+=", "-=", "*=", "/=",
	"%=", "&=", "^=", "|=", ".=", "<<", ">>", "->", "=~", "!~",
	"%(", "%?", "%:", "%)",
	"{", "}", "(", ")", "[", "]", ";", ",", ".", "=", "+", "-", "*", "/",
	"%", "<", ">", "!", "~", "&", "^", "|", "?", ":",
	NULL,
};

void lexer_init(struct lexer *lx, struct session *s, const struct srcfile *f)
{
	lx->s = s;
	lx->file = f;
	lx->p = f->text;
	lx->end = f->text + f->len;
	lx->line = 1;
	lx->col = 1;
}

static int peekc(const struct lexer *lx, int ahead)
{
	return lx->p + ahead < lx->end ? (unsigned char)lx->p[ahead] : -1;
}

/* Move to q (at or after lx->p, at most lx->end), keeping line and column:
 * one pass over the skipped bytes for newlines, so comments and embedded C
 * cost a memchr, not a per-byte step. */
static void skip_to(struct lexer *lx, const char *q)
{
	const char *nl, *last = NULL, *p = lx->p;

	while ((nl = memchr(p, '\n', (size_t)(q - p)))) {
		lx->line++;
		last = nl;
		p = nl + 1;
	}
	if (last)
		lx->col = (int)(q - last);
	else
		lx->col += (int)(q - lx->p);
	lx->p = q;
}

static void advance(struct lexer *lx, int n)
{
	if (n > lx->end - lx->p)
		n = (int)(lx->end - lx->p);
	skip_to(lx, lx->p + n);
}

/* First occurrence of the two bytes a b at or after p, or NULL. */
static const char *find2(const char *p, const char *end, char a, char b)
{
	while (p < end && (p = memchr(p, a, (size_t)(end - p)))) {
		if (p + 1 < end && p[1] == b)
			return p;
		p++;
	}
	return NULL;
}

static struct srcpos here(const struct lexer *lx)
{
	return (struct srcpos){ .file = lx->file, .line = lx->line, .col = lx->col };
}

static void lex_error(struct lexer *lx, struct token *t, enum diag_tag tag,
		      struct srcpos pos, const char *msg)
{
	diag(lx->s, tag, pos, "%s", msg);
	t->kind = TK_ERROR;
	t->text = (char *)"";
	/* park at the end so a caller that ignores the error cannot loop */
	lx->p = lx->end;
}

/* Skip blanks and comments. Returns false after an unterminated comment. */
static bool skip_space(struct lexer *lx, struct token *t, bool *skipped)
{
	for (;;) {
		int c = peekc(lx, 0);

		if (c == '\n') {
			lx->p++;
			lx->line++;
			lx->col = 1;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			lx->p++;
			lx->col++;
		} else if (c == '#' || (c == '/' && peekc(lx, 1) == '/')) {
			const char *nl = memchr(lx->p, '\n', (size_t)(lx->end - lx->p));

			lx->col += (int)((nl ? nl : lx->end) - lx->p);
			lx->p = nl ? nl : lx->end;
		} else if (c == '/' && peekc(lx, 1) == '*') {
			struct srcpos start = here(lx);
			const char *close = find2(lx->p + 2, lx->end, '*', '/');

			if (!close) {
				lex_error(lx, t, P_UNTERMINATED_COMMENT, start, "unterminated /* comment");
				return false;
			}
			skip_to(lx, close + 2);
		} else {
			return true;
		}
		*skipped = true;
	}
}

bool lex_number(const char *text, int64_t *out)
{
	uint64_t v = 0, base = 10;
	const char *p = text;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
		if (!*p)
			return false;
	} else if (p[0] == '0' && p[1]) {
		base = 8;
		p++;
	}
	for (; *p; p++) {
		uint64_t d;

		if (isdigit((unsigned char)*p))
			d = (uint64_t)(*p - '0');
		else if (base == 16 && isxdigit((unsigned char)*p))
			d = (uint64_t)(tolower((unsigned char)*p) - 'a' + 10);
		else
			return false;
		if (d >= base)
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = (int64_t)v;
	return true;
}

static bool is_ident_start(int c) { return c == '_' || isalpha(c); }
static bool is_ident_char(int c) { return c == '_' || c == '$' || isalnum(c); }

static size_t span(const struct lexer *lx, size_t from, bool (*ok)(int))
{
	size_t n = from;

	while (lx->p + n < lx->end && ok((unsigned char)lx->p[n]))
		n++;
	return n;
}

static bool is_word_char(int c) { return c == '_' || isalnum(c); }

/* "string" with C escapes decoded (SystemTap passes C escapes through; an
 * unknown escape like \d or \% stands for the character itself). */
static void lex_string(struct lexer *lx, struct token *t)
{
	struct strbuf sb = STRBUF_INIT;
	const char *start = lx->p;

	advance(lx, 1);
	for (;;) {
		int c = peekc(lx, 0);

		if (c < 0 || c == '\n') {
			strbuf_release(&sb);
			lex_error(lx, t, P_BAD_STRING, t->pos, "unterminated string literal");
			return;
		}
		if (c == '"') {
			advance(lx, 1);
			break;
		}
		if (c != '\\') {
			strbuf_addch(&sb, c);
			advance(lx, 1);
			continue;
		}
		c = peekc(lx, 1);
		if (c < 0 || c == '\n') {
			strbuf_release(&sb);
			lex_error(lx, t, P_BAD_STRING, t->pos, "unterminated string literal");
			return;
		}
		advance(lx, 2);
		switch (c) {
		case 'a': strbuf_addch(&sb, '\a'); break;
		case 'b': strbuf_addch(&sb, '\b'); break;
		case 'f': strbuf_addch(&sb, '\f'); break;
		case 'n': strbuf_addch(&sb, '\n'); break;
		case 'r': strbuf_addch(&sb, '\r'); break;
		case 't': strbuf_addch(&sb, '\t'); break;
		case 'v': strbuf_addch(&sb, '\v'); break;
		case 'x':
			if (isxdigit(peekc(lx, 0))) {
				int v = 0;

				for (int i = 0; i < 2 && isxdigit(peekc(lx, 0)); i++) {
					int d = peekc(lx, 0);

					v = v * 16 + (isdigit(d) ? d - '0' : tolower(d) - 'a' + 10);
					advance(lx, 1);
				}
				strbuf_addch(&sb, v);
			} else {
				strbuf_addch(&sb, 'x');
			}
			break;
		default:
			if (c >= '0' && c <= '7') {
				int v = c - '0';

				for (int i = 0; i < 2 && peekc(lx, 0) >= '0' && peekc(lx, 0) <= '7'; i++) {
					v = v * 8 + peekc(lx, 0) - '0';
					advance(lx, 1);
				}
				strbuf_addch(&sb, v & 0xff);
			} else {
				strbuf_addch(&sb, c); /* \\ \" \' \? and unknown escapes */
			}
		}
	}
	t->kind = TK_STRING;
	t->text = xstrndup(start, (size_t)(lx->p - start));
	t->str_len = sb.len;
	t->str = strbuf_detach(&sb);
}

/* $N / @N (N >= 1, digits only), $# / @#. */
static void lex_param(struct lexer *lx, struct token *t)
{
	size_t n;

	if (peekc(lx, 1) == '#') {
		t->kind = TK_PARAM;
		t->text = xstrndup(lx->p, 2);
		advance(lx, 2);
		return;
	}
	n = span(lx, 1, is_word_char);
	t->text = xstrndup(lx->p, n);
	advance(lx, (int)n);
	for (size_t i = 1; i < n; i++) {
		if (!isdigit((unsigned char)t->text[i])) {
			lex_error(lx, t, P_BAD_PARAM, t->pos,
				  "a script argument reference is $N or @N with a decimal N");
			return;
		}
	}
	if (atoi(t->text + 1) < 1 || n > 10) {
		lex_error(lx, t, P_BAD_PARAM, t->pos,
			  "script arguments are numbered from $1 / @1");
		return;
	}
	t->kind = TK_PARAM;
}

void lexer_next(struct lexer *lx, struct token *t)
{
	bool skipped = false;
	int c, c1;
	size_t n;

	memset(t, 0, sizeof(*t));
	if (!skip_space(lx, t, &skipped))
		return;
	t->glued = !skipped;
	t->pos = here(lx);
	c = peekc(lx, 0);
	c1 = peekc(lx, 1);
	if (c < 0) {
		t->kind = TK_EOF;
		t->text = (char *)"end of input";
		return;
	}
	if (c == 0) {
		lex_error(lx, t, P_BAD_CHAR, t->pos, "NUL byte in the source");
		return;
	}
	if (is_ident_start(c)) {
		n = span(lx, 0, is_ident_char);
		t->kind = TK_IDENT;
		t->text = xstrndup(lx->p, n);
		advance(lx, (int)n);
		return;
	}
	if (isdigit(c)) {
		n = span(lx, 0, is_word_char);
		t->text = xstrndup(lx->p, n);
		advance(lx, (int)n);
		if (!lex_number(t->text, &t->num)) {
			char *msg = xasprintf("malformed or out-of-range number '%s'", t->text);

			lex_error(lx, t, P_BAD_NUMBER, t->pos, msg);
			free(msg);
			return;
		}
		t->kind = TK_NUMBER;
		return;
	}
	if (c == '"') {
		lex_string(lx, t);
		return;
	}
	if (c == '$' || c == '@') {
		if (isdigit(c1) || c1 == '#') {
			lex_param(lx, t);
			return;
		}
		if (c == '$') {
			/* $name, $$vars, $$$$provider ...; a lone $ or $$ is the
			 * pretty-print suffix operator */
			n = span(lx, 1, is_ident_char);
			t->kind = TK_DOLLAR_VAR;
			if (n == 1 || (n == 2 && c1 == '$'))
				t->kind = TK_OP;
		} else if (c == '@' && is_ident_start(c1)) {
			n = span(lx, 1, is_word_char);
			t->kind = TK_AT_OP;
		} else {
			lex_error(lx, t, P_BAD_CHAR, t->pos, "'@' must start an @operator or @macro name");
			return;
		}
		t->text = xstrndup(lx->p, n);
		advance(lx, (int)n);
		return;
	}
	if (c == '%' && c1 == '{') {
		const char *code;

		const char *close;

		advance(lx, 2);
		code = lx->p;
		close = find2(code, lx->end, '%', '}');
		if (!close) {
			lex_error(lx, t, P_UNTERMINATED_EMBEDDED, t->pos,
				  "embedded C code %{ is not closed with %}");
			return;
		}
		skip_to(lx, close);
		t->kind = TK_EMBEDDED;
		t->str_len = (size_t)(lx->p - code);
		t->str = xstrndup(code, t->str_len);
		t->text = (char *)"%{";
		advance(lx, 2);
		return;
	}
	/* token text of an operator is the table's string: never freed or
	 * written to */
	for (int i = 0; operators[i]; i++) {
		if (operators[i][0] != c)
			continue;
		n = strlen(operators[i]);
		if (lx->p + n <= lx->end && memcmp(lx->p, operators[i], n) == 0) {
			t->kind = TK_OP;
			t->text = (char *)operators[i];
			lx->p += n;
			lx->col += (int)n;
			return;
		}
	}
	{
		char *msg = isprint(c) ? xasprintf("unexpected character '%c'", c)
				       : xasprintf("unexpected byte 0x%02x", c);

		lex_error(lx, t, P_BAD_CHAR, t->pos, msg);
		free(msg);
	}
}
