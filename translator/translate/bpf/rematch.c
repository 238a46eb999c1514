/* rematch.c - s =~ "re" in BPF. The module runs the regular expression's
 * program (translator/regex.c) by backtracking; BPF cannot (no stack, a
 * verifier that walks every path), so here the same program runs as a set
 * of states, one bit per instruction, stepped once per byte of s with code
 * that has no branch but the loop's: what each state leads to without
 * consuming a byte (SPLIT, JMP, SAVE, and ^ and $ where they hold) is
 * worked out here, and whether a byte matches a CHAR or CLASS is
 * arithmetic. A search: a new thread starts at every position. Only the
 * answer; matched() and its groups are the module's.
 */
#include <string.h>

#include "regex.h"
#include "translate/bpf/gen.h"

#define MAX_STATES 63

/* The consuming and MATCH instructions reached from pc without consuming a
 * byte, at the start of the subject (bol) and at its end (eol). */
static uint64_t closure(const struct regex_prog *re, int pc, bool bol, bool eol, uint64_t *seen)
{
	const struct regex_insn *in;

	if (pc < 0 || pc >= re->ninsns || (*seen >> pc & 1))
		return 0;
	*seen |= 1ULL << pc;
	in = &re->prog[pc];
	switch (in->op) {
	case REGEX_SPLIT:
		return closure(re, pc + in->x, bol, eol, seen) | closure(re, pc + in->y, bol, eol, seen);
	case REGEX_JMP:
		return closure(re, pc + in->x, bol, eol, seen);
	case REGEX_SAVE:
		return closure(re, pc + 1, bol, eol, seen);
	case REGEX_BOL:
		return bol ? closure(re, pc + 1, bol, eol, seen) : 0;
	case REGEX_EOL:
		return eol ? closure(re, pc + 1, bol, eol, seen) : 0;
	default:
		return 1ULL << pc;
	}
}

/* r4 = the closure of the states in r3 (r0, r5 clobbered) */
static void step_closure(struct bgen *g, const struct regex_prog *re, bool bol, bool eol)
{
	bg_mov_imm(g, R4, 0);
	for (int pc = 0; pc < re->ninsns; pc++) {
		uint64_t seen = 0, to = closure(re, pc, bol, eol, &seen);
		if (!to)
			continue;
		/* to, times 1 if pc is a state, else 0: a product, where a
		 * mask (-bit & to) makes newer verifiers walk both values */
		mov(g, R5, R3);
		alu_k(g, A_RSH, R5, pc);
		alu_k(g, A_AND, R5, 1);
		bg_mov_imm(g, R0, (int64_t)to);
		alu_x(g, A_MUL, R5, R0);
		alu_x(g, A_OR, R4, R5);
	}
}

/* r0 = 1 if the byte in r2 is in [lo, hi], else 0, without a branch */
static void in_range(struct bgen *g, int lo, int hi)
{
	mov(g, R0, R2);
	alu_k(g, A_ADD, R0, -lo);           /* below lo: negative */
	bg_mov_imm(g, R5, hi);
	alu_x(g, A_SUB, R5, R2);            /* above hi: negative */
	alu_x(g, A_OR, R0, R5);
	alu_k(g, A_RSH, R0, 63);
	alu_k(g, A_XOR, R0, 1);
}

/* r4 = the states after the byte in r2, from the closure in r3 (r0, r5
 * and the stack slot acc clobbered) */
