/* tracefs.c - the running kernel's trace events, read once from tracefs
 * (mounted at /sys/kernel/tracing if it is nowhere, as perf and bpftrace
 * do, when we may). */
#include "tracefs.h"

#include <dirent.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel.h"
#include "target.h"

/* An event's name and its system, sorted by name. */
struct tracefs_event {
	char *name, *system;
};

static int event_cmp(const void *a, const void *b)
{
	return strcmp(((const struct tracefs_event *)a)->name, ((const struct tracefs_event *)b)->name);
}

/* The events directory of a tracefs (or debugfs's tracing), mounting
 * tracefs when none is there; NULL if none can be had. */
static const char *events_dir(void)
{
	static const char *const dirs[] = { "/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events" };
	struct stat st;

	for (int tries = 0; tries < 2; tries++) {
		for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
			if (stat(dirs[i], &st) == 0 && S_ISDIR(st.st_mode))
				return dirs[i];
		if (tries || geteuid() != 0 || mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) != 0)
			break;
	}
	return NULL;
}

/* Every events/SYSTEM/NAME directory, into t->tracefs. */
static void read_events(struct target *t)
{
	const char *dir = t->tracefs.dir = events_dir();
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *sys;
	VEC(struct tracefs_event) ev = { 0 };

	if (!d)
		return;
	while ((sys = readdir(d))) {
		if (sys->d_name[0] == '.' || sys->d_type != DT_DIR)
			continue;
		char *path = xasprintf("%s/%s", dir, sys->d_name);
		DIR *e = opendir(path);
		struct dirent *name;
		free(path);
		while (e && (name = readdir(e)))
			if (name->d_name[0] != '.' && name->d_type == DT_DIR)
				vec_push(&ev, ((struct tracefs_event){ xstrdup(name->d_name), xstrdup(sys->d_name) }));
		if (e)
			closedir(e);
	}
	closedir(d);
	qsort(ev.items, (size_t)ev.len, sizeof(*ev.items), event_cmp);
	t->tracefs.events = ev.items;
	t->tracefs.n = (size_t)ev.len;
	t->tracefs.known = true;
}

/* The table, read on the first ask (the running kernel's only). */
static struct target *events_of(struct session *s)
{
	struct target *t = target_of(s);

	if (!t->tracefs.tried) {
		t->tracefs.tried = true;
		if (target_kernel(s)->running)
			read_events(t);
	}
	return t;
}

void tracefs_events_matching(struct session *s, const char *sys_pat, const char *name_pat, strvec *names)
{
	struct target *t = events_of(s);

	for (size_t i = 0; i < t->tracefs.n; i++) {
		const struct tracefs_event *e = &t->tracefs.events[i];
		if (!fnmatch(sys_pat, e->system, 0) && !fnmatch(name_pat, e->name, 0))
			vec_push(names, e->name);
	}
}

char *tracefs_event_format(struct session *s, const char *system, const char *name)
{
	const char *dir = events_of(s)->tracefs.dir;
	char *path = dir ? xasprintf("%s/%s/%s/format", dir, system, name) : NULL;
	char *text = path ? read_file(path, NULL) : NULL;

	free(path);
	return text;
}

const char *tracefs_event_system(struct session *s, const char *name, bool *known)
{
	struct target *t = events_of(s);

	*known = t->tracefs.known;
	struct tracefs_event key = { (char *)name, NULL };
	const struct tracefs_event *e = t->tracefs.n ? bsearch(&key, t->tracefs.events, t->tracefs.n,
							     sizeof(key), event_cmp) : NULL;
	return e ? e->system : NULL;
}
