/* ustack.c - print_ubacktrace() with --runtime=bpf: the kernel gives the
 * user stack's return addresses (bpf_get_stack with BPF_F_USER_STACK: the
 * frame pointers' chain, as perf's user callchain), stapbpf names them
 * from the process's mappings and its files' symbols (stapbpf/bpf_usym.c)
 * when it reads the record, while the process normally still runs.
 */
#include "probes/provider.h"
#include "translate/bpf/gen.h"

/* A USTACK record: BPF_USTACK_TAG(style, frames), the process's ID, the
 * stack's size in bytes (or the helper's error) and the frames. Any
 * kernel context has the task's user registers (a tracepoint's too); a
 * probe stapbpf runs in user space has no task of its own. */
void bg_print_ustack(struct bgen *g, struct srcpos pos, int style, int frames)
{
	int size = 24 + 8 * BPF_STACK_FRAMES, none = bg_label(g);

	if (g->user) {
		bg_fail(g, pos, "a user stack has no BPF form here (a probe stapbpf runs in user "
			"space: begin, end, a timer of its own)");
		return;
	}
	if (frames < 0 || frames > BPF_STACK_FRAMES)
		frames = BPF_STACK_FRAMES;
	bg_rb_begin(g, size, (int64_t)BPF_USTACK_TAG(style, frames), none);
	bg_call(g, H_PID_TGID);
	alu_k(g, A_RSH, R0, 32);
	stx(g, R9, 8, R0);
	mov(g, R1, R6);
	mov(g, R2, R9);
	alu_k(g, A_ADD, R2, 24);
	bg_mov_imm(g, R3, 8 * BPF_STACK_FRAMES);
	bg_mov_imm(g, R4, 256);   /* BPF_F_USER_STACK */
	bg_call(g, H_GET_STACK);
	stx(g, R9, 16, R0);
	mov(g, R1, R9);
	bg_mov_imm(g, R2, 0);
	bg_call(g, H_RB_SUBMIT);
	bg_place(g, none);
}
