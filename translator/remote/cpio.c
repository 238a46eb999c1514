/* cpio.c - the guest's initramfs: a newc cpio writer, host files with
 * their shared libraries, and the cached base archive (busybox, staprun,
 * stapio) that every run's small archive is appended to.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "internal.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "env.h"
#include "spawn.h"

/* Bump when the base archive's layout changes: old cache entries then miss. */
#define BASE_FORMAT "cstap-vm-base 2"

void cpio_init(struct cpio *c, unsigned first_ino)
{
	strbuf_init(&c->buf);
	c->ino = first_ino;
	c->dirs.items = NULL;
	c->dirs.len = c->dirs.cap = 0;
}

void cpio_release(struct cpio *c)
{
	strbuf_release(&c->buf);
	for (int i = 0; i < c->dirs.len; i++)
		free(c->dirs.items[i]);
	free(c->dirs.items);
	c->dirs.items = NULL;
	c->dirs.len = c->dirs.cap = 0;
}

static void pad4(struct strbuf *sb)
{
	while (sb->len & 3)
		strbuf_addch(sb, 0);
}

/* One newc header + name + data, each padded to 4 bytes. Names are stored
 * without the leading '/', as the kernel's unpacker expects. */
static void entry(struct cpio *c, const char *path, unsigned mode, unsigned rmaj, unsigned rmin,
		  const void *data, size_t len)
{
	while (*path == '/')
		path++;
	size_t namesize = strlen(path) + 1;

	strbuf_addf(&c->buf, "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
		    c->ino++, mode, 0u, 0u, 1u, 0u, len, 0u, 0u, rmaj, rmin, namesize, 0u);
	strbuf_add(&c->buf, path, namesize);
	pad4(&c->buf);
	if (len)
		strbuf_add(&c->buf, data, len);
	pad4(&c->buf);
}

/* Emit every missing ancestor directory of path (mode 0755). */
static void parents(struct cpio *c, const char *path)
{
	while (*path == '/')
		path++;
	for (const char *s = strchr(path, '/'); s; s = strchr(s + 1, '/')) {
		char *d = xstrndup(path, s - path);
		cpio_dir(c, d, 0755);
		free(d);
	}
}

void cpio_dir(struct cpio *c, const char *path, unsigned mode)
{
	while (*path == '/')
		path++;
	if (!*path)
		return;
	for (int i = 0; i < c->dirs.len; i++)
		if (!strcmp(c->dirs.items[i], path))
			return;
	parents(c, path);
	vec_push(&c->dirs, xstrdup(path));
	entry(c, path, S_IFDIR | (mode & 07777), 0, 0, NULL, 0);
}

void cpio_file(struct cpio *c, const char *path, unsigned mode, const void *data, size_t len)
{
	parents(c, path);
	entry(c, path, S_IFREG | (mode & 07777), 0, 0, data, len);
}

void cpio_symlink(struct cpio *c, const char *path, const char *target)
{
	parents(c, path);
	entry(c, path, S_IFLNK | 0777, 0, 0, target, strlen(target));
}

void cpio_chardev(struct cpio *c, const char *path, unsigned mode, unsigned major, unsigned minor)
{
	parents(c, path);
	entry(c, path, S_IFCHR | (mode & 07777), major, minor, NULL, 0);
}

void cpio_finish(struct cpio *c)
{
	entry(c, "TRAILER!!!", 0, 0, 0, NULL, 0);
	while (c->buf.len % 512)
		strbuf_addch(&c->buf, 0);
}

/* True if data is a 64-bit ELF program with a program interpreter, i.e. one
 * that needs ld.so and shared libraries in the guest. */
static bool elf_is_dynamic(const char *data, size_t len)
{
	const Elf64_Ehdr *eh = (const void *)data;

	if (len < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || (eh->e_type != ET_EXEC && eh->e_type != ET_DYN))
		return false;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		size_t off = eh->e_phoff + (size_t)i * eh->e_phentsize;
		if (eh->e_phentsize < sizeof(Elf64_Phdr) || off + sizeof(Elf64_Phdr) > len)
			return false;
		const Elf64_Phdr *ph = (const void *)(data + off);
		if (ph->p_type == PT_INTERP)
			return true;
	}
	return false;
}

/* Add the shared libraries (and the loader) that ldd lists for host program
 * `host`, each at its real host path, with a symbolic link at the path ldd
 * names when that differs (/lib/x86_64-linux-gnu/libc.so.6 on a merged-/usr
 * host): one file, one inode, as on the host, so that a process probe on
 * the library's real path fires in the programs that load it. */
