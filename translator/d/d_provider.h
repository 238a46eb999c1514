/* d_provider.h - DTrace's providers on cstap's probe points.
 *
 * A probe DTrace names PROVIDER:MODULE:FUNCTION:NAME is a struct d_probe
 * of one family (d_prov_*.c: one file per provider family, listed in
 * d_provider.c's table). The kernel's probes are all made, numbered in
 * table order, when the first description is matched; those named on
 * demand (tick-N, a process's pid and USDT probes) after them. A family
 * says where each fires in cstap's language: its site, a probe
 * point several DTrace probes may share (every syscall entry fires at
 * raw_syscalls:sys_enter), and what tells them apart there (the family's
 * guard: $id == 0 for read).
 *
 * The lowering writes one probe per site holding the clauses of every
 * DTrace probe there, in program order, each under its guard: so clauses
 * run in the order DTrace runs them on the probe that fired, and a clause
 * on many probes (syscall:::entry) costs one attachment, not hundreds.
 * Built-in variables (probefunc, arg0, args[] ...) are asked of the family
 * of the site's probes.
 */
#ifndef CSTAP_D_PROVIDER_H
#define CSTAP_D_PROVIDER_H

#include "d/d_ast.h"
#include "util.h"

struct d_lower;
struct d_sema;
struct d_family;

struct d_probe {
	uint32_t id;             /* DTrace's probe ID: -l's, the `id` variable */
	const char *prov, *mod, *func, *name;
	const struct d_family *fam;
	const char *site;        /* the probe point of cstap's language it fires at */
	long key;                /* the family's: what tells it apart at its site */
	const void *data;        /* the family's */
};
typedef VEC(struct d_probe *) d_probevec;

/* DTrace's stability attributes of a provider (-lv): names, data and
 * class of the probe description, then of its arguments */
struct d_attrs {
	const char *name_stab, *data_stab, *dep_class;
	const char *arg_name_stab, *arg_data_stab, *arg_dep_class;
};

struct d_family {
	const char *name;
	/* appends the family's probes that d matches, made as needed */
	void (*match)(const struct d_family *fam, const struct d_pdesc *d, d_probevec *out);
	/* the condition true when a firing of the site is one of ps (all at
	 * one site, at least one); false: every firing there is */
	bool (*guard)(const d_probevec *ps, struct strbuf *out);
	/* a built-in variable (arg0, args[index], probefunc when they differ
	 * in it ...) at the clause's probes L->site_probes; false: the
	 * defaults (the probes' common names, d_lower.c's) */
	bool (*builtin)(struct d_lower *L, struct strbuf *out, const char *name, const struct d_expr *index);
	/* -lv and args[]: the type of argument i of p as D names it, NULL
	 * past the last (NULL hook: none) */
	const char *(*arg_type)(const struct d_probe *p, int i);
	struct d_attrs attrs;
	const void *data;        /* the family's (a table family's table) */
	/* the site of a probe made without one (p->site NULL: made when
	 * used), NULL when it cannot be enabled after all */
	const char *(*site_of)(const struct d_probe *p);
	bool kernel_args;        /* args[i] are kernel values: args[0]->f_flags ... reads them */
	/* a kernel_args family's: the BTF type of args[i], 0 if unknown */
	uint32_t (*arg_btf_type)(const struct d_probe *p, int i);
};

/* the families (d_prov_*.c) */
extern const struct d_family d_fam_dtrace, d_fam_profile, d_fam_syscall, d_fam_proc, d_fam_sched,
	d_fam_io, d_fam_fbt, d_fam_rawtp, d_fam_pid, d_fam_usdt, d_fam_cpc, d_fam_lockstat;

/* ---- table families (d_prov_table.c) --------------------------------------------------
 * A provider whose probes are a fixed list, each on a tracepoint (or a
 * kernel function) of its own or sharing one under a guard: proc, sched,
 * io. args[i] are expressions at the site; a "psinfo_t *" or "lwpsinfo_t *"
 * argument is a task, whose members d_prov_psinfo.c translates. */
struct d_tprobe {
	const char *name;
	const char *site;
	const char *guard;       /* NULL: every firing of the site is this probe */
	const char *task;        /* the thread it fires for (on-cpu: the next), NULL: current */
	const char *args[6][2];  /* { D type, value } of args[0], args[1] ... */
};
struct d_ptable {
	const char *prov, *mod;
	const struct d_tprobe *probes;
	int n;
};
void d_table_match(const struct d_family *fam, const struct d_pdesc *d, d_probevec *out);
bool d_table_guard(const d_probevec *ps, struct strbuf *out);
bool d_table_builtin(struct d_lower *L, struct strbuf *out, const char *name, const struct d_expr *index);
const char *d_table_arg_type(const struct d_probe *p, int i);
#define D_TABLE_FAMILY(NAME, TABLE, ...) { .name = NAME, .match = d_table_match, .guard = d_table_guard, \
	.builtin = d_table_builtin, .arg_type = d_table_arg_type, .attrs = { __VA_ARGS__ }, .data = &TABLE }

