/* provider.h - probe families behind one interface.
 *
 * Each probe family (begin/end, timer, kprobe, kernel.function, tracepoint
 * ...) is one file in translator/probes/ that fills one struct provider;
 * providers.c lists them. Core code knows families only through these
 * hooks (doc/architecture.md shows who calls which):
 *
 *   pass 2   derive        (elaborate.c) a probe point -> derived probes
 *            tvar_scope    (target_exprs.c) where $target variables live
 *            tvar_code     (target_exprs.c) those that are not DWARF
 *            is_return     (target_exprs.c) @entry without DWARF
 *            without_dwarf (target_exprs.c) on code no DWARF describes: $$vars empty
 *   -L       list_vars     (listing.c) " $name:type ..." of a probe
 *   pass 3   runtime_header, probe_type (module.c) what the module includes;
 *                          the probe_type() of each probe
 *            handler       (module.c) the C signature of dp_N and how it
 *                          fills the context from its arguments
 *            emit_decls, emit_register, emit_unregister (module.c)
 *            shows_origin  (module.c, -t) the written point beside pp()
 *   pass 5   guest_modules (run.c) kernel modules the QEMU guest must load
 *   --runtime=bpf (translate/bpf/)
 *            bpf_attach    where dp's program attaches: a struct bpf_attach
 *                          (runtime/bpf_proto.h, shared with stapbpf)
 *            bpf_entry_attach  the same for a .return's values at entry
 *            bpf_context   what the program may ask of its context
 *
 * A family keeps what it knows of one derived probe behind dp->data (its
 * own struct), and what it knows of the whole run in its provider state
 * (provider_state()): no family keeps file-static tables.
 */
#ifndef CSTAP_PROVIDER_H
#define CSTAP_PROVIDER_H

#include "ast.h"
#include "lowered.h"
#include "session.h"

#include "probe_kind.h"	/* runtime/: enum stp_probe_kind, when a probe runs */

struct provider;
struct dw_scope;
struct bpf_attach;

/* --runtime=bpf: what the BPF backend may ask of a probe's context, as its
 * family answers (the bpf_context hook). */
struct bpf_context {
	bool user;              /* the registers are a user process's (a process probe) */
	bool reg_args;          /* __reg_arg(): the probed function's arguments are in
				 * the context's pt_regs and above its stack pointer */
	bool kretprobe;         /* a kernel function's return through a kretprobe: its
				 * backtrace starts at the kretprobe's trampoline */
	int ip_back;            /* addr(): the context's ip minus ip_back is the probed
				 * address (a kprobe's ip is past its breakpoint); -1: none */
	const char *module;     /* probemod(): module_len bytes of the module's name
				 * ("kernel"), or NULL: not known here */
	size_t module_len;
	bool bias_at_entry;     /* a process probe's .return: the load bias of its file
				 * is read by its entry program */
	uint64_t vaddr;         /* a process probe's link-time address: the context's ip
				 * minus it is the file's load bias */
	uint64_t entry_vaddr;   /* the same where its entry program runs */
	int mark_args;          /* an SDT marker's arguments ($$parms, $argN through
				 * tvar_code); -1: no marker */
	const char *func;       /* probefunc(): the kernel function whose entry or
				 * return the probe is (not an inlined copy), or NULL */
	int trampoline;         /* a BPF trampoline's context (u64 args[]: the
				 * function's arguments, then its return value):
				 * 1 at entry (fentry), 2 at return (fexit); 0 not one */
};

/* One concrete probe derived from a script probe's probe point. Several
 * derived probes may share one body (comma lists, wildcards). */
struct derived_probe {
	struct probe *probe;            /* the script probe: body and locals */
	struct probe_point *point;      /* the point it came from */
	const struct provider *prov;
	void *data;                     /* the family's own record of this probe */
	char *pp;                       /* canonical text for pp(): "timer.ms(100)" */
	char *list_pp;                  /* what -l lists, when not pp (a .callee probe's point) */
	enum stp_probe_kind kind;
	int index;                      /* position in s->probes */
	int body;                       /* its body function body_N (pass 2 analysis) */
	bool own_body;                  /* body_N is its alone: its target variables differ */
	bool has_entry;                 /* .return probe saving values at entry (@entry) */
	funcvec ctx_funcs;              /* the functions reading its $target variables that
					 * its body calls (context_funcs.c; set by target_exprs.c) */
	unsigned char *lock_modes;      /* per global, as s->globals: 0 none, 1 read, 2|3 write
					 * lock, through called functions too (pass 2 analysis) */
	struct derived_probe *sharer;   /* pass 3: the probe whose dh_N runs this one's body
					 * (module.c's gen_handlers), or NULL */
};

/* The C of a derived probe's handler dp_N, as its family calls it. */
struct handler_abi {
	const char *params;     /* "struct pt_regs *regs" */
	/* statements after the context c is had: fill c->regs (and locals
	 * they need) from the parameters; "%d" is the probe's index */
	const char *fill;
	/* Or, when the signature differs per probe (a tracepoint's arity):
	 * append dp's parameters to params and its filling statements to
	 * fill; params and fill above are then unused. */
	void (*gen)(const struct derived_probe *dp, struct strbuf *params, struct strbuf *fill);
};

