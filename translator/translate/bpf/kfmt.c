/* kfmt.c - sprintf() and the sprint family in a kernel probe: the string
 * made by BPF code. printf hands its values to stapbpf, which formats
 * them (runtime/format.h) in user space; a string the probe keeps (a key,
 * a comparison, a value stored) has to exist in the kernel.
 *
 * The format is walked here: its widths, precisions and flags are
 * constants, so each conversion becomes straight-line code with
 * runtime/format.h's meaning. The result is built by appends: each copies
 * a source (a literal, a run of 63 spaces or zeros, a string value, the
 * digits of a number) behind the length so far with
 * bpf_probe_read_kernel_str, bounded by the room left, which keeps the
 * string NUL-padded as every string slot is. The length so far and the
 * counts computed at run time live in scratch memory: a value read back
 * from a map is one unknown to the verifier, so the paths through a
 * conversion (one per digit count, per sign) meet again after it.
 */
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "target/syscalls_gen.h"
#include "translate/bpf/gen.h"

struct kfmt {
	struct bgen *g;
	struct bstr d;          /* the string being made */
	int len;                /* r7 offset: its length so far */
	struct bstr spaces, zeros;
	bool have_spaces, have_zeros;
};

static void st_byte(struct bgen *g, int base, int off, int32_t v)
{
	bg_emit(g, B_ST | B_MEM | B_B, base, 0, off, v);
}

/* Append what r3 points at, at most r4 bytes (r4 may be anything: cut to
 * 0..63); r3 and r4 are set by the caller. */
static void append(struct kfmt *k)
{
	struct bgen *g = k->g;
	int fits = bg_label(g), room = bg_label(g), none = bg_label(g), kept = bg_label(g);

	bg_jmp(g, J_SLE, R4, -1, 0, none);
	bg_jmp(g, J_SLE, R4, -1, g->strsz - 1, fits);
	bg_mov_imm(g, R4, g->strsz - 1);
	bg_place(g, fits);
	alu_k(g, A_ADD, R4, 1);                 /* with the NUL: 2..64 */
	ldx(g, R0, R7, k->len);
	alu_k(g, A_AND, R0, g->strsz - 1);
	str_addr(g, R1, k->d);
	alu_x(g, A_ADD, R1, R0);
	bg_mov_imm(g, R2, g->strsz);
	alu_x(g, A_SUB, R2, R0);                /* room left with the NUL: 1..64 */
	bg_jmp(g, J_LE, R2, R4, 0, room);
	mov(g, R2, R4);
	bg_place(g, room);
	bg_call(g, H_READ_KERNEL_STR);
	bg_jmp(g, J_SLE, R0, -1, 1, none);      /* nothing copied, or a fault */
	alu_k(g, A_ADD, R0, -1);
	ldx(g, R1, R7, k->len);
	alu_x(g, A_ADD, R1, R0);
	bg_jmp(g, J_SLE, R1, -1, g->strsz - 1, kept);
	bg_mov_imm(g, R1, g->strsz - 1);
	bg_place(g, kept);
	stx(g, R7, k->len, R1);
	bg_place(g, none);
}

/* Append text, a constant. */
static void append_literal(struct kfmt *k, const char *s, size_t n)
{
	struct bgen *g = k->g;

	while (n > 0) {
		size_t part = n < g->strsz - 1 ? n : g->strsz - 1;
		struct bstr t = scratch_str(g);
		bg_str_literal(g, t, s, part);
		str_addr(g, R3, t);
		bg_mov_imm(g, R4, (int64_t)part);
		append(k);
		s += part;
		n -= part;
	}
}

/* Append as many c (' ' or '0') as the slot at count says; none if it
 * says <= 0. */
static void append_fill(struct kfmt *k, char c, int count)
{
	struct bgen *g = k->g;
	bool *have = c == ' ' ? &k->have_spaces : &k->have_zeros;
	struct bstr *run = c == ' ' ? &k->spaces : &k->zeros;

	if (!*have) {
		char *buf = xmalloc(g->strsz - 1);
		memset(buf, c, g->strsz - 1);
		*run = scratch_str(g);
		bg_str_literal(g, *run, buf, g->strsz - 1);
		free(buf);
		*have = true;
	}
	str_addr(g, R3, *run);
	ldx(g, R4, R7, count);
	append(k);
}

