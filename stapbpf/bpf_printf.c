/* bpf_printf.c - SystemTap's printf over a record's arguments
 * (doc/bpf-bundle.md, "Ring buffer records").
 *
 * As SystemTap 4.8 (and cstap's module runtime) prints, which is not
 * quite C: every integer is 64 bits (%d %i signed, %u %o %x %X
 * unsigned); '#' puts "0x"/"0X" before hex and "0" before octal even for
 * 0; '0' pads with zeros even when a precision is given; '+' and ' ' only
 * act on %d/%i; a '.' without digits is no precision; a '0' right after
 * another flag is part of the width ("%-05d" is width 5); a '*' width or
 * precision takes an l argument, a negative one counting as 0. %p is %#x
 * ("0x1000", as SystemTap 4.8 prints it); %c one byte ('#': escaped like
 * a C character); %s a string field's bytes up to its NUL (at most 64),
 * cut by the precision ("%0s": a NUL byte after it); %b the number's raw
 * bytes (size from the precision, else a width of 1/2/4/8, else 8; NUL
 * padding to the width). Length modifiers (l, ll, h, z ...) are skipped.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_printf.h"

#define F_LEFT	0x01
#define F_PLUS	0x02
#define F_SPACE	0x04
#define F_ZERO	0x08
#define F_ALT	0x10

#define MAX_FIELD (1 << 20)	/* widths and precisions saturate here */

struct conv {
	int flags;
	int width, prec;	/* -1: not given */
	bool width_star, prec_star;	/* '*': from an argument */
	char conv;		/* '%' for "%%"; the offending byte when invalid */
	int span;		/* bytes after the '%' up to conv */
};

/* Growing output text. */
struct obuf {
	char *p;
	size_t len, cap;
	bool oom;
};

/* One conversion after its '%', within [s, end): the bytes it spans, or
 * -1 when it is not one SystemTap has (c->conv then says which byte). */
static int parse_conv(const char *s, const char *end, struct conv *c)
{
	const char *p = s;

	c->flags = 0;
	c->width = c->prec = -1;
	c->width_star = c->prec_star = false;
	c->conv = 0;
	c->span = 0;
	if (p < end && *p == '%') {
		c->conv = '%';
		return c->span = 1;
	}
	if (p < end && *p && strchr("-+ 0#", *p)) {	/* the flag, then lenient extras */
		do {
			switch (*p) {
			case '-': c->flags |= F_LEFT; break;
			case '+': c->flags |= F_PLUS; break;
			case ' ': c->flags |= F_SPACE; break;
			case '0': c->flags |= F_ZERO; break;
			case '#': c->flags |= F_ALT; break;
			}
			p++;
		} while (p < end && *p && strchr("-+ #", *p));
	}
	if (p < end && *p == '*') {
		c->width_star = true;
		p++;
	} else if (p < end && *p >= '0' && *p <= '9') {
		c->width = 0;
		for (; p < end && *p >= '0' && *p <= '9'; p++)
			if (c->width < MAX_FIELD)
				c->width = c->width * 10 + (*p - '0');
		if (c->width > MAX_FIELD)
			c->width = MAX_FIELD;
	}
	if (p < end && *p == '.') {
		p++;
		if (p < end && *p == '*') {
			c->prec_star = true;
			p++;
		} else if (p < end && *p >= '0' && *p <= '9') {
			c->prec = 0;
			for (; p < end && *p >= '0' && *p <= '9'; p++)
				if (c->prec < MAX_FIELD)
					c->prec = c->prec * 10 + (*p - '0');
			if (c->prec > MAX_FIELD)
				c->prec = MAX_FIELD;
		}
	}
	while (p < end && *p && strchr("hlLqjzt", *p))
		p++;
	if (p == end)
		return -1;	/* conv 0: the format ends inside a conversion */
	c->conv = *p;
	c->span = (int)(p - s) + 1;
	if (!*p || !strchr("diuoxXcspb", *p))
		return -1;
	return c->span;
}

