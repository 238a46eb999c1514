/* tvars.c - pass 2: resolve $target expressions through DWARF into the
 * lowered form (tvars.h, lowered.h). What it asks of the DWARF is
 * target/'s (dwarf_types.h: types and members; dwarf_scope.h: the frame
 * address; ksyms.h: the symbols and the KASLR note).
 *
 * A variable's DWARF location at the probe address becomes an address or
 * a value over the probe's registers; each step of the chain
 * (->field, [index]) moves the address or loads a pointer; the end loads
 * the value with its C type's size and signedness. Pretty printing ($x$,
 * $$parms ...) walks the type at translation time and emits one read per
 * leaf, with "?" for what cannot be read, as SystemTap prints.
 */
#include "tvars.h"
#include "target/btf.h"

#include <dwarf.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "target/dwarf_scope.h"
#include "target/dwarf_types.h"
#include "target/ksyms.h"
#include "walk.h"

/* What pass 2 resolved, for pass 3 (session->tvars). */
struct tvar_table {
	VEC(struct tvar *) all;
	strvec modsyms;         /* "module:name" of the module globals read, by
				 * their index in stp_modsym_addrs[] */
	VEC(lpvec *) pp_bodies; /* the struct printers (LP_STRUCT's bodies) */
	VEC(uint64_t) pp_hashes;
};

static struct tvar_table *table(struct session *s)
{
	if (!s->tvars)
		s->tvars = xcalloc(1, sizeof(*s->tvars));
	return s->tvars;
}

/* What a target expression is resolved against. */
struct rctx {
	struct session *s;
	const struct tvar_site *site;     /* NULL: in no probe */
	const struct derived_probe *dp;   /* site's dp, or NULL */
	const struct dw_scope *in;        /* NULL: no probe context (@cast only) */
	struct dw_image *img;             /* image for @cast / @var */
	Dwarf_Die fn;
	Dwarf_Addr pc;                    /* DWARF address of the probe */
	Dwarf_Addr fn_entry;              /* the function's entry address */
	bool ret;                         /* .return probe */
	bool no_dwarf;                    /* on code DWARF does not describe: $$vars empty */
	int nidx;                         /* chain index placeholders used */
	char *why;                        /* why resolution failed */
	int leaves;                       /* pretty printing budget */
	bool family_var;                  /* why: the family's own variable (tvar_code) */
	bool kernel;                      /* what was resolved reads the kernel's memory or
					   * registers, or is a kernel address (--privilege) */
};

/* Where a value is while a chain is walked. */
struct loc {
	enum { L_ADDR, L_VALUE, L_REG } kind;
	const struct lx *x;     /* address (L_ADDR) or value (L_VALUE, L_REG) */
	int reg;                /* L_REG */
	Dwarf_Die type;         /* type of the value (unpeeled) */
	bool has_type;
	int bit_size, bit_off;  /* bitfield: bits from the byte at c */
};

/* A read of size bytes at addr in the probed program's memory: the
 * kernel's, or a process probe's user memory (a kernel read is noted for
 * --privilege). */
static const struct lx *rd(struct rctx *r, const struct lx *addr, int size)
{
	bool user = r->img && r->img->user;

	if (!user)
		r->kernel = true;
	return lx_load(addr, size, user);
}

