/* prog.c - the BPF backend's instruction buffer: labels, slots, maps,
 * printf formats, ring buffer records, and each finished program into the
 * unit (unit.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "target/ksyms.h"
#include "translate/bpf/gen.h"
#include "translate/translate.h"

#define SCRATCH_MAX 16384

/* Every instruction after a position change is listed against it, so that
 * a verifier rejection names the script's line. */
void bg_pos(struct bgen *g, struct srcpos pos)
{
	if (!pos.file || (pos.file == g->last_pos.file && pos.line == g->last_pos.line &&
			  pos.col == g->last_pos.col))
		return;
	g->last_pos = pos;
	vec_push(&g->lines, ((struct bpf_line){ g->n, pos }));
}

void bg_emit(struct bgen *g, uint8_t code, int dst, int src, int off, int32_t imm)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 256;
		g->insn = xrealloc(g->insn, g->cap * sizeof(*g->insn));
	}
	g->insn[g->n++] = (struct binsn){ code, (uint8_t)dst, (uint8_t)src, (int16_t)off, imm };
}

/* A 64-bit constant: one instruction when it fits 32 signed bits. */
void bg_mov_imm(struct bgen *g, int reg, int64_t v)
{
	if (v == (int64_t)(int32_t)v) {
		bg_emit(g, B_ALU64 | A_MOV | B_K, reg, 0, 0, (int32_t)v);
		return;
	}
	bg_emit(g, B_LD | B_DW | B_IMM, reg, 0, 0, (int32_t)(uint32_t)v);
	bg_emit(g, 0, 0, 0, 0, (int32_t)(uint32_t)((uint64_t)v >> 32));
}

void bg_ld_map(struct bgen *g, int reg, int map)
{
	bg_emit(g, B_LD | B_DW | B_IMM, reg, B_PSEUDO_MAP_FD, 0, map);
	bg_emit(g, 0, 0, 0, 0, 0);
}

void bg_call(struct bgen *g, int helper)
{
	if (g->user_timer && (helper == H_PID_TGID || helper == H_UID_GID || helper == H_COMM ||
			      helper == H_CURRENT_TASK || helper == H_CURRENT_TASK_BTF || helper == H_SMP_PROCESSOR_ID ||
			      helper == H_GET_STACK))
		bg_fail(g, g->last_pos, "the task or CPU a timer interrupted, in a timer probe that "
			"stapbpf runs in user space %s", g->timer_randomized ?
			"for its randomize (a BPF perf event has one fixed period)" :
			"for what only it can do (foreach, aggregates ...)");
	bg_emit(g, B_JMP | J_CALL, 0, 0, 0, helper);
}

void bg_lookup0(struct bgen *g, int map)
{
	bg_ld_map(g, R1, map);
	bg_emit(g, B_ALU64 | A_MOV | B_X, R2, R10, 0, 0);
	bg_emit(g, B_ALU64 | A_ADD | B_K, R2, 0, 0, -8);
	bg_call(g, H_MAP_LOOKUP);
}

void bg_sext(struct bgen *g, int bits)
{
	if (bits <= 0 || bits >= 64)
		return;
	bg_emit(g, B_ALU64 | A_LSH | B_K, R0, 0, 0, 64 - bits);
	bg_emit(g, B_ALU64 | A_ARSH | B_K, R0, 0, 0, 64 - bits);
}

int bg_label(struct bgen *g)
{
	g->label_at = xrealloc(g->label_at, (g->nlabels + 1) * sizeof(int));
	g->label_at[g->nlabels] = -1;
	return g->nlabels++;
}

void bg_place(struct bgen *g, int label)
{
	g->label_at[label] = g->n;
}

/* A conditional jump to label: reg OP src-register (src >= 0) or imm. */
void bg_jmp(struct bgen *g, int op, int reg, int src, int64_t imm, int label)
{
	vec_push(&g->fix_insn, g->n);
	vec_push(&g->fix_label, label);
	if (src >= 0)
		bg_emit(g, B_JMP | op | B_X, reg, src, 0, 0);
	else
		bg_emit(g, B_JMP | op | B_K, reg, 0, 0, (int32_t)imm);
}

void bg_ja(struct bgen *g, int label)
{
	vec_push(&g->fix_insn, g->n);
	vec_push(&g->fix_label, label);
	bg_emit(g, B_JMP | J_JA, 0, 0, 0, 0);
}

