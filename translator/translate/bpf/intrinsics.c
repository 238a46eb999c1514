/* intrinsics.c - the BPF intrinsics: what a tapset function is in BPF when
 * it is not script code the backend inlines (doc/bpf-intrinsics.md).
 *
 * A tapset function names its intrinsic with the pragma comment
 * / * bpf:NAME * / in its embedded C: one definition serves both runtimes,
 * the module runs the C, BPF the intrinsic. tapsets/bpf_intrinsics.stp
 * declares some as script functions (__bpf_NAME), for tapset code in the
 * script language that BPF needs a primitive for. One table, sorted by
 * name, looked up with bsearch; the call's arguments are the function's.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "probes/provider.h"
#include "target/btf.h"
#include "target/syscalls_gen.h"
#include "translate/bpf/gen.h"

struct bpf_intrinsic {
	const char *name;
	enum type ret;          /* TYPE_STRING: made into a slot of its own (d) */
	/* make it: a long in r0, a string in d; false: it has no form here
	 * (nothing made; the function is then inlined or refused as any other) */
	bool (*emit)(struct bgen *g, const struct bpf_intrinsic *in, struct expr *e, struct bstr d);
	int size;               /* the memory readers: bytes; their sign (signed) */
	bool sign;
	const char *what;       /* ... and the type their fault message names */
	/* known when the program is made: its value (-1: not) */
	int (*fixed)(struct bgen *g, struct expr *e);
	/* a constant string (pp()): its text, printf folds it into the format */
	const char *(*text)(const struct bgen *g, size_t *n);
	bool reads_string;      /* reads a string from kernel or user memory */
	bool scans_string;      /* looks at a string value's bytes where an index says */
};

/* ---- helpers ----------------------------------------------------------- */

/* kernel_string(addr[, err]), kernel_string_n(addr, n), user_string ...:
 * a string read with bpf_probe_read_{kernel,user}_str; a fault is the
 * script's error (or err, when given) */
static void read_string(struct bgen *g, struct expr *e, struct bstr d, bool user, bool has_n)
{
	struct expr **a = e->args.items;
	int addr = bg_stack(g), ok = bg_label(g), size = bg_stack(g);
	int erri = has_n ? 2 : 1;
	bool has_err = e->args.len > erri;

	bg_long(g, a[0]);
	stx(g, R10, addr, R0);
	bg_mov_imm(g, R0, g->strsz);
	if (has_n) {   /* at most n bytes and the NUL: n + 1 in 1..strsz */
		int lo = bg_label(g), hi = bg_label(g);
		bg_long(g, a[1]);
		bg_jmp(g, J_SGE, R0, -1, 0, lo);
		bg_mov_imm(g, R0, 0);
		bg_place(g, lo);
		bg_jmp(g, J_SLT, R0, -1, g->strsz - 1, hi);
		bg_mov_imm(g, R0, g->strsz - 1);
		bg_place(g, hi);
		alu_k(g, A_ADD, R0, 1);
	}
	stx(g, R10, size, R0);
	bg_str_zero(g, d);
	str_addr(g, R1, d);
	ldx(g, R2, R10, size);
	alu_k(g, A_AND, R2, 2 * g->strsz - 1);    /* the verifier's bound: 1..strsz */
	ldx(g, R3, R10, addr);
	bg_call(g, user ? H_READ_USER_STR : H_READ_KERNEL_STR);
	bg_jmp(g, J_SGE, R0, -1, 0, ok);
	if (has_err) {
		bg_str_copy(g, d, bg_str(g, a[erri]));
	} else if (user) {   /* the tapset's message, with the helper's -errno */
		const char *m = "user string copy fault %d at 0x%x [man error::fault]";
		char *f = bg_near_fmt(m, "identifier", e->name, e->pos);
		int lv[2] = { size, addr };
		stx(g, R10, size, R0);
		bg_raise(g, m, bg_fmt(g, "ll", f, strlen(f)), "ll", lv, NULL);
		free(f);
	} else {
		const char *m = "kernel string copy fault at 0x%x [man error::fault]";
		char *f = bg_near_fmt(m, "identifier", e->name, e->pos);
		int lv[1] = { addr };
		bg_raise(g, m, bg_fmt(g, "l", f, strlen(f)), "l", lv, NULL);
		free(f);
	}
	bg_place(g, ok);
}

/* substr(str, start, length): the bytes from start, at most length, as
 * the tapset's (nothing for a start outside the string); the copy is a
 * probe_read_kernel_str from inside the source slot, bounded for the
 * verifier */
static void substr(struct bgen *g, struct expr *e, struct bstr d)
{
	struct expr **a = e->args.items;
	struct bstr s = bg_str(g, a[0]), ts = scratch_str(g);
	int start = bg_stack(g), n = bg_stack(g), done = bg_label(g);

	bg_str_copy(g, ts, s);
	bg_long(g, a[1]);
	stx(g, R10, start, R0);
	bg_long(g, a[2]);
	stx(g, R10, n, R0);
	bg_str_zero(g, d);
	ldx(g, R1, R10, start);
	bg_jmp(g, J_SLT, R1, -1, 0, done);
	bg_jmp(g, J_SGE, R1, -1, g->strsz - 1, done);
	ldx(g, R2, R10, n);
	bg_jmp(g, J_SLE, R2, -1, 0, done);
	{
		int fits = bg_label(g);
		bg_jmp(g, J_SLT, R2, -1, g->strsz, fits);
		bg_mov_imm(g, R2, g->strsz - 1);
		bg_place(g, fits);
	}
	alu_k(g, A_ADD, R2, 1);             /* the NUL: 2..strsz */
	alu_k(g, A_AND, R2, 2 * g->strsz - 1);
	str_addr(g, R3, ts);
	bg_emit(g, B_ALU64 | A_ADD | B_X, R3, R1, 0, 0);
	str_addr(g, R1, d);
	bg_call(g, H_READ_KERNEL_STR);
	bg_place(g, done);
}


/* An error without a "near" part, the module's when its code clears
 * last_stmt: msg, its one %d the long in slot v. */
static void error_value(struct bgen *g, const char *msg, int v)
{
	char *text = xasprintf("%s\n", msg);
	int lv[1] = { v };

	bg_raise(g, msg, bg_fmt(g, "l", text, strlen(text)), "l", lv, NULL);
	free(text);
}

/* __reg_arg(n): argument n of the probed function, as regargs.stp's
 * stp_reg_arg on x86_64: di si dx cx r8 r9 of the probe's pt_regs, then
 * the stack above the return address (a process probe's in user memory);
 * in a 32-bit task (a process probe's, user code segment 0x23) every one
 * on the stack, 4 bytes each. Not a tracepoint's (no registers). */
