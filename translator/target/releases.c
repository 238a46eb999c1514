/* releases.c - the kernel releases installed on this system or under a
 * sysroot (releases.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "releases.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A release counts only with its kbuild tree (a directory, or a link to one). */
static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The default release must have its image in /boot, or no guest boots it. */
static bool bootable(const char *rel)
{
	char *k = xasprintf("/boot/vmlinuz-%s", rel);
	bool ok = access(k, F_OK) == 0;

	free(k);
	return ok;
}

/* The kernel release linux-image-cloud-amd64 depends on, from dpkg's status
 * file (no dpkg run needed); NULL if that package is not installed. */
static char *dpkg_cloud_release(void)
{
	char *st = read_file("/var/lib/dpkg/status", NULL);
	char *rel = NULL;

	if (!st)
		return NULL;
	for (char *p = st; p && *p;) {
		char *end = strstr(p, "\n\n");
		if (end)
			*end = 0;
		if (!strncmp(p, "Package: linux-image-cloud-amd64\n", 33)) {
			char *status = strstr(p, "\nStatus: ");
			char *dep = strstr(p, "\nDepends: ");
			size_t sl = status ? strcspn(status + 1, "\n") : 0;
			bool installed = sl > 10 && !strncmp(status + 1 + sl - 10, " installed", 10);
			if (installed && dep) {
				dep += strlen("\nDepends: ");
				size_t n = strcspn(dep, " ,|(\n");
				if (n > 12 && !strncmp(dep, "linux-image-", 12)) {
					rel = xstrndup(dep + 12, n - 12);
					size_t l = strlen(rel);
					if (l > 9 && !strcmp(rel + l - 9, "-unsigned"))
						rel[l - 9] = 0;
				}
			}
			break;
		}
		p = end ? end + 2 : NULL;
	}
	free(st);
	return rel;
}

/* Releases in version order (strverscmp: 6.1.0-9 before 6.1.0-10). */
static int cmp_release(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/* Every ROOT/boot/vmlinuz-REL that has ROOT/lib/modules/REL/build, oldest
 * first (root "": this system's). */
static strvec boot_releases(const char *root)
{
	char *boot = xasprintf("%s/boot", root);
	DIR *d = opendir(boot);
	struct dirent *e;
	strvec v = { 0 };

	free(boot);
	if (!d)
		return v;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "vmlinuz-", 8) || !e->d_name[8])
			continue;
		const char *rel = e->d_name + 8;
		char *build = xasprintf("%s/lib/modules/%s/build", root, rel);
		if (is_dir(build))
			vec_push(&v, xstrdup(rel));
		free(build);
	}
	closedir(d);
	if (v.len)
		qsort(v.items, v.len, sizeof(v.items[0]), cmp_release);
	return v;
}

/* The last of boot_releases: the one a --sysroot targets by default. */
char *releases_newest(const char *root)
{
	strvec v = boot_releases(root);
	char *best = v.len ? xstrdup(v.items[v.len - 1]) : NULL;

	for (int i = 0; i < v.len; i++)
		free(v.items[i]);
	free(v.items);
	return best;
}

/* The default first, so the tests run on it before the others. */
strvec releases_bootable(void)
{
	strvec v = boot_releases(""), out = { 0 };
	const char *def = releases_default();

	if (def)
		vec_push(&out, xstrdup(def));
	for (int i = 0; i < v.len; i++) {
		if (def && !strcmp(v.items[i], def))
			free(v.items[i]);
		else
			vec_push(&out, v.items[i]);
	}
	free(v.items);
	return out;
}

/* Decided once per process: dpkg's choice, else the newest bootable one. */
const char *releases_default(void)
{
	static char *rel;
	static bool done;

	if (done)
		return rel;
	done = true;
	rel = dpkg_cloud_release();
	if (rel && !bootable(rel)) {
		free(rel);
		rel = NULL;
	}
	if (!rel)
		rel = releases_newest("");
	return rel;
}