void bg_fail(struct bgen *g, struct srcpos pos, const char *fmt, ...)
{
	va_list ap;
	struct strbuf sb = STRBUF_INIT;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	diag(g->s, E_BPF_UNSUPPORTED, pos, "%s", sb.buf);
	strbuf_release(&sb);
	g->failed = true;
	g->nfails++;
}

void bg_fail_user_only(struct bgen *g, struct srcpos pos, const char *what)
{
	bg_fail(g, pos, "%s: " BG_USER_ONLY, what);
	g->nfails_user++;
}

bool bg_kernel_at_least(const struct session *s, int major, int minor)
{
	int ma = 0, mi = 0;

	if (!s->kernel_release || sscanf(s->kernel_release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

/* 8 bytes of the program's stack; BPF gives a program 512. */
int bg_stack(struct bgen *g)
{
	if (g->stack + 8 > BPF_STACK) {
		if (!g->failed)
			bg_fail(g, g->last_pos, "the probe needs more than BPF's 512 bytes of stack "
				"(fewer local variables or simpler expressions)");
		return -8;
	}
	g->stack += 8;
	if (g->stack > g->stack_max)
		g->stack_max = g->stack;
	return -g->stack;
}

int bg_scratch(struct bgen *g, int n)
{
	int off = g->scratch;

	if (g->scratch + n > SCRATCH_MAX) {
		if (!g->failed)
			bg_fail(g, g->last_pos, "the probe needs more than %d bytes of strings and keys",
				SCRATCH_MAX);
		return 0;
	}
	g->scratch += n;
	if (g->scratch > g->scratch_size)
		g->scratch_size = g->scratch;
	return off;
}

int bg_map(struct bgen *g, const char *kind, const char *key, const char *val, int64_t max, const char *name)
{
	struct bpf_map *m = xcalloc(1, sizeof(*m));

	m->kind = kind;
	m->keyspec = xstrdup(key);
	m->valspec = xstrdup(val);
	m->max = max;
	m->name = xstrdup(name);
	vec_push(&g->u->maps, m);
	return g->u->maps.len - 1;
}

/* The slot of key (hash h) in g's format index: its own or a free one. */
static struct bfmt_slot *fmt_slot(struct bgen *g, uint64_t h, const char *key, size_t len)
{
	size_t i = h & (g->fmt_cap - 1);

	while (g->fmt_tab[i].len && !(g->fmt_tab[i].h == h && g->fmt_tab[i].len == len &&
				       !memcmp(g->fmt_keys.buf + g->fmt_tab[i].off, key, len)))
		i = (i + 1) & (g->fmt_cap - 1);
	return &g->fmt_tab[i];
}

/* A printf format for the loader: its number. The same types and text
 * get the same number: probes that differ only in which copy of a text
 * they name are then the same program, which stapbpf loads (and the
 * verifier checks) once for all of them (1,200 kprobes of one wildcard). */
int bg_fmt(struct bgen *g, const char *types, const char *text, size_t len)
{
	struct strbuf key = STRBUF_INIT;

	strbuf_addf(&key, "%s ", types);
	strbuf_add(&key, text, len);
	if ((size_t)g->u->fmts.len * 2 >= g->fmt_cap) {   /* half full at most */
		struct bfmt_slot *old = g->fmt_tab;
		size_t n = g->fmt_cap;
		g->fmt_cap = n ? n * 2 : 64;
		g->fmt_tab = xcalloc(g->fmt_cap, sizeof(*g->fmt_tab));
		for (size_t i = 0; i < n; i++)
			if (old[i].len)
				*fmt_slot(g, old[i].h, g->fmt_keys.buf + old[i].off, old[i].len) = old[i];
		free(old);
	}
	uint64_t h = hash64(key.buf, key.len);
	struct bfmt_slot *slot = fmt_slot(g, h, key.buf, key.len);
	if (!slot->len) {
		char *t = xmalloc(len + 1);
		memcpy(t, text, len);
		t[len] = 0;
		vec_push(&g->u->fmts, ((struct bpf_fmt){ xstrdup(types), t, len }));
		*slot = (struct bfmt_slot){ .h = h, .id = g->u->fmts.len - 1, .off = g->fmt_keys.len, .len = key.len };
		strbuf_add(&g->fmt_keys, key.buf, key.len);
	}
	strbuf_release(&key);
	return slot->id;
}

/* The program's prologue: the context kept in r6, the scratch value in r7
 * and the globals in r8 (a lookup of key 0 each, which cannot fail but
 * the verifier wants checked). A kernel probe then ends at once, a
 * skipped probe as in the module, when another runs on its CPU (the
 * @scratch word BUSY): the kernel keeps kprobes, perf events and
 * timers from running inside one another, but not raw tracepoints, which
 * an interrupt runs in the middle of any (and the two would share
 * @scratch, a wrapping array's lock, a hash's per-CPU bucket guard). */
void bg_set_probe(struct bgen *g, const struct derived_probe *dp)
{
	g->dp = dp;
	bpf_context_of(dp, &g->ctx);
	if (g->as_trampoline) {   /* the function's arguments, not a kprobe's registers */
		g->ctx.trampoline = g->as_trampoline;
		g->ctx.ip_back = -1;
		g->ctx.kretprobe = g->ctx.reg_args = false;
	}
}

void bg_prog_start(struct bgen *g, const struct derived_probe *dp, bool user)
{
	bg_set_probe(g, dp);
	g->user = user;
	g->user_timer = false;
	g->n = 0;
	g->nlabels = 0;
	g->fix_insn.len = g->fix_label.len = 0;
	g->stack = g->stack_max = 8;
	g->scratch = 0;
	g->locs.len = 0;
	g->callbacks.len = 0;
	g->in_callback = false;
	g->fix_func_insn.len = g->fix_func_label.len = 0;
	g->brk.len = g->cont.len = 0;
	g->inl.len = 0;
	g->last_pos = (struct srcpos){ 0 };
	g->lines.len = 0;
	g->exit_label = bg_label(g);
	g->bare_exit = bg_label(g);
	g->skip_label = bg_label(g);
	g->timing_index = -1;
	g->scratch = BUSY + 8;
	g->act_label = bg_label(g);
	g->act_used = false;
	g->act_slot = bg_stack(g);
	bg_emit(g, B_ALU64 | A_MOV | B_X, R6, R1, 0, 0);
	bg_emit(g, B_ST | B_MEM | B_W, R10, 0, -8, 0);
	bg_emit(g, B_ST | B_MEM | B_DW, R10, 0, g->act_slot, 0);
	for (int i = 0; i < 2; i++) {
		int map = i ? g->globals_map : g->scratch_map;
		if (map < 0)
			continue;
		bg_lookup0(g, map);
		bg_jmp(g, J_EQ, R0, -1, 0, g->bare_exit);
		bg_emit(g, B_ALU64 | A_MOV | B_X, i ? R8 : R7, R0, 0, 0);
	}
	if (!user) {   /* a kernel probe runs only while every one is armed (@config) */
		bg_lookup0(g, g->config_map);
		bg_jmp(g, J_EQ, R0, -1, 0, g->bare_exit);
		bg_emit(g, B_LDX | B_MEM | B_DW, R1, R0, 8, 0);
		bg_jmp(g, J_EQ, R1, -1, 0, g->bare_exit);
		bg_emit(g, B_LDX | B_MEM | B_DW, R1, R7, BUSY, 0);
		bg_jmp(g, J_NE, R1, -1, 0, g->skip_label);
		bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, BUSY, 1);
	}
}

/* The epilogue, the jumps resolved, and the program's lines in the bundle. */
/* Drop the instructions no path reaches (code after an error's jump, or
 * after next and return): the verifier refuses a program with any. */
static void drop_unreachable(struct bgen *g)
{
	bool *seen = xcalloc(g->n + 1, 1);
	int *stack = xcalloc(g->n + 1, sizeof(int)), sp = 0, *map = xcalloc(g->n + 1, sizeof(int));
	int n = 0;

	stack[sp++] = 0;
	while (sp) {
		int i = stack[--sp];
		while (i < g->n && !seen[i]) {
			struct binsn *x = &g->insn[i];
			int cls = x->code & 7, op = x->code & 0xf0;
			seen[i] = true;
			if (x->code == (B_LD | B_DW | B_IMM)) {
				if (x->src == B_PSEUDO_FUNC && !seen[i + 1 + x->imm])
					stack[sp++] = i + 1 + x->imm;   /* a callback */
				seen[i + 1] = true;
				i += 2;
				continue;
			}
			if (cls == B_JMP && op == J_EXIT)
				break;
			if (cls == B_JMP && op != J_CALL) {
				int to = i + 1 + x->off;
				if (op == J_JA) {
					i = to;
					continue;
				}
				if (!seen[to])
					stack[sp++] = to;
			}
			i++;
		}
	}
	for (int i = 0; i <= g->n; i++) {
		map[i] = n;
		if (i < g->n && seen[i])
			n++;
	}
	for (int i = 0; i < g->n; i++) {
		struct binsn *x = &g->insn[i];
		int cls = x->code & 7, op = x->code & 0xf0;
		if (!seen[i])
			continue;
		if (cls == B_JMP && op != J_CALL && op != J_EXIT)
			x->off = (int16_t)(map[i + 1 + x->off] - map[i] - 1);
		if (x->code == (B_LD | B_DW | B_IMM) && x->src == B_PSEUDO_FUNC)
			x->imm = map[i + 1 + x->imm] - map[i] - 1;
		g->insn[map[i]] = *x;
	}
	/* the line table follows the instructions */
	for (int i = 0; i < g->lines.len; i++)
		g->lines.items[i].insn = map[g->lines.items[i].insn];
	g->n = n;
	free(seen);
	free(stack);
	free(map);
}

void bg_timing_start(struct bgen *g, const struct derived_probe *dp)
{
	if (g->timing_map < 0 || !dp)
		return;
	g->timing_index = dp->index;
	g->timing_t0 = bg_stack(g);
	bg_call(g, H_KTIME_NS);
	stx(g, R10, g->timing_t0, R0);
}

/* @timing[index] (hits, min, max, sum, mean, m2: runtime/timing.h's
 * struct stp_timing) given one more hit of the time since the start, in
 * ns: Welford's mean and m2, a negative delta divided as its magnitude
 * (BPF's division is unsigned). */
static void timing_end(struct bgen *g)
{
	int none = bg_label(g), first = bg_label(g), minmax = bg_label(g), notmin = bg_label(g),
	    notmax = bg_label(g), neg = bg_label(g), mean = bg_label(g);

	if (g->timing_index < 0)
		return;
	bg_call(g, H_KTIME_NS);
	ldx(g, R1, R10, g->timing_t0);
	alu_x(g, A_SUB, R0, R1);
	stx(g, R10, g->timing_t0, R0);           /* now the time taken, v */
	bg_emit(g, B_ST | B_MEM | B_W, R10, 0, -4, g->timing_index);
	bg_ld_map(g, R1, g->timing_map);
	mov(g, R2, R10);
	alu_k(g, A_ADD, R2, -4);
	bg_call(g, H_MAP_LOOKUP);
	bg_jmp(g, J_EQ, R0, -1, 0, none);
	ldx(g, R1, R10, g->timing_t0);
	ldx(g, R2, R0, 0);
	bg_jmp(g, J_EQ, R2, -1, 0, first);
	ldx(g, R3, R0, 8);
	bg_jmp(g, J_SGE, R1, R3, 0, notmin);
	stx(g, R0, 8, R1);
	bg_place(g, notmin);
	ldx(g, R3, R0, 16);
	bg_jmp(g, J_SLE, R1, R3, 0, notmax);
	stx(g, R0, 16, R1);
	bg_place(g, notmax);
	bg_ja(g, minmax);
	bg_place(g, first);
	stx(g, R0, 8, R1);
	stx(g, R0, 16, R1);
	bg_place(g, minmax);
	alu_k(g, A_ADD, R2, 1);
	stx(g, R0, 0, R2);
	ldx(g, R3, R0, 24);
	alu_x(g, A_ADD, R3, R1);
	stx(g, R0, 24, R3);
	mov(g, R3, R1);                         /* delta = v - mean */
	ldx(g, R4, R0, 32);
	alu_x(g, A_SUB, R3, R4);
	mov(g, R5, R3);
	bg_jmp(g, J_SLT, R5, -1, 0, neg);
	alu_x(g, A_DIV, R5, R2);
	alu_x(g, A_ADD, R4, R5);
	bg_ja(g, mean);
	bg_place(g, neg);
	alu_k(g, A_NEG, R5, 0);
	alu_x(g, A_DIV, R5, R2);
	alu_x(g, A_SUB, R4, R5);
	bg_place(g, mean);
	stx(g, R0, 32, R4);                      /* mean += delta / hits */
	mov(g, R5, R1);
	alu_x(g, A_SUB, R5, R4);
	alu_x(g, A_MUL, R5, R3);
	ldx(g, R4, R0, 40);
	alu_x(g, A_ADD, R4, R5);
	stx(g, R0, 40, R4);                      /* m2 += delta * (v - mean) */
	bg_place(g, none);
}

void bg_timing_names(struct bgen *g)
{
	if (g->timing_map < 0)
		return;
	for (int i = 0; i < g->s->probes.len; i++) {
		const struct derived_probe *dp = g->s->probes.items[i];
		char *pos = probe_pos(dp), *from = timing_from(dp);
		struct strbuf sb = STRBUF_INIT;

		strbuf_addf(&sb, "%s, (%s)", dp->pp, pos);
		strbuf_addch(&sb, 0);
		strbuf_addstr(&sb, from);
		vec_push(&g->u->timing, ((struct bpf_bytes){ dp->index, sb.buf, sb.len }));
		free(pos);
		free(from);
	}
}

/* The index of the script's probe dp comes from (through its aliases), and
 * that probe's points as written: stapbpf says so of a probe none of whose
 * programs could be attached. */
static int written_probe(struct bgen *g, const struct derived_probe *dp, char **text)
{
	const struct probe *p = dp->probe;
	struct strbuf sb = STRBUF_INIT;
	int i;

	while (p->expanded)
		p = p->expanded;
	for (i = 0; i < g->written.len && g->written.items[i] != p; i++)
		;
	if (i == g->written.len)
		vec_push(&g->written, p);
	for (int k = 0; k < p->points.len; k++) {
		if (k)
			strbuf_addstr(&sb, ", ");
		unparse_probe_point(&sb, p->points.items[k]);
	}
	*text = strbuf_detach(&sb);
	return i;
}

void bg_prog_end(struct bgen *g, const struct bpf_attach *at, const char *pp)
{
	if (g->act_used) {   /* MAXACTION's error: its format is in r2 */
		bg_ja(g, g->exit_label);
		bg_place(g, g->act_label);
		bg_act_record(g);
	}
	bg_place(g, g->exit_label);
	timing_end(g);
	if (!g->user) {
		bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, BUSY, 0);
		bg_ja(g, g->bare_exit);
		bg_place(g, g->skip_label);
		bg_record(g, REC_SKIP, 0, "", NULL, NULL);
	}
	bg_place(g, g->bare_exit);
	bg_emit(g, B_ALU64 | A_MOV | B_K, R0, 0, 0, 0);
	bg_emit(g, B_JMP | J_EXIT, 0, 0, 0, 0);
	bg_emit_callbacks(g, g->stack_max);
	bool too_long = false;
	for (int i = 0; i < g->fix_insn.len; i++) {
		int at = g->fix_insn.items[i], to = g->label_at[g->fix_label.items[i]];
		g->insn[at].off = (int16_t)(to - at - 1);
		too_long |= to - at - 1 != g->insn[at].off;
	}
	for (int i = 0; i < g->fix_func_insn.len; i++) {
		int at = g->fix_func_insn.items[i];
		g->insn[at].imm = g->label_at[g->fix_func_label.items[i]] - at - 1;
	}
	if (too_long)   /* the jumps go astray: no walk of them */
		bg_fail(g, g->last_pos, "the probe is too long for a BPF jump (more than 32767 instructions)");
	else
		drop_unreachable(g);
	struct bpf_prog p = { .at = *at, .pp = pp ? xstrdup(pp) : NULL, .n = g->n, .from = -1 };
	if (g->dp)
		p.from = written_probe(g, g->dp, &p.written);
	p.insn = xmalloc((g->n ? g->n : 1) * sizeof(*p.insn));
	memcpy(p.insn, g->insn, g->n * sizeof(*p.insn));
	for (int i = 0; i < g->lines.len; i++)
		vec_push(&p.lines, g->lines.items[i]);
	vec_push(&g->u->progs, p);
}

/* An error's record: REC_QUIET_ERROR under --suppress-handler-errors
 * (counted in the closing warning, nothing printed, the session goes on). */
int bg_error_kind(const struct bgen *g)
{
	return g->s->suppress_handler_errors ? REC_QUIET_ERROR : REC_ERROR;
}

/* r0 = a ring buffer record of size bytes reserved, or a jump to skip
 * when the buffer is full */
void bg_rb_reserve(struct bgen *g, int size, int skip)
{
	bg_ld_map(g, R1, 0);
	bg_mov_imm(g, R2, size);
	bg_mov_imm(g, R3, 0);
	bg_call(g, H_RB_RESERVE);
	bg_jmp(g, J_EQ, R0, -1, 0, skip);
}

/* r9 = a record of size bytes whose first word is tag (its kind, and
 * what the kind keeps above bit 32), or a jump to skip when full */
void bg_rb_begin(struct bgen *g, int size, int64_t tag, int skip)
{
	bg_rb_reserve(g, size, skip);
	bg_emit(g, B_ALU64 | A_MOV | B_X, R9, R0, 0, 0);
	bg_mov_imm(g, R1, tag);
	bg_emit(g, B_STX | B_MEM | B_DW, R9, R1, 0, 0);
}

void bg_act_record(struct bgen *g)
{
	int skip = bg_label(g);

	bg_emit(g, B_ALU64 | A_LSH | B_K, R2, 0, 0, 32);
	bg_emit(g, B_ALU64 | A_OR | B_K, R2, 0, 0, bg_error_kind(g));
	bg_emit(g, B_STX | B_MEM | B_DW, R10, R2, g->act_slot, 0);
	bg_rb_reserve(g, 8, skip);
	bg_emit(g, B_LDX | B_MEM | B_DW, R1, R10, g->act_slot, 0);
	bg_emit(g, B_STX | B_MEM | B_DW, R0, R1, 0, 0);
	bg_emit(g, B_ALU64 | A_MOV | B_X, R1, R0, 0, 0);
	bg_mov_imm(g, R2, 0);
	bg_call(g, H_RB_SUBMIT);
	bg_place(g, skip);
}


void bg_str_zero(struct bgen *g, struct bstr d)
{
	for (int i = 0; i < g->strsz; i += 8)
		bg_emit(g, B_ST | B_MEM | B_DW, d.base, 0, d.off + i, 0);
}

void bg_str_copy(struct bgen *g, struct bstr d, struct bstr src)
{
	bg_str_copy_n(g, d, src, g->strsz);
}

void bg_str_copy_n(struct bgen *g, struct bstr d, struct bstr src, int n)
{
	if (d.base == src.base && d.off == src.off)
		return;
	for (int i = 0; i < n; i += 8) {
		bg_emit(g, B_LDX | B_MEM | B_DW, R1, src.base, src.off + i, 0);
		bg_emit(g, B_STX | B_MEM | B_DW, d.base, R1, d.off + i, 0);
	}
}

void bg_str_literal(struct bgen *g, struct bstr d, const char *s, size_t n)
{
	if (n > g->strsz - 1)
		n = g->strsz - 1;
	for (int i = 0; i < g->strsz; i += 8) {
		uint64_t v = 0;
		for (int j = 0; j < 8 && (size_t)(i + j) < n; j++)
			v |= (uint64_t)(unsigned char)s[i + j] << (8 * j);
		if ((int64_t)v == (int64_t)(int32_t)(int64_t)v) {
			bg_emit(g, B_ST | B_MEM | B_DW, d.base, 0, d.off + i, (int32_t)(int64_t)v);
		} else {
			bg_mov_imm(g, R1, (int64_t)v);
			bg_emit(g, B_STX | B_MEM | B_DW, d.base, R1, d.off + i, 0);
		}
	}
}

/* Reserve, fill and submit one record; nothing if the buffer is full. */
void bg_record(struct bgen *g, int kind, int fmt, const char *types, const int *lv, const struct bstr *sv)
{
	int size = 8, skip = bg_label(g), off = 8, li = 0, si = 0;

	for (const char *t = types; *t; t++)
		size += *t == 's' ? g->strsz : 8;
	bg_rb_begin(g, size, (int64_t)((uint64_t)fmt << 32 | (uint32_t)kind), skip);
	for (const char *t = types; *t; t++) {
		if (*t == 's') {
			bg_str_copy(g, (struct bstr){ R9, off }, sv[si++]);
			off += g->strsz;
		} else {
			bg_emit(g, B_LDX | B_MEM | B_DW, R1, R10, lv[li++], 0);
			bg_emit(g, B_STX | B_MEM | B_DW, R9, R1, off, 0);
			off += 8;
		}
	}
	bg_emit(g, B_ALU64 | A_MOV | B_X, R1, R9, 0, 0);
	bg_mov_imm(g, R2, 0);
	bg_call(g, H_RB_SUBMIT);
	bg_place(g, skip);
}

void bg_fmt_add_literal(struct strbuf *sb, const char *text, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (text[i] == '%')
			strbuf_addch(sb, '%');
		strbuf_addch(sb, text[i]);
	}
}