static void step_byte(struct bgen *g, const struct regex_prog *re, int acc)
{
	bg_mov_imm(g, R4, 1);   /* a new thread at the next position: pc 0 */
	for (int pc = 0; pc < re->ninsns; pc++) {
		const struct regex_insn *in = &re->prog[pc];
		if (in->op == REGEX_CHAR) {
			in_range(g, in->arg, in->arg);
		} else if (in->op == REGEX_ANY) {
			bg_mov_imm(g, R0, 1);
		} else if (in->op == REGEX_CLASS) {
			/* the class as ranges, their tests ORed in acc */
			const unsigned char *bits = re->cls[in->arg];
			bg_emit(g, B_ST | B_MEM | B_DW, R10, 0, acc, 0);
			for (int c = 0; c < 256;) {
				if (!(bits[c / 8] >> (c % 8) & 1)) {
					c++;
					continue;
				}
				int lo = c;
				while (c < 256 && (bits[c / 8] >> (c % 8) & 1))
					c++;
				in_range(g, lo, c - 1);
				ldx(g, R5, R10, acc);
				alu_x(g, A_OR, R5, R0);
				stx(g, R10, acc, R5);
			}
			ldx(g, R0, R10, acc);
		} else {
			continue;
		}
		mov(g, R5, R3);
		alu_k(g, A_RSH, R5, pc);
		alu_x(g, A_AND, R5, R0);
		alu_k(g, A_AND, R5, 1);
		alu_k(g, A_LSH, R5, pc + 1);
		alu_x(g, A_OR, R4, R5);
	}
}

bool bg_regex(struct bgen *g, const struct regex_prog *re, struct bstr s, struct srcpos pos)
{
	struct bstr t = { R7, bg_scratch(g, g->strsz) };
	int states = bg_scratch(g, 8), acc = bg_stack(g), last = bg_label(g), loop = bg_label(g),
	    yes = bg_label(g), no = bg_label(g), done = bg_label(g), first_end = bg_label(g);
	int matchpc = -1;

	for (int pc = 0; pc < re->ninsns; pc++)
		if (re->prog[pc].op == REGEX_MATCH)
			matchpc = pc;
	if (re->ninsns > MAX_STATES || matchpc < 0) {
		bg_fail(g, pos, "a regular expression of %d instructions has no BPF form (%d at most)", re->ninsns,
			MAX_STATES);
		return false;
	}
	bg_str_copy(g, t, s);
	/* position 0: ^ holds */
	bg_mov_imm(g, R3, 1);
	bg_emit(g, B_LDX | B_MEM | B_B, R2, t.base, t.off, 0);
	bg_jmp(g, J_EQ, R2, -1, 0, first_end);
	step_closure(g, re, true, false);
	mov(g, R3, R4);
	alu_k(g, A_RSH, R4, matchpc);
	bg_jmp(g, J_SET, R4, -1, 1, yes);
	step_byte(g, re, acc);
	mov(g, R3, R4);
	bg_mov_imm(g, R1, 1);
	/* positions 1 to 62: a loop of one bound, the states in r3 */
	bg_place(g, loop);
	bg_jmp(g, J_GE, R1, -1, g->strsz - 1, last);
	str_byte(g, R2, R5, t, R1);
	bg_jmp(g, J_EQ, R2, -1, 0, last);
	/* the states read back from memory: to the verifier one unknown
	 * value, so that one walk of each round covers every path into it */
	stx(g, R7, states, R3);
	ldx(g, R3, R7, states);
	step_closure(g, re, false, false);
	mov(g, R3, R4);
	alu_k(g, A_RSH, R4, matchpc);
	bg_jmp(g, J_SET, R4, -1, 1, yes);
	step_byte(g, re, acc);   /* r1 kept: no helper call in the loop */
	mov(g, R3, R4);
	alu_k(g, A_ADD, R1, 1);
	bg_ja(g, loop);
	/* the end of the subject: $ holds (and ^ too if it is empty). The
	 * states go through memory: the loop leaves at any round, each with
	 * its own knowledge of r3, and the verifier would walk the rest of
	 * the program once for each */
	bg_place(g, first_end);
	stx(g, R7, t.off, R3);
	ldx(g, R3, R7, t.off);
	step_closure(g, re, true, true);
	bg_ja(g, done);
	bg_place(g, last);
	stx(g, R7, t.off, R3);
	ldx(g, R3, R7, t.off);
	step_closure(g, re, false, true);
	bg_place(g, done);
	alu_k(g, A_RSH, R4, matchpc);
	bg_jmp(g, J_SET, R4, -1, 1, yes);
	bg_place(g, no);
	bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, t.off, 0);
	{
		int out = bg_label(g);
		bg_ja(g, out);
		bg_place(g, yes);
		bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, t.off, 1);
		bg_place(g, out);
	}
	ldx(g, R0, R7, t.off);   /* the answer through memory: one path on */
	return true;
}
