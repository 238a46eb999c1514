/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: bounded string helpers (doc/runtime-api.md, "Strings").
 * Script strings live in char[MAXSTRINGLEN] buffers; every result is cut at
 * MAXSTRINGLEN - 1 bytes and always NUL-terminated. Also the integer to
 * text conversion that the printf engine (format.h) shares.
 */

/*
 * In user space this directory is on the include path, so a libc header's
 * "#include <strings.h>" lands here: hand it the system header first.
 */
#ifndef __KERNEL__
#include_next <strings.h>
#endif

#ifndef STP_STRINGS_H
#define STP_STRINGS_H

#include "userspace_shim.h"

#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 512
#endif

/*
 * Copy src into dst[size], cutting it to fit; returns the length of dst.
 * size 0 leaves dst alone. O(length copied).
 */
static inline __maybe_unused size_t stp_strlcpy_sz(char *dst, const char *src,
						   size_t size)
{
	size_t n = 0;

	if (unlikely(size == 0))
		return 0;
	if (likely(src))
		while (n < size - 1 && src[n]) {
			dst[n] = src[n];
			n++;
		}
	dst[n] = '\0';
	return n;
}

/*
 * Append src to the string in dst[size], cutting it to fit; returns the new
 * length of dst. O(strlen(dst) + length appended).
 */
static inline __maybe_unused size_t stp_strlcat_sz(char *dst, const char *src,
						   size_t size)
{
	size_t n = 0;

	while (n < size && dst[n])
		n++;
	if (n >= size)		/* dst was not terminated within size */
		return n;
	return n + stp_strlcpy_sz(dst + n, src, size - n);
}

/* Script string assignment: dst is a char[MAXSTRINGLEN]. */
static inline __maybe_unused size_t stp_strlcpy(char *dst, const char *src)
{
	return stp_strlcpy_sz(dst, src, MAXSTRINGLEN);
}

/* Script string concatenation (a . b) into a char[MAXSTRINGLEN]. */
static inline __maybe_unused size_t stp_strlcat(char *dst, const char *src)
{
	return stp_strlcat_sz(dst, src, MAXSTRINGLEN);
}

/*
 * Digits of num in base 8, 10 or 16, least significant first, into tmp
 * (at least 22 bytes for base 8); returns how many. Shifts for the powers
 * of two and do_div for base 10, so 32-bit kernels need no libgcc helper.
 * O(digits).
 */
static inline __maybe_unused int stp_utoa_rev(char *tmp, u64 num, int base,
					      bool upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int n = 0;

	if (base == 16) {
		do {
			tmp[n++] = digits[num & 15];
			num >>= 4;
		} while (num);
	} else if (base == 8) {
		do {
			tmp[n++] = digits[num & 7];
			num >>= 3;
		} while (num);
	} else {
		do {
			tmp[n++] = digits[do_div(num, 10)];
		} while (num);
	}
	return n;
}

/*
 * Decimal text of n into dst (a char[MAXSTRINGLEN]; 21 bytes suffice);
 * returns its length. Used for long -> string conversions. O(digits).
 */
static inline __maybe_unused size_t stp_ltoa(char *dst, int64_t n)
{
	char tmp[24];
	u64 u = n < 0 ? -(u64)n : (u64)n;
	int len = stp_utoa_rev(tmp, u, 10, false);
	size_t i = 0;

	if (n < 0)
		dst[i++] = '-';
	while (len > 0)
		dst[i++] = tmp[--len];
	dst[i] = '\0';
	return i;
}

/* text_str()'s escape of one byte, as SystemTap 4.8: \n \t \r \v \f \a \b
 * \" \\, \ooo octal for the rest that is not printable ASCII. Its length: */
static const char stp_escape_simple[] __maybe_unused = { '\n', 'n', '\t', 't', '\r', 'r', '\v', 'v',
	'\f', 'f', '\a', 'a', '\b', 'b', '"', '"', '\\', '\\' };

/* The letter of ch's two-character escape, or 0. */
static inline __maybe_unused char stp_escape_letter(unsigned char ch)
{
	int i;

	for (i = 0; i < (int)sizeof(stp_escape_simple); i += 2)
		if (ch == (unsigned char)stp_escape_simple[i])
			return stp_escape_simple[i + 1];
	return 0;
}

static inline __maybe_unused int stp_escape_len(unsigned char ch)
{
	if (stp_escape_letter(ch))
		return 2;
	return ch < 32 || ch >= 127 ? 4 : 1;
}

/* ... and the escape itself, written at o (stp_escape_len(ch) bytes, no NUL). */
static inline __maybe_unused void stp_escape(char *o, unsigned char ch)
{
	char letter = stp_escape_letter(ch);

	if (letter) {
		o[0] = '\\';
		o[1] = letter;
		return;
	}
	if (ch < 32 || ch >= 127) {
		o[0] = '\\';
		o[1] = '0' + ((ch >> 6) & 7);
		o[2] = '0' + ((ch >> 3) & 7);
		o[3] = '0' + (ch & 7);
		return;
	}
	o[0] = ch;
}

#endif /* STP_STRINGS_H */
