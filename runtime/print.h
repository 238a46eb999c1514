/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: printing. Probe output collects in the context's print
 * buffer and goes to the transport in one record at probe exit (or earlier
 * when the buffer is full), so one probe's lines stay together and in order.
 */
#ifndef STP_PRINT_H
#define STP_PRINT_H

#include <linux/kernel.h>
#include <linux/string.h>
#include "config.h"
#include "format.h"
#include "context.h"
#include "transport.h"

/* bound for warning/error lines built on the stack */
#define STP_MSG_LINE_MAX (MAXSTRINGLEN + 256 < 1024 ? MAXSTRINGLEN + 256 : 1024)

/* Context buffer -> transport (stdout). */
static __maybe_unused void stp_print_flush(struct stp_context *c)
{
	if (c->plen) {
		stp_transport_write(STP_MSG_OUT, c->pbuf, c->plen);
		c->plen = 0;
	}
	/* switch_file() takes effect after the output of its probe, as
	 * SystemTap's does */
	if (unlikely(c->switch_file)) {
		c->switch_file = false;
		stp_transport_record(STP_MSG_SWITCH_FILE, NULL, 0);
	}
}

/* Raw bytes to stdout; larger than the buffer goes straight out. */
static __maybe_unused void stp_print_mem(struct stp_context *c, const char *s, size_t n)
{
	if (n > STP_PRINT_BUF_SIZE - c->plen) {
		stp_print_flush(c);
		if (n > STP_PRINT_BUF_SIZE) {
			stp_transport_write(STP_MSG_OUT, s, n);
			return;
		}
	}
	memcpy(c->pbuf + c->plen, s, n);
	c->plen += n;
}

static __maybe_unused void stp_print_str(struct stp_context *c, const char *s)
{
	stp_print_mem(c, s, strlen(s));
}

/*
 * printf(): format straight into the free part of the buffer; if it did
 * not fit, flush and format again into the whole buffer. Output longer
 * than the whole buffer is truncated and the rest counted as dropped. A
 * %m/%M read that faults prints nothing and is the probe's read-fault
 * error, as SystemTap's.
 */
static __maybe_unused void stp_printf(struct stp_context *c, const char *fmt, int nargs,
		       const union stp_val *args)
{
	struct stp_fmt_fault fault;
	size_t room = STP_PRINT_BUF_SIZE - c->plen;
	size_t n = stp_format_ex(c->pbuf + c->plen, room, fmt, nargs, args, &fault);

	if (n < room && !fault.faulted) {
		c->plen += n;
		return;
	}
	if (!fault.faulted) {
		stp_print_flush(c);
		n = stp_format_ex(c->pbuf, STP_PRINT_BUF_SIZE, fmt, nargs, args, &fault);
	}
	if (fault.faulted) {
		stp_read_fault(c, (unsigned long)fault.addr);
		return;
	}
	if (n >= STP_PRINT_BUF_SIZE) {
		stp_transport_count_dropped(n - (STP_PRINT_BUF_SIZE - 1));
		n = STP_PRINT_BUF_SIZE - 1;
	}
	c->plen = n;
}

/* sprintf() into a string value (MAXSTRINGLEN); a %m/%M fault as printf's. */
static __maybe_unused void stp_sprintf(struct stp_context *c, char *buf, const char *fmt, int nargs,
		       const union stp_val *args)
{
	struct stp_fmt_fault fault;

	stp_format_ex(buf, MAXSTRINGLEN, fmt, nargs, args, &fault);
	if (fault.faulted)
		stp_read_fault(c, (unsigned long)fault.addr);
}

/* "<prefix><message>\n" to stapio's stderr as one record. */
static __maybe_unused void stp_vmsg(const char *prefix, const char *fmt, va_list ap)
{
	char buf[STP_MSG_LINE_MAX];
	size_t n = strscpy(buf, prefix, sizeof(buf));

	n += vscnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	if (buf[n - 1] != '\n')
		buf[n++] = '\n';	/* at worst over the NUL: not sent */
	stp_transport_write(STP_MSG_ERR, buf, n);
}

/* "WARNING: ...\n" to stderr. Does not flush a probe's pending output. */
static __maybe_unused __printf(1, 2) void stp_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	stp_vmsg("WARNING: ", fmt, ap);
	va_end(ap);
}

/* text to stderr as it is (stderr_print): a front end's own messages */
static __maybe_unused void stp_eprint(const char *text)
{
	stp_transport_write(STP_MSG_ERR, text, strlen(text));
}

/* "ERROR: ...\n" to stderr, and one more error for MAXERRORS. */
static __printf(1, 2) void stp_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	stp_vmsg("ERROR: ", fmt, ap);
	va_end(ap);
	stp_count_error();
}

#endif /* STP_PRINT_H */
