/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: IEEE 754 binary64 arithmetic done with integers, for the
 * floatingpoint tapset (a double travels in a script long as its 64 bits).
 * The kernel may not touch the FPU in a probe handler, so every operation
 * here is integer code: round to nearest even, subnormals, infinities and
 * NaNs as IEEE 754 says. Where IEEE leaves a choice, the choices are those
 * SystemTap 4.8's tapset shows: an invalid operation gives the positive
 * quiet NaN 0x7ff8000000000000; a NaN operand comes back quieted, the first
 * signaling one first, else the first one; converting a NaN to an integer
 * gives 0, an out-of-range value the nearest of INT64_MIN/INT64_MAX.
 * Also compiled in user space (testsuite/unit/softfp_test.c).
 */
#ifndef STP_SOFTFP_H
#define STP_SOFTFP_H

#include "userspace_shim.h"

#define STP_F64_DEFAULT_NAN	0x7ff8000000000000ULL
#define STP_F64_QUIET		0x0008000000000000ULL
#define STP_F64_FRAC_MASK	0x000fffffffffffffULL
#define STP_F64_HIDDEN		0x0010000000000000ULL

typedef unsigned __int128 stp_u128;

static inline __maybe_unused unsigned int stp_f64_biased_exp(u64 a)
{
	return (a >> 52) & 0x7ff;
}

static inline __maybe_unused bool stp_f64_is_nan(u64 a)
{
	return stp_f64_biased_exp(a) == 0x7ff && (a & STP_F64_FRAC_MASK);
}

static inline __maybe_unused bool stp_f64_is_inf(u64 a)
{
	return (a << 1) == 0xffe0000000000000ULL;
}

static inline __maybe_unused bool stp_f64_is_zero(u64 a)
{
	return (a << 1) == 0;
}

/* The NaN an operation with a NaN operand returns (see the header). */
static inline __maybe_unused u64 stp_f64_nan_result(u64 a, u64 b)
{
	bool a_nan = stp_f64_is_nan(a), b_nan = stp_f64_is_nan(b);

	if (a_nan && !(a & STP_F64_QUIET))
		return a | STP_F64_QUIET;
	if (b_nan && !(b & STP_F64_QUIET))
		return b | STP_F64_QUIET;
	return (a_nan ? a : b) | STP_F64_QUIET;
}

/* a >> dist, with a 1 in bit 0 if any 1 bit was shifted out. */
static inline __maybe_unused u64 stp_shift_right_jam(u64 a, unsigned int dist)
{
	if (dist == 0)
		return a;
	if (dist >= 64)
		return a != 0;
	return (a >> dist) | ((a << (64 - dist)) != 0);
}

/*
 * The double nearest sig * 2^(e - 1084) (ties to even), sig with its
 * leading one at bit 62 and ten rounding bits below the 53 it keeps; e is
 * the biased exponent minus one, so that the leading one carries into the
 * exponent field (e <= 0: subnormal or zero). Overflow gives an infinity.
 */
static inline __maybe_unused u64 stp_f64_round_pack(int sign, int e, u64 sig)
{
	unsigned int round_bits = sig & 0x3ff;

	if ((unsigned int)e >= 0x7fd) {
		if (e < 0) {
			sig = stp_shift_right_jam(sig, -e);
			e = 0;
			round_bits = sig & 0x3ff;
		} else if (e > 0x7fd || sig + 0x200 >= 0x8000000000000000ULL) {
			return ((u64)sign << 63) | 0x7ff0000000000000ULL;
		}
	}
	sig = (sig + 0x200) >> 10;
	if (round_bits == 0x200)
		sig &= ~1ULL;
	if (!sig)
		e = 0;
	return ((u64)sign << 63) + ((u64)e << 52) + sig;
}

/* As stp_f64_round_pack, for any sig (moved to bit 62 first); 0 is a zero. */
static inline __maybe_unused u64 stp_f64_norm_round_pack(int sign, int e, u64 sig)
{
	int shift;

	if (!sig)
		return (u64)sign << 63;
	shift = __builtin_clzll(sig) - 1;
	if (shift < 0)
		return stp_f64_round_pack(sign, e + 1, stp_shift_right_jam(sig, 1));
	return stp_f64_round_pack(sign, e - shift, sig << shift);
}

