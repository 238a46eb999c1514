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

#endif
