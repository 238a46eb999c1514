/* dwarf_funcs.h - find the out-of-line functions of a kernel or module
 * image that match a kernel.function pattern "func[@file[:line]]".
 *
 * Speed matters (every kernel.function point pays for it): the kernel's
 * DWARF is ~160 MB, so it is never walked whole unless the pattern asks
 * for every function. The function names are matched against the symbol
 * table first; .debug_aranges maps their addresses to the few compile
 * units that hold them; only the top-level DIEs of those units are read.
 */
#ifndef CSTAP_DWARF_FUNCS_H
#define CSTAP_DWARF_FUNCS_H

#include "debuginfo.h"
#include "ksyms.h"

struct dw_pattern {
	char *func;             /* fnmatch pattern of the function name */
	char *file;             /* fnmatch pattern of the declaring file, or NULL */
	int line;               /* declaration line, 0 = any */
	bool keep_refused;      /* keep blacklisted functions (with dw_func.refused set):
				 * to say why a point naming one matches nothing */
	bool no_probe;          /* the caller puts no probe on the functions (a
				 * tracepoint's __traceiter_ function, read for its
				 * arguments): cstap's name and file rules do not apply */
};

struct dw_func {
	char *name;             /* the function's name in DWARF */
	char *file;             /* declaring file, relative to the source tree */
	int line;               /* declaration line */
	uint64_t addr;          /* entry address (kernel: link-time; module: libdwfl) */
	char *symbol;           /* ELF symbol at addr: "vfs_read", "foo.isra.0" */
	Dwarf_Off die;          /* the DIE, for listing its parameters */
	bool exported;          /* EXPORT_SYMBOL'd */
	const char *refused;    /* why it is blacklisted (only with keep_refused), or NULL */
};
typedef VEC(struct dw_func) dw_funcvec;

/* qsort order of functions: name, then file, then address */
int dw_func_cmp(const void *a, const void *b);
/* "func@file:line" -> pattern; false if malformed (empty function part). */
bool dw_pattern_parse(const char *text, struct dw_pattern *p);
/* Append the matching functions of img (syms: its symbol table) to out,
 * sorted by name, then file, then address; blacklisted ones left out. */
void dw_find_functions(struct dw_image *img, const struct ksymtab *syms,
		       const struct dw_pattern *p, dw_funcvec *out);

/* A declaring file as printed: relative to the kernel source tree. */
char *dw_source_relative(const char *f);
/* A declaring file as printed for img: a user file's as its DWARF has it
 * ("./malloc/malloc.c", as SystemTap prints it), else dw_source_relative. */
char *dw_source_name(const struct dw_image *img, const char *f);
/* Does a file pattern match the file (whole path, or its tail after '/')? */
bool dw_file_matches(const char *pat, const char *file);
/* Can only a source file (".c", ".S", ".s") match the pattern, not a
 * header? Then only the units of that name need reading. */
bool dw_pattern_names_source(const char *pat);

#endif
