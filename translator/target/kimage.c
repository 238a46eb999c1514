/* kimage.c - build-id of a compressed kernel image (see .h). */
#include "kimage.h"

#include <fcntl.h>
#include <gelf.h>
#include <elfutils/libdwelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spawn.h"
#include "util.h"

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

char *elf_build_id_hex(Elf *e)
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
	id = elf_build_id_hex(e);
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

/* A bzImage payload libdwelf may not read (zstd: 6.12's cloud kernels),
 * through the decompressor's program into *mem. The build appends the
 * uncompressed size, which the programs see as trailing garbage: their
 * status is not looked at, the ELF they wrote is. */
static Elf *kimage_unpack(const unsigned char *img, size_t len, struct strbuf *mem)
{
	static const struct { const char *magic; size_t n; const char *prog; } fmts[] = {
		{ "\x28\xb5\x2f\xfd", 4, "zstd -dcq" }, { "\xfd" "7zXZ", 5, "xz -dcq" },
		{ "\x1f\x8b", 2, "gzip -dcq" }, { "BZh", 3, "bzip2 -dcq" },
	};
	size_t setup = ((size_t)(img[0x1f1] ? img[0x1f1] : 4) + 1) * 512;
	size_t off = setup + le32(img + 0x248), plen = le32(img + 0x24c);
	Elf *e = NULL;

	if (off + plen > len || plen < 8)
		return NULL;
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]) && !e; i++) {
		if (memcmp(img + off, fmts[i].magic, fmts[i].n))
			continue;
		const char *tmp = getenv("TMPDIR");
		char *dir = xasprintf("%s/cstap-kimage.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir)) {
			free(dir);
			return NULL;
		}
		char *payload = xasprintf("%s/payload", dir);
		if (write_file(payload, (const char *)img + off, plen) == 0) {
			char *cmd = xasprintf("%s %s 2>/dev/null; exit 0", fmts[i].prog, payload);
			char *argv[] = { (char *)"sh", (char *)"-c", cmd, NULL };
			size_t n = 0;
			char *out = spawn_capture(argv, &n, false);
			if (out && n > 64 && !memcmp(out, "\177ELF", 4)) {
				strbuf_add(mem, out, n);
				e = elf_memory(mem->buf, mem->len);
			}
			free(out);
			free(cmd);
		}
		unlink(payload);
		rmdir(dir);
		free(payload);
		free(dir);
	}
	return e;
}

/* The ELF vmlinux inside a bzImage: decompressed here into *mem (LZ4),
 * else read by libdwelf through *fd (gzip, xz, bzip2, zstd). The caller
 * ends the Elf, then releases *mem and closes *fd (-1 if unused). */
static Elf *kimage_vmlinux(const char *vmlinuz, struct strbuf *mem, int *fd)
{
	size_t len;
	unsigned char *img = (unsigned char *)read_file(vmlinuz, &len);
	Elf *e = NULL;

	*fd = -1;
	if (!img)
		return NULL;
	elf_version(EV_CURRENT);
	/* bzImage: "HdrS" at 0x202, setup sectors at 0x1f1, the payload's
	 * offset and length (from the protected-mode code) at 0x248/0x24c */
	if (len > 0x250 && !memcmp(img + 0x202, "HdrS", 4)) {
		size_t setup = ((size_t)(img[0x1f1] ? img[0x1f1] : 4) + 1) * 512;
		size_t off = setup + le32(img + 0x248), plen = le32(img + 0x24c);
		if (off + plen <= len && plen > 8 && le32(img + off) == 0x184C2102 &&
		    lz4_legacy(img + off, plen, mem))
			e = elf_memory(mem->buf, mem->len);
	}
	if (!e && len > 0x250 && !memcmp(img + 0x202, "HdrS", 4))
		e = kimage_unpack(img, len, mem);
	free(img);
	if (!e) {   /* other compressions: libdwelf reads bzImages itself */
		*fd = open(vmlinuz, O_RDONLY | O_CLOEXEC);
		if (*fd >= 0)
			e = dwelf_elf_begin(*fd);
	}
	return e;
}

char *kimage_build_id(const char *vmlinuz)
{
	struct strbuf mem = STRBUF_INIT;
	int fd;
	Elf *e = kimage_vmlinux(vmlinuz, &mem, &fd);
	char *id = elf_build_id_hex(e);

	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	strbuf_release(&mem);
	return id;
}

char *kimage_section(const char *vmlinuz, const char *name, size_t *len)
{
	struct strbuf mem = STRBUF_INIT;
	int fd;
	Elf *e = kimage_vmlinux(vmlinuz, &mem, &fd);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	char *out = NULL;

	if (e && elf_getshdrstrndx(e, &shstrndx) == 0) {
		while (!out && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
			Elf_Data *d = n && !strcmp(n, name) ? elf_getdata(scn, NULL) : NULL;
			if (d && d->d_buf && d->d_size) {
				out = xmalloc(d->d_size);
				memcpy(out, d->d_buf, d->d_size);
				*len = d->d_size;
			}
		}
	}
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	strbuf_release(&mem);
	return out;
}
