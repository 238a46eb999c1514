/* wrap.c - wrapping arrays (global x%[N]) for the BPF backend.
 *
 * The module runtime keeps an array's elements on a list in insertion
 * order; a wrapping array that is full reuses the oldest one for the new
 * key (runtime/map.h). A BPF hash map keeps no order, and the kernel's LRU
 * hash evicts by use, in batches, per CPU: not the same. So a wrapping
 * array has three more maps, and its own list:
 *   @wrap_x  an array of one entry: a lock word, the list (head, tail, a
 *            free list, how many slots were ever handed out, a generation
 *            counter) and per slot its links and generation;
 *   @keys_x  an array of N keys: the key each slot holds;
 *   @slot_x  a hash from the key to its slot and generation.
 * A new key takes a free slot, or a slot never used, or the head of the
 * list (the oldest: its key leaves x), and goes to the tail. Deleting a
 * key puts its slot on the free list. A write or delete of an element
 * holds the lock word from before it looks at @slot_x until x itself is
 * written (so that a key another CPU evicts meanwhile cannot stay in x
 * without a slot); it is taken with a compare-and-exchange and a bounded
 * spin (BPF's own spin lock is not allowed in tracing programs, and holds
 * no helper calls); a probe that cannot take it is the script's error.
 * A delete of the whole array empties x and @slot_x but leaves the list:
 * the generations tell a slot left from before it from the slot a key
 * added again since holds.
 */
#include "translate/bpf/gen.h"

#include <stdlib.h>

#include "util.h"

/* the lock value's layout (u64 words, then 16 bytes per slot) */
enum { W_LOCK = 0, W_USED = 8, W_HEAD = 16, W_TAIL = 24, W_FREE = 32, W_GEN = 40, W_LINKS = 48 };
/* slot s's link (s 1-based, 0 is "none") at r(s << 4) + these */
enum { L_PREV = W_LINKS - 16, L_NEXT = W_LINKS - 12, L_GEN = W_LINKS - 8 };
#define SPIN 1000   /* tries before a skipped probe, without bpf_loop (Linux 5.17) */

/* The three maps of wrapping array v (key spec key, n slots); the hash
 * itself gets a little room past n for the rare key a whole delete in a
 * timer probe stapbpf runs leaves without a slot (bg_wrap_clear). */
void bg_wrap_maps(struct bgen *g, const struct sym *v, const char *key, int64_t n)
{
	struct strbuf spec = STRBUF_INIT;
	char *name;

	strbuf_addstr(&spec, "llllll");
	for (int64_t i = 0; i < n; i++)
		strbuf_addstr(&spec, "ll");
	name = xasprintf("@wrap_%s", v->name);
	g->wrap[v->index].state = bg_map(g, "array", "i", spec.buf, 1, name);
	free(name);
	name = xasprintf("@keys_%s", v->name);
	g->wrap[v->index].keys = bg_map(g, "array", "i", key, n, name);
	free(name);
	name = xasprintf("@slot_%s", v->name);
	g->wrap[v->index].slot = bg_map(g, "hash", key, "ll", n + 8, name);
	free(name);
	g->wrap[v->index].n = n;
	strbuf_release(&spec);
}

/* The script's error msg near array v at pos. */
static void wrap_error(struct bgen *g, const struct sym *v, const char *msg, struct srcpos pos)
{
	char *f = bg_near_fmt(msg, "identifier", v->name, pos);

	bg_error(g, msg, f);
	free(f);
}

/*
 * r0 = the lock value (stack slot st keeps it too), locked. A kernel
 * probe that cannot take it ends there, a skipped probe, as the module's
 * does when a lock stays taken (counted in stapbpf's closing warning):
 * after one try, it spins with bpf_loop (callback.c), or a spin the
 * verifier walks on an older kernel: a few ms at most, where a holder
 * takes a microsecond, as an interrupt handler must not wait long (a
 * virtual CPU that holds it may not run for 100 ms). The holder is never
 * a probe this one interrupted: a kernel probe that fires inside another
 * on its CPU ends at once (@scratch's BUSY word, prog.c). In stapbpf's
 * interpreter (begin, end) no kernel probe holds it: a taken lock is the
 * error.
 */
