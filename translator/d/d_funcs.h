/* d_funcs.h - D's actions, subroutines and aggregating functions: their
 * prototypes (how many arguments of which types, what they return) and
 * what kind of action each is, for d_check.c. */
#ifndef CSTAP_D_FUNCS_H
#define CSTAP_D_FUNCS_H

#include <stdbool.h>

enum d_fkind { DF_ACTION, DF_SUBR, DF_AGG };

struct d_func {
	const char *name;
	enum d_fkind kind;
	int min_args, max_args;  /* max -1: any number */
	const char *ret;         /* the type of its value, "void" for none */
	const char *proto;       /* the parameters' types as DTrace names them,
				  * comma-separated: "@" any type, "@agg" an
				  * aggregation; past the last, "...": its type again */
	int aggfn;               /* DF_AGG: its enum d_aggfn */
	bool destructive;        /* needs -w (#pragma D option destructive) */
	bool records;            /* a data-recording action (DTrace's speculation
				  * rules: what may follow speculate() and commit()) */
};

/* name's entry, NULL if D has no such function */
const struct d_func *d_func_find(const char *name);
/* the i-th parameter's type name ("@", "int", "void *" ...), NULL past the last */
const char *d_func_param(const struct d_func *f, int i, char *buf, int size);

#endif
