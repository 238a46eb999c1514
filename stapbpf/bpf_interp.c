/* bpf_interp.c - the eBPF instructions run in user space, for the begin,
 * end and error programs of a bundle. Registers hold host values and
 * pointers; a program may only load and store within its stack and the
 * regions its helpers gave it (bpf_vm.h), so a wrong program is stopped
 * with a message instead of corrupting stapbpf. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_vm.h"

/* The first failure stops the program; its message names the script position. */
void vm_fail(struct vm *vm, const char *fmt, ...)
{
	const char *pos = bundle_pos_of(vm->prog, vm->pc);
	va_list ap;

	if (vm->failed)
		return;
	vm->failed = true;
	fflush(NULL);	/* after the output the program printed */
	fprintf(stderr, "stapbpf: program %d (%s) ", vm->prog->id, vm->prog->section);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ", at instruction %zu%s%s%s\n", vm->pc, pos ? " (" : "", pos ? pos : "", pos ? ")" : "");
}

/* Whether [addr, addr+n) lies in [base, base+size). */
static bool inside(uint64_t addr, size_t n, const uint8_t *base, size_t size)
{
	uint64_t b = (uint64_t)(uintptr_t)base;

	return addr >= b && n <= size && addr - b <= size - n;
}

/* The stack first (most accesses), then the region hit last, then all. */
uint8_t *vm_find(struct vm *vm, uint64_t addr, size_t n, bool write)
{
	struct region *r = vm->last_hit;

	if (inside(addr, n, vm->stack, VM_FRAMES * VM_STACK))
		return (uint8_t *)(uintptr_t)addr;
	if (!r || !inside(addr, n, r->p, r->size))	/* the last one hit, else newest first */
		for (r = vm->regions; r && !inside(addr, n, r->p, r->size); r = r->next)
			;
	if (!r)
		return NULL;
	vm->last_hit = r;
	if (write)
		r->touched = true;
	return (uint8_t *)(uintptr_t)addr;
}

/* Loads and stores: outside the program's memory it stops. */
uint8_t *vm_mem(struct vm *vm, uint64_t addr, size_t n, bool write)
{
	uint8_t *p = vm_find(vm, addr, n, write);

	if (!p)
		vm_fail(vm, "%s %zu bytes at 0x%llx: not its stack nor a value a helper gave it",
			write ? "writes" : "reads", n, (unsigned long long)addr);
	return p;
}

/* The bytes a load or store of this code moves. */
static size_t size_of(int code)
{
	switch (BPF_SIZE(code)) {
	case BPF_B: return 1;
	case BPF_H: return 2;
	case BPF_W: return 4;
	default: return 8;
	}
}

/* n little bytes as an unsigned number, or sign-extended. */
static uint64_t load(const uint8_t *p, size_t n, bool sext)
{
	uint8_t b;
	uint16_t h;
	uint32_t w;
	uint64_t d;

	switch (n) {
	case 1: memcpy(&b, p, 1); return sext ? (uint64_t)(int64_t)(int8_t)b : b;
	case 2: memcpy(&h, p, 2); return sext ? (uint64_t)(int64_t)(int16_t)h : h;
	case 4: memcpy(&w, p, 4); return sext ? (uint64_t)(int64_t)(int32_t)w : w;
	default: memcpy(&d, p, 8); return d;
	}
}

/* The low n bytes of v, unaligned as the program may have them. */
static void store(uint8_t *p, size_t n, uint64_t v)
{
	uint8_t b = (uint8_t)v;
	uint16_t h = (uint16_t)v;
	uint32_t w = (uint32_t)v;

	switch (n) {
	case 1: memcpy(p, &b, 1); break;
	case 2: memcpy(p, &h, 2); break;
	case 4: memcpy(p, &w, 4); break;
	default: memcpy(p, &v, 8);
	}
}

/* BPF_END: to little endian (the host's: a truncation), to big endian or
 * (ALU64) an unconditional swap, of 16, 32 or 64 bits. */
