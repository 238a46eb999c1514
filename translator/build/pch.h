/* pch.h - the kernel headers of pass 4, precompiled once per kernel (pch.c). */
#ifndef CSTAP_PCH_H
#define CSTAP_PCH_H

/* A recipe's compile line (line, placeholders still in) rewritten to use the
 * precompiled header made from base_line (the compile line of the same
 * kernel's recipe without -D options), making it first if needed; writes
 * dir/stp_modname.h for module name. NULL: compile with line as it is. */
char *pch_compile_line(const char *build, const char *base_line, const char *line,
		       const char *runtime_dir, const char *dir, const char *name);

#endif
