/* kpsites.h - kprobe/kretprobe registration sites, shared by the kprobe.*
 * and kernel.function families, and the C they emit (a struct stp_kprobe
 * table per family, registered by runtime/kprobes.h).
 *
 * A derived probe of such a family has its site at dp->data: the kprobe
 * family's record is a struct kp_site, and a family whose record holds
 * more puts its struct kp_site first.
 */
#ifndef CSTAP_KPSITES_H
#define CSTAP_KPSITES_H

#include "provider.h"

struct kp_site {
	char *symbol;           /* "name", "module:name", "_stext"; NULL: absolute addr */
	uint64_t offset;        /* from symbol */
	uint64_t addr;          /* absolute address when symbol is NULL */
	char *verify;           /* function the kernel must find at the address, or NULL */
	bool ret;               /* kretprobe */
	int maxactive;          /* 0: kernel default */
	bool optional;          /* registration failure is not reported */
	bool fentry;            /* a kernel function's entry at its ftrace call site,
				   "_stext" + offset + fentry_delta (runtime/fentry.h) */
	unsigned fentry_delta;
	const char *func;       /* the kernel's own function whose entry or return this
				   is (BPF: a trampoline may take it), or NULL */
};

/* dp's record: a copy of site. */
void kp_site_attach(struct derived_probe *dp, const struct kp_site *site);

/* The module of the site's probe (*len bytes of it), "kernel" for the
 * kernel's own functions; NULL for an absolute address. */
const char *kp_site_module(const struct derived_probe *dp, size_t *len);
/* Is the site's probe a kretprobe? */
bool kp_is_return(const struct derived_probe *dp);
/* The provider's takes_kprobe hook: every site is a kprobe, except an
 * entry on runtime/fentry.h's ftrace_ops in a module (BPF attaches all
 * through the kprobe PMU). */
bool kp_takes_kprobe(const struct session *s, const struct derived_probe *dp);
/* The provider's bpf_attach hook for a site's probe. */
int kp_bpf_attach(const struct derived_probe *dp, struct bpf_attach *at, const char **why);
/* The provider's bpf_trampoline hook for a site that is a kernel function's
 * entry or return (site->func), when the kernel's BTF lets one take it. */
int kp_bpf_trampoline(struct session *s, const struct derived_probe *dp, struct bpf_attach *at);
/* The provider's bpf_entry_attach hook: a kprobe where the kretprobe is. */
int kp_bpf_entry_attach(struct session *s, const struct derived_probe *dp, struct bpf_attach *at, int *reg,
			int64_t *off, int64_t *ret_off, const char **why);
/* The provider's bpf_context hook: addr()'s adjustment, a kretprobe's
 * backtrace, the function's arguments, the site's module. */
void kp_bpf_context(const struct derived_probe *dp, struct bpf_context *c);
/* probe_type() of a site's probe: "kprobe" or "kretprobe". */
const char *kp_probe_type(const struct derived_probe *dp);

/* The modules prov's sites are in ("m" of "m:sym"), each once, appended to out. */
void kp_guest_modules(struct session *s, const struct provider *prov, strvec *out);

/* The provider hooks, for a provider whose table is named stp_kp_<tag>. */
void kp_emit_decls(struct session *s, const struct provider *prov, const char *tag, struct strbuf *out);
void kp_emit_register(struct session *s, const struct provider *prov, const char *tag, struct strbuf *out);
void kp_emit_unregister(struct session *s, const struct provider *prov, const char *tag, struct strbuf *out);

#endif
