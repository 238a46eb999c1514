/* stapio_bulk.c - per-CPU output files for stap -b (see stapio_bulk.h). */
#include "stapio_bulk.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "write_all.h"

#define BULK_MAX_CPUS 8192

/* cpu's file, opened (truncated) the first time it has output */
static int bulk_fd(struct bulk_files *b, uint32_t cpu)
{
	char path[4096];

	if (cpu >= BULK_MAX_CPUS)
		return -1;
	if (cpu >= b->nfd) {
		unsigned n = cpu + 16;
		int *fd = realloc(b->fd, n * sizeof(*fd));

		if (!fd)
			return -1;
		for (unsigned i = b->nfd; i < n; i++)
			fd[i] = -1;
		b->fd = fd;
		b->nfd = n;
	}
	if (b->fd[cpu] >= 0)
		return b->fd[cpu];
	if (b->base)
		snprintf(path, sizeof(path), "%s_%u", b->base, cpu);
	else
		snprintf(path, sizeof(path), "stpd_cpu%u", cpu);
	b->fd[cpu] = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (b->fd[cpu] < 0)
		fprintf(stderr, "ERROR: cannot open %s: %s\n", path, strerror(errno));
	return b->fd[cpu];
}

int bulk_write(struct bulk_files *b, uint32_t cpu, uint32_t seq, const char *data, size_t len)
{
	uint32_t head[2] = { seq, (uint32_t)len };
	int fd = bulk_fd(b, cpu);

	if (fd < 0)
		return -1;
	write_all(fd, (const char *)head, sizeof(head));
	write_all(fd, data, len);
	return 0;
}

void bulk_close(struct bulk_files *b)
{
	for (unsigned i = 0; i < b->nfd; i++)
		if (b->fd[i] >= 0)
			close(b->fd[i]);
	free(b->fd);
	b->fd = NULL;
	b->nfd = 0;
}
