/* d_provider.c - DTrace's probes as cstap's (d_provider.h): the table
 * of provider families, the catalog of the probes they made (with their
 * IDs), matching descriptions against it, the sites the lowering writes,
 * and the built-in variables whose value depends on the probe.
 */
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d/d_lower.h"
#include "d/d_provider.h"
#include "d/d_sema.h"

/* The families, in the order -l lists their probes: dtrace's first, so
 * that BEGIN, END and ERROR are probes 1, 2 and 3 as in DTrace. */
static const struct d_family *const families[] = {
	&d_fam_dtrace, &d_fam_profile, &d_fam_syscall, &d_fam_proc, &d_fam_sched, &d_fam_io, &d_fam_fbt,
	&d_fam_rawtp, &d_fam_pid, &d_fam_usdt, &d_fam_cpc, &d_fam_lockstat,
};
#define NFAM (sizeof(families) / sizeof(families[0]))

/* ---- the catalog ------------------------------------------------------------------ */

/* every probe made so far, by ID (ids[0] unused), and a hash of their
 * names to find one again */
static d_probevec catalog;
static struct d_probe **table;
static size_t table_size;

static uint64_t names_hash(const char *prov, const char *mod, const char *func, const char *name)
{
	const char *parts[4] = { prov, mod, func, name };
	uint64_t h = 1469598103934665603ull;

	for (int i = 0; i < 4; i++) {
		for (const char *p = parts[i]; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ull;
		h = (h ^ ':') * 1099511628211ull;
	}
	return h;
}

static bool same_names(const struct d_probe *p, const char *prov, const char *mod, const char *func,
		       const char *name)
{
	return !strcmp(p->prov, prov) && !strcmp(p->mod, mod) && !strcmp(p->func, func) && !strcmp(p->name, name);
}

/* the table twice as large, every probe hashed again */
static void table_grow(void)
{
	size_t n = table_size ? 2 * table_size : 1024;
	struct d_probe **t = xcalloc(n, sizeof(*t));

	for (int i = 0; i < catalog.len; i++) {
		struct d_probe *p = catalog.items[i];
		size_t h = names_hash(p->prov, p->mod, p->func, p->name) & (n - 1);
		while (t[h])
			h = (h + 1) & (n - 1);
		t[h] = p;
	}
	free(table);
	table = t;
	table_size = n;
}

/* a family makes each of its probes once, numbered in the order made */
struct d_probe *d_probe_get(const struct d_family *fam, const char *prov, const char *mod, const char *func,
			    const char *name, const char *site, long key)
{
	if (2 * ((size_t)catalog.len + 1) > table_size)
		table_grow();
	size_t h = names_hash(prov, mod, func, name) & (table_size - 1);
	for (; table[h]; h = (h + 1) & (table_size - 1))
		if (same_names(table[h], prov, mod, func, name))
			return table[h];
	struct d_probe *p = xcalloc(1, sizeof(*p));
	p->id = (uint32_t)catalog.len + 1;
	p->prov = prov;
	p->mod = mod;
	p->func = func;
	p->name = name;
	p->fam = fam;
	p->site = site;
	p->key = key;
	vec_push(&catalog, p);
	table[h] = p;
	return p;
}

const d_probevec *d_provider_catalog(void)
{
	return &catalog;
}

/* ---- matching --------------------------------------------------------------------- */

/* DTrace matches a part with glob characters as a pattern, any other as
 * the name itself; an empty part matches anything */
bool d_glob(const char *pat, const char *s)
{
	if (!*pat)
		return true;
	if (!strpbrk(pat, "*?[\\"))
		return !strcmp(pat, s);
	return fnmatch(pat, s, 0) == 0;
}

bool d_probe_matches(const struct d_pdesc *d, const char *prov, const char *mod, const char *func,
		     const char *name)
{
	return d_glob(d->prov, prov) && d_glob(d->mod, mod) && d_glob(d->func, func) && d_glob(d->name, name);
}

/* the families' probes d matches, in ID order, each once. The kernel's
 * probes are all made first, numbered as the families list them, so that
 * a probe's ID does not depend on the descriptions, and those made on
 * demand (tick-N, a process's) come after them, as in DTrace */
void d_provider_match(const struct d_pdesc *d, d_probevec *out)
{
	static bool started;
	d_probevec all = { 0 };

	if (!started) {   /* every family's probes, in table order: BEGIN, END, ERROR are 1 to 3 */
		struct d_pdesc any = { .text = "", .prov = "", .mod = "", .func = "", .name = "" };
		started = true;
		for (size_t i = 0; i < NFAM; i++) {
			d_probevec none = { 0 };
			families[i]->match(families[i], &any, &none);
			free(none.items);
		}
	}
	if (d->id || (d->text && *d->text && !d->text[strspn(d->text, "0123456789")])) {   /* by its ID */
		if (d->id && d->id <= (uint32_t)catalog.len)
			vec_push(out, catalog.items[d->id - 1]);
		return;
	}
	for (size_t i = 0; i < NFAM; i++)
		families[i]->match(families[i], d, &all);
	/* in ID order, without repeats */
	char *seen = xcalloc((size_t)catalog.len + 2, 1);
	for (int i = 0; i < all.len; i++)
		seen[all.items[i]->id] = 1;
	for (int i = 1; i <= catalog.len; i++)
		if (seen[i])
			vec_push(out, catalog.items[i - 1]);
	free(seen);
	free(all.items);
}

/* the first error a family found in a description */
static struct {
	const char *tag;
	char *msg;
} failure;

void d_provider_fail(const char *tag, const char *fmt, ...)
{
	va_list ap;

	if (failure.tag)
		return;
	va_start(ap, fmt);
	failure.msg = xvasprintf(fmt, ap);
	va_end(ap);
	failure.tag = tag;
}

/* the probes of each clause, matched once */
struct clause_probes {
	const struct d_clause *clause;
	d_probevec probes;          /* every description's, in order (repeats kept) */
	VEC(int) per_desc;          /* how many each description matched */
};
static VEC(struct clause_probes *) matched;

static struct clause_probes *clause_probes(struct d_sema *S, const struct d_clause *c)
{
	for (int i = 0; i < matched.len; i++)
		if (matched.items[i]->clause == c)
			return matched.items[i];
	struct clause_probes *cp = xcalloc(1, sizeof(*cp));
	cp->clause = c;
	for (int i = 0; i < c->descs.len; i++) {
		const struct d_pdesc *d = c->descs.items[i];
		int before = cp->probes.len;
		d_provider_match(d, &cp->probes);
		if (failure.tag)   /* a family's own error: the description is malformed for it */
			d_error(S->dg, failure.tag, d->pos, "%s", failure.msg);
		if (cp->probes.len == before && !S->opts->zdefs && d->text[0] &&
		    !d->text[strspn(d->text, "0123456789")])   /* a probe's number */
			d_error(S->dg, "D_PDESC_ZERO", d->pos, "invalid probe identifier %u: Unknown probe identifier",
				d->id);
		if (cp->probes.len == before && !S->opts->zdefs)
			d_error(S->dg, "D_PDESC_ZERO", d->pos, "probe description %s:%s:%s:%s does not match any probes",
				d->prov, d->mod, d->func, d->name);
		vec_push(&cp->per_desc, cp->probes.len - before);
	}
	vec_push(&matched, cp);
	return cp;
}

/* the clause being checked: args[]'s types are its probes' */
static const struct clause_probes *checking;

void d_provider_clause(struct d_sema *S, const struct d_clause *c)
{
	checking = clause_probes(S, c);
}

int d_provider_matched(struct d_sema *S)
{
	int n = 0;

	for (int i = 0; i < S->prog->clauses.len; i++)
		n += clause_probes(S, S->prog->clauses.items[i])->probes.len;
	return n;
}

/* a stability's rank (DTrace's order, Internal lowest), or a
 * dependency class's (Unknown lowest) */
static int attr_rank(const char *a)
{
	static const char *const order[] = {
		"Internal", "Private", "Obsolete", "External", "Unstable", "Evolving", "Stable", "Standard",
		"Unknown", "CPU", "Platform", "Group", "ISA", "Common", NULL,
	};

	for (int i = 0; order[i]; i++)
		if (!strcmp(a, order[i]))
			return i < 8 ? i : i - 8;
	return 0;
}

/* the lesser of two attributes */
static const char *attr_min(const char *a, const char *b)
{
	return !a ? b : attr_rank(b) < attr_rank(a) ? b : a;
}

void d_provider_stability(struct d_sema *S, const char *name)
{
	/* DTrace's default of a description (Unstable, Unstable, Common),
	 * lowered by each probe's provider */
	const char *n = "Unstable", *d = "Unstable", *c = "Common";

	for (int i = 0; i < S->prog->clauses.len; i++) {
		const struct clause_probes *cp = clause_probes(S, S->prog->clauses.items[i]);
		for (int j = 0; j < cp->probes.len; j++) {
			const struct d_attrs *a = &cp->probes.items[j]->fam->attrs;
			n = attr_min(n, a->name_stab);
			d = attr_min(d, a->data_stab);
			c = attr_min(c, a->dep_class);
		}
	}
	printf("\nStability attributes for script %s:\n\n"
	       "\tMinimum Probe Description Attributes\n"
	       "\t\tIdentifier Names: %s\n\t\tData Semantics:   %s\n\t\tDependency Class: %s\n\n"
	       "\tMinimum Statement Attributes\n"
	       "\t\tIdentifier Names: %s\n\t\tData Semantics:   %s\n\t\tDependency Class: %s\n\n",
	       name, n, d, c, "Stable", "Stable", "Common");
	fflush(stdout);
}

/* args[N] with a constant N: N, else -1 */
static int args_index(const struct d_expr *e)
{
	if (!e || e->kind != DE_INDEX || e->lhs->kind != DE_IDENT || strcmp(e->lhs->name, "args") ||
	    e->args.len != 1 || e->args.items[0]->kind != DE_INT)
		return -1;
	return (int)e->args.items[0]->num;
}

/* curpsinfo and curlwpsinfo: the translated type they point to, else NULL */
static const char *current_info(const struct d_expr *e)
{
	if (e->kind != DE_IDENT)
		return NULL;
	return !strcmp(e->name, "curpsinfo") ? "psinfo_t *" : !strcmp(e->name, "curlwpsinfo") ? "lwpsinfo_t *"
	       : !strcmp(e->name, "curcpu") ? "cpuinfo_t *" : NULL;
}

/* the type name of args[i] that all the probes give, NULL if they differ
 * or give none */
static const char *arg_type_name(const d_probevec *ps, int i)
{
	const char *t = NULL;

	for (int j = 0; j < ps->len; j++) {
		const struct d_probe *p = ps->items[j];
		const char *u = p->fam->arg_type ? p->fam->arg_type(p, i) : NULL;
		if (!u || (t && strcmp(t, u)))
			return NULL;
		t = u;
	}
	return t;
}

struct d_type *d_provider_arg_type(struct d_sema *S, const struct d_expr *e)
{
	static const struct { const char *name; int size; bool sign; } ints[] = {
		{ "int", 4, true }, { "pri_t", 4, true }, { "uint64_t", 8, false }, { "int64_t", 8, true },
		{ "uint32_t", 4, false }, { "char", 1, true }, { "long", 8, true },
	};
	int i = args_index(e);
	const char *t;

	(void)S;
	if (i < 0 || !checking || !(t = arg_type_name(&checking->probes, i)))
		return NULL;
	if (!strcmp(t, "string"))
		return d_ty_string();
	for (size_t k = 0; k < sizeof(ints) / sizeof(ints[0]); k++)
		if (!strcmp(t, ints[k].name))
			return d_ty_int(ints[k].size, ints[k].sign);
	return NULL;
}

/* What members names (outermost first) of args[i] of p come to, as
 * d_btf_chain says; t: its D type */
static int kernel_chain(const struct d_probe *p, int i, const char *const *names, int n, struct d_type **t)
{
	uint32_t type = p->fam->arg_btf_type ? p->fam->arg_btf_type(p, i) : 0;
	int size = 8, k = type ? d_btf_chain(type, names, n, &size, &(bool){ false }) : 0;
	bool sign = true;

	if (k == 'i')
		d_btf_chain(type, names, n, &size, &sign);
	if (t)
		*t = k == 's' ? d_ty_string() : k == 'i' ? d_ty_int(size, sign) : NULL;
	return k;
}

struct d_type *d_provider_member_type(struct d_sema *S, const struct d_expr *e)
{
	const struct d_expr *base = e;
	VEC(const char *) names = { 0 };
	struct d_type *ty = NULL;
	const char *t;

	(void)S;
	while (base->kind == DE_ARROW || base->kind == DE_MEMBER) {   /* down to args[i] */
		vec_push(&names, base->name);
		base = base->lhs;
	}
	int i = args_index(base);
	const char *cur = current_info(base);
	if (cur && names.len == 1)   /* curpsinfo->pr_pid */
		ty = d_psinfo_member_type(cur, e->name);
	else if (i >= 0 && checking && checking->probes.len) {
		if (checking->probes.items[0]->fam->kernel_args)
			kernel_chain(checking->probes.items[0], i, names.items, names.len, &ty);
		else if (names.len == 1 && (t = arg_type_name(&checking->probes, i)))
			ty = d_psinfo_member_type(t, e->name);
	}
	free(names.items);
	return ty;
}

/* ---- sites -------------------------------------------------------------------------- */

static bool has_probe(const d_probevec *v, const struct d_probe *p)
{
	for (int i = 0; i < v->len; i++)
		if (v->items[i] == p)
			return true;
	return false;
}

/* every clause's probes, gathered by the point they fire at */
d_sitevec d_provider_sites(struct d_sema *S)
{
	d_sitevec sites = { 0 };

	for (int i = 0; i < S->prog->clauses.len; i++) {
		const struct d_clause *c = S->prog->clauses.items[i];
		struct clause_probes *cp = clause_probes(S, c);
		for (int j = 0; j < cp->probes.len; j++) {
			struct d_probe *p = cp->probes.items[j];
			struct d_site *s = NULL;
			if (!p->site && !(p->site = p->fam->site_of(p)))
				continue;   /* a probe that cannot be enabled */
			for (int k = 0; k < sites.len && !s; k++)
				if (sites.items[k]->fam == p->fam && !strcmp(sites.items[k]->point, p->site))
					s = sites.items[k];
			if (!s) {
				s = xcalloc(1, sizeof(*s));
				s->point = p->site;
				s->fam = p->fam;
				vec_push(&sites, s);
			}
			struct d_site_clause *sc = s->clauses.len ? s->clauses.items[s->clauses.len - 1] : NULL;
			if (!sc || sc->clause != c) {
				sc = xcalloc(1, sizeof(*sc));
				sc->clause = c;
				vec_push(&s->clauses, sc);
			}
			if (!has_probe(&sc->probes, p))
				vec_push(&sc->probes, p);
		}
	}
	return sites;
}

bool d_site_guard(const struct d_site *s, const struct d_site_clause *sc, struct strbuf *out)
{
	return s->fam->guard && s->fam->guard(&sc->probes, out);
}

/* ---- built-in variables ------------------------------------------------------------- */

void d_add_literal(struct strbuf *out, const char *s)
{
	strbuf_addch(out, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			strbuf_addf(out, "\\%c", c);
		else if (c < 32 || c >= 127)
			strbuf_addf(out, "\\%03o", c);
		else
			strbuf_addch(out, c);
	}
	strbuf_addch(out, '"');
}

/* a name part of the probes, when all of them have the same */
static const char *common_part(const d_probevec *ps, int part)
{
	const char *v = NULL;

	for (int i = 0; i < ps->len; i++) {
		const struct d_probe *p = ps->items[i];
		const char *s = part == 0 ? p->prov : part == 1 ? p->mod : part == 2 ? p->func : p->name;
		if (v && strcmp(v, s))
			return NULL;
		v = s;
	}
	return v;
}

bool d_provider_builtin(struct d_lower *L, struct strbuf *out, const char *name, const struct d_expr *index)
{
	static const char *const parts[] = { "probeprov", "probemod", "probefunc", "probename" };
	const d_probevec *ps = L->site_probes;

	if (!ps || !ps->len)
		return false;
	const struct d_family *fam = ps->items[0]->fam;
	if (fam->builtin && fam->builtin(L, out, name, index))
		return true;
	for (int i = 0; i < 4; i++)
		if (!strcmp(name, parts[i])) {
			const char *v = common_part(ps, i);
			if (!v)
				return false;
			d_add_literal(out, v);
			return true;
		}
	if (!strcmp(name, "id") && ps->len == 1) {
		strbuf_addf(out, "%u", ps->items[0]->id);
		return true;
	}
	return false;
}

bool d_provider_member(struct d_lower *L, struct strbuf *out, const struct d_expr *e)
{
	const struct d_expr *base = e;
	VEC(const char *) names = { 0 };
	struct strbuf v = STRBUF_INIT;
	const char *t;
	bool ok = false;

	while (base->kind == DE_ARROW || base->kind == DE_MEMBER) {   /* down to args[i] */
		vec_push(&names, base->name);
		base = base->lhs;
	}
	int i = args_index(base);
	const char *cur = current_info(base);
	if (cur && names.len == 1) {   /* curpsinfo->pr_pid: the thread the probe fires for */
		if (!d_provider_builtin(L, &v, "curthread", NULL))
			strbuf_addstr(&v, "task_current()");
		ok = d_psinfo_member(cur, e->name, v.buf, out);
	} else if (i >= 0 && L->site_probes && L->site_probes->len && d_provider_builtin(L, &v, "args", base)) {
		if (L->site_probes->items[0]->fam->kernel_args) {   /* the kernel's structures */
			bool str = kernel_chain(L->site_probes->items[0], i, names.items, names.len, NULL) == 's';
			strbuf_addstr(out, str ? "kernel_string(" : "");
			strbuf_addstr(out, v.buf);
			for (int k = names.len - 1; k >= 0; k--)
				strbuf_addf(out, "->%s", names.items[k]);
			strbuf_addstr(out, str ? ")" : "");
			ok = true;
		} else if (names.len == 1 && (t = arg_type_name(L->site_probes, i))) {
			ok = d_psinfo_member(t, e->name, v.buf, out);
		}
	}
	strbuf_release(&v);
	free(names.items);
	return ok;
}

/* self-> variables are the thread's: the thread the probe fires for */
void d_provider_thread(struct d_lower *L, struct strbuf *out)
{
	if (!d_provider_builtin(L, out, "tid", NULL))
		strbuf_addstr(out, "tid()");
}

/* "FUNCTION:NAME" of the probe that fired */
void d_provider_label(struct d_lower *L, struct strbuf *out)
{
	const d_probevec *ps = L->site_probes;
	const char *f = ps ? common_part(ps, 2) : NULL, *n = ps ? common_part(ps, 3) : NULL;

	if (!ps || !ps->len) {
		d_add_literal(out, "");
		return;
	}
	if (f && n) {
		char *s = xasprintf("%s:%s", f, n);
		d_add_literal(out, s);
		free(s);
		return;
	}
	strbuf_addch(out, '(');
	if (!d_provider_builtin(L, out, "probefunc", NULL))
		d_add_literal(out, f ? f : "");
	strbuf_addstr(out, " . \":\" . ");
	if (!d_provider_builtin(L, out, "probename", NULL))
		d_add_literal(out, n ? n : "");
	strbuf_addch(out, ')');
}

/* ---- the traced process -------------------------------------------------------------- */

static struct d_target target;

void d_provider_set_target(long pid, const char *cmd)
{
	target.pid = pid;
	target.cmd = cmd;
}

const struct d_target *d_provider_target(void)
{
	return &target;
}
