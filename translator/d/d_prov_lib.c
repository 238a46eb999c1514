/* d_prov_lib.c - the constants DTrace's library gives the providers'
 * arguments (its signal.d, errno.d and procfs.d): signal numbers (SIGUSR1
 * of proc:::signal-send's args[2]), errno values (exec-failure's), the
 * CLD_* reasons of proc:::exit and PR_MODEL_*, as D inlines every program
 * sees. The values are the C library's headers' (asm/signal.h,
 * asm-generic/errno*.h, asm-generic/siginfo.h): the kernel's ABI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d/d_parse.h"
#include "d/d_provider.h"

/* one header's `#define NAME VALUE`s */
struct define {
	char *name, *value;
};
typedef VEC(struct define) defines;

static void read_defines(const char *path, defines *out)
{
	FILE *f = fopen(path, "r");
	char line[512], name[128], value[128];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "#define %127s %127s", name, value) == 2 && !strchr(name, '('))
			vec_push(out, ((struct define){ xstrdup(name), xstrdup(value) }));
	fclose(f);
}

/* NAME's value, through other names (SIGPOLL is SIGIO); false if none */
static bool value_of(const defines *d, const char *name, long *v, int depth)
{
	for (int i = d->len - 1; i >= 0 && depth < 8; i--) {
		if (strcmp(d->items[i].name, name))
			continue;
		char *end;
		*v = strtol(d->items[i].value, &end, 0);
		if (!*end)
			return true;
		return value_of(d, d->items[i].value, v, depth + 1);
	}
	return false;
}

/* "inline int NAME = VALUE;" for the headers' names with that prefix */
static void inlines(struct strbuf *out, const char *const *headers, const char *prefix)
{
	defines d = { 0 };
	size_t n = strlen(prefix);
	long v;

	for (int i = 0; headers[i]; i++)
		read_defines(headers[i], &d);
	for (int i = 0; i < d.len; i++) {
		const char *name = d.items[i].name;
		bool dup = false;
		for (int j = 0; j < i && !dup; j++)
			dup = !strcmp(d.items[j].name, name);
		if (!dup && !strncmp(name, prefix, n) && name[n] >= 'A' && name[n] <= 'Z' && !strchr(name + n, '_') &&
		    value_of(&d, name, &v, 0))
			strbuf_addf(out, "inline int %s = %ld;\n", name, v);
	}
}

void d_provider_library(struct d_diag *dg, struct d_types *types)
{
	static const char *const signals[] = {
		"/usr/include/x86_64-linux-gnu/asm/signal.h", "/usr/include/asm/signal.h", NULL,
	};
	static const char *const errnos[] = {
		"/usr/include/asm-generic/errno-base.h", "/usr/include/asm-generic/errno.h", NULL,
	};
	static const char *const siginfo[] = { "/usr/include/asm-generic/siginfo.h", NULL };
	struct strbuf lib = STRBUF_INIT;
	const char *what = dg->what, *text = dg->text;

	inlines(&lib, signals, "SIG");
	inlines(&lib, errnos, "E");
	inlines(&lib, siginfo, "CLD_");
	strbuf_addstr(&lib, "inline int PR_MODEL_ILP32 = 1;\ninline int PR_MODEL_LP64 = 2;\n");
	struct d_parse_args pa = { .argc = 1, .argv = (const char *[]){ "dtrace" }, .is_file = true,
				   .allow_empty = true };
	dg->what = "failed to compile DTrace's library";
	dg->text = lib.buf;
	d_parse(dg, types, "<library>", lib.buf, &pa);
	dg->what = what;
	dg->text = text;
}
