/* d_usdt_elf.c - dtrace -G: the program's objects checked against the
 * semaphores' object (see d_usdt.h). An object of another ELF class or
 * machine (a 32-bit one beside the 64-bit semaphores) would not link with
 * it: said here, at the step that was given both, as DTrace does.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "d/d_usdt.h"

/* What an ELF file is built for: its class (1: 32-bit, 2: 64-bit) and its
 * machine; false when the file is not there or is no ELF file (a libtool
 * .lo, say, which SystemTap's script is given and ignores as well). */
static bool elf_kind(const char *path, int *class, int *machine)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, h, sizeof(h));
	close(fd);
	if (n != (ssize_t)sizeof(h) || memcmp(h, "\177ELF", 4))
		return false;
	*class = h[4];
	/* e_machine, in the file's byte order (h[5]: 1 little, 2 big endian) */
	*machine = h[5] == 2 ? h[18] << 8 | h[19] : h[19] << 8 | h[18];
	return true;
}

int d_usdt_check_objects(const char *path, char *const *objects, int nobjects)
{
	int class, machine;

	if (!nobjects || !elf_kind(path, &class, &machine))
		return 0;
	for (int i = 0; i < nobjects; i++) {
		int c, m;

		if (!elf_kind(objects[i], &c, &m) || (c == class && m == machine))
			continue;
		if (c != class)
			fprintf(stderr, "dtrace: failed to link %s: incorrect ELF class for object file %s: "
				"ELF%d, not ELF%d (-32 or -64 chooses the semaphores' class)\n", path,
				objects[i], c * 32, class * 32);
		else
			fprintf(stderr, "dtrace: failed to link %s: incorrect ELF machine for object file "
				"%s: %d, not %d\n", path, objects[i], m, machine);
		unlink(path);
		return -1;
	}
	return 0;
}