/* At parse time, so that formatting a record can trust ARGTYPES. */
int bpf_fmt_check(const char *text, size_t len, const char *argtypes, char *why, size_t whylen)
{
	const char *p = text, *end = text + len;
	size_t nargs = strlen(argtypes), k = 0;
	struct conv c;

	while ((p = memchr(p, '%', end - p)) != NULL) {
		int n = parse_conv(p + 1, end, &c);

		if (n < 0) {
			if (c.conv > ' ' && c.conv < 0x7f)
				snprintf(why, whylen, "invalid conversion '%%%.*s' (d i u x X o c s p b %% are known)",
					 c.span, p + 1);
			else if (c.conv)
				snprintf(why, whylen, "invalid conversion: byte 0x%02x after '%%'",
					 (unsigned char)c.conv);
			else
				snprintf(why, whylen, "the format ends inside a conversion");
			return -1;
		}
		p += 1 + n;
		if (c.conv == '%')
			continue;
		for (int star = c.width_star + c.prec_star; star > 0; star--, k++)
			if (k == nargs || argtypes[k] != 'l') {
				snprintf(why, whylen, "argument %zu (a '*' width or precision) wants %s", k + 1,
					 k == nargs ? "an argument: ARGTYPES has no more"
					 : "a number, ARGTYPES gives 's'");
				return -1;
			}
		if (k == nargs) {
			snprintf(why, whylen, "more conversions than the %zu arguments of ARGTYPES", nargs);
			return -1;
		}
		if ((argtypes[k] == 's') != (c.conv == 's')) {
			snprintf(why, whylen, "conversion %zu (%%%c) wants %s, ARGTYPES gives '%c'", k + 1,
				 c.conv, c.conv == 's' ? "a string" : "a number", argtypes[k]);
			return -1;
		}
		k++;
	}
	if (k != nargs) {
		snprintf(why, whylen, "%zu conversions for the %zu arguments of ARGTYPES", k, nargs);
		return -1;
	}
	return 0;
}

