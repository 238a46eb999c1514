/* d_lower.h - what the parts of the lowering share: the text being
 * written and the clause being lowered.
 *
 * The lowering writes cstap's own language (a SystemTap script over
 * cstap's tapsets), which passes 2-5 take as any script:
 *   D global x            global __d_g_x  (x[k] too: an array)
 *   self->x               global __d_s_x[tid()]
 *   this->x               a local of the probe (its clauses share it)
 *   @a[k] = count() ...   global __d_a_ID[k] <<< v (stats; no keys: [0])
 *   @a = quantize(v)      and __d_q_ID[k..., bucket] <<< incr
 *   clauses of one probe  one probe, each clause in order under its predicate
 */
#ifndef CSTAP_D_LOWER_H
#define CSTAP_D_LOWER_H

#include "d/d_provider.h"
#include "d/d_sema.h"

struct d_lower {
	struct d_sema *sema;
	struct strbuf globals;       /* global declarations */
	struct strbuf funcs;         /* helper functions the script needs */
	struct strbuf probes;        /* the probes */
	unsigned long long helpers;  /* which helper functions are written (bits) */
	const struct d_clause *clause;   /* being lowered */
	const struct d_pdesc *desc;      /* its (first) probe description */
	int indent;
	int temps;                   /* temporaries made so far */
	bool records;                /* the clause prints a record (not quiet) */
	bool multi_printa;           /* a printa of several aggregations */
	bool fill_used;              /* a clause counts its record's bytes (bufpolicy=fill) */
	bool vts_used;               /* the probe being lowered reads vtimestamp */
	bool spec_used;              /* speculations: their buffers are declared */
	bool in_end;                 /* lowering END's clauses: they run after exit() */
	/* providers (d_provider.h): the site being written, the clause's probes there */
	const struct d_site *site;
	const struct d_site_clause *site_clause;
	const d_probevec *site_probes;   /* the clause's probes at the site */
	unsigned prov_once;          /* what the families wrote once (their bits) */
	/* memory (d_lower_mem.c) */
	unsigned mem_helpers;        /* its helpers written (bits) */
	int memops;                  /* accesses that may fault, so far */
	int clause_memops;           /* memops when the clause began */
	int guards;                  /* "if (!__d_flt) {" open */
	bool in_errfn;               /* lowering ERROR's clauses as __d_ERROR() */
	bool error_fn;               /* __d_ERROR() is written */
	bool fault_report;           /* a clause reports faults: __d_report() */
	/* expressions already lowered into temporaries (hoisted out of actions) */
	const struct d_expr *subst[16];
	char *subst_name[16];
	int nsubst;
};

/* D's strsize unless set. A strsize below it cuts strings where they are
 * made (substr); at it or above, the runtime's string size cuts them (BPF:
 * 63 bytes, or strsize when the program needs longer ones: d_main.c) */
#define D_STRSIZE_DEFAULT 256

/* helper functions written once each, on first use (d_lower_fmt.c) */
enum d_helper {
	H_S8, H_S16, H_S32, H_U8, H_U16, H_U32, H_SUBSTR, H_INDEX, H_RINDEX, H_STRCHR,
	H_STRRCHR, H_STRSTR, H_TOUPPER, H_TOLOWER, H_BASENAME, H_DIRNAME, H_LLTOSTR,
	H_QBUCKET, H_LQBUCKET, H_LLQBUCKET, H_QROW, H_STRTOK, H_MOD, H_BSWAP, H_PREC, H_RAWDUMP, H_SPEC, H_FLOAT, H_PAD, H_KSYM, H_PC, H_RING,
	H_STRAT, H_CLEANPATH,
	H_COUNT   /* at most 64: L->helpers has a bit each */
};
_Static_assert(H_COUNT <= 64, "d_lower's helpers are bits of a 64-bit word");
void d_need(struct d_lower *L, enum d_helper h);

/* an expression as cstap's language: appended to out (d_lower.c) */
void d_lower_expr(struct d_lower *L, struct strbuf *out, const struct d_expr *e);
/* "    " times the current depth, then the printf-style line */
void d_line(struct d_lower *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* trace(e), printf(...) (d_lower_fmt.c) */
void d_lower_trace(struct d_lower *L, const struct d_expr *arg);
bool d_lower_trace_struct(struct d_lower *L, const struct d_expr *e);
void d_lower_printf(struct d_lower *L, const struct d_expr *call);
void d_lower_system(struct d_lower *L, const struct d_expr *call);
/* a D printf format as cstap's printf format (appended to out); nargs
 * gets the number of arguments it converts; aggfmt: %@ is allowed */
void d_format(struct d_lower *L, struct strbuf *out, const char *fmt, size_t len);

/* providers (d_provider.c): a built-in variable's value at the clause's
 * probes (false: the defaults of d_lower.c); the record line's
 * "FUNCTION:NAME" as a string expression */
bool d_provider_builtin(struct d_lower *L, struct strbuf *out, const char *name, const struct d_expr *index);
void d_provider_label(struct d_lower *L, struct strbuf *out);
/* args[i]->member of a translated argument (psinfo_t ...), false if not
 * one; the key of self-> variables (the thread the probe fires for) */
bool d_provider_member(struct d_lower *L, struct strbuf *out, const struct d_expr *e);
void d_provider_thread(struct d_lower *L, struct strbuf *out);

/* memory (d_lower_mem.c): is e a place in memory (*p, p[i], p->m, and
 * members and elements of those); its address; its value; a store of
 * value (cstap text) there */
bool d_mem_place(const struct d_expr *e);
void d_mem_addr(struct d_lower *L, struct strbuf *out, const struct d_expr *e);
void d_mem_read(struct d_lower *L, struct strbuf *out, const struct d_expr *e);
void d_mem_store(struct d_lower *L, struct strbuf *out, const struct d_expr *place, const char *value);
/* e as a string: a pointer's is the string it points at */
void d_lower_string(struct d_lower *L, struct strbuf *out, const struct d_expr *e);
/* the index k of a D array of n elements: k, or 0 and a fault */
void d_mem_index(struct d_lower *L, struct strbuf *out, const struct d_expr *k, int64_t n);
/* alloca() and bcopy(), false for other calls */
bool d_mem_call(struct d_lower *L, struct strbuf *out, const struct d_expr *e);
/* a clause's start (its scratch space emptied) and end (its fault
 * reported); after a statement that may fault, the rest under a guard
 * (d_mem_guard with memops before it), the guards closed down to a count */
void d_mem_clause_start(struct d_lower *L, const struct d_clause *c);
void d_mem_clause_end(struct d_lower *L, const struct d_clause *c);
void d_mem_guard(struct d_lower *L, int before);
void d_mem_unguard(struct d_lower *L, int guards);
void d_mem_globals(struct d_lower *L);

/* aggregations (d_lower_agg.c) */
void d_lower_aggregate(struct d_lower *L, const struct d_expr *assign);
void d_lower_printa(struct d_lower *L, const struct d_expr *call);
void d_lower_aggop(struct d_lower *L, const struct d_expr *call);   /* clear trunc normalize ... */
void d_lower_agg_globals(struct d_lower *L);
/* the exit-time print of the aggregations printa did not print */
void d_lower_agg_exit(struct d_lower *L);

#endif
