/* d_prov_uproc.h - a traced process's files (d_prov_uproc.c), for the
 * pid and USDT providers. */
#ifndef CSTAP_D_PROV_UPROC_H
#define CSTAP_D_PROV_UPROC_H

#include "d/d_provider.h"
#include "target/uimage.h"

/* the session cstap's target readers take (the running kernel's) */
struct session *d_session(void);

struct d_uproc {
	long pid;                /* 0: -c's command, not started yet */
	char *exe;               /* its program, NULL: unknown */
	strvec libs;             /* its shared libraries */
};

/* Does the description's provider part pat name provider name of a
 * process (name followed by its pid)? *pid: that pid, 0 for -c's */
bool d_uproc_provider(const char *pat, const char *name, long *pid);
/* The process of that pid (0: -c's), its files found once */
const struct d_uproc *d_uproc(long pid);
/* A file's module name (its file name), and whether pattern pat names it */
const char *d_uproc_module(const char *path);
bool d_uproc_module_matches(const char *pat, const char *path, bool is_exe);
/* The file's functions (symbol table), by name */
const usymvec *d_uproc_functions(const char *path);
/* The condition that the probe fired in the process */
void d_uproc_guard(long pid, struct strbuf *out);

#endif
