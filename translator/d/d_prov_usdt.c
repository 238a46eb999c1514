/* d_prov_usdt.c - USDT probes: PROVIDERpid:MODULE:FUNCTION:NAME of the
 * SDT markers (notes .note.stapsdt, which `dtrace -h` headers and
 * <sys/sdt.h> write) in a process's program and libraries, as cstap's
 * process("FILE").provider("PROVIDER").mark("NAME") under the condition
 * that the process is pid's (test_prov$target of -c: target()). A
 * marker's name with "__" is the probe's with "-" (DTrace's rule); its
 * function is the one whose code holds it; argN are its arguments.
 */
#include <stdlib.h>
#include <string.h>

#include "d/d_lower.h"
#include "d/d_prov_uproc.h"
#include "target/sdt.h"

struct usdt_probe {
	long pid;
	int nargs;
	VEC(uint64_t) pcs;       /* its markers' link-time addresses */
	bool shared;             /* markers of its name in other functions: its site's too */
};

/* the function of the file whose code holds pc: the nearest below */
static const char *function_at(const char *path, uint64_t pc)
{
	const usymvec *fs = d_uproc_functions(path);
	const struct usym *best = NULL;

	for (int i = 0; i < fs->len; i++)
		if (fs->items[i].addr <= pc && (!best || fs->items[i].addr > best->addr))
			best = &fs->items[i];
	return best ? best->name : "";
}

/* "enable__or" -> "enable-or" */
static char *probe_name(const char *mark)
{
	char *s = xstrdup(mark), *p;

	while ((p = strstr(s, "__")))
		memmove(p + 1, p + 2, strlen(p + 2) + 1), *p = '-';
	return s;
}

static void match_file(const struct d_family *fam, const struct d_pdesc *d, long pid, const char *path,
		       bool is_exe, d_probevec *out)
{
	sdtvec ms = { 0 };
	char *why = NULL;

	if (!d_uproc_module_matches(d->mod, path, is_exe) || !sdt_markers(path, &ms, &why)) {
		free(why);
		return;
	}
	for (int i = 0; i < ms.len; i++) {
		const struct sdt_marker *m = &ms.items[i];
		char *prov = xasprintf("%s%ld", m->provider, pid), *name = probe_name(m->name);
		const char *func = function_at(path, m->pc);
		bool shared = false;
		for (int j = 0; j < ms.len && !shared; j++)
			shared = !strcmp(ms.items[j].provider, m->provider) && !strcmp(ms.items[j].name, m->name) &&
				 strcmp(function_at(path, ms.items[j].pc), func);
		if (strcmp(m->provider, "pid") && d_glob(d->prov, prov) && d_glob(d->func, func) && d_glob(d->name, name)) {
			char *site = xasprintf("process(\"%s\").provider(\"%s\").mark(\"%s\")", path, m->provider, m->name);
			struct d_probe *p = d_probe_get(fam, prov, d_uproc_module(path), func, name, site, pid);
			struct usdt_probe *up = (struct usdt_probe *)p->data;
			if (!up) {
				p->data = up = xcalloc(1, sizeof(*up));
				up->pid = pid;
				up->nargs = sdt_arg_count(m->args);
				up->shared = shared;
			}
			bool known = false;   /* matched before: its markers are listed */
			for (int j = 0; j < up->pcs.len && !known; j++)
				known = up->pcs.items[j] == m->pc;
			if (!known)
				vec_push(&up->pcs, m->pc);
			if (!out->len || out->items[out->len - 1] != p)
				vec_push(out, p);
		}
	}   /* prov and name stay: a probe made keeps them */
	sdt_markers_free(&ms);
}

