/* modules.c - modules of the guest kernel to load at boot (-M):
 * each one is found in /lib/modules/REL/modules.dep with its dependencies,
 * copied into the guest at the same path, and insmod'ed by /init before
 * the job(s) run, dependencies first.
 */
#include "internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "kernel/drivers/block/brd.ko" names module "brd"; '-' and '_' are the
 * same in module names. */
static bool names_module(const char *path, size_t len, const char *name)
{
	const char *base = path;

	for (size_t i = 0; i < len; i++)
		if (path[i] == '/')
			base = path + i + 1;
	size_t n = (size_t)(path + len - base);
	const char *dot = memchr(base, '.', n);
	if (dot)
		n = (size_t)(dot - base);
	return module_name_eq(base, n, name);
}

static void add_unique(strvec *v, const char *p, size_t len)
{
	for (int i = 0; i < v->len; i++)
		if (strlen(v->items[i]) == len && !strncmp(v->items[i], p, len))
			return;
	vec_push(v, xstrndup(p, len));
}

/* Append module `name`'s dependencies (in load order), then its own path,
 * all relative to /lib/modules/REL, to `order`; -1 after a message. */
static int add_module(const char *dep, const char *rel, const char *name, strvec *order)
{
	for (const char *l = dep; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *colon = strchr(l, ':'), *eol = strchrnul(l, '\n');
		if (!colon || colon > eol || !names_module(l, (size_t)(colon - l), name))
			continue;
		/* modules.dep lists the dependencies in reverse load order */
		strvec deps = { 0 };
		for (const char *p = colon + 1; p < eol;) {
			p += strspn(p, " \t");
			size_t n = strcspn(p, " \t\n");
			if (n)
				vec_push(&deps, xstrndup(p, n));
			p += n;
		}
		for (int i = deps.len - 1; i >= 0; i--) {
			add_unique(order, deps.items[i], strlen(deps.items[i]));
			free(deps.items[i]);
		}
		free(deps.items);
		add_unique(order, l, (size_t)(colon - l));
		return 0;
	}
	vm_msg("no module '%s' in /lib/modules/%s/modules.dep", name, rel);
	return -1;
}

/* A module the kernel has built in (listed in builtin, the text of
 * modules.builtin) needs no loading: drivers are modules in one release
 * and built in in another. */
static bool builtin_module(const char *builtin, const char *name)
{
	bool found = false;

	for (const char *l = builtin; l && *l && !found; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		found = names_module(l, (size_t)(strchrnul(l, '\n') - l), name);
	return found;
}

/* The guest's network for port forwards: virtio-net's driver and the PCI
 * transport (skipped where built in), then lo and eth0 as QEMU's user
 * network expects them. */
static void add_network(struct vm_config *c, struct strbuf *after)
{
	vec_push(&c->modules, "virtio_pci");
	vec_push(&c->modules, "virtio_net");
	strbuf_addstr(after, "# network for port forwards (QEMU user networking)\n"
		      "ip link set lo up\n"
		      "ip link set eth0 up && ip addr add 10.0.2.15/24 dev eth0 && "
		      "ip route add default via 10.0.2.2 || echo \"cstap-guest: no network\"\n");
}

char *vm_modules_prelude(struct vm_config *c)
{
	struct strbuf sb = STRBUF_INIT;
	strvec order = { 0 };
	char *dep = NULL;
	struct strbuf net = STRBUF_INIT;
	int rc = 0;

	if (c->forwards.len && c->release) {
		/* a private copy of the caller's vector, as for files below */
		const char **mods = xcalloc((size_t)c->modules.len + 3, sizeof(*mods));
		memcpy(mods, c->modules.items, (size_t)c->modules.len * sizeof(*mods));
		c->modules.items = mods;
		c->modules.cap = c->modules.len + 3;
		add_network(c, &net);
	}
	if (!c->modules.len)
		return strbuf_detach(&net);
	/* c is the caller's copy of a config: extend a private files vector */
	struct vm_file *files = xcalloc((size_t)c->files.len + 1, sizeof(*files));
	memcpy(files, c->files.items, (size_t)c->files.len * sizeof(*files));
	c->files.items = files;
	c->files.cap = c->files.len + 1;
	if (!c->release) {
		vm_msg("loading modules needs a kernel release (-r)");
		return NULL;
	}
	const char *root = c->root ? c->root : "";
	char *dep_path = xasprintf("%s/lib/modules/%s/modules.dep", root, c->release);
	dep = read_file(dep_path, NULL);
	if (!dep) {
		vm_msg("cannot read %s: %s", dep_path, strerror(errno));
		rc = -1;
	}
	char *builtin_path = xasprintf("%s/lib/modules/%s/modules.builtin", root, c->release);
	char *builtin = read_file(builtin_path, NULL);
	for (int i = 0; rc == 0 && i < c->modules.len; i++)
		if (!builtin_module(builtin, c->modules.items[i]))
			rc = add_module(dep, c->release, c->modules.items[i], &order);
	free(builtin);
	free(builtin_path);
	strbuf_addstr(&sb, "# modules of the guest kernel (-M), dependencies first\n");
	for (int i = 0; rc == 0 && i < order.len; i++) {
		const char *p = order.items[i];
		const char *ko = strstr(p, ".ko");
		if (!ko || (ko[3] && strcmp(ko + 3, ".xz") && strcmp(ko + 3, ".zst") &&
			    strcmp(ko + 3, ".gz"))) {
			vm_msg("%s: not a kernel module (.ko, .ko.xz, .ko.zst, .ko.gz)", p);
			rc = -1;
			break;
		}
		/* a compressed module goes in decompressed (vm_cpio_host_file) */
		char *path = xasprintf("%s/lib/modules/%s/%s", root, c->release, p);
		char *guest = xasprintf("/lib/modules/%s/%.*s", c->release, (int)(ko + 3 - p), p);
		struct vm_file f = { .host = path, .guest = guest };
		vec_push(&c->files, f);
		strbuf_addf(&sb, "insmod %s || echo \"cstap-guest: cannot load %s\"\n", guest, guest);
	}
	for (int i = 0; i < order.len; i++)
		free(order.items[i]);
	free(order.items);
	free(dep);
	free(dep_path);
	strbuf_addstr(&sb, net.buf);
	strbuf_release(&net);
	if (rc < 0) {
		strbuf_release(&sb);
		return NULL;
	}
	return strbuf_detach(&sb);
}
