/* recipe.h - replay the commands kbuild ran for a module (see build.c). */
#ifndef CSTAP_RECIPE_H
#define CSTAP_RECIPE_H

struct recipe_key {
	const char *build;   /* kernel build tree */
	const char *flags;   /* the module Makefile's text (ccflags) */
	const char *base_flags;   /* the same without -D options: its recipe's
	                           compile line makes the precompiled header (pch.c);
	                           NULL: none */
	const char *runtime_dir;
};

/* What a kernel build tree's compiles depend on, for cache keys: its real
 * path and the mtimes of its config, its Makefile and the compiler. NULL if
 * the tree is not there. */
char *kbuild_tree_stamp(const char *build);

/* After a successful kbuild of dir/name.ko, keep its commands. */
void recipe_record(const struct recipe_key *k, const char *dir, const char *name);
/* Build dir/name.ko from dir/name.c with a kept recipe. 0 on success; non-zero
 * when there is no recipe or it failed (the caller then runs kbuild). */
int recipe_replay(const struct recipe_key *k, const char *dir, const char *name, const char *log);

#endif
