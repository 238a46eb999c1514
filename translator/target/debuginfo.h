/* debuginfo.h - open the DWARF of the target kernel and its modules.
 *
 * The kernel: the -dbg package's vmlinux for the target release (found by
 * release name, or by the build-id of a vmlinux in the kbuild tree under
 * /usr/lib/debug/.build-id). A module: its .ko under
 * /usr/lib/debug/lib/modules/REL/, relocated by libdwfl (a .ko is ET_REL).
 * When none is installed, the debuginfod client is asked by build-id
 * (debuginfod.h; the kernel's build-id is read from /boot/vmlinuz-REL).
 */
#ifndef CSTAP_TARGET_DEBUGINFO_H
#define CSTAP_TARGET_DEBUGINFO_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "kernel.h"   /* dw_debug_root() */
#include "session.h"

struct dw_aranges;
struct dw_type_cache;
struct dw_inline_index;

/* DIE offsets (units, functions), and their order for qsort/bsearch. */
typedef VEC(Dwarf_Off) dw_offvec;
int dw_off_cmp(const void *a, const void *b);

struct dw_image {
	char *path;
	char *module;           /* a kernel module's name; NULL: the kernel or a user file */
	char *user;             /* a user-space ELF file's absolute path (process
				   probes, uimage.c), else NULL */
	Dwarf *dbg;
	Dwarf_Addr bias;        /* DWARF address + bias = libdwfl address (modules) */
	Dwfl *dwfl;             /* modules and user files only */
	Dwfl_Module *mod;       /* modules and user files only */
	struct dw_type_cache *types; /* dwarf_types.c: type DIEs found by name */
	struct dw_aranges *aranges; /* dwarf_funcs.c's index of the units by address */
	struct dw_inline_index *inlines; /* dwarf_inlines.c's index of the units by inlined function */
	bool inlines_built;     /* that index was made (a walk of every unit) in this run */
	uint64_t *ftrace_sites;  /* ftrace_sites.c: the kernel's __mcount_loc, sorted */
	size_t n_ftrace_sites;
	bool ftrace_sites_read;
};

/* libdwfl's offline callbacks (separate debuginfo under dw_debug_root()
 * by build-id or debuglink), set up once per run. */
const Dwfl_Callbacks *dw_offline_callbacks(struct session *s);
/* The ELF file at path through libelf (its descriptor in *fd), or NULL;
 * elf_file_close() ends both (NULL and -1 are fine). */
Elf *elf_file_open(const char *path, int *fd);
void elf_file_close(Elf *e, int fd);
/* Does the ELF file at path have a .debug_info section? */
bool elf_has_debug_info(const char *path);

/* Cached per session; NULL with *why set when there is no debuginfo. */
struct dw_image *dw_kernel(struct session *s, const char **why);
/* n bytes of the image's initialised data at link-time address addr
 * (the kernel's data: tracepoint systems, syscall metadata). */
bool dw_image_read(struct dw_image *img, uint64_t addr, void *buf, size_t n);
/* The NUL-terminated string a pointer at addr points to (< 128 bytes), or NULL. */
char *dw_image_string_at(struct dw_image *img, uint64_t ptr_addr);
/* A kernel module's image by name ("xfs"), or, for a @cast module naming C
 * headers ("<sys/un.h>", cast_headers.c), the image of those headers' types. */
struct dw_image *dw_module(struct session *s, const char *module, const char **why);

/* Close a module's image dw_module opened and forget it (a later
 * dw_module opens it again): the tracepoints' metadata reads some 300
 * modules' DWARF, one at a time, each relocated by libdwfl in memory. */
void dw_module_close(struct session *s, struct dw_image *img);
/* The indexes hanging off an image, freed with it. */
void dw_type_cache_free(struct dw_type_cache *c);
void dw_aranges_free(struct dw_aranges *a);
void dw_inline_index_free(struct dw_inline_index *idx);

/* cast_headers.c: is module a list of <headers>? Compile them into a
 * shared object whose DWARF has all their types: its path (the caller
 * removes it once open), or NULL with *why (allocated). */
bool dw_is_header_module(const char *module);
char *dw_header_types_file(struct session *s, const char *module, char **why);

#endif
