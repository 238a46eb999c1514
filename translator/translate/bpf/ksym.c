/* ksym.c - symname() and symdata() with --runtime=bpf: the name of a
 * kernel address as the module runtime gives it (runtime/symbols.h),
 * "vfs_read", "vfs_read+0x0/0x150 [kernel]", or the address in hex.
 *
 * A kernel probe has the kernel's own %ps and %pS through bpf_snprintf
 * (Linux 5.13), whose format has to sit in a map the programs can only
 * read, frozen before they load: @rodata, which holds "%ps" at offset 0
 * and "%pS" at 4 (stapbpf fills and freezes it, doc/bpf-bundle.md).
 * stapbpf's interpreter (begin, end, its timers) looks the address up in
 * /proc/kallsyms itself (HU_KSYM), and gives the finished string.
 *
 * print_backtrace() sends the kernel's stack (bpf_get_stack: the
 * context's ip, then the unwinder's return addresses, as the module's
 * stp_backtrace) in a STACK record, and stapbpf prints its lines.
 */
#include <string.h>

#include "probes/provider.h"
#include "translate/bpf/gen.h"

/* @rodata's contents, when a program uses it: the formats of a kernel
 * symbol's name, with and without its offset */
void bg_ksym_rodata(struct bgen *g)
{
	static const char text[] = "%ps\0%pS";

	if (g->rodata_map >= 0)
		vec_push(&g->u->rodata, ((struct bpf_bytes){ g->rodata_map, text, sizeof(text) }));
}

/* d's bytes from its first space on zeroed ("name [module]" to "name"),
 * without a branch per byte: keep (r2) falls to 0 at the space and stays. */
static void cut_at_space(struct bgen *g, struct bstr d)
{
	bg_mov_imm(g, R2, 1);
	for (int j = 0; j < g->strsz - 1; j++) {
		bg_emit(g, B_LDX | B_MEM | B_B, R1, d.base, d.off + j, 0);
		mov(g, R3, R1);
		alu_k(g, A_XOR, R3, ' ');
		alu_k(g, A_ADD, R3, 255);
		alu_k(g, A_RSH, R3, 8);
		bg_emit(g, B_ALU64 | A_AND | B_X, R2, R3, 0, 0);
		bg_emit(g, B_ALU64 | A_MUL | B_X, R1, R2, 0, 0);
		bg_emit(g, B_STX | B_MEM | B_B, d.base, R1, d.off + j, 0);
	}
}

/* d = raw, or raw + " [kernel]" when it names a symbol of the kernel
 * itself: neither hex ("0x...") nor ending in a module's "]"; r0 is
 * bpf_snprintf's length with the NUL. */
static void kernel_suffix(struct bgen *g, struct bstr raw, struct bstr d, struct srcpos pos)
{
	int keep = bg_label(g), done = bg_label(g);

	alu_k(g, A_SUB, R0, 2);
	bg_jmp(g, J_GT, R0, -1, g->strsz - 2, keep);   /* an error, or cut */
	mov(g, R2, raw.base);
	alu_k(g, A_ADD, R2, raw.off);
	bg_emit(g, B_ALU64 | A_ADD | B_X, R2, R0, 0, 0);
	bg_emit(g, B_LDX | B_MEM | B_B, R3, R2, 0, 0);
	bg_jmp(g, J_EQ, R3, -1, ']', keep);
	bg_emit(g, B_LDX | B_MEM | B_H, R3, raw.base, raw.off, 0);
	bg_jmp(g, J_EQ, R3, -1, 'x' << 8 | '0', keep);
	bg_kformat(g, "%s [kernel]", 11, "s", NULL, &raw, d, pos);
	bg_ja(g, done);
	bg_place(g, keep);
	bg_str_copy(g, d, raw);
	bg_place(g, done);
}

/* d = symname(addr) (data false) or symdata(addr) (data true). */
void bg_ksym(struct bgen *g, struct expr *addr, bool data, struct bstr d, struct srcpos pos)
{
	int at = bg_stack(g), none = bg_label(g);
	struct bstr raw = data ? scratch_str(g) : d;

	bg_long(g, addr);
	stx(g, R10, at, R0);
	if (g->user) {
		mov(g, R1, d.base);
		alu_k(g, A_ADD, R1, d.off);
		ldx(g, R2, R10, at);
		bg_mov_imm(g, R3, data);
		bg_call(g, HU_KSYM);
		return;
	}
	if (!bg_kernel_at_least(g->s, 5, 13)) {
		bg_fail(g, pos, "%s() needs Linux 5.13 (bpf_snprintf) with --runtime=bpf",
			data ? "symdata" : "symname");
		return;
	}
	if (g->rodata_map < 0)
		g->rodata_map = bg_map(g, "rodata", "i", "l", 1, "@rodata");
	bg_str_zero(g, raw);
	bg_lookup0(g, g->rodata_map);
	bg_jmp(g, J_EQ, R0, -1, 0, none);
	mov(g, R3, R0);
	if (data)
		alu_k(g, A_ADD, R3, 4);
	mov(g, R1, raw.base);
	alu_k(g, A_ADD, R1, raw.off);
	bg_mov_imm(g, R2, g->strsz);
	mov(g, R4, R10);
	alu_k(g, A_ADD, R4, at);
	bg_mov_imm(g, R5, 8);
	bg_call(g, H_SNPRINTF);
	bg_place(g, none);
	if (data)
		kernel_suffix(g, raw, d, pos);
	else
		cut_at_space(g, d);
}

/* print_backtrace(): a STACK record of the tag, the stack's size in bytes
 * (or bpf_get_stack's error) and the frames, the first one addr() (the
 * kernel's is a kprobe's ip, past its breakpoint). In a return probe the
 * tag names the program (its ID + 1), whose function stapbpf prints as
 * SystemTap does ("Returning from: "). Only where the context has the
 * registers: a tracepoint's stack starts in BPF's own code. */
void bg_print_backtrace(struct bgen *g, struct srcpos pos)
{
	int size = 16 + 8 * BPF_STACK_FRAMES, none = bg_label(g), empty = bg_label(g);

	if (g->user || g->ctx_args || !g->dp) {
		bg_fail(g, pos, "print_backtrace() has no BPF form here (a probe without the "
			"registers of a kernel context: begin, end, a timer stapbpf runs, a tracepoint)");
		return;
	}
	bg_rb_begin(g, size, REC_STACK | (!g->ctx.kretprobe ? 0 : (int64_t)(g->u->progs.len + 1) << 32), none);
	mov(g, R1, R6);
	mov(g, R2, R9);
	alu_k(g, A_ADD, R2, 16);
	bg_mov_imm(g, R3, 8 * BPF_STACK_FRAMES);
	bg_mov_imm(g, R4, 0);
	bg_call(g, H_GET_STACK);
	stx(g, R9, 8, R0);
	bg_jmp(g, J_SLE, R0, -1, 0, empty);
	if (bg_probe_addr(g))
		stx(g, R9, 16, R0);
	bg_place(g, empty);
	mov(g, R1, R9);
	bg_mov_imm(g, R2, 0);
	bg_call(g, H_RB_SUBMIT);
	bg_place(g, none);
}
