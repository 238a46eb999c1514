/* write_all.h - write(2) all of a buffer, for stapio. */
#ifndef STAPRUN_WRITE_ALL_H
#define STAPRUN_WRITE_ALL_H

#include <errno.h>
#include <stddef.h>
#include <unistd.h>

/* All n bytes, retrying on EINTR; gives up quietly when the reader is gone
 * (EPIPE): stapio keeps draining the module. */
static inline void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= w;
	}
}

#endif
