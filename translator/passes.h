/* passes.h - the five passes, as main.c calls them. */
#ifndef CSTAP_PASSES_H
#define CSTAP_PASSES_H

#include "session.h"

/* stap's command line and passes 1-5 (main.c); dtrace runs it on its
 * lowered script, told by before_run (if not NULL) when pass 5 starts */
int stap_run(int argc, char **argv, void (*before_run)(struct session *, void *), void *arg);
int stap_compile_only(int argc, char **argv);
int pass1_parse(struct session *s);      /* parse/library.c: user files, the tapset library's index */
/* pass 2 (parse/library.c): the library files that define function or
 * global name, or an alias whose first component the pattern name
 * matches (TN_FUNC, TN_GLOBAL, TN_ALIAS of parse/tapset_index.h), parsed
 * into s->library if they were not; library_need_all: every file */
void library_need(struct session *s, int kind, const char *name);
void library_need_all(struct session *s);
/* The library's index (NULL before pass 1): the unit tests check it. */
struct tapset_index *library_index(struct session *s);
int pass2_elaborate(struct session *s);  /* elaborate/elaborate.c */
int pass3_translate(struct session *s);  /* translate/translate.c */
int pass4_build(struct session *s);      /* build/build.c */
int pass5_run(struct session *s);        /* run/run.c */
/* staprun's arguments (argv[0] "staprun", NULL-terminated); ko is the
 * module's path where staprun runs, remote when that is not here (-o
 * FILE is then ours to write) */
void staprun_args(struct session *s, strvec *argv, const char *ko, const char *cmd, bool remote);
/* The option asking for what only a staprun on this host gives (-F, -S,
 * -b: the files stay, or the session outlives stap), with what it is and
 * the staprun options that do it there; NULL if none. */
const char *staprun_here_only(const struct session *s, const char **what, const char **use);
/* --remote=ssh://...: asks each host its kernel, runs build (passes 1-4) in
 * a child once per release, then the module on every host (run/ssh.c) */
int pass5_ssh(struct session *s, int (*build)(struct session *));

/* pass 4's result where the user wants it: with -m NAME or at -p4 the
 * module is copied to ./NAME.ko, as SystemTap does (build/build.c) */
int deliver_module(struct session *s);
/* --sign-key: the module pass 5 runs and the user gets is signed (never
 * the cache's copy: build/build.c) */
int sign_module(struct session *s);
/* what pass 5 takes from pass 2: the kernel modules the guest must load,
 * the files process probes are on (run/run.c; the module cache keeps them) */
void run_guest_inputs(struct session *s, strvec *mods, strvec *files);

/* pass 2: expand a probe point naming a probe alias (elaborate/alias.c); 1 if it
 * did, 0 if pp names no alias, -1 after an error */
int alias_expand(struct session *s, struct probe *user, struct probe_point *pp, int depth,
		 void (*derive)(struct session *, struct probe *, struct probe_point *, int));

/* pass 2: s->aliases filled (the user's aliases, then the library's), once */
void aliases_listed(struct session *s);
/* pass 2: a point with '**' (doubleglob.c): the aliases and family shapes it
 * matches, each derived; 0 if none matched (nothing reported) */
bool pp_has_doubleglob(const struct probe_point *pp);
/* ... or a glob ('*', '?', '[') in a name up to its first argument */
bool pp_has_name_glob(const struct probe_point *pp);
/* ... or in a suffix (kernel.function("f").*): each function-point suffix
 * it matches, derived; 0 if none */
int suffixglob_expand(struct session *s, struct probe *p, struct probe_point *pp, int depth,
		      void (*derive)(struct session *, struct probe *, struct probe_point *, int));
int doubleglob_expand(struct session *s, struct probe *p, struct probe_point *pp, int depth,
		      void (*derive)(struct session *, struct probe *, struct probe_point *, int));
/* The point with each '**' taken as '*' (within its component). */
struct probe_point *doubleglob_within(const struct probe_point *pp);

/* pass 2: type `expr->field` from what expr carries (autocast.c) */
void autocast_rewrite(struct session *s, struct probe **probes, int nprobes);

/* pass 2: the functions that read $target variables, themselves or through
 * calls (func->in_context), compiled once per derived probe calling them
 * (context_funcs.c) */
void context_funcs_mark(struct session *s);
/* The in_context functions a statement calls, directly or through them, added
 * to out once each. */
void context_funcs_reached(struct stmt *body, funcvec *out);

/* pass 2: resolve every target expression of the probes and functions kept,
 * in each derived probe's context as its family gives it (target_exprs.c,
 * through elaborate/tvars.c); errors are reported. Returns their number. */
int target_exprs_resolve(struct session *s);

/* pass 2's last steps: decide what pass 3 only reads (analyze.c); each
 * update lowered (updates.c, lowered.h's struct lupdate) */
void analyze(struct session *s);
void lower_updates(struct session *s);
/* x++, x--, ++x, --x, x += e, x -= e on a global: that global, else NULL */
struct sym *bumped_global(const struct expr *e);

/* -p1 / -p2 / -p3 output */
void print_pass1(struct session *s);
void print_pass2(struct session *s);

/* pass 2: what SystemTap refuses beyond names and types (elaborate/checks.c) */
void check_semantics(struct session *s);
/* --check-version: the used tapset constructs whose text depends on systemtap_v */
void check_version_dependence(struct session *s);

/* pass 2: --privilege=stapusr|stapsys: only what such users may run
 * (elaborate/privilege.c) */
void check_privilege(struct session *s);

/* pass 2: leave out what has no effect, unless -u (elaborate/optimize.c) */
void optimize_bodies(struct session *s);
/* ... then drop the probes whose bodies do nothing; 1 (an error) if none is left */
int elide_empty_probes(struct session *s);

#endif