/* A conversion's width: a constant, or ('*') the long at r10 offset lv. */
struct kwidth {
	int n;                  /* the constant; -1: none */
	int lv;                 /* '*': its value's slot; 0: a constant */
};

static bool has_width(struct kwidth w)
{
	return w.lv || w.n > 0;
}

/* A new count slot = width - minus - (the slot at off, a length). Kept in
 * memory: the paths that reach here may each have their own constants. A
 * '*' width is the value's low 32 bits, 0 if negative (format.h). */
static int pad_count(struct bgen *g, struct kwidth w, int off, int minus)
{
	int count = bg_scratch(g, 8);

	if (w.lv) {
		int pos = bg_label(g);
		ldx(g, R0, R10, w.lv);
		bg_sext(g, 32);
		bg_jmp(g, J_SGE, R0, -1, 0, pos);
		bg_mov_imm(g, R0, 0);
		bg_place(g, pos);
		alu_k(g, A_ADD, R0, -minus);
	} else {
		bg_mov_imm(g, R0, w.n - minus);
	}
	ldx(g, R1, R7, off);
	alu_x(g, A_SUB, R0, R1);
	stx(g, R7, count, R0);
	return count;
}

/* %d %i %u %o %x %X %p: stp_fmt_number's layout, sign, prefix, padding */
static void number(struct kfmt *k, const struct stp_fmt_spec *sp, struct kwidth width, int lv)
{
	struct bgen *g = k->g;
	int base = sp->conv == 'o' ? 8 : (sp->conv == 'x' || sp->conv == 'X' || sp->conv == 'p') ? 16 : 10;
	int maxdig = base == 8 ? 22 : base == 16 ? 16 : 20;
	int flags = sp->flags, prec = sp->prec;
	const char *prefix = !(flags & STP_FMT_SPECIAL) ? "" : base == 16 ? (flags & STP_FMT_LARGE) ? "0X" : "0x"
			   : base == 8 ? "0" : "";
	int sign = bg_scratch(g, 8), ndig = bg_scratch(g, 8), body = bg_scratch(g, 8), pad = 0;
	struct bstr t = scratch_str(g);
	int join = bg_label(g);

	if (flags & STP_FMT_LEFT)
		flags &= ~STP_FMT_ZEROPAD;
	bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, sign, 0);
	ldx(g, R1, R10, lv);
	if (flags & STP_FMT_SIGN) {
		int pos = bg_label(g), done = bg_label(g);
		bg_jmp(g, J_SGE, R1, -1, 0, pos);
		alu_k(g, A_NEG, R1, 0);
		st_byte(g, R7, sign, '-');
		bg_ja(g, done);
		bg_place(g, pos);
		if (flags & (STP_FMT_PLUS | STP_FMT_SPACE))
			st_byte(g, R7, sign, flags & STP_FMT_PLUS ? '+' : ' ');
		bg_place(g, done);
	}
	/* the digits, last first, ending at t[62]; t[63] the NUL */
	st_byte(g, t.base, t.off + g->strsz - 1, 0);
	for (int i = 0; i < maxdig; i++) {
		int digit = bg_label(g);
		mov(g, R2, R1);
		if (base == 10) {
			alu_k(g, A_MOD, R2, 10);
			alu_k(g, A_DIV, R1, 10);
		} else {
			alu_k(g, A_AND, R2, base - 1);
			alu_k(g, A_RSH, R1, base == 16 ? 4 : 3);
		}
		if (base == 16) {
			bg_jmp(g, J_LE, R2, -1, 9, digit);
			alu_k(g, A_ADD, R2, ((flags & STP_FMT_LARGE) ? 'A' : 'a') - 10 - '0');
		}
		bg_place(g, digit);
		alu_k(g, A_ADD, R2, '0');
		bg_emit(g, B_STX | B_MEM | B_B, t.base, R2, t.off + g->strsz - 2 - i, 0);
		bg_mov_imm(g, R3, i + 1);
		if (i < maxdig - 1)
			bg_jmp(g, J_EQ, R1, -1, 0, join);
	}
	bg_place(g, join);
	stx(g, R7, ndig, R3);
	/* body = max(prec, ndig) */
	{
		int more = bg_label(g);
		bg_jmp(g, J_SGE, R3, -1, prec, more);
		bg_mov_imm(g, R3, prec);
		bg_place(g, more);
		stx(g, R7, body, R3);
	}
	if (has_width(width)) {   /* pad = width - body - prefix - sign */
		int none = bg_label(g);
		pad = pad_count(g, width, body, (int)strlen(prefix));
		ldx(g, R0, R7, sign);
		bg_jmp(g, J_EQ, R0, -1, 0, none);
		ldx(g, R0, R7, pad);
		alu_k(g, A_ADD, R0, -1);
		stx(g, R7, pad, R0);
		bg_place(g, none);
		if (!(flags & (STP_FMT_ZEROPAD | STP_FMT_LEFT)))
			append_fill(k, ' ', pad);
	}
	str_addr(g, R3, (struct bstr){ R7, sign });
	bg_mov_imm(g, R4, 1);
	append(k);
	if (*prefix)
		append_literal(k, prefix, strlen(prefix));
	if (has_width(width) && (flags & STP_FMT_ZEROPAD))
		append_fill(k, '0', pad);
	if (prec > 0)
		append_fill(k, '0', pad_count(g, (struct kwidth){ prec, 0 }, ndig, 0));
	/* the digits: t + 63 - ndig */
	ldx(g, R0, R7, ndig);
	alu_k(g, A_AND, R0, 31);                /* 1..22: a bound the verifier knows */
	str_addr(g, R3, t);
	alu_k(g, A_ADD, R3, g->strsz - 1);
	alu_x(g, A_SUB, R3, R0);
	bg_mov_imm(g, R4, g->strsz - 1);
	append(k);
	if (has_width(width) && (flags & STP_FMT_LEFT))
		append_fill(k, ' ', pad);
}

