/* util.h - allocation, string buffers and small helpers used by every pass.
 *
 * Memory: stap is a short-lived process; pass data is allocated with xmalloc()
 * and friends and lives until exit. They never return NULL (they exit on OOM).
 *
 * struct strbuf is the one growable string of the translator. Invariant:
 * sb->buf is always NUL-terminated (after strbuf_init it points at a static "").
 */
#ifndef CSTAP_UTIL_H
#define CSTAP_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "env.h"   /* the environment is read only through env_get() */

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap);
__attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...);

/* Growable vector of pointers: VEC(T) v; vec_push(&v, x); v.items[i], v.len. */
#define VEC(T) struct { T *items; int len, cap; }
#define vec_push(v, x) do { \
	if ((v)->len == (v)->cap) { \
		(v)->cap = (v)->cap ? 2 * (v)->cap : 8; \
		(v)->items = xrealloc((v)->items, (size_t)(v)->cap * sizeof(*(v)->items)); \
	} \
	(v)->items[(v)->len++] = (x); \
} while (0)

/* a list of strings (argv vectors, paths) */
typedef VEC(char *) strvec;
typedef VEC(int) intvec;

struct strbuf {
	char *buf;
	size_t len, alloc;
};
#define STRBUF_INIT { .buf = strbuf_empty, .len = 0, .alloc = 0 }
extern char strbuf_empty[];

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
/* Detach the buffer: the caller owns the returned string; sb is reset. */
char *strbuf_detach(struct strbuf *sb);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t n);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Append s as the body of a C string literal (escapes quotes, backslashes, controls). */
void strbuf_add_cstr_escaped(struct strbuf *sb, const char *s, size_t n);
/* s as a C string literal (quoted, escaped); NULL as NULL. */
void strbuf_add_cstr_literal(struct strbuf *sb, const char *s);
/* s as one single-quoted POSIX shell word ('it'\''s'). */
void strbuf_add_shell_quoted(struct strbuf *sb, const char *s);
void strbuf_reset(struct strbuf *sb);
/* Cut the string to its first len bytes (len <= sb->len). */
void strbuf_setlen(struct strbuf *sb, size_t len);

/* s with every occurrence of from replaced by to (a new string). */
char *str_replace_all(const char *s, const char *from, const char *to);

/* Whole-file I/O. read_file returns NULL (errno set) on failure; *len may be NULL. */
/* Do the first alen bytes of a and all of b name the same kernel module?
 * ('-' and '_' are the same in module names: "nf-nat" is nf_nat.ko.) */
bool module_name_eq(const char *a, size_t alen, const char *b);

char *read_file(const char *path, size_t *len);
int write_file(const char *path, const char *data, size_t len);
/* Copy the file from to the file to (created or truncated); 0 or -1. */
int copy_file(const char *from, const char *to);
/* "dir/name" of each entry of dir not starting with '.', sorted by name (so
 * that what is built from a directory is the same from run to run), added
 * to out; false if dir cannot be read. */
bool dir_entries(const char *dir, strvec *out);
/* NAME's value in a kernel configuration's text (CONFIG_X=VALUE lines,
 * quotes off), allocated; "" when it has none */
char *config_value(const char *text, const char *name);

/* FNV-1a of n bytes: enough to name cache entries. */
uint64_t hash64(const void *data, size_t n);

/* Monotonic milliseconds, for -v timings. */
double now_ms(void);

#endif
