/* lowered.h - the lowered form: what pass 2 resolves a target expression
 * ($x, $p->f[i], @cast(p, "t")->f, @var, &$x, an SDT marker's $argN, a
 * BTF function's parameter) to, for both backends; and (struct lupdate,
 * at the end) what each update of the script writes and how.
 *
 * A value is a small tree of typed steps over the probe's context, each a
 * 64-bit integer:
 *
 *   LX_CONST k            a constant (hex: an address or a mask, printed so)
 *   LX_REG n              DWARF register n of the probe's saved registers
 *   LX_PTR                the expression's @cast pointer operand
 *   LX_INDEX n            the value of the chain's n-th [index] operand
 *   LX_KASLR              the kernel's load offset (added to link-time addresses)
 *   LX_UBIAS              a process probe's load bias (added to the file's addresses)
 *   LX_MODSYM n           the address of the n-th module global read (looked up at start)
 *   LX_LOCAL n            a pretty printer's value n (the pointer it follows; -1:
 *                         the struct it prints, in a module's printing function)
 *   LX_LOAD a, size, user a read of size bytes at address a, kernel or user memory:
 *                         zero-extended; a fault is the script's error
 *   LX_SEXT a, bits       a's low bits, sign-extended
 *   LX_ADD .. LX_SAR a, b two's complement arithmetic (LX_SHR logical, LX_SAR
 *                         arithmetic; shift counts taken modulo 64)
 *   LX_NEG a, LX_NOT a
 *
 * The module backend prints it as C over runtime/deref.h (lx_to_c), the BPF
 * backend compiles it to instructions (translate/bpf/tvar.c); neither reads
 * the other's text. Nodes are shared freely (DW_OP_dup): a tree is never
 * changed after it is made, and lives as long as the session.
 */
#ifndef CSTAP_LOWERED_H
#define CSTAP_LOWERED_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

enum lx_op {
	LX_CONST, LX_REG, LX_PTR, LX_INDEX, LX_KASLR, LX_UBIAS, LX_MODSYM, LX_LOCAL,
	LX_LOAD, LX_SEXT,
	LX_ADD, LX_SUB, LX_MUL, LX_AND, LX_OR, LX_XOR, LX_SHL, LX_SHR, LX_SAR,
	LX_NEG, LX_NOT,
};

struct lx {
	enum lx_op op;
	int64_t k;              /* CONST: the value; REG, INDEX, MODSYM, LOCAL: the number;
				 * LOAD: bytes (1, 2, 4, 8); SEXT: bits */
	bool hex;               /* CONST: an address or a mask */
	bool user;              /* LOAD: user memory */
	const struct lx *a, *b; /* operands */
};

const struct lx *lx_const(int64_t k);
const struct lx *lx_hex(uint64_t k);
const struct lx *lx_leaf(enum lx_op op, int64_t n);   /* REG, PTR, INDEX, KASLR, UBIAS, MODSYM, LOCAL */
const struct lx *lx_load(const struct lx *addr, int size, bool user);
const struct lx *lx_sext(const struct lx *a, int bits);
const struct lx *lx_bin(enum lx_op op, const struct lx *a, const struct lx *b);
const struct lx *lx_un(enum lx_op op, const struct lx *a);
/* a + k */
const struct lx *lx_add_k(const struct lx *a, int64_t k);
/* base + operand n (LX_INDEX) * stride: element n of an array at base */
const struct lx *lx_index(const struct lx *base, int n, int64_t stride);
/* Is count a constant shift count in 0..63, which needs no "modulo 64"? */
bool lx_small_shift(const struct lx *count);
/* a's low bytes as an integer of size bytes, signed or not (a itself for 8) */
const struct lx *lx_fit(const struct lx *a, int size, bool sign);

/* Does the tree hold a step of kind op? */
bool lx_has(const struct lx *x, enum lx_op op);
/* The tree as an s-expression, for tests and -p2 dumps: "(load 8 k (+ (reg 7) 8))". */
void lx_dump(struct strbuf *out, const struct lx *x);

