/* d_funcs.h - D's actions, subroutines and aggregating functions: how
 * many arguments each takes and what it returns, for d_check.c. */
#ifndef CSTAP_D_FUNCS_H
#define CSTAP_D_FUNCS_H

enum d_fkind { DF_ACTION, DF_SUBR, DF_AGG };

/* what a call's value is */
enum d_fret { DR_VOID, DR_INT, DR_UINT, DR_STRING, DR_PTR };

struct d_func {
	const char *name;
	enum d_fkind kind;
	int min_args, max_args;  /* max -1: any number */
	enum d_fret ret;
	unsigned str_args;       /* bit i: argument i must be a string */
	unsigned int_args;       /* bit i: argument i must be an integer */
	int aggfn;               /* DF_AGG: its enum d_aggfn */
	bool destructive;        /* needs -w (#pragma D option destructive) */
};

/* name's entry, NULL if D has no such function */
const struct d_func *d_func_find(const char *name);

#endif