static bool fail(struct rctx *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(struct rctx *r, const char *fmt, ...)
{
	va_list ap;

	if (r->why)
		return false;
	va_start(ap, fmt);
	r->why = xvasprintf(fmt, ap);
	va_end(ap);
	return false;
}

/* ---- locations -------------------------------------------------------------- */

/* A link-time kernel address (DW_OP_addr, a symbol's) where it is now:
 * the module's start sets the load offset it adds (tvars_kaslr_init). */
static const struct lx *kernel_addr(struct rctx *r, uint64_t addr)
{
	ksyms_use_kaslr(r->s);
	return lx_bin(LX_ADD, lx_leaf(LX_KASLR, 0), lx_hex(addr));
}

static const struct lx *reg_x(int n)
{
	return lx_leaf(LX_REG, n);
}

/* DW_OP_call_frame_cfa: the canonical frame address at the probe
 * (dwarf_scope.h's dw_cfa_at). */
static const struct lx *cfa_x(struct rctx *r)
{
	int reg;
	int64_t off;

	if (!dw_cfa_at(r->img, &r->fn, r->pc, r->fn_entry, &reg, &off)) {
		fail(r, "no call frame information at 0x%" PRIx64, (uint64_t)r->pc);
		return NULL;
	}
	return lx_add_k(reg_x(reg), off);
}

static bool eval_ops(struct rctx *r, Dwarf_Attribute *attr, Dwarf_Op *ops, size_t n, struct loc *out);

/* DW_AT_frame_base of the function pc is in: an inlined instance has none
 * of its own, its frame is that of the CU's function whose code holds pc
 * (dwarf_getscopes would follow the abstract nesting instead). */
static bool frame_base_attr(struct rctx *r, Dwarf_Attribute *a)
{
	Dwarf_Die cu, child;

	if (dwarf_attr(&r->fn, DW_AT_frame_base, a))
		return true;
	if (!dwarf_diecu(&r->fn, &cu, NULL, NULL) || dwarf_child(&cu, &child) != 0)
		return false;
	do {
		if (dwarf_tag(&child) == DW_TAG_subprogram && dwarf_haspc(&child, r->pc) == 1 &&
		    dwarf_attr(&child, DW_AT_frame_base, a))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* The frame base of the function (DW_AT_frame_base), as an address. */
static const struct lx *frame_base_x(struct rctx *r)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;
	struct loc l = { 0 };

	if (!frame_base_attr(r, &a) || dwarf_getlocation_addr(&a, r->pc, &ops, &n, 1) < 1) {
		fail(r, "no frame base at 0x%" PRIx64, (uint64_t)r->pc);
		return NULL;
	}
	if (!eval_ops(r, &a, ops, n, &l))
		return NULL;
	return l.x;
}

/* DW_OP_entry_value(DW_OP_regN) at the entry itself is just regN. */
static const struct lx *entry_value_x(struct rctx *r, Dwarf_Attribute *attr, Dwarf_Op *op)
{
	Dwarf_Attribute sub;
	Dwarf_Op *ops;
	size_t n;

	if (r->pc != r->fn_entry || dwarf_getlocation_attr(attr, op, &sub) != 0 ||
	    dwarf_getlocation(&sub, &ops, &n) != 0 || n != 1)
		return NULL;
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31)
		return reg_x(ops[0].atom - DW_OP_reg0);
	if (ops[0].atom == DW_OP_regx)
		return reg_x((int)ops[0].number);
	return NULL;
}

/* A DWARF location expression in the lowered form, with a stack of them. */
static bool eval_ops(struct rctx *r, Dwarf_Attribute *attr, Dwarf_Op *ops, size_t n, struct loc *out)
{
	const struct lx *st[32];
	int sp = 0;

#define PUSH(x) do { if (sp == 32) return fail(r, "location expression too deep"); st[sp++] = (x); } while (0)
#define NEED(k) do { if (sp < (k)) return fail(r, "malformed location expression"); } while (0)
	for (size_t i = 0; i < n; i++) {
		unsigned a = ops[i].atom;
		const struct lx *x, *y;
		if (a == DW_OP_piece) {
			/* the first piece, if it holds the whole value (a later
			 * check compares sizes); more pieces are not supported */
			break;
		}
		if ((a >= DW_OP_reg0 && a <= DW_OP_reg31) || a == DW_OP_regx) {
			if (i + 1 < n && ops[i + 1].atom != DW_OP_piece)
				return fail(r, "unsupported register location");
			out->kind = L_REG;
			out->reg = a == DW_OP_regx ? (int)ops[i].number : (int)(a - DW_OP_reg0);
			out->x = reg_x(out->reg);
			return true;
		}
		if ((a >= DW_OP_breg0 && a <= DW_OP_breg31) || a == DW_OP_bregx) {
			int reg = a == DW_OP_bregx ? (int)ops[i].number : (int)(a - DW_OP_breg0);
			int64_t off = a == DW_OP_bregx ? (int64_t)ops[i].number2 : (int64_t)ops[i].number;
			PUSH(lx_add_k(reg_x(reg), off));
			continue;
		}
		if (a >= DW_OP_lit0 && a <= DW_OP_lit31) {
			PUSH(lx_const(a - DW_OP_lit0));
			continue;
		}
		switch (a) {
		case DW_OP_fbreg:
			if (!(x = frame_base_x(r)))
				return false;
			PUSH(lx_add_k(x, (int64_t)ops[i].number));
			break;
		case DW_OP_call_frame_cfa:
			if (!(x = cfa_x(r)))
				return false;
			PUSH(x);
			break;
		case DW_OP_addr:
			if (r->img && r->img->user) {   /* moved by the file's load bias */
				PUSH(lx_bin(LX_ADD, lx_leaf(LX_UBIAS, 0), lx_hex(ops[i].number)));
				break;
			}
			if (r->img && r->img->module)
				return fail(r, "static variables of modules are not supported yet");
			PUSH(kernel_addr(r, ops[i].number));
			break;
		case DW_OP_const1u: case DW_OP_const2u: case DW_OP_const4u: case DW_OP_const8u: case DW_OP_constu:
			PUSH(lx_hex(ops[i].number));
			break;
		case DW_OP_const1s: case DW_OP_const2s: case DW_OP_const4s: case DW_OP_const8s: case DW_OP_consts:
			PUSH(lx_const((int64_t)ops[i].number));
			break;
		case DW_OP_deref:
			NEED(1);
			x = st[--sp];
			PUSH(rd(r, x, 8));
			break;
		case DW_OP_deref_size:
			NEED(1);
			x = st[--sp];
			PUSH(rd(r, x, (int)ops[i].number));
			break;
		case DW_OP_plus_uconst:
			NEED(1);
			x = st[--sp];
			PUSH(lx_add_k(x, (int64_t)ops[i].number));
			break;
		case DW_OP_plus: case DW_OP_minus: case DW_OP_mul: case DW_OP_and: case DW_OP_or:
		case DW_OP_xor: case DW_OP_shl: case DW_OP_shr: case DW_OP_shra: {
			NEED(2);
			y = st[--sp];
			x = st[--sp];
			enum lx_op op = a == DW_OP_plus ? LX_ADD : a == DW_OP_minus ? LX_SUB : a == DW_OP_mul ? LX_MUL :
					a == DW_OP_and ? LX_AND : a == DW_OP_or ? LX_OR : a == DW_OP_xor ? LX_XOR :
					a == DW_OP_shl ? LX_SHL : a == DW_OP_shr ? LX_SHR : LX_SAR;
			PUSH(lx_bin(op, x, y));
			break;
		}
		case DW_OP_neg:
			NEED(1);
			x = st[--sp];
			PUSH(lx_un(LX_NEG, x));
			break;
		case DW_OP_not:
			NEED(1);
			x = st[--sp];
			PUSH(lx_un(LX_NOT, x));
			break;
		case DW_OP_dup:
			NEED(1);
			x = st[sp - 1];
			PUSH(x);
			break;
		case DW_OP_drop:
			NEED(1);
			sp--;
			break;
		case DW_OP_swap:
			NEED(2);
			x = st[sp - 1];
			st[sp - 1] = st[sp - 2];
			st[sp - 2] = x;
			break;
		case DW_OP_over:
			NEED(2);
			x = st[sp - 2];
			PUSH(x);
			break;
		case DW_OP_entry_value:
		case DW_OP_GNU_entry_value:
			if (!(x = entry_value_x(r, attr, &ops[i])))
				return fail(r, "the value at function entry is not available here");
			PUSH(x);
			break;
		case DW_OP_stack_value:
			NEED(1);
			out->kind = L_VALUE;
			out->x = st[sp - 1];
			return true;
		case DW_OP_implicit_pointer:
		case DW_OP_GNU_implicit_pointer:
		case DW_OP_implicit_value:
			return fail(r, "the value was optimized away (implicit location)");
		default:
			return fail(r, "unsupported DWARF operation 0x%x in the location", a);
		}
	}
	if (!sp)
		return fail(r, "the value is not available here (optimized out)");
	out->kind = L_ADDR;
	out->x = st[sp - 1];
	return true;
#undef PUSH
#undef NEED
}

/* A kernel global that this unit only declares (extern), or that the
 * linker script defines (jiffies): no DWARF location, but the symbol table
 * has its link-time address, moved by KASLR as DW_OP_addr's. */
static bool global_from_symtab(struct rctx *r, Dwarf_Die *var, struct loc *out)
{
	const char *name = dwarf_diename(var), *why = NULL;
	const struct ksymtab *t;
	const struct ksym *found = NULL;

	if (!name || dwarf_tag(var) != DW_TAG_variable || (r->img && (r->img->module || r->img->user)) ||
	    !(dwarf_hasattr_integrate(var, DW_AT_external) || dwarf_hasattr(var, DW_AT_declaration)))
		return false;
	if (!(t = ksyms_kernel(r->s, &why)))
		return false;
	for (size_t i = 0; i < t->n; i++) {
		if (strcmp(t->syms[i].name, name) || ksym_is_text(&t->syms[i]))
			continue;
		if (found && found->addr != t->syms[i].addr)
			return false;   /* two statics of that name: which one? */
		found = &t->syms[i];
	}
	if (!found)
		return false;
	out->kind = L_ADDR;
	out->x = kernel_addr(r, found->addr);
	return true;
}

/* A module's global (a DW_OP_addr location, or none in a unit that only
 * declares it): its address is looked up by name when the script starts
 * (the module may be loaded anywhere). */
static bool module_global(struct rctx *r, Dwarf_Die *var, struct loc *out)
{
	struct tvar_table *t = table(r->s);
	const char *name = dwarf_diename(var);
	char *key;
	int k;

	if (!name || dwarf_tag(var) != DW_TAG_variable)
		return false;
	key = xasprintf("%s:%s", r->img->module, name);
	for (k = 0; k < t->modsyms.len && strcmp(t->modsyms.items[k], key); k++)
		;
	if (k == t->modsyms.len) {
		if (k >= 32)   /* STP_MODSYMS_MAX */
			return free(key), fail(r, "too many globals of modules (32 at most)");
		vec_push(&t->modsyms, key);
	} else {
		free(key);
	}
	out->kind = L_ADDR;
	out->x = lx_leaf(LX_MODSYM, k);
	return true;
}

/* The location of variable DIE var at the probe address. */
static bool var_loc(struct rctx *r, Dwarf_Die *var, struct loc *out)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	memset(out, 0, sizeof(*out));
	out->has_type = dwarf_formref_die(dwarf_attr_integrate(var, DW_AT_type, &a), &out->type) != NULL;
	if (dwarf_attr_integrate(var, DW_AT_const_value, &a)) {
		Dwarf_Sword v;
		if (dwarf_formsdata(&a, &v) != 0)
			return fail(r, "unsupported constant value");
		out->kind = L_VALUE;
		out->x = lx_const((int64_t)v);
		return true;
	}
	bool in_module = r->img && r->img->module;
	if (!dwarf_attr_integrate(var, DW_AT_location, &a)) {
		if (in_module && (dwarf_hasattr_integrate(var, DW_AT_external) || dwarf_hasattr(var, DW_AT_declaration)))
			return module_global(r, var, out);
		if (global_from_symtab(r, var, out))
			return true;
		return fail(r, "the variable has no location (optimized out)");
	}
	int k = dwarf_getlocation_addr(&a, r->pc, &ops, &n, 1);
	if (k < 1 || n == 0)
		return fail(r, "the variable is not available at this address (optimized out)");
	if (in_module && n == 1 && ops[0].atom == DW_OP_addr)
		return module_global(r, var, out);
	return eval_ops(r, &a, ops, n, out);
}

