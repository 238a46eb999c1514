/* d_prov_io.c - the io provider: a block request issued
 * (block:block_rq_issue) and completed (block:block_rq_complete); waiting
 * for one has no tracepoint (a kernel function: the module runtime's
 * kprobes). args[] are the request itself: bufinfo_t, devinfo_t and
 * fileinfo_t are not translated.
 */
#include "d/d_provider.h"

#define ARGS { { "bufinfo_t *", "$rq" }, { "devinfo_t *", "$rq" }, { "fileinfo_t *", "0" } }

static const struct d_tprobe probes[] = {
	{ "done", "kernel.trace(\"block:block_rq_complete\")", NULL, NULL, ARGS },
	{ "start", "kernel.trace(\"block:block_rq_issue\")", NULL, NULL, ARGS },
	{ "wait-done", "kernel.function(\"bio_wait\").return", NULL, NULL, { { NULL } } },
	{ "wait-start", "kernel.function(\"bio_wait\")", NULL, NULL, { { NULL } } },
};

static const struct d_ptable table = { "io", "vmlinux", probes, sizeof(probes) / sizeof(probes[0]) };

const struct d_family d_fam_io = D_TABLE_FAMILY("io", table, "Private", "Private", "Unknown",
						"Evolving", "Evolving", "ISA");
