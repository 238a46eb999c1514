/* netfilter.c - netfilter.hook("HOOK").pf("PF")[.priority("PRIO")] probes
 * (and netfilter.pf("PF").hook("HOOK")[.priority("PRIO")]): a netfilter hook
 * function per probe, registered in the initial network namespace
 * (runtime/netfilter.h).
 *
 * PF is NFPROTO_IPV4, NFPROTO_IPV6, NFPROTO_ARP or NFPROTO_BRIDGE; HOOK one
 * of the family's hooks (NF_INET_* or NF_IP_* for IPv4, NF_INET_* or
 * NF_IP6_* for IPv6, NF_ARP_*, NF_BR_*); PRIO an integer or one of the
 * family's priority names (NF_IP_PRI_*, NF_IP6_PRI_*, NF_BR_PRI_*), 0 when
 * not given. The names are the target kernel's: their values are read from
 * its uapi headers at pass 2. In guru mode an unknown name (a C identifier
 * or number) goes verbatim into the generated C, as SystemTap allows.
 *
 * $hooknum, $skb, $in, $out and $verdict are not DWARF: at derive time the
 * probe body's uses are rewritten into calls of tapsets/netfilter.stp's
 * __nf_hooknum() ... __nf_verdict() and (-g only) __nf_set_verdict(v),
 * which read the struct stp_nf_args the handler is given.
 */
#include "provider.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "target/uapi.h"

extern const struct provider netfilter_provider;

/* The C expressions of one probe's hook: numbers, or guru-mode verbatim names */
struct nf_probe {
	char *pf, *hook, *prio;
};

/* A protocol family and the name prefixes (space separated) of its hooks and priorities */
struct nf_family {
	const char *pf;
	const char *hooks;
	const char *prios;
};

static const struct nf_family families[] = {
	{ "NFPROTO_IPV4", "NF_INET_ NF_IP_", "NF_IP_PRI_" },
	{ "NFPROTO_IPV6", "NF_INET_ NF_IP6_", "NF_IP6_PRI_" },
	{ "NFPROTO_ARP", "NF_ARP_", "" },
	{ "NFPROTO_BRIDGE", "NF_BR_", "NF_BR_PRI_" },
};

static const char *const nf_headers[] = { "linux/netfilter.h", "linux/netfilter_ipv4.h", "linux/netfilter_ipv6.h",
	"linux/netfilter_arp.h", "linux/netfilter_bridge.h", NULL };

/* The run's state: the target kernel's netfilter constants, read once */
struct nf_state {
	bool loaded;
	struct uapi *u;
	const char *why;
	struct srcpos guru_reported;   /* the $verdict write last reported: an alias's
					* copies of one body are reported once */
};

/* Does name start with one of the space-separated prefixes? */
static bool has_prefix(const char *prefixes, const char *name)
{
	for (const char *p = prefixes; *p; p += strspn(p, " ")) {
		size_t n = strcspn(p, " ");
		if (n && !strncmp(name, p, n))
			return true;
		p += n;
	}
	return false;
}

/* Is name a hook of family f (not a priority, not the count, not the
 * ingress hook, which needs a device)? */
static bool is_hook(const struct nf_family *f, const char *name)
{
	size_t n = strlen(name);

	return has_prefix(f->hooks, name) && !strstr(name, "_PRI_") &&
	       !(n >= 8 && !strcmp(name + n - 8, "NUMHOOKS")) && !strstr(name, "INGRESS");
}

static bool is_prio(const struct nf_family *f, const char *name)
{
	return *f->prios && has_prefix(f->prios, name);
}

/* A C identifier or an integer: what guru mode may pass through verbatim */
static bool c_token(const char *t)
{
	if (!*t)
		return false;
	if (*t == '-' || (*t >= '0' && *t <= '9')) {
		char *end;
		errno = 0;
		strtoll(t, &end, 0);
		return !*end && !errno && end != t;
	}
	for (const char *p = t; *p; p++)
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (p > t && *p >= '0' && *p <= '9')))
			return false;
	return true;
}

struct names {
	const struct nf_family *f;
	bool (*want)(const struct nf_family *f, const char *name);
	struct strbuf *out;
};

static bool names_want(void *arg, const char *name)
{
	struct names *n = arg;

	return n->want(n->f, name);
}

static void names_add(void *arg, const char *name, int64_t v)
{
	struct names *n = arg;

	(void)v;
	strbuf_addf(n->out, "%s%s", n->out->len ? ", " : "", name);
}

