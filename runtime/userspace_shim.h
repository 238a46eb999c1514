/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: the few kernel APIs the pure runtime headers (format.h,
 * map.h, strings.h) use, mapped to libc when they are compiled outside the
 * kernel (CUnit tests; the translator, which uses format.h to check
 * printf formats in pass 2; stapbpf, whose printf is format.h's). In a
 * kernel build this only pulls in the
 * matching kernel headers.
 */
#ifndef STP_USERSPACE_SHIM_H
#define STP_USERSPACE_SHIM_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <asm/div64.h>

#else /* !__KERNEL__ */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <errno.h>

#ifndef __maybe_unused
#define __maybe_unused __attribute__((__unused__))
#endif
#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif
#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif
#ifndef fallthrough
#define fallthrough __attribute__((__fallthrough__))
#endif

typedef uint64_t u64;
typedef int64_t s64;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint16_t u16;
typedef uint8_t u8;

/* do_div(n, base): n /= base in place, evaluates to the remainder. */
#ifndef do_div
#define do_div(n, base) ({				\
	u32 __stp_rem = (u32)((n) % (u32)(base));	\
	(n) = (n) / (u32)(base);			\
	__stp_rem;					\
})
#endif

/* The map's one allocation; zeroed like the kernel's vzalloc. */
static inline __maybe_unused void *vzalloc(size_t size)
{
	return calloc(1, size);
}

static inline __maybe_unused void vfree(const void *p)
{
	free((void *)p);
}

/*
 * Last: <string.h> includes <strings.h>, which may be cstap's strings.h
 * (this directory is on the include path); its body needs the above.
 */
#include <string.h>

#endif /* __KERNEL__ */

#endif /* STP_USERSPACE_SHIM_H */
