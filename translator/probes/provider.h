/* provider.h - probe families behind one interface.
 *
 * Each probe family (begin/end, timer, kprobe, tracepoint ...) is one file in
 * translator/probes/ that fills one struct provider; providers.c lists them.
 * Pass 2 offers every probe point to the providers in table order; the one
 * whose derive() accepts it adds derived probes to the session. Pass 3 asks
 * each provider to emit its declarations and its (un)registration code.
 */
#ifndef CSTAP_PROVIDER_H
#define CSTAP_PROVIDER_H

#include "ast.h"
#include "session.h"

/* Must match runtime/session.h STP_PK_* */
enum probe_kind { PK_NORMAL = 0, PK_BEGIN, PK_END, PK_ERROR, PK_NEVER };

struct provider;

/* One concrete probe derived from a script probe's probe point. Several
 * derived probes may share one body (comma lists, wildcards). */
struct derived_probe {
	struct probe *probe;            /* the script probe: body and locals */
	struct probe_point *point;      /* the point it came from */
	const struct provider *prov;
	char *pp;                       /* canonical text for pp(): "timer.ms(100)" */
	enum probe_kind kind;
	int64_t order;                  /* begin(N) / end(N) / error(N) */
	int64_t period_ns, randomize_ns; /* timer */
	int index;                      /* position in s->probes */
	int body;                       /* its body function body_N (pass 2 analysis) */
	bool own_body;                  /* body_N is its alone: its target variables differ */
	bool has_entry;                 /* .return probe saving values at entry (@entry) */
	unsigned char *lock_modes;      /* per global, as s->globals: 0 none, 1 read, 2|3 write
					 * lock, through called functions too (pass 2 analysis) */
};

struct provider {
	const char *name;
	/* Try to derive probes from pp (of script probe p). Returns 1 if this
	 * provider took the point (probes added with derived_probe_add), 0 if
	 * the point is not its kind, -1 after reporting an error. */
	int (*derive)(struct session *s, struct probe *p, struct probe_point *pp);
	/* Pass 3: file-scope declarations for this provider's probes. */
	void (*emit_decls)(struct session *s, struct strbuf *out);
	/* Pass 3: statements in stp_script_start() after begin probes ran;
	 * on failure they must `goto fail;` after setting rc. */
	void (*emit_register)(struct session *s, struct strbuf *out);
	/* Pass 3: statements in stp_script_stop() before end probes run. */
	void (*emit_unregister)(struct session *s, struct strbuf *out);
};

extern const struct provider *const providers[];

struct derived_probe *derived_probe_add(struct session *s, struct probe *p,
					struct probe_point *pp,
					const struct provider *prov, enum probe_kind kind);

/* Helpers for derive(): component i's name / literal argument. */
bool pp_comp_is(const struct probe_point *pp, int i, const char *name);
bool pp_comp_num(const struct probe_point *pp, int i, int64_t *out);
/* Canonical text of a probe point, as pp() prints it. */
char *pp_text(const struct probe_point *pp);

#endif