static void reg_arg(struct bgen *g, struct expr *e)
{
	static const int regs[] = { 112, 104, 96, 88, 72, 64 };   /* offsets in pt_regs */
	int v = bg_stack(g), done = bg_label(g), bad = bg_label(g), wide = bg_label(g), r = bg_stack(g);
	bool user = g->ctx.user;

	if (g->user || g->ctx_args) {
		bg_error(g, "cannot access function args in this context",
			 "cannot access function args in this context\n");
		return;
	}
	if (!g->ctx.reg_args) {
		bg_fail(g, e->pos, "function arguments of a %s probe have no BPF form yet", g->dp->prov->name);
		return;
	}
	bg_long(g, e->args.items[0]);
	stx(g, R10, v, R0);
	bg_jmp(g, J_SLT, R0, -1, 1, bad);
	if (user) {   /* a 32-bit task: sp + 4n */
		ldx(g, R1, R6, 136);   /* cs */
		bg_jmp(g, J_NE, R1, -1, 0x23, wide);
		ldx(g, R3, R6, 152);
		ldx(g, R0, R10, v);
		alu_k(g, A_LSH, R0, 2);
		alu_x(g, A_ADD, R3, R0);
		bg_emit(g, B_ST | B_MEM | B_DW, R10, 0, r, 0);
		mov(g, R1, R10);
		alu_k(g, A_ADD, R1, r);
		bg_mov_imm(g, R2, 4);
		bg_call(g, H_READ_USER);
		bg_jmp(g, J_NE, R0, -1, 0, bad);
		ldx(g, R0, R10, r);
		bg_ja(g, done);
		bg_place(g, wide);
		ldx(g, R0, R10, v);
	}
	for (int i = 0; i < 6; i++) {
		int next = bg_label(g);
		bg_jmp(g, J_NE, R0, -1, i + 1, next);
		ldx(g, R0, R6, regs[i]);
		bg_ja(g, done);
		bg_place(g, next);
	}
	ldx(g, R1, R6, 152);   /* sp */
	ldx(g, R0, R10, v);
	alu_k(g, A_ADD, R0, -6);
	alu_k(g, A_LSH, R0, 3);
	alu_x(g, A_ADD, R0, R1);
	/* the stack above the return address */
	mov(g, R3, R0);
	mov(g, R1, R10);
	alu_k(g, A_ADD, R1, r);
	bg_mov_imm(g, R2, 8);
	bg_call(g, user ? H_READ_USER : H_READ_KERNEL);
	bg_jmp(g, J_NE, R0, -1, 0, bad);
	ldx(g, R0, R10, r);
	bg_ja(g, done);
	bg_place(g, bad);
	error_value(g, "cannot access arg(%d)", v);
	bg_place(g, done);
}

/* addr(): the context's ip, less what the family says (a kprobe's ip is
 * past its breakpoint); false for a probe whose ip is not the probed address */
bool bg_probe_addr(struct bgen *g)
{
	if (g->user || g->ctx_args || !g->dp || g->ctx.ip_back < 0)
		return false;
	ldx(g, R0, R6, 128);   /* the context's pt_regs' ip */
	if (g->ctx.ip_back)
		alu_k(g, A_ADD, R0, -g->ctx.ip_back);
	return true;
}

/* r0 = uaddr(): the user-space ip of the current task, as the module's
 * stp_user_regs: the probe's registers when they are user mode (a uprobe,
 * a perf sample in user code), else those the task entered the kernel
 * with, none for a task without an mm (a kernel thread, an exiting task).
 * The first frame of bpf_get_stack's user stack is exactly that (perf's
 * callchain starts at that ip). 0 in stapbpf's user-space programs. */
static void user_ip(struct bgen *g)
{
	struct bstr r = { R7, bg_scratch(g, 8) };
	int done = bg_label(g);

	bg_mov_imm(g, R0, 0);
	if (g->user && !g->user_timer)
		return;
	bg_emit(g, B_ST | B_MEM | B_DW, r.base, 0, r.off, 0);
	mov(g, R1, R6);
	str_addr(g, R2, r);
	bg_mov_imm(g, R3, 8);
	bg_mov_imm(g, R4, 256);   /* BPF_F_USER_STACK */
	bg_call(g, H_GET_STACK);
	mov(g, R1, R0);
	bg_mov_imm(g, R0, 0);
	bg_jmp(g, J_NE, R1, -1, 8, done);
	ldx(g, R0, r.base, r.off);
	bg_place(g, done);
}

/* The offset in x86_64's pt_regs of a register register() names, as the
 * module's stp_register_offset (runtime/symbols.h); -1 if none. *half: an
 * e-register, its low 32 bits sign-extended. */
static int register_offset(const char *name, bool *half)
{
	static const struct { const char *n, *alt; int off; } regs[] = {
		{ "rax", "ax", 80 }, { "rbx", "bx", 40 }, { "rcx", "cx", 88 }, { "rdx", "dx", 96 },
		{ "rsi", "si", 104 }, { "rdi", "di", 112 }, { "rbp", "bp", 32 }, { "rsp", "sp", 152 },
		{ "rip", "ip", 128 }, { "eflags", "flags", 144 }, { "orig_rax", "orig_ax", 120 },
		{ "r8", "r8", 72 }, { "r9", "r9", 64 }, { "r10", "r10", 56 }, { "r11", "r11", 48 },
		{ "r12", "r12", 24 }, { "r13", "r13", 16 }, { "r14", "r14", 8 }, { "r15", "r15", 0 },
		{ "cs", "xcs", 136 }, { "ss", "xss", 160 },
		{ "eax", NULL, 80 }, { "ebx", NULL, 40 }, { "ecx", NULL, 88 }, { "edx", NULL, 96 },
		{ "esi", NULL, 104 }, { "edi", NULL, 112 }, { "ebp", NULL, 32 }, { "esp", NULL, 152 },
		{ "eip", NULL, 128 },
	};

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (!strcmp(name, regs[i].n) || (regs[i].alt && !strcmp(name, regs[i].alt))) {
			*half = name[0] == 'e' && strcmp(name, "eflags");
			return regs[i].off;
		}
	return -1;
}

/* r0 = register(name) / u_register(name) (unsigned: a 32-bit register
 * zero-extended): __register(name, unsigned), both constants when the
 * program is made (seen through register()'s parameters: bg_arg_source),
 * a field of the probe's pt_regs; the module's errors where there are none
 * (begin, a tracepoint) or the name is no register, near the call the
 * script made (register() or u_register()). */
static bool register_value(struct bgen *g, const struct bpf_intrinsic *in, struct expr *e, struct bstr d)
{
	struct expr *a = bg_arg_source(g, e->args.items[0]), *u = bg_arg_source(g, e->args.items[1]);
	struct expr *call = g->inl.len ? g->inl.items[g->inl.len - 1]->call : e;
	bool half = false, unsign;
	int off;

	(void)in, (void)d;
	if (u->kind != EXPR_NUM)
		return false;
	unsign = u->num != 0;
	if (a->kind != EXPR_STR) {
		bg_fail(g, a->pos, "%s() of a name not known when translating has no BPF form",
			unsign ? "u_register" : "register");
		return true;
	}
	if (g->user_timer) {   /* the module's timer has the interrupted ones */
		bg_fail(g, call->pos, "%s() in a timer probe that stapbpf runs in user space",
			unsign ? "u_register" : "register");
		return true;
	}
	if (g->user || g->ctx_args) {
		bg_error(g, "cannot access CPU registers in this context",
			 "cannot access CPU registers in this context\n");
		return true;
	}
	off = register_offset(a->str, &half);
	if (off < 0) {
		char *msg = xasprintf("Unknown register: %s", a->str);
		bg_error_near(g, msg, "identifier", call->func ? call->func->name : call->name, call->pos);
		free(msg);
		return true;
	}
	if (!(off == 128 && bg_probe_addr(g)))   /* a kprobe's ip is one past */
		ldx(g, R0, R6, off);
	if (half && unsign)
		bg_emit(g, B_ALU | A_MOV | B_X, R0, R0, 0, 0);   /* the low 32 bits */
	else if (half)
		bg_sext(g, 32);
	return true;
}