static void lock(struct bgen *g, const struct sym *v, int st, struct srcpos pos)
{
	int retry = bg_label(g), locked = bg_label(g), none = bg_label(g);
	bool loop = !g->user && bg_kernel_at_least(g->s, 5, 17), count = !g->user && !loop;

	bg_lookup0(g, g->wrap[v->index].state);
	bg_jmp(g, J_EQ, R0, -1, 0, none);
	stx(g, R10, st, R0);
	if (count)
		bg_mov_imm(g, R3, 0);
	bg_place(g, retry);
	ldx(g, R2, R10, st);
	bg_mov_imm(g, R0, 0);
	bg_mov_imm(g, R1, 1);
	bg_emit(g, B_STX | B_ATOMIC | B_DW, R2, R1, W_LOCK, AT_CMPXCHG);
	bg_jmp(g, J_EQ, R0, -1, 0, locked);
	if (loop) {
		bg_spin_lock(g, g->wrap[v->index].state);
		bg_jmp(g, J_EQ, R0, -1, 0, locked);
	} else if (count) {
		alu_k(g, A_ADD, R3, 1);
		bg_jmp(g, J_LT, R3, -1, SPIN, retry);
	}
	if (!g->user) {   /* not taken: a skipped probe */
		bg_record(g, REC_SKIP, 0, "", NULL, NULL);
		bg_ja(g, g->exit_label);
	}
	bg_place(g, none);
	wrap_error(g, v, "wrapping array busy (its lock is held)", pos);
	bg_place(g, locked);
	ldx(g, R0, R10, st);
}

/* dst = the link base of slot reg (r0 + (slot << 4)); to bad when the
 * slot is 0 or past n (the verifier's bound too) */
static void link_of(struct bgen *g, int dst, int reg, int64_t n, int bad)
{
	bg_jmp(g, J_EQ, reg, -1, 0, bad);
	bg_jmp(g, J_GT, reg, -1, n, bad);
	mov(g, dst, reg);
	alu_k(g, A_LSH, dst, 4);
	alu_x(g, A_ADD, dst, R0);
}

/* slot nb's link at off = val, or, when nb is 0 (none), the list's end
 * (head or tail) = val; r5 is used */
static void relink(struct bgen *g, int nb, int off, int end, int val, int64_t n, int bad)
{
	int none = bg_label(g), done = bg_label(g);

	bg_jmp(g, J_EQ, nb, -1, 0, none);
	link_of(g, R5, nb, n, bad);
	bg_emit(g, B_STX | B_MEM | B_W, R5, val, off, 0);
	bg_ja(g, done);
	bg_place(g, none);
	stx(g, R0, end, val);
	bg_place(g, done);
}

static void ld32(struct bgen *g, int dst, int base, int off)
{
	bg_emit(g, B_LDX | B_MEM | B_W, dst, base, off, 0);
}

static void st32(struct bgen *g, int base, int off, int src)
{
	bg_emit(g, B_STX | B_MEM | B_W, base, src, off, 0);
}

/* r1, r2 = @keys and the address of the index at r10+idx */
static void keys_at(struct bgen *g, const struct bwrap *w, int idx)
{
	bg_ld_map(g, R1, w->keys);
	mov(g, R2, R10);
	alu_k(g, A_ADD, R2, idx);
}

/* false (refused) in a timer probe stapbpf runs: kernel probes change
 * the list at the same time */
static bool allowed(struct bgen *g, struct srcpos pos)
{
	if (g->user_timer)
		bg_fail(g, pos, BG_WRAP_UTIMER);
	return !g->user_timer;
}

/* r0 = the @slot entry of the key at r7+key, or 0 */
static void slot_of(struct bgen *g, const struct bwrap *w, int key)
{
	bg_ld_map(g, R1, w->slot);
	str_addr(g, R2, (struct bstr){ R7, key });
	bg_call(g, H_MAP_LOOKUP);
}

/* The list broken (a link out of range: cannot be): unlocked, the error. */
static void broken(struct bgen *g, const struct sym *v, int st, struct srcpos pos)
{
	bg_wrap_release(g, st);
	wrap_error(g, v, "wrapping array's list is broken", pos);
}