/* A pretty-printed value ($x$, $p$$, $$parms, $$return ...) lowered: its
 * text is these items in order, as SystemTap prints it.
 *
 *   LP_TEXT text           literal text
 *   LP_VALUE x, fmt        the value x written as fmt; "?" when reading it faults
 *   LP_STRING x, n         the string at address x (a char array of n bytes), quoted;
 *                          "?" when it cannot be read
 *   LP_DEREF x, n, body    the pointer x, read once: body printed with it as
 *                          LX_LOCAL n; "?" when reading it faults
 *   LP_STRUCT x, n, body   the members of the struct at x: body printed with x
 *                          as LX_LOCAL -1; n numbers the distinct bodies of a
 *                          session (the module prints each in a function of its
 *                          own, shared by every probe printing the same type)
 */
enum lp_kind { LP_TEXT, LP_VALUE, LP_STRING, LP_DEREF, LP_STRUCT };
enum lp_fmt {
	LP_DEC,         /* %lld */
	LP_UDEC,        /* %llu */
	LP_HEX,         /* %#llx */
	LP_CHAR,        /* the low byte, quoted as a char */
	LP_STR,         /* the string the value points to, quoted */
};

struct lp;
typedef VEC(struct lp *) lpvec;

struct lp {
	enum lp_kind kind;
	char *text;             /* TEXT */
	const struct lx *x;     /* VALUE, STRING, DEREF, STRUCT */
	enum lp_fmt fmt;        /* VALUE */
	int n;                  /* STRING: bytes; DEREF: the local; STRUCT: the body's number */
	const lpvec *body;      /* DEREF, STRUCT */
};

void lp_text(lpvec *v, const char *text);
void lp_textf(lpvec *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lp_value(lpvec *v, const struct lx *x, enum lp_fmt fmt);
void lp_string(lpvec *v, const struct lx *x, int size);
void lp_nested(lpvec *v, enum lp_kind kind, const struct lx *x, int n, const lpvec *body);
/* Are a and b the same items (the same text, the same steps)? */
bool lp_equal(const lpvec *a, const lpvec *b);
/* A hash of the items, equal for lp_equal ones. */
uint64_t lp_hash(const lpvec *v);
/* Is v one text item alone (*text: it)? */
bool lp_constant(const lpvec *v, const char **text);
/* The items as s-expressions, for tests. */
void lp_dump(struct strbuf *out, const lpvec *v);

/* ---- updates ---------------------------------------------------------------
 * What an assignment, ++/-- or <<< writes and how, decided once in pass 2
 * (elaborate/updates.c) for both backends: the module prints it as C
 * (translate/module/module.c, gen_update), BPF compiles it
 * (translate/bpf/expr.c, assign) and refuses, while lowering in pass 2, a
 * home it has no form of. Neither backend asks the tree again what kind of
 * variable, operator or type an update has. */
enum lu_home {
	LU_LOCAL,       /* a local, or a function's parameter */
	LU_GLOBAL,      /* a scalar global */
	LU_ELEMENT,     /* an array element: a map's put */
	LU_AGGREGATE,   /* a statistics value (<<<) */
	LU_TARGET,      /* a target variable ($x, @cast, @var: guru mode writes it) */
};

enum lu_how {
	LU_SET,         /* = */
	LU_APPEND,      /* .= on a string */
	LU_COMBINE,     /* OP= on a number: the old value OP the new */
	LU_STEP,        /* ++ or -- */
	LU_STAT_ADD,    /* <<< */
};

struct lupdate {
	enum lu_home home;
	enum lu_how how;
	int op;             /* COMBINE: the operator (ast.h's OP_ADD for +=); STEP: OP_INC or OP_DEC */
	int step;           /* STEP: +1 or -1 */
	bool string;        /* the value written is a string */
	bool post;          /* x++, x--: the expression's value is the old one */
	bool adds;          /* +=, -=, ++, --: an atomic add does it where the home has one */
};

#endif
