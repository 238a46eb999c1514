/* diag.c - tagged diagnostics with a source line and caret (see diag.h). */
#include "diag.h"

#include <stdio.h>
#include <string.h>

#include "session.h"

/* Every diagnostic goes through out(): to stderr, and to the module cache's
 * record of the run's warnings (diag_capture) when one is set. */
static struct strbuf *capture;

void diag_capture(struct strbuf *sb) { capture = sb; }

static void out(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void vout(const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_vaddf(&sb, fmt, ap);
	fputs(sb.buf, stderr);
	if (capture)
		strbuf_add(capture, sb.buf, sb.len);
	strbuf_release(&sb);
}

static void out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vout(fmt, ap);
	va_end(ap);
}

static const char *const tag_names[] = {
#define DIAG(tag, meaning) #tag,
#include "diag_tags.def"
#undef DIAG
};

static const char *const tag_meanings[] = {
#define DIAG(tag, meaning) meaning,
#include "diag_tags.def"
#undef DIAG
};

const char *diag_tag_name(enum diag_tag t) { return tag_names[t]; }
const char *diag_tag_meaning(enum diag_tag t) { return tag_meanings[t]; }

/* The category word printed before the tag comes from the tag's prefix, so a
 * tag can never be printed under the wrong heading. */
static const char *category(enum diag_tag t)
{
	switch (tag_names[t][0]) {
	case 'P': return "parse error";
	case 'E': return "semantic error";
	case 'T': return "translate error";
	case 'B': return "build error";
	case 'R': return "run error";
	case 'O': return "usage error";
	default: return "WARNING";
	}
}

/* Add the line of pos with a caret under its column; tabs are kept so the
 * caret lines up in a terminal. */
static void add_source(struct strbuf *sb, struct srcpos pos)
{
	const char *p, *end;
	int line = 1;

	if (!pos.file || !pos.file->text || pos.line <= 0)
		return;
	p = pos.file->text;
	while (line < pos.line && *p) {
		if (*p++ == '\n')
			line++;
	}
	if (line != pos.line)
		return;
	end = strchr(p, '\n');
	if (!end)
		end = p + strlen(p);
	strbuf_addf(sb, "    %.*s\n    ", (int)(end - p), p);
	for (int i = 1; i < pos.col && p + i - 1 < end; i++)
		strbuf_addch(sb, p[i - 1] == '\t' ? '\t' : ' ');
	strbuf_addstr(sb, "^\n");
}

/* The diagnostics printed so far, and whether the last one was a repeat
 * (its notes are not printed either). */
static strvec seen;
static bool repeat;

/* Print a diagnostic once: a second with the same text, place and source
 * line (the same fault met again through another derived probe or inference
 * round) is counted but not printed, as SystemTap prints each error once. */
static void vreport(const char *head, enum diag_tag tag, struct srcpos pos,
		    const char *fmt, va_list ap)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s [%s]: ", head, tag_names[tag]);
	strbuf_vaddf(&sb, fmt, ap);
	if (pos.file)
		strbuf_addf(&sb, " at %s:%d:%d", pos.file->name, pos.line, pos.col);
	strbuf_addch(&sb, '\n');
	add_source(&sb, pos);
	repeat = false;
	for (int i = 0; i < seen.len && !repeat; i++)
		repeat = !strcmp(seen.items[i], sb.buf);
	if (repeat) {
		strbuf_release(&sb);
		return;
	}
	out("%s", sb.buf);
	vec_push(&seen, strbuf_detach(&sb));
}

void diag(struct session *s, enum diag_tag tag, struct srcpos pos, const char *fmt, ...)
{
	va_list ap;
	bool warning = tag_names[tag][0] == 'W';

	if ((warning && s && s->suppress_warnings) || (s && s->muted))
		return;
	if (warning && s && s->warnings_are_errors)
		warning = false;
	va_start(ap, fmt);
	vreport(warning ? "WARNING" : category(tag), tag, pos, fmt, ap);
	va_end(ap);
	if (!s)
		return;
	if (warning)
		s->warnings++;
	else
		s->errors++;
}

void diag_note(struct session *s, struct srcpos pos, const char *fmt, ...)
{
	va_list ap;

	(void)s;
	if (repeat)
		return;
	va_start(ap, fmt);
	out("    note: ");
	vout(fmt, ap);
	va_end(ap);
	if (pos.file)
		out(" at %s:%d:%d", pos.file->name, pos.line, pos.col);
	out("\n");
	struct strbuf sb = STRBUF_INIT;
	add_source(&sb, pos);
	out("%s", sb.buf);
	strbuf_release(&sb);
}

void diag_list_tags(void)
{
	for (int t = 0; t < DIAG__COUNT; t++)
		printf("%-24s %s: %s\n", tag_names[t], category(t), tag_meanings[t]);
}
