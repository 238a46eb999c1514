/* ksyms.h - the target kernel's (and its modules') function symbols.
 *
 * kprobe.* points are resolved against these, and kernel.function points
 * use them to turn DWARF addresses into "_stext"+offset or "module:symbol"
 * registration targets. The kernel's table comes from the real System.map
 * (the -dbg package's, or /boot's when it is not Debian's placeholder), or
 * /proc/kallsyms when the target is the running kernel; a module's from
 * the .symtab of its .ko.
 */
#ifndef CSTAP_KSYMS_H
#define CSTAP_KSYMS_H

#include <stdbool.h>
#include <stdint.h>

#include "session.h"
#include "util.h"

struct ksym {
	uint64_t addr;
	char *name;
	char type;              /* System.map letter: t, T, W ... */
};

struct ksymtab {
	char *source;           /* file it was read from */
	char *module;           /* NULL for the kernel */
	struct ksym *syms;      /* sorted by address, then name */
	size_t n;
	uint64_t stext;         /* address of _stext (kernel only) */
	/* address ranges no kprobe may go into (init text is gone after boot,
	 * kprobes/noinstr/entry text is refused by the kernel) */
	VEC(uint64_t) bad_lo, bad_hi;
	strvec nokprobe;        /* names from _kbl_addr_NAME (NOKPROBE_SYMBOL), sorted */
	strvec exported;        /* names from __ksymtab_NAME (EXPORT_SYMBOL), sorted; they
				 * point into syms */
	const struct ksym **funcs_by_name; /* the function symbols by name (ksym_named) */
	size_t n_funcs;
};

/* The kernel's table for s->kernel_release; NULL (and *why set) if none. */
const struct ksymtab *ksyms_kernel(struct session *s, const char **why);
/* Some probe's code adds the kernel's load offset (KASLR,
 * stp_kaslr_offset) to a link-time address: a DWARF location's
 * (DW_OP_addr), a kernel.data symbol's. */
void ksyms_use_kaslr(struct session *s);
/* If some code does: kfree's link-time address in *addr (the load offset
 * is where kfree is now minus that), for the module's start or stapbpf's
 * @config; false if none does, or the kernel has no symbol table. */
bool ksyms_kaslr_ref(struct session *s, uint64_t *addr);
/* A module's table; NULL if the module (or its symbols) cannot be found. */
const struct ksymtab *ksyms_module(struct session *s, const char *module, const char **why);

/* The path of a module's .ko for the target kernel (modules.dep), or NULL. */
char *ksyms_module_path(struct session *s, const char *module);

/* The names of the target kernel's modules matching the fnmatch pattern
 * (modules.dep; '-' written '_'), sorted, appended to out. */
void ksyms_module_names(struct session *s, const char *pattern, strvec *out);

/* A symbol in a text section, split-off parts (foo.cold, foo.part.0) too. */
bool ksym_is_text(const struct ksym *k);
/* A function symbol of the text section that kprobes can use? */
bool ksym_is_func(const struct ksym *k);
/* The symbol that starts exactly at addr (a function, the first by name). */
const struct ksym *ksym_at(const struct ksymtab *t, uint64_t addr);
/* The function symbols named name (static functions repeat): how many,
 * the first at *first; a by-name index built on the first call, for
 * resolving many exact names (syscall.* names over a thousand). */
size_t ksym_named(const struct ksymtab *t, const char *name, const struct ksym *const **first);
/* How many function symbols have this name (static functions repeat). */
int ksym_count_name(const struct ksymtab *t, const char *name);

/* Up to max names among the functions of t close to name (edit distance),
 * best first, as "a, b, c"; NULL if none is close. */
char *ksyms_similar(const struct ksymtab *t, const char *name, int max);
/* Levenshtein distance, capped: returns cap+1 when larger. */
int edit_distance(const char *a, const char *b, int cap);

#endif