/* r0 = the time of day in ns, in a kernel probe: the kernel's TAI clock
 * (bpf_ktime_get_tai_ns, Linux 6.1) plus the whole seconds by which the
 * wall clock differs from it, which stapbpf puts in @config at offset 24
 * (the leap seconds: they change only when the kernel is told of one). A
 * step of the wall clock moves both. */
static bool wall_clock(struct bgen *g, struct srcpos pos)
{
	int slot = bg_stack(g), found = bg_label(g);

	if (!bg_kernel_at_least(g->s, 6, 1)) {
		char *what = xasprintf("the time of day in a kernel probe needs Linux 6.1's TAI clock "
				       "(kernel %s)", g->s->kernel_release);
		bg_fail_user_only(g, pos, what);
		free(what);
		return false;
	}
	bg_emit(g, B_ST | B_MEM | B_DW, R10, 0, slot, 0);
	bg_lookup0(g, g->config_map);
	bg_jmp(g, J_EQ, R0, -1, 0, found);
	ldx(g, R1, R0, 24);
	stx(g, R10, slot, R1);
	bg_place(g, found);
	bg_call(g, H_KTIME_TAI);
	ldx(g, R1, R10, slot);
	alu_x(g, A_ADD, R0, R1);
	return true;
}


/* ---- the intrinsics, by name ---------------------------------------------
 * Each: g the program being made, in its table entry, e the call (its
 * arguments the tapset function's), d a string intrinsic's slot. */
#define UNUSED __attribute__((unused))
#define INTRINSIC(fn) \
	static bool fn(struct bgen *g UNUSED, const struct bpf_intrinsic *in UNUSED, \
		       struct expr *e UNUSED, struct bstr d UNUSED)

/* abort(): exit(), and this handler ends too; no catch stops it */
INTRINSIC(i_abort)
{
	bg_record(g, REC_EXIT, 0, "", NULL, NULL);
	bg_stop_kernel(g);
	bg_ja(g, g->exit_label);
	return true;
}

/* addr(): no registers (stapbpf's programs, a raw tracepoint's): 0, as the
 * module's; else the probe's ip (bg_probe_addr), if its family says what
 * (a BPF trampoline does not) */
INTRINSIC(i_addr)
{
	if (g->ctx.trampoline)   /* none: the kprobe it falls back to has the probe's (stmt.c) */
		return bg_probe_addr(g);
	if (g->user || g->ctx_args) {
		bg_mov_imm(g, R0, 0);
		return true;
	}
	return bg_probe_addr(g);
}

/* asmlinkage(), fastcall(): a 32-bit task's conventions: nothing in a
 * kernel probe; a process probe reads every argument on the stack
 * (asmlinkage) */
INTRINSIC(i_asmlinkage)
{
	bg_mov_imm(g, R0, 0);
	return true;
}

INTRINSIC(i_fastcall)
{
	if (g->ctx.user)
		bg_fail(g, e->pos, "fastcall() in a process probe has no BPF form yet");
	bg_mov_imm(g, R0, 0);
	return true;
}

/* Where task_struct's comm is when a program can read it in place: the
 * target's BTF has bpf_get_current_task_btf (a pointer to the current task
 * whose loads the verifier checks against BTF) and comm is 16 bytes; -1
 * otherwise. Looked up once a run. */
static int comm_offset(struct bgen *g)
{
	const struct btf *b;
	uint64_t bits;
	uint32_t type, bitsize, sid;

	if (g->comm_known)
		return g->comm_off;
	g->comm_known = true;
	g->comm_off = -1;
	if ((b = btf_kernel(g->s, NULL)) && btf_func_id(b, "bpf_get_current_task_btf") &&
	    (sid = btf_type_named(b, "struct task_struct")) &&
	    btf_member(b, sid, "comm", &bits, &type, &bitsize) && !bitsize && !(bits % 64) &&
	    btf_size(b, btf_resolve(b, type)) == 16)
		g->comm_off = (int)(bits / 8);
	return g->comm_off;
}

/* reg (one word of a C string) with its bytes from the first NUL on
 * cleared; ones = 0x0101..01 in a register; t and u clobbered. t is left
 * with a mask of reg's bytes: all ones when reg had no NUL. */
static void word_to_nul(struct bgen *g, int reg, int ones, int t, int u)
{
	mov(g, t, reg);
	alu_x(g, A_SUB, t, ones);
	mov(g, u, reg);
	alu_k(g, A_XOR, u, -1);
	alu_x(g, A_AND, t, u);         /* the high bit of each byte that was 0, */
	mov(g, u, ones);
	alu_k(g, A_LSH, u, 7);
	alu_x(g, A_AND, t, u);         /* exact up to the first such byte */
	mov(g, u, t);
	bg_emit(g, B_ALU64 | A_NEG, u, 0, 0, 0);
	alu_x(g, A_AND, t, u);         /* its lowest: the first NUL's bit 7 */
	alu_k(g, A_RSH, t, 7);
	alu_k(g, A_SUB, t, 1);         /* the bytes before it (none: all) */
	alu_x(g, A_AND, reg, t);
}

/* The current task's comm, NUL-padded, into the 16 bytes at d. Read in
 * place where the kernel lets a program (no helper call, no copy; the
 * bytes after its NUL cleared, which some kernels leave from a longer
 * name); else bpf_get_current_comm. */
void bg_comm_into(struct bgen *g, struct bstr d)
{
	int off = g->user || g->user_timer ? -1 : comm_offset(g);

	if (off < 0) {
		str_addr(g, R1, d);
		bg_mov_imm(g, R2, 16);
		bg_call(g, H_COMM);
		return;
	}
	bg_call(g, H_CURRENT_TASK_BTF);
	ldx(g, R1, R0, off);
	ldx(g, R2, R0, off + 8);
	bg_mov_imm(g, R3, 0x0101010101010101LL);
	word_to_nul(g, R1, R3, R4, R5);
	stx(g, d.base, d.off, R1);
	alu_k(g, A_ARSH, R4, 63);      /* a NUL in the first word: none of the second */
	alu_x(g, A_AND, R2, R4);
	word_to_nul(g, R2, R3, R4, R5);
	stx(g, d.base, d.off + 8, R2);
}

