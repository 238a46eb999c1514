/* dwarf_scope.c - the DWARF scope of a probe (dwarf_scope.h): the blocks
 * holding its address, its variables as SystemTap's -L lists them, and the
 * canonical frame address there from the call frame information.
 */
#include "dwarf_scope.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* The scopes holding pc inside the function die, innermost first, from
 * the innermost one that is not inside a callee inlined at pc; *n of them
 * (the function last). NULL if die does not hold pc. */
static Dwarf_Die *scopes_at(struct dw_image *img, Dwarf_Off die, Dwarf_Addr pc, int *n)
{
	Dwarf_Die fn, cu, *sc = NULL;
	int cnt, fi = -1, start = 0;

	if (!dwarf_offdie(img->dbg, die, &fn) || !dwarf_diecu(&fn, &cu, NULL, NULL) ||
	    (cnt = dwarf_getscopes(&cu, pc, &sc)) <= 0)
		return NULL;
	for (int i = 0; i < cnt && fi < 0; i++)
		if (dwarf_dieoffset(&sc[i]) == die)
			fi = i;
	for (int i = 0; i < fi; i++)
		if (dwarf_tag(&sc[i]) == DW_TAG_inlined_subroutine)
			start = i + 1;
	if (fi < 0) {
		free(sc);
		return NULL;
	}
	memmove(sc, sc + start, (size_t)(fi - start + 1) * sizeof(*sc));
	*n = fi - start + 1;
	return sc;
}

void dw_scope_find_block(struct dw_scope *sc)
{
	int n;
	Dwarf_Die *dies = scopes_at(sc->img, sc->die, sc->entry, &n);

	if (dies && n > 1)
		sc->block = dwarf_dieoffset(&dies[0]);
	free(dies);
}

static void dw_type_name(Dwarf_Die *t, struct strbuf *out, int depth);

/* "int (*) (struct super_block*, struct fs_context*)" */
static void fn_pointer_name(Dwarf_Die *fn, struct strbuf *out, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die t, p;
	bool first = true;

	if (dwarf_formref_die(dwarf_attr(fn, DW_AT_type, &a), &t))
		dw_type_name(&t, out, depth);
	else
		strbuf_addstr(out, "void");
	strbuf_addstr(out, " (*) (");
	if (dwarf_child(fn, &p) == 0) {
		do {
			if (dwarf_tag(&p) != DW_TAG_formal_parameter)
				continue;
			if (!first)
				strbuf_addstr(out, ", ");
			first = false;
			if (dwarf_formref_die(dwarf_attr(&p, DW_AT_type, &a), &t))
				dw_type_name(&t, out, depth);
		} while (dwarf_siblingof(&p, &p) == 0);
	}
	strbuf_addch(out, ')');
}

/* C-like type name as SystemTap's -L prints it: "char const*",
 * "struct file*", "long unsigned int", "struct iovec[]". */
static void dw_type_name(Dwarf_Die *t, struct strbuf *out, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die inner;
	bool has_inner = dwarf_formref_die(dwarf_attr(t, DW_AT_type, &a), &inner) != NULL;
	const char *name = dwarf_diename(t);

	if (depth > 16) {
		strbuf_addstr(out, "?");
		return;
	}
	switch (dwarf_tag(t)) {
	case DW_TAG_pointer_type:
		if (has_inner && dwarf_tag(&inner) == DW_TAG_subroutine_type) {
			fn_pointer_name(&inner, out, depth + 1);
			break;
		}
		if (has_inner)
			dw_type_name(&inner, out, depth + 1);
		else
			strbuf_addstr(out, "void");
		strbuf_addch(out, '*');
		break;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		if (has_inner)
			dw_type_name(&inner, out, depth + 1);
		else
			strbuf_addstr(out, "void");
		strbuf_addstr(out, dwarf_tag(t) == DW_TAG_const_type ? " const" : " volatile");
		break;
	case DW_TAG_array_type:
		if (has_inner)
			dw_type_name(&inner, out, depth + 1);
		strbuf_addstr(out, "[]");
		break;
	case DW_TAG_structure_type:
		strbuf_addf(out, "struct %s", name ? name : "{...}");
		break;
	case DW_TAG_union_type:
		strbuf_addf(out, "union %s", name ? name : "{...}");
		break;
	case DW_TAG_enumeration_type:
		strbuf_addf(out, "enum %s", name ? name : "{...}");
		break;
	case DW_TAG_subroutine_type:
		strbuf_addstr(out, "void");
		break;
	default:
		strbuf_addstr(out, name ? name : "void");
		break;
	}
}

/* A variable is listed only if it has a location at the probe address (as
 * SystemTap): a local set later in the function, or an optimised-out
 * parameter, is not. */
