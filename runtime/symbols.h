/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: kernel symbols, stacks and registers for the context
 * tapset (symname, symdata, backtrace, print_regs, register ...).
 *
 * Symbols come from the running kernel's kallsyms (sprint_symbol), so they
 * cover modules loaded after the script started too; stacks from the
 * kernel's own unwinder (ORC on x86_64), started from the probe's
 * registers. Both only read memory the kernel checks itself (kallsyms
 * tables, the task's stack within its bounds), so a script cannot make
 * them fault. Output follows SystemTap 4.8's formats.
 */
#ifndef STP_SYMBOLS_H
#define STP_SYMBOLS_H

#include <linux/kallsyms.h>
#include <linux/sched/task_stack.h>
#include <asm/unwind.h>
#include <asm/special_insns.h>
#include <asm/msr.h>
#include "context.h"
#include "print.h"

#define STP_BT_MAX 64	/* frames a backtrace collects at most */

/* How SystemTap names a probe's kind (probe_type()): its family says. */
static __maybe_unused const char *stp_probe_type(const struct stp_probe *p)
{
	return p->type ? p->type : "";
}

/* Is the current probe a kprobe entry (regs->ip one past the probed byte)? */
static inline bool stp_probe_is_kprobe_entry(const struct stp_context *c)
{
	return !strcmp(stp_probe_type(c->probe), "kprobe");
}

/* addr(): where the probe hit, in the kernel or user space; 0 if unknown. */
static __maybe_unused unsigned long stp_probe_addr(const struct stp_context *c)
{
	if (!c->regs)
		return 0;
	if (stp_probe_is_kprobe_entry(c))
		return instruction_pointer(c->regs) - 1;
	return instruction_pointer(c->regs);
}

/* The registers where the probe hit, as SystemTap has them: none in a
 * tracepoint, whose c->regs only carry its arguments for the $variables
 * (translator/probes/tracepoint.c). */
static inline struct pt_regs *stp_probe_regs(const struct stp_context *c)
{
	if (!c->regs || !strcmp(stp_probe_type(c->probe), "kernel_tracepoint"))
		return NULL;
	return c->regs;
}

/* The user-space registers of the current task (at its kernel entry). */
static inline struct pt_regs *stp_user_regs(const struct stp_context *c)
{
	if (c->regs && user_mode(c->regs))
		return c->regs;
	if (!current->mm || (current->flags & PF_KTHREAD))
		return NULL;
	return task_pt_regs(current);
}

/* "sym+0x0/0xf0 [kernel]" / "sym+0x10/0x40 [mod]" / "0x1234" (unknown). */
static __maybe_unused void stp_symdata(char *buf, size_t n, unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN];

	sprint_symbol(sym, addr);
	if (!strncmp(sym, "0x", 2) || strchr(sym, '['))
		strscpy(buf, sym, n);
	else
		snprintf(buf, n, "%s [kernel]", sym);
}

/* "sym" / "0x1234" (unknown). */
static __maybe_unused void stp_symname(char *buf, size_t n, unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN];
	char *sp;

	sprint_symbol_no_offset(sym, addr);
	sp = strchr(sym, ' ');
	if (sp)
		*sp = '\0';
	strscpy(buf, sym, n);
}

/* "sym+0x5d [kernel]": one line of sprint_backtrace(). */
static void stp_symoff(char *buf, size_t n, unsigned long addr)
{
	char *slash;

	stp_symdata(buf, n, addr);
	slash = strchr(buf, '/');
	if (slash) {
		char *mod = strchr(slash, ' ');

		memmove(slash, mod ? mod : "", mod ? strlen(mod) + 1 : 1);
	}
}

/*
 * The kernel stack at the probe: the probed address first, then each
 * return address the unwinder finds. Empty when the probe hit user mode.
 */
