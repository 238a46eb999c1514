/* d_lower_fmt.c - D's output as cstap's printf writes it: trace()'s
 * columns, printf formats (D's C-like conversions as cstap's), and the
 * helper functions the lowered script calls (written once each). */
#include <string.h>

#include "d/d_lower.h"

/* ---- helpers -------------------------------------------------------------------- */

static const char *const helper_text[] = {
	[H_S8] = "function __d_s8(x) { return (x << 56) >> 56 }\n",
	[H_S16] = "function __d_s16(x) { return (x << 48) >> 48 }\n",
	[H_S32] = "function __d_s32(x) { return (x << 32) >> 32 }\n",
	[H_U8] = "function __d_u8(x) { return x & 0xff }\n",
	[H_U16] = "function __d_u16(x) { return x & 0xffff }\n",
	[H_U32] = "function __d_u32(x) { return x & 0xffffffff }\n",
	/* substr(s, i[, n]): a negative i counts from the end; no n: the rest */
	[H_SUBSTR] = "function __d_substr:string(s:string, i:long, n:long) {\n"
		"    len = strlen(s)\n"
		"    if (i < 0) { i += len; if (i < 0) { if (n != -1) n += i; i = 0 } }\n"
		"    if (i >= len) return \"\"\n"
		"    if (n == -1 || n > len - i) n = len - i\n"
		"    if (n <= 0) return \"\"\n"
		"    return substr(s, i, n)\n"
		"}\n",
	[H_INDEX] = "function __d_index:long(s:string, t:string, start:long) {\n"
		"    ls = strlen(s); lt = strlen(t)\n"
		"    if (start < 0) start = 0\n"
		"    for (i = start; i + lt <= ls; i++) if (substr(s, i, lt) == t) return i\n"
		"    return -1\n"
		"}\n",
	[H_RINDEX] = "function __d_rindex:long(s:string, t:string, start:long) {\n"
		"    ls = strlen(s); lt = strlen(t)\n"
		"    i = ls - lt\n"
		"    if (start >= 0 && start < i) i = start\n"
		"    for (; i >= 0; i--) if (substr(s, i, lt) == t) return i\n"
		"    return -1\n"
		"}\n",
	[H_STRCHR] = "function __d_strchr:string(s:string, c:long) {\n"
		"    ls = strlen(s)\n"
		"    for (i = 0; i < ls; i++) if (stringat(s, i) == c) return substr(s, i, ls - i)\n"
		"    return \"\"\n"
		"}\n",
	[H_STRRCHR] = "function __d_strrchr:string(s:string, c:long) {\n"
		"    ls = strlen(s)\n"
		"    for (i = ls - 1; i >= 0; i--) if (stringat(s, i) == c) return substr(s, i, ls - i)\n"
		"    return \"\"\n"
		"}\n",
	[H_STRSTR] = "function __d_strstr:string(s:string, t:string) {\n"
		"    ls = strlen(s); lt = strlen(t)\n"
		"    for (i = 0; i + lt <= ls; i++) if (substr(s, i, lt) == t) return substr(s, i, ls - i)\n"
		"    return \"\"\n"
		"}\n",
	[H_TOUPPER] = "function __d_toupper:string(s:string) {\n"
		"    r = \"\"; ls = strlen(s)\n"
		"    for (i = 0; i < ls; i++) { c = stringat(s, i); if (c >= 97 && c <= 122) c -= 32; r .= sprintf(\"%c\", c) }\n"
		"    return r\n"
		"}\n",
	[H_TOLOWER] = "function __d_tolower:string(s:string) {\n"
		"    r = \"\"; ls = strlen(s)\n"
		"    for (i = 0; i < ls; i++) { c = stringat(s, i); if (c >= 65 && c <= 90) c += 32; r .= sprintf(\"%c\", c) }\n"
		"    return r\n"
		"}\n",
	/* basename/dirname as DTrace's (and POSIX's): trailing slashes ignored */
	[H_BASENAME] = "function __d_basename:string(s:string) {\n"
		"    e = strlen(s)\n"
		"    while (e > 1 && stringat(s, e - 1) == 47) e--\n"
		"    if (e == 0) return \".\"\n"
		"    if (e == 1 && stringat(s, 0) == 47) return \"/\"\n"
		"    b = e\n"
		"    while (b > 0 && stringat(s, b - 1) != 47) b--\n"
		"    return substr(s, b, e - b)\n"
		"}\n",
	[H_DIRNAME] = "function __d_dirname:string(s:string) {\n"
		"    e = strlen(s)\n"
		"    while (e > 1 && stringat(s, e - 1) == 47) e--\n"
		"    while (e > 0 && stringat(s, e - 1) != 47) e--\n"
		"    if (e == 0) return \".\"\n"
		"    while (e > 1 && stringat(s, e - 1) == 47) e--\n"
		"    return substr(s, 0, e)\n"
		"}\n",
	[H_LLTOSTR] = "function __d_lltostr:string(v:long, base:long) {\n"
		"    if (base == 10) return sprintf(\"%d\", v)\n"
		"    if (base == 16) return sprintf(\"0x%x\", v)\n"
		"    if (base == 8) return sprintf(\"0%o\", v)\n"
		"    if (v == 0) return \"0\"\n"
		"    r = \"\"; neg = v < 0; if (neg) v = -v\n"
		"    while (v > 0) { d = v % base; r = sprintf(\"%c\", d < 10 ? 48 + d : 87 + d) . r; v /= base }\n"
		"    return neg ? \"-\" . r : r\n"
		"}\n",
	/* quantize(): bucket 0 for 0, n for values in [2^(n-1), 2^n), -n below 0 */
	[H_QBUCKET] = "function __d_qbucket:long(v:long) {\n"
		"    if (v == 0) return 0\n"
		"    n = 0; a = v < 0 ? -v : v\n"
		"    while (a > 0) { n++; a >>= 1 }\n"
		"    return v < 0 ? -n : n\n"
		"}\n"
		"function __d_qvalue:long(b:long) {\n"
		"    if (b == 0) return 0\n"
		"    return b > 0 ? 1 << (b - 1) : -(1 << (-b - 1))\n"
		"}\n",
	[H_LQBUCKET] = "function __d_lqbucket:long(v:long, base:long, lim:long, step:long) {\n"
		"    if (v < base) return -1\n"
		"    if (v >= lim) return (lim - base) / step\n"
		"    return (v - base) / step\n"
		"}\n",
	/* llquantize(): below factor^low bucket -1 (with low 0: 0 there, and
	 * below 0 bucket -2, shown as -1, as DTrace shows them); in each magnitude
	 * [last, last * factor) min(nsteps, last * factor) buckets of equal
	 * width (those below last left out); factor^(high+1) and up the last */
	[H_LLQBUCKET] = "function __d_llqbucket:long(v:long, f:long, lo:long, hi:long, n:long) {\n"
		"    last = 1; for (i = 0; i < lo; i++) last *= f\n"
		"    if (v < last) return lo == 0 && v < 0 ? -2 : -1\n"
		"    b = 0\n"
		"    for (m = lo; m <= hi; m++) {\n"
		"        nx = last * f; nb = nx > n ? n : nx; w = nx / nb; skip = last / w\n"
		"        if (v < nx) return b + v / w - skip\n"
		"        b += nb - skip; last = nx\n"
		"    }\n"
		"    return b\n"
		"}\n"
		"function __d_llqlabel:string(b:long, f:long, lo:long, hi:long, n:long) {\n"
		"    last = 1; for (i = 0; i < lo; i++) last *= f\n"
		"    if (b == -2) return \"-1\"\n"
		"    if (b < 0) return lo == 0 ? \"0\" : sprintf(\"< %d\", last)\n"
		"    for (m = lo; m <= hi; m++) {\n"
		"        nx = last * f; nb = nx > n ? n : nx; w = nx / nb; skip = last / w\n"
		"        if (b < nb - skip) return sprint((b + skip) * w)\n"
		"        b -= nb - skip; last = nx\n"
		"    }\n"
		"    return sprintf(\">= %d\", last)\n"
		"}\n",
	/* one row of a distribution: the value, 40 columns of @ for its share */
	/* with negative counts the bars grow left of the line */
	[H_QROW] = "function __d_qrow(label:string, c:long, total:long, neg:long) {\n"
		"    n = total > 0 ? ((c < 0 ? -c : c) * 40 + total / 2) / total : 0\n"
		"    if (n > 40) n = 40\n"
		"    ats = substr(\"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\", 0, n)\n"
		"    pad = substr(\"                                        \", 0, 40 - n)\n"
		"    if (neg) printf(\"%16s %s%s| %-9d\\n\", label, pad, ats, c)\n"
		"    else printf(\"%16s |%s%s %-9d\\n\", label, ats, pad, c)\n"
		"}\n",
	[H_STRTOK] = "global __d_tok_s, __d_tok_i\n"
		"function __d_strtok:string(s:string, delim:string, given:long) {\n"
		"    if (given) { __d_tok_s[tid()] = s; __d_tok_i[tid()] = 0 }\n"
		"    s = __d_tok_s[tid()]; i = __d_tok_i[tid()]; ls = strlen(s); ld = strlen(delim)\n"
		"    while (i < ls) { c = stringat(s, i); d = 0; for (j = 0; j < ld; j++) if (stringat(delim, j) == c) d = 1; if (!d) break; i++ }\n"
		"    if (i >= ls) { __d_tok_i[tid()] = i; return \"\" }\n"
		"    b = i\n"
		"    while (i < ls) { c = stringat(s, i); d = 0; for (j = 0; j < ld; j++) if (stringat(delim, j) == c) d = 1; if (d) break; i++ }\n"
		"    __d_tok_i[tid()] = i < ls ? i + 1 : i\n"
		"    return substr(s, b, i - b)\n"
		"}\n",
	/* DTrace's %: the remainder of the magnitudes, negative when the
	 * signs differ (19 % -5 is -4) */
	[H_MOD] = "function __d_mod:long(a:long, b:long) {\n"
		"    r = (a < 0 ? -a : a) % (b < 0 ? -b : b)\n"
		"    return (a < 0) != (b < 0) ? -r : r\n"
		"}\n",
	/* %.Ns: the first N bytes; a precision of 0 (or less) is none */
	[H_PREC] = "function __d_prec:string(s:string, n:long) { return n > 0 ? substr(s, 0, n) : s }\n",
	/* trace() of a string under rawbytes: its strsize + 1 bytes in hex
	 * and as text, 16 a row */
	[H_RAWDUMP] = "function __d_rawdump(s:string, n:long) {\n"
		"    printf(\"\\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\\n\")\n"
		"    ls = strlen(s)\n"
		"    for (off = 0; off < n; off += 16) {\n"
		"        printf(\"%10x: \", off); txt = \"\"\n"
		"        for (i = off; i < off + 16; i++) {\n"
		"            if (i >= n) { printf(\"   \"); continue }\n"
		"            c = i < ls ? stringat(s, i) : 0\n"
		"            printf(\"%02x \", c)\n"
		"            txt .= c >= 32 && c < 127 ? sprintf(\"%c\", c) : \".\"\n"
		"        }\n"
		"        printf(\" %s\\n\", txt)\n"
		"    }\n"
		"}\n",
	/* speculation(): a free buffer's number (1..nspec), 0 when none is */
	[H_SPEC] = "function __d_speculation:long(n:long) {\n"
		"    for (i = 1; i <= n; i++) if (!(i in __d_spec_busy)) { __d_spec_busy[i] = 1; return i }\n"
		"    return 0\n"
		"}\n",
	/* s[i]: its byte, 0 past its end */
	[H_STRAT] = "function __d_strat:long(s:string, i:long) { if (i < 0 || i >= strlen(s)) return 0; return stringat(s, i) }\n",
	[H_BSWAP] = "function __d_bswap16:long(x:long) { return ((x & 0xff) << 8) | ((x >> 8) & 0xff) }\n"
		"function __d_bswap32:long(x:long) { return (__d_bswap16(x) << 16) | __d_bswap16(x >> 16) }\n"
		"function __d_bswap64:long(x:long) { return (__d_bswap32(x) << 32) | __d_bswap32(x >> 32) }\n",
};