/*
 * Before an element of wrapping array v is written: the lock, and if the
 * key at r7+key is not in v, a slot for it (the oldest element's when the
 * array is full: that element leaves). The lock is held until
 * bg_wrap_release(the stack slot this returns, 0 when refused), after the
 * element's write: a key another CPU evicts meanwhile cannot stay in v
 * without a slot.
 */
int bg_wrap_admit(struct bgen *g, const struct sym *v, int key, struct srcpos pos)
{
	const struct bwrap *w = &g->wrap[v->index];
	int st = bg_stack(g), slot = bg_stack(g), gen = bg_stack(g), evicted = bg_stack(g),
	    idx = bg_stack(g), old = bg_stack(g), rec = bg_scratch(g, 16);
	int done = bg_label(g), have = bg_label(g), fresh = bg_label(g), linked = bg_label(g),
	    bad = bg_label(g);

	if (!allowed(g, pos))
		return 0;
	bg_emit(g, B_ST | B_MEM | B_DW, R10, 0, evicted, 0);
	lock(g, v, st, pos);
	slot_of(g, w, key);
	bg_jmp(g, J_NE, R0, -1, 0, done);
	ldx(g, R0, R10, st);
	/* a slot: from the free list, never used, or the head's */
	ldx(g, R1, R0, W_FREE);
	bg_jmp(g, J_EQ, R1, -1, 0, fresh);
	link_of(g, R2, R1, w->n, bad);
	ld32(g, R3, R2, L_NEXT);
	stx(g, R0, W_FREE, R3);
	bg_ja(g, have);
	bg_place(g, fresh);
	ldx(g, R1, R0, W_USED);
	bg_jmp(g, J_GE, R1, -1, w->n, linked);
	alu_k(g, A_ADD, R1, 1);
	stx(g, R0, W_USED, R1);
	bg_ja(g, have);
	bg_place(g, linked);   /* full: the oldest element's slot */
	ldx(g, R1, R0, W_HEAD);
	link_of(g, R2, R1, w->n, bad);
	ldx(g, R3, R2, L_GEN);
	stx(g, R10, evicted, R3);
	ld32(g, R3, R2, L_NEXT);
	stx(g, R0, W_HEAD, R3);
	bg_mov_imm(g, R4, 0);   /* the new head has no prev */
	relink(g, R3, L_PREV, W_TAIL, R4, w->n, bad);
	/* slot r1 to the tail, with a new generation */
	bg_place(g, have);
	stx(g, R10, slot, R1);
	link_of(g, R2, R1, w->n, bad);
	ldx(g, R3, R0, W_GEN);
	alu_k(g, A_ADD, R3, 1);
	stx(g, R0, W_GEN, R3);
	stx(g, R2, L_GEN, R3);
	stx(g, R10, gen, R3);
	bg_mov_imm(g, R5, 0);
	st32(g, R2, L_NEXT, R5);
	ldx(g, R3, R0, W_TAIL);
	st32(g, R2, L_PREV, R3);
	stx(g, R0, W_TAIL, R1);
	relink(g, R3, L_NEXT, W_HEAD, R1, w->n, bad);
	ldx(g, R1, R10, slot);
	alu_k(g, A_ADD, R1, -1);   /* the slot's index in @keys */
	stx(g, R10, idx, R1);
	/* the evicted element leaves x, if its key still has that slot */
	{
		int kept = bg_label(g);
		ldx(g, R1, R10, evicted);
		bg_jmp(g, J_EQ, R1, -1, 0, kept);
		keys_at(g, w, idx);
		bg_call(g, H_MAP_LOOKUP);
		bg_jmp(g, J_EQ, R0, -1, 0, kept);
		stx(g, R10, old, R0);   /* the old key, in @keys */
		bg_ld_map(g, R1, w->slot);
		mov(g, R2, R0);
		bg_call(g, H_MAP_LOOKUP);
		bg_jmp(g, J_EQ, R0, -1, 0, kept);
		ldx(g, R1, R0, 8);
		ldx(g, R2, R10, evicted);
		bg_jmp(g, J_NE, R1, R2, 0, kept);
		bg_ld_map(g, R1, w->slot);
		ldx(g, R2, R10, old);
		bg_call(g, H_MAP_DELETE);
		bg_ld_map(g, R1, g->gmap[v->index]);
		ldx(g, R2, R10, old);
		bg_call(g, H_MAP_DELETE);
		bg_place(g, kept);
	}
	/* the slot's key, and the key's slot */
	keys_at(g, w, idx);
	str_addr(g, R3, (struct bstr){ R7, key });
	bg_mov_imm(g, R4, 0);
	bg_call(g, H_MAP_UPDATE);
	ldx(g, R1, R10, slot);
	stx(g, R7, rec, R1);
	ldx(g, R1, R10, gen);
	stx(g, R7, rec + 8, R1);
	bg_ld_map(g, R1, w->slot);
	str_addr(g, R2, (struct bstr){ R7, key });
	str_addr(g, R3, (struct bstr){ R7, rec });
	bg_mov_imm(g, R4, 0);
	bg_call(g, H_MAP_UPDATE);
	bg_ja(g, done);
	bg_place(g, bad);
	broken(g, v, st, pos);
	bg_place(g, done);
	return st;
}

