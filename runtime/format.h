/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: the printf engine behind printf/sprintf
 * (doc/runtime-api.md, "Formatting"), for the kernel module and user space:
 * stapbpf formats the BPF runtime's records with it, the translator (pass
 * 2) and stapbpf (a bundle's formats) check formats with
 * stp_format_signature.
 *
 * SystemTap semantics, which differ from C's in places:
 *  - one optional flag only ("%-+5d" is an invalid conversion), then an
 *    optional width (digits or '*'), an optional precision ('.' then digits
 *    or '*'; a '.' alone means no precision), an optional 'l' (ignored) and
 *    the conversion. So "%+05d" is flag '+' with width 5: no zero padding.
 *  - every number is 64 bits; %d %i signed, %u %o %x %X unsigned.
 *  - '#' puts "0x"/"0X" before hex and "0" before octal even for 0 and even
 *    with a precision ("%#o" of 0 is "00"); '0' pads with zeros even when a
 *    precision is given; '+' and ' ' only act on %d/%i.
 *  - %p is %#x: "0x" then lower-case hex digits, no fixed width.
 *  - '*' takes an int64 argument cut to int; a negative width or precision
 *    counts as 0 (no left justification).
 *  - %s: precision cuts the string; "%0s" appends a NUL byte after the
 *    padded string. A NULL (or below 4096) string pointer prints "<NULL>".
 *  - %c: one byte; "%#c" escapes non-printable bytes, quote and backslash
 *    as \n \t ... or \ooo.
 *  - %b: the value as raw native-endian bytes: precision (1, 2, 4 or 8,
 *    else unset) is the size, width the field, padded with NUL bytes; width
 *    alone selects the size when it is 1/2/4/8; the default is 8 bytes.
 *  - %m: raw bytes read at the address given as the argument (kernel
 *    memory; "%#m" user memory), precision bytes (default, and .0, mean 1);
 *    %M the same as lower-case hex pairs. Width pads with spaces.
 *    A failed read drops the whole output and reports the fault address
 *    (stp_format_ex), like SystemTap's "read fault" error.
 *  - "%%" is '%'. An invalid conversion, a '%' ending the format included,
 *    is refused by the translator; this engine copies it literally.
 * Compared byte for byte with SystemTap 4.8 modules on 4479 format/argument
 * cases: all equal but "%1.3b"-like ones (invalid %b precision with a width
 * of 1/2/4), where stap writes more bytes than the width and loses the
 * following output (its precision gets clamped to the space left); here the
 * width decides the size.
 */
#ifndef STP_FORMAT_H
#define STP_FORMAT_H

#include "userspace_shim.h"
#include "strings.h"

/* One printf argument: the translator has checked which member is meant. */
union stp_val {
	int64_t n;
	const char *s;
};

/* stp_fmt_spec.flags */
#define STP_FMT_ZEROPAD	0x01
#define STP_FMT_SIGN	0x02	/* %d %i */
#define STP_FMT_PLUS	0x04
#define STP_FMT_SPACE	0x08
#define STP_FMT_LEFT	0x10
#define STP_FMT_SPECIAL	0x20	/* '#', and implied by %p */
#define STP_FMT_LARGE	0x40	/* %X */

/*
 * One conversion. width/prec are -1 when absent or given by '*' (then
 * width_star/prec_star); len is the number of bytes after the '%' that the
 * conversion spans (the parser's return value).
 */
struct stp_fmt_spec {
	int flags, width, prec;
	char conv;
	int len;
	bool width_star, prec_star;
};

/* A failed %m/%M read: where (the module makes it the probe's read-fault
 * error, print.h). */
struct stp_fmt_fault {
	bool faulted;
	u64 addr;
};

/* Static widths and precisions saturate here instead of overflowing. */
#define STP_FMT_MAX_FIELD 0x3fffffff

#ifdef __KERNEL__
#include "kcompat.h"	/* STP_READ_MEM, STP_READ_USER_MEM */
#else /* !__KERNEL__ */
/* User space: plain memcpy; the first page stands in for a bad address. */
static inline __maybe_unused int stp_fmt_user_read(void *dst, u64 addr,
						   size_t n)
{
	if (addr < 4096)
		return -EFAULT;
	memcpy(dst, (const void *)(uintptr_t)addr, n);
	return 0;
}
#ifndef STP_READ_MEM
#define STP_READ_MEM(dst, addr, n) stp_fmt_user_read((dst), (addr), (n))
#endif
#ifndef STP_READ_USER_MEM
#define STP_READ_USER_MEM(dst, addr, n) stp_fmt_user_read((dst), (addr), (n))
#endif
#endif /* __KERNEL__ */

/*
 * A width or precision at p: '*' (*star), digits (*val, saturated at
 * STP_FMT_MAX_FIELD) or neither (*val left as it is). Returns what follows.
 */
static inline const char *stp_fmt_field(const char *p, int *val, bool *star)
{
	if (*p == '*') {
		*star = true;
		return p + 1;
	}
	if (*p < '0' || *p > '9')
		return p;
	*val = 0;
	do {
		/* clamped before the step, which would overflow an int */
		*val = *val > STP_FMT_MAX_FIELD / 10 ? STP_FMT_MAX_FIELD : *val * 10 + (*p - '0');
		if (*val > STP_FMT_MAX_FIELD)
			*val = STP_FMT_MAX_FIELD;
		p++;
	} while (*p >= '0' && *p <= '9');
	return p;
}

/*
 * Parse one conversion starting just after a '%'. Returns the bytes it
 * spans ("%%" gives conv '%' and 1), or -1 if it is invalid. Then
 * spec->conv is '\0' when the string ended inside a started conversion
 * ("%5", "%-": SystemTap's "trailing incomplete print format conversion"),
 * else the offending byte, '%' for a '%' that ends the string ("invalid or
 * missing conversion specifier"). O(length of the conversion).
 */
static inline __maybe_unused int stp_format_parse_spec(const char *fmt,
						       struct stp_fmt_spec *spec)
{
	const char *p = fmt;

	spec->flags = 0;
	spec->width = -1;
	spec->prec = -1;
	spec->width_star = false;
	spec->prec_star = false;
	spec->conv = '%';
	spec->len = 0;
	if (*p == '\0')
		return -1;
	if (*p == '%') {
		spec->len = 1;
		return 1;
	}

	switch (*p) {
	case '0': spec->flags |= STP_FMT_ZEROPAD; p++; break;
	case '+': spec->flags |= STP_FMT_PLUS; p++; break;
	case '-': spec->flags |= STP_FMT_LEFT; p++; break;
	case ' ': spec->flags |= STP_FMT_SPACE; p++; break;
	case '#': spec->flags |= STP_FMT_SPECIAL; p++; break;
	}

	p = stp_fmt_field(p, &spec->width, &spec->width_star);
	if (*p == '.')
		p = stp_fmt_field(p + 1, &spec->prec, &spec->prec_star);

	if (*p == 'l')
		p++;

	spec->conv = *p;
	spec->len = (int)(p - fmt) + (*p != '\0');
	switch (*p) {
	case 'd':
	case 'i':
		spec->flags |= STP_FMT_SIGN;
		return spec->len;
	case 'X':
		spec->flags |= STP_FMT_LARGE;
		return spec->len;
	case 'p':
		spec->flags |= STP_FMT_SPECIAL;
		return spec->len;
	case 'u': case 'o': case 'x':
	case 'b': case 'c': case 's': case 'm': case 'M':
		return spec->len;
	default:
		return -1;
	}
}

/* How many arguments a parsed conversion takes ('*'s included). */
static inline __maybe_unused int stp_fmt_spec_nargs(const struct stp_fmt_spec *spec)
{
	return spec->width_star + spec->prec_star + (spec->conv != '%');
}

/* Whether the conversion's value argument is a string (else a long). */
static inline __maybe_unused bool stp_fmt_spec_takes_string(const struct stp_fmt_spec *spec)
{
	return spec->conv == 's';
}

/*
 * The arguments fmt takes, in order, one letter each into sig[cap]
 * (NUL-terminated; cut to fit, cap > 0): '*' for a '*' width or precision
 * (a long), else the conversion it is the value of ('s' a string, any
 * other a long). So "%-*s=%d" gives "*sd"; a '*' letter's conversion is
 * the next letter that is not '*'. Returns the number of arguments, or -1
 * at an invalid conversion, *bad (if bad) then at its '%' and sig holding
 * the arguments before it. The translator (pass 2) and stapbpf (a bundle's
 * formats against their argument types) check formats with this.
 * O(fmt length).
 */
static inline __maybe_unused int stp_format_signature(const char *fmt, char *sig, size_t cap,
						      const char **bad)
{
	struct stp_fmt_spec sp;
	size_t k = 0;
	int i, n;

	for (; *fmt; fmt++) {
		if (*fmt != '%')
			continue;
		n = stp_format_parse_spec(fmt + 1, &sp);
		if (n < 0) {
			if (bad)
				*bad = fmt;
			sig[k < cap ? k : cap - 1] = '\0';
			return -1;
		}
		fmt += n;
		for (i = 0; i < stp_fmt_spec_nargs(&sp); i++, k++)
			if (k < cap - 1)
				sig[k] = i < sp.width_star + sp.prec_star ? '*' : sp.conv;
	}
	sig[k < cap ? k : cap - 1] = '\0';
	return (int)k;
}

/* Output cursor: cap bytes are writable (one is kept for the NUL). */
struct stp_fmt_out {
	char *buf;
	size_t cap, len;
};

static inline void stp_fmt_putc(struct stp_fmt_out *o, char c)
{
	if (likely(o->len < o->cap))
		o->buf[o->len] = c;
	o->len++;
}

/* n copies of c; n <= 0 writes nothing. O(bytes stored). */
static inline void stp_fmt_fill(struct stp_fmt_out *o, char c, long n)
{
	if (n <= 0)
		return;
	if (o->len < o->cap)
		memset(o->buf + o->len, c,
		       (size_t)n < o->cap - o->len ? (size_t)n : o->cap - o->len);
	o->len += n;
}

static inline void stp_fmt_write(struct stp_fmt_out *o, const char *s,
				 size_t n)
{
	if (o->len < o->cap)
		memcpy(o->buf + o->len, s,
		       n < o->cap - o->len ? n : o->cap - o->len);
	o->len += n;
}

/* Integer conversions (%d %i %u %o %x %X %p). O(width + digits). */
static __maybe_unused void stp_fmt_number(struct stp_fmt_out *o, u64 num,
					  int base, int width, int prec,
					  int flags)
{
	char tmp[24];
	char sign = 0;
	int ndig, nprefix = 0;
	long pad;

	if (flags & STP_FMT_LEFT)
		flags &= ~STP_FMT_ZEROPAD;
	if (flags & STP_FMT_SIGN) {
		if ((s64)num < 0) {
			sign = '-';
			num = -num;
		} else if (flags & STP_FMT_PLUS) {
			sign = '+';
		} else if (flags & STP_FMT_SPACE) {
			sign = ' ';
		}
	}
	if (flags & STP_FMT_SPECIAL)
		nprefix = base == 16 ? 2 : base == 8 ? 1 : 0;
	ndig = stp_utoa_rev(tmp, num, base, flags & STP_FMT_LARGE);
	if (prec < ndig)
		prec = ndig;
	pad = (long)width - prec - nprefix - (sign != 0);

	if (!(flags & (STP_FMT_ZEROPAD | STP_FMT_LEFT)))
		stp_fmt_fill(o, ' ', pad);
	if (sign)
		stp_fmt_putc(o, sign);
	if (nprefix) {
		stp_fmt_putc(o, '0');
		if (base == 16)
			stp_fmt_putc(o, (flags & STP_FMT_LARGE) ? 'X' : 'x');
	}
	if (flags & STP_FMT_ZEROPAD)
		stp_fmt_fill(o, '0', pad);
	stp_fmt_fill(o, '0', (long)prec - ndig);
	while (ndig > 0)
		stp_fmt_putc(o, tmp[--ndig]);
	if (flags & STP_FMT_LEFT)
		stp_fmt_fill(o, ' ', pad);
}

/* %c, with '#' escaping like a C character literal. O(width). */
static __maybe_unused void stp_fmt_char(struct stp_fmt_out *o,
					unsigned char c, int width, int flags)
{
	char rep[4];
	int n = 1;

	rep[0] = (char)c;
	if ((flags & STP_FMT_SPECIAL) &&
	    (c < 0x20 || c > 0x7e || c == '\'' || c == '\\')) {
		char esc = 0;

		switch (c) {
		case '\a': esc = 'a'; break;
		case '\b': esc = 'b'; break;
		case '\f': esc = 'f'; break;
		case '\n': esc = 'n'; break;
		case '\r': esc = 'r'; break;
		case '\t': esc = 't'; break;
		case '\v': esc = 'v'; break;
		case '\'': esc = '\''; break;
		case '\\': esc = '\\'; break;
		}
		rep[0] = '\\';
		if (esc) {
			rep[1] = esc;
			n = 2;
		} else {
			rep[1] = '0' + ((c >> 6) & 3);
			rep[2] = '0' + ((c >> 3) & 7);
			rep[3] = '0' + (c & 7);
			n = 4;
		}
	}
	if (!(flags & STP_FMT_LEFT))
		stp_fmt_fill(o, ' ', (long)width - n);
	stp_fmt_write(o, rep, n);
	if (flags & STP_FMT_LEFT)
		stp_fmt_fill(o, ' ', (long)width - n);
}

static inline int stp_fmt_binary_size(int n)
{
	return (n == 1 || n == 2 || n == 4 || n == 8) ? n : -1;
}

/* %b: the value's low bytes, native byte order, NUL-padded. O(width). */
static __maybe_unused void stp_fmt_binary(struct stp_fmt_out *o, s64 num,
					  int width, int prec, int flags)
{
	union {
		u8 b1;
		u16 b2;
		u32 b4;
		u64 b8;
		char bytes[8];
	} v;

	prec = stp_fmt_binary_size(prec);
	if (width < 0) {
		if (prec < 0)
			prec = 8;
		width = prec;
	} else if (prec < 0) {
		prec = stp_fmt_binary_size(width);
		if (prec < 0)
			prec = 8;
	}
	switch (prec) {
	case 1: v.b1 = (u8)num; break;
	case 2: v.b2 = (u16)num; break;
	case 4: v.b4 = (u32)num; break;
	default: v.b8 = (u64)num; break;
	}
	if (!(flags & STP_FMT_LEFT))
		stp_fmt_fill(o, '\0', (long)width - prec);
	stp_fmt_write(o, v.bytes, prec);
	if (flags & STP_FMT_LEFT)
		stp_fmt_fill(o, '\0', (long)width - prec);
}

/*
 * Copy or hex-dump n bytes at addr (kernel or, with '#', user memory). Only
 * the bytes that still fit the output are read, so a huge precision costs
 * no more than the buffer. -EFAULT (and *bad) if a read failed.
 * O(bytes stored).
 */
static __maybe_unused int stp_fmt_read_mem(struct stp_fmt_out *o, u64 addr,
					   size_t n, bool hex, bool user,
					   u64 *bad)
{
	static const char hexdig[] = "0123456789abcdef";
	char chunk[32];
	size_t room = o->len < o->cap ? o->cap - o->len : 0;
	size_t want = hex ? (room + 1) / 2 : room;
	size_t i, k;

	if (want > n)
		want = n;
	while (want > 0) {
		k = want < sizeof(chunk) ? want : sizeof(chunk);
		if ((user ? STP_READ_USER_MEM(chunk, addr, k) :
			    STP_READ_MEM(chunk, addr, k)) != 0) {
			/* find the first byte that faults */
			for (i = 0; i < k; i++)
				if ((user ? STP_READ_USER_MEM(chunk, addr + i, 1) :
					    STP_READ_MEM(chunk, addr + i, 1)) != 0)
					break;
			*bad = addr + i;
			return -EFAULT;
		}
		for (i = 0; i < k; i++) {
			if (hex) {
				stp_fmt_putc(o, hexdig[(u8)chunk[i] >> 4]);
				stp_fmt_putc(o, hexdig[(u8)chunk[i] & 15]);
			} else {
				stp_fmt_putc(o, chunk[i]);
			}
		}
		addr += k;
		want -= k;
		n -= k;
	}
	/* the rest did not fit: count it without reading it */
	o->len += hex ? 2 * n : n;
	return 0;
}

/*
 * %s, %m and %M: the bytes, space-padded to width; '0' adds a NUL byte.
 * O(width + bytes).
 */
static __maybe_unused int stp_fmt_memory(struct stp_fmt_out *o,
					 union stp_val arg, int width,
					 int prec, char conv, int flags,
					 u64 *bad)
{
	size_t len, outlen;
	const char *s = NULL;

	if (conv == 's') {
		s = arg.s;
		if ((uintptr_t)s < 4096)
			s = "<NULL>";
		if (prec < 0)
			len = strlen(s);
		else
			len = strnlen(s, prec);
		outlen = len;
	} else {
		len = prec > 0 ? (size_t)prec : 1;
		outlen = conv == 'M' ? 2 * len : len;
	}

	if (!(flags & STP_FMT_LEFT))
		stp_fmt_fill(o, ' ', (long)width - (long)outlen);
	if (s)
		stp_fmt_write(o, s, len);
	else if (stp_fmt_read_mem(o, (u64)arg.n, len, conv == 'M',
				  flags & STP_FMT_SPECIAL, bad))
		return -EFAULT;
	if (flags & STP_FMT_LEFT)
		stp_fmt_fill(o, ' ', (long)width - (long)outlen);
	if (flags & STP_FMT_ZEROPAD)
		stp_fmt_putc(o, '\0');
	return 0;
}

/* The next argument; missing ones (a translator bug) read as 0/NULL. */
static inline union stp_val stp_fmt_arg(const union stp_val *args, int nargs,
					int *ai)
{
	union stp_val zero = { .n = 0 };

	if (*ai < nargs)
		return args[(*ai)++];
	return zero;
}

/*
 * Format like SystemTap's printf into buf[size], snprintf style: at most
 * size - 1 bytes and a NUL (if size > 0); returns the length the output
 * would have had. If a %m/%M read faults, the output is dropped (buf gets
 * "", returns 0) and *fault (if not NULL) says where, for the caller to
 * raise as a run-time error (stp_read_fault).
 * O(fmt length + output length); no allocation, no locks.
 */
static __maybe_unused size_t stp_format_ex(char *buf, size_t size,
					   const char *fmt, int nargs,
					   const union stp_val *args,
					   struct stp_fmt_fault *fault)
{
	struct stp_fmt_out o = { .buf = buf, .cap = size ? size - 1 : 0 };
	struct stp_fmt_spec sp;
	const char *lit;
	int ai = 0;
	u64 bad = 0;

	if (fault)
		fault->faulted = false;
	while (*fmt) {
		int n, width, prec;
		union stp_val v;

		for (lit = fmt; *fmt && *fmt != '%'; fmt++)
			;
		if (fmt != lit)
			stp_fmt_write(&o, lit, fmt - lit);
		if (!*fmt)
			break;
		fmt++;		/* the '%' */
		n = stp_format_parse_spec(fmt, &sp);
		if (unlikely(n < 0 || sp.conv == '%')) {
			/* "%%", or a bad spec (refused by the translator)
			 * copied as is */
			stp_fmt_putc(&o, '%');
			if (n > 0)
				fmt += n;
			continue;
		}
		fmt += n;

		width = sp.width;
		prec = sp.prec;
		if (sp.width_star) {
			width = (int)stp_fmt_arg(args, nargs, &ai).n;
			if (width < 0)
				width = 0;
		}
		if (sp.prec_star) {
			prec = (int)stp_fmt_arg(args, nargs, &ai).n;
			if (prec < 0)
				prec = 0;
		}
		v = stp_fmt_arg(args, nargs, &ai);

		switch (sp.conv) {
		case 'd': case 'i': case 'u':
			stp_fmt_number(&o, (u64)v.n, 10, width, prec, sp.flags);
			break;
		case 'o':
			stp_fmt_number(&o, (u64)v.n, 8, width, prec, sp.flags);
			break;
		case 'x': case 'X': case 'p':
			stp_fmt_number(&o, (u64)v.n, 16, width, prec, sp.flags);
			break;
		case 'c':
			stp_fmt_char(&o, (unsigned char)v.n, width, sp.flags);
			break;
		case 'b':
			stp_fmt_binary(&o, v.n, width, prec, sp.flags);
			break;
		default:	/* s m M */
			if (stp_fmt_memory(&o, v, width, prec, sp.conv,
					   sp.flags, &bad)) {
				if (fault) {
					fault->faulted = true;
					fault->addr = bad;
				}
				if (size)
					buf[0] = '\0';
				return 0;
			}
			break;
		}
	}
	if (size)
		buf[o.len < o.cap ? o.len : o.cap] = '\0';
	return o.len;
}

/* stp_format_ex without fault details (doc/runtime-api.md). */
static inline __maybe_unused size_t stp_format(char *buf, size_t size,
					       const char *fmt, int nargs,
					       const union stp_val *args)
{
	return stp_format_ex(buf, size, fmt, nargs, args, NULL);
}

#endif /* STP_FORMAT_H */