/* ---- values ------------------------------------------------------------------- */

/* The value at l as an int64_t expression: integers, enums, pointers;
 * an array is its address. */
static bool load(struct rctx *r, struct loc *l, const struct lx **out)
{
	Dwarf_Die t = l->type;

	if (!l->has_type || !dw_peel(&t))
		return fail(r, "the value has type void");
	int tag = dwarf_tag(&t);
	if (tag == DW_TAG_array_type) {
		if (l->kind != L_ADDR)
			return fail(r, "an array held in a register");
		*out = l->x;
		return true;
	}
	if (dw_is_aggregate(&t))
		return fail(r, "a struct or union is not a value (use ->member, a '$' suffix or '&')");
	if (tag != DW_TAG_base_type && tag != DW_TAG_enumeration_type && tag != DW_TAG_pointer_type &&
	    tag != DW_TAG_reference_type && tag != DW_TAG_rvalue_reference_type)
		return fail(r, "unsupported type (DWARF tag 0x%x)", tag);
	int size = dw_byte_size(&t);
	bool sign = dw_is_signed(&t);
	if (size <= 0 || size > 8)
		return fail(r, "unsupported value size %d", size);
	if (l->bit_size) {
		int need = (l->bit_off + l->bit_size + 7) / 8;
		int rdsize = need <= 1 ? 1 : need <= 2 ? 2 : need <= 4 ? 4 : 8;
		if (l->kind != L_ADDR || l->bit_off + l->bit_size > 64)
			return fail(r, "unsupported bitfield");
		const struct lx *v = lx_bin(LX_SHR, rd(r, l->x, rdsize), lx_const(l->bit_off));
		if (sign)
			*out = lx_sext(v, l->bit_size);
		else
			*out = lx_bin(LX_AND, v, lx_hex(l->bit_size >= 64 ? ~(uint64_t)0 : (((uint64_t)1) << l->bit_size) - 1));
		return true;
	}
	if (l->kind == L_ADDR) {
		const struct lx *v = rd(r, l->x, size);
		*out = sign ? lx_fit(v, size, true) : v;
		return true;
	}
	*out = lx_fit(l->x, size, sign);
	return true;
}

/* ->field */
static bool step_field(struct rctx *r, struct loc *l, const char *field)
{
	Dwarf_Die t = l->type, mem;
	Dwarf_Word off = 0;
	int bs = 0, bo = 0;

	if (!l->has_type || !dw_peel(&t))
		return fail(r, "'->%s' on a void value", field);
	if (dwarf_tag(&t) == DW_TAG_pointer_type) {
		const struct lx *p;
		if (!load(r, l, &p))
			return false;
		if (!dw_type_of(&t, &t))
			return fail(r, "'->%s' through a void pointer", field);
		l->kind = L_ADDR;
		l->x = p;
	}
	if (!dw_is_aggregate(&t))
		return fail(r, "'->%s' on a value that is not a struct, union or pointer to one", field);
	if (l->kind != L_ADDR)
		return fail(r, "'->%s' on a struct held in registers", field);
	if (dwarf_hasattr(&t, DW_AT_declaration) && dwarf_diename(&t) && r->img) {
		/* only declared in this unit (struct files_struct seen from
		 * sched.h): the complete type another unit defines */
		char *name = xasprintf("%s %s", dwarf_tag(&t) == DW_TAG_union_type ? "union" : "struct",
				       dwarf_diename(&t));
		Dwarf_Die full;
		if (dw_find_type(r->img, name, &full))
			t = full;
		free(name);
	}
	if (!dw_find_member(&t, field, &mem, &off, &bs, &bo, 0)) {
		const char *tn = dwarf_diename(&t);
		return fail(r, "%s%s has no member '%s'", dwarf_tag(&t) == DW_TAG_union_type ? "union " : "struct ",
			    tn ? tn : "{...}", field);
	}
	l->x = off ? lx_add_k(l->x, (int64_t)off) : l->x;
	l->has_type = dwarf_formref_die(dwarf_attr_integrate(&mem, DW_AT_type, &(Dwarf_Attribute){0}), &l->type) != NULL;
	l->bit_size = bs;
	l->bit_off = bo;
	return true;
}

/* [index] on an array or a pointer */
static bool step_index(struct rctx *r, struct loc *l)
{
	Dwarf_Die t = l->type, elem;
	const struct lx *base;

	if (!l->has_type || !dw_peel(&t))
		return fail(r, "'[]' on a void value");
	int tag = dwarf_tag(&t);
	if (tag == DW_TAG_array_type) {
		if (l->kind != L_ADDR)
			return fail(r, "an array held in a register");
		base = l->x;
	} else if (tag == DW_TAG_pointer_type) {
		if (!load(r, l, &base))
			return false;
	} else if (dw_is_aggregate(&t) && l->kind == L_ADDR) {
		/* @cast(p, "struct iovec")[j]: p taken as an array of them */
		Dwarf_Die pe = t;
		int size = dw_byte_size(&pe);
		if (size <= 0)
			return fail(r, "'[]' on elements of unknown size");
		l->x = lx_index(l->x, r->nidx++, size);
		l->bit_size = 0;
		return true;
	} else {
		return fail(r, "'[]' on a value that is neither an array nor a pointer");
	}
	Dwarf_Attribute a;
	if (!dwarf_formref_die(dwarf_attr_integrate(&t, DW_AT_type, &a), &elem))
		return fail(r, "'[]' through a void pointer");
	Dwarf_Die pe = elem;
	int stride = dw_peel(&pe) ? dw_byte_size(&pe) : 0;
	if (stride <= 0)
		return fail(r, "'[]' on elements of unknown size");
	l->kind = L_ADDR;
	l->x = lx_index(base, r->nidx++, stride);
	l->type = elem;
	l->has_type = true;
	l->bit_size = 0;
	return true;
}

static bool walk_chain(struct rctx *r, const struct expr *e, struct loc *l)
{
	for (int i = 0; i < e->chain.len; i++) {
		const struct target_step *st = e->chain.items[i];
		if (!(st->kind == TS_FIELD ? step_field(r, l, st->field) : step_index(r, l)))
			return false;
	}
	return true;
}

/* ---- pretty printing ------------------------------------------------------------- */

/* pretty-print modes */
enum { PP_PLAIN, PP_ONE, PP_DEEP };   /* $$vars, $x$ / $$vars$, $x$$ / $$vars$$ */

static void pp_value(struct rctx *r, struct loc *l, int mode, int depth, lpvec *out);

/* What cannot be read prints as "?", as SystemTap prints it; why it
 * failed is dropped. */
static void pp_unknown(struct rctx *r, lpvec *out)
{
	free(r->why);
	r->why = NULL;
	lp_text(out, "?");
}

/* One loaded value written as fmt ("?" if it cannot be resolved). */
static void pp_leaf(struct rctx *r, struct loc *l, enum lp_fmt fmt, lpvec *out)
{
	const struct lx *x;

	r->why = NULL;
	if (!load(r, l, &x)) {
		pp_unknown(r, out);
		return;
	}
	lp_value(out, x, fmt);
}

