/* d_prov_pid.c - the pid provider: pidPID:MODULE:FUNCTION:entry and
 * :return of the functions of a process's program (module a.out, or its
 * file name) and shared libraries (libc.so.6, libc.so, libc), as cstap's
 * process("FILE").function("FUNCTION") and .return under the condition
 * that the process is PID's (pid$target of -c: target()). At entry
 * arg0..arg5 are the arguments' registers, at return arg1 the value
 * returned (arg0, the return's offset, is 0). Probes on instructions
 * (a function's offsets) are not made.
 */
#include <stdlib.h>
#include <string.h>

#include "d/d_lower.h"
#include "d/d_prov_uproc.h"

struct pid_probe {
	long pid;
	bool ret;
};

/* the probes of one file's functions that d matches */
static void match_file(const struct d_family *fam, const struct d_pdesc *d, long pid, const char *path,
		       bool is_exe, d_probevec *out)
{
	const usymvec *fs;
	char *prov;

	if (!d_uproc_module_matches(d->mod, path, is_exe))
		return;
	prov = xasprintf("pid%ld", pid);   /* the catalog keeps it */
	fs = d_uproc_functions(path);
	for (int i = 0; i < fs->len; i++) {
		const char *f = fs->items[i].name;
		if (!d_glob(d->func, f) || (i && !strcmp(f, fs->items[i - 1].name)))
			continue;
		for (int r = 0; r < 2; r++) {
			if (!d_glob(d->name, r ? "return" : "entry"))
				continue;
			/* optional: a symbol cstap cannot probe (no size, not code) does not stop the rest */
			char *site = xasprintf("process(\"%s\").function(\"%s\")%s ?", path, f, r ? ".return" : "");
			struct d_probe *p = d_probe_get(fam, prov, d_uproc_module(path), f, r ? "return" : "entry",
							site, pid);
			if (!p->data) {
				struct pid_probe *pp = xcalloc(1, sizeof(*pp));
				pp->pid = pid;
				pp->ret = r;
				p->data = pp;
			}
			vec_push(out, p);
		}
	}
}

static void match(const struct d_family *fam, const struct d_pdesc *d, d_probevec *out)
{
	const struct d_uproc *u;
	long pid;

	if (!d_uproc_provider(d->prov, "pid", &pid))
		return;
	/* a probe's name is entry, return or an offset (not made here); a
	 * function "-" is an address, named by its value */
	bool offset = *d->name && !d->name[strspn(d->name, "0123456789abcdefABCDEFx")];
	if (*d->name && !strpbrk(d->name, "*?[\\") && strcmp(d->name, "entry") && strcmp(d->name, "return") && !offset) {
		d_provider_fail("D_PROC_NAME", "invalid probe name '%s' for the pid provider: entry, return or an offset",
				d->name);
		return;
	}
	if (!strcmp(d->func, "-") && (!*d->name || strpbrk(d->name, "*?[\\") || !offset)) {
		d_provider_fail("D_PROC_NAME", "only an absolute address may be named in function '-', not '%s'",
				d->name);
		return;
	}
	if (!(u = d_uproc(pid))->exe)
		return;
	match_file(fam, d, pid, u->exe, true, out);
	for (int i = 0; i < u->libs.len; i++)
		match_file(fam, d, pid, u->libs.items[i], false, out);
}

static bool guard(const d_probevec *ps, struct strbuf *out)
{
	d_uproc_guard(((const struct pid_probe *)ps->items[0]->data)->pid, out);
	return true;
}

/* arguments in the calling convention's registers; the value returned */
static bool builtin(struct d_lower *L, struct strbuf *out, const char *name, const struct d_expr *index)
{
	static const char *const regs[] = { "rdi", "rsi", "rdx", "rcx", "r8", "r9" };
	const struct pid_probe *pp = L->site_probes->items[0]->data;
	int arg = -1;

	if (!strcmp(name, "probeprov") && !pp->pid) {   /* -c's: its pid is known when it runs */
		strbuf_addstr(out, "sprintf(\"pid%d\", target())");
		return true;
	}
	if (!strncmp(name, "arg", 3) && name[3] >= '0' && name[3] <= '9' && !name[4])
		arg = name[3] - '0';
	else if (!strcmp(name, "args") && index && index->args.len == 1 && index->args.items[0]->kind == DE_INT)
		arg = (int)index->args.items[0]->num;
	if (arg < 0)
		return false;
	if (pp->ret)
		strbuf_addstr(out, arg == 1 ? "returnval()" : "0");
	else if (arg < 6)
		strbuf_addf(out, "register(\"%s\")", regs[arg]);
	else
		strbuf_addstr(out, "0");
	return true;
}

const struct d_family d_fam_pid = {
	.name = "pid",
	.match = match,
	.guard = guard,
	.builtin = builtin,
	.attrs = { "Unstable", "Unstable", "ISA", "Unstable", "Unstable", "ISA" },
};
