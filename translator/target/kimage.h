/* kimage.h - the GNU build-id of a kernel image (/boot/vmlinuz-REL), so
 * its debuginfo can be asked for by build-id when none is installed.
 */
#ifndef CSTAP_KIMAGE_H
#define CSTAP_KIMAGE_H

/* The build-id (hex) of the ELF vmlinux inside a bzImage, or NULL. LZ4
 * payloads (Debian's cloud kernels) are decompressed here; gzip, xz, bzip2
 * and zstd ones by libdwelf. */
char *kimage_build_id(const char *vmlinuz);

/* The build-id (hex) of an ELF file (vmlinux, .ko), or NULL. */
char *elf_file_build_id(const char *path);

#endif
