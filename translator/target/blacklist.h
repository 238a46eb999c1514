/* blacklist.h - which kernel functions cstap refuses to probe, and why.
 *
 * One place for every rule (blacklist.c holds them as tables):
 *  - text the kernel itself refuses or frees: the linker-script ranges
 *    (init and exit text, .kprobes.text, .noinstr.text, entry text) and
 *    NOKPROBE_SYMBOL()'s list, read from the target's symbols by ksyms.c;
 *    in a module, its .init/.exit/.noinstr/.kprobes sections;
 *  - functions cstap refuses by name or declaring file: code the probe
 *    handler, its output path or the kprobe exception path runs through
 *    (locks, atomics, preempt count, the current task, interrupt and
 *    softirq entry, paravirt and page-table helpers), so that a probe
 *    there recurses, deadlocks or fires in a context that cannot take
 *    it; at least every function SystemTap 4.8 refuses for such reasons.
 * A wildcard skips a refused function silently; a point naming one
 * exactly is a pass-2 error (E_BLACKLISTED) saying why.
 */
#ifndef CSTAP_BLACKLIST_H
#define CSTAP_BLACKLIST_H

#include <stdbool.h>
#include <stdint.h>

struct ksymtab;
struct ksym;

/* The linker-script symbol pairs bounding text no probe may go into
 * (ksyms.c turns them into the table's address ranges). */
extern const char *const blacklist_text_bounds[][2];
extern const int blacklist_n_text_bounds;
/* A module's executable section no probe may go into (by its name). */
bool blacklist_section(const char *section);

/* Why the kernel refuses (or frees) the text of symbol k of table t:
 * a reason, or NULL if it takes probes. */
const char *blacklist_kernel_why(const struct ksymtab *t, const struct ksym *k);
/* Why cstap refuses function name (a clone suffix, ".isra.0", ".cold",
 * is ignored) declared in file (NULL: unknown, as for kprobe.function):
 * a reason, or NULL. */
const char *blacklist_function_why(const char *name, const char *file);
/* Both for a symbol: the kernel's verdict on its text, then cstap's on
 * its name. */
const char *blacklist_symbol_why(const struct ksymtab *t, const struct ksym *k);

#endif
