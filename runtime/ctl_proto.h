/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap control protocol: the records exchanged over /proc/cstap_<module>
 * between the module (runtime/transport.h) and stapio (staprun/stapio.c).
 * Shared by kernel and user space, so only fixed-width types and no
 * padding surprises (every struct is a multiple of its largest member).
 */
#ifndef STP_CTL_PROTO_H
#define STP_CTL_PROTO_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

#define STP_PROTO_VERSION 1
#define STP_PROC_PREFIX "cstap_"	/* /proc/cstap_<module name> */
/* What stapio writes to staprun's note pipe (stapio -N FD) when it detached
 * and left the module running (staprun -L, or SIGQUIT): staprun then leaves
 * the module loaded. A pipe, not an exit status: the script may choose any
 * status (exit_status()). */
#define STAPIO_NOTE_DETACHED 'D'

/* Largest payload of one record; longer output is sent as several records. */
#define STP_MAX_PAYLOAD 32768
/* A read() buffer of this size always holds at least one whole record. */
#define STP_MIN_READ (STP_MAX_PAYLOAD + 8)

enum stp_msg_type {
	/* module -> stapio */
	STP_MSG_HELLO = 1,	/* struct stp_msg_hello, always the first record */
	STP_MSG_OUT = 2,	/* bytes for stdout */
	STP_MSG_ERR = 3,	/* bytes for stderr (whole lines) */
	STP_MSG_EXIT = 4,	/* the script wants to stop: answer with STOP */
	STP_MSG_DONE = 5,	/* struct stp_msg_done, last record */
	STP_MSG_SYSTEM = 6,	/* a command for /bin/sh -c (system() in a script) */
	STP_MSG_SWITCH_FILE = 7,	/* no payload: -o FILE goes on in the next file */
	STP_MSG_BULK_OUT = 8,	/* struct stp_msg_bulk, then bytes: stdout of one
				 * CPU (stap -b), for its own file */
	/* stapio -> module */
	STP_MSG_START = 16,	/* struct stp_msg_start: run begin probes, register */
	STP_MSG_STOP = 17,	/* no payload: unregister, run end probes, send DONE */
};

/* Header of every record; len bytes of payload follow. */
struct stp_msg {
	uint32_t type;
	uint32_t len;
};

struct stp_msg_hello {
	uint32_t proto_version;
};

/* SystemTap's per-CPU file record header is {sequence, length}: stapio
 * writes seq and the payload's length before the bytes (stap-merge). */
struct stp_msg_bulk {
	uint32_t cpu;
	uint32_t seq;		/* from 1, one per flush, over all CPUs */
};

struct stp_msg_start {
	uint32_t proto_version;
	int32_t target_pid;	/* -c command or -x PID, 0 if none */
};

struct stp_msg_done {
	int32_t errors;
	int32_t skipped;
	int64_t dropped_bytes;
	int32_t suppressed;	/* of errors, those --suppress-handler-errors hid */
	int32_t exit_status;	/* STP_EXIT_STATUS_SET | the script's exit_status(),
				 * 0 when it never called it (and from modules
				 * older than the field, which sent 0 padding) */
};

/* stp_msg_done.exit_status: the script chose the status (its low 8 bits) */
#define STP_EXIT_STATUS_SET 0x100

#endif /* STP_CTL_PROTO_H */
