/* perf.h - perf.type(T).config(C) probes: sampling perf events.
 *
 * Every perf probe owns one struct stp_perf: one kernel perf event per
 * online CPU (perf_event_create_kernel_counter), whose overflow handler runs
 * the generated handler with the interrupted registers. A hardware event's
 * overflow comes in NMI context, a software one (cpu_clock ...) from an
 * hrtimer or the event's own path; the handler takes this CPU's context as
 * any other probe's does. CPUs coming online later are not covered.
 */
#ifndef _STP_PERF_H_
#define _STP_PERF_H_

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/perf_event.h>
#include <linux/slab.h>

struct stp_perf {
	struct perf_event_attr attr;
	void (*handler)(struct pt_regs *regs);
	struct perf_event **events;	/* one per possible CPU, NULL where none */
};

static __maybe_unused void stp_perf_overflow(struct perf_event *e, struct perf_sample_data *data,
					     struct pt_regs *regs)
{
	struct stp_perf *p = e->overflow_handler_context;

	p->handler(regs);
}

static __maybe_unused void stp_perf_stop(struct stp_perf *p)
{
	unsigned int cpu;

	if (!p->events)
		return;
	for_each_possible_cpu(cpu)
		if (p->events[cpu])
			perf_event_release_kernel(p->events[cpu]);
	kfree(p->events);
	p->events = NULL;
}

/* 0, or the error of the first CPU whose event could not be made (a
 * hardware counter the machine lacks: -ENOENT, -EOPNOTSUPP). */
static __maybe_unused int stp_perf_start(struct stp_perf *p, const char *pp)
{
	unsigned int cpu;

	p->attr.size = sizeof(p->attr);
	p->attr.pinned = 1;
	p->events = kcalloc(nr_cpu_ids, sizeof(*p->events), GFP_KERNEL);
	if (!p->events)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		struct perf_event *e = perf_event_create_kernel_counter(&p->attr, cpu, NULL,
									stp_perf_overflow, p);
		if (IS_ERR(e)) {
			stp_err("perf probe %s: no such event on cpu %u (error %ld)", pp, cpu, PTR_ERR(e));
			stp_perf_stop(p);
			return (int)PTR_ERR(e);
		}
		p->events[cpu] = e;
	}
	return 0;
}

#endif /* _STP_PERF_H_ */