/* %s and %c: a piece at src (or the byte of the long at lv), cut to prec,
 * padded with spaces to width */
static void text(struct kfmt *k, const struct stp_fmt_spec *sp, struct kwidth width, const struct bstr *src,
		 int lv)
{
	struct bgen *g = k->g;
	struct bstr piece = scratch_str(g);
	int n = bg_scratch(g, 8), pad = 0;

	if (src) {   /* piece = the string cut to prec; n its length */
		bg_str_zero(g, piece);
		str_addr(g, R1, piece);
		bg_mov_imm(g, R2, sp->prec >= 0 && sp->prec < g->strsz - 1 ? sp->prec + 1 : g->strsz);
		str_addr(g, R3, *src);
		bg_call(g, H_READ_KERNEL_STR);
		alu_k(g, A_ADD, R0, -1);
	} else {     /* one byte */
		ldx(g, R1, R10, lv);
		alu_k(g, A_AND, R1, 0xff);
		stx(g, piece.base, piece.off, R1);
		bg_mov_imm(g, R0, 1);
	}
	stx(g, R7, n, R0);
	if (has_width(width)) {
		pad = pad_count(g, width, n, 0);
		if (!(sp->flags & STP_FMT_LEFT))
			append_fill(k, ' ', pad);
	}
	str_addr(g, R3, piece);
	bg_mov_imm(g, R4, g->strsz - 1);
	append(k);
	if (has_width(width) && (sp->flags & STP_FMT_LEFT))
		append_fill(k, ' ', pad);
}

/* A string being made: empty, with its length 0. */
static void kfmt_init(struct kfmt *k, struct bgen *g)
{
	*k = (struct kfmt){ .g = g, .d = scratch_str(g) };
	bg_scratch(g, g->strsz);   /* room the verifier counts past k.d */
	k->len = bg_scratch(g, 8);
	bg_str_zero(g, k->d);
	bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, k->len, 0);
}

