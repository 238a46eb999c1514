/* listing.h - stap -l / -L: print the probe points a pattern resolves to. */
#ifndef CSTAP_LISTING_H
#define CSTAP_LISTING_H

#include "session.h"

/* After pass 2: each derived probe point once, sorted, one a line; with
 * -L followed by its variables ("$name:type"). Returns the exit status. */
int list_probe_points(struct session *s);

/* After pass 1: --dump-functions / --dump-probe-types / --dump-probe-aliases
 * (dumps.c), s->dump saying which. Returns the exit status. */
int dump_lists(struct session *s);

#endif
