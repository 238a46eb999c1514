/* d_usdt.h - dtrace -h and -G: the USDT probes of the providers a D
 * script declares, for programs built on <sys/sdt.h>.
 *
 *   provider myprov { probe foo__bar(int, char *); };
 *
 * -h writes a header of macros: MYPROV_FOO_BAR(a, b) places the marker
 * (<sys/sdt.h>'s STAP_PROBE2(myprov, foo__bar, a, b), with semaphores),
 * MYPROV_FOO_BAR_ENABLED() says whether a tracer attached to it.
 * -G compiles (cc) an object defining the semaphores, named as <sys/sdt.h>
 * names them (myprov_foo__bar_semaphore, section .probes), to be linked
 * into the program. The same names, markers and semaphores as SystemTap's
 * dtrace script makes (systemtap-sdt-dev), so either tool's objects link
 * with the other's header, and stap's process("P").mark("foo__bar") (or
 * DTrace's name, "foo-bar") finds the markers.
 *
 * d_usdt.c reads the scripts and names the probes, d_usdt_header.c writes
 * the header, d_usdt_object.c the object, d_usdt_elf.c checks the
 * program's objects against it.
 */
#ifndef CSTAP_D_USDT_H
#define CSTAP_D_USDT_H

#include <stdbool.h>

#include "d/d_ast.h"
#include "util.h"

enum d_usdt_mode {
	D_USDT_NONE,
	D_USDT_HEADER,           /* -h */
	D_USDT_OBJECT,           /* -G */
};

/* What the command line asks (d_main.c fills it). */
struct d_usdt_opts {
	enum d_usdt_mode mode;
	const char *output;      /* -o; NULL: the first script's base name with .h or .o, here */
	bool m32;                /* -32: a 32-bit object (-64, the default: the compiler's) */
	bool errtags;            /* -xerrtags: errors carry their tag */
	strvec scripts;          /* the -s files, in order */
	char **objects;          /* -G: the program's objects, after the options */
	int nobjects;
	/* A script's text, through cpp when -C asks; NULL after saying why
	 * on stderr. */
	char *(*load)(void *arg, const char *path);
	void *load_arg;
};

/* dtrace -h / -G: the exit status (0, or 1 after saying why). The object
 * files after the options (-G) are only checked to be of the semaphores'
 * object's ELF class and machine: the markers in them are <sys/sdt.h>'s
 * notes already, and the semaphores need nothing else from them. */
int d_usdt_main(const struct d_usdt_opts *o);

/* ---- between d_usdt.c and its writers ----------------------------------------- */

/* One probe of one provider, with the names each side gives it. */
struct d_usdt_probe {
	const char *provider;    /* myprov */
	const char *dname;       /* DTrace's name: foo-bar */
	char *name;              /* the marker's (sdt.h's, an identifier): foo__bar */
	char *macro;             /* MYPROV_FOO_BAR */
	char *semaphore;         /* myprov_foo__bar_semaphore */
	const struct d_probe_decl *decl;   /* its argument types */
};
typedef VEC(struct d_usdt_probe *) d_usdt_probes;

/* The most arguments a marker has (<sys/sdt.h>: STAP_PROBE12). */
#define D_USDT_MAX_ARGS 12

/* Write the header to path (for the scripts named in from); 0, or -1
 * after saying why. */
int d_usdt_write_header(const d_usdt_probes *probes, const char *path, const char *from);
/* Compile the semaphores' object into path; 0, or -1 after saying why. */
int d_usdt_write_object(const d_usdt_probes *probes, const char *path, const char *from, bool m32);
/* Whether the ELF objects among objects (others, and files that are not
 * there, are not looked at) are of the ELF class and machine of the object
 * at path; 0, or -1 after saying which is not. */
int d_usdt_check_objects(const char *path, char *const *objects, int nobjects);

#endif