struct kfmt *bg_kfmt_start(struct bgen *g)
{
	struct kfmt *k = xmalloc(sizeof(*k));

	kfmt_init(k, g);
	return k;
}

void bg_kfmt_lit(struct kfmt *k, const char *s, size_t n)
{
	append_literal(k, s, n);
}

bool bg_kfmt_conv(struct kfmt *k, const char *conv, int lv)
{
	struct stp_fmt_spec sp;

	if (conv[0] != '%' || stp_format_parse_spec(conv + 1, &sp) < 0 || sp.width_star || sp.prec_star ||
	    !strchr("diuoxXp", sp.conv))
		return false;
	number(k, &sp, (struct kwidth){ sp.width, 0 }, lv);
	return true;
}

void bg_kfmt_str(struct kfmt *k, struct bstr s)
{
	str_addr(k->g, R3, s);
	bg_mov_imm(k->g, R4, k->g->strsz - 1);
	append(k);
}

struct bstr bg_kfmt_done(struct kfmt *k)
{
	struct bstr d = k->d;

	free(k);
	return d;
}

bool bg_kformat(struct bgen *g, const char *fmt, size_t len, const char *types, const int *lv,
		const struct bstr *sv, struct bstr d, struct srcpos pos)
{
	struct kfmt k;
	const char *p = fmt, *end = fmt + len;
	int li = 0, si = 0;

	kfmt_init(&k, g);
	while (p < end) {
		const char *lit = p;
		struct stp_fmt_spec sp;
		while (p < end && *p != '%')
			p++;
		if (p > lit)
			append_literal(&k, lit, (size_t)(p - lit));
		if (p == end)
			break;
		int n = stp_format_parse_spec(p + 1, &sp);
		if (n < 0) {   /* refused in pass 2 */
			bg_fail(g, pos, "a bad format conversion");
			return false;
		}
		p += 1 + n;
		if (sp.conv == '%') {
			append_literal(&k, "%", 1);
			continue;
		}
		if (sp.prec_star || strchr("bmM", sp.conv) || (sp.conv == 'c' && (sp.flags & STP_FMT_SPECIAL))) {
			bg_fail(g, pos, "sprintf's %%%.*s in a kernel probe has no BPF form yet%s", n, p - n,
				strchr("mM", sp.conv) ? "" : " (printf has)");
			return false;
		}
		struct kwidth w = { sp.width, 0 };
		if (sp.width_star) {
			if (types[li + si] != 'l') {   /* refused in pass 2 */
				bg_fail(g, pos, "a string value for a '*' width");
				return false;
			}
			w.lv = lv[li++];
		}
		char type = types[li + si];
		if (sp.conv == 's' && type == 's')
			text(&k, &sp, w, &sv[si++], 0);
		else if (sp.conv == 'c' && type == 'l')
			text(&k, &sp, w, NULL, lv[li++]);
		else if (type == 'l')
			number(&k, &sp, w, lv[li++]);
		else {   /* a string for a number: refused in pass 2 */
			bg_fail(g, pos, "a string value for %%%c", sp.conv);
			return false;
		}
	}
	bg_str_copy(g, d, k.d);
	return true;
}

/* text_str()'s two-character escapes (runtime/strings.h), byte and letter */
static const char escape_letters[][2] = { { '\n', 'n' }, { '\t', 't' }, { '\r', 'r' }, { '\v', 'v' },
					  { '\f', 'f' }, { '\a', 'a' }, { '\b', 'b' }, { '"', '"' },
					  { '\\', '\\' } };

