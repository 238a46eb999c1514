/* d_funcs.c - the table of D's functions (the prototypes d_check.c holds
 * calls to: DTrace's D_PROTO_LEN and D_PROTO_ARG errors come from it), as
 * DTrace's reference documents them (the Linux types where they differ:
 * struct mutex *, struct task_struct *). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "d/d_funcs.h"
#include "d/d_sema.h"

#define ACT(name, min, max, proto, destr, rec) { name, DF_ACTION, min, max, "void", proto, 0, destr, rec }
#define SUB(name, min, max, ret, proto) { name, DF_SUBR, min, max, ret, proto, 0, false, false }
#define AGG(name, min, max, proto, fn) { name, DF_AGG, min, max, "void", proto, fn, false, false }

static const struct d_func funcs[] = {
	/* actions */
	ACT("trace", 1, 1, "@", false, true),
	ACT("printf", 1, -1, "string,@...", false, true),
	ACT("printa", 1, -1, "@,@...", false, true),
	ACT("print", 1, 1, "void *", false, true),
	ACT("tracemem", 2, 3, "@,size_t,size_t", false, true),
	ACT("stack", 0, 1, "uint32_t", false, true),
	ACT("ustack", 0, 2, "uint32_t,uint32_t", false, true),
	ACT("jstack", 0, 2, "uint32_t,uint32_t", false, true),
	ACT("exit", 1, 1, "int", false, true),
	ACT("clear", 1, 1, "@agg", false, false),
	ACT("trunc", 1, 2, "@agg,uint64_t", false, false),
	ACT("normalize", 2, 2, "@agg,uint64_t", false, false),
	ACT("denormalize", 1, 1, "@agg", false, false),
	ACT("setopt", 1, 2, "string,string", false, false),
	ACT("speculate", 1, 1, "int", false, false),
	ACT("commit", 1, 1, "int", false, false),
	ACT("discard", 1, 1, "int", false, false),
	ACT("raise", 1, 1, "int", true, false),
	ACT("stop", 0, 0, "", true, false),
	ACT("system", 1, -1, "string,@...", true, true),
	ACT("chill", 1, 1, "int", true, false),
	ACT("breakpoint", 0, 0, "", true, false),
	ACT("panic", 0, 0, "", true, false),
	ACT("copyout", 3, 3, "void *,uintptr_t,size_t", true, false),
	ACT("copyoutstr", 3, 3, "string,uintptr_t,size_t", true, false),
	ACT("freopen", 1, -1, "string,@...", true, true),
	ACT("ftruncate", 0, 0, "", false, true),
	ACT("pcap", 2, 2, "void *,int", false, true),
	ACT("sym", 1, 1, "@", false, true),
	ACT("func", 1, 1, "@", false, true),
	ACT("mod", 1, 1, "@", false, true),
	ACT("usym", 1, 1, "@", false, true),
	ACT("ufunc", 1, 1, "@", false, true),
	ACT("umod", 1, 1, "@", false, true),
	ACT("uaddr", 1, 1, "@", false, true),
	/* subroutines */
	SUB("strlen", 1, 1, "size_t", "string"),
	SUB("strjoin", 2, 2, "string", "char *,char *"),
	SUB("substr", 2, 3, "string", "char *,int,int"),
	SUB("index", 2, 3, "int", "const char *,const char *,int"),
	SUB("rindex", 2, 3, "int", "const char *,const char *,int"),
	SUB("strchr", 2, 2, "string", "const char *,char"),
	SUB("strrchr", 2, 2, "string", "const char *,char"),
	SUB("strstr", 2, 2, "string", "const char *,const char *"),
	SUB("strtok", 2, 2, "string", "@,const char *"),
	SUB("toupper", 1, 1, "string", "const char *"),
	SUB("tolower", 1, 1, "string", "const char *"),
	SUB("basename", 1, 1, "string", "const char *"),
	SUB("dirname", 1, 1, "string", "const char *"),
	SUB("cleanpath", 1, 1, "string", "const char *"),
	SUB("lltostr", 1, 2, "string", "int64_t,int"),
	SUB("strtoll", 1, 2, "int64_t", "const char *,int"),
	SUB("copyinstr", 1, 2, "string", "uintptr_t,size_t"),
	SUB("copyin", 2, 2, "void *", "uintptr_t,size_t"),
	SUB("copyinto", 3, 3, "void", "uintptr_t,size_t,void *"),
	SUB("alloca", 1, 1, "void *", "size_t"),
	SUB("bcopy", 3, 3, "void", "void *,void *,size_t"),
	SUB("speculation", 0, 0, "int", ""),
	SUB("rand", 0, 0, "int", ""),
	SUB("progenyof", 1, 1, "int", "pid_t"),
	SUB("getmajor", 1, 1, "dev_t", "dev_t"),
	SUB("getminor", 1, 1, "dev_t", "dev_t"),
	SUB("htons", 1, 1, "uint16_t", "uint16_t"),
	SUB("htonl", 1, 1, "uint32_t", "uint32_t"),
	SUB("htonll", 1, 1, "uint64_t", "uint64_t"),
	SUB("ntohs", 1, 1, "uint16_t", "uint16_t"),
	SUB("ntohl", 1, 1, "uint32_t", "uint32_t"),
	SUB("ntohll", 1, 1, "uint64_t", "uint64_t"),
	SUB("inet_ntoa", 1, 1, "string", "@"),
	SUB("inet_ntoa6", 1, 2, "string", "struct in6_addr *,int"),
	SUB("inet_ntop", 2, 2, "string", "int,void *"),
	SUB("d_path", 1, 1, "string", "struct path *"),
	SUB("link_ntop", 2, 2, "string", "int,void *"),
	SUB("mutex_owned", 1, 1, "int", "struct mutex *"),
	SUB("mutex_owner", 1, 1, "struct task_struct *", "struct mutex *"),
	SUB("mutex_type_adaptive", 1, 1, "int", "struct mutex *"),
	SUB("mutex_type_spin", 1, 1, "int", "struct mutex *"),
	SUB("rw_read_held", 1, 1, "int", "@"),
	SUB("rw_write_held", 1, 1, "int", "@"),
	SUB("rw_iswriter", 1, 1, "int", "@"),
	SUB("getf", 1, 1, "void *", "int"),
	/* aggregating functions: the value any type (D_AGG_SCALAR is theirs) */
	AGG("count", 0, 0, "", DA_COUNT),
	AGG("sum", 1, 1, "@", DA_SUM),
	AGG("avg", 1, 1, "@", DA_AVG),
	AGG("min", 1, 1, "@", DA_MIN),
	AGG("max", 1, 1, "@", DA_MAX),
	AGG("stddev", 1, 1, "@", DA_STDDEV),
	AGG("quantize", 1, 2, "@,int64_t", DA_QUANTIZE),
	AGG("lquantize", 3, 5, "@,int,int,int,int64_t", DA_LQUANTIZE),
	AGG("llquantize", 5, 6, "@,int,int,int,int,int64_t", DA_LLQUANTIZE),
};

const struct d_func *d_func_find(const char *name)
{
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (!strcmp(funcs[i].name, name))
			return &funcs[i];
	return NULL;
}

const char *d_func_param(const struct d_func *f, int i, char *buf, int size)
{
	const char *p = f->proto, *end;
	int n = 0;

	while (*p) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		if (n == i || (!*end && end - p > 3 && !strcmp(end - 3, "..."))) {
			int len = (int)(end - p);
			if (len > 3 && !strcmp(end - 3, "..."))
				len -= 3;
			snprintf(buf, (size_t)size, "%.*s", len, p);
			return buf;
		}
		if (!*end)
			break;
		p = end + 1;
		n++;
	}
	return NULL;
}
