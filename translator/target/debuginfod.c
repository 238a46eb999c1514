/* debuginfod.c - the debuginfod client (see .h). */
#include "debuginfod.h"

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

/* "Downloading debuginfo for kernel X: 12.0/562.6 MB" on one terminal line. */
static int show_progress(debuginfod_client *c, long done, long total)
{
	const char *what = debuginfod_get_user_data(c);   /* set by debuginfod_fetch */

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
	debuginfod_client *c = debuginfod_begin();
	if (!c) {
		*why = "cannot start the debuginfod client";
		return NULL;
	}
	bool tty = isatty(STDERR_FILENO);
	debuginfod_set_user_data(c, (void *)what);
	if (tty)
		debuginfod_set_progressfn(c, show_progress);
	if (s->verbose >= 2)
		fprintf(stderr, "asking debuginfod (%s) for %s, build-id %s\n", urls, what, build_id);
	int fd = debuginfod_find_debuginfo(c, (const unsigned char *)build_id, 0, &path);
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
	debuginfod_end(c);
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
