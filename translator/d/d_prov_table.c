/* d_prov_table.c - providers whose probes are a fixed table
 * (d_provider.h's struct d_ptable: proc, sched, io): matching, guards,
 * and the built-in variables of a probe from its row.
 */
#include <stdlib.h>
#include <string.h>

#include "d/d_lower.h"
#include "d/d_provider.h"

static const struct d_tprobe *row(const struct d_probe *p)
{
	return p->data;
}

void d_table_match(const struct d_family *fam, const struct d_pdesc *d, d_probevec *out)
{
	const struct d_ptable *t = fam->data;

	if (!d_glob(d->prov, t->prov) || !d_glob(d->mod, t->mod) || !d_glob(d->func, ""))
		return;
	for (int i = 0; i < t->n; i++) {
		const struct d_tprobe *r = &t->probes[i];
		struct d_probe *p = d_probe_get(fam, t->prov, t->mod, "", r->name, r->site, i);
		p->data = r;
		if (d_glob(d->name, r->name))
			vec_push(out, p);
	}
}

/* the rows' guards, or'ed; none when one of the probes has none */
bool d_table_guard(const d_probevec *ps, struct strbuf *out)
{
	for (int i = 0; i < ps->len; i++)
		if (!row(ps->items[i])->guard)
			return false;
	strbuf_addch(out, '(');
	for (int i = 0; i < ps->len; i++)
		strbuf_addf(out, "%s(%s)", i ? " || " : "", row(ps->items[i])->guard);
	strbuf_addch(out, ')');
	return true;
}

const char *d_table_arg_type(const struct d_probe *p, int i)
{
	return i < 6 ? row(p)->args[i][0] : NULL;
}

/* the thread's own variables when the probe fires for another thread
 * than the current one (on-cpu: the one switched to) */
static bool task_builtin(const char *task, const char *name, struct strbuf *out)
{
	static const char *const vars[][2] = {
		{ "pid", "task_pid($T)" }, { "tid", "task_tid($T)" }, { "ppid", "task_pid(task_parent($T))" },
		{ "execname", "task_execname($T)" }, { "uid", "task_uid($T)" }, { "gid", "task_gid($T)" },
		{ "curthread", "$T" },
	};

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (!strcmp(name, vars[i][0])) {
			char *v = str_replace_all(vars[i][1], "$T", task);
			strbuf_addstr(out, v);
			free(v);
			return true;
		}
	return false;
}

bool d_table_builtin(struct d_lower *L, struct strbuf *out, const char *name, const struct d_expr *index)
{
	const struct d_tprobe *r = row(L->site_probes->items[0]);
	int arg = -1;

	for (int i = 1; i < L->site_probes->len; i++)   /* the clause's probes here differ: not theirs */
		if (row(L->site_probes->items[i]) != r)
			return false;
	if (r->task && task_builtin(r->task, name, out))
		return true;
	if (!strncmp(name, "arg", 3) && name[3] >= '0' && name[3] <= '9' && !name[4])
		arg = name[3] - '0';
	else if (!strcmp(name, "args") && index && index->args.len == 1 && index->args.items[0]->kind == DE_INT)
		arg = (int)index->args.items[0]->num;
	if (arg < 0)
		return false;
	strbuf_addstr(out, arg < 6 && r->args[arg][1] ? r->args[arg][1] : "0");
	return true;
}
