/* bpf_vm.h - the interpreter's state while one program runs, shared by
 * bpf_interp.c (the instructions) and bpf_helpers.c (the helper calls).
 * Not for other users: they have bpf_interp.h. */
#ifndef BPF_VM_H
#define BPF_VM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf_interp.h"

/* newer than Debian 12's uapi headers (Linux 6.6): sign-extending loads */
#ifndef BPF_MEMSX
#define BPF_MEMSX 0x80
#endif

#define VM_STACK 512		/* per frame, as the kernel gives */
#define VM_FRAMES 8		/* bpf-to-bpf call depth, as the kernel allows */

/* Host memory a program may touch besides its stack: a helper's copy of
 * a map value, or a ring buffer record being filled. */
struct region {
	struct region *next;	/* newer first */
	uint8_t *p;
	size_t size;
	bool reserved;		/* ringbuf_reserve's, else a map value's copy */
	/* a copy: where it came from, and its bytes when last in step */
	const struct umap *map;
	uint8_t *key, *orig;
	bool touched;		/* written since then */
	bool dead;		/* its entry was deleted: writes go nowhere */
};

/* A foreach in progress: its keys, in order. */
struct iter {
	uint8_t *keys;
	size_t n, next, key_size;
	bool used;
};

struct frame {
	size_t ret_pc;
	uint64_t saved[5];	/* r6-r10 */
};

struct vm {
	struct interp_env *env;
	const struct bundle_prog *prog;
	uint64_t r[11];
	uint8_t *stack;		/* VM_FRAMES * VM_STACK bytes, frame 0 at the top */
	struct frame frames[VM_FRAMES];
	int depth;
	size_t pc;
	struct region *regions, *last_hit;
	struct iter *iters;
	size_t niters;
	bool failed;
};

/* Stop the program with a message naming it and the current instruction. */
void vm_fail(struct vm *vm, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* n bytes at addr if they are all the program's (its stack or a region),
 * else NULL; a write marks a map value's copy as touched. */
uint8_t *vm_find(struct vm *vm, uint64_t addr, size_t n, bool write);

/* vm_find, or the program stops with an invalid access message. */
uint8_t *vm_mem(struct vm *vm, uint64_t addr, size_t n, bool write);

/* bpf_helpers.c: helper id with r1..r5; its result (r0). */
uint64_t vm_call(struct vm *vm, int32_t id);

/* The copies' changes written to their maps (before each helper call and
 * at the end); vm_release also frees what the run left behind. */
void vm_flush(struct vm *vm);
void vm_release(struct vm *vm);

#endif /* BPF_VM_H */