INTRINSIC(i_comm)   /* execname() */
{
	for (int i = 16; i < g->strsz; i += 8)
		bg_emit(g, B_ST | B_MEM | B_DW, d.base, 0, d.off + i, 0);
	bg_comm_into(g, d);
	return true;
}

/* task_current()'s %{ (long)current %}: the current task_struct */
INTRINSIC(i_current_task)
{
	bg_call(g, H_CURRENT_TASK);
	return true;
}

INTRINSIC(i_cpu)
{
	bg_call(g, H_SMP_PROCESSOR_ID);
	return true;
}

/* error(msg): the message alone, as SystemTap; warn(msg) */
INTRINSIC(i_error)
{
	struct bstr sv[1] = { bg_str(g, e->args.items[0]) };

	bg_raise(g, "%s", bg_fmt(g, "s", "%s\n", 3), "s", NULL, sv);
	return true;
}

INTRINSIC(i_exit)
{
	bg_record(g, REC_EXIT, 0, "", NULL, NULL);
	bg_stop_kernel(g);
	return true;
}

/* exit_status(n): the status stapbpf exits with, n in the record; the
 * session goes on (exit() ends it) */
INTRINSIC(i_exit_status)
{
	int v = bg_stack(g);

	bg_long(g, e->args.items[0]);
	stx(g, R10, v, R0);
	bg_record(g, REC_EXIT_STATUS, 0, "l", &v, NULL);
	return true;
}

INTRINSIC(i_gid)
{
	bg_call(g, H_UID_GID);
	alu_k(g, A_RSH, R0, 32);
	return true;
}

/* input.line: a line ends at its newline or when a string is full */
INTRINSIC(i_input_line_done)
{
	struct bstr s = bg_str(g, e->args.items[0]), t = scratch_str(g);
	int done = bg_label(g), full = bg_label(g), some = bg_label(g);

	bg_scratch(g, g->strsz);
	str_addr(g, R1, t);
	bg_mov_imm(g, R2, g->strsz);
	str_addr(g, R3, s);
	bg_call(g, H_READ_KERNEL_STR);
	alu_k(g, A_ADD, R0, -1);        /* the length */
	bg_jmp(g, J_SGT, R0, -1, 0, some);
	bg_mov_imm(g, R0, 0);
	bg_ja(g, done);
	bg_place(g, some);
	bg_jmp(g, J_SGE, R0, -1, g->strsz - 1, full);
	alu_k(g, A_ADD, R0, -1);
	alu_k(g, A_AND, R0, g->strsz - 1);
	str_addr(g, R1, t);
	alu_x(g, A_ADD, R1, R0);
	bg_emit(g, B_LDX | B_MEM | B_B, R1, R1, 0, 0);
	bg_mov_imm(g, R0, 0);
	bg_jmp(g, J_NE, R1, -1, '\n', done);
	bg_place(g, full);
	bg_mov_imm(g, R0, 1);
	bg_place(g, done);
	return true;
}

/* isdigit(s): of its first byte */
INTRINSIC(i_isdigit)
{
	struct bstr s = bg_str(g, e->args.items[0]);
	int yes = bg_label(g);

	bg_emit(g, B_LDX | B_MEM | B_B, R0, s.base, s.off, 0);
	alu_k(g, A_ADD, R0, -'0');
	bg_mov_imm(g, R1, 1);
	bg_jmp(g, J_LT, R0, -1, 10, yes);
	bg_mov_imm(g, R1, 0);
	bg_place(g, yes);
	mov(g, R0, R1);
	return true;
}

/* strpos(a, b), isinstr(a, b): is b in a: for each start i in a (a loop of
 * one bound, r1), b's bytes compared with a's from there without a branch
 * (a branch per byte is more paths than the verifier walks): the XOR of the
 * two, kept where b's byte is not NUL ((c + 255) >> 8), ORed into r5. a is
 * copied before 64 zero bytes, so that a[i + j] stays in the slot. The
 * answer goes through memory: with r0 = 1 on one way and 0 on the other the
 * verifier walks the rest of the program twice for each isinstr, 2^n times
 * for n of them. */
static void find(struct bgen *g, struct expr *e, bool pos)
{
	struct bstr a = bg_str(g, e->args.items[0]), b = bg_str(g, e->args.items[1]);
	struct bstr t = { R7, bg_scratch(g, 2 * g->strsz) };
	int outer = bg_label(g), yes = bg_label(g), no = bg_label(g), done = bg_label(g);

	bg_str_copy(g, t, a);
	for (int k = g->strsz; k < 2 * g->strsz; k += 8)
		bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, t.off + k, 0);
	bg_mov_imm(g, R1, 0);
	bg_place(g, outer);
	bg_jmp(g, J_GE, R1, -1, g->strsz - 1, no);
	mov(g, R3, R7);
	bg_emit(g, B_ALU64 | A_ADD | B_X, R3, R1, 0, 0);
	bg_mov_imm(g, R5, 0);
	for (int j = 0; j < g->strsz - 1; j++) {
		bg_emit(g, B_LDX | B_MEM | B_B, R4, b.base, b.off + j, 0);
		bg_emit(g, B_LDX | B_MEM | B_B, R0, R3, t.off + j, 0);
		bg_emit(g, B_ALU64 | A_XOR | B_X, R0, R4, 0, 0);
		alu_k(g, A_ADD, R4, 255);
		alu_k(g, A_RSH, R4, 8);
		bg_emit(g, B_ALU64 | A_MUL | B_X, R0, R4, 0, 0);
		bg_emit(g, B_ALU64 | A_OR | B_X, R5, R0, 0, 0);
	}
	bg_jmp(g, J_EQ, R5, -1, 0, yes);
	bg_emit(g, B_LDX | B_MEM | B_B, R0, R3, t.off, 0);
	bg_jmp(g, J_EQ, R0, -1, 0, no);
	alu_k(g, A_ADD, R1, 1);
	bg_ja(g, outer);
	bg_place(g, yes);   /* strpos: where it starts */
	if (pos)
		stx(g, R7, t.off, R1);
	else
		bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, t.off, 1);
	bg_ja(g, done);
	bg_place(g, no);
	bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, t.off, pos ? -1 : 0);
	bg_place(g, done);
	ldx(g, R0, R7, t.off);
}

INTRINSIC(i_isinstr)
{
	find(g, e, false);
	return true;
}

/* __bpf_known_zero(x): 1 if x is the constant 0 (seen through the
 * parameters of the functions being inlined: text_str(s) is text_strn(s,
 * 0, 0)), else 0; known when the program is made */
static int known_zero(struct bgen *g, struct expr *e)
{
	struct expr *a = bg_arg_source(g, e->args.items[0]);

	return a->kind == EXPR_NUM && a->num == 0;
}

INTRINSIC(i_known_zero)
{
	bg_mov_imm(g, R0, known_zero(g, e));
	return true;
}

INTRINSIC(i_jiffies)
{
	bg_call(g, H_JIFFIES64);
	return true;
}