/*
 * Split a finite nonzero a into its significand, with the leading one at
 * bit 52 (subnormals normalized), and unbiased exponent: |a| = m * 2^(exp - 52).
 */
static inline __maybe_unused void stp_f64_unpack(u64 a, u64 *m, int *exp)
{
	unsigned int be = stp_f64_biased_exp(a);
	u64 frac = a & STP_F64_FRAC_MASK;

	if (be) {
		*m = frac | STP_F64_HIDDEN;
		*exp = (int)be - 1023;
	} else {
		int shift = __builtin_clzll(frac) - 11;

		*m = frac << shift;
		*exp = -1022 - shift;
	}
}

/* a + b, or a - b when negate_b (the sign of a NaN b stays). */
static inline __maybe_unused u64 stp_f64_addsub(u64 a, u64 b, bool negate_b)
{
	int sa, sb, ea, eb;
	u64 ma, mb;

	if (stp_f64_is_nan(a) || stp_f64_is_nan(b))
		return stp_f64_nan_result(a, b);
	if (negate_b)
		b ^= 1ULL << 63;
	sa = a >> 63;
	sb = b >> 63;
	if (stp_f64_biased_exp(a) == 0x7ff) {
		if (stp_f64_biased_exp(b) == 0x7ff && sa != sb)
			return STP_F64_DEFAULT_NAN;	/* inf - inf */
		return a;
	}
	if (stp_f64_biased_exp(b) == 0x7ff)
		return b;
	if (stp_f64_is_zero(a) && stp_f64_is_zero(b))
		return sa == sb ? a : 0;	/* -0 + -0 = -0, else +0 */
	if (stp_f64_is_zero(a))
		return b;
	if (stp_f64_is_zero(b))
		return a;
	stp_f64_unpack(a, &ma, &ea);
	stp_f64_unpack(b, &mb, &eb);
	ma <<= 10;
	mb <<= 10;
	/* make a the larger magnitude */
	if (ea < eb || (ea == eb && ma < mb)) {
		u64 t = ma; int te = ea, ts = sa;

		ma = mb; ea = eb; sa = sb;
		mb = t; eb = te; sb = ts;
	}
	mb = stp_shift_right_jam(mb, ea - eb);
	if (sa == sb)
		return stp_f64_norm_round_pack(sa, ea + 1022, ma + mb);
	if (ma == mb)
		return 0;	/* x - x is +0 */
	return stp_f64_norm_round_pack(sa, ea + 1022, ma - mb);
}

/* a * b */
static inline __maybe_unused u64 stp_f64_mul(u64 a, u64 b)
{
	int sign = (a ^ b) >> 63, ea, eb;
	u64 ma, mb, sig;
	stp_u128 p;

	if (stp_f64_is_nan(a) || stp_f64_is_nan(b))
		return stp_f64_nan_result(a, b);
	if (stp_f64_is_inf(a) || stp_f64_is_inf(b)) {
		if (stp_f64_is_zero(a) || stp_f64_is_zero(b))
			return STP_F64_DEFAULT_NAN;	/* 0 * inf */
		return ((u64)sign << 63) | 0x7ff0000000000000ULL;
	}
	if (stp_f64_is_zero(a) || stp_f64_is_zero(b))
		return (u64)sign << 63;
	stp_f64_unpack(a, &ma, &ea);
	stp_f64_unpack(b, &mb, &eb);
	p = (stp_u128)ma * mb;	/* in [2^104, 2^106) */
	sig = (u64)(p >> 42) | (((u64)p & ((1ULL << 42) - 1)) != 0);
	return stp_f64_norm_round_pack(sign, ea + eb + 1022, sig);
}

