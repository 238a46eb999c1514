/* debuginfod.c - the debuginfod client (see .h). */
#include "debuginfod.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "env.h"
#include "target.h"
#include "util.h"

#ifdef HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>

/* The client library, opened on the first fetch: linked, it would load
 * libcurl and some thirty libraries more into every stap run. */
static struct {
	bool tried, ok;
	debuginfod_client *(*begin)(void);
	void (*end)(debuginfod_client *);
	void (*set_user_data)(debuginfod_client *, void *);
	void *(*get_user_data)(debuginfod_client *);
	void (*set_progressfn)(debuginfod_client *, debuginfod_progressfn_t);
	int (*find_debuginfo)(debuginfod_client *, const unsigned char *, int, char **);
} lib;

/* Open libdebuginfod and find its functions, once: false (and *why) if
 * it is not installed. */
static bool client_library(const char **why)
{
	if (!lib.tried) {
		void *h = dlopen("libdebuginfod.so.1", RTLD_NOW | RTLD_LOCAL);
		lib.tried = true;
		if (h) {
			*(void **)&lib.begin = dlsym(h, "debuginfod_begin");
			*(void **)&lib.end = dlsym(h, "debuginfod_end");
			*(void **)&lib.set_user_data = dlsym(h, "debuginfod_set_user_data");
			*(void **)&lib.get_user_data = dlsym(h, "debuginfod_get_user_data");
			*(void **)&lib.set_progressfn = dlsym(h, "debuginfod_set_progressfn");
			*(void **)&lib.find_debuginfo = dlsym(h, "debuginfod_find_debuginfo");
			lib.ok = lib.begin && lib.end && lib.set_user_data && lib.get_user_data &&
				 lib.set_progressfn && lib.find_debuginfo;
		}
	}
	if (!lib.ok)
		*why = "the debuginfod client library (libdebuginfod1) is not installed";
	return lib.ok;
}

/* "Downloading debuginfo for kernel X: 12.0/562.6 MB" on one terminal line. */
static int show_progress(debuginfod_client *c, long done, long total)
{
	const char *what = lib.get_user_data(c);   /* set by debuginfod_fetch */

	if (total > 0)
		fprintf(stderr, "\rDownloading debuginfo for %s: %.1f/%.1f MB ", what,
			done / 1048576.0, total / 1048576.0);
	else
		fprintf(stderr, "\rDownloading debuginfo for %s: %.1f MB ", what,
			done / 1048576.0);
	return 0;
}

char *debuginfod_fetch(struct session *s, const char *build_id, const char *what, const char **why)
{
	char **last_why = &target_of(s)->debuginfod_why;
	const char *urls = env_get(ENV_DEBUGINFOD_URLS);
	char *path = NULL;

	free(*last_why);
	*last_why = NULL;
	if (!urls || !*urls) {
		*why = "DEBUGINFOD_URLS is not set";
		return NULL;
	}
	if (!client_library(why))
		return NULL;
	debuginfod_client *c = lib.begin();
	if (!c) {
		*why = "cannot start the debuginfod client";
		return NULL;
	}
	bool tty = isatty(STDERR_FILENO);
	lib.set_user_data(c, (void *)what);
	if (tty)
		lib.set_progressfn(c, show_progress);
	if (s->verbose >= 2)
		fprintf(stderr, "asking debuginfod (%s) for %s, build-id %s\n", urls, what, build_id);
	int fd = lib.find_debuginfo(c, (const unsigned char *)build_id, 0, &path);
	if (tty)
		fprintf(stderr, "\r\033[K");
	if (fd < 0) {
		*last_why = xasprintf("debuginfod (%s) has no debuginfo for build-id %s: %s", urls,
				      build_id, strerror(-fd));
		*why = *last_why;
		path = NULL;
	} else {
		close(fd);
		if (s->verbose >= 2)
			fprintf(stderr, "debuginfod: %s\n", path);
	}
	lib.end(c);
	return path;
}

#else

char *debuginfod_fetch(struct session *s, const char *build_id, const char *what, const char **why)
{
	(void)s, (void)build_id, (void)what;
	*why = "cstap was built without the debuginfod client (libdebuginfod-dev)";
	return NULL;
}

#endif
