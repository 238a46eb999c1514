/* d_prov_rawtp.c - the kernel's tracepoints as probes of their own:
 * rawtp:GROUP::NAME (DTrace 2's provider of raw tracepoints) and
 * perf:GROUP::NAME (DTrace 1's name for the same), as cstap's
 * kernel.trace("GROUP:NAME"). args[] are the tracepoint's parameters,
 * typed by BTF (args[0]->pid reads the task). The tracepoints are those
 * tracefs lists (the running kernel's events, by group).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "d/d_lower.h"
#include "d/d_provider.h"
#include "target/btf.h"

static const char *const providers[] = { "rawtp", "perf" };

/* the running kernel's events: their groups and names */
static strvec groups_of, names_of;

static void load_events(void)
{
	static bool loaded;
	strvec groups = { 0 };

	if (loaded)
		return;
	loaded = true;
	if (!dir_entries("/sys/kernel/tracing/events", &groups))
		dir_entries("/sys/kernel/debug/tracing/events", &groups);
	for (int i = 0; i < groups.len; i++) {
		strvec names = { 0 };
		const char *g = strrchr(groups.items[i], '/') + 1;
		if (!dir_entries(groups.items[i], &names))
			continue;
		for (int j = 0; j < names.len; j++) {
			const char *n = strrchr(names.items[j], '/') + 1;
			char *fmt = xasprintf("%s/format", names.items[j]);
			if (!access(fmt, F_OK) && strcmp(g, "syscalls") && strcmp(g, "ftrace")) {
				vec_push(&groups_of, xstrdup(g));
				vec_push(&names_of, xstrdup(n));
			}
			free(fmt);
		}
	}
}

static void match(const struct d_family *fam, const struct d_pdesc *d, d_probevec *out)
{
	for (size_t k = 0; k < sizeof(providers) / sizeof(providers[0]); k++) {
		if (!d_glob(d->prov, providers[k]) || *d->func)
			continue;
		load_events();
		for (int i = 0; i < names_of.len; i++) {
			const char *g = groups_of.items[i], *n = names_of.items[i];
			if (d_glob(d->mod, g) && d_glob(d->name, n)) {
				char *site = xasprintf("kernel.trace(\"%s:%s\")", g, n);
				vec_push(out, d_probe_get(fam, providers[k], g, "", n, site, 0));
			}
		}
	}
}

/* the tracepoint's parameters (after its __data), made on first use */
static struct d_params *params_of(const struct d_probe *cp)
{
	struct d_probe *p = (struct d_probe *)cp;

	if (!p->data) {
		struct d_params *ps = xcalloc(1, sizeof(*ps));
		const struct btf *b = d_btf();
		d_btf_params(b ? btf_tracepoint_proto(b, p->name) : 0, 1, ps);
		p->data = ps;
	}
	return (struct d_params *)p->data;
}

static bool builtin(struct d_lower *L, struct strbuf *out, const char *name, const struct d_expr *index)
{
	struct d_params *ps;
	int arg = -1;

	if (L->site_probes->len > 1)
		return false;
	ps = params_of(L->site_probes->items[0]);
	if (!strncmp(name, "arg", 3) && name[3] >= '0' && name[3] <= '9' && !name[4])
		arg = name[3] - '0';
	else if (!strcmp(name, "args") && index && index->args.len == 1 && index->args.items[0]->kind == DE_INT)
		arg = (int)index->args.items[0]->num;
	if (arg < 0)
		return false;
	if (arg < ps->names.len && ps->names.items[arg])
		strbuf_addf(out, "$%s", ps->names.items[arg]);
	else
		strbuf_addstr(out, "0");
	return true;
}

static const char *arg_type(const struct d_probe *p, int i)
{
	struct d_params *ps = params_of(p);

	return i < ps->types.len ? ps->types.items[i] : NULL;
}

/* the BTF type of args[i] (the parameter's) */
static uint32_t arg_btf_type(const struct d_probe *p, int i)
{
	struct d_params *ps = params_of((struct d_probe *)p);

	return i < ps->type_ids.len ? (uint32_t)ps->type_ids.items[i] : 0;
}

const struct d_family d_fam_rawtp = {
	.name = "rawtp",
	.match = match,
	.builtin = builtin,
	.arg_type = arg_type,
	.attrs = { "Private", "Private", "Unknown", "Private", "Private", "ISA" },
	.kernel_args = true,
	.arg_btf_type = arg_btf_type,
};