char *bg_fmt_quote(const char *text)
{
	struct strbuf sb = STRBUF_INIT;

	bg_fmt_add_literal(&sb, text, strlen(text));
	return strbuf_detach(&sb);
}

char *bg_near_fmt(const char *msg, const char *what, const char *name, struct srcpos pos)
{
	char *n = near_text(what, name, pos), *q = bg_fmt_quote(n);
	char *f = xasprintf("%s near %s\n", msg, q);

	free(n);
	free(q);
	return f;
}

/* As the module runtime counts: every statement run and every round of a
 * loop; the count is checked against MAXACTION_INTERRUPTIBLE. The error's
 * format goes to the shared code in r2 (made by bg_prog_end). */
void bg_action(struct bgen *g, const struct stmt *st)
{
	char *n, *q, *f;

	if (g->s->no_time_limits)
		return;
	n = stmt_near_text(st);
	q = bg_fmt_quote(n);
	f = xasprintf("MAXACTION exceeded near %s\n", q);
	bg_emit(g, B_LDX | B_MEM | B_DW, R1, R10, g->act_slot, 0);
	bg_emit(g, B_ALU64 | A_ADD | B_K, R1, 0, 0, 1);
	bg_emit(g, B_STX | B_MEM | B_DW, R10, R1, g->act_slot, 0);
	bg_mov_imm(g, R2, bg_fmt(g, "", f, strlen(f)));
	bg_jmp(g, J_SGT, R1, -1, g->maxaction, g->act_label);
	g->act_used = true;
	free(n);
	free(q);
	free(f);
}

