/* bpf.h - the BPF backend (--runtime=bpf): the script as a bundle of eBPF
 * programs for stapbpf (doc/bpf-bundle.md). */
#ifndef CSTAP_BPF_H
#define CSTAP_BPF_H

#include "session.h"

/* At the end of pass 2: s->bpf_bundle, or -1 after errors (what BPF cannot
 * do, tagged E_BPF_UNSUPPORTED). */
int bpf_translate(struct session *s);

#endif
