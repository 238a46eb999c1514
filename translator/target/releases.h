/* releases.h - which kernel releases are installed: a ROOT/boot/vmlinuz-REL
 * with its ROOT/lib/modules/REL/build, the kernels a module can be built
 * for and a guest booted on. target/kernel.c picks the target kernel from
 * them; remote/ (stap --remote=qemu, stap-vm) the guest's kernel. Needs
 * only util.c, so stap-vm links it alone.
 */
#ifndef CSTAP_TARGET_RELEASES_H
#define CSTAP_TARGET_RELEASES_H

#include "util.h"

/* The newest installed kernel we can boot and build for: the release that
 * linux-image-cloud-amd64 depends on if installed (dpkg), else the highest
 * /boot/vmlinuz-* that has /lib/modules/<rel>/build; NULL if none. */
const char *releases_default(void);
/* The highest release under root ("": this system; a --sysroot) with
 * ROOT/boot/vmlinuz-REL and ROOT/lib/modules/REL/build; NULL if none. */
char *releases_newest(const char *root);

/* Every kernel release a guest can boot and modules be built for (a
 * /boot/vmlinuz-REL with /lib/modules/REL/build), the default first, then
 * oldest to newest: what the tests run on. */
strvec releases_bootable(void);

#endif
