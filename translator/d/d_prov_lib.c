/* d_prov_lib.c - the constants DTrace's library gives the providers'
 * arguments (its signal.d, errno.d and procfs.d): signal numbers (SIGUSR1
 * of proc:::signal-send's args[2]), errno values (exec-failure's) and the
 * CLD_* reasons of proc:::exit, which d_lib.c's constants fall back to.
 * The values are the C library's headers' (asm/signal.h,
 * asm-generic/errno*.h, asm-generic/siginfo.h): the kernel's ABI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* the constants: the headers' names with one of the prefixes */
struct constant {
	const char *name;
	long value;
};
static VEC(struct constant) constants;

static void add_constants(const char *const *headers, const char *prefix)
{
	defines d = { 0 };
	size_t n = strlen(prefix);
	long v;

	for (int i = 0; headers[i]; i++)
		read_defines(headers[i], &d);
	for (int i = 0; i < d.len; i++) {
		const char *name = d.items[i].name;
		if (!strncmp(name, prefix, n) && name[n] >= 'A' && name[n] <= 'Z' && !strchr(name + n, '_') &&
		    value_of(&d, name, &v, 0))
			vec_push(&constants, ((struct constant){ name, v }));
	}
}

bool d_provider_constant(const char *name, int64_t *value)
{
	static const char *const signals[] = {
		"/usr/include/x86_64-linux-gnu/asm/signal.h", "/usr/include/asm/signal.h", NULL,
	};
	static const char *const errnos[] = {
		"/usr/include/asm-generic/errno-base.h", "/usr/include/asm-generic/errno.h", NULL,
	};
	static const char *const siginfo[] = { "/usr/include/asm-generic/siginfo.h", NULL };
	static bool loaded;

	if (!loaded) {
		loaded = true;
		add_constants(signals, "SIG");
		add_constants(errnos, "E");
		add_constants(siginfo, "CLD_");
	}
	for (int i = 0; i < constants.len; i++)
		if (!strcmp(constants.items[i].name, name)) {
			*value = constants.items[i].value;
			return true;
		}
	return false;
}
