/* pch.h - the kernel headers of pass 4, precompiled once per kernel (pch.c). */
#ifndef CSTAP_PCH_H
#define CSTAP_PCH_H

/* A recipe's compile line (line, placeholders still in) rewritten to use the
 * precompiled header made from base_line (the compile line of the same
 * kernel's recipe without -D options), making it first if needed; writes
 * dir/stp_modname.h for module name. NULL: compile with line as it is. */
char *pch_compile_line(const char *build, const char *base_line, const char *line,
		       const char *runtime_dir, const char *dir, const char *name);

/* Another compile line of the recipe (NAME.mod.c, 6.10's module-common.c:
 * data only, no kernel code) made from the module's pch_compile_line: the
 * same flags and precompiled headers, its own source, object, dependency
 * file and KBUILD_*MODNAME names (written to dir/stp_modname_TAG.h). A
 * .mod.c took as long to compile as a small module's own C. NULL: compile
 * with line as it is. */
char *pch_other_line(const char *pch_line, const char *line, const char *dir, const char *name,
		     const char *tag);

#endif
