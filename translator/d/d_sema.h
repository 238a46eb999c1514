/* d_sema.h - what d_check.c learns of a D program, for d_lower.c.
 *
 * Every variable the program names (globals, self->, this->, associative
 * arrays, aggregations) with its D type, the aggregating function of each
 * aggregation with its constant parameters, and the options the program
 * and the command line set.
 */
#ifndef CSTAP_D_SEMA_H
#define CSTAP_D_SEMA_H

#include "d/d_ast.h"
#include "d/d_diag.h"

enum d_vkind { DV_GLOBAL, DV_SELF, DV_THIS, DV_AGG };

enum d_aggfn {
	DA_NONE, DA_COUNT, DA_SUM, DA_AVG, DA_MIN, DA_MAX, DA_STDDEV,
	DA_QUANTIZE, DA_LQUANTIZE, DA_LLQUANTIZE,
};

#define D_MAXKEYS 8

struct d_var {
	char *name;              /* as written: "x", "@a", "@" */
	enum d_vkind kind;
	struct d_type *type;     /* value type (an aggregation: its function's) */
	bool assoc;              /* x[k...] */
	int nkeys;               /* assoc or aggregation keys, -1 unknown yet */
	struct d_type *keys[D_MAXKEYS];
	int id;                  /* its number in the lowered names */
	/* aggregations */
	enum d_aggfn fn;
	int64_t lq_base, lq_limit, lq_step;          /* lquantize */
	int64_t llq_factor, llq_low, llq_high, llq_steps; /* llquantize */
	bool printed;            /* printa names it: not printed again at exit */
	/* checker's */
	struct d_decl *decl;     /* its declaration, NULL if made by assignment */
	int alloca;              /* a pointer variable: 1 holds alloca()'d memory,
				  * -1 other memory, 0 not yet known */
};

/* The options a program runs with (#pragma D option, -x, -q ...). */
struct d_opts {
	bool quiet;
	bool destructive;
	bool errtags;
	bool flowindent;
	bool rawbytes;
	int64_t strsize;
	int64_t dynvarsize;       /* bytes of dynamic variables (self->, assocs) */
	int64_t ustackframes;     /* ustack()'s frames (0: all) */
	int64_t maxframes;        /* the frames of any stack at most (0: no limit) */
	int64_t cpu;              /* -xcpu: the CPU probes fire on (-1: any) */
	int64_t nspec;           /* speculation buffers (1) */
	int64_t scratchsize;     /* alloca()'s space (0: the default) */
	bool aggsortkey, aggsortrev;
	int aggsortpos;
	bool aggsortkeypos_set;
	bool zdefs;              /* -Z: descriptions matching nothing are no error */
	bool defaultargs;        /* $N past the arguments is 0 or "" */
	bool argref;             /* arguments no $N names are no error */
	bool fill;               /* bufpolicy=fill: tracing stops when a CPU's buffer is full */
	bool ring;               /* bufpolicy=ring: the last bufsize bytes of records are kept */
	int64_t bufsize;         /* bytes a CPU's buffer holds (bufsize=N[kmg]), 0: unset */
};

struct d_sema {
	struct d_diag *dg;
	struct d_program *prog;
	struct d_types *types;
	struct d_opts *opts;
	VEC(struct d_var *) vars;
	int nargs;               /* macro arguments given ($1..$nargs) */
	char **args;
	long target_pid;         /* $target, 0: none */
	size_t longest_string;   /* the longest string literal of the lowered script's values */
};

/* Give every expression its type and every name its variable; report the
 * first error (DTrace's D_* tags) through sema->dg. 0 when clean. */
int d_check(struct d_sema *sema);
/* The variable of name and kind, NULL if none yet. */
struct d_var *d_var_find(struct d_sema *sema, enum d_vkind kind, const char *name);

/* D's basic types (one shared node each) and what kind a type is */
struct d_type *d_ty_int(int size, bool sign);
struct d_type *d_ty_string(void);
struct d_type *d_ty_void(void);
bool d_is_int(const struct d_type *t);
bool d_is_string(const struct d_type *t);
bool d_is_ptr(const struct d_type *t);
/* execname, pid, arg0 ... */
bool d_is_builtin(const char *name);

/* The lowered SystemTap script: cstap's own language over its tapsets,
 * which passes 2-5 take as they take any script. */
char *d_lower(struct d_sema *sema);

#endif
