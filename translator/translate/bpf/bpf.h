/* bpf.h - the BPF backend (--runtime=bpf): the script lowered to eBPF
 * programs (unit.h), written as a bundle for stapbpf (doc/bpf-bundle.md). */
#ifndef CSTAP_BPF_H
#define CSTAP_BPF_H

#include "session.h"

/* The end of pass 2: the script lowered to BPF (unit.h), or NULL after
 * refusing what BPF cannot do (E_BPF_UNSUPPORTED). Pass 3 writes it
 * (bpf_bundle_write). */
struct bpf_unit;
struct bpf_unit *bpf_lower(struct session *s);

/* The BPF intrinsics (translate/bpf/intrinsics.c, doc/bpf-intrinsics.md):
 * the one of that name, or NULL; the i-th name in the table (NULL past its
 * end); does f's intrinsic read a string from kernel or user memory? */
struct bpf_intrinsic;
struct func;
const struct bpf_intrinsic *bpf_intrinsic_find(const char *name);
const char *bpf_intrinsic_name(size_t i);
bool bpf_intrinsic_reads_string(const struct func *f);
/* stringat(), strlen(), substr(): a loop of them goes where a string's bytes say */
bool bpf_intrinsic_scans_string(const struct func *f);

#endif
