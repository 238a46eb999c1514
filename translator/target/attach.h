/* attach.h - what the target kernel can attach BPF programs to: kprobes,
 * BPF trampolines (fentry, fexit), uprobes. For the running kernel it is
 * tried (the kprobe and uprobe PMUs, a trampoline loaded once); for
 * another (a guest's) its configuration says. -l and -L list only what
 * can attach (elaborate/listing.c).
 */
#ifndef CSTAP_TARGET_ATTACH_H
#define CSTAP_TARGET_ATTACH_H

#include "session.h"

/* Why the target kernel cannot attach a program of BPF attach kind (enum
 * bpf_attach_kind) on kernel function func (BA_FENTRY, BA_FEXIT: one that
 * BTF has; NULL for other kinds): static or session-lived text; NULL when
 * it can, or when it cannot be told (not root, no configuration). */
const char *bpf_attach_refused(struct session *s, int kind, const char *func);

#endif