static void pp_members_text(struct rctx *r, struct loc *l, Dwarf_Die *st, int mode, int depth, lpvec *out)
{
	Dwarf_Die m;
	bool first = true;

	lp_text(out, "{");
	if (dwarf_child(st, &m) == 0) {
		do {
			if (dwarf_tag(&m) != DW_TAG_member)
				continue;
			if (r->leaves++ > 400)
				break;
			const char *n = dwarf_diename(&m);
			Dwarf_Attribute a;
			Dwarf_Word off = 0, bs = 0;
			struct loc ml = { .kind = L_ADDR };
			Dwarf_Die mt;
			if (dwarf_attr(&m, DW_AT_data_member_location, &a))
				dwarf_formudata(&a, &off);
			ml.has_type = dwarf_formref_die(dwarf_attr_integrate(&m, DW_AT_type, &a), &ml.type) != NULL;
			if (n) {
				int bsz = 0, bo = 0;
				Dwarf_Word o2 = 0;
				if (dw_find_member(st, n, &mt, &o2, &bsz, &bo, 0)) {
					off = o2;
					ml.bit_size = bsz;
					ml.bit_off = bo;
				}
			} else if (dwarf_attr(&m, DW_AT_bit_size, &a) && dwarf_formudata(&a, &bs) == 0 && bs) {
				continue;   /* unnamed bitfield padding */
			}
			ml.x = lx_add_k(l->x, (int64_t)off);
			if (n) {
				lp_textf(out, "%s.%s=", first ? "" : ", ", n);
			} else {
				mt = ml.type;
				bool u = ml.has_type && dw_peel(&mt) && dwarf_tag(&mt) == DW_TAG_union_type;
				lp_textf(out, "%s%s=", first ? "" : ", ", u ? "<union>" : "<class>");
			}
			first = false;
			pp_value(r, &ml, mode, depth + 1, out);
		} while (dwarf_siblingof(&m, &m) == 0);
	}
	lp_text(out, "}");
}

/* The number of the session's struct printer whose items are body (the
 * first of the same items), made on first use; *same: that one's items. */
static int pp_helper(struct session *s, lpvec *body, const lpvec **same)
{
	struct tvar_table *t = table(s);
	uint64_t h = lp_hash(body);

	for (int i = 0; i < t->pp_hashes.len; i++)
		if (t->pp_hashes.items[i] == h && lp_equal(t->pp_bodies.items[i], body)) {
			*same = t->pp_bodies.items[i];
			return i;
		}
	vec_push(&t->pp_hashes, h);
	vec_push(&t->pp_bodies, body);
	*same = body;
	return t->pp_bodies.len - 1;
}

/* The members of the struct at l, printed over its address (LX_LOCAL -1):
 * the module makes a function of each distinct printer, shared by every
 * probe printing the same type the same way ($$parms$$ on 762 functions
 * was 12 MB of C inline, 300 s of GCC, most of it the same few kernel
 * structs); BPF prints them inline. */
static void pp_members(struct rctx *r, struct loc *l, Dwarf_Die *st, int mode, int depth, lpvec *out)
{
	lpvec *body = xcalloc(1, sizeof(*body));
	const lpvec *same;
	struct loc bl = *l;

	bl.x = lx_leaf(LX_LOCAL, -1);
	pp_members_text(r, &bl, st, mode, depth, body);
	int n = pp_helper(r->s, body, &same);
	lp_nested(out, LP_STRUCT, l->x, n, same);
}

int tvars_struct_printers(struct session *s, const lpvec *const **bodies)
{
	struct tvar_table *t = table(s);

	*bodies = (const lpvec *const *)t->pp_bodies.items;
	return t->pp_bodies.len;
}

/* The value at l in SystemTap's pretty-print style. */
static void pp_value(struct rctx *r, struct loc *l, int mode, int depth, lpvec *out)
{
	Dwarf_Die t = l->type, inner;

	if (!l->has_type || !dw_peel(&t)) {
		lp_text(out, "?");
		return;
	}
	int tag = dwarf_tag(&t);
	if (mode == PP_PLAIN) {
		if (dw_is_aggregate(&t))
			lp_text(out, "{...}");
		else if (tag == DW_TAG_array_type)
			lp_text(out, "[...]");
		else
			pp_leaf(r, l, LP_HEX, out);
		return;
	}
	if (dw_is_aggregate(&t)) {
		if (l->kind != L_ADDR)
			lp_text(out, "?");
		else if (depth > 0 && (mode == PP_ONE || depth > 6))
			lp_text(out, "{...}");
		else
			pp_members(r, l, &t, mode, depth, out);
		return;
	}
	if (tag == DW_TAG_array_type) {
		Dwarf_Die e;
		if (l->kind == L_ADDR && dw_type_of(&t, &e) && dw_is_char(&e) && (depth == 0 || mode == PP_DEEP)) {
			lp_string(out, l->x, dw_byte_size(&t));
			return;
		}
		lp_text(out, "[...]");
		return;
	}
	if (tag == DW_TAG_pointer_type) {
		bool has = dw_type_of(&t, &inner);
		if (has && dw_is_char(&inner)) {
			pp_leaf(r, l, LP_STR, out);
			return;
		}
		if (has && dw_is_aggregate(&inner) && depth == 0) {
			const struct lx *px;
			r->why = NULL;
			if (!load(r, l, &px)) {
				pp_unknown(r, out);
				return;
			}
			struct loc pl = { .kind = L_ADDR, .x = lx_leaf(LX_LOCAL, depth), .has_type = true };
			lpvec *body = xcalloc(1, sizeof(*body));
			dwarf_formref_die(dwarf_attr_integrate(&t, DW_AT_type, &(Dwarf_Attribute){0}), &pl.type);
			pp_members(r, &pl, &inner, mode, depth, body);
			lp_nested(out, LP_DEREF, px, depth, body);
			return;
		}
		if (has && (dwarf_tag(&inner) == DW_TAG_base_type || dwarf_tag(&inner) == DW_TAG_enumeration_type))
			pp_leaf(r, l, LP_DEC, out);
		else
			pp_leaf(r, l, LP_HEX, out);
		return;
	}
	if (dw_is_char(&t) && depth > 0) {
		pp_leaf(r, l, LP_CHAR, out);
		return;
	}
	pp_leaf(r, l, dw_is_signed(&t) ? LP_DEC : LP_UDEC, out);
}

static int pp_mode(const char *suffix)
{
	return !suffix ? PP_PLAIN : !strcmp(suffix, "$") ? PP_ONE : PP_DEEP;
}

/* "name=value" for one variable DIE; "name=?" if it has no location here. */
static void pp_var(struct rctx *r, Dwarf_Die *var, const char *name, int mode, lpvec *out)
{
	struct loc l;
	lp_textf(out, "%s=", name);
	r->why = NULL;
	if (!var_loc(r, var, &l)) {
		pp_unknown(r, out);
		return;
	}
	pp_value(r, &l, mode, 0, out);
}

/* $$vars, $$parms, $$locals, $$return */
static bool pretty_list(struct rctx *r, const struct expr *e, struct tvar *tv)
{
	lpvec *out = xcalloc(1, sizeof(*out));
	const char *what = e->name + 2;
	int mode = pp_mode(e->suffix);
	bool parms = !strcmp(what, "vars") || !strcmp(what, "parms");
	bool locals = !strcmp(what, "vars") || !strcmp(what, "locals");
	bool first = true;
	Dwarf_Die d;

	tv->pretty = out;
	if (!strcmp(what, "return")) {
		struct loc l = { .kind = L_REG, .reg = 0, .x = reg_x(0) };
		if (!r->ret)
			return fail(r, "$$return is only available in .return probes");
		if (!dwarf_formref_die(dwarf_attr_integrate(&r->fn, DW_AT_type, &(Dwarf_Attribute){0}), &l.type))
			return true;   /* a void function: "" (as SystemTap) */
		l.has_type = true;
		lp_text(out, "return=");
		pp_value(r, &l, mode, 0, out);
		return true;
	}
	if (!parms && !locals)
		return fail(r, "unknown context variable list '%s'", e->name);
	tv->at_entry = r->ret;
	if (dwarf_child(&r->fn, &d) == 0) {
		do {
			int tag = dwarf_tag(&d);
			const char *name = dwarf_diename(&d);
			if (!name || !((parms && tag == DW_TAG_formal_parameter) || (locals && tag == DW_TAG_variable)))
				continue;
			if (r->in && r->in->hidden && !strcmp(name, r->in->hidden))
				continue;   /* the probe mechanism's, not an argument (as -L) */
			if (!first)
				lp_text(out, " ");
			first = false;
			pp_var(r, &d, name, mode, out);
		} while (dwarf_siblingof(&d, &d) == 0);
	}
	return true;
}