static bool byte_order(struct vm *vm, const struct bpf_insn *x, uint64_t *v)
{
	bool swap = BPF_CLASS(x->code) == BPF_ALU64 || BPF_SRC(x->code) == BPF_TO_BE;

	switch (x->imm) {
	case 16: *v = swap ? __builtin_bswap16((uint16_t)*v) : (uint16_t)*v; return true;
	case 32: *v = swap ? __builtin_bswap32((uint32_t)*v) : (uint32_t)*v; return true;
	case 64: *v = swap ? __builtin_bswap64(*v) : *v; return true;
	}
	vm_fail(vm, "swaps %d bits (16, 32 or 64 are possible)", x->imm);
	return false;
}

/* Signed division and modulo as the kernel defines them: by 0 gives 0
 * (modulo: the dividend), by -1 cannot overflow. */
static int64_t sdiv(int64_t a, int64_t b, bool mod)
{
	if (b == 0)
		return mod ? a : 0;
	if (b == -1)
		return mod ? 0 : (int64_t)(0 - (uint64_t)a);
	return mod ? a % b : a / b;
}

/* One ALU64 or ALU (32-bit: operands and result cut to 32 bits). */
static void alu(struct vm *vm, const struct bpf_insn *x)
{
	bool w = BPF_CLASS(x->code) == BPF_ALU64;
	uint64_t a = vm->r[x->dst_reg], b, res;
	unsigned sh = w ? 63 : 31;

	if (BPF_OP(x->code) == BPF_END) {
		if (byte_order(vm, x, &a))
			vm->r[x->dst_reg] = a;
		return;
	}
	b = BPF_SRC(x->code) == BPF_X ? vm->r[x->src_reg] : (uint64_t)(int64_t)x->imm;
	if (!w) {
		a = (uint32_t)a;
		b = (uint32_t)b;
	}
	switch (BPF_OP(x->code)) {
	case BPF_ADD: res = a + b; break;
	case BPF_SUB: res = a - b; break;
	case BPF_MUL: res = a * b; break;
	case BPF_OR: res = a | b; break;
	case BPF_AND: res = a & b; break;
	case BPF_XOR: res = a ^ b; break;
	case BPF_LSH: res = a << (b & sh); break;
	case BPF_RSH: res = a >> (b & sh); break;
	case BPF_ARSH:
		res = w ? (uint64_t)((int64_t)a >> (b & sh)) : (uint32_t)((int32_t)a >> (b & sh));
		break;
	case BPF_NEG: res = 0 - a; break;
	case BPF_DIV:
	case BPF_MOD: {
		bool mod = BPF_OP(x->code) == BPF_MOD;

		if (x->off == 1)	/* sdiv, smod */
			res = w ? (uint64_t)sdiv((int64_t)a, (int64_t)b, mod)
				: (uint32_t)sdiv((int32_t)a, (int32_t)b, mod);
		else
			res = b ? (mod ? a % b : a / b) : (mod ? a : 0);
		break;
	}
	case BPF_MOV:
		switch (x->off) {	/* movsx: sign-extend the low 8/16/32 bits */
		case 8: res = (uint64_t)(int64_t)(int8_t)b; break;
		case 16: res = (uint64_t)(int64_t)(int16_t)b; break;
		case 32: res = (uint64_t)(int64_t)(int32_t)b; break;
		default: res = b;
		}
		break;
	default:
		vm_fail(vm, "has an unknown ALU operation (code %u)", x->code);
		return;
	}
	vm->r[x->dst_reg] = w ? res : (uint32_t)res;
}

