/* bpf_printf.h - SystemTap's printf for the records of a BPF bundle's
 * programs: a format (bundle "fmt" line) and the record's arguments, every
 * integer 64 bits, every string a NUL-padded 64-byte field, formatted by
 * the module runtime's engine (runtime/format.h). */
#ifndef BPF_PRINTF_H
#define BPF_PRINTF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bpf_bundle.h"

/* Whether a format's arguments (stp_format_signature) are its argument
 * types (one l or s each, in order), with no %m or %M: 0, or -1 with the
 * reason in why. */
int bpf_fmt_check(const char *text, size_t len, const char *argtypes, char *why, size_t whylen);

/* The text of one record: f applied to args (the record after its tag, len
 * bytes). A malloc'd buffer of *outlen bytes (NUL-terminated as well), or
 * NULL when the record is shorter than f's arguments. */
char *bpf_format(const struct bundle_fmt *f, const uint8_t *args, size_t len, size_t *outlen);

/* bpf_format written to out; -1 if the record was short (nothing written). */
int bpf_printf(FILE *out, const struct bundle_fmt *f, const uint8_t *args, size_t len);

#endif /* BPF_PRINTF_H */
