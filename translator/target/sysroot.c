/* sysroot.c - the target's files under --sysroot (see .h). */
#include "sysroot.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

const char *sysroot_dir(const struct session *s)
{
	return s->sysroot ? s->sysroot : "";
}

char *sysroot_host(const struct session *s, const char *path)
{
	return xasprintf("%s%s", sysroot_dir(s), path);
}

const char *sysroot_env(const struct session *s, const char *var)
{
	size_t n = strlen(var);

	for (int i = s->sysenv.len - 1; i >= 0; i--)
		if (!strncmp(s->sysenv.items[i], var, n) && s->sysenv.items[i][n] == '=')
			return s->sysenv.items[i] + n + 1;
	return NULL;
}

/* Resolve path component by component as a chroot into root would:
 * "..", and a symlink's target, never leave the root; an absolute link
 * starts again at the root. Climbing above the root is refused rather
 * than clamped, as SystemTap refuses it. */
static char *resolve_in_root(const char *root, const char *path, char **why)
{
	struct strbuf done = STRBUF_INIT;   /* resolved target path, no trailing '/' */
	char *todo = xstrdup(path);
	int links = 0;

	for (char *p = todo; ; ) {
		p += strspn(p, "/");
		if (!*p)
			break;
		size_t n = strcspn(p, "/");
		if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
			if (n == 2) {
				char *slash = strrchr(done.buf, '/');
				if (!slash) {
					*why = xasprintf("'%s' leads out of the sysroot %s", path, root);
					goto fail;
				}
				strbuf_setlen(&done, (size_t)(slash - done.buf));
			}
			p += n;
			continue;
		}
		size_t before = done.len;
		strbuf_addf(&done, "/%.*s", (int)n, p);
		p += n;
		char *host = xasprintf("%s%s", root, done.buf);
		struct stat st;
		if (lstat(host, &st) != 0) {
			*why = xasprintf("cannot find '%s' under the sysroot %s: %s", path, root, strerror(errno));
			free(host);
			goto fail;
		}
		if (S_ISLNK(st.st_mode)) {
			char link[PATH_MAX];
			ssize_t l = readlink(host, link, sizeof(link) - 1);
			if (l < 0 || ++links > 40) {
				*why = xasprintf("cannot follow the links of '%s' under the sysroot %s", path, root);
				free(host);
				goto fail;
			}
			link[l] = 0;
			char *rest = xasprintf("%s/%s", link, p);
			free(todo);
			todo = p = rest;
			strbuf_setlen(&done, link[0] == '/' ? 0 : before);
		}
		free(host);
	}
	free(todo);
	return done.len ? strbuf_detach(&done) : (strbuf_release(&done), xstrdup("/"));
fail:
	free(todo);
	strbuf_release(&done);
	return NULL;
}

char *sysroot_realpath(const struct session *s, const char *path, char **why)
{
	char buf[PATH_MAX];

	if (s->sysroot)
		return resolve_in_root(s->sysroot, path, why);
	if (realpath(path, buf))
		return xstrdup(buf);
	*why = xasprintf("cannot find '%s': %s", path, strerror(errno));
	return NULL;
}
