/* tracefs.h - the running kernel's trace events as tracefs lists them
 * (events/SYSTEM/NAME): which system a tracepoint is in, where no DWARF
 * says (tracepoint.c's BTF path). */
#ifndef CSTAP_TRACEFS_H
#define CSTAP_TRACEFS_H

#include <stdbool.h>

#include "util.h"

struct session;

/* The system of trace event name ("sched" for sched_switch), or NULL:
 * none (a tracepoint without an event), or *known false when tracefs
 * could not be read (the target is not the running kernel, or it is not
 * mounted and cannot be). */
const char *tracefs_event_system(struct session *s, const char *name, bool *known);

/* The names of the events of systems matching sys_pat that name_pat
 * matches, appended to names (pointers into the table). */
void tracefs_events_matching(struct session *s, const char *sys_pat, const char *name_pat, strvec *names);

/* The text of the running kernel's events/SYSTEM/NAME/format, or NULL. */
char *tracefs_event_format(struct session *s, const char *system, const char *name);

#endif
