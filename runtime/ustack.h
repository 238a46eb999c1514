/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: user-space symbols and stacks (ubacktrace, usymname,
 * umodname ...).
 *
 * The translator puts the symbols and the call frame information of the
 * user files a script may meet into the module (stp_ustack ..
 * stp_ustack_end, format in translator/target/ustack.h): the probed
 * files, -d FILE's and, with --ldd, their shared libraries. Each file is
 * found by its inode, looked up by path when the script is initialized.
 *
 * A user address is mapped to its file and load bias through the current
 * task's VMAs: find_vma() under mmap_read_trylock(), as probe handlers run
 * with preemption disabled and must not sleep (no lookup at all in NMI
 * context, and none when the lock is taken: the frame is then unknown).
 * The stack is unwound with the DWARF CFI of x86-64 (CFA a register plus
 * an offset, or the PLT's expression; register rules undefined, same
 * value, offset, value offset and register; remember/restore state),
 * every read of the user stack by copy_from_user_nofault; whatever else
 * the CFI says ends the backtrace, as does a file without unwind data,
 * as in SystemTap (which has no frame-pointer fallback for user stacks).
 */
#ifndef STP_USTACK_H
#define STP_USTACK_H

#include <linux/elf.h>
#include <linux/mm.h>
#include <linux/mmap_lock.h>
#include <linux/namei.h>
#include <linux/ptrace.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "context.h"
#include "print.h"

extern const char stp_ustack[], stp_ustack_end[];

#define STP_USTK_MAGIC 0x55505453u
#define STP_USTK_MAXSEG 8
#define STP_USTK_SIGNAL 1
#define STP_UBT_MAX 32		/* frames a user backtrace collects at most */

struct stp_ustk_hdr {
	u32 magic, nfiles;
};

struct stp_ustk_seg {
	u64 vaddr, offset, filesz;
};

struct stp_ustk_file {
	u32 path, nsegs;
	struct stp_ustk_seg segs[STP_USTK_MAXSEG];
	u32 nsyms, syms, nfdes, fdes, ncies, cies;
};

struct stp_ustk_sym {
	u64 addr;
	u32 size, name;
};

struct stp_ustk_fde {
	u64 lo;
	u32 len, cie, ins, ins_len;
};

struct stp_ustk_cie {
	u32 ins, ins_len;
	s32 data_align;
	u32 code_align, ra, flags;
};

static struct inode **stp_ustk_inodes;

static const struct stp_ustk_hdr *stp_ustk_table(void)
{
	const struct stp_ustk_hdr *h = (const void *)stp_ustack;

	if (stp_ustack_end - stp_ustack < (long)sizeof(*h) || h->magic != STP_USTK_MAGIC)
		return NULL;
	return h;
}

static const struct stp_ustk_file *stp_ustk_file(const struct stp_ustk_hdr *h, u32 i)
{
	return (const struct stp_ustk_file *)(stp_ustack + sizeof(*h)) + i;
}

static inline const char *stp_ustk_str(u32 off)
{
	return stp_ustack + off;
}

/* At script init: each file's inode (a file that is not there is never found). */
static __maybe_unused void stp_ustack_init(void)
{
	const struct stp_ustk_hdr *h = stp_ustk_table();
	u32 i;

	if (!h || !h->nfiles)
		return;
	stp_ustk_inodes = kcalloc(h->nfiles, sizeof(*stp_ustk_inodes), GFP_KERNEL);
	if (!stp_ustk_inodes)
		return;
	for (i = 0; i < h->nfiles; i++) {
		struct path path;

		if (kern_path(stp_ustk_str(stp_ustk_file(h, i)->path), LOOKUP_FOLLOW, &path))
			continue;
		stp_ustk_inodes[i] = igrab(d_inode(path.dentry));
		path_put(&path);
	}
}

