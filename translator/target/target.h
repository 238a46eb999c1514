/* target.h - the target library's per-run state, hanging off the session
 * (s->target): the kernel's facts and what was loaded for it. Only
 * translator/target/ looks inside; the rest asks through the functions of
 * kernel.h, ksyms.h, debuginfo.h.
 */
#ifndef CSTAP_TARGET_TARGET_H
#define CSTAP_TARGET_TARGET_H

#include "kernel.h"
#include "util.h"

struct target {
	bool kernel_known;
	struct target_kernel kernel;
};

/* s's target state, created on first use. */
static inline struct target *target_of(struct session *s)
{
	if (!s->target)
		s->target = xcalloc(1, sizeof(*s->target));
	return s->target;
}

#endif
