/* bpf_printf.c - SystemTap's printf over a record's arguments
 * (doc/bpf-bundle.md, "Ring buffer records"): the module runtime's printf
 * engine, runtime/format.h, fed the record's values. Only the glue is
 * here: a format's check against its ARGTYPES when the bundle is read
 * (stp_format_signature, as the translator checks it in pass 2), and the
 * record's fields handed to stp_format as its values.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* %m and %M, which read the probe's memory, are refused by
 * bpf_fmt_check: stapbpf's own memory is never read for them. */
#define STP_READ_MEM(dst, addr, n) (-EFAULT)
#define STP_READ_USER_MEM(dst, addr, n) (-EFAULT)
#include "format.h"

#include "bpf_printf.h"

/* At parse time, so that formatting a record can trust ARGTYPES. The
 * format ends at its first NUL byte, as a C string does in the module. */
int bpf_fmt_check(const char *text, size_t len, const char *argtypes, char *why, size_t whylen)
{
	size_t nargs = strlen(argtypes);
	char *sig = malloc(len + 2);	/* a conversion spans 2 bytes or more */
	const char *bad = text;
	struct stp_fmt_spec sp;
	int n, rc = -1;

	if (!sig) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	n = stp_format_signature(text, sig, len + 2, &bad);
	if (n < 0) {
		stp_format_parse_spec(bad + 1, &sp);
		if (!sp.conv)
			snprintf(why, whylen, "the format ends inside a conversion");
		else if (sp.conv > ' ' && sp.conv < 0x7f)
			snprintf(why, whylen, "invalid conversion '%%%.*s' (d i u x X o c s p b %% are known)",
				 sp.len, bad + 1);
		else
			snprintf(why, whylen, "invalid conversion: byte 0x%02x after '%%'", (unsigned char)sp.conv);
		goto out;
	}
	for (size_t k = 0; k < (size_t)n; k++) {
		char want = sig[k] == 's' ? 's' : 'l';

		if (sig[k] == 'm' || sig[k] == 'M') {
			snprintf(why, whylen, "conversion %zu (%%%c) reads the probe's memory, which stapbpf cannot",
				 k + 1, sig[k]);
			goto out;
		}
		if (k == nargs) {
			snprintf(why, whylen, "more conversions than the %zu arguments of ARGTYPES", nargs);
			goto out;
		}
		if (argtypes[k] == want)
			continue;
		if (sig[k] == '*')
			snprintf(why, whylen, "argument %zu (a '*' width or precision) wants a number, ARGTYPES gives 's'",
				 k + 1);
		else
			snprintf(why, whylen, "conversion %zu (%%%c) wants %s, ARGTYPES gives '%c'", k + 1, sig[k],
				 want == 's' ? "a string" : "a number", argtypes[k]);
		goto out;
	}
	if ((size_t)n != nargs) {
		snprintf(why, whylen, "%d conversions for the %zu arguments of ARGTYPES", n, nargs);
		goto out;
	}
	rc = 0;
out:
	free(sig);
	return rc;
}

static void *xalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "stapbpf: out of memory\n");
		exit(1);
	}
	return p;
}

/* The record's values in ARGTYPES order: an l the 8 bytes of a long, an s
 * the string in its field, copied with a NUL after its bundle_strsz bytes
 * (a field the program filled to the end has none). */
char *bpf_format(const struct bundle_fmt *f, const uint8_t *args, size_t len, size_t *outlen)
{
	size_t nargs = strlen(f->argtypes), off = 0, n;
	union stp_val *v;
	char *strs;
	char *text;

	if (len < f->args_size)
		return NULL;
	v = xalloc(nargs * sizeof(*v));
	strs = xalloc(nargs * (bundle_strsz + 1));
	for (size_t k = 0; k < nargs; k++) {
		if (f->argtypes[k] == 's') {
			char *s = strs + k * (bundle_strsz + 1);
			memcpy(s, args + off, bundle_strsz);
			s[bundle_strsz] = '\0';
			v[k].s = s;
			off += bundle_strsz;
		} else {
			memcpy(&v[k].n, args + off, 8);
			off += 8;
		}
	}
	n = stp_format(NULL, 0, f->text, (int)nargs, v);
	text = xalloc(n + 1);
	stp_format(text, n + 1, f->text, (int)nargs, v);
	free(strs);
	free(v);
	*outlen = n;
	return text;
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
