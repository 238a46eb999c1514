// SPDX-License-Identifier: GPL-2.0
/*
 * kretprobe_raw.c - the kernel's own cost of a kretprobe, the floor under
 * any translator's return probe: a kretprobe on __do_sys_getppid whose
 * handler only counts (bench/probe-hit.sh's kretprobe_raw case; the count
 * goes to the kernel log at rmmod).
 */
#include <linux/module.h>
#include <linux/kprobes.h>

static unsigned long hits;

/* the return handler: a count, as `c++` of kretprobe_count */
static int ret_handler(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	hits++;
	return 0;
}

static struct kretprobe krp = {
	.handler = ret_handler,
	.kp.symbol_name = "__do_sys_getppid",
	.maxactive = 20,
};

static int __init kraw_init(void)
{
	return register_kretprobe(&krp);
}

static void __exit kraw_exit(void)
{
	unregister_kretprobe(&krp);
	pr_info("kretprobe_raw hits=%lu missed=%d\n", hits, krp.nmissed);
}

module_init(kraw_init);
module_exit(kraw_exit);
MODULE_LICENSE("GPL");
