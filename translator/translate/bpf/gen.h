/* gen.h - the BPF backend's generator state, shared by its files:
 *   prog.c   instructions, labels, stack and scratch slots, maps, formats,
 *            the bundle's text (doc/bpf-bundle.md)
 *   expr.c   expressions: calls inlined, or made by an intrinsic
 *   intrinsics.c  the BPF intrinsics tapset functions name (doc/bpf-intrinsics.md)
 *   stmt.c   statements, probes, the entry points (bpf.h)
 *
 * Registers while a program runs: r6 the context (r1 at entry), r7 the
 * @scratch value (strings and keys, per CPU), r8 the @globals value (every
 * scalar global), r9 the ring buffer record being filled. A long value is
 * in r0; a string value is a 64-byte slot (strsz: -D MAXSTRINGLEN makes it
 * longer) at a constant offset from r7 or r8 (struct bstr), NUL-padded so
 * that equal strings are equal bytes.
 */
#ifndef CSTAP_BPF_GEN_H
#define CSTAP_BPF_GEN_H

#include "ast.h"
#include "session.h"
#include "probes/provider.h"
#include "translate/bpf/insn.h"
#include "translate/bpf/unit.h"

struct derived_probe;

struct bstr {           /* where a string value is */
	int base;       /* R7 (scratch) or R8 (globals) */
	int off;
};

struct bloc {           /* where a local lives in the program being made */
	const struct sym *sym;
	bool str;
	int off;        /* long: r10-relative (negative); string: r7-relative */
};

struct bwrap {          /* a wrapping array's own maps (wrap.c) */
	int state, keys, slot;
	int64_t n;              /* its size */
};

struct bcallback;       /* callback.c: a loop bpf_loop runs */

struct binline {        /* a function call being inlined */
	const struct func *f;
	struct expr *call;      /* the call */
	int ret_label;
	struct bloc ret;
};

struct bentry {         /* a value read at entry of a .return probe */
	struct expr *e;         /* @entry(...) or an at_entry target expression */
	bool str;
	int voff;               /* in the entry map's value */
	int off;                /* the return program's copy: r10 (long), r7 (string) */
};

struct btry {           /* a try being made: where its errors go */
	int catch_label;
	struct bloc *var;       /* catch (var): gets the message; or NULL */
};

/* Where a construct only stapbpf's interpreter can run is allowed. */
/* @scratch's first word: set while a kernel probe runs on its CPU (prog.c) */
#define BUSY 0

#define BG_USER_ONLY "BPF can do it only in begin and end probes, and in timer probes that " \
	"read nothing of the task or CPU they interrupt"

