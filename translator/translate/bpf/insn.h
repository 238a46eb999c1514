/* insn.h - eBPF instruction encoding for the BPF backend (the kernel's
 * include/uapi/linux/bpf.h numbers, written out: the translator does not
 * need kernel headers). */
#ifndef CSTAP_BPF_INSN_H
#define CSTAP_BPF_INSN_H

#include <stdint.h>

struct binsn {
	uint8_t code;
	uint8_t dst, src;
	int16_t off;
	int32_t imm;
};

/* classes */
enum { B_LD = 0x00, B_LDX = 0x01, B_ST = 0x02, B_STX = 0x03, B_ALU = 0x04, B_JMP = 0x05,
       B_ALU64 = 0x07 };
/* sizes and modes */
enum { B_W = 0x00, B_H = 0x08, B_B = 0x10, B_DW = 0x18, B_IMM = 0x00, B_MEM = 0x60,
       B_ATOMIC = 0xc0 };
/* operand source */
enum { B_K = 0x00, B_X = 0x08 };
/* ALU operations */
enum { A_ADD = 0x00, A_SUB = 0x10, A_MUL = 0x20, A_DIV = 0x30, A_OR = 0x40, A_AND = 0x50,
       A_LSH = 0x60, A_RSH = 0x70, A_NEG = 0x80, A_MOD = 0x90, A_XOR = 0xa0, A_MOV = 0xb0,
       A_ARSH = 0xc0, A_END = 0xd0 };
/* jumps */
enum { J_JA = 0x00, J_EQ = 0x10, J_GT = 0x20, J_GE = 0x30, J_SET = 0x40, J_NE = 0x50,
       J_SGT = 0x60, J_SGE = 0x70, J_CALL = 0x80, J_EXIT = 0x90, J_LT = 0xa0, J_LE = 0xb0,
       J_SLT = 0xc0, J_SLE = 0xd0 };
/* atomic operations (imm of a B_ATOMIC store) */
enum { AT_ADD = 0x00, AT_FETCH = 0x01, AT_XCHG = 0xe1, AT_CMPXCHG = 0xf1 };
#define B_PSEUDO_MAP_FD 1
#define B_PSEUDO_FUNC 4   /* a 64-bit immediate load of a function's address (a callback) */

/* registers */
enum { R0, R1, R2, R3, R4, R5, R6, R7, R8, R9, R10 };

#include "bpf_proto.h"   /* helpers, record kinds, BPF_STRSZ: shared with stapbpf */

#define BPF_STACK 512

#endif
