/* cast_headers.c - the types of C headers named as a @cast module:
 * @cast(p, "sockaddr_un", "<sys/un.h>") and "<sys/socket.h><sys/un.h>".
 *
 * The headers are compiled once per run (per distinct module string) into a
 * small shared object with every type they declare kept in its DWARF
 * (-fno-eliminate-unused-debug-types); its image then serves find_type like
 * a kernel module's. "kernel<linux/x.h>" needs no compiler: the kernel's own
 * DWARF has those types (elaborate/tvars.c looks there for any "kernel..."
 * module).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debuginfo.h"
#include "env.h"
#include "spawn.h"

/* "<a.h><b/c.h>": the header names, or false if spec is not that form. */
static bool parse_headers(const char *spec, strvec *out)
{
	const char *p = spec;

	while (*p == '<') {
		const char *end = strchr(p, '>');
		if (!end || end == p + 1 || memchr(p + 1, '<', (size_t)(end - p - 1)) ||
		    memchr(p + 1, '\n', (size_t)(end - p - 1)))
			return false;
		vec_push(out, xstrndup(p + 1, (size_t)(end - p - 1)));
		p = end + 1;
	}
	return out->len > 0 && !*p;
}

bool dw_is_header_module(const char *module)
{
	strvec v = { 0 };
	bool ok = module && parse_headers(module, &v);

	for (int i = 0; i < v.len; i++)
		free(v.items[i]);
	free(v.items);
	return ok;
}

/* Compile the headers into dir/types.so; its path, or NULL with *why. */
static char *compile_headers(struct session *s, const strvec *headers, const char *dir, char **why)
{
	char *c = xasprintf("%s/types.c", dir), *so = xasprintf("%s/types.so", dir);
	char *log = xasprintf("%s/cc.log", dir);
	struct strbuf src = STRBUF_INIT;

	for (int i = 0; i < headers->len; i++)
		strbuf_addf(&src, "#include <%s>\n", headers->items[i]);
	strbuf_addstr(&src, "int stap_cast_types_anchor;\n");
	FILE *f = fopen(c, "w");
	if (!f || fwrite(src.buf, 1, src.len, f) != src.len) {
		*why = xasprintf("cannot write %s", c);
		if (f)
			fclose(f);
		goto fail;
	}
	fclose(f);
	char *argv[] = { "gcc", "-g", "-fno-eliminate-unused-debug-types",
			 "-shared", "-fPIC", "-nostdlib", "-o", so, c, NULL };
	int rc = spawn_wait(argv, NULL, log);
	if (rc != 0) {
		char *msg = read_file(log, NULL);
		char *err = msg ? strstr(msg, "error") : NULL;
		if (err) {   /* the compiler's first error, without its temporary file's name */
			err[strcspn(err, "\n")] = 0;
			*why = xasprintf("the headers do not compile: %s", err);
		}
		if (!*why)
			*why = xasprintf("%s failed (status %d)", argv[0], rc);
		free(msg);
		goto fail;
	}
	if (s->verbose >= 2)
		fprintf(stderr, "@cast headers compiled: %s\n", so);
	strbuf_release(&src);
	free(c);
	free(log);
	return so;
fail:
	strbuf_release(&src);
	free(c);
	free(so);
	free(log);
	return NULL;
}

char *dw_header_types_file(struct session *s, const char *module, char **why)
{
	strvec headers = { 0 };
	char *so = NULL;

	*why = NULL;
	if (!parse_headers(module, &headers)) {
		*why = xasprintf("'%s' is not a list of <headers>", module);
		goto out;
	}
	char *dir = xasprintf("%s/stapcastXXXXXX", env_or(ENV_TMPDIR, "/tmp"));
	if (!mkdtemp(dir)) {
		*why = xasprintf("cannot make a directory %s", dir);
		free(dir);
		goto out;
	}
	so = compile_headers(s, &headers, dir, why);
	/* the caller opens the object and keeps it mapped: the files can go */
	char *c = xasprintf("%s/types.c", dir), *log = xasprintf("%s/cc.log", dir);
	unlink(c);
	unlink(log);
	free(c);
	free(log);
	if (!so)
		rmdir(dir);
	free(dir);
out:
	for (int i = 0; i < headers.len; i++)
		free(headers.items[i]);
	free(headers.items);
	return so;
}
