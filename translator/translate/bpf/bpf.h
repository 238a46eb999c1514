/* bpf.h - the BPF backend (--runtime=bpf): the script as a bundle of eBPF
 * programs for stapbpf (doc/bpf-bundle.md). */
#ifndef CSTAP_BPF_H
#define CSTAP_BPF_H

#include "session.h"

/* At the end of pass 2: s->bpf_bundle, or -1 after errors (what BPF cannot
 * do, tagged E_BPF_UNSUPPORTED). */
int bpf_translate(struct session *s);

/* The BPF intrinsics (translate/bpf/intrinsics.c, doc/bpf-intrinsics.md):
 * the one of that name, or NULL; the i-th name in the table (NULL past its
 * end); does f's intrinsic read a string from kernel or user memory? */
struct bpf_intrinsic;
struct func;
const struct bpf_intrinsic *bpf_intrinsic_find(const char *name);
const char *bpf_intrinsic_name(size_t i);
bool bpf_intrinsic_reads_string(const struct func *f);

#endif
