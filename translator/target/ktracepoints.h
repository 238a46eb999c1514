/* ktracepoints.h - the tracepoints a kernel module defines, found cheaply.
 *
 * kernel.trace("*") must list the modules' tracepoints without reading
 * every module's DWARF (hundreds of MB). A module defining tracepoints
 * (CREATE_TRACE_POINTS) has an ELF symbol __traceiter_NAME for each; the
 * tracepoint's system (TRACE_SYSTEM: "sunrpc", "rpcgss", "scsi" ...) is the
 * string the event's class points at, which in a .ko is reached through
 * relocations: event_NAME's class -> event_class_X, its system -> the
 * string str__SYSTEM__trace_system_name. Only the symbol table and, for
 * the few modules with several systems (kvm, mlx5_core ...), the
 * relocations of the event sections are read.
 */
#ifndef CSTAP_KTRACEPOINTS_H
#define CSTAP_KTRACEPOINTS_H

#include "session.h"

struct ktp {
	char *name;             /* "rpc_call_status" */
	char *system;           /* "sunrpc"; NULL if the module does not say */
};

struct ktp_module {
	char *module;
	struct ktp *tps;        /* sorted by name */
	int n;
};

/* Where the system pointer is: the offset of trace_event_call's class and
 * of trace_event_class's system (from the kernel's DWARF). */
struct ktp_layout {
	long class_off, system_off;
};

/* The tracepoints module (its .ko at path; a compressed one is read from
 * the -dbg package's copy) defines; n is 0 when none or unreadable. Read
 * once per run. */
const struct ktp_module *ktp_module(struct session *s, const char *module, const char *path,
				    const struct ktp_layout *layout);

#endif
