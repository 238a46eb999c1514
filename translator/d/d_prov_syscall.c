/* d_prov_syscall.c - the syscall provider: syscall::NAME:entry and
 * :return of every system call, named as DTrace for Linux names them (the
 * kernel's trace events syscalls/sys_enter_NAME: newfstatat, newuname ...).
 *
 * Every entry fires at cstap's kernel.trace("raw_syscalls:sys_enter"),
 * every return at raw_syscalls:sys_exit, told apart by the system call's
 * number: one attachment however many calls a clause names (a tracepoint
 * per call costs the BPF runtime seconds for syscall:::entry), on the BPF
 * runtime and the module runtime alike. At entry arg0..arg5 are the
 * call's arguments as the task passed them (its saved registers), at
 * return arg0 and arg1 the return value, and errno the error it returns.
 * x86-64 numbers: a 32-bit task's calls are numbered otherwise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d/d_lower.h"
#include "d/d_provider.h"

#define ENTRY_SITE "kernel.trace(\"raw_syscalls:sys_enter\")"
#define RETURN_SITE "kernel.trace(\"raw_syscalls:sys_exit\")"

struct syscall {
	char *name;              /* DTrace's */
	long nr;
};
static VEC(struct syscall) calls;

/* Numbers newer than the C library's headers may know (x86-64's table) */
static const struct { const char *name; long nr; } newer[] = {
	{ "uretprobe", 335 }, { "uprobe", 336 }, { "cachestat", 451 }, { "fchmodat2", 452 },
	{ "map_shadow_stack", 453 }, { "futex_wake", 454 }, { "futex_wait", 455 },
	{ "futex_requeue", 456 }, { "statmount", 457 }, { "listmount", 458 },
	{ "lsm_get_self_attr", 459 }, { "lsm_set_self_attr", 460 }, { "lsm_list_modules", 461 },
	{ "mseal", 462 }, { "setxattrat", 463 }, { "getxattrat", 464 }, { "listxattrat", 465 },
	{ "removexattrat", 466 }, { "open_tree_attr", 467 }, { "file_getattr", 468 },
	{ "file_setattr", 469 },
};

/* The kernel names a few calls otherwise than the ABI's table does */
static const char *const renamed[][2] = {
	{ "sendfile64", "sendfile" }, { "umount", "umount2" },
};

struct nr_name {
	char *name;
	long nr;
};
typedef VEC(struct nr_name) nr_names;

/* the ABI's numbers: __NR_name of the C library's asm/unistd_64.h, and
 * those newer than it */
