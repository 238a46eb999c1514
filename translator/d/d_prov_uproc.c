/* d_prov_uproc.c - the process a pid or USDT provider names
 * (pid1234:..., test_prov$target:...): its program and shared libraries,
 * their module names and their functions, for d_prov_pid.c and
 * d_prov_usdt.c. The process is a running one (its /proc/PID/exe and
 * mappings), or -c's command before it runs (pid 0 in the name: $target
 * is known only once stap starts it): its program found as the shell
 * would, its libraries as the loader would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "d/d_prov_uproc.h"
#include "options.h"
#include "session.h"

/* the session cstap's target readers take: the running kernel's */
struct session *d_session(void)
{
	static struct session s;
	static bool made;

	if (!made) {
		made = true;
		session_init(&s);
	}
	return &s;
}

/* "pid1234" against the description's provider part: the name's number
 * (0: -c's process) when pat matches name followed by it */
bool d_uproc_provider(const char *pat, const char *name, long *pid)
{
	size_t n = strlen(pat), d = n;
	char buf[64];

	while (d > 0 && pat[d - 1] >= '0' && pat[d - 1] <= '9')
		d--;
	if (d == n)
		return false;
	*pid = strtol(pat + d, NULL, 10);
	snprintf(buf, sizeof(buf), "%s%ld", name, *pid);
	if (!d_glob(pat, buf))
		return false;
	return *pid > 0 || d_provider_target()->cmd;
}

/* the running process's mapped ELF files but its program */
static void mapped_libraries(long pid, const char *exe, strvec *out)
{
	char path[64], line[4096];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/maps", pid);
	if (!(f = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		char *file = strchr(line, '/');
		if (!file)
			continue;
		file[strcspn(file, "\n")] = 0;
		if (!strcmp(file, exe) || !strstr(file, ".so"))
			continue;
		bool seen = false;
		for (int i = 0; i < out->len && !seen; i++)
			seen = !strcmp(out->items[i], file);
		if (!seen)
			vec_push(out, xstrdup(file));
	}
	fclose(f);
}

/* the first word of -c's command */
static char *command_program(const char *cmd)
{
	size_t n = strcspn(cmd, " \t");

	return xstrndup(cmd, n);
}

const struct d_uproc *d_uproc(long pid)
{
	static VEC(struct d_uproc *) procs;
	struct d_uproc *u;
	char *why = NULL;

	for (int i = 0; i < procs.len; i++)
		if (procs.items[i]->pid == pid)
			return procs.items[i];
	u = xcalloc(1, sizeof(*u));
	u->pid = pid;
	if (pid > 0) {
		char path[64], exe[4096];
		ssize_t n;
		snprintf(path, sizeof(path), "/proc/%ld/exe", pid);
		if ((n = readlink(path, exe, sizeof(exe) - 1)) > 0) {
			exe[n] = 0;
			u->exe = xstrdup(exe);
			mapped_libraries(pid, u->exe, &u->libs);
		}
	} else if (d_provider_target()->cmd) {
		char *prog = command_program(d_provider_target()->cmd);
		if ((u->exe = uimage_resolve(d_session(), prog, &why)))
			uimage_libraries(d_session(), u->exe, "*", &u->libs);
		free(prog);
	}
	free(why);
	vec_push(&procs, u);
	return u;
}

const char *d_uproc_module(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

/* a.out is the program; a library matches by its file name or the name
 * cut at one of its dots (libc, libc.so for libc.so.6) */
bool d_uproc_module_matches(const char *pat, const char *path, bool is_exe)
{
	const char *base = d_uproc_module(path);

	if (d_glob(pat, base) || (is_exe && d_glob(pat, "a.out")))
		return true;
	for (const char *dot = strchr(base, '.'); dot; dot = strchr(dot + 1, '.')) {
		char *prefix = xstrndup(base, (size_t)(dot - base));
		bool m = d_glob(pat, prefix);
		free(prefix);
		if (m)
			return true;
	}
	return false;
}

const usymvec *d_uproc_functions(const char *path)
{
	static VEC(struct { char *path; usymvec f; } *) files;
	const char *why = NULL;

	for (int i = 0; i < files.len; i++)
		if (!strcmp(files.items[i]->path, path))
			return &files.items[i]->f;
	typeof(files.items[0]) e = xcalloc(1, sizeof(*e));
	e->path = xstrdup(path);
	struct dw_image *img = dw_user(d_session(), path, &why);
	if (img)
		uimage_functions(img, "*", &e->f);
	vec_push(&files, e);
	return &e->f;
}

/* the probe's process: pid() of it, or of -c's */
void d_uproc_guard(long pid, struct strbuf *out)
{
	if (pid > 0)
		strbuf_addf(out, "pid() == %ld", pid);
	else
		strbuf_addstr(out, "pid() == target()");
}