/* The component's string argument, or NULL after an error */
static const char *str_arg(struct session *s, const struct probe_point *pp, int i)
{
	const struct expr *a = pp->comps.items[i]->arg;

	if (!a || a->kind != EXPR_STR) {
		diag(s, E_PROBE_ARG, pp->comps.items[i]->pos, "netfilter %s needs a string: %s(\"NAME\")",
		     pp->comps.items[i]->name, pp->comps.items[i]->name);
		return NULL;
	}
	return a->str;
}

/* The C of name as component i (what: "hook", "pf", "priority") of family
 * f (NULL: not known, a guru-mode pf): its value from the kernel's
 * headers, an integer as written, or in guru mode the name verbatim. NULL
 * after an error. */
static char *resolve(struct session *s, struct nf_state *st, const struct probe_point *pp, int i,
		     const struct nf_family *f, const char *name)
{
	const char *what = pp->comps.items[i]->name;
	bool prio = !strcmp(what, "priority");
	int64_t v;

	if (prio && c_token(name) && (*name == '-' || (*name >= '0' && *name <= '9'))) {
		char *end;
		errno = 0;
		long long n = strtoll(name, &end, 10);
		if (!*end && !errno && n >= INT_MIN && n <= INT_MAX)
			return xasprintf("%lld", n);
	} else if (f && (prio ? is_prio(f, name) : is_hook(f, name)) && st->u && uapi_value(st->u, name, &v)) {
		return xasprintf("%lld", (long long)v);
	}
	if (s->guru && c_token(name))
		return xstrdup(name);
	if (!st->u && !prio) {
		diag(s, E_PROBE_ARG, pp->comps.items[i]->pos, "netfilter %s \"%s\": the target kernel's "
		     "netfilter headers cannot be read (%s)", what, name, st->why ? st->why : "?");
		return NULL;
	}
	struct strbuf known = STRBUF_INIT;
	struct names n = { f, prio ? is_prio : is_hook, &known };
	if (f && st->u)
		uapi_each(st->u, names_want, names_add, &n);
	if (prio)
		diag(s, E_PROBE_ARG, pp->comps.items[i]->pos, "netfilter priority \"%s\" is neither an integer "
		     "nor a priority name of %s%s%s", name, f ? f->pf : "the family", known.len ? ": " : "",
		     known.buf ? known.buf : "");
	else
		diag(s, E_PROBE_ARG, pp->comps.items[i]->pos, "unknown netfilter hook \"%s\" for %s%s%s%s", name,
		     f ? f->pf : "the family", known.len ? " (it has " : "", known.len ? known.buf : "", known.len ? ")" : "");
	if (!prio && known.len)
		diag_note(s, pp->comps.items[i]->pos, "guru mode (-g) passes other names verbatim into the C");
	strbuf_release(&known);
	return NULL;
}

/* $hooknum, $skb, $in, $out; $verdict, writable in guru mode */
#define NF_READ_ONLY(v) { "$" #v, "__nf_" #v, NULL, NULL, false, "$" #v " of a netfilter probe cannot be assigned" }
static const struct ctx_var nf_vars[] = {
	NF_READ_ONLY(hooknum), NF_READ_ONLY(skb), NF_READ_ONLY(in), NF_READ_ONLY(out),
	{ "$verdict", "__nf_verdict", "__nf_set_verdict", NULL, true, NULL },
};

