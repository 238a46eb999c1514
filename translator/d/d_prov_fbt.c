/* d_prov_fbt.c - the fbt provider: fbt:vmlinux:FUNC:entry and :return
 * of the kernel's functions (the functions BTF describes, less those cstap
 * refuses to probe), as cstap's kernel.function("FUNC") and .return. At
 * entry argN and args[N] are the function's parameters (args[0]->member
 * reads the kernel's structure, BTF typing it); at return arg1 is the
 * return value (arg0, the return's offset, is 0).
 *
 * These probes need kprobes or BPF trampolines: on a host refusing both
 * they match, are listed and compile, and attach nowhere (stap warns);
 * the module runtime (--runtime=kernel, a guest) runs them.
 */
#include <stdlib.h>
#include <string.h>

#include "d/d_lower.h"
#include "d/d_provider.h"
#include "target/blacklist.h"
#include "target/btf.h"

/* the parameters of a function, made on first use (p->data) */
static struct d_params *params_of(struct d_probe *p)
{
	if (!p->data) {
		struct d_params *ps = xcalloc(1, sizeof(*ps));
		const struct btf *b = d_btf();
		uint32_t proto = b ? btf_func_proto(b, p->func) : 0;
		d_btf_params(proto, 0, ps);
		p->data = ps;
	}
	return (struct d_params *)p->data;
}

/* the site of an fbt probe, written when a program uses it; none for a
 * function cstap refuses to probe (asked here, not of every function
 * listed: the refusal rules are patterns, costly for 60,000 functions) */
static const char *site_of(const struct d_probe *p)
{
	if (blacklist_function_why(p->func, NULL))
		return NULL;
	return xasprintf("kernel.function(\"%s\")%s", p->func, p->key ? ".return" : "");
}

static void add(const struct d_family *fam, const struct d_pdesc *d, const char *func, d_probevec *out)
{
	struct d_probe *pe = d_probe_get(fam, "fbt", "vmlinux", func, "entry", NULL, 0);
	struct d_probe *pr = d_probe_get(fam, "fbt", "vmlinux", func, "return", NULL, 1);
	if (d_glob(d->name, "entry"))
		vec_push(out, pe);
	if (d_glob(d->name, "return"))
		vec_push(out, pr);
}

static void match(const struct d_family *fam, const struct d_pdesc *d, d_probevec *out)
{
	const struct btf *b;

	if (!d_glob(d->prov, "fbt") || !d_glob(d->mod, "vmlinux") || !(b = d_btf()))
		return;
	if (*d->func && !strpbrk(d->func, "*?[\\")) {
		if (btf_func_proto(b, d->func))
			add(fam, d, d->func, out);
		return;
	}
	for (size_t i = 0, n = btf_nfuncs(b); i < n; i++)
		if (d_glob(d->func, btf_func_name(b, i)))
			add(fam, d, btf_func_name(b, i), out);
}

/* args[] of the probe: the parameters at entry (by the names BTF gives
 * them: registers are embedded C, which BPF cannot run); at return the
 * offset and the value returned */
static bool builtin(struct d_lower *L, struct strbuf *out, const char *name, const struct d_expr *index)
{
	struct d_probe *p = L->site_probes->items[0];
	struct d_params *ps = params_of(p);
	int arg = -1;

	if (L->site_probes->len > 1)
		return false;
	if (!strncmp(name, "arg", 3) && name[3] >= '0' && name[3] <= '9' && !name[4])
		arg = name[3] - '0';
	else if (!strcmp(name, "args") && index && index->args.len == 1 && index->args.items[0]->kind == DE_INT)
		arg = (int)index->args.items[0]->num;
	if (arg < 0)
		return false;
	if (p->key)   /* return */
		strbuf_addstr(out, arg == 1 && ps->ret ? "$return" : "0");
	else if (arg < ps->names.len && ps->names.items[arg])
		strbuf_addf(out, "$%s", ps->names.items[arg]);
	else
		strbuf_addstr(out, "0");
	return true;
}

static const char *arg_type(const struct d_probe *cp, int i)
{
	struct d_probe *p = (struct d_probe *)cp;
	struct d_params *ps = params_of(p);

	if (p->key)   /* return: the offset, the value */
		return i == 0 ? "int" : i == 1 ? ps->ret : NULL;
	return i < ps->types.len ? ps->types.items[i] : NULL;
}

/* the BTF type of args[i] (the parameter's) */
static uint32_t arg_btf_type(const struct d_probe *p, int i)
{
	struct d_params *ps = params_of((struct d_probe *)p);

	return !p->key && i < ps->type_ids.len ? (uint32_t)ps->type_ids.items[i] : 0;
}

const struct d_family d_fam_fbt = {
	.name = "fbt",
	.match = match,
	.builtin = builtin,
	.arg_type = arg_type,
	.attrs = { "Private", "Private", "Unknown", "Private", "Private", "ISA" },
	.kernel_args = true,
	.site_of = site_of,
	.arg_btf_type = arg_btf_type,
};
