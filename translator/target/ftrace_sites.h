/* ftrace_sites.h - the kernel's ftrace call sites (its __mcount_loc table:
 * one per function ftrace can trace), read from the vmlinux once per run.
 * A kernel.function entry probe at such a site is armed through one
 * shared ftrace_ops (runtime/fentry.h) instead of a kprobe each.
 */
#ifndef CSTAP_FTRACE_SITES_H
#define CSTAP_FTRACE_SITES_H

#include <stdbool.h>
#include <stdint.h>

#include "debuginfo.h"

/* The ftrace call site of the function starting at addr in the kernel
 * image img (at addr, or past its 4-byte endbr64): true and *site, or
 * false when ftrace cannot trace it (or img is not the kernel's). */
bool ftrace_site_of(struct dw_image *img, uint64_t addr, uint64_t *site);

#endif