void bg_raise(struct bgen *g, const char *bare, int fmt, const char *types, const int *lv,
	      const struct bstr *sv)
{
	const struct btry *t = g->tries.len ? &g->tries.items[g->tries.len - 1] : NULL;

	if (!t) {
		bg_record(g, bg_error_kind(g), fmt, types, lv, sv);
		if (!g->s->suppress_handler_errors)
			bg_stop_kernel(g);
		bg_ja(g, g->exit_label);
		return;
	}
	if (t->var && !*types) {
		bg_str_literal(g, (struct bstr){ R7, t->var->off }, bare, strlen(bare));
	} else if (t->var && !strcmp(types, "s")) {   /* error(msg): msg */
		bg_str_copy(g, (struct bstr){ R7, t->var->off }, sv[0]);
	} else if (t->var && !strcmp(types, "l") && g->user) {   /* formatted by stapbpf */
		int at = bg_scratch(g, 8);
		bg_emit(g, B_LDX | B_MEM | B_DW, R1, R10, lv[0], 0);
		bg_emit(g, B_STX | B_MEM | B_DW, R7, R1, at, 0);
		bg_emit(g, B_ALU64 | A_MOV | B_X, R1, R7, 0, 0);
		bg_emit(g, B_ALU64 | A_ADD | B_K, R1, 0, 0, t->var->off);
		bg_mov_imm(g, R2, bg_fmt(g, "l", bare, strlen(bare)));
		bg_emit(g, B_ALU64 | A_MOV | B_X, R3, R7, 0, 0);
		bg_emit(g, B_ALU64 | A_ADD | B_K, R3, 0, 0, at);
		bg_call(g, HU_SPRINTF);
	} else if (t->var && !g->user) {   /* a fault's address ..., formatted here */
		bg_kformat(g, bare, strlen(bare), types, lv, sv, (struct bstr){ R7, t->var->off }, g->last_pos);
	} else if (t->var) {
		bg_fail(g, g->last_pos, "the message of this error caught in a kernel probe has no BPF form yet");
	}
	bg_ja(g, t->catch_label);
}

void bg_stop_kernel(struct bgen *g)
{
	int none = bg_label(g);

	if (g->user)
		return;
	bg_lookup0(g, g->config_map);
	bg_jmp(g, J_EQ, R0, -1, 0, none);
	bg_emit(g, B_ST | B_MEM | B_DW, R0, 0, 8, 0);
	bg_place(g, none);
}

void bg_error(struct bgen *g, const char *bare, const char *text)
{
	bg_raise(g, bare, bg_fmt(g, "", text, strlen(text)), "", NULL, NULL);
}
