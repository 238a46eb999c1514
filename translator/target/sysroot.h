/* sysroot.h - --sysroot=DIR and --sysenv=VAR=VALUE: building for a system
 * whose files are under a directory here (an image, a cross-build's root).
 *
 * Probe points, the module and the QEMU guest name the target's paths
 * ("/bin/ls"); the translator reads those files under the root
 * ("DIR/bin/ls"). The kernel's build tree, modules, debuginfo and image come
 * from the root too: DIR/lib/modules/REL/build, DIR/usr/lib/debug,
 * DIR/boot/vmlinuz-REL (-r REL, else the newest kernel the root holds).
 * Symbolic links are followed inside the root, as the target would follow
 * them (an absolute link starts again at DIR); a path that climbs out of it
 * is an error, as in SystemTap. A bare program name is looked up on the
 * target's PATH: --sysenv=PATH=..., else this environment's.
 * Without --sysroot every function here is the identity on host paths.
 */
#ifndef CSTAP_TARGET_SYSROOT_H
#define CSTAP_TARGET_SYSROOT_H

#include <stdbool.h>

#include "session.h"

/* The root ("" when there is none: the target's files are the host's). */
const char *sysroot_dir(const struct session *s);
/* Where the translator reads the target's absolute path (allocated). */
char *sysroot_host(const struct session *s, const char *path);
/* The target's canonical absolute path of path (relative: from the
 * target's "/" with a root, from the working directory without), its
 * links followed; NULL with *why (allocated) if it does not exist there or
 * leads out of the root. */
char *sysroot_realpath(const struct session *s, const char *path, char **why);
/* A variable of the target's environment as --sysenv gave it, or NULL. */
const char *sysroot_env(const struct session *s, const char *var);

#endif