/* kernel_long(addr) and its kin: one read of the type's size,
 * sign-extended but for the pointer's, as the tapset's STP_KREAD */
INTRINSIC(i_kernel_read)
{
	char msg[64];

	snprintf(msg, sizeof(msg), "kernel %s copy fault at 0x%%x [man error::fault]", in->what);
	bg_long(g, e->args.items[0]);
	bg_read_mem(g, in->size, false, msg, "identifier", e->name, e->pos);
	bg_sext(g, 8 * in->size);   /* 64 bits: nothing */
	return true;
}

/* kernel_string(addr[, err]), kernel_string_n(addr, n), user_string_n(addr, n[, err]) */
INTRINSIC(i_kernel_string)
{
	read_string(g, e, d, false, false);
	return true;
}

INTRINSIC(i_kernel_string_n)
{
	read_string(g, e, d, false, true);
	return true;
}

INTRINSIC(i_ktime_ns)   /* local_clock_ns(), cpu_clock_ns(cpu): the cpu is not read */
{
	bg_call(g, H_KTIME_NS);
	return true;
}

/* log(msg): the message and a newline */
INTRINSIC(i_log)
{
	struct bstr sv[1] = { bg_str(g, e->args.items[0]) };

	bg_record(g, REC_PRINTF, bg_fmt(g, "s", "%s\n", 3), "s", NULL, sv);
	bg_mov_imm(g, R0, 0);
	return true;
}

INTRINSIC(i_module_name)   /* the bundle's name */
{
	bg_str_literal(g, d, g->s->module_name, strlen(g->s->module_name));
	return true;
}

/* __pid_parent(pid): stapbpf reads /proc */
INTRINSIC(i_pid_parent)
{
	if (bg_user_only(g, e->pos, "the parent of a pid")) {
		bg_long(g, e->args.items[0]);
		mov(g, R1, R0);
		bg_call(g, HU_PID_PARENT);
	}
	return true;
}

/* The name in a .plt("NAME") point (the last one in pp), or NULL. */
static const char *plt_name(const char *pp, size_t *n)
{
	const char *p = NULL, *q;

	for (q = strstr(pp, ".plt(\""); q; q = strstr(q + 1, ".plt(\""))
		p = q + 6;
	if (!p)
		return NULL;
	*n = strcspn(p, "\"");
	return p;
}

static const char *plt_text(const struct bgen *g, size_t *n)
{
	*n = 0;
	return g->dp ? plt_name(g->dp->pp, n) : NULL;
}

/* __uprobe_plt_name(): the name a .plt probe's point gives, a constant */
INTRINSIC(i_plt_name)
{
	size_t len = 0;
	const char *p;

	if (!g->dp)
		return false;
	p = plt_name(g->dp->pp, &len);
	if (bg_str_fits(g, len, "$$name", e->pos))
		bg_str_literal(g, d, p ? p : "", len);
	return true;
}

static const char *point_text(const struct bgen *g, size_t *n)
{
	*n = g->dp ? strlen(g->dp->pp) : 0;
	return g->dp ? g->dp->pp : NULL;
}

/* pp(), pn(): the probe's point, a constant */
INTRINSIC(i_pp)
{
	const char *pp = g->dp->pp;
	char *what = xasprintf("%s()", e->func->name);

	if (bg_str_fits(g, strlen(pp), what, e->pos))
		bg_str_literal(g, d, pp, strlen(pp));
	free(what);
	return true;
}

/* ppfunc(): the function the point names, a constant */
INTRINSIC(i_ppfunc)
{
	const char *pp = g->dp->pp, *p = strstr(pp, "function(\"");

	if (!p)
		p = strstr(pp, "statement(\"");
	p = p ? strchr(p, '"') : strchr(pp, '"');
	p = p ? p + 1 : "";
	bg_str_literal(g, d, p, strcspn(p, "\"@"));
	return true;
}

/* probefunc(): in a probe on a kernel function's entry, its name, a
 * constant (the module symbolizes the ip, which names the same); at a
 * return the ip is the caller's (SystemTap names the caller), and
 * elsewhere it has no BPF form */
INTRINSIC(i_probefunc)
{
	bool ret = g->ctx.kretprobe || g->ctx.trampoline == 2;
	const char *f = g->user || ret ? NULL : g->ctx.func;

	if (!f) {
		bg_fail(g, e->pos, "probefunc() outside a kernel function's entry has no BPF form yet");
		return true;
	}
	bg_str_literal(g, d, f, strlen(f));
	return true;
}

INTRINSIC(i_print_backtrace)
{
	bg_print_backtrace(g, e->pos);
	return true;
}

/* print_ubacktrace(): the module runtime's lines (ustack.c) */
INTRINSIC(i_print_ubacktrace)
{
	bg_print_ustack(g, e->pos, 0, 0);
	return true;
}

/* _d_print_ustack(frames): dtrace's ustack(), DTrace's lines, at most
 * frames of them (a constant; 0 all) */
INTRINSIC(i_d_print_ustack)
{
	struct expr *n = bg_arg_source(g, e->args.items[0]);

	if (n->kind != EXPR_NUM) {
		bg_fail(g, n->pos, "ustack()'s frames has no BPF form unless a constant");
		return true;
	}
	bg_print_ustack(g, e->pos, 1, n->num > 0 ? (int)n->num : 0);
	return true;
}

/* probemod(): a kprobe's module, a constant the family gives (g->ctx) */
INTRINSIC(i_probemod)
{
	size_t len = g->ctx.module_len;
	bool none = (g->user && !g->user_timer) || g->ctx.user;
	const char *mod = !g->user ? g->ctx.module : NULL;

	if (none)   /* the module's error: no registers, or user-mode ones */
		bg_error_near(g, "Cannot determine the module of this probe point", "identifier", e->name,
			      e->pos);
	else if (!mod)
		bg_fail(g, e->pos, "probemod() in a %s probe has no BPF form yet", g->dp ? g->dp->prov->name : "begin");
	else
		bg_str_literal(g, d, mod, len);
	return true;
}

INTRINSIC(i_probe_type)   /* a constant of the probe */
{
	const char *type = probe_type_name(g->dp);

	bg_str_literal(g, d, type, strlen(type));
	return true;
}

/* __procfs_reading(): whether a procfs probe's file is being read */
INTRINSIC(i_procfs_reading)
{
	bg_mov_imm(g, R0, 0);
	if (g->user) {
		bg_mov_imm(g, R1, PROCFS_ACTIVE);
		bg_call(g, HU_PROCFS);
	}
	return true;
}

/* __procfs_set(text), __procfs_append(text): no kernel program has a file
 * to fill */
static void procfs_write(struct bgen *g, struct expr *e, int how)
{
	struct bstr v = bg_str(g, e->args.items[0]);

	if (g->user) {
		bg_mov_imm(g, R1, how);
		str_addr(g, R2, v);
		bg_call(g, HU_PROCFS);
	}
}

INTRINSIC(i_procfs_append)
{
	procfs_write(g, e, PROCFS_APPEND);
	return true;
}