static __maybe_unused int stp_backtrace(const struct stp_context *c, unsigned long *pcs, int max)
{
	struct unwind_state state;
	unsigned long a;
	int n = 0;

	if (c->regs && user_mode(c->regs))
		return 0;
	if (c->regs && n < max)
		pcs[n++] = stp_probe_addr(c);
	/* with regs, the unwinder starts at the probed function's caller */
	unwind_start(&state, current, c->regs, NULL);
	for (; !unwind_done(&state) && n < max; unwind_next_frame(&state)) {
		a = unwind_get_return_address(&state);
		if (!a)
			break;
		pcs[n++] = a;
	}
	return n;
}

/* " 0xffffffff8110b0c0 : ksys_read+0x0/0xf0 [kernel]\n" into line */
static void stp_frame_line(char *line, size_t n, unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN + 16];

	stp_symdata(sym, sizeof(sym), addr);
	snprintf(line, n, " 0x%016lx : %s\n", addr, sym);
}

static __maybe_unused void stp_print_frame(struct stp_context *c, unsigned long addr)
{
	char line[KSYM_SYMBOL_LEN + 64];

	stp_frame_line(line, sizeof(line), addr);
	stp_print_str(c, line);
}

/* The hex addresses of a backtrace() / callers() string into pcs; how many. */
static __maybe_unused int stp_parse_addrs(const char *p, unsigned long *pcs, int max)
{
	int n = 0;

	while (*p && n < max) {
		char *end;

		while (*p == ' ')
			p++;
		if (!*p)
			break;
		pcs[n] = simple_strtoul(p, &end, 16);
		if (end == p)
			break;
		n++;
		p = end;
	}
	return n;
}

/* One line per address into out (n bytes), each made by fmt. */
static void stp_sprint_lines(const unsigned long *pcs, int cnt, char *out, size_t n,
			     void (*fmt)(char *, size_t, unsigned long))
{
	char line[KSYM_SYMBOL_LEN + 64];
	size_t len = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < cnt && len < n - 1; i++) {
		fmt(line, sizeof(line), pcs[i]);
		len += scnprintf(out + len, n - len, "%s", line);
	}
}

/* sprint_syms(): the lines print_syms() prints, as one string. */
static __maybe_unused void stp_sprint_frames(const char *stk, char *out, size_t n)
{
	unsigned long pcs[STP_BT_MAX];

	stp_sprint_lines(pcs, stp_parse_addrs(stk, pcs, STP_BT_MAX), out, n, stp_frame_line);
}

/* "sym+off [mod]\n" */
static void stp_symoff_line(char *line, size_t n, unsigned long addr)
{
	size_t len;

	stp_symoff(line, n - 1, addr);
	len = strlen(line);
	line[len] = '\n';
	line[len + 1] = '\0';
}

/* sprint_backtrace(): one "sym+off [mod]" line per frame. */
static __maybe_unused void stp_sprint_backtrace(struct stp_context *c, char *out, size_t n)
{
	unsigned long pcs[STP_BT_MAX];

	stp_sprint_lines(pcs, stp_backtrace(c, pcs, STP_BT_MAX), out, n, stp_symoff_line);
}

