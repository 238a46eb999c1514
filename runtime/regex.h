/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: s =~ "re". The translator compiles each regular expression
 * into a program of struct stp_re_insn (translator/regex.c); this runs it
 * by backtracking, leftmost first, with an explicit stack (no recursion on
 * the kernel stack) and a step budget: a pattern that would take too long
 * is a run-time error, never a stall. The last match's groups are kept per
 * CPU for matched(), matched_str() and ngroups() (tapsets/regex.stp).
 */
#ifndef STP_REGEX_H
#define STP_REGEX_H

#include <linux/percpu.h>
#include <linux/string.h>

enum { STP_RE_CHAR = 1, STP_RE_ANY, STP_RE_CLASS, STP_RE_SPLIT, STP_RE_JMP, STP_RE_SAVE,
       STP_RE_BOL, STP_RE_EOL, STP_RE_MATCH };

struct stp_re_insn {
	unsigned char op, arg;
	short x, y;		/* relative jump targets */
};

#define STP_RE_SLOTS 20		/* the whole match and 9 groups, start and end */
#define STP_RE_STACK 1024
#define STP_RE_STEPS 200000

struct stp_re_frame {
	unsigned short pc, sp;
	short slot;		/* >= 0: restore caps[slot] = old on the way back */
	short old;
};

struct stp_re_state {
	struct stp_re_frame stack[STP_RE_STACK];
	short caps[STP_RE_SLOTS];
	char subject[MAXSTRINGLEN];
	int ngroups;
	bool matched;		/* the last =~ matched */
};

/* Per CPU, allocated by stp_regex_init() (too big for static per-CPU data). */
static struct stp_re_state __percpu *stp_re_states;

static __maybe_unused int stp_regex_init(void)
{
	stp_re_states = alloc_percpu(struct stp_re_state);
	return stp_re_states ? 0 : -ENOMEM;
}

static __maybe_unused void stp_regex_exit(void)
{
	free_percpu(stp_re_states);
	stp_re_states = NULL;
}

/* This CPU's state, or NULL (a module whose script has no =~). */
static inline struct stp_re_state *stp_re_state(void)
{
	return stp_re_states ? this_cpu_ptr(stp_re_states) : NULL;
}

static inline bool stp_re_in_class(const unsigned char (*cls)[32], int k, unsigned char c)
{
	return cls[k][c / 8] & (1 << (c % 8));
}

/*
 * Match prog at s + start; 1 matched (st->caps filled), 0 not, -1 budget
 * or stack exhausted.
 */
static int stp_re_run(struct stp_re_state *st, const struct stp_re_insn *prog,
		      const unsigned char (*cls)[32], const char *s, int len, int start, long *steps)
{
	int top = 0, pc = 0, sp = start;

	for (;;) {
		const struct stp_re_insn *in = &prog[pc];
		bool ok = true;

		if (++*steps > STP_RE_STEPS)
			return -1;
		switch (in->op) {
		case STP_RE_CHAR:
			ok = sp < len && (unsigned char)s[sp] == in->arg;
			pc++, sp++;
			break;
		case STP_RE_ANY:
			ok = sp < len;
			pc++, sp++;
			break;
		case STP_RE_CLASS:
			ok = sp < len && stp_re_in_class(cls, in->arg, (unsigned char)s[sp]);
			pc++, sp++;
			break;
		case STP_RE_SPLIT:
			if (top == STP_RE_STACK)
				return -1;
			st->stack[top++] = (struct stp_re_frame){ pc + in->y, sp, -1, 0 };
			pc += in->x;
			continue;
		case STP_RE_JMP:
			pc += in->x;
			continue;
		case STP_RE_SAVE:
			if (top == STP_RE_STACK)
				return -1;
			st->stack[top++] = (struct stp_re_frame){ 0, 0, in->arg, st->caps[in->arg] };
			st->caps[in->arg] = sp;
			pc++;
			continue;
		case STP_RE_BOL:
			ok = sp == 0;
			pc++;
			break;
		case STP_RE_EOL:
			ok = sp == len;
			pc++;
			break;
		case STP_RE_MATCH:
			return 1;
		}
		if (ok)
			continue;
		/* back to the last choice, undoing the saves made since */
		for (;;) {
			struct stp_re_frame *f;

			if (top == 0)
				return 0;
			f = &st->stack[--top];
			if (f->slot >= 0) {
				st->caps[f->slot] = f->old;
				continue;
			}
			pc = f->pc;
			sp = f->sp;
			break;
		}
	}
}

/* s =~ re: 1 or 0; an error in c if the pattern needs too many steps. */
static __maybe_unused int stp_regex_match(struct stp_context *c, const struct stp_re_insn *prog,
					  const unsigned char (*cls)[32], int ngroups, const char *s)
{
	struct stp_re_state *st = stp_re_state();
	int len = strnlen(s, MAXSTRINGLEN - 1);
	long steps = 0;

	st->matched = false;
	for (int start = 0; start <= len; start++) {
		int i, r;

		for (i = 0; i < STP_RE_SLOTS; i++)
			st->caps[i] = -1;
		r = stp_re_run(st, prog, cls, s, len, start, &steps);
		if (r < 0) {
			c->last_error = "regular expression match took too long";
			return 0;
		}
		if (r) {
			memcpy(st->subject, s, len);
			st->subject[len] = '\0';
			st->ngroups = ngroups;
			st->matched = true;
			return 1;
		}
	}
	return 0;
}

/* The n-th group of the last match into out ("" if it took no part). */
static __maybe_unused const char *stp_regex_group(struct stp_context *c, long n, char *out)
{
	struct stp_re_state *st = stp_re_state();
	int a, b;

	out[0] = '\0';
	if (!st || !st->matched) {
		c->last_error = "no successful regular expression match";
		return out;
	}
	if (n < 0 || n > st->ngroups) {
		c->last_error = "the regular expression has no such group";
		return out;
	}
	a = st->caps[2 * n];
	b = st->caps[2 * n + 1];
	if (a >= 0 && b >= a) {
		memcpy(out, st->subject + a, b - a);
		out[b - a] = '\0';
	}
	return out;
}

/* ngroups(): the subexpressions of the last match, the whole match
 * counted (as SystemTap); -1 and an error if it failed. */
static __maybe_unused long stp_regex_ngroups(struct stp_context *c)
{
	struct stp_re_state *st = stp_re_state();

	if (!st || !st->matched) {
		c->last_error = "no successful regular expression match";
		return -1;
	}
	return st->ngroups + 1;
}

#endif
