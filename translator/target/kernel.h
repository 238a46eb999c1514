/* kernel.h - the target kernel: which release, where its build tree and
 * modules are, whether it is the kernel running here and whether this host
 * can load modules at all. Answered once per run (the first call, from
 * options), then read by pass 4, pass 5 and the target library alike.
 * Also the kernel's files: its modules (modules.dep) and where the -dbg
 * packages put their copies. The bottom of translator/target/: it needs
 * no other file of it (ksyms -> debuginfo -> kernel).
 */
#ifndef CSTAP_TARGET_KERNEL_H
#define CSTAP_TARGET_KERNEL_H

#include <stdbool.h>

#include "session.h"
#include "util.h"

struct target_kernel {
	const char *release;      /* -r RELEASE, or the chosen one; NULL: none */
	char *build;              /* /lib/modules/REL/build (kbuild tree, .config) */
	char *modules;            /* /lib/modules/REL (modules.dep, the .ko files) */
	char *image;              /* /boot/vmlinuz-REL (build-id, BTF) */
	char *debug_root;         /* dw_debug_root() */
	const char *host_release; /* the running kernel's (uname -r); NULL if unknown */
	bool running;             /* release is the running kernel's */
	bool host_loads_modules;  /* this host can load modules (pass 5 runs here) */
};

/* The target kernel of s: -r, else the running kernel if this host loads
 * modules, else the newest installed kernel a guest can boot (with
 * --sysroot: the newest the root holds). Its paths are under the sysroot. */
const struct target_kernel *target_kernel(struct session *s);

/* Can this host load our module (/proc/modules, modules_disabled)? */
bool host_can_load_modules(void);

/* The target kernel's configuration (CONFIG_NAME=VALUE lines): its kbuild
 * tree's .config, else /boot/config-REL, else, for the running kernel,
 * /proc/config.gz; NULL when none is found (every CONFIG_ is then ""). */
const char *kernel_config_text(struct session *s);
/* Is the configuration's line NAME=VALUE there? */
bool kernel_config_is(struct session *s, const char *name, const char *value);
/* Build for `release` from now on (a --remote host's kernel), before pass 1. */
void target_kernel_retarget(struct session *s, const char *release);

/* Where installed debuginfo is looked for: $CSTAP_DEBUGINFO_DIR, else
 * /usr/lib/debug (the -dbg packages' vmlinux, System.map and .ko files),
 * under the sysroot. */
const char *dw_debug_root(struct session *s);

/* The path of a module's .ko for the target kernel (modules.dep), or NULL. */
char *kernel_module_path(struct session *s, const char *module);
/* The names of the target kernel's modules matching the fnmatch pattern
 * (modules.dep; '-' written '_'), sorted, appended to out. */
void kernel_module_names(struct session *s, const char *pattern, strvec *out);
/* The same with each module's .ko path (full, as kernel_module_path's) at
 * the same index of paths: one read of modules.dep. */
void kernel_module_files(struct session *s, const char *pattern, strvec *names, strvec *paths);
/* Where the -dbg package has the (uncompressed) module file ko: its path
 * from "/kernel/" on, under the debug root; NULL if ko is not under kernel/. */
char *kernel_module_debug_path(struct session *s, const char *ko);
/* Do a and b name the same module ("nf-nat", "nf_nat")? */
bool kernel_same_module(const char *a, const char *b);

#endif