/* A conditional jump's test (JMP: 64 bits, JMP32: the low 32). */
static bool jump_taken(struct vm *vm, const struct bpf_insn *x)
{
	bool w = BPF_CLASS(x->code) == BPF_JMP;
	uint64_t a = vm->r[x->dst_reg];
	uint64_t b = BPF_SRC(x->code) == BPF_X ? vm->r[x->src_reg] : (uint64_t)(int64_t)x->imm;
	int64_t sa, sb;

	if (!w) {
		a = (uint32_t)a;
		b = (uint32_t)b;
	}
	sa = w ? (int64_t)a : (int32_t)a;
	sb = w ? (int64_t)b : (int32_t)b;
	switch (BPF_OP(x->code)) {
	case BPF_JEQ: return a == b;
	case BPF_JNE: return a != b;
	case BPF_JGT: return a > b;
	case BPF_JGE: return a >= b;
	case BPF_JLT: return a < b;
	case BPF_JLE: return a <= b;
	case BPF_JSET: return (a & b) != 0;
	case BPF_JSGT: return sa > sb;
	case BPF_JSGE: return sa >= sb;
	case BPF_JSLT: return sa < sb;
	case BPF_JSLE: return sa <= sb;
	}
	vm_fail(vm, "has an unknown jump (code %u)", x->code);
	return false;
}

/* BPF_ATOMIC on 4 or 8 bytes: add, or, and, xor (with FETCH: the old value
 * to src), xchg, cmpxchg (against r0, the old value to r0). */
static void atomic(struct vm *vm, const struct bpf_insn *x)
{
	size_t n = size_of(x->code);
	uint8_t *p = vm_mem(vm, vm->r[x->dst_reg] + (int64_t)x->off, n, true);
	uint64_t old, val = vm->r[x->src_reg], res;
	uint64_t mask = n == 8 ? ~(uint64_t)0 : 0xffffffffu;

	if (!p)
		return;
	if (n != 4 && n != 8) {
		vm_fail(vm, "has an atomic operation on %zu bytes (4 or 8 are possible)", n);
		return;
	}
	old = load(p, n, false);
	switch (x->imm) {
	case BPF_ADD: case BPF_ADD | BPF_FETCH: res = old + val; break;
	case BPF_OR: case BPF_OR | BPF_FETCH: res = old | val; break;
	case BPF_AND: case BPF_AND | BPF_FETCH: res = old & val; break;
	case BPF_XOR: case BPF_XOR | BPF_FETCH: res = old ^ val; break;
	case BPF_XCHG: res = val; break;
	case BPF_CMPXCHG:
		res = old == (vm->r[0] & mask) ? val : old;
		store(p, n, res);
		vm->r[0] = old;
		return;
	default:
		vm_fail(vm, "has an unknown atomic operation (imm %d)", x->imm);
		return;
	}
	store(p, n, res);
	if (x->imm & BPF_FETCH)
		vm->r[x->src_reg] = old;
}

/* A bpf-to-bpf call: r6-r10 kept, a new stack frame below the caller's. */
static bool call_local(struct vm *vm, const struct bpf_insn *x)
{
	struct frame *f;

	if (vm->depth + 1 >= VM_FRAMES) {
		vm_fail(vm, "calls deeper than %d frames", VM_FRAMES);
		return false;
	}
	f = &vm->frames[vm->depth++];
	f->ret_pc = vm->pc + 1;
	memcpy(f->saved, &vm->r[6], sizeof(f->saved));
	vm->r[10] = (uint64_t)(uintptr_t)(vm->stack + (VM_FRAMES - vm->depth) * VM_STACK);
	vm->pc = vm->pc + 1 + (int64_t)x->imm;
	return true;
}

