/* d_usdt.c - dtrace -h and -G (see d_usdt.h): the scripts' providers
 * read, each probe given the names <sys/sdt.h>, the header's macros and
 * DTrace know it by, then the header or the object written.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d/d_parse.h"
#include "d/d_usdt.h"

/* The marker's name: DTrace's "foo-bar" was "foo__bar" in the script (the
 * parser turns each "__" into "-"), and <sys/sdt.h> takes an identifier. */
static char *marker_name(const char *dname)
{
	struct strbuf sb = STRBUF_INIT;

	for (; *dname; dname++) {
		if (*dname == '-')
			strbuf_addstr(&sb, "__");
		else
			strbuf_addch(&sb, *dname);
	}
	return strbuf_detach(&sb);
}

/* PROVIDER_PROBE_NAME: the macro's name, each "-" of DTrace's name an "_"
 * (as DTrace's own headers and SystemTap's script name them). */
static char *macro_name(const char *provider, const char *dname)
{
	char *m = xasprintf("%s_%s", provider, dname);

	for (char *p = m; *p; p++)
		*p = *p == '-' ? '_' : (char)toupper((unsigned char)*p);
	return m;
}

/* The probe a macro of the same name was made for already, if any: two
 * probes of one macro (foo__bar and foo_bar) would be one marker's name
 * in the program and another's in the trace. */
static struct d_usdt_probe *find_macro(const d_usdt_probes *v, const char *macro)
{
	for (int i = 0; i < v->len; i++)
		if (!strcmp(v->items[i]->macro, macro))
			return v->items[i];
	return NULL;
}

/* One provider's probes into v; a probe declared again (the same provider
 * in two scripts) is kept once if its arguments agree. An error is
 * DTrace's D_PROV_* one, reported at the probe (d_error: no return). */
static void add_provider(struct d_diag *dg, d_usdt_probes *v, const struct d_provider *pv)
{
	for (int i = 0; i < pv->probes.len; i++) {
		const struct d_probe_decl *pr = pv->probes.items[i];
		struct d_usdt_probe *u = xcalloc(1, sizeof(*u));
		struct d_usdt_probe *seen;

		u->provider = pv->name;
		u->dname = pr->name;
		u->name = marker_name(pr->name);
		u->macro = macro_name(pv->name, pr->name);
		u->semaphore = xasprintf("%s_%s_semaphore", pv->name, u->name);
		u->decl = pr;
		if (pr->args.len > D_USDT_MAX_ARGS)
			d_error(dg, "D_PROV_PRARGLEN", pr->pos, "probe %s:::%s has %d arguments: a "
				"<sys/sdt.h> marker has at most %d", pv->name, pr->name, pr->args.len,
				D_USDT_MAX_ARGS);
		if ((seen = find_macro(v, u->macro))) {
			bool same = !strcmp(seen->provider, u->provider) && !strcmp(seen->name, u->name);
			if (same && seen->decl->args.len == pr->args.len)
				continue;
			if (same)
				d_error(dg, "D_PROV_PRDUP", pr->pos, "probe %s:::%s is declared again with %d "
					"arguments instead of %d", u->provider, u->dname, pr->args.len,
					seen->decl->args.len);
			d_error(dg, "D_PROV_BADNAME", pr->pos, "probes %s:::%s and %s:::%s would both be "
				"macro %s", seen->provider, seen->dname, u->provider, u->dname, u->macro);
		}
		vec_push(v, u);
	}
}

/* Names D takes from the kernel's types under DTrace on Linux (vmlinux`bool),
 * which cstap's D does not read: bool, which providers' probes use. */
static struct d_type *kernel_names(void *arg, struct d_types *ts, const char *module, const char *name)
{
	if ((!module || !strcmp(module, "vmlinux")) && !strcmp(name, "bool"))
		return d_type_lookup(ts, "_Bool");
	return NULL;
}

/* The probes of every provider the scripts declare, in order; their
 * clauses, if any, are not checked (DTrace would compile them, but only
 * the declarations make the header). 0, or -1 after saying why. */
static int read_providers(const struct d_usdt_opts *o, d_usdt_probes *v)
{
	struct d_types *types = d_types_new();   /* one table: a typedef serves later scripts */

	d_types_set_resolver(types, kernel_names, NULL);

	for (int i = 0; i < o->scripts.len; i++) {
		const char *path = o->scripts.items[i];
		const char *argv0 = path;
		char *text = o->load(o->load_arg, path);
		jmp_buf abort;

		if (!text)
			return -1;
		struct d_diag dg = { .text = text, .abort = &abort, .errtags = o->errtags,
				     .what = xasprintf("failed to compile script %s", path) };
		struct d_parse_args pa = { .argc = 1, .argv = &argv0, .is_file = true,
					   .defaultargs = true, .allow_empty = true };
		if (setjmp(abort))
			return -1;
		struct d_program *prog = d_parse(&dg, types, path, text, &pa);
		if (!prog)
			return -1;
		for (int j = 0; j < prog->providers.len; j++)
			add_provider(&dg, v, prog->providers.items[j]);
	}
	return 0;
}

/* What -h and -G write without -o, in the current directory: the first
 * script's name without its directory, its extension .h or .o (SystemTap's
 * script's rule, and DTrace's for a name ending in .d); -G of a script
 * whose name does not end in .d writes d.out, as DTrace does. */
static char *default_output(const char *script, enum d_usdt_mode mode)
{
	const char *base = strrchr(script, '/');
	char *out, *dot, *path;
	size_t len = strlen(script);

	if (mode == D_USDT_OBJECT && (len < 2 || strcmp(script + len - 2, ".d")))
		return xstrdup("d.out");
	out = xstrdup(base ? base + 1 : script);
	if ((dot = strrchr(out, '.')) && dot != out)
		*dot = 0;
	path = xasprintf("%s%s", out, mode == D_USDT_HEADER ? ".h" : ".o");
	free(out);
	return path;
}

int d_usdt_main(const struct d_usdt_opts *o)
{
	d_usdt_probes probes = { 0 };

	if (!o->scripts.len) {
		fprintf(stderr, "dtrace: -%c requires a script (-s FILE) declaring providers\n",
			o->mode == D_USDT_HEADER ? 'h' : 'G');
		return 2;
	}
	if (read_providers(o, &probes))
		return 1;
	char *out = o->output ? xstrdup(o->output) : default_output(o->scripts.items[0], o->mode);
	int r = o->mode == D_USDT_HEADER
		? d_usdt_write_header(&probes, out, o->scripts.items[0])
		: d_usdt_write_object(&probes, out, o->scripts.items[0], o->m32) ||
		  d_usdt_check_objects(out, o->objects, o->nobjects);
	free(out);
	return r ? 1 : 0;
}
