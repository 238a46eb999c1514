/* uprobes.h - process(...) probes: the DWARF family (dwarf.c) resolves
 * process("PATH").function/.statement points like kernel ones, over the
 * user file's image, and hands each address here; uprobes.c registers
 * them through the kernel's uprobes (at the file's inode and offset), and
 * derives SDT marker points (.mark) itself.
 */
#ifndef CSTAP_UPROBES_H
#define CSTAP_UPROBES_H

#include "provider.h"
#include "target/dwarf_scope.h"

/* A probe at link-time address vaddr of user image img, in the function
 * entered at func (.return: ret);
 * scope, if any, is where its target variables are; text is its pp()
 * (taken). False (text freed) if vaddr is in no loadable segment, or a
 * .return is asked of the program's entry point. */
bool uprobe_add(struct session *s, struct probe *p, struct probe_point *pp, struct dw_image *img,
		uint64_t vaddr, uint64_t func, bool ret, const struct dw_scope *scope, char *text);
/* process("PATH").function("PAT")[.call|.return] on function symbols: the
 * image's symbols matching PAT (fn_comp: the function component) that no
 * probe from index first on is at already (those DWARF found); as
 * SystemTap, they have no target variables. How many probes were added. */
int uprobe_add_symbols(struct session *s, struct probe *p, struct probe_point *pp, int fn_comp,
		       struct dw_image *img, const char *pat, bool ret, int first);
/* process("PATH").plt("PAT")[.return]: the image's PLT entries whose
 * function matches PAT (the component fn_comp may have no argument:
 * every entry); $$name in the body is the function. How many probes. */
int uprobe_add_plt(struct session *s, struct probe *p, struct probe_point *pp, int fn_comp,
		   struct dw_image *img, const char *pat, bool ret);

/* process("P")[.library("L")]: the user files the point names (the
 * program, or its shared libraries matching L), appended to files, and
 * the program's path in *exe (allocated); false after an error is
 * reported (or, optional, nothing to probe). A point without "P" names
 * the program of -c CMD, as in SystemTap. */
bool uprobe_process_files(struct session *s, struct probe_point *pp, bool library, strvec *files,
			  char **exe);
/* The process probes from index first on, of point pp: if it names no
 * program (-c/-x's), they fire in the target's process tree only; if it
 * names a PID (process(PID)), in that process only. */
void uprobe_restrict(struct session *s, const struct probe_point *pp, int first);
/* The file dp is a process probe on, or NULL if it is no process probe. */
const char *uprobe_path(const struct derived_probe *dp);
#endif
