/* util.c - allocation, strbuf and file helpers (see util.h). */
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

char strbuf_empty[1];

/* Out of memory is not recoverable for a compiler pass: report and exit. */
static void *check(void *p)
{
	if (!p)
		die("out of memory");
	return p;
}

void *xmalloc(size_t n) { return check(malloc(n ? n : 1)); }
void *xcalloc(size_t n, size_t size) { return check(calloc(n ? n : 1, size ? size : 1)); }
void *xrealloc(void *p, size_t n) { return check(realloc(p, n ? n : 1)); }
char *xstrdup(const char *s) { return check(strdup(s)); }
char *xstrndup(const char *s, size_t n) { return check(strndup(s, n)); }

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	return s;
}

char *xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	return s;
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("stap: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

void strbuf_init(struct strbuf *sb)
{
	sb->buf = strbuf_empty;
	sb->len = sb->alloc = 0;
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb);
}

char *strbuf_detach(struct strbuf *sb)
{
	char *s = sb->alloc ? sb->buf : xstrdup("");

	strbuf_init(sb);
	return s;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;

	if (need <= sb->alloc)
		return;
	size_t n = sb->alloc ? sb->alloc : 64;
	while (n < need)
		n *= 2;
	if (!sb->alloc) {
		sb->buf = xmalloc(n);
		sb->buf[0] = 0;
	} else {
		sb->buf = xrealloc(sb->buf, n);
	}
	sb->alloc = n;
}

void strbuf_add(struct strbuf *sb, const void *data, size_t n)
{
	strbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, data, n);
	sb->len += n;
	sb->buf[sb->len] = 0;
}

void strbuf_addstr(struct strbuf *sb, const char *s) { strbuf_add(sb, s, strlen(s)); }

void strbuf_addch(struct strbuf *sb, int c)
{
	char ch = (char)c;

	strbuf_add(sb, &ch, 1);
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	strbuf_grow(sb, (size_t)n);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_add_cstr_escaped(struct strbuf *sb, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': strbuf_addstr(sb, "\\\""); break;
		case '\\': strbuf_addstr(sb, "\\\\"); break;
		case '\n': strbuf_addstr(sb, "\\n"); break;
		case '\t': strbuf_addstr(sb, "\\t"); break;
		case '\r': strbuf_addstr(sb, "\\r"); break;
		case '?': strbuf_addstr(sb, "\\?"); break; /* no trigraphs */
		default:
			if (c < 0x20 || c >= 0x7f)
				strbuf_addf(sb, "\\%03o", c);
			else
				strbuf_addch(sb, c);
		}
	}
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->alloc)
		sb->buf[0] = 0;
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (len > sb->len)
		len = sb->len;
	sb->len = len;
	if (sb->alloc)
		sb->buf[len] = 0;
}

char *read_file(const char *path, size_t *lenp)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct strbuf sb = STRBUF_INIT;

	if (fd < 0)
		return NULL;
	for (;;) {
		strbuf_grow(&sb, 65536);
		ssize_t n = read(fd, sb.buf + sb.len, sb.alloc - sb.len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			strbuf_release(&sb);
			errno = e;
			return NULL;
		}
		if (n == 0)
			break;
		sb.len += (size_t)n;
		sb.buf[sb.len] = 0;
	}
	close(fd);
	if (lenp)
		*lenp = sb.len;
	return strbuf_detach(&sb);
}

int copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = read_file(from, &len);
	int rc = data ? write_file(to, data, len) : -1;

	free(data);
	return rc;
}

static int cmp_paths(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bool dir_entries(const char *dir, strvec *out)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int first = out->len;

	if (!d)
		return false;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			vec_push(out, xasprintf("%s/%s", dir, de->d_name));
	closedir(d);
	if (out->len - first > 1)
		qsort(out->items + first, (size_t)(out->len - first), sizeof(char *), cmp_paths);
	return true;
}

int write_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	while (len) {
		ssize_t n = write(fd, data, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		data += n;
		len -= (size_t)n;
	}
	return close(fd);
}

double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

bool module_name_eq(const char *a, size_t alen, const char *b)
{
	if (strlen(b) != alen)
		return false;
	for (size_t i = 0; i < alen; i++) {
		char x = a[i] == '-' ? '_' : a[i], y = b[i] == '-' ? '_' : b[i];
		if (x != y)
			return false;
	}
	return true;
}

void strbuf_add_shell_quoted(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			strbuf_addstr(sb, "'\\''");
		else
			strbuf_addch(sb, *s);
	}
	strbuf_addch(sb, '\'');
}

void strbuf_add_cstr_literal(struct strbuf *sb, const char *s)
{
	if (!s) {
		strbuf_addstr(sb, "NULL");
		return;
	}
	strbuf_addch(sb, '"');
	strbuf_add_cstr_escaped(sb, s, strlen(s));
	strbuf_addch(sb, '"');
}

uint64_t hash64(const void *data, size_t n)
{
	const unsigned char *s = data;
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return h;
}

/* Replace every occurrence of from in s by to. */
char *str_replace_all(const char *s, const char *from, const char *to)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = strlen(from);
	const char *p;

	while ((p = strstr(s, from))) {
		strbuf_add(&sb, s, (size_t)(p - s));
		strbuf_addstr(&sb, to);
		s = p + n;
	}
	strbuf_addstr(&sb, s);
	return strbuf_detach(&sb);
}

/* A kernel configuration's (.config text's) value of NAME: its line
 * NAME=VALUE, quotes taken off a string's; "" when it has none. */
char *config_value(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; p && (p = strstr(p, name)); p += n) {
		if ((p != text && p[-1] != '\n') || p[n] != '=')
			continue;
		const char *v = p + n + 1;
		size_t vl = strcspn(v, "\n");
		if (vl >= 2 && v[0] == '"' && v[vl - 1] == '"')
			return xstrndup(v + 1, vl - 2);
		return xstrndup(v, vl);
	}
	return xstrdup("");
}
