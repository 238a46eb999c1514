/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: what $target variables compile to. Pass 3 turns a DWARF
 * location and a member/index chain into nested calls of these helpers:
 * registers come from the probe's pt_regs, every memory read goes through
 * the fault-safe accessors, and a failed read becomes SystemTap's
 * "read fault [man error::fault] at 0x..." error of the probe (later reads
 * of the same expression are then skipped: they return 0).
 *
 * Pretty printing ($var$, $$parms ...) uses the _try variants: a value
 * that cannot be read prints as "?" instead of failing the probe.
 */
#ifndef STP_DEREF_H
#define STP_DEREF_H

#include <linux/uaccess.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/kprobes.h>
#include "context.h"
#include "ops.h"

/* DWARF register number (x86-64 psABI) -> value in r; 0 if none. */
static inline u64 stp_pt_regs_dwarf(struct pt_regs *r, int n)
{
	switch (n) {
	case 0: return r->ax;
	case 1: return r->dx;
	case 2: return r->cx;
	case 3: return r->bx;
	case 4: return r->si;
	case 5: return r->di;
	case 6: return r->bp;
	case 7: return r->sp;
	case 8: return r->r8;
	case 9: return r->r9;
	case 10: return r->r10;
	case 11: return r->r11;
	case 12: return r->r12;
	case 13: return r->r13;
	case 14: return r->r14;
	case 15: return r->r15;
	case 16: return r->ip;
	default: return 0;
	}
}

/* DWARF register number -> the probe's pt_regs value; 0 if none. */
static inline u64 stp_dwarf_reg(struct stp_context *c, int n)
{
	if (unlikely(!c->regs)) {
		if (!c->last_error)
			c->last_error = "no registers available in this probe";
		return 0;
	}
	return stp_pt_regs_dwarf(c->regs, n);
}

/* The pt_regs slot of a DWARF register, for writes (guru mode). */
static inline unsigned long *stp_dwarf_reg_slot(struct stp_context *c, int n)
{
	struct pt_regs *r = c->regs;

	if (!r)
		return NULL;
	switch (n) {
	case 0: return &r->ax;
	case 1: return &r->dx;
	case 2: return &r->cx;
	case 3: return &r->bx;
	case 4: return &r->si;
	case 5: return &r->di;
	case 6: return &r->bp;
	case 8: return &r->r8;
	case 9: return &r->r9;
	case 10: return &r->r10;
	case 11: return &r->r11;
	case 12: return &r->r12;
	case 13: return &r->r13;
	case 14: return &r->r14;
	case 15: return &r->r15;
	default: return NULL;
	}
}

/* size bytes at addr, zero-extended. $target reads are kernel reads, as
 * SystemTap's (a user address faults); user_ok also reads user memory
 * (strings in pretty printing: a __user pointer is not marked in DWARF).
 * 0 or -EFAULT. */
static inline int stp_read_try(unsigned long addr, int size, u64 *out, bool user_ok)
{
	u8 b1; u16 b2; u32 b4; u64 b8;
	void *dst = size == 1 ? (void *)&b1 : size == 2 ? (void *)&b2 :
		    size == 4 ? (void *)&b4 : (void *)&b8;
	long rc;

	if (size != 1 && size != 2 && size != 4 && size != 8)
		return -EFAULT;
	if (addr < TASK_SIZE_MAX && user_ok)
		rc = copy_from_user_nofault(dst, (const void __user *)addr, size);
	else
		rc = copy_from_kernel_nofault(dst, (const void *)addr, size);
	if (rc)
		return -EFAULT;
	*out = size == 1 ? b1 : size == 2 ? b2 : size == 4 ? b4 : b8;
	return 0;
}

/*
 * SystemTap's embedded-C API for memory reads in a guru function (%{ %}):
 * kread(&p->field) / uread(&p->field) read a value of the field's type,
 * kderef(size, addr) / uderef(size, addr) one of size bytes; a fault sets
 * the probe's read-fault error and jumps to the function's
 * CATCH_DEREF_FAULT(), as SystemTap's do. CONTEXT is the function's
 * context (defined around each embedded function).
 */