void d_need(struct d_lower *L, enum d_helper h)
{
	if (L->helpers & (1u << h))
		return;
	L->helpers |= 1u << h;
	if (h == H_QROW || h == H_LQBUCKET || h == H_LLQBUCKET)
		d_need(L, H_QBUCKET);
	strbuf_addstr(&L->funcs, helper_text[h]);
}

/* ---- trace() ---------------------------------------------------------------------- */

/* trace(e): the value alone when quiet, else in DTrace's columns (a
 * number right-aligned by its type's size, a string in 33 columns) */
void d_lower_trace(struct d_lower *L, const struct d_expr *arg)
{
	struct strbuf sb;
	bool quiet = L->sema->opts->quiet;
	const char *fmt;

	strbuf_init(&sb);
	d_lower_expr(L, &sb, arg);
	if (d_is_string(arg->type) && L->sema->opts->rawbytes) {
		d_need(L, H_RAWDUMP);
		d_line(L, "__d_rawdump(%s, %lld)", sb.buf, (long long)L->sema->opts->strsize + 1);
		strbuf_release(&sb);
		return;
	}
	if (d_is_string(arg->type)) {
		fmt = quiet ? "%s" : "  %-33s";
	} else {
		int64_t size = arg->type ? arg->type->size : 8;
		bool u = arg->type && d_is_int(arg->type) && !arg->type->is_signed && size == 8;
		if (u)
			fmt = quiet ? "%u" : " %19u";
		else
			fmt = quiet ? "%d" : size == 1 ? " %3d" : size == 2 ? " %5d" : size == 4 ? " %10d" : " %19d";
	}
	d_line(L, "printf(\"%s\", %s)", fmt, sb.buf);
	strbuf_release(&sb);
}