/* ---- finding things ---------------------------------------------------------------- */

/* Is fn a C function of its unit's top level, whose enclosing scope is
 * the unit alone? (C has no nested functions, but for GCC's extension.) */
static bool c_top_level(Dwarf_Die *fn, Dwarf_Die *cu)
{
	int lang = dwarf_srclang(cu);

	return dwarf_tag(fn) == DW_TAG_subprogram &&
	       (lang == DW_LANG_C89 || lang == DW_LANG_C || lang == DW_LANG_C99 || lang == DW_LANG_C11);
}

/* The scopes of a C function fn holding pc, innermost first, fn last: the
 * lexical blocks around pc, not entering a callee inlined there. What
 * dwarf_getscopes finds between fn and such a callee, without its walk of
 * the whole unit (a big one holds hundreds of tracepoints' iterators, each
 * resolving its arguments). 0 if fn does not hold pc. */
static int own_scopes(Dwarf_Die *fn, Dwarf_Addr pc, Dwarf_Die **out)
{
	VEC(Dwarf_Die) chain = { 0 };
	Dwarf_Die cur = *fn, c;
	bool deeper = dwarf_haspc(fn, pc) == 1;

	while (deeper) {
		vec_push(&chain, cur);
		deeper = false;
		if (dwarf_child(&cur, &c) == 0) {
			do {
				if (dwarf_tag(&c) == DW_TAG_lexical_block && dwarf_haspc(&c, pc) == 1) {
					cur = c;
					deeper = true;
				}
			} while (!deeper && dwarf_siblingof(&c, &c) == 0);
		}
	}
	for (int i = 0; i < chain.len / 2; i++) {
		Dwarf_Die t = chain.items[i];
		chain.items[i] = chain.items[chain.len - 1 - i];
		chain.items[chain.len - 1 - i] = t;
	}
	*out = chain.items;
	return chain.len;
}

/* The variable $name visible at the probe address. */
static bool find_var(struct rctx *r, const char *name, Dwarf_Die *var)
{
	Dwarf_Die cu, *scopes = NULL;
	int n, fi = -1, start = 0;

	if (!dwarf_diecu(&r->fn, &cu, NULL, NULL))
		return fail(r, "no compile unit");
	/* only the probed function's own scopes: not those of a callee
	 * inlined at this address (sigismember's sig inside sig_ignored),
	 * nor what encloses the function */
	if (c_top_level(&r->fn, &cu)) {
		n = own_scopes(&r->fn, r->pc, &scopes);
		fi = n - 1;
	} else {
		n = dwarf_getscopes(&cu, r->pc, &scopes);
		for (int i = 0; i < n && fi < 0; i++)
			if (dwarf_dieoffset(&scopes[i]) == dwarf_dieoffset(&r->fn))
				fi = i;
		for (int i = 0; i < fi; i++)
			if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine)
				start = i + 1;
	}
	if (fi >= 0 && dwarf_getscopevar(scopes + start, fi - start + 1, name, 0, NULL, 0, 0, var) >= 0) {
		free(scopes);
		return true;
	}
	/* parameters and outermost locals of the function itself (the probe
	 * address may be outside the scopes libdw reports, e.g. at entry) */
	Dwarf_Die d;
	if (dwarf_child(&r->fn, &d) == 0) {
		do {
			int tag = dwarf_tag(&d);
			const char *dn = dwarf_diename(&d);
			if ((tag == DW_TAG_formal_parameter || tag == DW_TAG_variable) && dn && !strcmp(dn, name)) {
				*var = d;
				free(scopes);
				return true;
			}
		} while (dwarf_siblingof(&d, &d) == 0);
	}
	/* then what encloses the function: the unit's globals */
	bool found = fi >= 0 && fi + 1 < n ?
		dwarf_getscopevar(scopes + fi + 1, n - fi - 1, name, 0, NULL, 0, 0, var) >= 0 :
		dwarf_getscopevar(&cu, 1, name, 0, NULL, 0, 0, var) >= 0;
	free(scopes);
	return found;
}

/* A global variable "name[@file]" with a static address. */
static bool find_global_var(struct dw_image *img, const char *spec, Dwarf_Die *out)
{
	const char *at = strchr(spec, '@');
	char *name = at ? xstrndup(spec, (size_t)(at - spec)) : xstrdup(spec);
	const char *file = at ? at + 1 : NULL;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, d;
	bool found = false;

	while (!found && dwarf_get_units(img->dbg, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		if (file) {
			const char *cn = dwarf_diename(&cudie);
			size_t lc = cn ? strlen(cn) : 0, lf = strlen(file);
			if (!cn || lc < lf || strcmp(cn + lc - lf, file) || (lc > lf && cn[lc - lf - 1] != '/'))
				continue;
		}
		if (dwarf_child(&cudie, &d) != 0)
			continue;
		do {
			const char *dn = dwarf_diename(&d);
			if (dwarf_tag(&d) == DW_TAG_variable && dn && !strcmp(dn, name) &&
			    dwarf_hasattr(&d, DW_AT_location)) {
				*out = d;
				found = true;
				break;
			}
		} while (dwarf_siblingof(&d, &d) == 0);
	}
	free(name);
	return found;
}

/* ---- one expression -------------------------------------------------------------------- */

static struct tvar *tvar_new(const struct derived_probe *dp, const struct expr *e, enum tv_kind k)
{
	struct tvar *tv = xcalloc(1, sizeof(*tv));

	tv->dp = dp;
	tv->e = e;
	tv->kind = k;
	tv->reg = -1;
	return tv;
}

/* The end of a chain: a value, an address (&), or pretty text. */
static bool finish(struct rctx *r, const struct expr *e, struct loc *l, bool addrof, struct tvar *tv)
{
	Dwarf_Die t = l->type;

	if (addrof) {
		if (l->kind != L_ADDR || l->bit_size)
			return fail(r, "cannot take the address of a value held in a register or a bitfield");
		tv->value = l->x;
		return true;
	}
	if (e->suffix) {
		tv->kind = TV_PRETTY;
		tv->pretty = xcalloc(1, sizeof(*tv->pretty));
		pp_value(r, l, pp_mode(e->suffix), 0, tv->pretty);
		return true;
	}
	if (!load(r, l, &tv->value))
		return false;
	tv->size = l->has_type && dw_peel(&t) ? dw_byte_size(&t) : 8;
	if (l->kind == L_ADDR && !l->bit_size)
		tv->addr = l->x;
	else if (l->kind == L_REG)
		tv->reg = l->reg;
	return true;
}

/* @cast(p, "type", "mod1:mod2:kernel"): the first of the list whose
 * debuginfo has the type (the kernel without DWARF: its BTF is asked
 * later), as SystemTap searches it; NULL if none. The name returned lives
 * as long as the run. */
static const char *cast_module_pick(struct rctx *r, const char *list, const char *type)
{
	Dwarf_Die die;

	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ":");
		char *m = xstrndup(p, n);
		const char *why;
		bool kernel = !strncmp(m, "kernel", 6);
		struct dw_image *img = kernel ? dw_kernel(r->s, &why) : dw_module(r->s, m, &why);
		if (img ? dw_find_type(img, type, &die) : kernel)
			return m;
		free(m);
		p += n + (p[n] == ':');
	}
	return NULL;
}