struct bgen {
	struct session *s;
	bool failed;
	int strsz;              /* a string value's bytes: BPF_STRSZ, or -D MAXSTRINGLEN's (a power of 2) */
	bool comm_known;        /* comm_off looked up (intrinsics.c's comm_offset) */
	int comm_off;           /* task_struct's comm, read in place; -1: through the helper */
	int nfails, nfails_user;   /* refusals; of them, of what user space can run */
	struct bpf_unit *u;     /* what is made: maps, formats, programs */
	VEC(const struct probe *) written;   /* the script's probes programs came from */
	struct strbuf fmt_keys; /* "TYPES TEXT" of each of u's formats */
	struct bfmt_slot {      /* bg_fmt's index of them */
		uint64_t h;
		int id;
		size_t off, len;    /* the key in fmt_keys (len 0: a free slot) */
	} *fmt_tab;
	size_t fmt_cap;
	int *gmap;              /* per s->globals: its map (arrays, aggregates), or -1 */
	int *goff;              /* per s->globals: its offset in @globals (scalars) */
	unsigned *knarrow;      /* per s->globals: bit k set when string key k is
				 * BG_KEY_NARROW bytes (keywidth.c) */
	struct bwrap *wrap;     /* per s->globals: a wrapping array's list */
	int globals_map, scratch_map, config_map;
	int rodata_map;         /* -1 until symname() or symdata() needs it (ksym.c) */
	int timing_map;         /* -t: @timing, else -1 */
	int timing_index;       /* the program's derived probe, timed (-t), else -1 */
	int timing_t0;          /* its r10 slot: the clock at the start */
	struct strbuf globals_spec;
	int globals_size, scratch_size;
	/* the program being made */
	const struct derived_probe *dp;
	struct bpf_context ctx; /* what dp's family says of its context (bg_set_probe) */
	int as_trampoline;      /* making dp's program for a trampoline: 1 fentry, 2 fexit */
	bool user;              /* begin/end/error/procfs: run by stapbpf's interpreter */
	bool user_timer;        /* ... and a timer probe it runs so (no task context) */
	bool timer_randomized;  /* ... because of its .randomize(M) */
	bool ctx_args;          /* the context is u64 args[] (a raw tracepoint), not pt_regs */
	struct binsn *insn;
	int n, cap;
	VEC(struct bpf_line) lines;
	struct srcpos last_pos;
	int *label_at;          /* per label: its instruction, -1 not placed yet */
	int nlabels;
	intvec fix_insn, fix_label;
	int stack, scratch;     /* bytes in use */
	int stack_max;          /* the deepest stack of the function being made */
	VEC(struct bcallback *) callbacks;   /* the program's, made after its exit */
	bool in_callback;       /* making one */
	int making;             /* which (its index in callbacks) */
	intvec fix_func_insn, fix_func_label;   /* callback addresses to resolve */
	VEC(struct bloc *) locs;
	intvec brk, cont;       /* enclosing loops' labels */
	intvec hist_walks;      /* aggregates (global index) a foreach walks the buckets of */
	VEC(struct binline *) inl;
	VEC(struct btry) tries; /* innermost last */
	int exit_label;         /* the end: BUSY cleared, then bare_exit */
	int bare_exit, skip_label;   /* the end before BUSY was set; a skipped probe's */
	int act_slot, act_label;   /* MAXACTION: the count's slot; the error's code */
	bool act_used;
	int64_t maxaction;
	int64_t maxmapentries;
	int64_t maxskipped;     /* -D MAXSKIPPED, else -1 */
	/* entry.c: the .return probe being made reads these at entry */
	VEC(struct bentry) entries;
	int entry_map;          /* -1: none */
	int bias_voff, bias_off;   /* the load bias in the map's value (-1: none), its copy */
	int64_t entry_ret_off;  /* the frame address at return: the stack pointer + it */
	bool in_entry;          /* making the program on the function's entry */
	strvec procfs;          /* the procfs files so far: 'r' or 'w', then the path */
};

