/* kfunc_btf.h - kernel.function points through BTF when the kernel has no
 * DWARF debuginfo (kfunc_btf.c), for the kernel.function family (dwarf.c). */
#ifndef CSTAP_KFUNC_BTF_H
#define CSTAP_KFUNC_BTF_H

#include "provider.h"

/* Probes on the kernel functions BTF has matching pat (a name or a
 * wildcard), registered by name; ret: .return (maxactive: its
 * .maxactive(N)). no_dwarf says why DWARF is missing, for the error when
 * there is no BTF either. 1, or -1 after an error. */
int kfunc_btf_derive(struct session *s, struct probe *p, struct probe_point *pp, int fn_comp, const char *pat,
		     bool ret, int maxactive, const char *no_dwarf);

/* The parameters of a function BTF describes (proto, func its name for
 * messages), from parameter first on (1: a tracepoint's, whose __data the
 * script does not see), read at its entry as the calling convention places
 * them: for the tracepoint family, whose probes get them so. */
struct btf;
struct kfunc_btf;
struct kfunc_btf *kfunc_btf_params(const struct btf *b, const char *func, uint32_t proto, int first);
/* provider.h's tvar_code and list_vars over them */
int kfunc_btf_tvar(struct session *s, const struct kfunc_btf *k, const struct expr *e, const struct lx **value,
		   lpvec **pretty, char **why);
void kfunc_btf_list_vars(struct session *s, const struct kfunc_btf *k, struct strbuf *out);

#endif
