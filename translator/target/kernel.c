/* kernel.c - the target kernel's facts, found once per run (see .h). */
#include "kernel.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "remote/qemu.h"
#include "target.h"

/* A kernel without /proc/modules, or with modules_disabled set, cannot
 * run our module: pass 5 then boots the target kernel in a guest. */
static bool host_can_load_modules(void)
{
	char buf[8] = "";
	FILE *f;

	if (access("/proc/modules", F_OK) != 0)
		return false;
	f = fopen("/proc/sys/kernel/modules_disabled", "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	return buf[0] != '1';
}

/* Decided on the first call (s->kernel_release holds -r by then), so that
 * every pass agrees on the kernel and nobody asks uname again. */
const struct target_kernel *target_kernel(struct session *s)
{
	struct target *t = target_of(s);
	struct target_kernel *k = &t->kernel;
	struct utsname u;

	if (t->kernel_known)
		return k;
	t->kernel_known = true;
	if (uname(&u) == 0)
		k->host_release = xstrdup(u.release);
	k->host_loads_modules = host_can_load_modules();
	k->release = s->kernel_release;
	if (!k->release)
		k->release = k->host_loads_modules ? (k->host_release ? k->host_release : "")
						   : vm_default_release();
	if (!k->release)
		return k;
	k->running = k->host_release && !strcmp(k->host_release, k->release);
	k->build = xasprintf("/lib/modules/%s/build", k->release);
	k->modules = xasprintf("/lib/modules/%s", k->release);
	return k;
}