/* ---- the kernel's BTF (d_prov_btf.c): fbt's and rawtp's parameters --------------- */
struct btf;
const struct btf *d_btf(void);
struct d_params {
	strvec names;            /* NULL: unnamed */
	strvec types;            /* as DTrace writes them: "struct file *" */
	char *ret;               /* the return type's, NULL: void */
	intvec type_ids;         /* the parameters' BTF types */
};
void d_btf_params(uint32_t proto, int first, struct d_params *out);
int d_btf_chain(uint32_t type, const char *const *names, int n, int *size, bool *sign);


/* psinfo_t and lwpsinfo_t members (d_prov_psinfo.c): the type of
 * args[i]->name when args[i] is of type type, or its value over a task */
struct d_type *d_psinfo_member_type(const char *type, const char *name);
bool d_psinfo_member(const char *type, const char *name, const char *task, struct strbuf *out);

/* ---- for the families ------------------------------------------------------------ */

/* Does d match these names? Each part of d a glob (DTrace's gmatch), an
 * empty part any. */
bool d_probe_matches(const struct d_pdesc *d, const char *prov, const char *mod, const char *func,
		     const char *name);
/* Does glob pattern pat ("" any) match s? */
bool d_glob(const char *pat, const char *s);
/* The probe of these names, made (with the next ID) if new; the names
 * must live as long as the catalog (they are not copied). */
struct d_probe *d_probe_get(const struct d_family *fam, const char *prov, const char *mod, const char *func,
			    const char *name, const char *site, long key);
/* A description is malformed for the family (a pid probe named neither
 * entry, return nor an offset): the clause's error instead of
 * D_PDESC_ZERO (the first one said) */
void d_provider_fail(const char *tag, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Every probe made so far, by ID (items[id - 1]) */
const d_probevec *d_provider_catalog(void);
/* The value of a string as a literal of cstap's language, appended */
void d_add_literal(struct strbuf *out, const char *s);

/* What the command line says of the traced process (-c, -p), for the
 * pid and USDT providers: its pid (0 when -c starts it: $target is
 * known only then), the command. */
struct d_target {
	long pid;
	const char *cmd;
};
void d_provider_set_target(long pid, const char *cmd);
const struct d_target *d_provider_target(void);

/* ---- for the checker, the lowering and the command line ------------------------- */

/* The probes d matches (appended), in ID order, each once */
void d_provider_match(const struct d_pdesc *d, d_probevec *out);

/* Match the clause's descriptions (once; kept for the lowering): a
 * description matching nothing is D_PDESC_ZERO unless -Z. Called by the
 * checker before the clause's predicate and body, as DTrace does. */
void d_provider_clause(struct d_sema *S, const struct d_clause *c);
/* The D type of args[i] (e: the DE_INDEX) or of args[i]->member (e: the
 * DE_ARROW) at the clause being checked, NULL when the provider does not
 * say (the checker's defaults) */
struct d_type *d_provider_arg_type(struct d_sema *S, const struct d_expr *e);
struct d_type *d_provider_member_type(struct d_sema *S, const struct d_expr *e);
/* The probes the program enables: each description's matches, summed
 * over the clauses ("matched N probes") */
int d_provider_matched(struct d_sema *S);

/* One site: a probe point and the clauses to run there, each with the
 * probes it has there. */
struct d_site_clause {
	const struct d_clause *clause;
	d_probevec probes;
};
struct d_site {
	const char *point;
	const struct d_family *fam;
	VEC(struct d_site_clause *) clauses;
};
typedef VEC(struct d_site *) d_sitevec;
/* The sites of the program's clauses, in the order of their first clause */
d_sitevec d_provider_sites(struct d_sema *S);
/* The guard of the clause at the site (appended), false if none is needed */
bool d_site_guard(const struct d_site *s, const struct d_site_clause *sc, struct strbuf *out);

/* The constants DTrace's library gives the providers' arguments (SIG*,
 * E*, CLD_*: d_prov_lib.c), for d_lib.c's d_lib_constant */
bool d_provider_constant(const char *name, int64_t *value);

/* -v with a program: its stability report (stdout), the least of its
 * probes' description attributes (from DTrace's default for one:
 * Unstable, Unstable, Common); its statements' taken as D's own
 * actions' (Stable, Stable, Common) */
void d_provider_stability(struct d_sema *S, const char *name);

/* -l: the probes the descriptions match, as DTrace lists them (-v: with
 * attributes and argument types); 0, or 1 when one matched nothing */
int d_provider_list(const struct d_pdesc *const *descs, int n, bool verbose);
/* -l of a program: its clauses' descriptions (NULL: every probe) */
int d_provider_list_program(const struct d_program *prog, bool verbose);

#endif