INTRINSIC(i_procfs_set)
{
	procfs_write(g, e, PROCFS_SET);
	return true;
}

INTRINSIC(i_procfs_value)   /* at most 63 bytes of it */
{
	bg_str_zero(g, d);
	if (g->user) {
		bg_mov_imm(g, R1, PROCFS_VALUE);
		str_addr(g, R2, d);
		bg_call(g, HU_PROCFS);
	}
	return true;
}

/* randint(n): as random.stp: 32 random bits times n, the high half; n at
 * most 2^20 (unsigned: a negative n is too wide too) */
INTRINSIC(i_randint)
{
	int v = bg_stack(g), fine = bg_label(g);

	bg_long(g, e->args.items[0]);
	stx(g, R10, v, R0);
	bg_jmp(g, J_LE, R0, -1, 1048576, fine);
	bg_error_near(g, "range too wide", "identifier", e->name, e->pos);
	bg_place(g, fine);
	bg_call(g, H_PRANDOM_U32);
	ldx(g, R1, R10, v);
	alu_x(g, A_MUL, R0, R1);
	alu_k(g, A_RSH, R0, 32);
	return true;
}

INTRINSIC(i_reg_arg)
{
	reg_arg(g, e);
	return true;
}

/* regparm(n): a kernel probe's regparm is the default: n checked only */
INTRINSIC(i_regparm)
{
	int v = bg_stack(g), fine = bg_label(g), bad = bg_label(g);
	struct expr *n = e->args.items[0];

	if (g->ctx.user && !(n->kind == EXPR_NUM && !n->num)) {
		bg_fail(g, e->pos, "regparm() in a process probe has no BPF form yet");
		return true;
	}
	bg_long(g, n);
	stx(g, R10, v, R0);
	bg_jmp(g, J_SLT, R0, -1, 0, bad);
	bg_jmp(g, J_SLE, R0, -1, 3, fine);
	bg_place(g, bad);
	error_value(g, "regparm value out of range: %d", v);
	bg_place(g, fine);
	bg_mov_imm(g, R0, 0);
	return true;
}

INTRINSIC(i_registers_valid)   /* the probe has pt_regs */
{
	if (g->user_timer)
		bg_fail(g, e->pos, "registers_valid() in a timer probe that stapbpf runs in user space");
	bg_mov_imm(g, R0, !g->user && !g->ctx_args);
	return true;
}

INTRINSIC(i_returnval)   /* rax, of the context's pt_regs */
{
	if (g->user || g->ctx_args)
		bg_error_near(g, "cannot access function return value (no registers)", "identifier", e->name,
			      e->pos);
	else
		ldx(g, R0, R6, 80);
	return true;
}

/* __sc_t_NAME(v, bits): a decoding table of the generated syscall tapset,
 * walked in BPF; the table is the function's (bits a constant) */
INTRINSIC(i_sc_decode)
{
	static const char prefix[] = "__sc_t_";
	const struct sc_dec_table *t;
	struct expr *bits = bg_arg_source(g, e->args.items[1]);
	int v;

	if (strncmp(e->func->name, prefix, sizeof(prefix) - 1) || bits->kind != EXPR_NUM ||
	    !(t = syscalls_decoder_table(g->s, e->func->name + sizeof(prefix) - 1)))
		return false;
	v = bg_stack(g);
	bg_long(g, e->args.items[0]);
	stx(g, R10, v, R0);
	bg_sc_decode(g, t, v, bits->num, d);
	return true;
}

INTRINSIC(i_strmax)   /* MAXSTRINGLEN as BPF's strings have it: 63 bytes and the NUL */
{
	bg_mov_imm(g, R0, g->strsz);
	return true;
}

INTRINSIC(i_strlen)
{
	struct bstr s = bg_str(g, e->args.items[0]), t = scratch_str(g);
	int pos = bg_label(g);

	str_addr(g, R1, t);
	bg_mov_imm(g, R2, g->strsz);
	str_addr(g, R3, s);
	bg_call(g, H_READ_KERNEL_STR);
	alu_k(g, A_ADD, R0, -1);
	bg_jmp(g, J_SGE, R0, -1, 0, pos);
	bg_mov_imm(g, R0, 0);
	bg_place(g, pos);
	return true;
}

INTRINSIC(i_strpos)
{
	find(g, e, true);
	return true;
}

/* stringat(s, i): a byte before the string's NUL: the slot is NUL-padded,
 * so a non-zero byte is one */
INTRINSIC(i_stringat)
{
	struct bstr s = bg_str(g, e->args.items[0]), ts = scratch_str(g);
	int bad = bg_label(g), done = bg_label(g);

	bg_str_copy(g, ts, s);
	bg_long(g, e->args.items[1]);
	bg_jmp(g, J_SLT, R0, -1, 0, bad);
	bg_jmp(g, J_SGT, R0, -1, g->strsz - 1, bad);
	alu_k(g, A_AND, R0, g->strsz - 1);
	str_byte(g, R0, R1, ts, R0);
	bg_jmp(g, J_NE, R0, -1, 0, done);
	bg_place(g, bad);
	bg_error_near(g, "Position out of bounds", "identifier", e->name, e->pos);
	bg_place(g, done);
	return true;
}

INTRINSIC(i_substr)
{
	substr(g, e, d);
	return true;
}

INTRINSIC(i_symdata)
{
	bg_ksym(g, e->args.items[0], true, d, e->pos);
	return true;
}

INTRINSIC(i_symname)
{
	bg_ksym(g, e->args.items[0], false, d, e->pos);
	return true;
}

/* system(cmd): stapbpf runs it (REC_SYSTEM) */
INTRINSIC(i_system)
{
	struct bstr sv[1] = { bg_str(g, e->args.items[0]) };

	bg_record(g, REC_SYSTEM, bg_fmt(g, "s", "%s", 2), "s", NULL, sv);
	return true;
}

INTRINSIC(i_target)   /* stapbpf's -x or -c pid, in @config */
{
	int found = bg_label(g);

	bg_lookup0(g, g->config_map);
	bg_jmp(g, J_EQ, R0, -1, 0, found);
	ldx(g, R0, R0, 0);
	bg_place(g, found);
	return true;
}

/* __bpf_text_str(s, quoted): text_str(s), string_quoted(s) (bg_text_str);
 * quoted is a constant, or both forms are made */
INTRINSIC(i_text_str)
{
	struct expr *q = bg_arg_source(g, e->args.items[1]);
	struct bstr s = bg_str(g, e->args.items[0]);

	if (q->kind == EXPR_NUM) {
		bg_text_str(g, s, q->num != 0, d);
	} else {
		int plain = bg_label(g), done = bg_label(g);
		struct bstr ts = scratch_str(g);
		bg_str_copy(g, ts, s);
		bg_long(g, e->args.items[1]);
		bg_jmp(g, J_EQ, R0, -1, 0, plain);
		bg_text_str(g, ts, true, d);
		bg_ja(g, done);
		bg_place(g, plain);
		bg_text_str(g, ts, false, d);
		bg_place(g, done);
	}
	return true;
}

