/* hwbkpt.h - kernel.data(...).write / .rw probes: hardware watchpoints.
 *
 * Each probe is a wide (every CPU) hardware breakpoint on its address; the
 * breakpoint's handler runs the generated handler with the registers of the
 * access (after it: x86 data breakpoints trap once the instruction ran).
 * A symbol's link address comes with stp_kaslr_offset added (deref.h).
 */
#ifndef _STP_HWBKPT_H_
#define _STP_HWBKPT_H_

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <linux/slab.h>

struct stp_hwbkpt {
	unsigned long addr;
	int len;
	bool rw;
	void (*handler)(struct pt_regs *regs);
	struct perf_event * __percpu *events;
};

static void stp_hwbkpt_hit(struct perf_event *bp, struct perf_sample_data *data, struct pt_regs *regs)
{
	struct stp_hwbkpt *h = bp->overflow_handler_context;

	h->handler(regs);
}

static int stp_hwbkpt_start(struct stp_hwbkpt *h, const char *pp)
{
	struct perf_event_attr attr;

	hw_breakpoint_init(&attr);
	attr.bp_addr = h->addr;
	attr.bp_len = h->len == 1 ? HW_BREAKPOINT_LEN_1 : h->len == 2 ? HW_BREAKPOINT_LEN_2 :
		      h->len == 4 ? HW_BREAKPOINT_LEN_4 : HW_BREAKPOINT_LEN_8;
	attr.bp_type = h->rw ? HW_BREAKPOINT_RW : HW_BREAKPOINT_W;
	h->events = register_wide_hw_breakpoint(&attr, stp_hwbkpt_hit, h);
	if (IS_ERR((void __force *)h->events)) {
		int rc = PTR_ERR((void __force *)h->events);

		h->events = NULL;
		stp_err("probe %s: no hardware watchpoint at 0x%lx (error %d)", pp, h->addr, rc);
		return rc;
	}
	return 0;
}

static __maybe_unused void stp_hwbkpt_stop(struct stp_hwbkpt *h)
{
	if (h->events)
		unregister_wide_hw_breakpoint(h->events);
	h->events = NULL;
}

#endif /* _STP_HWBKPT_H_ */