struct provider {
	const char *name;
	/* runtime/NAME.h: the kernel side of the family, included by modules
	 * that have its probes (NULL: none needed). */
	const char *runtime_header;
	/* Pass 2: try to derive probes from pp (of script probe p). Returns 1
	 * if this provider took the point (probes added with
	 * derived_probe_add), 0 if the point is not its kind, -1 after
	 * reporting an error. */
	int (*derive)(struct session *s, struct probe *p, struct probe_point *pp);
	/* Pass 2: the DWARF scope dp's $target variables, $$parms and @entry
	 * are resolved in, or NULL (then they are unavailable: an error).
	 * No hook: the family has no target variables. */
	const struct dw_scope *(*tvar_scope)(const struct derived_probe *dp);
	/* Pass 2: dp's target variables that are not DWARF (an SDT marker's
	 * $argN, $$name, $$parms): 1 with *value or (pretty printed) *pretty,
	 * in the lowered form (lowered.h); 2
	 * the same, read when a return probe's function was entered (its
	 * entry handler); -1 with *why (allocated); 0: not one of them (then
	 * tvar_scope's DWARF).
	 * No hook: all are DWARF. */
	int (*tvar_code)(struct session *s, const struct derived_probe *dp, const struct expr *e,
			 const struct lx **value, lpvec **pretty, char **why);
	/* Pass 2: is dp a return probe whose family can evaluate @entry(expr)
	 * when the function is entered (a kretprobe's entry handler)? Asked
	 * when dp has no tvar_scope (with one, the scope says). */
	bool (*is_return)(const struct derived_probe *dp);
	/* Pass 2: is dp on code its DWARF does not describe (a .cold part of
	 * a function)? Then $$vars, $$parms and $$locals are empty, as in
	 * SystemTap, and other target variables an error. */
	bool (*without_dwarf)(const struct derived_probe *dp);
	/* -L: append " $name:type" for each variable dp can read. */
	void (*list_vars)(struct session *s, const struct derived_probe *dp, struct strbuf *out);
	/* Pass 3: the handler's signature; NULL: (struct pt_regs *regs),
	 * called from a kprobe, a timer or the like. */
	const struct handler_abi *handler;
	/* Pass 3: the family's table calls a probe that shares its handler
	 * through the sharer's dh_N(&stp_probes[index], regs) itself (dp->sharer),
	 * so no dp_N is written for it: a wildcard's tens of thousands of
	 * three-line dp_N took the compiler most of a minute. */
	bool calls_shared;
	/* Pass 3: file-scope declarations for this provider's probes (after
	 * every handler dp_N). */
	void (*emit_decls)(struct session *s, struct strbuf *out);
	/* Pass 3: statements in stp_script_start(), in table order; on
	 * failure they `return rc;` after setting rc. */
	void (*emit_register)(struct session *s, struct strbuf *out);
	/* Pass 3: statements in stp_script_stop(), in reverse table order. */
	void (*emit_unregister)(struct session *s, struct strbuf *out);
	/* probe_type(): how SystemTap names dp's low-level handler type
	 * ("kprobe", "kretprobe", "hrtimer" ...); or, the same for every
	 * probe of the family, type_name. */
	const char *(*probe_type)(const struct derived_probe *dp);
	const char *type_name;
	/* -t: pp() is resolved from the point as written; show both. */
	bool shows_origin;
	/* Pass 3: does dp fire in interrupt context, as a matter of course (an
	 * interrupt handler's tracepoint)? A module with such a probe runs
	 * every handler with interrupts off, as SystemTap does, so that these
	 * are delayed rather than skipped when they interrupt another handler. */
	bool (*in_irq)(const struct derived_probe *dp);
	/* -p2: append a note after dp's pp() on where it sits (SystemTap's
	 * "pc=..." comment of a process probe); NULL: none. */
	void (*dump_note)(const struct derived_probe *dp, struct strbuf *out);
	/* Pass 5: append the kernel modules (each once) that this family's
	 * probes are in: the QEMU guest loads them before the run. */
	void (*guest_modules)(struct session *s, strvec *out);
	/* Pass 2: the family's point names up to the component taking the
	 * argument ("kernel.function()", "timer.ms()" ...: "()" when it needs
	 * one; NULL-terminated), that a point with '**' is matched against
	 * (elaborate/doubleglob.c). */
	const char *const *shapes;
	/* --runtime=bpf: where dp's program attaches (runtime/bpf_proto.h's
	 * struct bpf_attach: its kind and the kind's fields, strings that
	 * live as long as dp; at->optional when failing to attach it is no
	 * error, as a wildcard's function the kernel refuses), or -1 with
	 * *why (static text) when dp has none. No hook: the family has no
	 * BPF form (E_BPF_UNSUPPORTED). Adding a BPF attach type is this hook
	 * plus stapbpf's case for the kind. */
	int (*bpf_attach)(const struct derived_probe *dp, struct bpf_attach *at, const char **why);
	/* --runtime=bpf: a cheaper attach point than bpf_attach's, a BPF
	 * trampoline (fentry, fexit) on the kernel function dp probes the
	 * entry or return of: 0 with *at, or -1 (none). The backend tries the
	 * body there (the context is the function's arguments, then its
	 * return value) and keeps bpf_attach's when it cannot. */
	int (*bpf_trampoline)(struct session *s, const struct derived_probe *dp, struct bpf_attach *at);
	/* --runtime=bpf, a .return probe reading values at entry (@entry,
	 * $parameters, a file's load bias): where the program that reads
	 * them attaches, and where the call's frame address is there (DWARF
	 * register *reg + *off) and at the return (the stack pointer +
	 * *ret_off): the two programs meet on it. -1 with *why (static text)
	 * when dp has none. */
	int (*bpf_entry_attach)(struct session *s, const struct derived_probe *dp, struct bpf_attach *at,
				int *reg, int64_t *off, int64_t *ret_off, const char **why);
	/* --runtime=bpf: what dp's program may ask of its context (its
	 * registers, addr()'s adjustment, its module ...), filled over
	 * bpf_context_of()'s defaults. No hook: the defaults, a context
	 * with none of them. */
	void (*bpf_context)(const struct derived_probe *dp, struct bpf_context *c);
	/* Pass 2: does dp take an entry of the kernel's kprobe table (a
	 * kprobe or kretprobe, not a site on the module's own ftrace_ops)?
	 * No hook: none of the family's probes do. */
	bool (*takes_kprobe)(const struct session *s, const struct derived_probe *dp);
	/* Pass 2, @perf("NAME"): the index of the family's counter NAME (a
	 * perf....counter("NAME") probe), or -1. No hook: no counters. */
	int (*counter_index)(struct session *s, const char *name);
	/* Pass 2: may dp read @perf expression e, whose counter (e->num) is
	 * the family's? If not, reported. */
	bool (*counter_read_allowed)(struct session *s, const struct derived_probe *dp, const struct expr *e);
	/* begin(N), end(N), error(N): N, the order they run in (0 by default). */
	int64_t (*probe_order)(const struct derived_probe *dp);
	/* Pass 2: a module for unprivileged users (--privilege=stapusr or
	 * stapsys) may have this family's probes (their handlers run only in
	 * the user's own processes, or touch nothing of anyone's). */
	bool unprivileged;
};