static bool located_at(Dwarf_Die *var, Dwarf_Addr pc)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr_integrate(var, DW_AT_location, &a))
		return false;
	return dwarf_getlocation_addr(&a, pc, &ops, &nops, 1) > 0 && nops > 0;
}

/* " $name:type" for the parameters and variables of one scope located at
 * pc, in DIE order. */
static void scope_vars(Dwarf_Die *scope, Dwarf_Addr pc, const char *hidden, struct strbuf *out)
{
	Dwarf_Die d, t;
	Dwarf_Attribute a;

	if (dwarf_child(scope, &d) != 0)
		return;
	do {
		int tag = dwarf_tag(&d);
		const char *name = dwarf_diename(&d);
		if ((tag != DW_TAG_formal_parameter && tag != DW_TAG_variable) || !name)
			continue;
		if (!located_at(&d, pc))
			continue;
		if (hidden && !strcmp(name, hidden))
			continue;   /* the probe mechanism's, not an argument */
		strbuf_addf(out, " $%s:", name);
		if (dwarf_formref_die(dwarf_attr_integrate(&d, DW_AT_type, &a), &t))
			dw_type_name(&t, out, 0);
		else
			strbuf_addstr(out, "void");
	} while (dwarf_siblingof(&d, &d) == 0);
}

void dw_scope_vars(const struct dw_scope *sc, struct strbuf *out)
{
	Dwarf_Die fn, t;
	Dwarf_Attribute a;

	if (!dwarf_offdie(sc->img->dbg, sc->die, &fn))
		return;
	if (sc->ret && dwarf_formref_die(dwarf_attr_integrate(&fn, DW_AT_type, &a), &t)) {
		strbuf_addstr(out, " $return:");
		dw_type_name(&t, out, 0);
	}
	/* statements and labels: the blocks holding the address first */
	int n = 0;
	Dwarf_Die *sc_dies = sc->block ? scopes_at(sc->img, sc->die, sc->entry, &n) : NULL;
	for (int i = 0; i < n - 1; i++)
		scope_vars(&sc_dies[i], sc->entry, sc->hidden, out);
	free(sc_dies);
	scope_vars(&fn, sc->entry, sc->hidden, out);
}

/* At a function's entry the canonical frame address is the stack pointer
 * before the call pushed the return address; elsewhere (an inlined
 * instance's entry included: it is inside its caller's frame) the call
 * frame information says. */
bool dw_cfa_at(struct dw_image *img, Dwarf_Die *fn, Dwarf_Addr pc, Dwarf_Addr fn_entry, int *reg, int64_t *off)
{
	Dwarf_CFI *cfi;
	Dwarf_Frame *fr = NULL;
	Dwarf_Op *ops;
	size_t n;

	if (pc == fn_entry && dwarf_tag(fn) != DW_TAG_inlined_subroutine) {
		*reg = 7;
		*off = 8;
		return true;
	}
	if (img->user) {   /* .debug_frame, else .eh_frame (libdwfl's addresses) */
		Dwarf_Addr at = pc + img->bias, cbias = 0;
		cfi = dwfl_module_dwarf_cfi(img->mod, &cbias);
		if (!cfi || dwarf_cfi_addrframe(cfi, at - cbias, &fr) != 0) {
			fr = NULL;
			cfi = dwfl_module_eh_cfi(img->mod, &cbias);
			if (cfi && dwarf_cfi_addrframe(cfi, at - cbias, &fr) != 0)
				fr = NULL;
		}
	} else if ((cfi = dwarf_getcfi(img->dbg)) && dwarf_cfi_addrframe(cfi, pc, &fr) != 0) {
		fr = NULL;
	}
	if (!fr || dwarf_frame_cfa(fr, &ops, &n) != 0 ||
	    n != 1 || !((ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) || ops[0].atom == DW_OP_bregx)) {
		free(fr);
		return false;
	}
	*reg = ops[0].atom == DW_OP_bregx ? (int)ops[0].number : ops[0].atom - DW_OP_breg0;
	*off = ops[0].atom == DW_OP_bregx ? (int64_t)ops[0].number2 : (int64_t)ops[0].number;
	free(fr);
	return true;
}

/* uprobes.c: a uretprobe's entry handler needs the frame address there. */
bool dw_scope_cfa(const struct dw_scope *sc, int *reg, int64_t *off)
{
	Dwarf_Die fn;
	Dwarf_Addr lo;

	if (!sc || !dwarf_offdie(sc->img->dbg, sc->die, &fn))
		return false;
	return dw_cfa_at(sc->img, &fn, sc->entry, dwarf_entrypc(&fn, &lo) == 0 ? lo : sc->entry, reg, off);
}
