/* tvars.h - $target variables, @cast, @var, @defined and @entry, resolved
 * through DWARF (or BTF, or a family's own rules) in pass 2 for pass 3.
 *
 * One probe body may sit on many functions (wildcards, comma lists), and
 * $x lives in a different place in each: pass 2 resolves every target
 * expression once per derived probe into the lowered form (lowered.h): a
 * value as steps, a pretty-printed one ($x$, $$parms ...) as the items of
 * its text; the expression's operands (@cast's pointer, the [index]
 * values) are LX_PTR and LX_INDEX. Each backend compiles it; pass 3 gives
 * such a probe one body per derived probe.
 */
#ifndef CSTAP_TVARS_H
#define CSTAP_TVARS_H

#include "ast.h"
#include "target/debuginfo.h"
#include "lowered.h"

struct derived_probe;   /* probes/provider.h; here only the key of what is resolved in it */
struct dw_scope;

enum tv_kind {
	TV_VALUE,       /* value: in the lowered form */
	TV_PRETTY,      /* pretty: the items of its text */
	TV_DEFINED,     /* @defined: a constant, `defined` */
	TV_UNRESOLVED,  /* -L only: not found, no code; its type is unknown */
};

struct tvar {
	const struct derived_probe *dp; /* NULL: the same in every probe (@cast, @var) */
	const struct expr *e;
	enum tv_kind kind;
	const struct lx *value;
	lpvec *pretty;
	bool defined;
	bool at_entry;          /* .return probe: evaluate when the function is entered */
	bool kernel;            /* reads kernel memory or registers, or is a kernel
				 * address: not for --privilege=stapusr|stapsys */
	/* writes (guru mode): the value's home */
	const struct lx *addr;  /* its address, or NULL (a register) */
	int reg;                /* DWARF register number when addr is NULL, else -1 */
	int size;               /* bytes */
};

/* What resolving target expressions needs of the derived probe they are
 * in, as its family answers through struct provider's hooks (pass 2 fills
 * it: target_exprs.c), so tvars.c needs no probe family. */
struct tvar_site {
	const struct derived_probe *dp; /* the key of what is resolved in it */
	const char *pp;                 /* its pp(), for messages */
	const struct dw_scope *scope;   /* tvar_scope: where $x lives; NULL: no DWARF */
	bool no_dwarf;                  /* without_dwarf: on code no DWARF describes */
	bool is_return;                 /* is_return: @entry evaluable without DWARF */
	bool kernel;                    /* its $x read the kernel's memory or registers
					 * (a family not marked unprivileged) */
	/* tvar_code: the family's own target variables, as the hook says;
	 * NULL: all are DWARF */
	int (*code)(struct session *s, const struct derived_probe *dp, const struct expr *e,
		    const struct lx **value, lpvec **pretty, char **why);
	bool *has_entry;                /* set to true when it reads values at entry */
};

/* Pass 2: resolve the target expressions of body, in site (NULL: in no
 * probe, a function's @cast and @var), then of the bodies of funcs (the
 * functions the probe's body calls that read its $vars; NULL: none);
 * errors are reported as diagnostics. Returns the number of errors. */
int tvars_resolve_body(struct session *s, const struct tvar_site *site, struct stmt *body,
		       const funcvec *funcs);
/* Does e, as resolved in dp (or anywhere: dp NULL), read the kernel's
 * memory or registers, or give a kernel address? (privilege.c) */
bool tvars_kernel(struct session *s, const struct derived_probe *dp, const struct expr *e);
/* -L: did e fail to resolve in some probe (its type is then unknown)? */
bool tvars_unresolved(struct session *s, const struct expr *e);
/* The expressions te's LX_PTR and LX_INDEX n stand for, in that order
 * (*ptr: it has a pointer, @cast's): into *ops (allocated), their count. */
int tvar_operands(struct expr *te, struct expr ***ops, bool *ptr);
/* What e compiles to in dp (or anywhere: dp NULL), or NULL. */
const struct tvar *tvar_find(struct session *s, const struct derived_probe *dp, const struct expr *e);
/* Does the body of this script probe use anything resolved per derived
 * probe (then pass 3 gives every derived probe a body of its own)? */
bool tvars_per_probe(const struct probe *p);
/* A condition decided by @defined in dp: 1 true, 0 false, -1 not constant.
 * Pass 2 resolves, and pass 3 generates, only the live branch. */
int tvars_static_cond(struct session *s, const struct derived_probe *dp, const struct expr *cond);
/* C statements run when the script starts for its $target reads: they set
 * stp_kaslr_offset (for DW_OP_addr) and the addresses of the module
 * globals read (stp_modsym_addrs[]); NULL if none are needed. */
char *tvars_kaslr_init(struct session *s);
/* The struct printers of the session's pretty-printed values (LP_STRUCT
 * n's body is (*bodies)[n]); their count. */
int tvars_struct_printers(struct session *s, const lpvec *const **bodies);

#endif
