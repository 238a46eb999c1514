/* d_diag.c - DTrace's one-line compile errors, with cstap's caret line
 * on a terminal. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "d/d_diag.h"

/* The source line of pos and a caret under its column, as cstap's other
 * diagnostics end. */
static void caret_line(const struct d_diag *dg, struct d_pos pos)
{
	const char *p = dg->text, *end;
	int line = 1;

	if (!p || pos.line <= 0)
		return;
	while (*p && line < pos.line)
		if (*p++ == '\n')
			line++;
	if (!*p && line < pos.line)
		return;
	end = strchr(p, '\n');
	if (!end)
		end = p + strlen(p);
	fprintf(stderr, "    %.*s\n", (int)(end - p), p);
	if (pos.col > 0) {
		fputs("    ", stderr);
		for (int i = 1; i < pos.col && p + i - 1 < end; i++)
			fputc(p[i - 1] == '\t' ? '\t' : ' ', stderr);
		fputs("^\n", stderr);
	}
}

static void report(struct d_diag *dg, const char *tag, struct d_pos pos, const char *fmt, va_list ap)
{
	if (dg->errors++)
		return;
	bool plain = !isatty(STDERR_FILENO);

	dg->tag = tag;
	fprintf(stderr, "dtrace: %s: ", dg->what);
	if (dg->errtags || !plain)
		fprintf(stderr, "[%s] ", tag);
	if (pos.line > 0 && !(plain && dg->no_lines))
		fprintf(stderr, "line %d: ", pos.line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	if (!plain)
		caret_line(dg, pos);
}

void d_error_at(struct d_diag *dg, const char *tag, struct d_pos pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(dg, tag, pos, fmt, ap);
	va_end(ap);
}

void d_error(struct d_diag *dg, const char *tag, struct d_pos pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(dg, tag, pos, fmt, ap);
	va_end(ap);
	if (dg->abort)
		longjmp(*dg->abort, 1);
	exit(1);
}
