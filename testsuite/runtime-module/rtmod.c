// SPDX-License-Identifier: GPL-2.0
/*
 * Hand-written stand-in for a translator-generated module (shape of
 * doc/runtime-api.md), to test the runtime spine and staprun/stapio before
 * pass 3 exists. The settable global "mode" selects a scenario (run.sh):
 *
 *  0 basic: two begin probes (greeting with execname(); a 50000-line burst),
 *    a kprobe on do_exit filtered by target() that calls exit(), end probe
 *  1 error: begin prints, then divides by 0; later begin and end probes must
 *    not run, the error probe must
 *  2 drop:  a begin probe prints 150000 lines (1.8 MB, more than -s 1 holds)
 *    then calls exit(); the end probe prints
 *  3 sigint: nothing calls exit(); the session ends by a signal, end probe runs
 *  4 skip:  the do_exit probe fires a nested probe (reentrancy) and meets a
 *    held lock (MAXTRYLOCK): two skipped probes
 *  5 printf: stp_printf with several conversions, strings, and a print()
 *    longer than the print buffer
 *  6 concurrent: a kprobe on ksys_read prints one numbered line per read of
 *    any "dd" process (two of them on two CPUs with -smp 2): no line may be
 *    lost, torn or duplicated
 */
#define STP_NUM_PROBES 9
#define MAXACTION 1000000	/* as with stap -DMAXACTION=1000000 */
#define MAXSKIPPED 1000000	/* mode 6 under TCG: lock contention is not the test */
#include "runtime.h"
#include <linux/kprobes.h>
#include <linux/sched.h>

union stp_frame {
	struct { int64_t l_i; } probe_burst;
	struct { char l_s[MAXSTRINGLEN]; int64_t l_x; } probe_err;
};
#define STP_FRAME_SIZE sizeof(union stp_frame)

/* globals */
static long g_mode;		/* module_param type long: int64_t is long long */
module_param_named(mode, g_mode, long, 0);
static rwlock_t g_mode_lock = __RW_LOCK_UNLOCKED(g_mode_lock);
static int64_t g_hits;
static rwlock_t g_hits_lock = __RW_LOCK_UNLOCKED(g_hits_lock);

static const struct stp_probe stp_probes[STP_NUM_PROBES] = {
	{ .pp = "begin", .pos = "rt.stp:1:1", .kind = STP_PK_BEGIN, .index = 0 },
	{ .pp = "begin(1)", .pos = "rt.stp:2:1", .kind = STP_PK_BEGIN, .index = 1 },
	{ .pp = "kernel.function(\"do_exit\")", .pos = "rt.stp:3:1", .kind = STP_PK_NORMAL, .index = 2 },
	{ .pp = "end", .pos = "rt.stp:4:1", .kind = STP_PK_END, .index = 3 },
	{ .pp = "error", .pos = "rt.stp:5:1", .kind = STP_PK_ERROR, .index = 4 },
	{ .pp = "kernel.function(\"nested\")", .pos = "rt.stp:6:1", .kind = STP_PK_NORMAL, .index = 5 },
	{ .pp = "kernel.function(\"locked\")", .pos = "rt.stp:7:1", .kind = STP_PK_NORMAL, .index = 6 },
	{ .pp = "begin(2)", .pos = "rt.stp:8:1", .kind = STP_PK_BEGIN, .index = 7 },
	{ .pp = "kernel.function(\"ksys_read\")", .pos = "rt.stp:9:1", .kind = STP_PK_NORMAL, .index = 8 },
};

#define ACTION(c) do { \
	if (unlikely(++(c)->actions > MAXACTION)) { \
		(c)->last_error = "MAXACTION exceeded"; \
		goto out; \
	} } while (0)

/* probe begin { printf("begin: execname=%s target_ok=%d\n", ...); if (mode==1) ... } */
static void probe_0(struct stp_context *c)
{
	union stp_val a[2];

	ACTION(c);
	a[0].s = current->comm;
	a[1].n = stp_target > 0;
	stp_printf(c, "begin: execname=%s target_ok=%d\n", 2, a);
	if (g_mode == 1) {
		int64_t x = 0;

		stp_print_str(c, "before\n");
		x = stp_div(c, 10, x, "operator '/' at rt.stp:1:60");
		if (c->last_error)
			goto out;
		stp_print_str(c, "not reached\n");
	}
out:
	;
}

/* probe begin(1) { for (i = 0; i < N; i++) printf("burst %d\n", i); } */
static void probe_1(struct stp_context *c)
{
	int64_t n = g_mode == 2 ? 150000 : 50000;
	const char *fmt = g_mode == 2 ? "drop %06d\n" : "burst %d\n";
	union stp_val a[1];

	if (g_mode != 0 && g_mode != 2)
		return;
	for (STP_FRAME(c, union stp_frame)->probe_burst.l_i = 0;
	     STP_FRAME(c, union stp_frame)->probe_burst.l_i < n;
	     STP_FRAME(c, union stp_frame)->probe_burst.l_i++) {
		ACTION(c);
		a[0].n = STP_FRAME(c, union stp_frame)->probe_burst.l_i;
		stp_printf(c, fmt, 1, a);
	}
	if (g_mode == 2)
		stp_request_exit();
out:
	;
}

/* probe begin(2) { print("begin2\n") }: must not run after an error or exit() */
static void probe_7(struct stp_context *c)
{
	stp_print_str(c, "begin2\n");
}

