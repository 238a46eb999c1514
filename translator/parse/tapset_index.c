/* tapset_index.c - the top-level names of tapset files, found by a scan
 * of their tokens that skips every body (tapset_index.h).
 */
#include "tapset_index.h"

#include <ctype.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

enum tok { T_EOF, T_IDENT, T_STRING, T_EMBED, T_OTHER, T_PUNCT };

/* A scan of a text: where it is, and the token it read last. */
struct scan {
	const char *p, *end;
	enum tok tok;
	const char *start;      /* the token's first byte */
	size_t len;
	char punct[3];          /* T_PUNCT: "{", "+=", "%(" ... */
};

static bool ident_char(int c)
{
	return isalnum(c) || c == '_' || c == '$';
}

/* Past a comment that starts at p (#, //, slash-star), or p itself if none. */
static const char *past_comment(const char *p, const char *end)
{
	if (*p == '#' || (*p == '/' && p + 1 < end && p[1] == '/')) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		return nl ? nl + 1 : end;
	}
	if (*p == '/' && p + 1 < end && p[1] == '*') {
		for (const char *q = p + 2; q < end && (q = memchr(q, '*', (size_t)(end - q))); q++)
			if (q + 1 < end && q[1] == '/')
				return q + 2;
		return end;
	}
	return p;
}

/* Past the string whose '"' is at p (its escapes skipped). */
static const char *past_string(const char *p, const char *end)
{
	for (p++; p < end && *p != '"'; p += *p == '\\' && p + 1 < end ? 2 : 1)
		;
	return p < end ? p + 1 : end;
}

/* Past the embedded C whose "%{" is at p, to its "%}". */
static const char *past_embed(const char *p, const char *end)
{
	for (p += 2; p + 1 < end && !(p[0] == '%' && p[1] == '}'); p++)
		;
	return p + 1 < end ? p + 2 : end;
}

/* Past blanks and comments. */
static void skip_space(struct scan *sc)
{
	while (sc->p < sc->end) {
		if (isspace((unsigned char)*sc->p)) {
			sc->p++;
			continue;
		}
		const char *q = past_comment(sc->p, sc->end);
		if (q == sc->p)
			return;
		sc->p = q;
	}
}

/* Past the body whose '{' was just read, to its '}': a probe's or a
 * function's, read byte by byte for braces, strings, comments and embedded
 * C only (most of a tapset is bodies). */
static void skip_body(struct scan *sc)
{
	static bool special[256];
	const char *p = sc->p, *end = sc->end;
	int depth = 1;

	if (!special['{'])
		for (const char *c = "{}\"#/%"; *c; c++)
			special[(unsigned char)*c] = true;
	while (p < end) {
		while (p < end && !special[(unsigned char)*p])
			p++;
		if (p >= end)
			break;
		const char *q = past_comment(p, end);
		if (q != p) {
			p = q;
		} else if (*p == '"') {
			p = past_string(p, end);
		} else if (*p == '%' && p + 1 < end && p[1] == '{') {
			p = past_embed(p, end);
		} else if (*p == '{') {
			depth++, p++;
		} else if (*p == '}') {
			p++;
			if (--depth == 0)
				break;
		} else {
			p++;
		}
	}
	sc->p = p;
}

/* The next token: an identifier (@define, @cast included), a string, an
 * embedded-C block, a number or other word, or punctuation (two bytes for
 * += and the preprocessor's %( %? %: %)). */
static enum tok next(struct scan *sc)
{
	skip_space(sc);
	sc->start = sc->p;
	if (sc->p >= sc->end)
		return sc->tok = T_EOF;
	char c = *sc->p;
	if (isalpha((unsigned char)c) || c == '_' || c == '$' || c == '@') {
		sc->p++;
		while (sc->p < sc->end && ident_char((unsigned char)*sc->p))
			sc->p++;
		sc->tok = T_IDENT;
	} else if (isdigit((unsigned char)c)) {
		while (sc->p < sc->end && ident_char((unsigned char)*sc->p))
			sc->p++;
		sc->tok = T_OTHER;
	} else if (c == '"') {
		sc->p = past_string(sc->p, sc->end);
		sc->tok = T_STRING;
	} else if (c == '%' && sc->p + 1 < sc->end && sc->p[1] == '{') {
		sc->p = past_embed(sc->p, sc->end);
		sc->tok = T_EMBED;
	} else {
		size_t n = 1;
		if (sc->p + 1 < sc->end && ((c == '+' && sc->p[1] == '=') ||
					    (c == '%' && strchr("(?:)", sc->p[1]) && sc->p[1])))
			n = 2;
		memcpy(sc->punct, sc->p, n);
		sc->punct[n] = 0;
		sc->p += n;
		sc->tok = T_PUNCT;
	}
	sc->len = (size_t)(sc->p - sc->start);
	return sc->tok;
}

static bool is_word(const struct scan *sc, const char *w)
{
	return sc->tok == T_IDENT && sc->len == strlen(w) && !memcmp(sc->start, w, sc->len);
}

static bool is_punct(const struct scan *sc, const char *p)
{
	return sc->tok == T_PUNCT && !strcmp(sc->punct, p);
}

/* Read the last token again (one token of lookahead). */
static void unread(struct scan *sc)
{
	sc->p = sc->start;
}

