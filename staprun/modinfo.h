/* modinfo.h - what staprun needs to know about a module before loading it. */
#ifndef STAPRUN_MODINFO_H
#define STAPRUN_MODINFO_H

#include <stddef.h>

#define MODINFO_NAME_MAX 64	/* the kernel's MODULE_NAME_LEN is 56 */

/* Each question is asked of a module image in memory, img[0..len) (the
 * signed part of it when signed: see modsig.h). */
int modinfo_module_name(const void *img, size_t len, const char *ko_path, char *name, size_t size);
int modinfo_has_param(const void *img, size_t len, const char *param);
int modinfo_value(const void *img, size_t len, const char *key, char *val, size_t size);
/* Make a module image load as `name` instead
 * of `old` (staprun -R); 0, or -1 with a message. */
int modinfo_rename(void *image, size_t len, const char *old, const char *name);

#endif /* STAPRUN_MODINFO_H */