/*
 * Before the key at r7+key leaves wrapping array v (delete v[key]): the
 * lock, and the key's slot back on the free list; bg_wrap_release after
 * the element's delete.
 */
int bg_wrap_forget(struct bgen *g, const struct sym *v, int key, struct srcpos pos)
{
	const struct bwrap *w = &g->wrap[v->index];
	int st = bg_stack(g), slot = bg_stack(g), gen = bg_stack(g);
	int done = bg_label(g), bad = bg_label(g);

	if (!allowed(g, pos))
		return 0;
	lock(g, v, st, pos);
	slot_of(g, w, key);
	bg_jmp(g, J_EQ, R0, -1, 0, done);
	ldx(g, R1, R0, 0);
	stx(g, R10, slot, R1);
	ldx(g, R1, R0, 8);
	stx(g, R10, gen, R1);
	ldx(g, R0, R10, st);
	ldx(g, R1, R10, slot);
	link_of(g, R2, R1, w->n, bad);
	ldx(g, R3, R2, L_GEN);
	ldx(g, R4, R10, gen);
	bg_jmp(g, J_NE, R3, R4, 0, done);   /* not its slot (cannot be, locked) */
	ld32(g, R3, R2, L_PREV);
	ld32(g, R4, R2, L_NEXT);
	relink(g, R3, L_NEXT, W_HEAD, R4, w->n, bad);
	relink(g, R4, L_PREV, W_TAIL, R3, w->n, bad);
	bg_emit(g, B_ST | B_MEM | B_DW, R2, 0, L_GEN, 0);
	ldx(g, R3, R0, W_FREE);
	st32(g, R2, L_NEXT, R3);
	stx(g, R0, W_FREE, R1);
	bg_ld_map(g, R1, w->slot);
	str_addr(g, R2, (struct bstr){ R7, key });
	bg_call(g, H_MAP_DELETE);
	bg_ja(g, done);
	bg_place(g, bad);
	broken(g, v, st, pos);
	bg_place(g, done);
	return st;
}

/* The lock bg_wrap_admit or bg_wrap_forget took (st: what it returned)
 * given back; r0 is kept. */
void bg_wrap_release(struct bgen *g, int st)
{
	if (!st)
		return;
	ldx(g, R2, R10, st);
	bg_mov_imm(g, R1, 0);
	bg_emit(g, B_STX | B_ATOMIC | B_DW, R2, R1, W_LOCK, AT_XCHG);
}

/*
 * delete v (user space, before v itself is emptied): its key-to-slot map
 * emptied. The list stays as it is: its slots, whose keys are gone, are
 * older than any key added after, so they are the ones new keys take
 * first (a slot whose key has no @slot entry evicts nothing), and the
 * array holds N again before a live element leaves, as when the module
 * empties it. Nothing here takes the lock, so a timer probe stapbpf runs
 * may do it while kernel probes add: a key a kernel probe adds meanwhile
 * either stays with its slot or leaves, or, rarely, stays in v without
 * one (then it never wraps out, until deleted).
 */
void bg_wrap_clear(struct bgen *g, const struct sym *v)
{
	bg_ld_map(g, R1, g->wrap[v->index].slot);
	bg_call(g, HU_MAP_CLEAR);
}
