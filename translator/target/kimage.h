/* kimage.h - what cstap reads in a kernel image (/boot/vmlinuz-REL): the
 * GNU build-id of the vmlinux inside, so its debuginfo can be asked for by
 * build-id when none is installed, and its sections (.BTF: target/btf.c).
 */
#ifndef CSTAP_KIMAGE_H
#define CSTAP_KIMAGE_H

#include <libelf.h>
#include <stddef.h>

/* The build-id (hex) of the ELF vmlinux inside a bzImage, or NULL. LZ4
 * payloads (Debian's cloud kernels) are decompressed here; gzip, xz, bzip2
 * and zstd ones by libdwelf. */
char *kimage_build_id(const char *vmlinuz);

/* A copy of section `name` (".BTF") of the vmlinux inside a bzImage, its
 * size in *len; NULL if there is none. */
char *kimage_section(const char *vmlinuz, const char *name, size_t *len);

/* The build-id (hex) of an ELF file (vmlinux, .ko), or NULL. */
char *elf_file_build_id(const char *path);
/* The build-id (hex) of an open ELF file, or NULL (none, or e NULL). */
char *elf_build_id_hex(Elf *e);

#endif
