/* kimage.c - build-id of a compressed kernel image (see .h). */
#include "kimage.h"

#include <fcntl.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static char *hex_build_id(Elf *e)
{
	const void *id;
	ssize_t n = e ? dwelf_elf_gnu_build_id(e, &id) : -1;
	struct strbuf sb = STRBUF_INIT;

	if (n <= 0)
		return NULL;
	for (ssize_t i = 0; i < n; i++)
		strbuf_addf(&sb, "%02x", ((const unsigned char *)id)[i]);
	return strbuf_detach(&sb);
}

char *elf_file_build_id(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *id = NULL;

	if (fd < 0)
		return NULL;
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	id = hex_build_id(e);
	if (e)
		elf_end(e);
	close(fd);
	return id;
}

/* One LZ4 block (the raw block format: sequences of a token, literals and
 * a back-reference) appended to out; false if malformed. */
static bool lz4_block(const unsigned char *in, size_t n, struct strbuf *out)
{
	size_t i = 0;

	while (i < n) {
		unsigned tok = in[i++];
		size_t lit = tok >> 4, b;
		if (lit == 15)
			do {
				if (i >= n)
					return false;
				b = in[i++];
				lit += b;
			} while (b == 255);
		if (lit > n - i)
			return false;
		strbuf_add(out, (const char *)in + i, lit);
		i += lit;
		if (i == n)
			return true;   /* the last sequence has literals only */
		if (i + 2 > n)
			return false;
		size_t off = in[i] | (size_t)in[i + 1] << 8, len = (tok & 15) + 4;
		i += 2;
		if ((tok & 15) == 15)
			do {
				if (i >= n)
					return false;
				b = in[i++];
				len += b;
			} while (b == 255);
		if (!off || off > out->len)
			return false;
		strbuf_grow(out, len);
		for (size_t k = 0; k < len; k++)   /* overlapping copies repeat bytes */
			out->buf[out->len + k] = out->buf[out->len - off + k];
		out->len += len;
		out->buf[out->len] = 0;
	}
	return true;
}

/* The LZ4 "legacy" frame the kernel's build uses: magic 0x184C2102, then
 * blocks each preceded by its compressed size (a repeated magic starts a
 * new frame); the build appends the 4-byte uncompressed size. */
static bool lz4_legacy(const unsigned char *in, size_t n, struct strbuf *out)
{
	size_t i = 4;

	while (i + 4 <= n) {
		uint32_t sz = le32(in + i);
		if (sz == 0x184C2102) {
			i += 4;
			continue;
		}
		if (i + 4 + sz > n)
			break;   /* the trailing size field */
		if (!lz4_block(in + i + 4, sz, out))
			return false;
		i += 4 + sz;
	}
	return out->len > 0;
}

char *kimage_build_id(const char *vmlinuz)
{
	size_t len;
	unsigned char *img = (unsigned char *)read_file(vmlinuz, &len);
	char *id = NULL;

	if (!img)
		return NULL;
	elf_version(EV_CURRENT);
	/* bzImage: "HdrS" at 0x202, setup sectors at 0x1f1, the payload's
	 * offset and length (from the protected-mode code) at 0x248/0x24c */
	if (len > 0x250 && !memcmp(img + 0x202, "HdrS", 4)) {
		size_t setup = ((size_t)(img[0x1f1] ? img[0x1f1] : 4) + 1) * 512;
		size_t off = setup + le32(img + 0x248), plen = le32(img + 0x24c);
		if (off + plen <= len && plen > 8 && le32(img + off) == 0x184C2102) {
			struct strbuf out = STRBUF_INIT;
			if (lz4_legacy(img + off, plen, &out)) {
				Elf *e = elf_memory(out.buf, out.len);
				id = hex_build_id(e);
				if (e)
					elf_end(e);
			}
			strbuf_release(&out);
		}
	}
	free(img);
	if (!id) {   /* other compressions: libdwelf reads bzImages itself */
		int fd = open(vmlinuz, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			Elf *e = dwelf_elf_begin(fd);
			id = hex_build_id(e);
			if (e)
				elf_end(e);
			close(fd);
		}
	}
	return id;
}