static bool resolve_loc(struct rctx *r, const struct expr *e, bool addrof, struct tvar *tv, struct loc *want);

/* Where the pointer of an autocast typed like src points: src's value's
 * type (a pointer: the value is one), the type & took the address of, the
 * type a bare @cast names, or that of the first of @choose_defined's
 * operands that resolves. */
static bool typed_base(struct rctx *r, const struct expr *src, struct loc *l)
{
	struct loc x = { 0 };

	switch (src->kind) {
	case EXPR_CHOOSE:
		if (typed_base(r, src->args.items[0], l))
			return true;
		free(r->why);
		r->why = NULL;
		return typed_base(r, src->args.items[1], l);
	case EXPR_ADDROF:
		if (!resolve_loc(r, src->lhs, false, NULL, &x))
			return false;
		*l = (struct loc){ .kind = L_ADDR, .x = lx_leaf(LX_PTR, 0), .type = x.type,
				   .has_type = x.has_type };
		return true;
	case EXPR_CAST:
		if (src->str && !src->chain.len) {   /* a pointer to the type named */
			struct dw_image *img = r->img;
			const char *why = NULL;
			if (src->module && strncmp(src->module, "kernel", 6) && !(img = dw_module(r->s, src->module, &why)))
				return fail(r, "no debuginfo for module '%s'", src->module);
			if (!img || !dw_find_type(img, src->str, &x.type))
				return fail(r, "type '%s' not found", src->str);
			*l = (struct loc){ .kind = L_ADDR, .x = lx_leaf(LX_PTR, 0), .type = x.type,
					   .has_type = true };
			return true;
		}
		/* fall through */
	default: {
		if (!resolve_loc(r, src, false, NULL, &x))
			return false;
		/* an array's value is its address (sun_path = @cast(...)->sun_path;
		 * sun_path[0]): the array is there */
		Dwarf_Die t = x.type;
		bool array = x.has_type && dw_peel(&t) && dwarf_tag(&t) == DW_TAG_array_type;
		*l = (struct loc){ .kind = array ? L_ADDR : L_VALUE, .x = lx_leaf(LX_PTR, 0), .type = x.type,
				   .has_type = x.has_type };
		return true;
	}
	}
}

/* @cast(p, "type"[, "kernel"])->chain when the kernel has no debuginfo:
 * its BTF types (btf_chain.c); a value or (&) an address, no pretty
 * printing. */
static bool btf_cast(struct rctx *r, const struct expr *e, bool addrof, struct loc *want, struct tvar *tv)
{
	const char *why = NULL;
	const struct btf *b = btf_kernel(r->s, &why);
	char *bwhy = NULL;

	if (!b)
		return fail(r, "no kernel debuginfo (and %s)", why);
	if (want || e->suffix)
		return fail(r, "no kernel debuginfo: through BTF, @cast gives values and addresses only (no "
			    "pretty printing, no type to follow)");
	r->kernel = true;   /* the kernel's types: its memory */
	uint32_t type = btf_type_named(b, e->str);
	if (!type)
		return fail(r, "type '%s' not found in the kernel's BTF (no kernel debuginfo)", e->str);
	const struct lx *x = btf_chain_lx(b, type, lx_leaf(LX_PTR, 0), true, e, addrof, &bwhy);
	if (!x) {
		fail(r, "%s", bwhy);
		free(bwhy);
		return false;
	}
	tv->kind = TV_VALUE;
	tv->value = x;
	tv->size = 8;
	return true;
}

/* $name[chain], @cast(...)[chain], @var(...)[chain], optionally under & */
static bool resolve_one(struct rctx *r, const struct expr *e, bool addrof, struct tvar *tv)
{
	return resolve_loc(r, e, addrof, tv, NULL);
}

/* resolve_one, or with want: only where the chain ends, into *want (tv
 * unused) */
static bool resolve_loc(struct rctx *r, const struct expr *e, bool addrof, struct tvar *tv, struct loc *want)
{
	struct loc l = { 0 };
	Dwarf_Die var;

	r->nidx = 0;
	switch (e->kind) {
	case EXPR_TARGET:
		/* a kernel probe's $vars are the kernel's, registers too */
		if (r->site && r->site->kernel)
			r->kernel = true;
		if (r->site && r->site->code) {   /* the family's own ($argN of a marker) */
			char *why = NULL;
			lpvec *pretty = NULL;
			const struct lx *value = NULL;
			int k = r->site->code(r->s, r->dp, e, &value, &pretty, &why);
			if (k < 0) {
				r->family_var = true;
				fail(r, "%s", why);
				free(why);
				return false;
			}
			if (k > 0 && (want || addrof)) {
				return fail(r, "'%s' has no type to follow and no address", e->name);
			}
			if (k > 0) {
				tv->kind = pretty ? TV_PRETTY : TV_VALUE;
				tv->pretty = pretty;
				tv->value = value;
				tv->size = 8;
				tv->at_entry = k == 2;   /* read when the function was entered */
				return true;
			}
		}
		if (!r->in && r->no_dwarf && !strncmp(e->name, "$$", 2) && strcmp(e->name, "$$return") &&
		    !want && !addrof && !e->chain.len) {
			tv->kind = TV_PRETTY;   /* nothing to list, as SystemTap */
			tv->pretty = xcalloc(1, sizeof(*tv->pretty));
			return true;
		}
		if (!r->in)
			return fail(r, r->no_dwarf ? "target variables are not available in this probe "
				    "(no debuginfo describes this code)" : "target variables are not available in this probe");
		if (!strncmp(e->name, "$$", 2)) {
			if (want)
				return fail(r, "'%s' has no type to follow", e->name);
			if (addrof || e->chain.len)
				return fail(r, "'%s' takes no '->', '[]' or '&'", e->name);
			tv->kind = TV_PRETTY;
			return pretty_list(r, e, tv);
		}
		if (!strcmp(e->name, "$return")) {
			if (!r->ret)
				return fail(r, "$return is only available in .return probes");
			l.kind = L_REG;
			l.reg = 0;
			l.x = reg_x(0);
			l.has_type = dwarf_formref_die(dwarf_attr_integrate(&r->fn, DW_AT_type, &(Dwarf_Attribute){0}),
						       &l.type) != NULL;
			if (!l.has_type)
				return fail(r, "the function returns void");
			break;
		}
		if (!find_var(r, e->name + 1, &var))
			return fail(r, "unable to find local '%s' in %s", e->name + 1,
				    dwarf_diename(&r->fn) ? dwarf_diename(&r->fn) : "this function");
		if (!var_loc(r, &var, &l))
			return false;
		if (tv)
			tv->at_entry = r->ret;
		break;
	case EXPR_CAST: {
		const char *mod = e->module;
		struct dw_image *img = r->img;
		const char *why = NULL;
		if (!e->str) {   /* (x)->chain, x typed like e->type_src */
			if (!e->type_src)
				return fail(r, "the type of the expression before '->' is unknown (use @cast)");
			if (!typed_base(r, e->type_src, &l))
				return false;
			r->nidx = 0;   /* the index placeholders are e's own */
			break;
		}
		if (mod && strchr(mod, ':') && !(mod = cast_module_pick(r, mod, e->str)))
			return fail(r, "type '%s' not found in any of %s", e->str, e->module);
		if (mod && strncmp(mod, "kernel", 6)) {
			img = dw_module(r->s, mod, &why);
			if (!img && dw_is_header_module(mod))
				return fail(r, "no types from the headers %s: %s", mod, why ? why : "?");
			if (!img)
				return fail(r, "no debuginfo for module '%s'%s%s", mod, why ? ": " : "", why ? why : "");
		} else if (mod) {   /* "kernel", "kernel<linux/x.h>": the kernel's, in a module's probe too */
			img = dw_kernel(r->s, &why);
		}
		if (!e->chain.len && !e->suffix && !addrof && !want) {
			/* just the pointer: no debuginfo needed until it is followed */
			tv->value = lx_leaf(LX_PTR, 0);
			return true;
		}
		if (!img && (!mod || !strncmp(mod, "kernel", 6)))
			return btf_cast(r, e, addrof, want, tv);
		if (!img)
			return fail(r, "no kernel debuginfo");
		struct rctx saved = *r;
		r->img = img;
		if (!dw_find_type(img, e->str, &l.type)) {
			/* no module named: the probe's module's types, then the kernel's */
			struct dw_image *k = mod ? NULL : dw_kernel(r->s, &why);
			if (!k || k == img || !dw_find_type(k, e->str, &l.type)) {
				r->img = saved.img;
				return fail(r, "type '%s' not found in %s", e->str, mod ? mod : "the kernel");
			}
			r->img = k;
		}
		l.has_type = true;
		l.kind = L_ADDR;
		l.x = lx_leaf(LX_PTR, 0);
		bool ok = walk_chain(r, e, &l) && (want ? (*want = l, true) : finish(r, e, &l, addrof, tv));
		r->img = saved.img;
		return ok;
	}
	case EXPR_ATVAR: {
		struct dw_image *img = r->img;
		const char *why = NULL;
		if (e->module && strncmp(e->module, "kernel", 6)) {
			img = dw_module(r->s, e->module, &why);
			if (!img)
				return fail(r, "no debuginfo for module '%s'", e->module);
		}
		if (!img)
			return fail(r, "no kernel debuginfo");
		if (!img->user)
			r->kernel = true;   /* a kernel global: its address too */
		struct rctx saved = *r;
		r->img = img;
		if (!find_global_var(img, e->name, &var)) {
			r->img = saved.img;
			return fail(r, "unable to find global '%s'", e->name);
		}
		r->pc = 0;
		bool ok = var_loc(r, &var, &l) && walk_chain(r, e, &l) &&
			  (want ? (*want = l, true) : finish(r, e, &l, addrof, tv));
		r->img = saved.img;
		r->pc = saved.pc;
		return ok;
	}
	default:
		return fail(r, "not a target expression");
	}
	if (!walk_chain(r, e, &l))
		return false;
	if (want) {
		*want = l;
		return true;
	}
	return finish(r, e, &l, addrof, tv);
}