/* a / b */
static inline __maybe_unused u64 stp_f64_div(u64 a, u64 b)
{
	int sign = (a ^ b) >> 63, ea, eb, i;
	u64 ma, mb, q = 0;

	if (stp_f64_is_nan(a) || stp_f64_is_nan(b))
		return stp_f64_nan_result(a, b);
	if (stp_f64_is_inf(a)) {
		if (stp_f64_is_inf(b))
			return STP_F64_DEFAULT_NAN;
		return ((u64)sign << 63) | 0x7ff0000000000000ULL;
	}
	if (stp_f64_is_inf(b))
		return (u64)sign << 63;
	if (stp_f64_is_zero(b)) {
		if (stp_f64_is_zero(a))
			return STP_F64_DEFAULT_NAN;
		return ((u64)sign << 63) | 0x7ff0000000000000ULL;
	}
	if (stp_f64_is_zero(a))
		return (u64)sign << 63;
	stp_f64_unpack(a, &ma, &ea);
	stp_f64_unpack(b, &mb, &eb);
	/* q = floor(ma / mb * 2^62), one bit a round */
	for (i = 0; i < 63; i++) {
		q <<= 1;
		if (ma >= mb) {
			ma -= mb;
			q |= 1;
		}
		ma <<= 1;
	}
	return stp_f64_norm_round_pack(sign, ea - eb + 1022, q | (ma != 0));
}

/* The IEEE remainder of a / b: a - n * b, n the quotient rounded to even. */
static inline __maybe_unused u64 stp_f64_rem(u64 a, u64 b)
{
	int sign = a >> 63, ea, eb, d;
	u64 ma, mb, r;
	bool odd = false;

	if (stp_f64_is_nan(a) || stp_f64_is_nan(b))
		return stp_f64_nan_result(a, b);
	if (stp_f64_is_inf(a) || stp_f64_is_zero(b))
		return STP_F64_DEFAULT_NAN;
	if (stp_f64_is_inf(b) || stp_f64_is_zero(a))
		return a;
	stp_f64_unpack(a, &ma, &ea);
	stp_f64_unpack(b, &mb, &eb);
	d = ea - eb;
	if (d < -1)
		return a;	/* |a| < |b| / 2 */
	/* r: |a| mod |b| in units of 2^(eb - 53); mb doubled to match */
	if (d == -1) {
		r = ma;
	} else {
		r = ma;
		if (r >= mb) {
			r -= mb;
			odd = true;
		}
		while (d-- > 0) {
			r <<= 1;
			odd = r >= mb;
			if (odd)
				r -= mb;
		}
		r <<= 1;
	}
	mb <<= 1;
	/* round the quotient to nearest, ties to even */
	if (2 * r > mb || (2 * r == mb && odd)) {
		r = mb - r;
		sign ^= 1;
	}
	if (!r)
		return a & (1ULL << 63);
	/* |result| = r * 2^(eb - 53) */
	return stp_f64_norm_round_pack(sign, eb - 53 + 1084, r);
}

/* The square root of a. */
static inline __maybe_unused u64 stp_f64_sqrt(u64 a)
{
	stp_u128 n, rem = 0, root = 0;
	int e, i;
	u64 m;

	if (stp_f64_is_nan(a))
		return stp_f64_nan_result(a, a);
	if (stp_f64_is_zero(a))
		return a;
	if (a >> 63)
		return STP_F64_DEFAULT_NAN;
	if (stp_f64_is_inf(a))
		return a;
	stp_f64_unpack(a, &m, &e);
	/* |a| = m * 2^(e - 52): make e - 52 even */
	e -= 52;
	if (e & 1) {
		m <<= 1;
		e -= 1;
	}
	n = (stp_u128)m << 72;	/* in [2^124, 2^127) */
	for (i = 0; i < 64; i++) {
		stp_u128 t;

		root <<= 1;
		rem = (rem << 2) | (n >> 126);
		n <<= 2;
		t = (root << 1) | 1;
		if (rem >= t) {
			rem -= t;
			root |= 1;
		}
	}
	/* sqrt(a) = root * 2^((e - 72) / 2), root < 2^64 */
	return stp_f64_norm_round_pack(0, (e - 72) / 2 + 1084,
				       (u64)root | (rem != 0));
}

