/* uimage.h - the user-space ELF files that process(...) probes name.
 *
 * A process probe is registered at an inode and a file offset (the
 * kernel's uprobes), so the translator needs: the file as the kernel will
 * find it (an absolute path; a bare name is looked up on $PATH, as
 * SystemTap does), its DWARF and symbols (libdwfl: separate debuginfo by
 * build-id under dw_debug_root(), or debuginfod), and the file offset of a
 * link-time address. The QEMU guest gets every probed file at the same
 * path (uimage_files).
 */
#ifndef CSTAP_TARGET_UIMAGE_H
#define CSTAP_TARGET_UIMAGE_H

#include <gelf.h>

#include "debuginfo.h"

/* process("ARG"): the absolute path of the program (realpath; a name
 * without '/' through $PATH), or NULL with *why (allocated). Paths here
 * are the target's: under --sysroot they are read at sysroot_host(). */
char *uimage_resolve(struct session *s, const char *arg, char **why);
/* process("PATTERN") with wildcards: the regular files matching it (their
 * real paths, each once), appended to out. */
void uimage_glob(struct session *s, const char *pattern, strvec *out);
/* process("EXE").library("LIB"): the shared libraries of exe (as ldd
 * lists them; under --sysroot, its DT_NEEDED as the target's loader finds
 * them) whose path or file name matches the fnmatch pattern lib, or lib
 * itself when it is a path; appended to out (allocated). */
void uimage_libraries(struct session *s, const char *exe, const char *lib, strvec *out);
/* The user file's image (cached): its DWARF in img->dbg when it has any
 * (else NULL: symbols only, *why says why), img->user its (target) path,
 * img->path where it is read. NULL with *why if the file is not an ELF
 * file libdwfl can read. */
struct dw_image *dw_user(struct session *s, const char *path, const char **why);
/* Is it ET_DYN (a PIE program, a shared library: loaded anywhere)? */
bool uimage_is_dyn(struct dw_image *img);
/* Is vaddr the program's entry point (_start: not called, never returns)? */
bool uimage_is_entry(struct dw_image *img, uint64_t vaddr);
/* Its file offset at link-time address vaddr (the PT_LOAD segment holding
 * it); false if no segment does. */
bool uimage_file_offset(struct dw_image *img, uint64_t vaddr, uint64_t *off);
/* fn(name, sym, link-time address, ctx) for each defined symbol of the
 * image that has a name and a value, from its symbol table (.symtab if
 * any, else .dynsym). */
typedef void uimage_sym_fn(const char *name, const GElf_Sym *sym, uint64_t addr, void *ctx);
void uimage_each_symbol(struct dw_image *img, uimage_sym_fn *fn, void *ctx);
/* Function symbols of the image matching the fnmatch pattern (address and
 * name, the symbol table's: .symtab if any, else .dynsym), each address once,
 * by name. */
struct usym { uint64_t addr; char *name; };
typedef VEC(struct usym) usymvec;
void uimage_functions(struct dw_image *img, const char *pattern, usymvec *out);
/* Its PLT entries whose (unversioned) symbol name matches the pattern:
 * the entry's link-time address and the name, by name. */
void uimage_plt(struct dw_image *img, const char *pattern, usymvec *out);
/* The user files probed in this run: the guest needs them at these paths. */
const strvec *uimage_files(struct session *s);
/* A program a probe names without reading it (process("P").begin): the
 * guest gets it at this path too (once). */
void uimage_add_file(struct session *s, const char *path);

#endif
