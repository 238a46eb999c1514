/* ops.h - small operations that generated code needs beyond plain C:
 * checked division, defined shifts, string assignment that tolerates
 * aliasing. Kept apart so the translator's output stays readable.
 */
#ifndef _STP_OPS_H_
#define _STP_OPS_H_

/* Division and modulo: a zero divisor is a script error, not a trap;
 * INT64_MIN / -1 wraps instead of trapping. */
static inline int64_t stp_div(struct stp_context *c, int64_t a, int64_t b, const char *near)
{
	if (unlikely(b == 0)) {
		c->last_error = "division by 0";
		c->last_stmt = near;
		return 0;
	}
	if (unlikely(b == -1))
		return (int64_t)(0 - (u64)a);
	return a / b;
}

static inline int64_t stp_mod(struct stp_context *c, int64_t a, int64_t b, const char *near)
{
	if (unlikely(b == 0)) {
		c->last_error = "division by 0";
		c->last_stmt = near;
		return 0;
	}
	if (unlikely(b == -1))
		return 0;
	return a % b;
}

/* Shifts with counts outside 0..63 are undefined in C; mask like x86 does. */
static inline int64_t stp_shl(int64_t a, int64_t b) { return (int64_t)((u64)a << (b & 63)); }
static inline int64_t stp_shr(int64_t a, int64_t b) { return a >> (b & 63); }
static inline int64_t stp_ushr(int64_t a, int64_t b) { return (int64_t)((u64)a >> (b & 63)); }

/* dst = src, truncated to MAXSTRINGLEN; src may overlap dst. */
static inline void stp_str_assign(char *dst, const char *src)
{
	size_t n;

	if (dst == src)
		return;
	n = strnlen(src, MAXSTRINGLEN - 1);
	memmove(dst, src, n);
	dst[n] = '\0';
}

/* dst .= src, truncated to MAXSTRINGLEN; src may be dst itself. */
static inline void stp_str_append(char *dst, const char *src)
{
	size_t d = strnlen(dst, MAXSTRINGLEN - 1);
	size_t n = strnlen(src, MAXSTRINGLEN - 1);

	if (d + n > MAXSTRINGLEN - 1)
		n = MAXSTRINGLEN - 1 - d;
	memmove(dst + d, src, n);
	dst[d + n] = '\0';
}

/* Decimal text of n into dst (MAXSTRINGLEN). */
static inline const char *stp_str_long(char *dst, int64_t n)
{
	snprintf(dst, MAXSTRINGLEN, "%lld", (long long)n);
	return dst;
}

/* print(n): decimal text of a number into the probe's output */
static inline void stp_print_long(struct stp_context *c, int64_t n)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%lld", (long long)n);
	stp_print_str(c, buf);
}

/* A NUL-terminated string from kernel memory, at most size - 1 bytes, read
 * through the fault-safe accessor byte by byte (strncpy_from_kernel_nofault
 * is not exported to modules). Returns the length, or -EFAULT. */
static inline long stp_kernel_string(char *dst, unsigned long addr, size_t size)
{
	size_t i;

	for (i = 0; i + 1 < size; i++) {
		if (copy_from_kernel_nofault(&dst[i], (const void *)(addr + i), 1)) {
			dst[0] = '\0';
			return -EFAULT;
		}
		if (!dst[i])
			return i;
	}
	dst[i] = '\0';
	return i;
}

#endif /* _STP_OPS_H_ */
