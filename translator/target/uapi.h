/* uapi.h - the target kernel's constants, read from its headers.
 *
 * The syscall tapset decodes flags and numbers (O_*, PROT_*, MAP_*, SIG*,
 * AF_*, ...) with tables made from the target kernel's own headers (the
 * linux-headers tree its kbuild directory names) at pass 2, not typed in:
 * a small preprocessor reads the headers asked for (object-like #defines,
 * #if/#ifdef/#ifndef, #include within the uapi folders) and the enum
 * constants of their code, and evaluates each constant's value.
 */
#ifndef CSTAP_TARGET_UAPI_H
#define CSTAP_TARGET_UAPI_H

#include <stdbool.h>
#include <stdint.h>

#include "session.h"

struct uapi;

/* The constants of the target kernel's headers, e.g. "linux/fcntl.h"
 * (the uapi folders'), read in order; NULL with *why set when the
 * kernel's header tree is missing. "!linux/net.h" names a header of the
 * kernel's own include/ folders, read without following its #includes. */
struct uapi *uapi_load(struct session *s, const char *const *headers, const char **why);

/* The value of constant name (a #define or an enum constant). */
bool uapi_value(struct uapi *u, const char *name, int64_t *v);

/* Calls fn for each constant with a value that want accepts, in
 * definition order (a #define after an enum constant of the same name is
 * not repeated). */
void uapi_each(struct uapi *u, bool (*want)(void *arg, const char *name),
	       void (*fn)(void *arg, const char *name, int64_t v), void *arg);

void uapi_free(struct uapi *u);

#endif