INTRINSIC(i_tgid)   /* pid() */
{
	bg_call(g, H_PID_TGID);
	alu_k(g, A_RSH, R0, 32);
	return true;
}

INTRINSIC(i_tid)
{
	bg_call(g, H_PID_TGID);
	bg_emit(g, B_ALU | A_MOV | B_X, R0, R0, 0, 0);   /* the low 32 bits */
	return true;
}

/* tolower(s), toupper(s): a copy, then each byte in range flipped: no loop
 * for the verifier */
static void flip_case(struct bgen *g, struct expr *e, struct bstr d, int lo)
{
	bg_str_copy(g, d, bg_str(g, e->args.items[0]));
	for (int i = 0; i < g->strsz - 1; i++) {
		int skip = bg_label(g);
		bg_emit(g, B_LDX | B_MEM | B_B, R1, d.base, d.off + i, 0);
		bg_jmp(g, J_LT, R1, -1, lo, skip);
		bg_jmp(g, J_GT, R1, -1, lo + 25, skip);
		alu_k(g, A_XOR, R1, 0x20);
		bg_emit(g, B_STX | B_MEM | B_B, d.base, R1, d.off + i, 0);
		bg_place(g, skip);
	}
}

INTRINSIC(i_tolower)
{
	flip_case(g, e, d, 'A');
	return true;
}

INTRINSIC(i_toupper)
{
	flip_case(g, e, d, 'a');
	return true;
}

INTRINSIC(i_tz_gmtoff)   /* stapbpf's zone, in @config */
{
	int none = bg_label(g);

	bg_lookup0(g, g->config_map);
	bg_jmp(g, J_EQ, R0, -1, 0, none);
	ldx(g, R0, R0, 32);
	bg_place(g, none);
	return true;
}

INTRINSIC(i_tz_name)   /* 15 bytes at @config's 40 */
{
	int none = bg_label(g);

	bg_str_zero(g, d);
	bg_lookup0(g, g->config_map);
	bg_jmp(g, J_EQ, R0, -1, 0, none);
	for (int i = 0; i < 16; i += 8) {
		ldx(g, R1, R0, 40 + i);
		stx(g, d.base, d.off + i, R1);
	}
	bg_emit(g, B_ST | B_MEM | B_B, d.base, 0, d.off + 15, 0);
	bg_place(g, none);
	return true;
}

INTRINSIC(i_uaddr)
{
	user_ip(g);
	return true;
}

INTRINSIC(i_uid)
{
	bg_call(g, H_UID_GID);
	bg_emit(g, B_ALU | A_MOV | B_X, R0, R0, 0, 0);   /* the low 32 bits */
	return true;
}

/* __bpf_user_program(): 1 in a program stapbpf runs (begin, end, error,
 * procfs, a timer it runs), 0 in a kernel one: known when it is made */
static int user_program(struct bgen *g, struct expr *e UNUSED)
{
	return g->user;
}

INTRINSIC(i_user_program)
{
	bg_mov_imm(g, R0, g->user);
	return true;
}

INTRINSIC(i_user_mode)   /* the pt_regs' cs: ring 3 */
{
	if (g->user || g->ctx_args) {
		bg_mov_imm(g, R0, 0);
	} else {
		int yes = bg_label(g);
		ldx(g, R0, R6, 136);
		alu_k(g, A_AND, R0, 3);
		bg_mov_imm(g, R1, 1);
		bg_jmp(g, J_NE, R0, -1, 0, yes);
		bg_mov_imm(g, R1, 0);
		bg_place(g, yes);
		mov(g, R0, R1);
	}
	return true;
}

/* user_int_error(addr) and its kin of a fixed size (not long, ulong: 32
 * bits in a 32-bit task): one read of the current task's memory, the
 * module's fault as the error (tapsets/uconversions.stp's STP_UREAD) */
INTRINSIC(i_user_read)
{
	bg_long(g, e->args.items[0]);
	bg_read_mem(g, in->size, true, "read fault [man error::fault] at 0x%x", "identifier", e->name, e->pos);
	if (in->sign)
		bg_sext(g, 8 * in->size);
	return true;
}

INTRINSIC(i_user_string_n)
{
	read_string(g, e, d, true, true);
	return true;
}

INTRINSIC(i_wallclock_ns)   /* gettimeofday_ns() */
{
	if (g->user)
		bg_call(g, HU_REALTIME_NS);
	else
		wall_clock(g, e->pos);
	return true;
}

INTRINSIC(i_warn)
{
	struct bstr sv[1] = { bg_str(g, e->args.items[0]) };

	bg_record(g, REC_WARN, bg_fmt(g, "s", "%s\n", 3), "s", NULL, sv);
	return true;
}

/* stderr_print(msg): the text on stderr as it is */
INTRINSIC(i_stderr_print)
{
	struct bstr sv[1] = { bg_str(g, e->args.items[0]) };

	bg_record(g, REC_STDERR, bg_fmt(g, "s", "%s", 2), "s", NULL, sv);
	return true;
}

