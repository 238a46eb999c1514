/* timer.h - hrtimer-driven timer.* probes.
 *
 * Every timer probe owns one struct stp_timer. The callback runs in hardirq
 * context: it calls the generated handler (which takes this CPU's context)
 * and re-arms itself. randomize adds a uniform offset in [-rand, +rand] to
 * each period so that several timers do not stay in lock step.
 */
#ifndef _STP_TIMER_H_
#define _STP_TIMER_H_

#include <linux/hrtimer.h>
#include <linux/random.h>
#include <asm/irq_regs.h>

struct stp_timer {
	struct hrtimer timer;
	u64 period_ns;
	u64 rand_ns;
	void (*handler)(struct pt_regs *regs);
};

static __maybe_unused u64 stp_timer_next(const struct stp_timer *t)
{
	u64 p = t->period_ns;

	if (t->rand_ns) {
		u64 span = 2 * t->rand_ns + 1;
		p = p - t->rand_ns + get_random_u32() % span;
	}
	return p ? p : 1;
}

static __maybe_unused enum hrtimer_restart stp_timer_fire(struct hrtimer *h)
{
	struct stp_timer *t = container_of(h, struct stp_timer, timer);

	t->handler(get_irq_regs());
	hrtimer_forward_now(h, ns_to_ktime(stp_timer_next(t)));
	return HRTIMER_RESTART;
}

static __maybe_unused void stp_timer_start(struct stp_timer *t)
{
	hrtimer_init(&t->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	t->timer.function = stp_timer_fire;
	hrtimer_start(&t->timer, ns_to_ktime(stp_timer_next(t)), HRTIMER_MODE_REL);
}

static __maybe_unused void stp_timer_stop(struct stp_timer *t)
{
	if (t->timer.function)
		hrtimer_cancel(&t->timer);
}

#endif /* _STP_TIMER_H_ */
