/* d_lower_fmt.c - D's output as cstap's printf writes it: trace()'s
 * columns, printf formats (D's C-like conversions as cstap's), and the
 * helper functions the lowered script calls (written once each). */
#include <string.h>

#include "d/d_lower.h"
#include "d/d_types.h"

/* ---- helpers -------------------------------------------------------------------- */

static const char *const helper_text[] = {
	[H_S8] = "function __d_s8(x) { return (x << 56) >> 56 }\n",
	[H_S16] = "function __d_s16(x) { return (x << 48) >> 48 }\n",
	[H_S32] = "function __d_s32(x) { return (x << 32) >> 32 }\n",
	[H_U8] = "function __d_u8(x) { return x & 0xff }\n",
	[H_U16] = "function __d_u16(x) { return x & 0xffff }\n",
	[H_U32] = "function __d_u32(x) { return x & 0xffffffff }\n",
	/* substr(s, i[, n]): a negative i counts from the end (n shrinks by
	 * what is before the start), a negative n ends that far from the end;
	 * no n (has_n 0): the rest */
	[H_SUBSTR] = "function __d_substr:string(s:string, i:long, n:long, has_n:long) {\n"
		"    len = strlen(s)\n"
		"    if (i < 0) { i += len; if (i < 0) { if (has_n && n >= 0) { n += i; if (n < 0) n = 0 } i = 0 } }\n"
		"    if (i >= len) return \"\"\n"
		"    e = !has_n ? len : n < 0 ? len + n : i + n\n"
		"    if (e > len) e = len\n"
		"    if (e <= i) return \"\"\n"
		"    return substr(s, i, e - i)\n"
		"}\n",
	/* index(s, t[, start]): a start past the end is the end ("" is found there) */
	[H_INDEX] = "function __d_index:long(s:string, t:string, start:long) {\n"
		"    ls = strlen(s); lt = strlen(t)\n"
		"    if (start < 0) start = 0\n"
		"    if (start > ls) start = ls\n"
		"    for (i = start; i + lt <= ls; i++) if (substr(s, i, lt) == t) return i\n"
		"    return -1\n"
		"}\n",
	/* rindex(s, t[, start]): a negative start finds "" alone (at 0) */
	[H_RINDEX] = "function __d_rindex:long(s:string, t:string, start:long, has_start:long) {\n"
		"    ls = strlen(s); lt = strlen(t)\n"
		"    if (has_start && start < 0) return lt == 0 ? 0 : -1\n"
		"    i = ls - lt\n"
		"    if (has_start && start < i) i = start\n"
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
		"}\n"
		"function __d_lqvalue:long(b:long, base:long, lim:long, step:long) {\n"
		"    if (b < 0) return base - 1\n"
		"    if (b >= (lim - base) / step) return lim + 1\n"
		"    return base + b * step\n"
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
	/* one row of a distribution: the value, its share (of the total, both
	 * shifted right sh bits) in @s: 40 columns right of the line; with
	 * negative counts only, left of it; with both, 20 each side */
	[H_QROW] = "function __d_qrow(label:string, c:long, total:long, sh:long, mode:long, norm:long) {\n"
		"    a = c < 0 ? -c : c\n"
		"    if (a < 0) a = 0x7fffffffffffffff\n"
		"    a >>= sh\n"
		"    len = mode == 2 ? 20 : 40\n"
		"    n = total > 0 ? (a * len * 2 + total) / (2 * total) : 0\n"
		"    if (n > len) n = len\n"
		"    ats = substr(\"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\", 0, n)\n"
		"    pad = substr(\"                                        \", 0, len - n)\n"
		"    v = c / norm\n"
		"    if (mode == 0) printf(\"%16s |%s%s %-9d\\n\", label, ats, pad, v)\n"
		"    else if (mode == 1) printf(\"%16s %s%s| %-9d\\n\", label, pad, ats, v)\n"
		"    else if (c <= 0) printf(\"%16s %s%s|%20s %-9d\\n\", label, pad, ats, \"\", v)\n"
		"    else printf(\"%16s %20s|%s%s %-9d\\n\", label, \"\", ats, pad, v)\n"
		"}\n",
	/* strtok(s, delim): the token after the delimiters at the saved place;
	 * the delimiter ending it stays (the next call may give other ones).
	 * The delimiters are a set of the thread's first (one round each, not
	 * one a character of s) */
	[H_STRTOK] = "global __d_tok_s, __d_tok_i, __d_tok_d\n"
		"function __d_strtok:string(s:string, delim:string, given:long) {\n"
		"    t = tid()\n"
		"    if (given) { __d_tok_s[t] = s; __d_tok_i[t] = 0 }\n"
		"    s = __d_tok_s[t]; i = __d_tok_i[t]; ls = strlen(s); ld = strlen(delim)\n"
		"    for (j = 0; j < ld; j++) __d_tok_d[t, stringat(delim, j)] = 1\n"
		"    while (i < ls && [t, stringat(s, i)] in __d_tok_d) i++\n"
		"    b = i\n"
		"    while (i < ls && !([t, stringat(s, i)] in __d_tok_d)) i++\n"
		"    delete __d_tok_d[t, *]\n"
		"    __d_tok_i[t] = i\n"
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
	/* %e %f %g of a float's or a double's bits: the value as m * 10^d
	 * (m below 2^62, so 18 digits exact), rounded half up to the digits
	 * the conversion shows; %g as %e or %f by the exponent, its trailing
	 * zeros cut */
	[H_FLOAT] = "function __d_pow10:long(n:long) { r = 1; for (i = 0; i < n && i < 19; i++) r *= 10; return r }\n"
		"function __d_zeros:string(n:long) { r = \"0\"; for (i = 0; i < 6 && strlen(r) < n; i++) r .= r; return n > 0 ? substr(r, 0, n) : \"\" }\n"
		"function __d_fround:long(m:long, k:long) {\n"
		"    if (k <= 0) return m\n"
		"    if (k > 19) return 0\n"
		"    return k == 19 ? (m >= 5000000000000000000 ? 1 : 0) : (m + 5 * __d_pow10(k - 1)) / __d_pow10(k)\n"
		"}\n"
		"function __d_gtrim:string(r:string) {\n"
		"    if (!isinstr(r, \".\")) return r\n"
		"    ep = strlen(r); while (ep > 0 && substr(r, ep - 1, 1) != \"e\" && substr(r, ep - 1, 1) != \"E\") ep--\n"
		"    ep = ep ? ep - 1 : strlen(r)\n"
		"    n = ep; while (n > 0 && substr(r, n - 1, 1) == \"0\") n--\n"
		"    if (n > 0 && substr(r, n - 1, 1) == \".\") n--\n"
		"    return substr(r, 0, n) . substr(r, ep, strlen(r) - ep)\n"
		"}\n"
		"function __d_fmtf:string(bits:long, size:long, conv:long, prec:long) {\n"
		"    if (size == 4) { s = (bits >> 31) & 1; ex = (bits >> 23) & 0xff; m = bits & 0x7fffff; top = 0xff; bias = 150; one = 0x800000 }\n"
		"    else { s = (bits >> 63) & 1; ex = (bits >> 52) & 0x7ff; m = bits & 0xfffffffffffff; top = 0x7ff; bias = 1075; one = 0x10000000000000 }\n"
		"    sg = s ? \"-\" : \"\"\n"
		"    if (ex == top) return m ? \"nan\" : sg . \"inf\"\n"
		"    if (ex) { m |= one; e2 = ex - bias } else e2 = 1 - bias\n"
		"    if (prec < 0) prec = 6\n"
		"    d = 0\n"
		"    while (m && e2 >= 10) { if (m < 0x10000000000000) { m <<= 10; e2 -= 10 } else { m /= 1000; d += 3 } }\n"
		"    while (m && e2 <= -10) { if (m < 0x10000000000000) { m *= 1000; d -= 3 } else { m >>= 10; e2 += 10 } }\n"
		"    while (m && e2 > 0) { if (m < 0x2000000000000000) { m <<= 1; e2-- } else { m /= 10; d++ } }\n"
		"    while (m && e2 < 0) { if (m < 0x0ccccccccccccccc) { m *= 10; d-- } else { m >>= 1; e2++ } }\n"
		"    x = m ? strlen(sprint(m)) - 1 + d : 0\n"
		"    g = conv == 103 || conv == 71\n"
		"    if (g) {\n"
		"        p = prec ? prec : 1\n"
		"        k = strlen(sprint(m)) - p\n"
		"        if (m && k > 0) { m = __d_fround(m, k); d += k; x = strlen(sprint(m)) - 1 + d }\n"
		"        if (x < -4 || x >= p) { conv -= 2; prec = p - 1 } else { conv = 102; prec = p - 1 - x }\n"
		"    }\n"
		"    if (conv == 102) {\n"
		"        if (d < -prec) { m = __d_fround(m, -prec - d); d = -prec }\n"
		"        t = sprint(m) . (m ? __d_zeros(d + prec) : \"\")\n"
		"        if (strlen(t) <= prec) t = __d_zeros(prec + 1 - strlen(t)) . t\n"
		"        n = strlen(t) - prec\n"
		"        r = sg . substr(t, 0, n) . (prec ? \".\" . substr(t, n, prec) : \"\")\n"
		"    } else {\n"
		"        k = strlen(sprint(m)) - (prec + 1)\n"
		"        if (m && k > 0) { m = __d_fround(m, k); if (strlen(sprint(m)) > prec + 1) { m /= 10; x++ } }\n"
		"        t = sprint(m); t .= __d_zeros(prec + 1 - strlen(t))\n"
		"        r = sprintf(\"%s%s%s%s%c%s%02d\", sg, substr(t, 0, 1), prec ? \".\" : \"\", substr(t, 1, prec), conv, x < 0 ? \"-\" : \"+\", x < 0 ? -x : x)\n"
		"    }\n"
		"    return g ? __d_gtrim(r) : r\n"
		"}\n",
	/* a '*' width's padding: a negative width (or left) left-justifies */
	[H_PAD] = "function __d_pad:string(s:string, w:long, left:long) {\n"
		"    if (w < 0) { w = -w; left = 1 }\n"
		"    n = w - strlen(s)\n"
		"    if (n <= 0) return s\n"
		"    p = sprintf(\"%*s\", n, \"\")\n"
		"    return left ? s . p : p . s\n"
		"}\n",
	/* %a: a kernel address as module`symbol+0xoffset (from symdata's
	 * "sym+0xoff/0xsize [mod]"), the core kernel's module vmlinux */
	[H_KSYM] = "function __d_ksym:string(a:long) {\n"
		"    d = symdata(a)\n"
		"    p = __d_index(d, \"+\", 0)\n"
		"    if (p <= 0) return sprintf(\"0x%x\", a)\n"
		"    s = __d_index(d, \"/\", p); b = __d_index(d, \"[\", s); e = __d_index(d, \"]\", b)\n"
		"    off = substr(d, p + 1, s - p - 1)\n"
		"    mod = b >= 0 && e > b ? substr(d, b + 1, e - b - 1) : \"kernel\"\n"
		"    if (mod == \"kernel\") mod = \"vmlinux\"\n"
		"    return mod . \"`\" . substr(d, 0, p) . (off == \"0x0\" ? \"\" : \"+\" . off)\n"
		"}\n",
	/* a byte as dump text: itself when printable, else a dot */
	[H_PC] = "function __d_pc:string(b:long) { return b >= 32 && b < 127 ? sprintf(\"%c\", b) : \".\" }\n",
	/* bufpolicy=ring: each record's output and size in order, the oldest
	 * dropped while they hold more than the buffer's bytes (up to 4 for
	 * each new one: no loop for BPF's verifier to walk) */
	[H_RING] = "global __d_ring_txt, __d_ring_sz, __d_ring_first, __d_ring_n, __d_ring_used\n"
		"function __d_ring_drop(max:long) {\n"
		"    if (__d_ring_used <= max || __d_ring_first >= __d_ring_n) return 0\n"
		"    __d_ring_used -= __d_ring_sz[__d_ring_first]\n"
		"    delete __d_ring_txt[__d_ring_first]; delete __d_ring_sz[__d_ring_first]\n"
		"    __d_ring_first++\n"
		"}\n"
		"function __d_ring_push(t:string, sz:long, max:long) {\n"
		"    __d_ring_txt[__d_ring_n] = t; __d_ring_sz[__d_ring_n] = sz; __d_ring_n++; __d_ring_used += sz\n"
		"    __d_ring_drop(max); __d_ring_drop(max); __d_ring_drop(max); __d_ring_drop(max)\n"
		"}\n"
		"function __d_ring_print() {\n"
		"    for (i = __d_ring_first; i < __d_ring_n; i++) printf(\"%s\", __d_ring_txt[i])\n"
		"}\n",
	/* s[i]: the character, 0 past the string's end (its NUL and padding) */
	[H_STRAT] = "function __d_strat:long(s:string, i:long) {\n"
		"    return i >= 0 && i < strlen(s) ? stringat(s, i) : 0\n"
		"}\n",
	/* cleanpath(): no empty or "." parts, a ".." takes the part before it
	 * away (at the root it goes, leading ones of a relative path stay);
	 * r holds n parts, the first dd of them "..", without the root's "/" */
	[H_CLEANPATH] = "function __d_cleanpath:string(s:string) {\n"
		"    ls = strlen(s); if (ls == 0) return \"\"\n"
		"    root = stringat(s, 0) == 47; r = \"\"; n = 0; dd = 0; i = 0\n"
		"    while (i < ls) {\n"
		"        while (i < ls && stringat(s, i) == 47) i++\n"
		"        b = i\n"
		"        while (i < ls && stringat(s, i) != 47) i++\n"
		"        if (i == b) break\n"
		"        c = substr(s, b, i - b)\n"
		"        if (c == \".\") continue\n"
		"        if (c == \"..\" && n > dd) {\n"
		"            j = strlen(r) - 1; while (j >= 0 && stringat(r, j) != 47) j--\n"
		"            r = j >= 0 ? substr(r, 0, j) : \"\"; n--\n"
		"            continue\n"
		"        }\n"
		"        if (c == \"..\" && root) continue\n"
		"        if (c == \"..\") dd++\n"
		"        r = n ? r . \"/\" . c : c; n++\n"
		"    }\n"
		"    if (root) return \"/\" . r\n"
		"    return n ? r : \".\"\n"
		"}\n",
	[H_BSWAP] = "function __d_bswap16:long(x:long) { return ((x & 0xff) << 8) | ((x >> 8) & 0xff) }\n"
		"function __d_bswap32:long(x:long) { return (__d_bswap16(x) << 16) | __d_bswap16(x >> 16) }\n"
		"function __d_bswap64:long(x:long) { return (__d_bswap32(x) << 32) | __d_bswap32(x >> 32) }\n",
};