/* a == b (NaNs are unequal to everything, -0 == +0). */
static inline __maybe_unused bool stp_f64_eq(u64 a, u64 b)
{
	if (stp_f64_is_nan(a) || stp_f64_is_nan(b))
		return false;
	return a == b || ((a | b) << 1) == 0;
}

/* a < b (false if either is a NaN). */
static inline __maybe_unused bool stp_f64_lt(u64 a, u64 b)
{
	int sa = a >> 63, sb = b >> 63;

	if (stp_f64_is_nan(a) || stp_f64_is_nan(b))
		return false;
	if (sa != sb)
		return sa && ((a | b) << 1) != 0;
	return a != b && (sa ^ (a < b));
}

/* a <= b (false if either is a NaN). */
static inline __maybe_unused bool stp_f64_le(u64 a, u64 b)
{
	int sa = a >> 63, sb = b >> 63;

	if (stp_f64_is_nan(a) || stp_f64_is_nan(b))
		return false;
	if (sa != sb)
		return sa || ((a | b) << 1) == 0;
	return a == b || (sa ^ (a < b));
}

/* The double nearest the integer v. */
static inline __maybe_unused u64 stp_i64_to_f64(s64 v)
{
	int sign = v < 0;
	u64 mag = sign ? -(u64)v : (u64)v;

	return stp_f64_norm_round_pack(sign, 1084, mag);
}

/* The double of the binary32 value in the low 32 bits of v (exact). */
static inline __maybe_unused u64 stp_f32_to_f64(u64 v)
{
	u32 x = (u32)v;
	u64 sign = (u64)(x >> 31) << 63;
	int be = (x >> 23) & 0xff;
	u64 frac = x & 0x7fffff;

	if (be == 0xff) {
		if (frac)	/* quieted, the payload kept */
			return sign | 0x7ff8000000000000ULL | (frac << 29);
		return sign | 0x7ff0000000000000ULL;
	}
	if (be == 0) {
		int shift;

		if (!frac)
			return sign;
		shift = __builtin_clz((u32)frac) - 8;
		frac = (frac << shift) & 0x7fffff;
		be = 1 - shift;
	}
	return sign | ((u64)(be + 1023 - 127) << 52) | (frac << 29);
}

/*
 * The integer a rounds to, in a rounding mode of SystemTap's fp_to_long:
 * 0 nearest (ties to even), 1 toward zero, 2 down, 3 up, 4 nearest (ties
 * away from zero); any other mode truncates as 1 does.
 */
static inline __maybe_unused s64 stp_f64_to_i64(u64 a, int mode)
{
	int sign = a >> 63, be = stp_f64_biased_exp(a);
	u64 sig, whole, extra;
	int shift;

	if (stp_f64_is_nan(a))
		return 0;
	if (be >= 1023 + 63) {
		if (sign)
			return (s64)(1ULL << 63);
		return (s64)(~0ULL >> 1);
	}
	sig = (a & STP_F64_FRAC_MASK) | (be ? STP_F64_HIDDEN : 0);
	shift = 1075 - (be ? be : 1);
	if (shift <= 0) {
		whole = sig << -shift;
		extra = 0;
	} else if (shift < 64) {
		whole = sig >> shift;
		extra = sig << (64 - shift);
	} else {
		whole = 0;
		extra = stp_shift_right_jam(sig, shift - 64);
	}
	switch (mode) {
	case 0:
		if (extra > (1ULL << 63) || (extra == (1ULL << 63) && (whole & 1)))
			whole++;
		break;
	case 2:
		if (sign && extra)
			whole++;
		break;
	case 3:
		if (!sign && extra)
			whole++;
		break;
	case 4:
		if (extra >= (1ULL << 63))
			whole++;
		break;
	}
	if (sign)
		return whole >= (1ULL << 63) ? (s64)(1ULL << 63) : -(s64)whole;
	return whole > (~0ULL >> 1) ? (s64)(~0ULL >> 1) : (s64)whole;
}

/* Append the decimal digits of v to buf at *len (size bytes in all). */
static inline __maybe_unused void stp_softfp_putu(char *buf, size_t size, size_t *len, u64 v)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n > 0 && *len + 1 < size)
		buf[(*len)++] = tmp[--n];
	buf[*len] = '\0';
}