/* The program's instructions until its EXIT or a failure. */
static void execute(struct vm *vm)
{
	const struct bundle_prog *p = vm->prog;
	size_t count = 0;

	while (!vm->failed) {
		const struct bpf_insn *x;
		uint8_t *mem;

		if (vm->pc >= p->ninsns) {
			vm_fail(vm, "ran past its last instruction");
			return;
		}
		if (++count > INTERP_MAX_INSNS) {
			vm_fail(vm, "ran too long (more than %d instructions, SystemTap's MAXACTION)",
				INTERP_MAX_INSNS);
			return;
		}
		x = &p->insns[vm->pc];
		switch (BPF_CLASS(x->code)) {
		case BPF_ALU:
		case BPF_ALU64:
			alu(vm, x);
			vm->pc++;
			break;
		case BPF_JMP:
		case BPF_JMP32:
			switch (BPF_OP(x->code)) {
			case BPF_JA:
				vm->pc += 1 + (BPF_CLASS(x->code) == BPF_JMP ? x->off : x->imm);
				break;
			case BPF_CALL:
				if (x->src_reg == BPF_PSEUDO_CALL) {
					call_local(vm, x);
					break;
				}
				if (x->src_reg != 0) {
					vm_fail(vm, "calls a kernel function (CALL with SRC %d)", x->src_reg);
					break;
				}
				vm->r[0] = vm_call(vm, x->imm);
				vm->pc++;
				break;
			case BPF_EXIT:
				if (vm->depth == 0)
					return;
				vm->depth--;
				memcpy(&vm->r[6], vm->frames[vm->depth].saved, sizeof(vm->frames[0].saved));
				vm->pc = vm->frames[vm->depth].ret_pc;
				break;
			default:
				vm->pc += 1 + (jump_taken(vm, x) ? x->off : 0);
			}
			break;
		case BPF_LD:
			if (x->code != (BPF_LD | BPF_IMM | BPF_DW)) {
				vm_fail(vm, "has a packet load (code %u), which only socket filters have",
					x->code);
				break;
			}
			if (x->src_reg == BPF_PSEUDO_MAP_FD)
				vm->r[x->dst_reg] = (uint64_t)(uintptr_t)&vm->env->maps[x->imm];
			else
				vm->r[x->dst_reg] = (uint32_t)x->imm | (uint64_t)(uint32_t)x[1].imm << 32;
			vm->pc += 2;
			break;
		case BPF_LDX:
			if (BPF_MODE(x->code) != BPF_MEM && BPF_MODE(x->code) != BPF_MEMSX) {
				vm_fail(vm, "has an unknown load (code %u)", x->code);
				break;
			}
			mem = vm_mem(vm, vm->r[x->src_reg] + (int64_t)x->off, size_of(x->code), false);
			if (mem)
				vm->r[x->dst_reg] = load(mem, size_of(x->code), BPF_MODE(x->code) == BPF_MEMSX);
			vm->pc++;
			break;
		case BPF_ST:
		case BPF_STX:
			if (BPF_CLASS(x->code) == BPF_STX && BPF_MODE(x->code) == BPF_ATOMIC) {
				atomic(vm, x);
				vm->pc++;
				break;
			}
			if (BPF_MODE(x->code) != BPF_MEM) {
				vm_fail(vm, "has an unknown store (code %u)", x->code);
				break;
			}
			mem = vm_mem(vm, vm->r[x->dst_reg] + (int64_t)x->off, size_of(x->code), true);
			if (mem)
				store(mem, size_of(x->code), BPF_CLASS(x->code) == BPF_STX ? vm->r[x->src_reg]
				      : (uint64_t)(int64_t)x->imm);
			vm->pc++;
			break;
		default:
			vm_fail(vm, "has an unknown instruction (code %u)", x->code);
		}
	}
}

/* A fresh machine per run: zeroed registers and stack, r10 at its top. */
int interp_run(struct interp_env *env, const struct bundle_prog *p)
{
	struct vm *vm = calloc(1, sizeof(*vm));
	int rc;

	if (!vm || !(vm->stack = calloc(VM_FRAMES, VM_STACK))) {
		fprintf(stderr, "stapbpf: out of memory\n");
		free(vm);
		return -1;
	}
	vm->env = env;
	vm->prog = p;
	vm->r[1] = 0;
	vm->r[10] = (uint64_t)(uintptr_t)(vm->stack + VM_FRAMES * VM_STACK);
	if (env->verbose > 1)
		fprintf(stderr, "stapbpf: running program %d (%s)\n", p->id, p->section);
	execute(vm);
	rc = vm->failed ? -1 : 0;
	vm_release(vm);
	free(vm->stack);
	free(vm);
	return rc;
}