/* ---- printf ----------------------------------------------------------------------- */

/* one conversion of a D format: its pieces */
struct conv {
	char flags[8], width[16], prec[16];
	bool star_width, star_prec;
	char c;                  /* the conversion character */
	const char *end;         /* just past it */
};

static bool parse_conv(const char *p, const char *end, struct conv *cv)
{
	int n = 0;

	memset(cv, 0, sizeof(*cv));
	while (p < end && strchr("-+ #0'", *p) && n < 7)
		cv->flags[n++] = *p++;
	n = 0;
	if (p < end && *p == '*')
		cv->star_width = true, p++;
	while (p < end && *p >= '0' && *p <= '9' && n < 15)
		cv->width[n++] = *p++;
	if (p < end && *p == '.') {
		p++;
		n = 0;
		cv->prec[n++] = '.';
		if (p < end && *p == '*')
			cv->star_prec = true, p++;
		while (p < end && *p >= '0' && *p <= '9' && n < 15)
			cv->prec[n++] = *p++;
	}
	while (p < end && strchr("hlLjzt?", *p)) {
		if (*p == '?' && !cv->width[0] && !cv->star_width)   /* a pointer's width: 16 */
			strcpy(cv->width, "16");
		p++;
	}
	if (p >= end)
		return false;
	cv->c = *p++;
	cv->end = p;
	return true;
}