/*
 * a in decimal with prec (at least 1) digits after the point, as
 * SystemTap 4.8's fp_to_string writes it. The significand m is cut at
 * bit s = (52 - exponent) mod 64: the integer part is m >> s, the fraction
 * m's bits below s, over 2^s. Each digit is (fraction * 10) >> s with the
 * product kept to 64 bits; the last one goes up by one when the next digit
 * would be 5 or more (so that a 9 reads "10"). The counts going modulo 64
 * and the products wrapping make a value from 2^53 on, or below 2^-9, read
 * as another number (1e20 as "5.42...", 2^-12 as "4503599627370496.0"),
 * an infinity as 1.0 and a NaN as its significand: SystemTap's results,
 * which scripts that print them see.
 */
static inline __maybe_unused void stp_f64_to_string(char *buf, size_t size, u64 a, s64 prec)
{
	unsigned int be = stp_f64_biased_exp(a);
	u64 m = (a & STP_F64_FRAC_MASK) | (be ? STP_F64_HIDDEN : 0);
	unsigned int s = (52 - ((int)be - 1023)) & 63;
	u64 mask = (1ULL << s) - 1, frac = m & mask;
	size_t len = 0;
	s64 i;

	if (!size)
		return;
	if (prec < 1)
		prec = 1;
	if ((a >> 63) && len + 1 < size)
		buf[len++] = '-';
	buf[len] = '\0';
	stp_softfp_putu(buf, size, &len, m >> s);
	if (len + 1 < size)
		buf[len++] = '.';
	for (i = 1; i <= prec && len + 1 < size; i++) {
		u64 digit;

		frac *= 10;
		digit = frac >> s;
		frac &= mask;
		if (i == prec && ((frac * 10) >> s) >= 5)
			digit++;
		if (digit >= 10 && len + 2 < size) {
			stp_softfp_putu(buf, size, &len, digit);
			continue;
		}
		buf[len++] = '0' + digit % 10;
	}
	buf[len] = '\0';
}

/*
 * The double a decimal string names, or -EINVAL. As SystemTap 4.8's
 * string_to_fp: an optional sign, digits with at most one '.', an optional
 * exponent ('e' or 'E', an optional sign, digits); any part may be empty,
 * nothing else may be there. The digits are gathered as an integer in
 * doubles (r = r * 10 + d, each step rounded), then divided by the power
 * of ten of the exponent less the fraction's length, that power itself
 * made by repeated rounded steps of * 10 or / 10; a NaN (0e400) is invalid.
 */
static inline __maybe_unused int stp_string_to_f64(const char *s, u64 *out)
{
	const u64 ten = 0x4024000000000000ULL, one = 0x3ff0000000000000ULL;
	u64 r = 0, scale = one;
	s64 e = 0, nfrac = 0, n;
	bool neg = false, eneg = false, dot = false;

	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	for (; (*s >= '0' && *s <= '9') || (*s == '.' && !dot); s++) {
		if (*s == '.') {
			dot = true;
			continue;
		}
		r = stp_f64_addsub(stp_f64_mul(r, ten), stp_i64_to_f64(*s - '0'), false);
		if (dot)
			nfrac++;
	}
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			eneg = *s++ == '-';
		for (; *s >= '0' && *s <= '9'; s++)
			if (e < 100000000)
				e = e * 10 + (*s - '0');
	}
	if (*s)
		return -EINVAL;
	n = (eneg ? -e : e) - nfrac;
	/* scale reaches 0 or an infinity in a few hundred steps: stop there */
	for (; n > 0 && !stp_f64_is_zero(scale); n--)
		scale = stp_f64_div(scale, ten);
	for (; n < 0 && !stp_f64_is_inf(scale); n++)
		scale = stp_f64_mul(scale, ten);
	r = stp_f64_div(r, scale);
	if (neg)
		r ^= 1ULL << 63;
	if (stp_f64_is_nan(r))
		return -EINVAL;
	*out = r;
	return 0;
}

#endif /* STP_SOFTFP_H */