static void match(const struct d_family *fam, const struct d_pdesc *d, d_probevec *out)
{
	size_t n = strlen(d->prov), k = n;
	const struct d_uproc *u;

	long pid;

	while (k > 0 && d->prov[k - 1] >= '0' && d->prov[k - 1] <= '9')
		k--;
	if (k < n && k > 0)   /* a process's providers have its pid */
		pid = strtol(d->prov + k, NULL, 10);
	else if (strpbrk(d->prov, "*?[") || !*d->prov)   /* any provider: the traced process's (-c, -p) */
		pid = d_provider_target()->pid;
	else
		return;
	if ((!pid && !d_provider_target()->cmd) || !(u = d_uproc(pid))->exe)
		return;
	match_file(fam, d, pid, u->exe, true, out);
	for (int i = 0; i < u->libs.len; i++)
		match_file(fam, d, pid, u->libs.items[i], false, out);
}

/* Which of the markers of one name fired: the low 12 bits of the PC,
 * which loading (page-aligned) leaves as they were linked */
#define PAGE_BITS(pc) ((unsigned long long)(pc) & 4095)

static bool guard(const d_probevec *ps, struct strbuf *out)
{
	bool shared = false;

	d_uproc_guard(((const struct usdt_probe *)ps->items[0]->data)->pid, out);
	for (int i = 0; i < ps->len; i++)
		shared |= ((const struct usdt_probe *)ps->items[i]->data)->shared;
	if (!shared)
		return true;
	strbuf_addstr(out, " && (");
	int n = 0;
	for (int i = 0; i < ps->len; i++) {
		const struct usdt_probe *up = ps->items[i]->data;
		for (int j = 0; j < up->pcs.len; j++)
			strbuf_addf(out, "%s(uaddr() & 4095) == %llu", n++ ? " || " : "", PAGE_BITS(up->pcs.items[j]));
	}
	strbuf_addch(out, ')');
	return true;
}

/* the function of the marker that fired, among the clause's probes here */
static void function_fired(const d_probevec *ps, struct strbuf *out)
{
	int open = 0;

	for (int i = 0; i + 1 < ps->len; i++) {
		const struct usdt_probe *up = ps->items[i]->data;
		strbuf_addch(out, '(');
		for (int j = 0; j < up->pcs.len; j++)
			strbuf_addf(out, "%s(uaddr() & 4095) == %llu", j ? " || " : "", PAGE_BITS(up->pcs.items[j]));
		strbuf_addstr(out, " ? ");
		d_add_literal(out, ps->items[i]->func);
		strbuf_addstr(out, " : ");
		open++;
	}
	d_add_literal(out, ps->items[ps->len - 1]->func);
	while (open--)
		strbuf_addch(out, ')');
}

/* the marker's arguments; the provider's name with the pid -c's process has */
static bool builtin(struct d_lower *L, struct strbuf *out, const char *name, const struct d_expr *index)
{
	const struct d_probe *p = L->site_probes->items[0];
	const struct usdt_probe *up = p->data;
	int arg = -1;

	if (!strcmp(name, "probefunc")) {
		bool same = true;
		for (int i = 1; i < L->site_probes->len; i++)
			same &= !strcmp(L->site_probes->items[i]->func, p->func);
		if (same)
			return false;
		function_fired(L->site_probes, out);
		return true;
	}
	if (!strcmp(name, "probeprov") && !up->pid) {
		strbuf_addf(out, "sprintf(\"%.*s%%d\", target())", (int)(strlen(p->prov) - 1), p->prov);
		return true;
	}
	if (!strncmp(name, "arg", 3) && name[3] >= '0' && name[3] <= '9' && !name[4])
		arg = name[3] - '0';
	else if (!strcmp(name, "args") && index && index->args.len == 1 && index->args.items[0]->kind == DE_INT)
		arg = (int)index->args.items[0]->num;
	if (arg < 0)
		return false;
	if (arg < up->nargs)
		strbuf_addf(out, "$arg%d", arg + 1);
	else
		strbuf_addstr(out, "0");
	return true;
}

const struct d_family d_fam_usdt = {
	.name = "usdt",
	.match = match,
	.guard = guard,
	.builtin = builtin,
	.attrs = { "Evolving", "Evolving", "ISA", "Evolving", "Evolving", "ISA" },
};