static void probe_5_handler(void);
static void probe_6(struct stp_context *c);

/* probe kernel.function("do_exit") { if (pid() == target()) { ... exit() } } */
static void probe_2(struct stp_context *c)
{
	union stp_val a[1];

	ACTION(c);
	if (current->tgid != stp_target)
		goto out;
	g_hits++;
	a[0].s = current->comm;
	stp_printf(c, "normal: execname=%s\n", 1, a);
	if (g_mode == 4) {
		probe_5_handler();	/* as if a probe fired inside this one */
		probe_6(c);		/* a body whose global lock is held */
	}
	if (g_mode == 0)
		stp_request_exit();
out:
	;
}

/* probe kernel.function("ksys_read") { if (execname() == "dd") printf("rd %8d %8d\n", tid(), ++hits) } */
static void probe_8(struct stp_context *c)
{
	union stp_val a[2];

	ACTION(c);
	if (strcmp(current->comm, "dd"))
		goto out;
	a[0].n = current->pid;
	a[1].n = ++g_hits;
	stp_printf(c, "rd %8d %8d\n", 2, a);
out:
	;
}

static void probe_5(struct stp_context *c)
{
	stp_print_str(c, "nested probe ran (wrong)\n");
}

static void probe_6(struct stp_context *c)
{
	/* g_hits is write-locked by our caller: this try must fail, and
	 * the probe is counted as skipped, as a generated handler does */
	if (stp_trylock_read(&g_hits_lock)) {
		stp_print_str(c, "got a held lock (wrong)\n");
		stp_unlock_read(&g_hits_lock);
	} else {
		stp_count_skipped();
	}
}

/* probe end { printf("end: hits=%d\n", hits) } */
static void probe_3(struct stp_context *c)
{
	union stp_val a[1];

	a[0].n = g_hits;
	stp_printf(c, "end: hits=%d\n", 1, a);
}

/* probe error { print("error probe ran\n") } */
static void probe_4(struct stp_context *c)
{
	stp_print_str(c, "error probe ran\n");
}

/* mode 5: printf conversions and an over-long print */
static void probe_printf(struct stp_context *c)
{
	static char big[STP_PRINT_BUF_SIZE + 100];
	union stp_val a[6];

	a[0].n = -42;
	a[1].n = 255;
	a[2].s = "str";
	a[3].n = 7;
	a[4].n = 3;
	a[5].n = 'Z';
	stp_printf(c, "d=%d x=%#x s=%-5s| w=%*d c=%c %%\n", 6, a);
	memset(big, 'b', sizeof(big) - 2);
	big[sizeof(big) - 2] = '\n';
	big[sizeof(big) - 1] = '\0';
	stp_print_str(c, big);
	stp_print_str(c, "after big\n");
	stp_request_exit();
}

#define HANDLER(N, LOCK_WRITE)					\
static void probe_##N##_handler(void)						\
{										\
	struct stp_context *c = stp_probe_enter(&stp_probes[N]);		\
	if (!c)									\
		return;								\
	if (stp_trylock_read(&g_mode_lock)) {					\
		if (!LOCK_WRITE || stp_trylock_write(&g_hits_lock)) {		\
			probe_##N(c);						\
			if (LOCK_WRITE)						\
				stp_unlock_write(&g_hits_lock);			\
		} else {							\
			stp_count_skipped();					\
		}								\
		stp_unlock_read(&g_mode_lock);					\
	} else {								\
		stp_count_skipped();						\
	}									\
	stp_probe_exit(c);							\
}
HANDLER(0, 0)
HANDLER(1, 0)
HANDLER(2, 1)
HANDLER(3, 0)
HANDLER(4, 0)
HANDLER(5, 0)
HANDLER(7, 0)
HANDLER(8, 1)

static void probe_printf_handler(void)
{
	struct stp_context *c = stp_probe_enter(&stp_probes[7]);

	if (!c)
		return;
	probe_printf(c);
	stp_probe_exit(c);
}

static int kp_do_exit_pre(struct kprobe *kp, struct pt_regs *regs)
{
	probe_2_handler();
	return 0;
}

static int kp_read_pre(struct kprobe *kp, struct pt_regs *regs)
{
	probe_8_handler();
	return 0;
}

static struct kprobe kp_do_exit = {
	.symbol_name = "do_exit",
	.pre_handler = kp_do_exit_pre,
};
static struct kprobe kp_read = {
	.symbol_name = "ksys_read",
	.pre_handler = kp_read_pre,
};
static struct kprobe *kp_used;

static int stp_script_init(void)
{
	return 0;
}

static int stp_script_start(void)
{
	int rc;

	probe_0_handler();
	probe_1_handler();
	if (g_mode == 5)
		probe_printf_handler();
	else
		probe_7_handler();
	if (atomic_read(&stp_state) != STP_STARTING)
		return 0;
	kp_used = g_mode == 6 ? &kp_read : &kp_do_exit;
	rc = register_kprobe(kp_used);
	if (rc) {
		kp_used = NULL;
		return rc;
	}
	return 0;
}

static void stp_script_stop(void)
{
	if (kp_used)
		unregister_kprobe(kp_used);
	kp_used = NULL;
	probe_3_handler();
	probe_4_handler();
}

static void stp_script_exit(void)
{
}

#include "runtime_main.h"