extern const struct provider *const providers[];

/* The probes whose bodies s's derived probes run, from derived probe *i
 * on, each once where derived probes of one probe follow each other (as
 * derivation adds them); *i moves past it; NULL at the end:
 *   for (int i = 0; (p = probe_bodies_next(s, &i));) */
struct probe *probe_bodies_next(const struct session *s, int *i);

struct derived_probe *derived_probe_add(struct session *s, struct probe *p,
					struct probe_point *pp,
					const struct provider *prov, enum stp_probe_kind kind);
/* --runtime=bpf: dp's context (dp NULL, or no hook: none of it: ip_back and
 * mark_args -1, the rest 0). */
void bpf_context_of(const struct derived_probe *dp, struct bpf_context *c);
/* probe_type(): the low-level handler type of dp ("kprobe", "hrtimer" ...). */
const char *probe_type_name(const struct derived_probe *dp);
/* How many derived probes the family has in this run. */
int provider_probes(const struct session *s, const struct provider *prov);
/* The family's state for this run: size zeroed bytes on first use. */
void *provider_state(struct session *s, const struct provider *prov, size_t size);

/* A context variable of a family that is not DWARF ($value, $verdict ...):
 * read with the tapset function get, written with set (NULL: read only,
 * assigning it is the error read_only) or appended to with append (.=). */
struct ctx_var {
	const char *name;
	const char *get, *set, *append;
	bool guru;                /* writing it needs -g */
	const char *read_only;
	const char *write_only;   /* get NULL: why it cannot be read */
};
/* The uses of vars in body become calls of their functions (ctxvars.c);
 * guru_reported (or NULL) remembers the write last reported. */
void ctx_vars_rewrite(struct session *s, struct stmt *body, const struct ctx_var *vars, int n,
		      struct srcpos *guru_reported);

/* @perf("NAME"): the index of the counter NAME, asked of the families with
 * counters (counter_index), or -1. */
int counter_index(struct session *s, const char *name);
/* May dp read @perf expression e? Each family with counters is asked
 * (counter_read_allowed); a refusal is reported. */
bool counter_read_allowed(struct session *s, const struct derived_probe *dp, const struct expr *e);

/* Helpers for derive(): component i's name / literal argument. */
bool pp_comp_is(const struct probe_point *pp, int i, const char *name);
bool pp_comp_num(const struct probe_point *pp, int i, int64_t *out);
/* Canonical text of a probe point, as pp() prints it. */
char *pp_text(const struct probe_point *pp);

#endif