void d_need(struct d_lower *L, enum d_helper h)
{
	if (L->helpers & (1ull << h))
		return;
	L->helpers |= 1ull << h;
	if (h == H_QROW || h == H_LQBUCKET || h == H_LLQBUCKET)
		d_need(L, H_QBUCKET);
	if (h == H_KSYM)
		d_need(L, H_INDEX);
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

	if (d_lower_trace_struct(L, arg))
		return;
	strbuf_init(&sb);
	struct d_type *rt = arg->type ? d_type_resolve(arg->type) : NULL;
	int sext = rt && rt->kind == DT_INT && rt->is_signed && rt->size < 8 ? (int)rt->size : 0;
	if (sext) {   /* a small signed value by its bytes (a cast constant's are not sign-extended) */
		enum d_helper h = sext == 1 ? H_S8 : sext == 2 ? H_S16 : H_S32;
		d_need(L, h);
		strbuf_addstr(&sb, sext == 1 ? "__d_s8(" : sext == 2 ? "__d_s16(" : "__d_s32(");
	}
	d_lower_expr(L, &sb, arg);
	if (sext)
		strbuf_addch(&sb, ')');
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

/* the format's text up to its next conversion, as a cstap format; the
 * \\ and \? a D string keeps (d_lex_unescape) are their characters here */
static const char *copy_text(struct strbuf *out, const char *p, const char *end)
{
	while (p < end && *p != '%') {
		if (*p == '\\' && p + 1 < end && (p[1] == '\\' || p[1] == '?'))
			p++;
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

/* %e %f %g of a float or a double: its digits as a string, the width
 * and the - flag kept */
static void float_conv(struct d_lower *L, struct strbuf *fmt, struct strbuf *args, const struct conv *cv,
		       const struct d_expr *a)
{
	d_need(L, H_FLOAT);
	strbuf_addf(fmt, "%%%s%ss", strchr(cv->flags, '-') ? "-" : "", cv->width);
	strbuf_addstr(args, ", __d_fmtf(");
	d_lower_expr(L, args, a);
	strbuf_addf(args, ", %lld, %d, %s)", (long long)d_type_resolve(a->type)->size, cv->c,
		    cv->prec[0] ? (cv->prec[1] ? cv->prec + 1 : "0") : "-1");
}

/* a signed 4-byte integer (a cast constant is not sign-extended: DTrace
 * prints its 4 bytes signed) */
static bool is_int32(struct d_type *t)
{
	t = t ? d_type_resolve(t) : NULL;
	return t && (t->kind == DT_INT || t->kind == DT_ENUM) && t->size == 4 && t->is_signed;
}

/* printf(fmt, args...): each conversion checked against its argument;
 * with sink (system) the text goes there rather than to the output */
static void lower_format(struct d_lower *L, const struct d_expr *call, const char *sink)
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
		if (strchr("eEfgG", cv.c) && a->type && d_type_resolve(a->type) && d_type_resolve(a->type)->kind == DT_FLOAT) {
			float_conv(L, &fmt, &args, &cv, a);
			p = cv.end;
			continue;
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
		if (cv.c == 'a') {   /* a kernel address by its symbol */
			d_need(L, H_KSYM);
			strbuf_addf(&fmt, "%%%s%ss", strchr(cv.flags, '-') ? "-" : "", cv.width);
			strbuf_addstr(&args, ", __d_ksym(");
			d_lower_expr(L, &args, a);
			strbuf_addch(&args, ')');
			p = cv.end;
			continue;
		}
		if (c == 'p') {   /* DTrace's %p: the hex digits alone */
			strbuf_addf(&fmt, "%%%s%s%s%s", cv.flags, cv.star_width ? "*" : cv.width,
				    cv.star_prec ? ".*" : cv.prec, "x");
		} else {
			strbuf_addf(&fmt, "%%%s%s%s%c", cv.flags, cv.star_width ? "*" : cv.width,
				    cv.star_prec ? ".*" : cv.prec, c);
		}
		strbuf_addstr(&args, ", ");
		bool s32 = is_int32(a->type) && c == 'd';   /* DTrace's %d of an int: its 4 bytes, signed */
		if (s32) {
			d_need(L, H_S32);
			strbuf_addstr(&args, "__d_s32(");
		}
		if (c == 's')   /* a char * prints the string it points at */
			d_lower_string(L, &args, a);
		else
			d_lower_expr(L, &args, a);
		if (s32)
			strbuf_addch(&args, ')');
		p = cv.end;
	}
	if (next < call->args.len)
		d_error(L->sema->dg, "D_PRINTF_ARG_EXTRA", call->args.items[next]->pos,
			"printf( ) prototype mismatch: only %d arguments required by this format string", next);
	if (sink)
		d_line(L, "%s(sprintf(\"%s\"%s))", sink, fmt.buf, args.buf);
	else
		d_line(L, "printf(\"%s\"%s)", fmt.buf, args.buf);
	strbuf_release(&fmt);
	strbuf_release(&args);
}

void d_lower_printf(struct d_lower *L, const struct d_expr *call)
{
	lower_format(L, call, NULL);
}

/* system(fmt, args...): the command runs (stapio's system(), after the
 * output before it), its output where dtrace's goes */
void d_lower_system(struct d_lower *L, const struct d_expr *call)
{
	lower_format(L, call, "system");
}

void d_format(struct d_lower *L, struct strbuf *out, const char *fmt, size_t len)
{
	(void)L;
	copy_text(out, fmt, fmt + len);
}