/* The table, sorted by name (bsearch; elaborate_test checks the order). */
#define L TYPE_LONG
#define S TYPE_STRING
static const struct bpf_intrinsic intrinsics[] = {
	{ "abort", L, i_abort },
	{ "addr", L, i_addr },
	{ "asmlinkage", L, i_asmlinkage },
	{ "comm", S, i_comm },
	{ "cpu", L, i_cpu },
	{ "current_task", L, i_current_task },
	{ "d_print_ustack", L, i_d_print_ustack },
	{ "error", L, i_error },
	{ "exit", L, i_exit },
	{ "exit_status", L, i_exit_status },
	{ "fastcall", L, i_fastcall },
	{ "gid", L, i_gid },
	{ "input_line_done", L, i_input_line_done },
	{ "isdigit", L, i_isdigit },
	{ "isinstr", L, i_isinstr },
	{ "jiffies", L, i_jiffies },
	{ "kernel_char", L, i_kernel_read, 1, true, "char" },
	{ "kernel_int", L, i_kernel_read, 4, true, "int" },
	{ "kernel_long", L, i_kernel_read, 8, true, "long" },
	{ "kernel_pointer", L, i_kernel_read, 8, false, "pointer" },
	{ "kernel_short", L, i_kernel_read, 2, true, "short" },
	{ "kernel_string", S, i_kernel_string, .reads_string = true },
	{ "kernel_string_n", S, i_kernel_string_n, .reads_string = true },
	{ "known_zero", L, i_known_zero, .fixed = known_zero },
	{ "ktime_ns", L, i_ktime_ns },
	{ "log", L, i_log },
	{ "module_name", S, i_module_name },
	{ "pid_parent", L, i_pid_parent },
	{ "plt_name", S, i_plt_name, .text = plt_text },
	{ "pp", S, i_pp, .text = point_text },
	{ "ppfunc", S, i_ppfunc },
	{ "print_backtrace", L, i_print_backtrace },
	{ "print_ubacktrace", L, i_print_ubacktrace },
	{ "probe_type", S, i_probe_type },
	{ "probefunc", S, i_probefunc },
	{ "probemod", S, i_probemod },
	{ "procfs_append", L, i_procfs_append },
	{ "procfs_reading", L, i_procfs_reading },
	{ "procfs_set", L, i_procfs_set },
	{ "procfs_value", S, i_procfs_value },
	{ "randint", L, i_randint },
	{ "reg_arg", L, i_reg_arg },
	{ "register", L, register_value },
	{ "registers_valid", L, i_registers_valid },
	{ "regparm", L, i_regparm },
	{ "returnval", L, i_returnval },
	{ "sc_decode", S, i_sc_decode },
	{ "stderr_print", L, i_stderr_print },
	{ "stringat", L, i_stringat, .scans_string = true },
	{ "strlen", L, i_strlen, .scans_string = true },
	{ "strmax", L, i_strmax },
	{ "strpos", L, i_strpos },
	{ "substr", S, i_substr, .scans_string = true },
	{ "symdata", S, i_symdata },
	{ "symname", S, i_symname },
	{ "system", L, i_system },
	{ "target", L, i_target },
	{ "text_str", S, i_text_str },
	{ "tgid", L, i_tgid },
	{ "tid", L, i_tid },
	{ "tolower", S, i_tolower },
	{ "toupper", S, i_toupper },
	{ "tz_gmtoff", L, i_tz_gmtoff },
	{ "tz_name", S, i_tz_name },
	{ "uaddr", L, i_uaddr },
	{ "uid", L, i_uid },
	{ "user_mode", L, i_user_mode },
	{ "user_program", L, i_user_program, .fixed = user_program },
	{ "user_s16", L, i_user_read, 2, true },
	{ "user_s32", L, i_user_read, 4, true },
	{ "user_s64", L, i_user_read, 8, true },
	{ "user_s8", L, i_user_read, 1, true },
	{ "user_string_n", S, i_user_string_n, .reads_string = true },
	{ "user_u16", L, i_user_read, 2, false },
	{ "user_u32", L, i_user_read, 4, false },
	{ "user_u8", L, i_user_read, 1, false },
	{ "wallclock_ns", L, i_wallclock_ns },
	{ "warn", L, i_warn },
};
#undef L
#undef S

static int by_name(const void *key, const void *entry)
{
	return strcmp(key, ((const struct bpf_intrinsic *)entry)->name);
}

const struct bpf_intrinsic *bpf_intrinsic_find(const char *name)
{
	return bsearch(name, intrinsics, sizeof(intrinsics) / sizeof(intrinsics[0]), sizeof(intrinsics[0]),
		       by_name);
}

const char *bpf_intrinsic_name(size_t i)
{
	return i < sizeof(intrinsics) / sizeof(intrinsics[0]) ? intrinsics[i].name : NULL;
}

/* The intrinsic a pragma names (bpf:NAME, n bytes), or NULL. */
static const struct bpf_intrinsic *intrinsic_named(const char *pragma, size_t n)
{
	static const char tag[] = "bpf:";
	char name[64];

	if (n <= sizeof(tag) - 1 || n - (sizeof(tag) - 1) >= sizeof(name) || strncmp(pragma, tag, sizeof(tag) - 1))
		return NULL;
	memcpy(name, pragma + sizeof(tag) - 1, n - (sizeof(tag) - 1));
	name[n - (sizeof(tag) - 1)] = '\0';
	return bpf_intrinsic_find(name);
}

/* The intrinsic f's / * bpf:NAME * / pragma names, or NULL. */
static const struct bpf_intrinsic *intrinsic_of(const struct func *f)
{
	const struct bpf_intrinsic *in = NULL;

	for (int i = 0; f && !in && i < f->pragmas.len; i++)
		in = intrinsic_named(f->pragmas.items[i], strlen(f->pragmas.items[i]));
	return in;
}

/* Does in read the probe's registers (a kprobe's pt_regs)? A BPF
 * trampoline's context has the function's arguments instead: there it
 * has no form, and the probe is made on its kprobe (stmt.c). */
static bool reads_registers(const struct bpf_intrinsic *in)
{
	static const char *const names[] = { "reg_arg", "register", "registers_valid", "returnval", "user_mode" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(in->name, names[i]))
			return true;
	return false;
}

bool bg_intrinsic_call(struct bgen *g, struct expr *e, struct bstr *out)
{
	const struct bpf_intrinsic *in = intrinsic_of(e->func);
	struct bstr d = { R7, 0 };

	/* a string function's intrinsic makes a string, any other's a long */
	if (!in || (in->ret == TYPE_STRING) != (e->func->ret == TYPE_STRING) ||
	    (g->ctx.trampoline && reads_registers(in)))
		return false;
	if (in->ret == TYPE_STRING) {
		d = scratch_str(g);
		bg_scratch(g, g->strsz);   /* room past d for the verifier's bound */
	}
	if (!in->emit(g, in, e, d))
		return false;
	if (in->ret == TYPE_STRING && out)
		*out = d;
	return true;
}

bool bg_intrinsic_embedded(struct bgen *g, struct expr *e)
{
	const struct bpf_intrinsic *in = NULL;
	const char *p = e->str, *w;
	size_t n;

	while (!in && (w = pragma_next(&p, &n)))
		in = intrinsic_named(w, n);
	return in && in->ret == TYPE_LONG && !(g->ctx.trampoline && reads_registers(in)) &&
	       in->emit(g, in, e, (struct bstr){ R7, 0 });
}

int bg_intrinsic_fixed(struct bgen *g, struct expr *e)
{
	const struct bpf_intrinsic *in = e->kind == EXPR_CALL ? intrinsic_of(e->func) : NULL;

	return in && in->fixed ? in->fixed(g, e) : -1;
}

const char *bg_intrinsic_text(const struct bgen *g, const struct expr *e, size_t *n)
{
	const struct bpf_intrinsic *in = e->kind == EXPR_CALL ? intrinsic_of(e->func) : NULL;

	return in && in->text && !e->args.len ? in->text(g, n) : NULL;
}

bool bg_intrinsic_into(struct bgen *g, struct expr *e, struct bstr d, int n)
{
	const struct bpf_intrinsic *in = e->kind == EXPR_CALL ? intrinsic_of(e->func) : NULL;

	if (!in || in->emit != i_comm || n != 16)
		return false;
	bg_comm_into(g, d);
	return true;
}

int bg_intrinsic_str_bound(const struct expr *e)
{
	const struct bpf_intrinsic *in = e->kind == EXPR_CALL ? intrinsic_of(e->func) : NULL;

	return in && in->emit == i_comm ? 16 : 0;   /* a task's comm: TASK_COMM_LEN */
}

bool bpf_intrinsic_reads_string(const struct func *f)
{
	const struct bpf_intrinsic *in = intrinsic_of(f);

	return in && in->reads_string;
}

bool bpf_intrinsic_scans_string(const struct func *f)
{
	const struct bpf_intrinsic *in = intrinsic_of(f);

	return in && in->scans_string;
}