/* ---- walking the bodies ------------------------------------------------------------------- */

struct walk {
	struct rctx *r;
	int errors;
	int quiet;              /* inside @defined: failures are answers, not errors */
	bool failed;            /* something under the current @defined failed */
	bool in_func;           /* walking a function a probe calls (context_funcs.c) */
};

/* A value read at the function's entry (in a .return probe) is saved by the
 * probe's entry handler, which runs the probe body's reads only. */
static void no_entry_in_func(struct walk *w, const struct expr *e)
{
	if (!w->in_func || w->quiet)
		return;
	diag(w->r->s, E_NOT_SUPPORTED, e->pos,
	     "a function called from a .return probe reads this at the function's entry: not supported yet "
	     "(read it in the probe body, or pass @entry(...) to the function)");
	w->errors++;
}

static enum walk_action visit_stmt(struct stmt *st, void *ctx);
static enum walk_action visit_expr(struct expr *e, void *ctx);

/* The callbacks below walk the children they choose with these. */
static void walk_sub(struct walk *w, struct expr *e)
{
	struct walker v = { .stmt = visit_stmt, .expr = visit_expr, .ctx = w };

	walk_expr(&v, e);
}

static void walk_body(struct walk *w, struct stmt *st)
{
	struct walker v = { .stmt = visit_stmt, .expr = visit_expr, .ctx = w };

	walk_stmt(&v, st);
}

int tvars_static_cond(struct session *s, const struct derived_probe *dp, const struct expr *cond)
{
	bool neg = false;
	const struct tvar *tv;

	while (cond && cond->kind == EXPR_UNARY && cond->op == OP_NOT) {
		neg = !neg;
		cond = cond->lhs;
	}
	if (cond && cond->kind == EXPR_BINARY && (cond->op == OP_LAND || cond->op == OP_LOR)) {
		/* known when both sides are, or the left one decides (the
		 * right one is then not evaluated anyway) */
		bool and = cond->op == OP_LAND;
		int l = tvars_static_cond(s, dp, cond->lhs), r;
		if (l == (and ? 0 : 1))
			return l != neg;
		if (l < 0 || (r = tvars_static_cond(s, dp, cond->rhs)) < 0)
			return -1;
		return r != neg;
	}
	if (!cond || cond->kind != EXPR_DEFINED || !(tv = tvar_find(s, dp, cond)))
		return -1;
	return tv->defined != neg;
}

/* if (@defined($x)) ...: only the live branch, as only it is generated. */
static enum walk_action visit_stmt(struct stmt *st, void *ctx)
{
	struct walk *w = ctx;

	if (st->kind != STMT_IF)
		return WALK_DESCEND;
	walk_sub(w, st->expr);
	int live = tvars_static_cond(w->r->s, w->r->dp, st->expr);
	if (live != 0)
		walk_body(w, st->body);
	if (live != 1)
		walk_body(w, st->els);
	return WALK_SKIP;
}

static void report(struct walk *w, const struct expr *e)
{
	struct rctx *r = w->r;

	if (w->quiet) {
		w->failed = true;
	} else {
		enum diag_tag tag = r->in || r->family_var || e->kind != EXPR_TARGET ? E_TARGET_VAR
										     : E_TARGET_UNAVAILABLE;
		const char *fn = r->in && dwarf_diename(&r->fn) ? dwarf_diename(&r->fn) : NULL;
		if (r->site && fn && tag == E_TARGET_VAR)
			diag(r->s, tag, e->pos, "%s (in probe %s)", r->why, r->site->pp);
		else
			diag(r->s, tag, e->pos, "%s", r->why ? r->why : "cannot resolve this target expression");
		w->errors++;
	}
	free(r->why);
	r->why = NULL;
}

/* Whether what e resolves to differs from probe to probe: a $target, or
 * an autocast typed like one. */
static bool depends_on_probe(const struct expr *e)
{
	if (!e)
		return false;
	switch (e->kind) {
	case EXPR_TARGET:
	case EXPR_DEFINED:
	case EXPR_CHOOSE:
	case EXPR_ENTRY:
		return true;
	case EXPR_CAST:
		return !e->str && depends_on_probe(e->type_src);
	case EXPR_ADDROF:
		return depends_on_probe(e->lhs);
	default:
		return false;
	}
}

static void walk_target(struct walk *w, const struct expr *e, bool addrof, const struct expr *key)
{
	struct rctx *r = w->r;
	/* @cast and @var do not depend on the probe: resolve them once */
	const struct derived_probe *dp = depends_on_probe(e) ? r->dp : NULL;

	for (int i = 0; i < e->chain.len; i++)
		if (e->chain.items[i]->kind == TS_INDEX)
			walk_sub(w, e->chain.items[i]->index);
	if (e->kind == EXPR_CAST)
		walk_sub(w, e->lhs);
	if (!w->quiet && tvar_find(r->s, dp, key))
		return;
	struct tvar *tv = tvar_new(dp, key, TV_VALUE);
	r->why = NULL;
	r->family_var = false;
	r->kernel = false;
	bool resolved = resolve_one(r, e, addrof, tv);
	tv->kernel = r->kernel;
	if (!resolved) {
		if (r->s->skip_badvars && !w->quiet) {
			/* --skip-badvars: 0 (or "" pretty printed), with a warning */
			diag(r->s, W_GENERIC, e->pos, "substituting 0 for an unresolvable target expression: %s",
			     r->why ? r->why : "not found");
			free(r->why);
			r->why = NULL;
			tv->kind = e->suffix || (e->kind == EXPR_TARGET && !strncmp(e->name, "$$", 2)) ? TV_PRETTY : TV_VALUE;
			if (tv->kind == TV_PRETTY)
				tv->pretty = xcalloc(1, sizeof(*tv->pretty));
			else
				tv->value = lx_const(0);
			tv->at_entry = false;
			tv->addr = NULL;
			tv->reg = -1;
			vec_push(&table(r->s)->all, tv);
			return;
		}
		if (r->s->list_vars && !w->quiet) {
			/* -L, as SystemTap's listing mode: a target expression
			 * that fails is no error, the variable it sets is
			 * listed with an unknown type */
			free(r->why);
			r->why = NULL;
			tv->kind = TV_UNRESOLVED;
			vec_push(&table(r->s)->all, tv);
			return;
		}
		report(w, e);
		free(tv);
		return;
	}
	if (tv->at_entry && r->site) {
		*r->site->has_entry = true;
		no_entry_in_func(w, e);
	}
	if (!w->quiet || !tvar_find(r->s, dp, key))
		vec_push(&table(r->s)->all, tv);
}