static __maybe_unused void stp_ustack_exit(void)
{
	const struct stp_ustk_hdr *h = stp_ustk_table();
	u32 i;

	if (!stp_ustk_inodes)
		return;
	for (i = 0; h && i < h->nfiles; i++)
		if (stp_ustk_inodes[i])
			iput(stp_ustk_inodes[i]);
	kfree(stp_ustk_inodes);
	stp_ustk_inodes = NULL;
}

/* Where a user address is: its file (NULL: none of the table's) and the
 * file's load bias (run-time minus link-time address). */
struct stp_uloc {
	const struct stp_ustk_file *f;
	unsigned long bias;
};

/* The current task's mm, read-locked if that can be done here; NULL if not. */
static struct mm_struct *stp_ustk_lock(void)
{
	struct mm_struct *mm = current->mm;

	if (!mm || (current->flags & PF_KTHREAD) || in_nmi() || !stp_ustk_inodes)
		return NULL;
	return mmap_read_trylock(mm) ? mm : NULL;
}

static void stp_ustk_unlock(struct mm_struct *mm)
{
	if (mm)
		mmap_read_unlock(mm);
}

/* addr's file and bias (mm read-locked by the caller); false if unknown. */
static bool stp_ustk_locate(struct mm_struct *mm, unsigned long addr, struct stp_uloc *loc)
{
	const struct stp_ustk_hdr *h = stp_ustk_table();
	struct vm_area_struct *vma;
	struct inode *inode;
	unsigned long foff;
	u32 i, k;

	if (!mm || !h)
		return false;
	vma = find_vma(mm, addr);
	if (!vma || vma->vm_start > addr || !vma->vm_file)
		return false;
	inode = file_inode(vma->vm_file);
	foff = addr - vma->vm_start + (vma->vm_pgoff << PAGE_SHIFT);
	for (i = 0; i < h->nfiles; i++) {
		const struct stp_ustk_file *f = stp_ustk_file(h, i);

		if (stp_ustk_inodes[i] != inode)
			continue;
		for (k = 0; k < f->nsegs && k < STP_USTK_MAXSEG; k++) {
			const struct stp_ustk_seg *s = &f->segs[k];

			if (foff < s->offset || foff >= s->offset + s->filesz)
				continue;
			loc->f = f;
			loc->bias = addr - (foff - s->offset + s->vaddr);
			return true;
		}
	}
	return false;
}