/* prog.c */
void bg_emit(struct bgen *g, uint8_t code, int dst, int src, int off, int32_t imm);
void bg_pos(struct bgen *g, struct srcpos pos);
void bg_mov_imm(struct bgen *g, int reg, int64_t v);
void bg_ld_map(struct bgen *g, int reg, int map);
void bg_call(struct bgen *g, int helper);
void bg_lookup0(struct bgen *g, int map);   /* r0 = &map[0] (or NULL); key 0 at r10-8 */
void bg_sext(struct bgen *g, int bits);     /* r0 = its low bits, sign-extended */
int bg_label(struct bgen *g);
void bg_place(struct bgen *g, int label);
void bg_jmp(struct bgen *g, int op, int reg, int src, int64_t imm, int label); /* src < 0: imm */
void bg_ja(struct bgen *g, int label);
int bg_stack(struct bgen *g);           /* an 8-byte slot: its r10 offset */
int bg_scratch(struct bgen *g, int n);  /* n bytes of scratch: their r7 offset */
void bg_fail(struct bgen *g, struct srcpos pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* the refusal of what, which user space could run: "WHAT: " BG_USER_ONLY */
void bg_fail_user_only(struct bgen *g, struct srcpos pos, const char *what);
int bg_map(struct bgen *g, const char *kind, const char *key, const char *val, int64_t max, const char *name);
int bg_fmt(struct bgen *g, const char *types, const char *text, size_t len);
void bg_prog_start(struct bgen *g, const struct derived_probe *dp, bool user);
/* the program made so far, attached at at, of probe point pp (NULL: none) */
void bg_prog_end(struct bgen *g, const struct bpf_attach *at, const char *pp);
/* dp becomes the probe whose programs are made: g->dp, g->ctx */
void bg_set_probe(struct bgen *g, const struct derived_probe *dp);
/* string slots */
void bg_str_zero(struct bgen *g, struct bstr d);
void bg_str_copy(struct bgen *g, struct bstr d, struct bstr src);
/* Its first n bytes (a multiple of 8) only. */
void bg_str_copy_n(struct bgen *g, struct bstr d, struct bstr src, int n);
void bg_str_literal(struct bgen *g, struct bstr d, const char *s, size_t n);
/* a record on the ring buffer: fmt id with the values at slots (long: r10
 * offsets in lv, strings in sv, in the order types gives) */
void bg_record(struct bgen *g, int kind, int fmt, const char *types, const int *lv, const struct bstr *sv);
/* The script's error. Outside a try: an ERROR record (fmt with the values
 * types, lv and sv give, as bg_record) and the end of the program. Inside
 * one: its catch runs, and its variable, if any, gets the message alone:
 * bare, a format of the same values without the "near ..." part. */
void bg_raise(struct bgen *g, const char *bare, int fmt, const char *types, const int *lv,
	      const struct bstr *sv);
/* A kernel probe's exit() or error: no kernel probe runs after it (the run
 * state in @config), as in the module runtime */
void bg_stop_kernel(struct bgen *g);
/* bg_raise of a message with no values: bare, and text (bare near ...) */
void bg_error(struct bgen *g, const char *bare, const char *text);
/* text with its % doubled (a format that prints it as it is): appended
 * to sb (n bytes of text), or as a new string */
void bg_fmt_add_literal(struct strbuf *sb, const char *text, size_t n);
char *bg_fmt_quote(const char *text);
/* "MSG near WHAT 'NAME' at POS\n", %-quoted, as a format */
char *bg_near_fmt(const char *msg, const char *what, const char *name, struct srcpos pos);
/* r0 = size (1, 2, 4 or 8) bytes read at address r0, zero-extended; a
 * fault is the script's error fault_msg (one %x: the address) near what
 * 'name' at pos. false for another size */
bool bg_read_mem(struct bgen *g, int size, bool user, const char *fault_msg, const char *what,
		 const char *name, struct srcpos pos);
/* MAXACTION: one more action, named by st; the error when there are too many */
void bg_action(struct bgen *g, const struct stmt *st);

/* callback.c: a loop over kernel data as bpf_loop's callback (false:
 * refused); the callbacks made after the program's exit, given the
 * probe's own stack depth */
bool bg_loop_callback(struct bgen *g, struct stmt *st);
/* delete a[k, *] in a kernel probe: the pattern at r7+pat (stmt.c) */
bool bg_slice_delete_callback(struct bgen *g, struct stmt *st, int pat, int keysize);
/* (stmt.c) the bytes of array v's key; delete the element whose key is at
 * r7+key if it matches the slice st deletes (pattern at r7+pat) */
int bg_key_size(const struct bgen *g, const struct sym *v);
/* The key of arr[keys] built in scratch, laid out as arr's map has it:
 * its r7 offset (expr.c). bg_key_pattern: a slice's (arr[k, *]), its '*'
 * fields left as they are. */
int bg_key_build(struct bgen *g, const struct sym *arr, struct expr **keys, int n);
int bg_key_pattern(struct bgen *g, const struct sym *arr, struct expr **keys, int n);
/* keywidth.c: which string keys of the script's arrays are narrow (every
 * key given them is at most 15 characters: execname(), a short literal,
 * a foreach variable over the same key); a key's bytes in its map, and its
 * bundle letter (l, s, or c: a BG_KEY_NARROW-byte string) */
#define BG_KEY_NARROW 16
void bg_key_widths(struct bgen *g);
int bg_key_width(const struct bgen *g, const struct sym *v, int k);
char bg_key_letter(const struct bgen *g, const struct sym *v, int k);
void bg_slice_match_delete(struct bgen *g, struct stmt *st, int pat, int key);
void bg_slice_in(struct bgen *g, struct expr *e);   /* r0 = [k, *] in a */
void bg_emit_callbacks(struct bgen *g, int main_stack);
/* r0 = 1 once the lock word at offset 0 of map's entry 0 is taken (a
 * bpf_loop of compare-and-exchange tries), 0 if it stays taken */
void bg_spin_lock(struct bgen *g, int map);
/* prog.c: r0 = a reserved ring buffer record of size bytes (bg_rb_reserve),
 * r9 = one whose first word is tag (bg_rb_begin); both jump to skip when
 * the buffer is full */
void bg_rb_reserve(struct bgen *g, int size, int skip);
void bg_rb_begin(struct bgen *g, int size, int64_t tag, int skip);
/* MAXACTION's error record, its format in r2 */
void bg_act_record(struct bgen *g);
/* Is the target kernel release at least major.minor? */
bool bg_kernel_at_least(const struct session *s, int major, int minor);
/* the loop's body with its break and continue labels; one round of a
 * while or for loop: condition, body, step (stmt.c) */
void bg_loop_body(struct bgen *g, struct stmt *st, int brk, int cont);
void bg_loop_round(struct bgen *g, struct stmt *st, int brk, int cont);

/* wrap.c: a wrapping array's list, kept beside its map (key: the r7
 * offset of the key being written or deleted) */
void bg_wrap_maps(struct bgen *g, const struct sym *v, const char *key, int64_t n);
int bg_wrap_admit(struct bgen *g, const struct sym *v, int key, struct srcpos pos);
int bg_wrap_forget(struct bgen *g, const struct sym *v, int key, struct srcpos pos);
void bg_wrap_release(struct bgen *g, int st);
void bg_wrap_clear(struct bgen *g, const struct sym *v);
#define BG_WRAP_UTIMER "changing a wrapping array in a timer probe stapbpf runs (kernel probes " \
	"change it at the same time)"

/* One-instruction shorthands, and the slots strings live in. */
static inline void mov(struct bgen *g, int dst, int src)
{
	bg_emit(g, B_ALU64 | A_MOV | B_X, dst, src, 0, 0);
}

static inline void alu_k(struct bgen *g, int op, int reg, int32_t imm)
{
	bg_emit(g, B_ALU64 | op | B_K, reg, 0, 0, imm);
}

static inline void alu_x(struct bgen *g, int op, int dst, int src)
{
	bg_emit(g, B_ALU64 | op | B_X, dst, src, 0, 0);
}

static inline void ldx(struct bgen *g, int dst, int base, int off)
{
	bg_emit(g, B_LDX | B_MEM | B_DW, dst, base, off, 0);
}

static inline void stx(struct bgen *g, int base, int off, int src)
{
	bg_emit(g, B_STX | B_MEM | B_DW, base, src, off, 0);
}

/* r = the address of a string slot (an argument to a helper) */
static inline void str_addr(struct bgen *g, int reg, struct bstr s)
{
	mov(g, reg, s.base);
	alu_k(g, A_ADD, reg, s.off);
}

/* dst = byte idx (a register the verifier bounds) of scratch string s,
 * addressed through tmp */
static inline void str_byte(struct bgen *g, int dst, int tmp, struct bstr s, int idx)
{
	mov(g, tmp, R7);
	alu_x(g, A_ADD, tmp, idx);
	bg_emit(g, B_LDX | B_MEM | B_B, dst, tmp, s.off, 0);
}

static inline struct bstr scratch_str(struct bgen *g)
{
	return (struct bstr){ R7, bg_scratch(g, g->strsz) };
}

/* prog.c: -t, the probe body's time from here to its program's end added
 * to @timing[dp's index] (bg_prog_end); the unit's names of the probes for
 * stapbpf's report */
void bg_timing_start(struct bgen *g, const struct derived_probe *dp);
void bg_timing_names(struct bgen *g);

/* prog.c: the record kind of a run-time error (REC_ERROR, or quiet) */
int bg_error_kind(const struct bgen *g);

/* expr.c: r0 = addr(), in a probe whose context has the registers
 * (kprobe, kretprobe, uprobe, perf event); false (nothing made) in another */
bool bg_probe_addr(struct bgen *g);
/* ksym.c: print_backtrace() (a STACK record stapbpf prints) */
void bg_print_backtrace(struct bgen *g, struct srcpos pos);
/* ustack.c: print_ubacktrace() and dtrace's ustack(frames) (a USTACK
 * record stapbpf names and prints in style) */
void bg_print_ustack(struct bgen *g, struct srcpos pos, int style, int frames);

/* ksym.c: d = symname(addr), or symdata(addr) when data; @rodata's
 * contents in the unit, when a program uses it */
void bg_ksym(struct bgen *g, struct expr *addr, bool data, struct bstr d, struct srcpos pos);
void bg_ksym_rodata(struct bgen *g);

/* kfmt.c: in a kernel probe, d = fmt (a checked format) of the values
 * (long: r10 offsets in lv, strings in sv, in the order types gives), made
 * by BPF code; false after reporting a conversion it has no form of */
bool bg_kformat(struct bgen *g, const char *fmt, size_t len, const char *types, const int *lv,
		const struct bstr *sv, struct bstr d, struct srcpos pos);

/* kfmt.c: a string made piece by piece in a kernel probe: a literal, a
 * number (conv: one of %d %u %x %#x ...; the value at r10 offset lv; false
 * for another), a string slot; done gives where it is */
struct kfmt;
struct kfmt *bg_kfmt_start(struct bgen *g);
void bg_kfmt_lit(struct kfmt *k, const char *s, size_t n);
bool bg_kfmt_conv(struct kfmt *k, const char *conv, int lv);
void bg_kfmt_str(struct kfmt *k, struct bstr s);
struct bstr bg_kfmt_done(struct kfmt *k);

/* kfmt.c: d = text_str(in) (quoted: string_quoted(in)), as runtime/strings.h
 * escapes, cut to BPF's 63 bytes ("..." after a quoted one); d has 64
 * bytes of room after it */
void bg_text_str(struct bgen *g, struct bstr in, bool quoted, struct bstr d);

/* kfmt.c: d = __sc_t_NAME(v, bits) of table t (runtime/syscall_decode.h's
 * stp_sc_decode), v the r10 offset of the value */
struct sc_dec_table;
void bg_sc_decode(struct bgen *g, const struct sc_dec_table *t, int v, bool bits, struct bstr d);

/* rematch.c: r0 = 1 if the string s matches re, else 0 (false after
 * reporting one it cannot run) */
struct regex_prog;
bool bg_regex(struct bgen *g, const struct regex_prog *re, struct bstr s, struct srcpos pos);

/* intrinsics.c (doc/bpf-intrinsics.md): e calls a function whose
 * / * bpf:NAME * / pragma names an intrinsic, made here (a string into *out);
 * false: none, or it has no form here (nothing made). bg_intrinsic_fixed:
 * e's value when it is known as the program is made, else -1;
 * bg_intrinsic_text: e's constant string (pp()), or NULL. */
bool bg_intrinsic_call(struct bgen *g, struct expr *e, struct bstr *out);
/* embedded C in an expression (%{ ... %}) whose pragma names a long intrinsic,
 * made (task_current()'s @task(%{ (long)current %})); false: none */
bool bg_intrinsic_embedded(struct bgen *g, struct expr *e);
int bg_intrinsic_fixed(struct bgen *g, struct expr *e);
const char *bg_intrinsic_text(const struct bgen *g, const struct expr *e, size_t *n);
/* The bytes (its NUL included) the string e's intrinsic makes at most
 * (execname(): 16), or 0: not bounded below BPF_STRSZ. */
int bg_intrinsic_str_bound(const struct expr *e);
/* e, a string intrinsic that makes exactly n bytes (execname() and 16),
 * made straight into d: true; false (nothing made) for any other */
bool bg_intrinsic_into(struct bgen *g, struct expr *e, struct bstr d, int n);
/* the current task's comm, NUL-padded, into the 16 bytes at d */
void bg_comm_into(struct bgen *g, struct bstr d);

/* expr.c */
/* "MSG near WHAT 'NAME' at POS", the script's error; the refusal of what
 * only stapbpf's programs can do (false) outside them */
void bg_error_near(struct bgen *g, const char *msg, const char *what, const char *name, struct srcpos pos);
bool bg_user_only(struct bgen *g, struct srcpos pos, const char *what);
/* what e stands for: a parameter of a function being inlined that it never
 * assigns is the caller's argument (seen through in turn): a constant a
 * tapset function passes on to an intrinsic */
struct expr *bg_arg_source(struct bgen *g, struct expr *e);
void bg_long(struct bgen *g, struct expr *e);           /* value in r0 */
/* a constant string of n bytes as a value (what names it): BPF's strings
 * hold 63 bytes; a longer one is refused, not cut (printf of one prints
 * it whole) */
bool bg_str_fits(struct bgen *g, size_t n, const char *what, struct srcpos pos);
struct bstr bg_str(struct bgen *g, struct expr *e);     /* value in a slot */
void bg_effect(struct bgen *g, struct expr *e);         /* for its effects */
struct bloc *bg_local(struct bgen *g, const struct sym *v);
struct bloc *bg_local_new(struct bgen *g, const struct sym *v);
void bg_local_zero(struct bgen *g, struct bloc *l);
/* tvar.c: $target variables and @cast in r0 (false: refused) */
bool bg_tvar(struct bgen *g, struct expr *e);
int bg_pt_regs_off(int dwarf_reg);      /* where struct pt_regs holds it */
/* What a lowered value's leaves stand for where it is compiled: the
 * target expression's operands (LX_PTR first, then LX_INDEX), the pretty
 * printer's locals (LX_LOCAL n: r10 slot slots[n], 0: none) and the
 * structs being printed (LX_LOCAL -1: self[nself - 1], itself compiled
 * with the ones before). */
#define BG_LX_LOCALS 8
#define BG_LX_SELVES 8      /* structs printed one in another, at the most */
struct bg_lxscope {
	struct expr **ops;
	int nops;
	bool has_ptr;
	int slots[BG_LX_LOCALS];
	const struct lx *self[BG_LX_SELVES];
	int nself;
};
/* r0 = x for the target expression te (messages) in scope sc; false when
 * BPF has no form of a step (not reported) */
bool bg_lx(struct bgen *g, const struct lx *x, const struct expr *te, const struct bg_lxscope *sc);
/* sc's operands: te's (free sc->ops after) */
void bg_lx_operands(struct expr *te, struct bg_lxscope *sc);
/* a string-valued one ($$name, $$parms ...) into d (false: refused); a
 * constant one's text (allocated) */
bool bg_tvar_str(struct bgen *g, struct expr *e, struct bstr d);
bool bg_tvar_const(struct bgen *g, struct expr *e, char **s, size_t *n);
/* is e an SDT marker's $$parms ($$vars)? of *nargs arguments; argument i
 * of it as $$parms shows it ("0x..", "?" when it faults) into d */
bool bg_mark_parms(struct bgen *g, struct expr *e, int *nargs);
bool bg_mark_arg_str(struct bgen *g, struct expr *e, int i, struct bstr d);
/* the format of a marker's $$parms: "$arg1=%s $arg2=%s ..." */
void bg_mark_parms_fmt(struct strbuf *fmt, int nargs);
/* pretty.c: a pretty-printed target variable ($x$, $$parms ...): its text
 * into d, cut to 63 bytes (false: refused, reported); or as printf's
 * pieces: pieces appends its format (a %s per value) to fmt (may be NULL)
 * and says how many values (-1: it has no pieces), values makes them into
 * sv[0 ..] */
bool bg_pretty_value(struct bgen *g, struct expr *e, struct bstr d);
int bg_pretty_pieces(struct bgen *g, struct expr *e, struct strbuf *fmt);
bool bg_pretty_values(struct bgen *g, struct expr *e, struct bstr *sv);
/* entry.c: before a probe's program, the program reading its values at
 * entry, if it has any (false: refused, reported); in the return program,
 * after bg_prog_start, their copies (the body is skipped without them);
 * bg_entry_value: e's copy (r0, or *out for a string), false if e is
 * none; bg_ubias: r0 = the process probe's load bias */
bool bg_entry_prepare(struct bgen *g, const struct derived_probe *dp);
void bg_entry_load(struct bgen *g);
/* Is tv read at a BPF trampoline's fexit as it was at entry (no entry
 * program)? */
struct tvar;
bool bg_fexit_reads(const struct bgen *g, const struct tvar *tv);
bool bg_entry_value(struct bgen *g, struct expr *e, struct bstr *out);
void bg_ubias(struct bgen *g);
bool bg_tvar_defined(struct bgen *g, struct expr *e);
/* the buckets after an aggregate's count, sum, min, max (0: no histogram) */
int bg_hist_buckets(const struct sym *v);
int bg_stat_bytes(const struct sym *v);
/* stmt.c */
void bg_stmt(struct bgen *g, struct stmt *st);

#endif
