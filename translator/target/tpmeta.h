/* tpmeta.h - what kernel.trace needs to know of each tracepoint of the
 * target kernel and its modules, as plain records: its name, system,
 * module, how many arguments it has, where its iterator's DWARF is, and
 * the variables -L lists.
 *
 * Finding them is costly for kernel.trace("*"): the kernel's 1,000-odd
 * __traceiter_ functions in its DWARF, then the DWARF of every module
 * defining tracepoints (libdwfl relocates each: ~300 modules, hundreds of
 * MB). tpm_kernel and tpm_module find them live, a module's DWARF opened
 * for as long as it is read; tpmeta_cache.c keeps the whole set per kernel
 * build-id on disk, so that the next runs read one small file and open no
 * module's DWARF until a probe's $variables need it.
 */
#ifndef CSTAP_TARGET_TPMETA_H
#define CSTAP_TARGET_TPMETA_H

#include <stdint.h>

#include "debuginfo.h"
#include "ksyms.h"
#include "util.h"

#define TPM_ITER "__traceiter_"

/* One tracepoint. */
struct tpm {
	char *name;             /* "sched_switch" */
	char *system;           /* "sched"; NULL if unknown */
	int module;             /* index in its set's modules; -1: the kernel's */
	int nargs;              /* arguments after __data; -1: no DWARF for its
				 * iterator (-l lists it, nothing probes it) */
	uint64_t die;           /* its iterator's DIE in its image's DWARF */
	uint64_t entry;         /* the iterator's entry (kernel: link-time;
				 * module: libdwfl's address) */
	char *vars;             /* -L's " $prev:struct task_struct*" ..., "" for
				 * none; NULL if not known (then from the DWARF) */
};

/* A module defining tracepoints. */
struct tpm_module {
	char *name;             /* "sunrpc" */
	bool no_dwarf;          /* its DWARF could not be opened: not cached,
				 * looked for again (installed or fetched since?) */
	char *dwarf;            /* the file its DWARF was read from, or NULL: a
				 * run whose probes are there depends on it (input_note) */
};

/* Tracepoints in the order kernel.trace derives them: the kernel's by
 * name, then each module's (modules by name, their tracepoints by name). */
struct tpm_set {
	VEC(struct tpm) tps;
	VEC(struct tpm_module) mods;
};

/* The kernel's tracepoints whose name matches name_pat (and system
 * sys_pat, NULL: any) into set: through its DWARF (img) and symbols
 * (syms); with_vars: -L's text of each too. */
void tpm_kernel(struct session *s, struct dw_image *img, const struct ksymtab *syms, const char *name_pat,
		const char *sys_pat, bool with_vars, struct tpm_set *set);

/* How tpm_module reads a module's DWARF. */
enum tpm_dwarf {
	TPM_NO_DWARF,           /* not at all: names and systems only (-l) */
	TPM_KEEP_DWARF,         /* through dw_module, kept open for the run */
	TPM_CLOSE_DWARF,        /* opened for this module's records, closed after
				 * (unless something held it open before) */
};

/* The tracepoints module (its .ko at path) defines whose name matches
 * name_pat (and system sys_pat) into set, the module a new entry of
 * set->mods when it has any. */
void tpm_module(struct session *s, struct dw_image *kernel, const char *module, const char *path,
		const char *name_pat, const char *sys_pat, enum tpm_dwarf how, bool with_vars,
		struct tpm_set *set);

/* Free set's records (not set itself). */
void tpm_set_clear(struct tpm_set *set);

/* Every tracepoint of the target kernel and its modules, with -L's text:
 * from this run's memory, or from the cache file when it is whole and
 * was made from the same files; NULL if there is none. */
const struct tpm_set *tpm_cached(struct session *s, struct dw_image *kernel);
/* The same, found live now (every module's DWARF opened in turn, one at a
 * time) and stored in the cache for the next runs. */
const struct tpm_set *tpm_build_all(struct session *s, struct dw_image *kernel, const struct ksymtab *syms);

#endif