/* The symbol holding link-time address a: the last one at or below it. */
static const struct stp_ustk_sym *stp_ustk_sym(const struct stp_ustk_file *f, u64 a)
{
	const struct stp_ustk_sym *syms = (const void *)(stp_ustack + f->syms);
	u32 lo = 0, hi = f->nsyms;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (syms[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &syms[lo - 1] : NULL;
}

/* The symbol of addr, its offset and size, its file; false if unknown. */
struct stp_usym {
	const char *name, *path;
	unsigned long off, size;
};

static bool stp_usym_lookup(struct mm_struct *mm, unsigned long addr, struct stp_usym *u)
{
	struct stp_uloc loc;
	const struct stp_ustk_sym *s;

	if (!stp_ustk_locate(mm, addr, &loc))
		return false;
	u->path = stp_ustk_str(loc.f->path);
	s = stp_ustk_sym(loc.f, addr - loc.bias);
	if (!s)
		return false;
	u->name = stp_ustk_str(s->name);
	u->off = addr - loc.bias - s->addr;
	u->size = s->size;
	return true;
}

/* --- the DWARF CFI unwinder ---------------------------------------------- */

#define STP_UREGS 17		/* DWARF x86-64 registers 0..15 and the return address */
#define STP_URA 16

enum { STP_RULE_SAME, STP_RULE_UNDEF, STP_RULE_OFFSET, STP_RULE_VALOFF, STP_RULE_REG, STP_RULE_BAD };

struct stp_urule {
	u8 kind;
	s64 val;
};

struct stp_ucfa {
	struct stp_urule r[STP_UREGS];
	int reg;		/* CFA = reg + off, or expr when reg < 0 */
	s64 off;
	const u8 *expr;
	u32 expr_len;
};

struct stp_uregs {
	unsigned long r[STP_UREGS];
	u32 valid;		/* bit n: r[n] is known */
};

static int stp_ureg_slot(int n)
{
	static const u8 slot[STP_UREGS] = {
		offsetof(struct pt_regs, ax) / 8, offsetof(struct pt_regs, dx) / 8,
		offsetof(struct pt_regs, cx) / 8, offsetof(struct pt_regs, bx) / 8,
		offsetof(struct pt_regs, si) / 8, offsetof(struct pt_regs, di) / 8,
		offsetof(struct pt_regs, bp) / 8, offsetof(struct pt_regs, sp) / 8,
		offsetof(struct pt_regs, r8) / 8, offsetof(struct pt_regs, r9) / 8,
		offsetof(struct pt_regs, r10) / 8, offsetof(struct pt_regs, r11) / 8,
		offsetof(struct pt_regs, r12) / 8, offsetof(struct pt_regs, r13) / 8,
		offsetof(struct pt_regs, r14) / 8, offsetof(struct pt_regs, r15) / 8,
		offsetof(struct pt_regs, ip) / 8,
	};
	return slot[n];
}

static bool stp_ustk_read(unsigned long addr, unsigned long *v)
{
	return !copy_from_user_nofault(v, (const void __user *)addr, sizeof(*v));
}

struct stp_ucur {
	const u8 *p, *end;
	bool bad;
};

static u64 stp_uleb(struct stp_ucur *c)
{
	u64 v = 0;
	int shift = 0;

	while (c->p < c->end) {
		u8 b = *c->p++;

		if (shift < 64)
			v |= (u64)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static s64 stp_sleb(struct stp_ucur *c)
{
	s64 v = 0;
	int shift = 0;

	while (c->p < c->end) {
		u8 b = *c->p++;

		if (shift < 64)
			v |= (s64)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= -((s64)1 << shift);
			return v;
		}
	}
	c->bad = true;
	return 0;
}

static u64 stp_ufixed(struct stp_ucur *c, int n)
{
	u64 v = 0;
	int i;

	if (c->end - c->p < n) {
		c->bad = true;
		return 0;
	}
	for (i = 0; i < n; i++)
		v |= (u64)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

/*
 * A DWARF expression's value, for DW_CFA_def_cfa_expression: the ops the
 * PLT's CFA uses (breg, lit, const, plus, minus, and, ge, shl, deref ...).
 * false for any other.
 */
static bool stp_uexpr(const u8 *p, u32 len, const struct stp_uregs *regs, unsigned long *out)
{
	struct stp_ucur c = { p, p + len, false };
	unsigned long st[8];
	int sp = 0;

	while (c.p < c.end && !c.bad) {
		u8 op = *c.p++;
		unsigned long a, b;

		if (sp >= 8)
			return false;
		if (op >= 0x30 && op <= 0x4f) {		/* DW_OP_lit0..31 */
			st[sp++] = op - 0x30;
			continue;
		}
		if (op >= 0x70 && op <= 0x80) {		/* DW_OP_breg0..16 */
			int n = op - 0x70;

			if (!(regs->valid & (1u << n)))
				return false;
			st[sp++] = regs->r[n] + stp_sleb(&c);
			continue;
		}
		switch (op) {
		case 0x08: st[sp++] = stp_ufixed(&c, 1); continue;
		case 0x09: st[sp++] = (s8)stp_ufixed(&c, 1); continue;
		case 0x0a: st[sp++] = stp_ufixed(&c, 2); continue;
		case 0x0b: st[sp++] = (s16)stp_ufixed(&c, 2); continue;
		case 0x0c: st[sp++] = stp_ufixed(&c, 4); continue;
		case 0x0d: st[sp++] = (s32)stp_ufixed(&c, 4); continue;
		case 0x10: st[sp++] = stp_uleb(&c); continue;
		case 0x11: st[sp++] = stp_sleb(&c); continue;
		case 0x06:				/* DW_OP_deref */
			if (sp < 1 || !stp_ustk_read(st[sp - 1], &st[sp - 1]))
				return false;
			continue;
		case 0x23:				/* DW_OP_plus_uconst */
			if (sp < 1)
				return false;
			st[sp - 1] += stp_uleb(&c);
			continue;
		}
		if (sp < 2)
			return false;
		b = st[--sp];
		a = st[sp - 1];
		switch (op) {
		case 0x1a: a &= b; break;		/* and */
		case 0x1c: a -= b; break;		/* minus */
		case 0x21: a |= b; break;		/* or */
		case 0x22: a += b; break;		/* plus */
		case 0x24: a = b < 64 ? a << b : 0; break;	/* shl */
		case 0x25: a = b < 64 ? a >> b : 0; break;	/* shr */
		case 0x27: a ^= b; break;		/* xor */
		case 0x29: a = a == b; break;		/* eq */
		case 0x2a: a = (long)a >= (long)b; break;	/* ge */
		case 0x2b: a = (long)a > (long)b; break;	/* gt */
		case 0x2c: a = (long)a <= (long)b; break;	/* le */
		case 0x2d: a = (long)a < (long)b; break;	/* lt */
		case 0x2e: a = a != b; break;		/* ne */
		default: return false;
		}
		st[sp - 1] = a;
	}
	if (c.bad || sp < 1)
		return false;
	*out = st[sp - 1];
	return true;
}

#define STP_USTATES 4		/* DW_CFA_remember_state depth */

static void stp_urule_set(struct stp_ucfa *s, u64 reg, u8 kind, s64 val)
{
	if (reg < STP_UREGS) {
		s->r[reg].kind = kind;
		s->r[reg].val = val;
	}
}

/*
 * Run CFA instructions up to the row of link-time address target (loc is
 * where they start); init holds the CIE's rules for DW_CFA_restore, NULL
 * while running the CIE's own. false on anything it does not know.
 */
static bool stp_ucfa_run(const u8 *p, u32 len, const struct stp_ustk_cie *cie, u64 loc, u64 target,
			 struct stp_ucfa *s, const struct stp_ucfa *init)
{
	struct stp_ucur c = { p, p + len, false };
	struct stp_ucfa saved[STP_USTATES];
	int depth = 0;

	while (c.p < c.end && !c.bad) {
		u8 op = *c.p++;
		u64 reg, delta = 0;

		switch (op >> 6) {
		case 1:			/* DW_CFA_advance_loc */
			delta = op & 0x3f;
			break;
		case 2:			/* DW_CFA_offset */
			stp_urule_set(s, op & 0x3f, STP_RULE_OFFSET, (s64)stp_uleb(&c) * cie->data_align);
			continue;
		case 3:			/* DW_CFA_restore */
			if (init && (op & 0x3f) < STP_UREGS)
				s->r[op & 0x3f] = init->r[op & 0x3f];
			continue;
		default:
			switch (op) {
			case 0x00: continue;				/* nop */
			case 0x02: delta = stp_ufixed(&c, 1); break;	/* advance_loc1 */
			case 0x03: delta = stp_ufixed(&c, 2); break;
			case 0x04: delta = stp_ufixed(&c, 4); break;
			case 0x05:					/* offset_extended */
				reg = stp_uleb(&c);
				stp_urule_set(s, reg, STP_RULE_OFFSET, (s64)stp_uleb(&c) * cie->data_align);
				continue;
			case 0x06:					/* restore_extended */
				reg = stp_uleb(&c);
				if (init && reg < STP_UREGS)
					s->r[reg] = init->r[reg];
				continue;
			case 0x07: stp_urule_set(s, stp_uleb(&c), STP_RULE_UNDEF, 0); continue;
			case 0x08: stp_urule_set(s, stp_uleb(&c), STP_RULE_SAME, 0); continue;
			case 0x09:					/* register */
				reg = stp_uleb(&c);
				stp_urule_set(s, reg, STP_RULE_REG, stp_uleb(&c));
				continue;
			case 0x0a:					/* remember_state */
				if (depth >= STP_USTATES)
					return false;
				saved[depth++] = *s;
				continue;
			case 0x0b:					/* restore_state */
				if (!depth)
					return false;
				depth--;
				memcpy(s->r, saved[depth].r, sizeof(s->r));
				continue;
			case 0x0c:					/* def_cfa */
				s->reg = stp_uleb(&c);
				s->off = stp_uleb(&c);
				continue;
			case 0x0d: s->reg = stp_uleb(&c); continue;	/* def_cfa_register */
			case 0x0e: s->off = stp_uleb(&c); continue;	/* def_cfa_offset */
			case 0x0f:					/* def_cfa_expression */
				s->expr_len = stp_uleb(&c);
				s->expr = c.p;
				s->reg = -1;
				if (c.end - c.p < s->expr_len)
					return false;
				c.p += s->expr_len;
				continue;
			case 0x10:					/* expression */
			case 0x16:					/* val_expression */
				reg = stp_uleb(&c);
				delta = stp_uleb(&c);
				if (c.end - c.p < delta)
					return false;
				c.p += delta;
				stp_urule_set(s, reg, STP_RULE_BAD, 0);
				continue;
			case 0x11:					/* offset_extended_sf */
				reg = stp_uleb(&c);
				stp_urule_set(s, reg, STP_RULE_OFFSET, stp_sleb(&c) * cie->data_align);
				continue;
			case 0x12:					/* def_cfa_sf */
				s->reg = stp_uleb(&c);
				s->off = stp_sleb(&c) * cie->data_align;
				continue;
			case 0x13: s->off = stp_sleb(&c) * cie->data_align; continue;
			case 0x14:					/* val_offset */
				reg = stp_uleb(&c);
				stp_urule_set(s, reg, STP_RULE_VALOFF, (s64)stp_uleb(&c) * cie->data_align);
				continue;
			case 0x15:					/* val_offset_sf */
				reg = stp_uleb(&c);
				stp_urule_set(s, reg, STP_RULE_VALOFF, stp_sleb(&c) * cie->data_align);
				continue;
			case 0x2e: stp_uleb(&c); continue;		/* GNU_args_size */
			case 0x2f:					/* GNU_negative_offset_extended */
				reg = stp_uleb(&c);
				stp_urule_set(s, reg, STP_RULE_OFFSET, -(s64)stp_uleb(&c) * cie->data_align);
				continue;
			default:
				return false;
			}
		}
		loc += delta * cie->code_align;
		if (loc > target)
			return true;
	}
	return !c.bad;
}

static const struct stp_ustk_fde *stp_ustk_fde(const struct stp_ustk_file *f, u64 a)
{
	const struct stp_ustk_fde *fdes = (const void *)(stp_ustack + f->fdes);
	u32 lo = 0, hi = f->nfdes;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (fdes[mid].lo <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || a - fdes[lo - 1].lo >= fdes[lo - 1].len)
		return NULL;
	return &fdes[lo - 1];
}

/*
 * One frame up: regs hold the frame of pc (the probed pc if first, else
 * a return address); on success they hold the caller's, its pc in
 * regs->r[STP_URA]. *signal: the caller's frame is a signal frame.
 */
static bool stp_ustk_step(struct mm_struct *mm, struct stp_uregs *regs, bool first, bool *signal)
{
	unsigned long pc = regs->r[STP_URA], cfa, v;
	const struct stp_ustk_cie *cie;
	const struct stp_ustk_fde *fde;
	struct stp_ucfa init, s;
	struct stp_uregs next;
	struct stp_uloc loc;
	u64 target;
	int i;

	if (!first)
		pc--;	/* the call, not what follows it */
	if (!stp_ustk_locate(mm, pc, &loc))
		return false;
	target = pc - loc.bias;
	fde = stp_ustk_fde(loc.f, target);
	if (!fde || fde->cie >= loc.f->ncies)
		return false;
	cie = (const struct stp_ustk_cie *)(stp_ustack + loc.f->cies) + fde->cie;
	memset(&init, 0, sizeof(init));		/* every register: same value */
	init.reg = 7;
	if (!stp_ucfa_run((const u8 *)stp_ustack + cie->ins, cie->ins_len, cie, fde->lo, fde->lo, &init, NULL))
		return false;
	s = init;
	if (!stp_ucfa_run((const u8 *)stp_ustack + fde->ins, fde->ins_len, cie, fde->lo, target, &s, &init))
		return false;
	if (s.reg < 0) {
		if (!stp_uexpr(s.expr, s.expr_len, regs, &cfa))
			return false;
	} else {
		if (s.reg >= STP_UREGS || !(regs->valid & (1u << s.reg)))
			return false;
		cfa = regs->r[s.reg] + s.off;
	}
	next.valid = 0;
	for (i = 0; i < STP_UREGS; i++) {
		const struct stp_urule *r = &s.r[i];

		switch (r->kind) {
		case STP_RULE_SAME:
			next.r[i] = regs->r[i];
			next.valid |= regs->valid & (1u << i);
			break;
		case STP_RULE_OFFSET:
			if (stp_ustk_read(cfa + r->val, &v)) {
				next.r[i] = v;
				next.valid |= 1u << i;
			}
			break;
		case STP_RULE_VALOFF:
			next.r[i] = cfa + r->val;
			next.valid |= 1u << i;
			break;
		case STP_RULE_REG:
			if (r->val < STP_UREGS && (regs->valid & (1u << r->val))) {
				next.r[i] = regs->r[r->val];
				next.valid |= 1u << i;
			}
			break;
		}
	}
	if (cie->ra != STP_URA || s.r[STP_URA].kind == STP_RULE_UNDEF || !(next.valid & (1u << STP_URA)))
		return false;
	if ((regs->valid & (1u << 7)) && cfa <= regs->r[7])
		return false;	/* the stack grows down: no progress */
	next.r[7] = cfa;
	next.valid |= 1u << 7;
	if (!next.r[STP_URA])
		return false;
	*signal = cie->flags & STP_USTK_SIGNAL;
	*regs = next;
	return true;
}

/* The user stack of the current task from regs: its pc first, then each
 * return address the CFI finds; how many. */
static __maybe_unused int stp_ubacktrace_pcs(struct pt_regs *pt, unsigned long *pcs, int max)
{
	struct mm_struct *mm;
	struct stp_uregs regs;
	bool first = true, signal = false;
	int n = 0, i;

	if (!pt || max <= 0)
		return 0;
	pcs[n++] = instruction_pointer(pt);
	mm = stp_ustk_lock();
	if (!mm)
		return n;
	for (i = 0; i < STP_UREGS; i++)
		regs.r[i] = ((unsigned long *)pt)[stp_ureg_slot(i)];
	regs.valid = (1u << STP_UREGS) - 1;
	while (n < max && stp_ustk_step(mm, &regs, first || signal, &signal)) {
		pcs[n++] = regs.r[STP_URA];
		first = false;
	}
	stp_ustk_unlock(mm);
	return n;
}

/* --- what the tapset prints ---------------------------------------------- */

/* What the loader maps of the ELF file whose header is at base: up to the
 * end of its last PT_LOAD's memory (its bss), page-aligned; 0 if unknown. */
static unsigned long stp_ustk_elf_span(unsigned long base)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	unsigned long lo = ULONG_MAX, hi = 0;
	int i;

	if (copy_from_user_nofault(&eh, (const void __user *)base, sizeof(eh)) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(ph) || eh.e_phnum > 32)
		return 0;
	for (i = 0; i < eh.e_phnum; i++) {
		if (copy_from_user_nofault(&ph, (const void __user *)(base + eh.e_phoff + i * sizeof(ph)),
					   sizeof(ph)))
			return 0;
		if (ph.p_type != PT_LOAD)
			continue;
		lo = min_t(unsigned long, lo, ph.p_vaddr & PAGE_MASK);
		hi = max_t(unsigned long, hi, PAGE_ALIGN(ph.p_vaddr + ph.p_memsz));
	}
	return hi > lo ? hi - lo : 0;
}

/* The span of the file mapped at addr in mm (every VMA of it), its path
 * into buf; false if addr is in no file's mapping. */
static bool stp_ustk_vma_file(struct mm_struct *mm, unsigned long addr, char *buf, size_t n,
			      const char **path, unsigned long *base, unsigned long *size)
{
	struct vm_area_struct *vma, *v;
	unsigned long lo, hi;

	if (!mm)
		return false;
	vma = find_vma(mm, addr);
	if (!vma || vma->vm_start > addr || !vma->vm_file)
		return false;
	lo = vma->vm_start;
	hi = vma->vm_end;
	{
		VMA_ITERATOR(vmi, mm, 0);

		for_each_vma(vmi, v) {
			if (!v->vm_file || file_inode(v->vm_file) != file_inode(vma->vm_file))
				continue;
			lo = min(lo, v->vm_start);
			hi = max(hi, v->vm_end);
		}
	}
	hi = max(hi, lo + stp_ustk_elf_span(lo));
	*path = d_path(&vma->vm_file->f_path, buf, n);
	if (IS_ERR(*path))
		return false;
	*base = lo;
	*size = hi - lo;
	return true;
}

enum stp_uframe_fmt {
	STP_UF_FULL,		/* " 0x... : sym+0x../0x.. [/path]" (print_ubacktrace) */
	STP_UF_SHORT,		/* "sym+0x.. [name]" (sprint_ubacktrace) */
	STP_UF_BRIEF,		/* "sym+0x.." (print_ubacktrace_brief) */
	STP_UF_DATA,		/* "sym+0x../0x.. [/path]" (usymdata) */
	STP_UF_NAME,		/* "sym" (usymname) */
	STP_UF_DTRACE,		/* "              file`sym+0x.." (dtrace's ustack()) */
};

/* One address as fmt says, into out; mm read-locked by the caller (or NULL). */
static void stp_uframe_str(struct mm_struct *mm, unsigned long a, int fmt, char *out, size_t n)
{
	char buf[200];
	const char *path, *name;
	unsigned long base, size;
	struct stp_usym u;

	if (stp_usym_lookup(mm, a, &u)) {
		name = strrchr(u.path, '/');
		name = name ? name + 1 : u.path;
		switch (fmt) {
		case STP_UF_FULL:
			snprintf(out, n, " 0x%lx : %s+0x%lx/0x%lx [%s]\n", a, u.name, u.off, u.size, u.path);
			return;
		case STP_UF_SHORT:
			snprintf(out, n, "%s+0x%lx [%s]\n", u.name, u.off, name);
			return;
		case STP_UF_BRIEF:
			snprintf(out, n, "%s+0x%lx\n", u.name, u.off);
			return;
		case STP_UF_DATA:
			snprintf(out, n, "%s+0x%lx/0x%lx [%s]", u.name, u.off, u.size, u.path);
			return;
		case STP_UF_DTRACE:	/* DTrace's: no "+0x0" */
			if (u.off)
				snprintf(out, n, "%14s%s`%s+0x%lx\n", "", name, u.name, u.off);
			else
				snprintf(out, n, "%14s%s`%s\n", "", name, u.name);
			return;
		default:
			strscpy(out, u.name, n);
			return;
		}
	}
	if (fmt == STP_UF_NAME || !stp_ustk_vma_file(mm, a, buf, sizeof(buf), &path, &base, &size)) {
		snprintf(out, n, fmt == STP_UF_NAME || fmt == STP_UF_DATA ? "0x%lx" :
			 fmt == STP_UF_FULL ? " 0x%lx\n" : fmt == STP_UF_DTRACE ? "              0x%lx\n" :
			 "0x%lx\n", a);
		return;
	}
	name = strrchr(path, '/');
	name = name ? name + 1 : path;
	switch (fmt) {
	case STP_UF_DTRACE:
		snprintf(out, n, "%14s%s`0x%lx\n", "", name, a);
		return;
	case STP_UF_FULL:
		snprintf(out, n, " 0x%lx [%s+0x%lx/0x%lx]\n", a, path, a - base, size);
		return;
	case STP_UF_SHORT:
		snprintf(out, n, "0x%lx [%s+0x%lx]\n", a, name, a - base);
		return;
	case STP_UF_BRIEF:
		snprintf(out, n, "0x%lx\n", a);
		return;
	default:
		snprintf(out, n, "0x%lx [%s+0x%lx/0x%lx]", a, path, a - base, size);
		return;
	}
}

/* umodname(): the path of the file mapped at a, into out; false if none. */
static __maybe_unused bool stp_umodname(unsigned long a, char *out, size_t n)
{
	struct mm_struct *mm = stp_ustk_lock();
	const char *path;
	unsigned long base, size;
	bool ok;

	ok = stp_ustk_vma_file(mm, a, out, n, &path, &base, &size);
	if (ok)
		memmove(out, path, strlen(path) + 1);
	stp_ustk_unlock(mm);
	return ok;
}

/* usymname() / usymdata(): a single address. */
static __maybe_unused void stp_usym_str(unsigned long a, int fmt, char *out, size_t n)
{
	struct mm_struct *mm = stp_ustk_lock();

	stp_uframe_str(mm, a, fmt, out, n);
	stp_ustk_unlock(mm);
}

/*
 * The frames of pcs, each a line as fmt says, appended to out (n bytes);
 * with print, printed instead. A frame whose file has no unwind data is
 * the last one; SystemTap then warns once with its path.
 */
static __maybe_unused void stp_uframes(struct stp_context *c, const unsigned long *pcs, int cnt, int fmt,
				       char *out, size_t n)
{
	struct mm_struct *mm = stp_ustk_lock();
	char line[320];
	size_t len = 0;
	int i;

	if (out)
		out[0] = '\0';
	for (i = 0; i < cnt; i++) {
		stp_uframe_str(mm, pcs[i], fmt, line, sizeof(line));
		if (out)
			len += scnprintf(out + len, n - len, "%s", line);
		else
			stp_print_str(c, line);
	}
	stp_ustk_unlock(mm);
}

/* After a backtrace of cnt frames that ended at pcs[cnt - 1]: the warning
 * SystemTap gives when it ended for want of the file's unwind data. */
static __maybe_unused void stp_ubacktrace_warn(const unsigned long *pcs, int cnt)
{
	static atomic_t warned = ATOMIC_INIT(0);
	struct mm_struct *mm;
	struct stp_uloc loc;
	const char *path;
	unsigned long base, size;
	char *buf;

	if (!cnt || atomic_read(&warned))
		return;
	mm = stp_ustk_lock();
	buf = kmalloc(256, GFP_ATOMIC);
	/* no file's unwind data at all (a script without process probes or
	 * -d), or none for the file the stack ended in */
	if (buf && ((!stp_ustk_inodes && current->mm && !(current->flags & PF_KTHREAD)) ||
		    (mm && !stp_ustk_locate(mm, cnt > 1 ? pcs[cnt - 1] - 1 : pcs[cnt - 1], &loc))) &&
	    !atomic_xchg(&warned, 1)) {
		/* SystemTap names the file only in the processes it follows
		 * (a module with process probes) */
#if defined(STP_UPROBES_H) || defined(STP_PROCESS_H)
		bool named = mm && stp_ustk_vma_file(mm, pcs[cnt - 1], buf, 256, &path, &base, &size);
#else
		bool named = false;
#endif
		stp_warn("Missing unwind data for a module, rerun with 'stap -d %s'",
			 named ? path : "(unknown; retry with -DDEBUG_UNWIND)");
	}
	kfree(buf);
	stp_ustk_unlock(mm);
}

#endif /* STP_USTACK_H */
