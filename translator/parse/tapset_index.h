/* tapset_index.h - which tapset file defines which function, global and
 * probe alias, found by scanning the files' top level (no parse): pass 1
 * builds it, pass 2 parses a library file when it first needs a name the
 * file defines (parse/library.c). A name defined in either branch of a
 * %( %? %: %) conditional is indexed: the index may name a file that, for
 * this kernel, turns out not to define it, never miss one that does.
 */
#ifndef CSTAP_TAPSET_INDEX_H
#define CSTAP_TAPSET_INDEX_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

enum tapset_name {
	TN_FUNC,        /* function NAME */
	TN_GLOBAL,      /* global NAME */
	TN_ALIAS,       /* probe NAME.MORE = / += ...: the alias name's first component */
};

struct tapset_entry {
	const char *name;
	enum tapset_name kind;
	int file;
};

struct tapset_index {
	VEC(struct tapset_entry) entries;   /* sorted by kind, then name, then file */
	bool sorted;
};

/* Index the top-level names of text (len bytes), the library's file number
 * file; names point into text (not terminated there: copied). */
void tapset_index_scan(struct tapset_index *ix, int file, const char *text, size_t len);

/* The files defining a kind name exactly (TN_FUNC, TN_GLOBAL), or (TN_ALIAS)
 * an alias whose first component the fnmatch pattern matches, each once,
 * in file order, appended to files. */
void tapset_index_files(struct tapset_index *ix, enum tapset_name kind, const char *name, intvec *files);

#endif