/* netfilter.hook("H").pf("PF")[.priority("P")] or netfilter.pf("PF").hook("H")[...] */
static int derive(struct session *s, struct probe *p, struct probe_point *pp)
{
	int n = pp->comps.len, ih, ipf;

	if (!pp_comp_is(pp, 0, "netfilter") || !(pp_comp_is(pp, 1, "hook") || pp_comp_is(pp, 1, "pf")))
		return 0;
	ih = pp_comp_is(pp, 1, "hook") ? 1 : 2;
	ipf = 3 - ih;
	if (n < 3 || n > 4 || !pp_comp_is(pp, ih, "hook") || !pp_comp_is(pp, ipf, "pf") ||
	    (n == 4 && !pp_comp_is(pp, 3, "priority"))) {
		diag(s, E_PROBE_ARG, pp->pos, "netfilter probes are netfilter.hook(\"HOOK\").pf(\"PF\")"
		     "[.priority(\"PRIO\")] or netfilter.pf(\"PF\").hook(\"HOOK\")[.priority(\"PRIO\")]");
		return -1;
	}
	const char *hook = str_arg(s, pp, ih), *pf = str_arg(s, pp, ipf);
	const char *prio = n == 4 ? str_arg(s, pp, 3) : NULL;
	if (!hook || !pf || (n == 4 && !prio))
		return -1;

	struct nf_state *st = provider_state(s, &netfilter_provider, sizeof(*st));
	if (!st->loaded) {
		st->u = uapi_load(s, nf_headers, &st->why);
		st->loaded = true;
	}
	const struct nf_family *f = NULL;
	for (size_t k = 0; k < sizeof(families) / sizeof(families[0]); k++)
		if (!strcmp(pf, families[k].pf))
			f = &families[k];
	struct nf_probe pr = { 0 };
	int64_t v;
	if (f && st->u && uapi_value(st->u, pf, &v)) {
		pr.pf = xasprintf("%lld", (long long)v);
	} else if (s->guru && c_token(pf)) {
		pr.pf = xstrdup(pf);
	} else {
		diag(s, E_PROBE_ARG, pp->comps.items[ipf]->pos, "unknown netfilter protocol family \"%s\" "
		     "(NFPROTO_IPV4, NFPROTO_IPV6, NFPROTO_ARP or NFPROTO_BRIDGE)%s%s", pf,
		     f && !st->u ? ": the target kernel's netfilter headers cannot be read: " : "",
		     f && !st->u && st->why ? st->why : "");
		return -1;
	}
	pr.hook = resolve(s, st, pp, ih, f, hook);
	if (pr.hook)
		pr.prio = n == 4 ? resolve(s, st, pp, 3, f, prio) : xstrdup("0");
	if (!pr.prio) {
		free(pr.pf);
		free(pr.hook);
		return -1;
	}

	ctx_vars_rewrite(s, p->body, nf_vars, sizeof(nf_vars) / sizeof(nf_vars[0]), &st->guru_reported);
	struct derived_probe *dp = derived_probe_add(s, p, pp, &netfilter_provider, STP_PK_NORMAL);
	struct nf_probe *d = xmalloc(sizeof(*d));
	*d = pr;
	dp->data = d;
	return 1;
}

static const struct handler_abi netfilter_abi = {
	.params = "struct stp_nf_args *nf",
	.fill = "\tc->nf = nf;\n",
};

static void emit_decls(struct session *s, struct strbuf *out)
{
	int n = provider_probes(s, &netfilter_provider);

	if (n)
		strbuf_addf(out, "static struct stp_nf_hook stp_nf_hooks[%d];\n", n);
}

static void emit_register(struct session *s, struct strbuf *out)
{
	int n = 0;

	for (int i = 0; i < s->probes.len; i++) {
		struct derived_probe *dp = s->probes.items[i];
		if (dp->prov != &netfilter_provider)
			continue;
		const struct nf_probe *d = dp->data;
		strbuf_addf(out, "\tstp_nf_hooks[%d].ops.pf = %s;\n", n, d->pf);
		strbuf_addf(out, "\tstp_nf_hooks[%d].ops.hooknum = %s;\n", n, d->hook);
		strbuf_addf(out, "\tstp_nf_hooks[%d].ops.priority = %s;\n", n, d->prio);
		strbuf_addf(out, "\tstp_nf_hooks[%d].handler = dp_%d;\n", n, dp->index);
		strbuf_addf(out, "\tstp_nf_hooks[%d].pp = stp_probes[%d].pp;\n", n, dp->index);
		strbuf_addf(out, "\trc = stp_nf_start(&stp_nf_hooks[%d]);\n\tif (rc)\n\t\treturn rc;\n", n);
		n++;
	}
}

static void emit_unregister(struct session *s, struct strbuf *out)
{
	int n = provider_probes(s, &netfilter_provider);

	if (n)
		strbuf_addf(out, "\tfor (i = 0; i < %d; i++)\n\t\tstp_nf_stop(&stp_nf_hooks[i]);\n", n);
}

const struct provider netfilter_provider = {
	.name = "netfilter",
	.runtime_header = "netfilter.h",
	.type_name = "netfilter",
	.derive = derive,
	.handler = &netfilter_abi,
	.emit_decls = emit_decls,
	.emit_register = emit_register,
	.emit_unregister = emit_unregister,
};