static int add_libraries(struct cpio *c, const char *host, int verbose)
{
	char *argv[] = { (char *)"ldd", (char *)host, NULL };
	char *out = spawn_capture(argv, NULL, false);

	if (!out) {
		vm_msg("cannot list the shared libraries of %s (ldd failed)", host);
		return -1;
	}
	int rc = 0;
	for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		char *arrow = strstr(line, "=> ");
		char *path = arrow ? arrow + 3 : line + strspn(line, " \t");
		if (*path != '/')
			continue;   /* linux-vdso.so.1, "not found" */
		path[strcspn(path, " \t(")] = 0;
		size_t len;
		char *data = read_file(path, &len);
		if (!data) {
			vm_msg("cannot read %s (needed by %s): %s", path, host, strerror(errno));
			rc = -1;
			continue;
		}
		char real[PATH_MAX];
		if (!realpath(path, real))
			snprintf(real, sizeof(real), "%s", path);
		if (verbose > 1)
			fprintf(stderr, "  + %s (library of %s)\n", real, host);
		cpio_file(c, real, 0755, data, len);
		if (strcmp(real, path))
			cpio_symlink(c, path, real);
		free(data);
	}
	free(out);
	return rc;
}

/* The decompressor of a compressed kernel module's suffix (Debian's 6.12
 * kernels ship modules as .ko.xz), or NULL. */
static const char *decompressor(const char *path)
{
	static const char *const tools[][2] = {
		{ ".xz", "xz" }, { ".zst", "zstd" }, { ".gz", "gzip" },
	};
	size_t n = strlen(path);

	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		size_t k = strlen(tools[i][0]);
		if (n > k && !strcmp(path + n - k, tools[i][0]))
			return tools[i][1];
	}
	return NULL;
}

/* Add compressed `host` at `guest` decompressed (the guest's busybox insmod
 * reads plain modules only). */
static int add_decompressed(struct cpio *c, const char *tool, const char *host,
			    const char *guest, unsigned mode)
{
	char *argv[] = { (char *)tool, "-dc", (char *)host, NULL };
	size_t len;
	char *data = spawn_capture(argv, &len, true);

	if (!data) {
		vm_msg("cannot decompress %s with %s (install it: apt-get install %s)", host, tool,
		       !strcmp(tool, "xz") ? "xz-utils" : tool);
		return -1;
	}
	cpio_file(c, guest, mode, data, len);
	free(data);
	return 0;
}