void bg_text_str(struct bgen *g, struct bstr in, bool quoted, struct bstr d)
{
	struct bstr t = scratch_str(g);
	int pos = bg_scratch(g, 8), room = bg_scratch(g, 8), cut = bg_scratch(g, 8);
	int loop = bg_label(g), end = bg_label(g), letter = bg_label(g), octal = bg_label(g),
	    plain = bg_label(g), put = bg_label(g), next = bg_label(g);

	bg_str_copy(g, t, in);
	bg_str_zero(g, d);
	bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, pos, quoted);
	bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, room, g->strsz - 1 - (quoted ? 5 : 0));
	bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, cut, 0);
	if (quoted)
		st_byte(g, d.base, d.off, '"');
	bg_mov_imm(g, R1, 0);   /* the input's index: a loop of one bound */
	bg_place(g, loop);
	bg_jmp(g, J_GE, R1, -1, g->strsz - 1, end);
	str_byte(g, R2, R3, t, R1);
	bg_jmp(g, J_EQ, R2, -1, 0, end);
	/* r4 = the escape's length, r5 its letter */
	for (size_t i = 0; i < sizeof(escape_letters) / sizeof(escape_letters[0]); i++) {
		bg_mov_imm(g, R5, escape_letters[i][1]);
		bg_jmp(g, J_EQ, R2, -1, escape_letters[i][0], letter);
	}
	bg_mov_imm(g, R4, 4);
	bg_jmp(g, J_LT, R2, -1, 32, put);
	bg_jmp(g, J_GE, R2, -1, 127, put);
	bg_mov_imm(g, R4, 1);
	bg_ja(g, put);
	bg_place(g, letter);
	bg_mov_imm(g, R4, 2);
	bg_place(g, put);
	/* no room for it: the end (quoted, with "...") */
	ldx(g, R0, R7, room);
	{
		int fits = bg_label(g);
		bg_jmp(g, J_LE, R4, R0, 0, fits);
		if (quoted)
			bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, cut, 1);
		bg_ja(g, end);
		bg_place(g, fits);
	}
	alu_x(g, A_SUB, R0, R4);
	stx(g, R7, room, R0);
	ldx(g, R0, R7, pos);
	alu_k(g, A_AND, R0, g->strsz - 1);
	mov(g, R3, R7);
	alu_x(g, A_ADD, R3, R0);        /* r3 + d.off: where it goes */
	alu_x(g, A_ADD, R0, R4);
	stx(g, R7, pos, R0);
	bg_jmp(g, J_EQ, R4, -1, 1, plain);
	bg_jmp(g, J_EQ, R4, -1, 4, octal);
	st_byte(g, R3, d.off, '\\');
	bg_emit(g, B_STX | B_MEM | B_B, R3, R5, d.off + 1, 0);
	bg_ja(g, next);
	bg_place(g, octal);
	st_byte(g, R3, d.off, '\\');
	for (int k = 0; k < 3; k++) {
		mov(g, R5, R2);
		alu_k(g, A_RSH, R5, 6 - 3 * k);
		alu_k(g, A_AND, R5, 7);
		alu_k(g, A_ADD, R5, '0');
		bg_emit(g, B_STX | B_MEM | B_B, R3, R5, d.off + 1 + k, 0);
	}
	bg_ja(g, next);
	bg_place(g, plain);
	bg_emit(g, B_STX | B_MEM | B_B, R3, R2, d.off, 0);
	bg_place(g, next);
	alu_k(g, A_ADD, R1, 1);
	bg_ja(g, loop);
	bg_place(g, end);
	if (quoted) {   /* the closing quote, and "..." if the input did not fit */
		int whole = bg_label(g);
		ldx(g, R0, R7, pos);
		alu_k(g, A_AND, R0, g->strsz - 1);
		mov(g, R3, R7);
		alu_x(g, A_ADD, R3, R0);
		st_byte(g, R3, d.off, '"');
		ldx(g, R1, R7, cut);
		bg_jmp(g, J_EQ, R1, -1, 0, whole);
		for (int k = 1; k <= 3; k++)
			st_byte(g, R3, d.off + k, '.');
		bg_place(g, whole);
	}
	st_byte(g, d.base, d.off + g->strsz - 1, 0);
}

