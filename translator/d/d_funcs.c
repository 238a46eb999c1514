/* d_funcs.c - the table of D's functions (the prototypes d_check.c holds
 * calls to: DTrace's D_PROTO_LEN and D_PROTO_ARG errors come from it). */
#include <stdbool.h>
#include <string.h>

#include "d/d_funcs.h"
#include "d/d_sema.h"

#define S(i) (1u << (i))

static const struct d_func funcs[] = {
	/* actions */
	{ "trace", DF_ACTION, 1, 1, DR_VOID, 0, 0, 0, false },
	{ "printf", DF_ACTION, 1, -1, DR_VOID, S(0), 0, 0, false },
	{ "printa", DF_ACTION, 1, -1, DR_VOID, 0, 0, 0, false },
	{ "print", DF_ACTION, 1, 1, DR_VOID, 0, 0, 0, false },
	{ "tracemem", DF_ACTION, 2, 3, DR_VOID, 0, S(1) | S(2), 0, false },
	{ "stack", DF_ACTION, 0, 1, DR_VOID, 0, S(0), 0, false },
	{ "ustack", DF_ACTION, 0, 2, DR_VOID, 0, S(0) | S(1), 0, false },
	{ "jstack", DF_ACTION, 0, 2, DR_VOID, 0, S(0) | S(1), 0, false },
	{ "exit", DF_ACTION, 1, 1, DR_VOID, 0, S(0), 0, false },
	{ "clear", DF_ACTION, 1, 1, DR_VOID, 0, 0, 0, false },
	{ "trunc", DF_ACTION, 1, 2, DR_VOID, 0, S(1), 0, false },
	{ "normalize", DF_ACTION, 2, 2, DR_VOID, 0, S(1), 0, false },
	{ "denormalize", DF_ACTION, 1, 1, DR_VOID, 0, 0, 0, false },
	{ "setopt", DF_ACTION, 1, 2, DR_VOID, S(0) | S(1), 0, 0, false },
	{ "speculate", DF_ACTION, 1, 1, DR_VOID, 0, S(0), 0, false },
	{ "commit", DF_ACTION, 1, 1, DR_VOID, 0, S(0), 0, false },
	{ "discard", DF_ACTION, 1, 1, DR_VOID, 0, S(0), 0, false },
	{ "raise", DF_ACTION, 1, 1, DR_VOID, 0, S(0), 0, true },
	{ "stop", DF_ACTION, 0, 0, DR_VOID, 0, 0, 0, true },
	{ "system", DF_ACTION, 1, -1, DR_VOID, S(0), 0, 0, true },
	{ "chill", DF_ACTION, 1, 1, DR_VOID, 0, S(0), 0, true },
	{ "breakpoint", DF_ACTION, 0, 0, DR_VOID, 0, 0, 0, true },
	{ "panic", DF_ACTION, 0, 0, DR_VOID, 0, 0, 0, true },
	{ "copyout", DF_ACTION, 3, 3, DR_VOID, 0, S(2), 0, true },
	{ "copyoutstr", DF_ACTION, 3, 3, DR_VOID, S(0), S(2), 0, true },
	{ "freopen", DF_ACTION, 1, -1, DR_VOID, S(0), 0, 0, true },
	{ "ftruncate", DF_ACTION, 0, 0, DR_VOID, 0, 0, 0, false },
	{ "pcap", DF_ACTION, 2, 2, DR_VOID, 0, 0, 0, false },
	{ "sym", DF_ACTION, 1, 1, DR_VOID, 0, 0, 0, false },
	{ "func", DF_ACTION, 1, 1, DR_VOID, 0, 0, 0, false },
	{ "mod", DF_ACTION, 1, 1, DR_VOID, 0, 0, 0, false },
	{ "usym", DF_ACTION, 1, 1, DR_VOID, 0, 0, 0, false },
	{ "ufunc", DF_ACTION, 1, 1, DR_VOID, 0, 0, 0, false },
	{ "umod", DF_ACTION, 1, 1, DR_VOID, 0, 0, 0, false },
	{ "uaddr", DF_ACTION, 1, 1, DR_VOID, 0, 0, 0, false },
	/* subroutines */
	{ "strlen", DF_SUBR, 1, 1, DR_UINT, S(0), 0, 0, false },
	{ "strjoin", DF_SUBR, 2, 2, DR_STRING, S(0) | S(1), 0, 0, false },
	{ "substr", DF_SUBR, 2, 3, DR_STRING, S(0), S(1) | S(2), 0, false },
	{ "index", DF_SUBR, 2, 3, DR_INT, S(0) | S(1), S(2), 0, false },
	{ "rindex", DF_SUBR, 2, 3, DR_INT, S(0) | S(1), S(2), 0, false },
	{ "strchr", DF_SUBR, 2, 2, DR_STRING, S(0), S(1), 0, false },
	{ "strrchr", DF_SUBR, 2, 2, DR_STRING, S(0), S(1), 0, false },
	{ "strstr", DF_SUBR, 2, 2, DR_STRING, S(0) | S(1), 0, 0, false },
	{ "strtok", DF_SUBR, 2, 2, DR_STRING, S(1), 0, 0, false },
	{ "toupper", DF_SUBR, 1, 1, DR_STRING, S(0), 0, 0, false },
	{ "tolower", DF_SUBR, 1, 1, DR_STRING, S(0), 0, 0, false },
	{ "basename", DF_SUBR, 1, 1, DR_STRING, S(0), 0, 0, false },
	{ "dirname", DF_SUBR, 1, 1, DR_STRING, S(0), 0, 0, false },
	{ "cleanpath", DF_SUBR, 1, 1, DR_STRING, S(0), 0, 0, false },
	{ "lltostr", DF_SUBR, 1, 2, DR_STRING, 0, S(0) | S(1), 0, false },
	{ "strtoll", DF_SUBR, 1, 2, DR_INT, S(0), S(1), 0, false },
	{ "copyinstr", DF_SUBR, 1, 2, DR_STRING, 0, S(0) | S(1), 0, false },
	{ "copyin", DF_SUBR, 2, 2, DR_PTR, 0, S(0) | S(1), 0, false },
	{ "copyinto", DF_SUBR, 3, 3, DR_VOID, 0, S(0) | S(1), 0, false },
	{ "alloca", DF_SUBR, 1, 1, DR_PTR, 0, S(0), 0, false },
	{ "bcopy", DF_SUBR, 3, 3, DR_VOID, 0, S(2), 0, false },
	{ "speculation", DF_SUBR, 0, 0, DR_INT, 0, 0, 0, false },
	{ "rand", DF_SUBR, 0, 0, DR_INT, 0, 0, 0, false },
	{ "progenyof", DF_SUBR, 1, 1, DR_INT, 0, S(0), 0, false },
	{ "getmajor", DF_SUBR, 1, 1, DR_UINT, 0, S(0), 0, false },
	{ "getminor", DF_SUBR, 1, 1, DR_UINT, 0, S(0), 0, false },
	{ "htons", DF_SUBR, 1, 1, DR_UINT, 0, S(0), 0, false },
	{ "htonl", DF_SUBR, 1, 1, DR_UINT, 0, S(0), 0, false },
	{ "htonll", DF_SUBR, 1, 1, DR_UINT, 0, S(0), 0, false },
	{ "ntohs", DF_SUBR, 1, 1, DR_UINT, 0, S(0), 0, false },
	{ "ntohl", DF_SUBR, 1, 1, DR_UINT, 0, S(0), 0, false },
	{ "ntohll", DF_SUBR, 1, 1, DR_UINT, 0, S(0), 0, false },
	{ "inet_ntoa", DF_SUBR, 1, 1, DR_STRING, 0, 0, 0, false },
	{ "inet_ntoa6", DF_SUBR, 1, 2, DR_STRING, 0, 0, 0, false },
	{ "inet_ntop", DF_SUBR, 2, 2, DR_STRING, 0, S(0), 0, false },
	{ "d_path", DF_SUBR, 1, 1, DR_STRING, 0, 0, 0, false },
	{ "link_ntop", DF_SUBR, 2, 2, DR_STRING, 0, S(0), 0, false },
	{ "mutex_owned", DF_SUBR, 1, 1, DR_INT, 0, 0, 0, false },
	{ "mutex_owner", DF_SUBR, 1, 1, DR_PTR, 0, 0, 0, false },
	{ "mutex_type_adaptive", DF_SUBR, 1, 1, DR_INT, 0, 0, 0, false },
	{ "mutex_type_spin", DF_SUBR, 1, 1, DR_INT, 0, 0, 0, false },
	{ "rw_read_held", DF_SUBR, 1, 1, DR_INT, 0, 0, 0, false },
	{ "rw_write_held", DF_SUBR, 1, 1, DR_INT, 0, 0, 0, false },
	{ "rw_iswriter", DF_SUBR, 1, 1, DR_INT, 0, 0, 0, false },
	{ "getf", DF_SUBR, 1, 1, DR_PTR, 0, S(0), 0, false },
	/* aggregating functions */
	{ "count", DF_AGG, 0, 0, DR_INT, 0, 0, DA_COUNT, false },
	{ "sum", DF_AGG, 1, 1, DR_INT, 0, S(0), DA_SUM, false },
	{ "avg", DF_AGG, 1, 1, DR_INT, 0, S(0), DA_AVG, false },
	{ "min", DF_AGG, 1, 1, DR_INT, 0, S(0), DA_MIN, false },
	{ "max", DF_AGG, 1, 1, DR_INT, 0, S(0), DA_MAX, false },
	{ "stddev", DF_AGG, 1, 1, DR_INT, 0, S(0), DA_STDDEV, false },
	{ "quantize", DF_AGG, 1, 2, DR_INT, 0, S(0) | S(1), DA_QUANTIZE, false },
	{ "lquantize", DF_AGG, 3, 5, DR_INT, 0, S(0) | S(1) | S(2) | S(3) | S(4), DA_LQUANTIZE, false },
	{ "llquantize", DF_AGG, 5, 6, DR_INT, 0, S(0) | S(1) | S(2) | S(3) | S(4) | S(5), DA_LLQUANTIZE, false },
};

const struct d_func *d_func_find(const char *name)
{
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (!strcmp(funcs[i].name, name))
			return &funcs[i];
	return NULL;
}
