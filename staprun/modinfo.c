/* modinfo.c - what a module image's .modinfo says: its name (the "name="
 * entry: what the kernel will call it, whatever the file is called, else the
 * file name without ".ko", '-' read as '_' like kbuild does), its
 * parameters and other keys. Images are read once (module_file.c); every
 * question here is asked of that one copy. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "modinfo.h"

/* Section `want` of a module image, or NULL. */
static const char *elf_section(const unsigned char *img, size_t len, const char *want, size_t *size)
{
	const Elf64_Ehdr *eh = (const void *)img;
	const Elf64_Shdr *sh, *strsec;
	size_t i;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(*sh) ||
	    eh->e_shoff > len || eh->e_shnum > (len - eh->e_shoff) / sizeof(*sh) ||
	    eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = (const void *)(img + eh->e_shoff);
	strsec = &sh[eh->e_shstrndx];
	if (strsec->sh_offset > len || strsec->sh_size > len - strsec->sh_offset)
		return NULL;
	for (i = 0; i < eh->e_shnum; i++) {
		const char *secname;
		size_t room;

		if (sh[i].sh_name >= strsec->sh_size)
			continue;
		secname = (const char *)img + strsec->sh_offset + sh[i].sh_name;
		room = strsec->sh_size - sh[i].sh_name;
		if (strnlen(secname, room) == room || strcmp(secname, want) ||
		    sh[i].sh_offset > len ||
		    sh[i].sh_size > len - sh[i].sh_offset)
			continue;
		*size = sh[i].sh_size;
		return (const char *)img + sh[i].sh_offset;
	}
	return NULL;
}

/* The .modinfo section (NUL-separated "key=value" strings), or NULL. */
static const char *elf_modinfo(const unsigned char *img, size_t len, size_t *size)
{
	return elf_section(img, len, ".modinfo", size);
}

/* The value of the first "key=" entry whose value starts with vprefix. */
static const char *modinfo_find(const char *mi, size_t size, const char *key,
				const char *vprefix, size_t *vlen)
{
	const char *p = mi, *end;
	size_t klen = strlen(key), plen = strlen(vprefix);

	if (!mi)
		return NULL;
	for (end = mi + size; p < end;) {
		size_t n = strnlen(p, end - p);

		if (n > klen && !strncmp(p, key, klen) && p[klen] == '=' &&
		    !strncmp(p + klen + 1, vprefix, plen)) {
			*vlen = n - klen - 1;
			return p + klen + 1;
		}
		p += n + 1;
	}
	return NULL;
}

/* The value of .modinfo's key=value into val[size]; 0, or -1 if absent. */
int modinfo_value(const void *img, size_t len, const char *key, char *val, size_t size)
{
	size_t misize = 0, vlen = 0;
	const char *mi = elf_modinfo(img, len, &misize), *v;

	v = modinfo_find(mi, misize, key, "", &vlen);
	if (!v || vlen >= size || memchr(v, '\0', vlen))
		return -1;
	memcpy(val, v, vlen);
	val[vlen] = '\0';
	return 0;
}

/* The module's name into name[size]; -1 with a message on failure. */
int modinfo_module_name(const void *img, size_t len, const char *ko_path, char *name, size_t size)
{
	size_t misize = 0, nlen = 0;
	const char *mi = elf_modinfo(img, len, &misize), *n, *base;
	char *dot;

	n = modinfo_find(mi, misize, "name", "", &nlen);
	if (n && nlen > 0 && nlen < size) {
		memcpy(name, n, nlen);
		name[nlen] = '\0';
		return 0;
	}
	base = strrchr(ko_path, '/');
	base = base ? base + 1 : ko_path;
	if (strlen(base) >= size) {
		fprintf(stderr, "ERROR: module file name too long: %s\n", base);
		return -1;
	}
	strcpy(name, base);
	dot = strstr(name, ".ko");
	if (dot)
		*dot = '\0';
	for (dot = name; *dot; dot++)
		if (*dot == '-')
			*dot = '_';
	return 0;
}

/*
 * Does the module declare parameter 'param' (name only, up to '=')? The
 * kernel ignores unknown parameters with a dmesg line, so staprun checks
 * them itself. 1 yes, 0 no, -1 cannot tell (no .modinfo).
 */
int modinfo_has_param(const void *img, size_t len, const char *param)
{
	size_t misize = 0, vlen, plen = strcspn(param, "=");
	const char *mi = elf_modinfo(img, len, &misize);
	char prefix[MODINFO_NAME_MAX + 2];

	if (!mi || plen > MODINFO_NAME_MAX)
		return mi ? 0 : -1;
	snprintf(prefix, sizeof(prefix), "%.*s:", (int)plen, param);
	return modinfo_find(mi, misize, "parmtype", prefix, &vlen) != NULL;
}

/*
 * staprun -R: the module image loads as `name`. The kernel takes a
 * module's name from struct module in .gnu.linkonce.this_module (its name
 * field follows the state and the list head: offset 24 on 64-bit, the same
 * since 2.6) and, first, from .modinfo's "name=" entry, which is turned
 * into another key so that the new name wins. The old name must be where
 * it is expected, or nothing is changed: -1 with a message.
 */
int modinfo_rename(void *image, size_t len, const char *old, const char *name)
{
	const size_t name_off = 24, name_len = 56;	/* MODULE_NAME_LEN on 64-bit */
	unsigned char *img = image;
	size_t msize = 0, misize = 0, vlen = 0;
	char *mod = (char *)elf_section(img, len, ".gnu.linkonce.this_module", &msize);
	char *mi = (char *)elf_modinfo(img, len, &misize);
	const char *v;

	if (!mod || msize < name_off + name_len || strnlen(mod + name_off, name_len) == name_len ||
	    strcmp(mod + name_off, old) || strlen(name) >= name_len) {
		fprintf(stderr, "ERROR: cannot rename module %s: its struct module is not as expected\n", old);
		return -1;
	}
	memset(mod + name_off, 0, name_len);
	memcpy(mod + name_off, name, strlen(name));
	v = modinfo_find(mi, misize, "name", "", &vlen);
	if (v)
		((char *)v)[-5] = '_';	/* "name=old" -> "_ame=old" */
	return 0;
}