/* Target expressions are resolved here; @defined, @choose_defined and
 * `@defined(...) ? a : b` walk what they need themselves. */
static enum walk_action visit_expr(struct expr *e, void *ctx)
{
	struct walk *w = ctx;

	switch (e->kind) {
	case EXPR_TARGET:
	case EXPR_CAST:
	case EXPR_ATVAR:
		walk_target(w, e, false, e);
		return WALK_SKIP;
	case EXPR_ADDROF:
		if (e->lhs && (e->lhs->kind == EXPR_TARGET || e->lhs->kind == EXPR_CAST || e->lhs->kind == EXPR_ATVAR)) {
			walk_target(w, e->lhs, true, e);
			return WALK_SKIP;
		}
		return WALK_DESCEND;
	case EXPR_DEFINED: {
		bool saved = w->failed;
		w->quiet++;
		w->failed = false;
		walk_sub(w, e->lhs);
		struct tvar *tv = tvar_new(w->r->dp, e, TV_DEFINED);
		tv->defined = !w->failed;
		vec_push(&table(w->r->s)->all, tv);
		w->quiet--;
		w->failed = saved;
		return WALK_SKIP;
	}
	case EXPR_CHOOSE: {
		/* @choose_defined(a, b): a where a resolves, else b */
		bool saved = w->failed;
		w->quiet++;
		w->failed = false;
		walk_sub(w, e->args.items[0]);
		w->quiet--;
		struct tvar *tv = tvar_new(w->r->dp, e, TV_DEFINED);
		tv->defined = !w->failed;
		vec_push(&table(w->r->s)->all, tv);
		w->failed = saved;
		walk_sub(w, e->args.items[tv->defined ? 0 : 1]);
		return WALK_SKIP;
	}
	case EXPR_TERNARY: {   /* @defined($x) ? $x : 0: only the live branch */
		walk_sub(w, e->args.items[0]);
		int live = tvars_static_cond(w->r->s, w->r->dp, e->args.items[0]);
		if (live != 0)
			walk_sub(w, e->args.items[1]);
		if (live != 1)
			walk_sub(w, e->args.items[2]);
		return WALK_SKIP;
	}
	case EXPR_ENTRY:
		if (w->r->ret && w->r->site) {
			*w->r->site->has_entry = true;
			no_entry_in_func(w, e);
		}
		if (!w->r->ret && !w->quiet) {
			diag(w->r->s, E_TARGET_VAR, e->pos, "@entry is only available in .return probes");
			w->errors++;
		}
		return WALK_DESCEND;
	default:
		return WALK_DESCEND;
	}
}

/* $target, @defined, @choose_defined and @entry differ from probe to
 * probe: the first one found ends the walk. */
static enum walk_action find_per_probe(struct expr *e, void *ctx)
{
	(void)ctx;
	if (e->kind == EXPR_CALL && e->func && e->func->in_context)
		return WALK_STOP;   /* its $vars are the probe's */
	return depends_on_probe(e) ? WALK_STOP : WALK_DESCEND;
}

bool tvars_per_probe(const struct probe *p)
{
	struct walker w = { .expr = find_per_probe };

	return !walk_stmt(&w, p->body);
}

/* The context of a derived probe (site; NULL: none): its function DIE
 * and address, as its family's scope gives them. */
static void probe_ctx(struct session *s, const struct tvar_site *site, struct rctx *r)
{
	const char *why;

	memset(r, 0, sizeof(*r));
	r->s = s;
	r->site = site;
	r->dp = site ? site->dp : NULL;
	r->in = site ? site->scope : NULL;
	r->no_dwarf = site && site->no_dwarf;
	if (r->in && !dwarf_offdie(r->in->img->dbg, r->in->die, &r->fn))
		r->in = NULL;
	if (r->in) {
		Dwarf_Addr lo;
		r->img = r->in->img;
		r->pc = r->in->entry;
		r->ret = r->in->ret;
		r->fn_entry = dwarf_entrypc(&r->fn, &lo) == 0 ? lo : r->pc;
	} else {
		r->img = dw_kernel(s, &why);
		/* a return probe without DWARF (kprobe.function().return) can
		 * still have @entry(expr) evaluated when the function is entered */
		r->ret = site && site->is_return;
	}
}

/* One walk over a probe's body and the functions it calls, so a value at
 * entry read in those functions is told apart (in_func). */
int tvars_resolve_body(struct session *s, const struct tvar_site *site, struct stmt *body,
		       const funcvec *funcs)
{
	struct rctx r;

	probe_ctx(s, site, &r);
	struct walk w = { .r = &r };
	walk_body(&w, body);
	w.in_func = true;
	for (int k = 0; funcs && k < funcs->len; k++)
		walk_body(&w, funcs->items[k]->body);
	return w.errors;
}

bool tvars_kernel(struct session *s, const struct derived_probe *dp, const struct expr *e)
{
	const struct tvar *tv = tvar_find(s, dp, e);

	return tv && tv->kernel;
}

bool tvars_unresolved(struct session *s, const struct expr *e)
{
	struct tvar_table *t = table(s);

	for (int i = 0; i < t->all.len; i++)
		if (t->all.items[i]->e == e && t->all.items[i]->kind == TV_UNRESOLVED)
			return true;
	return false;
}

int tvar_operands(struct expr *te, struct expr ***ops, bool *ptr)
{
	VEC(struct expr *) v = { 0 };

	*ptr = te->kind == EXPR_CAST;
	if (*ptr)
		vec_push(&v, te->lhs);
	for (int i = 0; i < te->chain.len; i++)
		if (te->chain.items[i]->kind == TS_INDEX)
			vec_push(&v, te->chain.items[i]->index);
	*ops = v.items;
	return v.len;
}

const struct tvar *tvar_find(struct session *s, const struct derived_probe *dp, const struct expr *e)
{
	struct tvar_table *t = table(s);

	for (int i = t->all.len - 1; i >= 0; i--)
		if (t->all.items[i]->e == e && (t->all.items[i]->dp == dp || !t->all.items[i]->dp))
			return t->all.items[i];
	return NULL;
}

char *tvars_kaslr_init(struct session *s)
{
	uint64_t kfree;
	struct strbuf out = STRBUF_INIT;
	const struct tvar_table *tt = table(s);

	for (int k = 0; k < tt->modsyms.len; k++)
		strbuf_addf(&out, "\tstp_modsym_addrs[%d] = stp_modsym_lookup(\"%s\");\n", k, tt->modsyms.items[k]);
	if (ksyms_kaslr_ref(s, &kfree))
		strbuf_addf(&out, "\tstp_kaslr_offset = (unsigned long)&kfree - 0x%" PRIx64 "UL;\n", kfree);
	return out.len ? strbuf_detach(&out) : (strbuf_release(&out), NULL);
}