int vm_cpio_host_file(struct cpio *c, const char *host, const char *guest, int verbose)
{
	struct stat st;
	size_t len;

	if (stat(host, &st) < 0) {
		vm_msg("cannot copy %s into the guest: %s", host, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		vm_msg("cannot copy %s into the guest: not a regular file", host);
		return -1;
	}
	const char *tool = decompressor(host);
	if (tool && !decompressor(guest))
		return add_decompressed(c, tool, host, guest, st.st_mode & 07777);
	char *data = read_file(host, &len);
	if (!data) {
		vm_msg("cannot read %s: %s", host, strerror(errno));
		return -1;
	}
	cpio_file(c, guest, st.st_mode & 07777, data, len);
	int rc = elf_is_dynamic(data, len) ? add_libraries(c, host, verbose) : 0;
	free(data);
	return rc;
}

/* The static busybox that the guest runs as its shell and tools. */
static const char *busybox_path(void)
{
	return env_or(ENV_CSTAP_BUSYBOX, "/bin/busybox");
}

/* Build the base archive in memory: directories, /dev/console, busybox and
 * its applet links, staprun, stapio, /etc/passwd and /etc/group. */
static int build_base(struct cpio *c, const char *staprun, const char *stapio, int verbose)
{
	const char *bb = busybox_path();
	static const char *const dirs[] = { "bin", "sbin", "usr/bin", "usr/sbin", "usr/libexec/cstap",
					    "etc", "proc", "sys", "dev", "run", "mnt", "ko" };

	/* "/" itself root's 0755, as on a real system: staprun trusts the
	 * installed modules and signers only below directories only root may
	 * write (the kernel applies the mode and owner of a "." entry) */
	cpio_dir(c, ".", 0755);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		cpio_dir(c, dirs[i], 0755);
	cpio_dir(c, "tmp", 01777);
	cpio_dir(c, "root", 0700);
	cpio_chardev(c, "dev/console", 0600, 5, 1);
	if (vm_cpio_host_file(c, bb, "/bin/busybox", verbose) < 0) {
		vm_msg("the guest needs a static busybox (apt-get install busybox-static)");
		return -1;
	}
	char *argv[] = { (char *)bb, (char *)"--list-full", NULL };
	char *list = spawn_capture(argv, NULL, false);
	if (!list) {
		vm_msg("%s --list-full failed: is it busybox?", bb);
		return -1;
	}
	for (char *a = strtok(list, "\n"); a; a = strtok(NULL, "\n"))
		if (strcmp(a, "bin/busybox") && strchr(a, '/'))
			cpio_symlink(c, a, "/bin/busybox");
	free(list);
	if (staprun && vm_cpio_host_file(c, staprun, VM_GUEST_STAPRUN, verbose) < 0)
		return -1;
	if (stapio && vm_cpio_host_file(c, stapio, VM_GUEST_STAPIO, verbose) < 0)
		return -1;
	/* where a setuid staprun looks (beside itself: it ignores CSTAP_STAPIO) */
	if (stapio)
		cpio_symlink(c, "usr/bin/stapio", VM_GUEST_STAPIO);
	static const char passwd[] = "root:x:0:0:root:/root:/bin/sh\n";
	static const char group[] = "root:x:0:\nstapusr:x:150:\nstapsys:x:151:\nstapdev:x:152:\n";
	cpio_file(c, "etc/passwd", 0644, passwd, sizeof(passwd) - 1);
	cpio_file(c, "etc/group", 0644, group, sizeof(group) - 1);
	cpio_finish(c);
	return 0;
}

/* Identity of the base archive: its format and each input's path, size,
 * mtime, inode. A rebuilt staprun gives another key. */
static char *base_key(const char *staprun, const char *stapio)
{
	const char *in[] = { busybox_path(), staprun, stapio };
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, BASE_FORMAT);
	for (int i = 0; i < 3; i++) {
		struct stat st;
		if (!in[i]) {
			strbuf_addstr(&sb, "|-");
			continue;
		}
		if (stat(in[i], &st) < 0)
			memset(&st, 0, sizeof(st));
		strbuf_addf(&sb, "|%s:%lld:%lld.%09ld:%llu:%llu", in[i], (long long)st.st_size,
			    (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
			    (unsigned long long)st.st_ino, (unsigned long long)st.st_dev);
	}
	char *name = xasprintf("base-%016llx.cpio", (unsigned long long)hash64(sb.buf, sb.len));
	strbuf_release(&sb);
	return name;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/* Copy an open file to fd (from its start). */
static int copy_fd(int in, int out)
{
	char buf[1 << 16];
	ssize_t n;

	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (write_all(out, buf, n) < 0)
			return -1;
	}
	return 0;
}

int vm_write_initrd(const char *path, const char *staprun, const char *stapio,
		    const struct cpio *run, int verbose)
{
	int out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (out < 0) {
		vm_msg("cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	char *dir = cache_dir();
	char *name = base_key(staprun, stapio);
	int in = -1, rc = 0;
	if (dir) {
		char *p = xasprintf("%s/%s", dir, name);
		in = open(p, O_RDONLY | O_CLOEXEC);
		if (in >= 0) {
			utimensat(AT_FDCWD, p, NULL, 0);   /* mark as used, for cache_prune */
			if (verbose)
				vm_msg("base initramfs from the cache: %s", p);
		}
		free(p);
	}
	if (in >= 0) {
		if (copy_fd(in, out) < 0)
			rc = -1;
		close(in);
	} else {
		struct cpio base;
		cpio_init(&base, 1);
		if (build_base(&base, staprun, stapio, verbose) < 0) {
			rc = -2;
		} else {
			if (verbose)
				vm_msg("built the base initramfs (%zu bytes)%s%s", base.buf.len,
				       dir ? ", cached in " : "", dir ? dir : "");
			if (write_all(out, base.buf.buf, base.buf.len) < 0)
				rc = -1;
			if (dir) {   /* whole or not at all; a staprun rebuild makes a new one */
				char *p = xasprintf("%s/%s", dir, name);
				cache_store(dir, p, base.buf.buf, base.buf.len, "base-", 8, 2 * 86400);
				free(p);
			}
		}
		cpio_release(&base);
	}
	if (rc == 0 && write_all(out, run->buf.buf, run->buf.len) < 0)
		rc = -1;
	if (close(out) < 0 && rc == 0)
		rc = -1;
	if (rc == -1)
		vm_msg("cannot write %s: %s", path, strerror(errno));
	free(dir);
	free(name);
	return rc < 0 ? -1 : 0;
}
