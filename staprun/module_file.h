/* module_file.h - the module staprun loads, read once into memory: every
 * check (name, parameters, privilege, signature) is made on that copy and
 * that copy is what init_module loads, so no one can change the file
 * between the checks and the load. */
#ifndef STAPRUN_MODULE_FILE_H
#define STAPRUN_MODULE_FILE_H

#include <stdbool.h>
#include <stddef.h>

#define MODULE_FILE_MAX (512u << 20)	/* larger is not a module staprun made */

struct module_file {
	char path[4096];	/* the file read */
	unsigned char *img;
	size_t len;
	size_t elf_len;		/* the module itself: len less an appended signature */
	bool installed;		/* it is the file of that name in /lib/modules/RELEASE/systemtap/,
				 * reached through directories only root can write */
	char why[512];		/* named as installed (NAME) and not: why not */
};

/* Read the module `arg` names: a path (opened with the caller's own file
 * permissions, not root's, and no symlink followed when the caller is not
 * root), or a bare NAME, the installed /lib/modules/RELEASE/systemtap/NAME.ko.
 * 0; -1 with a message; MODULE_FILE_UNTRUSTED when NAME is not a file only
 * root can have written there (m->why says why; m->path is its path). */
int module_file_read(const char *arg, struct module_file *m);
#define MODULE_FILE_UNTRUSTED (-2)

/* Is `arg` a bare module name (no '/', no ".ko")? */
bool module_file_is_name(const char *arg);

#endif /* STAPRUN_MODULE_FILE_H */