#define __stp_deref(size, addr, user) ({					\
	u64 _stp_v = 0;								\
	if (unlikely(((user) && (unsigned long)(addr) >= TASK_SIZE_MAX) ||	\
		     stp_read_try((unsigned long)(addr), (size), &_stp_v, (user)))) { \
		stp_read_fault(CONTEXT, (unsigned long)(addr));			\
		goto deref_fault;						\
	}									\
	_stp_v; })
#define kderef(size, addr) __stp_deref((size), (addr), false)
#define uderef(size, addr) __stp_deref((size), (addr), true)
#define kread(ptr) ((typeof(*(ptr)))kderef(sizeof(*(ptr)), (ptr)))
#define uread(ptr) ((typeof(*(ptr)))uderef(sizeof(*(ptr)), (ptr)))
#define DEREF_FAULT(addr) do {							\
	stp_read_fault(CONTEXT, (unsigned long)(addr));				\
	goto deref_fault;							\
} while (0)
#define CATCH_DEREF_FAULT() if (0) { deref_fault: __attribute__((unused)); }

/* A read inside a $target expression; after an error, a no-op. */
static inline u64 stp_kread(struct stp_context *c, u64 addr, int size)
{
	u64 v = 0;

	if (unlikely(c->last_error))
		return 0;
	if (unlikely(stp_read_try((unsigned long)addr, size, &v, false)))
		stp_read_fault(c, (unsigned long)addr);
	return v;
}

/* A read inside a $target expression of a process probe: the probed
 * process's memory; after an error, a no-op. */
static inline u64 stp_uread(struct stp_context *c, u64 addr, int size)
{
	u64 v = 0;

	if (unlikely(c->last_error))
		return 0;
	if (unlikely(addr >= TASK_SIZE_MAX || stp_read_try((unsigned long)addr, size, &v, true)))
		stp_read_fault(c, (unsigned long)addr);
	return v;
}

/* A write to a $target (guru mode only); kernel memory only. */
static inline void stp_kwrite(struct stp_context *c, u64 addr, int size, u64 v)
{
	u8 b1 = v; u16 b2 = v; u32 b4 = v; u64 b8 = v;
	void *src = size == 1 ? (void *)&b1 : size == 2 ? (void *)&b2 :
		    size == 4 ? (void *)&b4 : (void *)&b8;

	if (unlikely(c->last_error))
		return;
	if (stp_write_kernel_nofault((void *)(unsigned long)addr, src, size)) {
		snprintf(c->error_buf, sizeof(c->error_buf),
			 "write fault [man error::fault] at 0x%lx", (unsigned long)addr);
		c->last_error = c->error_buf;
	}
}

/* Sign-extend the low bits of v (a value of `bits` bits). */
static inline int64_t stp_sext(u64 v, int bits)
{
	return bits >= 64 ? (int64_t)v : (int64_t)(v << (64 - bits)) >> (64 - bits);
}

/* KASLR: link-time addresses (DW_OP_addr) are moved by the distance between
 * where an exported function is and where the symbol table says it was. */
static unsigned long stp_kaslr_offset __maybe_unused;

/* The run-time addresses of the module globals the script reads ($var of a
 * module("m").function probe), looked up by "m:name" when it starts. */
#define STP_MODSYMS_MAX 32
static unsigned long stp_modsym_addrs[STP_MODSYMS_MAX] __maybe_unused;

/*
 * Where the loaded module's symbol "module:name" is, 0 when the module is
 * not loaded. kallsyms_lookup_name is not exported: the kprobes core looks
 * the name up (modules' data symbols too) and leaves the address in the
 * kprobe before it refuses to probe data. Process context only.
 */
static __maybe_unused unsigned long stp_modsym_lookup(const char *modname)
{
	struct kprobe kp = { .symbol_name = modname };
	unsigned long addr;

	if (register_kprobe(&kp) == 0) {	/* text after all: not expected */
		addr = (unsigned long)kp.addr;
		unregister_kprobe(&kp);
		return addr;
	}
	return (unsigned long)kp.addr;
}

