/* diag.h - the one way the translator reports problems.
 *
 * Every diagnostic has a stable tag from diag_tags.def (its prefix gives the
 * category: P_ parse error, E_ semantic error, T_ translate error, B_ build
 * error, R_ run error, W_ warning), a source position when there is one, and
 * then the source line with a caret under the column:
 *
 *   parse error [P_EXPECT_RPAREN]: expected ')' at x.stp:3:17
 *       probe begin { printf("%d\n", 1 ; }
 *                                       ^
 */
#ifndef CSTAP_DIAG_H
#define CSTAP_DIAG_H

#include "ast.h"

enum diag_tag {
#define DIAG(tag, meaning) tag,
#include "diag_tags.def"
#undef DIAG
	DIAG__COUNT
};

const char *diag_tag_name(enum diag_tag t);
const char *diag_tag_meaning(enum diag_tag t);

/* Report at a source position (pos.file may be NULL: no position). Errors
 * bump the session's error count; warnings respect -w (suppress) and -W
 * (promote to errors). */
void diag(struct session *s, enum diag_tag tag, struct srcpos pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Follow-up line after a diag(): "    note: ..." with its own caret. */
void diag_note(struct session *s, struct srcpos pos, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Also append every diagnostic's text to sb (NULL: stop): the module cache
 * replays a cached run's warnings. */
struct strbuf;
void diag_capture(struct strbuf *sb);

/* Print all tags with their meaning (stap --list-tags). */
void diag_list_tags(void);

#endif