/* register("rax") ...: offset of a register in struct pt_regs, or -1. */
static __maybe_unused int stp_register_offset(const char *name, bool *half)
{
	static const struct { const char *n; int off; } regs[] = {
#define R(a, b, f) { a, offsetof(struct pt_regs, f) }, { b, offsetof(struct pt_regs, f) }
		R("rax", "ax", ax), R("rbx", "bx", bx), R("rcx", "cx", cx), R("rdx", "dx", dx),
		R("rsi", "si", si), R("rdi", "di", di), R("rbp", "bp", bp), R("rsp", "sp", sp),
		R("rip", "ip", ip), R("eflags", "flags", flags), R("orig_rax", "orig_ax", orig_ax),
		R("r8", "r8", r8), R("r9", "r9", r9), R("r10", "r10", r10), R("r11", "r11", r11),
		R("r12", "r12", r12), R("r13", "r13", r13), R("r14", "r14", r14),
		R("r15", "r15", r15), R("cs", "xcs", cs), R("ss", "xss", ss),
#undef R
		{ "eax", offsetof(struct pt_regs, ax) }, { "ebx", offsetof(struct pt_regs, bx) },
		{ "ecx", offsetof(struct pt_regs, cx) }, { "edx", offsetof(struct pt_regs, dx) },
		{ "esi", offsetof(struct pt_regs, si) }, { "edi", offsetof(struct pt_regs, di) },
		{ "ebp", offsetof(struct pt_regs, bp) }, { "esp", offsetof(struct pt_regs, sp) },
		{ "eip", offsetof(struct pt_regs, ip) },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(regs); i++) {
		if (!strcmp(name, regs[i].n)) {
			*half = name[0] == 'e' && strcmp(name, "eflags");
			return regs[i].off;
		}
	}
	return -1;
}

/* print_regs(): the probe's registers, laid out as SystemTap 4.8 prints them. */
static __maybe_unused void stp_print_regs(struct stp_context *c)
{
	struct pt_regs *r = c->regs;
	unsigned long fs, gs, kgs;
	unsigned int fsi, gsi, ds, es;
	char line[256];

	if (!r)
		return;
	rdmsrl(MSR_FS_BASE, fs);
	rdmsrl(MSR_GS_BASE, gs);
	rdmsrl(MSR_KERNEL_GS_BASE, kgs);
	savesegment(fs, fsi);
	savesegment(gs, gsi);
	savesegment(ds, ds);
	savesegment(es, es);
	snprintf(line, sizeof(line), "RIP: %016lx\nRSP: %016lx  EFLAGS: %08lx\n",
		 stp_probe_addr(c), r->sp, r->flags);
	stp_print_str(c, line);
	snprintf(line, sizeof(line), "RAX: %016lx RBX: %016lx RCX: %016lx\n"
		 "RDX: %016lx RSI: %016lx RDI: %016lx\n", r->ax, r->bx, r->cx, r->dx, r->si, r->di);
	stp_print_str(c, line);
	snprintf(line, sizeof(line), "RBP: %016lx R08: %016lx R09: %016lx\n"
		 "R10: %016lx R11: %016lx R12: %016lx\n", r->bp, r->r8, r->r9, r->r10, r->r11, r->r12);
	stp_print_str(c, line);
	snprintf(line, sizeof(line), "R13: %016lx R14: %016lx R15: %016lx\n", r->r13, r->r14, r->r15);
	stp_print_str(c, line);
	snprintf(line, sizeof(line), "FS:  %016lx(%04x) GS:%016lx(%04x) knlGS:%016lx\n",
		 fs, fsi, gs, gsi, kgs);
	stp_print_str(c, line);
	snprintf(line, sizeof(line), "CS:  %04lx DS: %04x ES: %04x CR0: %016lx\n",
		 r->cs & 0xffff, ds, es, read_cr0());
	stp_print_str(c, line);
	snprintf(line, sizeof(line), "CR2: %016lx CR3: %016lx CR4: %016lx\n",
		 read_cr2(), __read_cr3(), __read_cr4());
	stp_print_str(c, line);
}

/* stack_used(): bytes of the task's kernel stack in use where the probe hit. */
static __maybe_unused long stp_stack_used(const struct stp_context *c)
{
	unsigned long base = (unsigned long)task_stack_page(current);
	unsigned long sp = c->regs && !user_mode(c->regs) ? kernel_stack_pointer(c->regs)
							 : current_stack_pointer;

	if (sp < base || sp >= base + THREAD_SIZE)	/* on an IRQ stack */
		sp = current_stack_pointer;
	if (sp < base || sp >= base + THREAD_SIZE)
		return 0;
	return base + THREAD_SIZE - sp;
}

#endif /* STP_SYMBOLS_H */