static void abi_numbers(nr_names *out)
{
	static const char *const headers[] = {
		"/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "/usr/include/asm/unistd_64.h",
	};
	char line[256], name[128];
	long nr;

	for (size_t i = 0; i < sizeof(headers) / sizeof(headers[0]); i++) {
		FILE *f = fopen(headers[i], "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "#define __NR_%127s %ld", name, &nr) == 2)
				vec_push(out, ((struct nr_name){ xstrdup(name), nr }));
		fclose(f);
		break;
	}
	for (size_t i = 0; i < sizeof(newer) / sizeof(newer[0]); i++)
		vec_push(out, ((struct nr_name){ (char *)newer[i].name, newer[i].nr }));
}

static long number_of(const nr_names *abi, const char *name)
{
	for (int i = 0; i < abi->len; i++)
		if (!strcmp(abi->items[i].name, name))
			return abi->items[i].nr;
	return -1;
}

/* the number of the kernel's call NAME: the ABI's NAME, or newNAME's
 * NAME (newfstat is fstat), or a renamed one's; -1 if none */
static long event_number(const nr_names *abi, const char *name)
{
	long nr = number_of(abi, name);

	if (nr < 0 && !strncmp(name, "new", 3))
		nr = number_of(abi, name + 3);
	for (size_t i = 0; nr < 0 && i < sizeof(renamed) / sizeof(renamed[0]); i++)
		if (!strcmp(name, renamed[i][0]))
			nr = number_of(abi, renamed[i][1]);
	return nr;
}

static int by_number(const void *a, const void *b)
{
	const struct syscall *x = a, *y = b;

	return x->nr < y->nr ? -1 : x->nr > y->nr;
}

/* the kernel's calls (its trace events, where tracefs shows them; else
 * the ABI's table), by number */
static void load_calls(void)
{
	static bool loaded;
	nr_names abi = { 0 };
	strvec ev = { 0 };

	if (loaded)
		return;
	loaded = true;
	abi_numbers(&abi);
	if (dir_entries("/sys/kernel/tracing/events/syscalls", &ev) ||
	    dir_entries("/sys/kernel/debug/tracing/events/syscalls", &ev)) {
		for (int i = 0; i < ev.len; i++) {
			const char *base = strrchr(ev.items[i], '/') + 1;
			long nr;
			if (strncmp(base, "sys_enter_", 10) || (nr = event_number(&abi, base + 10)) < 0)
				continue;
			vec_push(&calls, ((struct syscall){ xstrdup(base + 10), nr }));
		}
	}
	if (!calls.len)
		for (int i = 0; i < abi.len; i++)
			if (number_of(&abi, abi.items[i].name) == abi.items[i].nr)   /* each once */
				vec_push(&calls, ((struct syscall){ abi.items[i].name, abi.items[i].nr }));
	qsort(calls.items, (size_t)calls.len, sizeof(calls.items[0]), by_number);
}

static void match(const struct d_family *fam, const struct d_pdesc *d, d_probevec *out)
{
	if (!d_glob(d->prov, "syscall") || !d_glob(d->mod, "vmlinux"))
		return;
	load_calls();
	bool entry = d_glob(d->name, "entry"), ret = d_glob(d->name, "return");
	for (int i = 0; i < calls.len && (entry || ret); i++) {
		if (!d_glob(d->func, calls.items[i].name))
			continue;
		struct d_probe *e = d_probe_get(fam, "syscall", "vmlinux", calls.items[i].name, "entry",
						ENTRY_SITE, calls.items[i].nr);
		struct d_probe *r = d_probe_get(fam, "syscall", "vmlinux", calls.items[i].name, "return",
						RETURN_SITE, calls.items[i].nr);
		if (entry)
			vec_push(out, e);
		if (ret)
			vec_push(out, r);
	}
}

static bool is_return(const struct d_probe *p)
{
	return !strcmp(p->name, "return");
}

/* the number of the call at the probe's site */
static const char *nr_expr(const struct d_probe *p)
{
	return is_return(p) ? "$regs->orig_ax" : "$id";
}

static int by_key(const void *a, const void *b)
{
	long x = (*(struct d_probe *const *)a)->key, y = (*(struct d_probe *const *)b)->key;

	return x < y ? -1 : x > y;
}

/* nr == 0 || (nr >= 17 && nr <= 19) ...: runs of numbers as ranges;
 * nothing when ps are every call */
static bool guard(const d_probevec *ps, struct strbuf *out)
{
	const char *nr = nr_expr(ps->items[0]);
	struct d_probe **v;
	int n = ps->len;

	load_calls();
	if (n >= calls.len)
		return false;
	v = xmalloc((size_t)n * sizeof(*v));
	memcpy(v, ps->items, (size_t)n * sizeof(*v));
	qsort(v, (size_t)n, sizeof(*v), by_key);
	strbuf_addch(out, '(');
	for (int i = 0; i < n;) {
		int j = i;
		while (j + 1 < n && v[j + 1]->key <= v[j]->key + 1)
			j++;
		if (i)
			strbuf_addstr(out, " || ");
		if (v[j]->key == v[i]->key)
			strbuf_addf(out, "%s == %ld", nr, v[i]->key);
		else
			strbuf_addf(out, "(%s >= %ld && %s <= %ld)", nr, v[i]->key, nr, v[j]->key);
		i = j + 1;
	}
	strbuf_addch(out, ')');
	free(v);
	return true;
}

#define ONCE_NAMES 1u

/* __d_syscall[nr]: the names, filled before the first probe */
static void names_table(struct d_lower *L)
{
	if (L->prov_once & ONCE_NAMES)
		return;
	L->prov_once |= ONCE_NAMES;
	strbuf_addstr(&L->globals, "global __d_syscall\n");
	strbuf_addstr(&L->funcs, "probe begin(-1000000) {\n");
	for (int i = 0; i < calls.len; i++) {
		strbuf_addf(&L->funcs, "    __d_syscall[%ld] = ", calls.items[i].nr);
		d_add_literal(&L->funcs, calls.items[i].name);
		strbuf_addstr(&L->funcs, ";\n");
	}
	strbuf_addstr(&L->funcs, "}\n");
}

/* arguments at entry (the task's registers as the call took them),
 * the return value and errno at return, the name of the call */
static bool builtin(struct d_lower *L, struct strbuf *out, const char *name, const struct d_expr *index)
{
	static const char *const regs[] = { "di", "si", "dx", "r10", "r8", "r9" };
	const struct d_probe *p = L->site_probes->items[0];
	bool ret = is_return(p);
	int arg = -1;

	if (!strcmp(name, "probefunc") && L->site_probes->len > 1) {   /* else the one's */
		names_table(L);
		strbuf_addf(out, "__d_syscall[%s]", nr_expr(p));
		return true;
	}
	if (!strcmp(name, "errno") && ret) {
		strbuf_addstr(out, "(($ret < 0 && $ret >= -4095) ? -$ret : 0)");
		return true;
	}
	if (!strncmp(name, "arg", 3) && name[3] >= '0' && name[3] <= '9' && !name[4])
		arg = name[3] - '0';
	else if (!strcmp(name, "args") && index && index->args.len == 1 && index->args.items[0]->kind == DE_INT)
		arg = (int)index->args.items[0]->num;
	if (arg < 0)
		return false;
	if (ret)
		strbuf_addstr(out, arg <= 1 ? "$ret" : "0");
	else if (arg < 6)
		strbuf_addf(out, "$regs->%s", regs[arg]);
	else
		strbuf_addstr(out, "0");
	return true;
}

const struct d_family d_fam_syscall = {
	.name = "syscall",
	.match = match,
	.guard = guard,
	.builtin = builtin,
	.attrs = { "Evolving", "Evolving", "Common", "Private", "Private", "ISA" },
};
