/* modinfo.h - what staprun needs to know about a .ko file before loading it. */
#ifndef STAPRUN_MODINFO_H
#define STAPRUN_MODINFO_H

#include <stddef.h>

#define MODINFO_NAME_MAX 64	/* the kernel's MODULE_NAME_LEN is 56 */

void *modinfo_read_file(const char *path, size_t *len);
int modinfo_module_name(const char *ko_path, char *name, size_t size);
int modinfo_has_param(const char *ko_path, const char *param);
int modinfo_value(const char *ko_path, const char *key, char *val, size_t size);
/* Make a module image (read by modinfo_read_file) load as `name` instead
 * of `old` (staprun -R); 0, or -1 with a message. */
int modinfo_rename(void *image, size_t len, const char *old, const char *name);

#endif /* STAPRUN_MODINFO_H */