/* Append n bytes (doubling the buffer; out of memory is noted, then fatal). */
static void out_bytes(struct obuf *o, const char *s, size_t n)
{
	if (o->oom)
		return;
	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 128;
		char *p;

		while (cap < o->len + n + 1)
			cap *= 2;
		p = realloc(o->p, cap);
		if (!p) {
			o->oom = true;
			return;
		}
		o->p = p;
		o->cap = cap;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

/* n copies of c; nothing when n <= 0. */
static void out_fill(struct obuf *o, char c, long n)
{
	char chunk[64];

	memset(chunk, c, sizeof(chunk));
	for (; n > 0; n -= (long)sizeof(chunk))
		out_bytes(o, chunk, n < (long)sizeof(chunk) ? (size_t)n : sizeof(chunk));
}

/* s (n bytes) in a field of the conversion's width, spaces around. */
static void out_field(struct obuf *o, const struct conv *c, const char *s, size_t n)
{
	long pad = (long)c->width - (long)n;

	if (!(c->flags & F_LEFT))
		out_fill(o, ' ', pad);
	out_bytes(o, s, n);
	if (c->flags & F_LEFT)
		out_fill(o, ' ', pad);
}

/* %d %i %u %o %x %X. */
static void out_int(struct obuf *o, const struct conv *c, int64_t v)
{
	const char *dig = c->conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
	const char *prefix = "";
	char digits[24];
	uint64_t u = (uint64_t)v;
	unsigned base = 10;
	char sign = 0;
	int nd = 0;
	long prec, pad;
	bool left = c->flags & F_LEFT, zero = (c->flags & F_ZERO) && !left;

	switch (c->conv) {
	case 'd':
	case 'i':
		if (v < 0) {
			sign = '-';
			u = -(uint64_t)v;
		} else if (c->flags & F_PLUS) {
			sign = '+';
		} else if (c->flags & F_SPACE) {
			sign = ' ';
		}
		break;
	case 'o':
		base = 8;
		if (c->flags & F_ALT)
			prefix = "0";
		break;
	case 'x':
	case 'X':
		base = 16;
		if (c->flags & F_ALT)
			prefix = c->conv == 'X' ? "0X" : "0x";
		break;
	}
	do {
		digits[nd++] = dig[u % base];
		u /= base;
	} while (u);
	prec = c->prec > nd ? c->prec : nd;
	pad = (long)c->width - prec - (long)strlen(prefix) - (sign != 0);
	if (!left && !zero)
		out_fill(o, ' ', pad);
	if (sign)
		out_bytes(o, &sign, 1);
	out_bytes(o, prefix, strlen(prefix));
	if (zero)
		out_fill(o, '0', pad);
	out_fill(o, '0', prec - nd);
	while (nd > 0)
		out_bytes(o, &digits[--nd], 1);
	if (left)
		out_fill(o, ' ', pad);
}

/* %c, with '#' escaping like a C character literal. */
static void out_char(struct obuf *o, const struct conv *c, unsigned char ch)
{
	static const char esc_from[] = "\a\b\f\n\r\t\v'\\", esc_to[] = "abfnrtv'\\";
	char rep[4];
	size_t n = 1;
	const char *e;

	rep[0] = (char)ch;
	if ((c->flags & F_ALT) && (ch < 0x20 || ch > 0x7e || ch == '\'' || ch == '\\')) {
		rep[0] = '\\';
		if (ch && (e = strchr(esc_from, ch)) != NULL) {
			rep[1] = esc_to[e - esc_from];
			n = 2;
		} else {
			rep[1] = (char)('0' + ((ch >> 6) & 3));
			rep[2] = (char)('0' + ((ch >> 3) & 7));
			rep[3] = (char)('0' + (ch & 7));
			n = 4;
		}
	}
	out_field(o, c, rep, n);
}

/* %b: the number's low bytes in the host's order, NUL-padded. */
static void out_binary(struct obuf *o, const struct conv *c, int64_t v)
{
	int size = c->prec, width = c->width;
	char bytes[8];
	uint8_t b1 = (uint8_t)v;
	uint16_t b2 = (uint16_t)v;
	uint32_t b4 = (uint32_t)v;

	if (size != 1 && size != 2 && size != 4 && size != 8)
		size = width == 1 || width == 2 || width == 4 || width == 8 ? width : 8;
	if (width < 0)
		width = size;
	switch (size) {
	case 1: memcpy(bytes, &b1, 1); break;
	case 2: memcpy(bytes, &b2, 2); break;
	case 4: memcpy(bytes, &b4, 4); break;
	default: memcpy(bytes, &v, 8);
	}
	if (!(c->flags & F_LEFT))
		out_fill(o, '\0', (long)width - size);
	out_bytes(o, bytes, (size_t)size);
	if (c->flags & F_LEFT)
		out_fill(o, '\0', (long)width - size);
}

/* A '*' width or precision: an l argument, negative counting as 0. */
static int star_value(int64_t v)
{
	return v < 0 ? 0 : v > MAX_FIELD ? MAX_FIELD : (int)v;
}

/* Walk the format, taking the arguments from the record in ARGTYPES order. */
char *bpf_format(const struct bundle_fmt *f, const uint8_t *args, size_t len, size_t *outlen)
{
	const char *p = f->text, *end = f->text + f->len;
	struct obuf o = { 0 };
	size_t k = 0, off = 0;

	if (len < f->args_size)
		return NULL;
	while (p < end) {
		const char *pc = memchr(p, '%', end - p);
		struct conv c;
		int64_t v = 0;
		const char *s = NULL;
		int n;

		if (!pc) {
			out_bytes(&o, p, end - p);
			break;
		}
		out_bytes(&o, p, pc - p);
		n = parse_conv(pc + 1, end, &c);
		if (n < 0) {	/* refused by bpf_fmt_check: cannot happen */
			out_bytes(&o, pc, end - pc);
			break;
		}
		p = pc + 1 + n;
		if (c.conv == '%') {
			out_bytes(&o, "%", 1);
			continue;
		}
		/* ARGTYPES matches the conversions: bpf_fmt_check saw to it */
		for (int star = 0; star < c.width_star + c.prec_star; star++, k++, off += 8) {
			memcpy(&v, args + off, 8);
			if (star == 0 && c.width_star)
				c.width = star_value(v);
			else
				c.prec = star_value(v);
		}
		if (f->argtypes[k++] == 's') {
			s = (const char *)args + off;
			off += BUNDLE_STRSZ;
		} else {
			memcpy(&v, args + off, 8);
			off += 8;
		}
		switch (c.conv) {
		case 's': {
			size_t sl = strnlen(s, BUNDLE_STRSZ);

			if (c.prec >= 0 && (size_t)c.prec < sl)
				sl = (size_t)c.prec;
			out_field(&o, &c, s, sl);
			if (c.flags & F_ZERO)
				out_bytes(&o, "", 1);
			break;
		}
		case 'c':
			out_char(&o, &c, (unsigned char)v);
			break;
		case 'b':
			out_binary(&o, &c, v);
			break;
		case 'p':
			c.conv = 'x';
			c.flags |= F_ALT;
			/* fall through */
		default:
			out_int(&o, &c, v);
		}
	}
	out_bytes(&o, "", 0);
	if (o.oom) {
		free(o.p);
		fprintf(stderr, "stapbpf: out of memory\n");
		exit(1);
	}
	o.p[o.len] = '\0';
	*outlen = o.len;
	return o.p;
}

/* A PRINTF record: its text to the output as one write. */
int bpf_printf(FILE *out, const struct bundle_fmt *f, const uint8_t *args, size_t len)
{
	size_t n;
	char *text = bpf_format(f, args, len, &n);

	if (!text)
		return -1;
	fwrite(text, 1, n, out);
	free(text);
	return 0;
}