/* the format's text up to its next conversion, as a cstap format */
static const char *copy_text(struct strbuf *out, const char *p, const char *end)
{
	while (p < end && *p != '%') {
		if (*p == '"' || *p == '\\')
			strbuf_addch(out, '\\');
		if (*p == '\n')
			strbuf_addstr(out, "\\n");
		else if (*p == '\t')
			strbuf_addstr(out, "\\t");
		else if ((unsigned char)*p < 32)
			strbuf_addf(out, "\\%03o", (unsigned char)*p);
		else
			strbuf_addch(out, *p);
		p++;
	}
	return p;
}

/* printf(fmt, args...): each conversion checked against its argument */
void d_lower_printf(struct d_lower *L, const struct d_expr *call)
{
	const struct d_expr *f = call->args.items[0];
	struct strbuf fmt, args;
	int next = 1;

	if (f->kind != DE_STR)
		d_error(L->sema->dg, "D_PRINTF_ARG_FMT", f->pos, "printf( ) argument #1 must be a string constant");
	strbuf_init(&fmt);
	strbuf_init(&args);
	const char *p = f->str, *end = f->str + f->str_len;
	while (p < end) {
		struct conv cv;
		p = copy_text(&fmt, p, end);
		if (p >= end)
			break;
		if (p + 1 < end && p[1] == '%') {
			strbuf_addstr(&fmt, "%%");
			p += 2;
			continue;
		}
		if (!parse_conv(p + 1, end, &cv))
			d_error(L->sema->dg, "D_PRINTF_FMT", f->pos, "printf( ) format ends within a conversion");
		const struct d_expr *prec_arg = NULL;
		for (int star = 0; star < cv.star_width + cv.star_prec; star++) {
			if (next >= call->args.len)
				d_error(L->sema->dg, "D_PRINTF_DYN_PROTO", call->pos,
					"printf( ) prototype mismatch: conversion #%d requires a width or precision", next);
			if (star == cv.star_width && cv.c == 's') {   /* %.*s: the length to cut to */
				prec_arg = call->args.items[next++];
				continue;
			}
			strbuf_addstr(&args, ", ");
			d_lower_expr(L, &args, call->args.items[next++]);
		}
		if (next >= call->args.len)
			d_error(L->sema->dg, "D_PRINTF_ARG_PROTO", call->pos,
				"printf( ) prototype mismatch: conversion #%d (%%%c) is missing a corresponding value argument",
				next, cv.c);
		const struct d_expr *a = call->args.items[next++];
		char c = cv.c;
		bool str = d_is_string(a->type);
		switch (c) {
		case 's': case 'S':
			c = 's';
			break;
		case 'd': case 'i': case 'u': case 'x': case 'X': case 'o': case 'c': case 'p':
		case 'e': case 'E': case 'f': case 'g': case 'G': case 'a': case 'A': case 'Y': case 'k':
			if (str)
				d_error(L->sema->dg, "D_PRINTF_ARG_TYPE", a->pos,
					"printf( ) argument #%d is incompatible with conversion #%d prototype:\n"
					"\tconversion: %%%c\n\t prototype: char, short, int, long, or long long\n"
					"\t  argument: string", next, next - 1, cv.c);
			if (c == 'i' || strchr("eEfgGYk", c))
				c = 'd';
			if (c == 'a' || c == 'A')
				c = 'p';
			break;
		default:
			d_error(L->sema->dg, "D_PRINTF_CONV", f->pos, "printf( ) format has an invalid conversion %%%c", cv.c);
		}
		/* an unsigned 64-bit value prints unsigned whatever the conversion */
		if ((c == 'd') && a->type && d_is_int(a->type) && !a->type->is_signed && a->type->size == 8)
			c = 'u';
		/* a string's precision cuts it (cstap's %s has none) */
		if (c == 's' && cv.prec[0]) {
			strbuf_addf(&fmt, "%%%s%s%c", cv.flags, cv.star_width ? "*" : cv.width, c);
			d_need(L, H_PREC);
			strbuf_addstr(&args, ", __d_prec(");
			d_lower_string(L, &args, a);
			if (prec_arg) {
				strbuf_addstr(&args, ", ");
				d_lower_expr(L, &args, prec_arg);
				strbuf_addch(&args, ')');
			} else {
				strbuf_addf(&args, ", %s)", cv.prec[1] ? cv.prec + 1 : "0");
			}
			p = cv.end;
			continue;
		}
		if (c == 'p') {   /* DTrace's %p: 0x and the hex digits */
			strbuf_addf(&fmt, "%%%s%s%s%s", cv.flags, cv.star_width ? "*" : cv.width,
				    cv.star_prec ? ".*" : cv.prec, "p");
		} else {
			strbuf_addf(&fmt, "%%%s%s%s%c", cv.flags, cv.star_width ? "*" : cv.width,
				    cv.star_prec ? ".*" : cv.prec, c);
		}
		strbuf_addstr(&args, ", ");
		if (c == 's')   /* a char * prints the string it points at */
			d_lower_string(L, &args, a);
		else
			d_lower_expr(L, &args, a);
		p = cv.end;
	}
	if (next < call->args.len)
		d_error(L->sema->dg, "D_PRINTF_ARG_EXTRA", call->args.items[next]->pos,
			"printf( ) prototype mismatch: only %d arguments required by this format string", next);
	d_line(L, "printf(\"%s\"%s)", fmt.buf, args.buf);
	strbuf_release(&fmt);
	strbuf_release(&args);
}

void d_format(struct d_lower *L, struct strbuf *out, const char *fmt, size_t len)
{
	(void)L;
	copy_text(out, fmt, fmt + len);
}