/* Past the rest of a bracketed group whose opening open was just read. */
static void skip_group(struct scan *sc, const char *open, const char *close)
{
	int depth = 1;

	while (depth > 0 && next(sc) != T_EOF)
		depth += is_punct(sc, open) - is_punct(sc, close);
}

static void add(struct tapset_index *ix, enum tapset_name kind, const char *name, size_t len, int file)
{
	struct tapset_entry e = { xstrndup(name, len), kind, file };

	vec_push(&ix->entries, e);
	ix->sorted = false;
}

/* global NAME[SIZE] = VALUE, NAME% ...: each NAME */
static void scan_globals(struct tapset_index *ix, struct scan *sc, int file)
{
	for (;;) {
		if (next(sc) != T_IDENT) {
			unread(sc);
			return;
		}
		add(ix, TN_GLOBAL, sc->start, sc->len, file);
		next(sc);
		if (is_punct(sc, "%"))
			next(sc);
		if (is_punct(sc, "[")) {
			skip_group(sc, "[", "]");
			next(sc);
		}
		if (is_punct(sc, "=")) {
			next(sc);
			if (is_punct(sc, "-"))
				next(sc);
			next(sc);
		}
		if (!is_punct(sc, ",")) {
			unread(sc);
			return;
		}
	}
}

/* probe A.B(...)?, C.D = ... or += ...: the first components of an
 * alias's names (a probe's own points end at '{' or "if": not indexed) */
static void scan_probe(struct tapset_index *ix, struct scan *sc, int file)
{
	struct { const char *name; size_t len; } firsts[16];
	int n = 0;

	for (;;) {
		if (next(sc) != T_IDENT) {
			unread(sc);
			return;
		}
		if (n < 16)
			firsts[n++] = (typeof(firsts[0])){ sc->start, sc->len };
		for (;;) {
			next(sc);
			if (is_punct(sc, "."))
				next(sc);
			else if (is_punct(sc, "("))
				skip_group(sc, "(", ")");
			else if (!is_punct(sc, "?") && !is_punct(sc, "!"))
				break;
		}
		if (!is_punct(sc, ","))
			break;
	}
	if (!is_punct(sc, "=") && !is_punct(sc, "+=")) {
		unread(sc);
		return;
	}
	for (int i = 0; i < n; i++)
		add(ix, TN_ALIAS, firsts[i].name, firsts[i].len, file);
}

void tapset_index_scan(struct tapset_index *ix, int file, const char *text, size_t len)
{
	struct scan sc = { .p = text, .end = text + len };

	while (next(&sc) != T_EOF) {
		if (is_punct(&sc, "{")) {
			skip_body(&sc);
		} else if (sc.tok != T_IDENT) {
			continue;
		} else if (is_word(&sc, "function")) {
			if (next(&sc) == T_IDENT)
				add(ix, TN_FUNC, sc.start, sc.len, file);
			else
				unread(&sc);
		} else if (is_word(&sc, "global")) {
			scan_globals(ix, &sc, file);
		} else if (is_word(&sc, "probe")) {
			scan_probe(ix, &sc, file);
		} else if (is_word(&sc, "@define")) {   /* @define NAME(ARGS) %( BODY %) */
			next(&sc);
			next(&sc);
			if (is_punct(&sc, "("))
				skip_group(&sc, "(", ")");
			else
				unread(&sc);
			next(&sc);
			if (is_punct(&sc, "%("))
				skip_group(&sc, "%(", "%)");
			else
				unread(&sc);
		}
	}
}

static int entry_cmp(const void *a, const void *b)
{
	const struct tapset_entry *x = a, *y = b;
	int c = (int)x->kind - (int)y->kind;

	if (!c)
		c = strcmp(x->name, y->name);
	return c ? c : x->file - y->file;
}

static int int_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

void tapset_index_files(struct tapset_index *ix, enum tapset_name kind, const char *name, intvec *files)
{
	int first = files->len;

	if (!ix->sorted && ix->entries.len)
		qsort(ix->entries.items, (size_t)ix->entries.len, sizeof(*ix->entries.items), entry_cmp);
	ix->sorted = true;
	bool pattern = kind == TN_ALIAS && strpbrk(name, "*?[\\");
	int lo = 0, hi = ix->entries.len;
	while (lo < hi && !pattern) {   /* the first entry of (kind, name) */
		int mid = (lo + hi) / 2;
		const struct tapset_entry *e = &ix->entries.items[mid];
		int c = (int)e->kind - (int)kind;
		if (c < 0 || (!c && strcmp(e->name, name) < 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (int i = lo; i < ix->entries.len && ix->entries.items[i].kind <= kind; i++) {
		const struct tapset_entry *e = &ix->entries.items[i];
		if (e->kind != kind)
			continue;
		if (pattern ? fnmatch(name, e->name, 0) != 0 : strcmp(e->name, name) != 0) {
			if (!pattern)
				break;
			continue;
		}
		vec_push(files, e->file);
	}
	qsort(files->items + first, (size_t)(files->len - first), sizeof(int), int_cmp);
	int n = first;
	for (int i = first; i < files->len; i++)
		if (n == first || files->items[n - 1] != files->items[i])
			files->items[n++] = files->items[i];
	files->len = n;
}
