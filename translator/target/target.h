/* target.h - the target library's per-run state, hanging off the session
 * (s->target): the kernel's facts and what was loaded for it. Only
 * translator/target/ looks inside; the rest asks through the functions of
 * kernel.h, ksyms.h, debuginfo.h.
 */
#ifndef CSTAP_TARGET_TARGET_H
#define CSTAP_TARGET_TARGET_H

#include <elfutils/libdwfl.h>

#include "kernel.h"
#include "ktracepoints.h"
#include "util.h"

struct ksymtab;
struct dw_image;
struct ktp_module;
struct tpm_set;
struct btf;

struct tracefs_event;

struct target {
	bool kernel_known;             /* kernel.c: decided (on the first ask) */
	struct target_kernel kernel;
	bool config_read;              /* kernel.c: its .config, read once */
	char *config;

	struct {                       /* ksyms.c: symbol tables */
		bool tried;            /* the kernel's was looked for */
		struct ksymtab *kernel;
		const char *why;       /* why the kernel has none */
		VEC(struct ksymtab *) modules;
		char *module_why;      /* why the last module asked for has none */
		bool uses_kaslr;       /* some code adds the kernel's load offset */
	} ksyms;

	struct {                       /* debuginfo.c: DWARF images */
		bool tried;
		struct dw_image *kernel;
		char *why;
		VEC(struct dw_image *) modules;
		char *module_why;
		char *path;            /* libdwfl's search path for modules' debuginfo */
		Dwfl_Callbacks offline; /* libdwfl's callbacks, reading path */
		VEC(struct dw_image *) users; /* uimage.c: user files (process probes) */
		char *user_why;
		strvec user_files;     /* their paths, for the guest */
	} dw;

	struct {                       /* btf.c: the kernel's BTF */
		bool tried;
		struct btf *kernel;
		const char *why;
	} btf;

	struct {                       /* tracefs.c: the running kernel's trace events */
		bool tried, known;
		const char *dir;               /* its events directory, NULL if none was read */
		struct tracefs_event *events;   /* sorted by name */
		size_t n;
	} tracefs;

	struct {                       /* attach.c: what the kernel attaches BPF programs to */
		bool tried;            /* the running kernel's trampolines were tried */
		char *trampoline_why;  /* why they cannot attach; NULL: they can, or unknown */
	} attach;

	char *debuginfod_why;          /* debuginfod.c: why the last fetch failed */
	VEC(struct ktp_module *) tracepoints; /* ktracepoints.c: modules' tracepoints */

	struct {                       /* tpmeta.c, tpmeta_cache.c: tracepoint metadata */
		bool offsets_known;
		struct ktp_layout layout; /* where an event's system string is */
		bool tried;            /* the cache file was looked at */
		struct tpm_set *all;   /* every tracepoint (cached or built), NULL if none */
	} tp;
};

/* s's target state, created on first use. */
static inline struct target *target_of(struct session *s)
{
	if (!s->target)
		s->target = xcalloc(1, sizeof(*s->target));
	return s->target;
}

#endif