void bg_sc_decode(struct bgen *g, const struct sc_dec_table *t, int v, bool bits, struct bstr d)
{
	if (!bits) {   /* the name of the first entry of the value */
		int end = bg_label(g);
		bg_str_zero(g, d);
		ldx(g, R2, R10, v);
		for (int i = 0; i < t->n; i++) {   /* the slot is zero: only the name's words */
			int next = bg_label(g);
			const char *name = t->e[i].name;
			size_t n = strlen(name) < g->strsz - 1 ? strlen(name) : g->strsz - 1;
			if (t->e[i].v == (int32_t)t->e[i].v) {
				bg_jmp(g, J_NE, R2, -1, t->e[i].v, next);
			} else {
				bg_mov_imm(g, R3, t->e[i].v);
				bg_jmp(g, J_NE, R2, R3, 0, next);
			}
			for (size_t w = 0; w < n; w += 8) {
				uint64_t word = 0;
				for (size_t j = 0; j < 8 && w + j < n; j++)
					word |= (uint64_t)(unsigned char)name[w + j] << (8 * j);
				bg_mov_imm(g, R1, (int64_t)word);
				stx(g, d.base, d.off + (int)w, R1);
			}
			bg_ja(g, end);
			bg_place(g, next);
		}
		bg_place(g, end);
		return;
	}
	/* the names of the entries whose bits are all in v and not all named
	 * already, '|' between, then what is left in hex (stp_sc_decode) */
	struct kfmt k = { .g = g, .d = scratch_str(g) };
	int vm = bg_scratch(g, 8), left = bg_scratch(g, 8), *said = xcalloc(t->n, sizeof(int));

	bg_scratch(g, g->strsz);   /* room the verifier counts past k.d */
	k.len = bg_scratch(g, 8);
	bg_str_zero(g, k.d);
	bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, k.len, 0);
	ldx(g, R1, R10, v);
	stx(g, R7, vm, R1);
	stx(g, R7, left, R1);
	for (int i = 0; i < t->n; i++) {
		int skip = bg_label(g), first = i;
		if (!t->e[i].v)
			continue;
		/* a name two entries share is printed once: a flag for it */
		for (int j = 0; j < i; j++)
			if (!strcmp(t->e[j].name, t->e[i].name)) {
				first = j;
				break;
			}
		bool shared = first != i;
		for (int j = i + 1; j < t->n && !shared; j++)
			shared = !strcmp(t->e[j].name, t->e[i].name);
		if (shared && !said[first])
			said[first] = bg_scratch(g, 8), bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, said[first], 0);
		bg_mov_imm(g, R2, t->e[i].v);
		ldx(g, R1, R7, vm);
		alu_x(g, A_AND, R1, R2);
		bg_jmp(g, J_NE, R1, R2, 0, skip);
		ldx(g, R1, R7, left);
		alu_x(g, A_AND, R1, R2);
		bg_jmp(g, J_EQ, R1, -1, 0, skip);
		ldx(g, R1, R7, left);
		alu_k(g, A_XOR, R2, -1);
		alu_x(g, A_AND, R1, R2);
		stx(g, R7, left, R1);
		if (shared) {
			ldx(g, R1, R7, said[first]);
			bg_jmp(g, J_NE, R1, -1, 0, skip);
			bg_emit(g, B_ST | B_MEM | B_DW, R7, 0, said[first], 1);
		}
		{
			int alone = bg_label(g);
			ldx(g, R1, R7, k.len);
			bg_jmp(g, J_EQ, R1, -1, 0, alone);
			append_literal(&k, "|", 1);
			bg_place(g, alone);
		}
		append_literal(&k, t->e[i].name, strlen(t->e[i].name));
		bg_place(g, skip);
	}
	free(said);
	{   /* what no entry covers, in hex */
		int none = bg_label(g), alone = bg_label(g), slot = bg_stack(g);
		struct stp_fmt_spec hex = { .width = -1, .prec = -1, .conv = 'x' };
		ldx(g, R1, R7, left);
		bg_jmp(g, J_EQ, R1, -1, 0, none);
		stx(g, R10, slot, R1);
		ldx(g, R1, R7, k.len);
		bg_jmp(g, J_EQ, R1, -1, 0, alone);
		append_literal(&k, "|", 1);
		bg_place(g, alone);
		append_literal(&k, "0x", 2);
		number(&k, &hex, (struct kwidth){ -1, 0 }, slot);
		bg_place(g, none);
	}
	bg_str_copy(g, d, k.d);
}
