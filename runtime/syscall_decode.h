/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: decoding a system call's flags and numbers with the
 * tables the translator generates from the target kernel's headers (the
 * syscall tapset's __sc_t_NAME functions, translator/target/syscalls_gen.c).
 */
#ifndef STP_SYSCALL_DECODE_H
#define STP_SYSCALL_DECODE_H

#include <linux/string.h>
#include <linux/kernel.h>

/* One constant of a table; a NULL name ends the table. */
struct stp_sc_sym {
	const char *name;
	long long v;
};

/* Is name one of the '|'-separated names of s? */
static int stp_sc_has(const char *s, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = s; (p = strstr(p, name)); p += n)
		if ((p == s || p[-1] == '|') && (!p[n] || p[n] == '|'))
			return 1;
	return 0;
}

/* bits 0: the name of the value v, or "" (the first entry of that value).
 * bits 1: the names of the entries whose bits are all in v and not all
 * named already, in table order, joined by '|' (a name printed already is
 * not repeated: two constants may print as one), then what no entry
 * covers in hex; "" for 0. out has MAXSTRINGLEN bytes. */
static void stp_sc_decode(char *out, const struct stp_sc_sym *t, long long v, int bits)
{
	unsigned long long left = v;
	size_t len = 0;

	out[0] = 0;
	for (; t->name; t++) {
		if (!bits) {
			if (t->v == v) {
				strscpy(out, t->name, MAXSTRINGLEN);
				return;
			}
			continue;
		}
		if (!t->v || (t->v & v) != t->v || !(left & t->v))
			continue;
		left &= ~(unsigned long long)t->v;
		if (stp_sc_has(out, t->name) || len >= MAXSTRINGLEN)
			continue;
		len += snprintf(out + len, MAXSTRINGLEN - len, "%s%s", len ? "|" : "", t->name);
	}
	if (bits && left && len < MAXSTRINGLEN)
		snprintf(out + len, MAXSTRINGLEN - len, "%s0x%llx", len ? "|" : "", left);
}

#endif
