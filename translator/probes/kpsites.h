/* kpsites.h - kprobe/kretprobe registration sites, shared by the kprobe.*
 * and kernel.function providers, and the C they emit (a struct stp_kprobe
 * table per provider, registered by runtime/kprobes.h).
 */
#ifndef CSTAP_KPSITES_H
#define CSTAP_KPSITES_H

#include "provider.h"

struct kp_site {
	struct derived_probe *dp;
	char *symbol;           /* "name", "module:name", "_stext"; NULL: absolute addr */
	uint64_t offset;        /* from symbol */
	uint64_t addr;          /* absolute address when symbol is NULL */
	char *verify;           /* function the kernel must find at the address, or NULL */
	bool ret;               /* kretprobe */
	int maxactive;          /* 0: kernel default */
	bool optional;          /* registration failure is not reported */
};

/* Record where dp's probe goes; the site is copied. */
void kp_site_add(const struct kp_site *site);
/* Sites of one provider, for listings. */
int kp_sites_count(const struct provider *prov);

/* The modules the sites are in ("m" of "m:sym"), each once, appended to out:
 * the QEMU guest loads them before the run. */
void kp_sites_modules(strvec *out);

/* The provider hooks, for a provider whose table is named stp_kp_<tag>. */
void kp_emit_decls(struct session *s, const struct provider *prov, const char *tag, struct strbuf *out);
void kp_emit_register(struct session *s, const struct provider *prov, const char *tag, struct strbuf *out);
void kp_emit_unregister(struct session *s, const struct provider *prov, const char *tag, struct strbuf *out);

#endif
