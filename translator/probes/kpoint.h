/* kpoint.h - probe-point helpers shared by the kprobe.* and the DWARF
 * kernel.function / module().function providers.
 */
#ifndef CSTAP_KPOINT_H
#define CSTAP_KPOINT_H

#include "target/ksyms.h"
#include "provider.h"

struct kpoint_suffix {
	bool ret;          /* .return */
	bool call;         /* .call: not inlined instances (all we probe anyway) */
	bool exported;     /* .exported: EXPORT_SYMBOL'd functions only */
	int maxactive;     /* .return.maxactive(N) */
};

bool kpoint_has_wildcard(const char *pat);
/* Component i has a string literal argument (reported if not); *out = it. */
bool kpoint_str_arg(struct session *s, struct probe_point *pp, int i, const char **out);
/* Components from index 'from' on: .call .return .maxactive(N), and with
 * dwarf also .exported. 1 = fine, 0 = not a point we know, -1 = error. */
int kpoint_parse_suffix(struct session *s, struct probe_point *pp, int from, bool dwarf,
			struct kpoint_suffix *suf);
/* The point's text with component i's argument replaced by arg. */
char *kpoint_text(const struct probe_point *pp, int i, const char *arg);
void kpoint_sort_unique(strvec *v);
/* Nothing matched: fine (1) for an optional point, else the error naming
 * functions of t similar to name (if given), and -1. */
int kpoint_no_match(struct session *s, struct probe_point *pp, const struct ksymtab *t,
		    const char *name);

#endif