/* ---- pretty printing ---------------------------------------------------- */

/*
 * A pretty-printed target value ($$parms$, $var$) is built in a string
 * with its length kept: a struct is a hundred pieces, and finding the end
 * of the string again for each (the kernel's strnlen is a byte loop) was
 * most of the cost. Past MAXSTRINGLEN - 1 bytes nothing more is added, and
 * the printers skip the reads of what would not fit.
 */
struct stp_sb {
	char *s;
	unsigned int len;
};

static inline bool stp_sb_full(const struct stp_sb *sb)
{
	return sb->len >= MAXSTRINGLEN - 1;
}

/* sb .= the n bytes at text, as much as fits */
static inline void stp_sb_addn(struct stp_sb *sb, const char *text, unsigned int n)
{
	if (n > MAXSTRINGLEN - 1 - sb->len)
		n = MAXSTRINGLEN - 1 - sb->len;
	memcpy(sb->s + sb->len, text, n);
	sb->len += n;
	sb->s[sb->len] = '\0';
}

/* sb .= a string literal */
#define stp_sb_lit(sb, lit) stp_sb_addn((sb), (lit), sizeof(lit) - 1)

/* sb .= v as "%lld" (how 0), "%llu" (1) or the kernel's "%#llx" (2, 0x0
 * too) print it */
static noinline void stp_sb_num(struct stp_sb *sb, u64 v, int how)
{
	char buf[24], *p = buf + sizeof(buf);
	bool neg = how == 0 && (s64)v < 0;

	if (neg)
		v = 0 - v;
	if (how == 2) {
		do
			*--p = "0123456789abcdef"[v & 15];
		while (v >>= 4);
		*--p = 'x';
		*--p = '0';
	} else {
		do
			*--p = '0' + v % 10;
		while (v /= 10);
		if (neg)
			*--p = '-';
	}
	stp_sb_addn(sb, p, buf + sizeof(buf) - p);
}

/* One escaped character as SystemTap quotes it ('\n', '\000', ...). */
static inline void stp_quote_char(char *out, unsigned char ch, char quote)
{
	switch (ch) {
	case '\n': strcpy(out, "\\n"); return;
	case '\t': strcpy(out, "\\t"); return;
	case '\r': strcpy(out, "\\r"); return;
	case '\v': strcpy(out, "\\v"); return;
	case '\f': strcpy(out, "\\f"); return;
	case '\a': strcpy(out, "\\a"); return;
	case '\b': strcpy(out, "\\b"); return;
	case '\\': strcpy(out, "\\\\"); return;
	}
	if (ch == quote) {
		out[0] = '\\'; out[1] = quote; out[2] = 0;
	} else if (ch < 32 || ch >= 127) {
		snprintf(out, 5, "\\%03o", ch);
	} else {
		out[0] = ch; out[1] = 0;
	}
}

/* 'c' for a char value */
static inline void stp_sb_char(struct stp_sb *sb, u64 v)
{
	char q[6];

	stp_quote_char(q, (unsigned char)v, '\'');
	stp_sb_lit(sb, "'");
	stp_sb_addn(sb, q, strlen(q));
	stp_sb_lit(sb, "'");
}

/* "text" read from addr (kernel or user memory), at most max bytes when
 * max > 0 (a char array); "?" if it cannot be read. */
static inline void stp_sb_string(struct stp_sb *sb, u64 addr, int max)
{
	char q[6];
	int i, lim = max > 0 ? max : MAXSTRINGLEN;
	u64 ch;

	if (stp_read_try((unsigned long)addr, 1, &ch, true)) {
		stp_sb_lit(sb, "?");
		return;
	}
	stp_sb_lit(sb, "\"");
	for (i = 0; i < lim && sb->len + 6 < MAXSTRINGLEN - 1; i++) {
		if (stp_read_try((unsigned long)addr + i, 1, &ch, true) || !ch)
			break;
		stp_quote_char(q, (unsigned char)ch, '"');
		stp_sb_addn(sb, q, strlen(q));
	}
	stp_sb_lit(sb, "\"");
}

#endif /* STP_DEREF_H */
