/* btf_chain.c - a target expression's chain through BTF types
 * ($param->a->b[i], @cast(p, "struct x")->y without DWARF) in the lowered
 * form: each step follows a pointer (a kernel read) or adds a member's
 * offset; the end is read with its size and sign. See btf.h. */
#include "btf.h"

#include <string.h>

#include "ast.h"

/* A value of type `type`, cut to its size and sign. */
const struct lx *btf_typed_value(const struct btf *b, uint32_t type, const struct lx *v)
{
	uint64_t size = btf_size(b, type);
	int kind = btf_kind(b, btf_resolve(b, type));

	if (kind == BTFK_PTR || size >= 8 || !size)
		return v;
	return lx_fit(v, (int)size, btf_int_signed(b, type));
}

/* Where a chain step is: a value (a register's, a pointer's), or the
 * address of an object in kernel memory. */
struct place {
	bool addr;
	const struct lx *x;
	uint32_t type;
	uint32_t bitsize, bitshift;   /* a bit field at addr */
};

/* $name's chain through BTF; false with *why. */
static bool follow(const struct btf *b, const struct expr *e, struct place *pl, char **why)
{
	int nidx = 0;

	for (int i = 0; i < e->chain.len; i++) {
		const struct target_step *st = e->chain.items[i];
		uint32_t t = btf_resolve(b, pl->type);
		int kind = btf_kind(b, t);
		if (pl->bitsize) {
			*why = xasprintf("a bit field has no members or elements");
			return false;
		}
		if (kind == BTFK_PTR) {   /* p->x, p[i]: what p points to */
			uint32_t to = btf_pointee(b, t);
			const struct lx *base = pl->addr ? lx_load(pl->x, 8, false) : pl->x;
			if (st->kind == TS_INDEX) {
				pl->x = lx_index(base, nidx++, (int64_t)btf_size(b, to));
				pl->addr = true;
				pl->type = to;
				continue;
			}
			pl->x = base;
			pl->addr = true;
			t = btf_resolve(b, to);
			kind = btf_kind(b, t);
			pl->type = to;
		} else if (!pl->addr) {
			*why = xasprintf("a structure passed by value: BTF gives no way to read it here");
			return false;
		}
		if (st->kind == TS_INDEX) {
			uint32_t n = 0, el = btf_array_elem(b, t, &n);
			if (!el) {
				*why = xasprintf("'[...]' on something that is neither a pointer nor an array");
				return false;
			}
			pl->x = lx_index(pl->x, nidx++, (int64_t)btf_size(b, el));
			pl->type = el;
			continue;
		}
		if (kind != BTFK_STRUCT && kind != BTFK_UNION) {
			struct strbuf tt = STRBUF_INIT;
			btf_type_text(b, pl->type, &tt);
			*why = xasprintf("'->%s' on a %s, not a structure or union", st->field, tt.buf);
			strbuf_release(&tt);
			return false;
		}
		uint64_t bitoff;
		uint32_t mtype, bits;
		if (!btf_member(b, t, st->field, &bitoff, &mtype, &bits)) {
			struct strbuf tt = STRBUF_INIT;
			btf_type_text(b, t, &tt);
			*why = xasprintf("%s has no member '%s'", tt.buf, st->field);
			strbuf_release(&tt);
			return false;
		}
		pl->x = lx_add_k(pl->x, (int64_t)(bitoff / 8));
		pl->type = mtype;
		pl->bitsize = bits;
		pl->bitshift = (uint32_t)(bitoff % 8);
	}
	return true;
}

/* The int64_t value at the end of a chain; NULL with *why. */
static const struct lx *place_value(const struct btf *b, const struct expr *e, struct place *pl, char **why)
{
	uint32_t t = btf_resolve(b, pl->type);
	int kind = btf_kind(b, t);

	if (!pl->addr)
		return btf_typed_value(b, pl->type, pl->x);
	if (kind == BTFK_ARRAY)   /* an array's value is its address, as with DWARF */
		return pl->x;
	if (kind == BTFK_STRUCT || kind == BTFK_UNION) {
		*why = xasprintf("'%s' is a structure: pick a member with '->'", e->name ? e->name : "@cast(...)");
		return NULL;
	}
	uint64_t size = btf_size(b, t);
	if (kind != BTFK_INT && kind != BTFK_ENUM && kind != BTFK_ENUM64 && kind != BTFK_PTR) {
		*why = xasprintf("'%s' has a type cstap cannot read through BTF", e->name ? e->name : "@cast(...)");
		return NULL;
	}
	if (pl->bitsize) {
		uint32_t span = pl->bitshift + pl->bitsize, n = span <= 8 ? 1 : span <= 16 ? 2 : span <= 32 ? 4 : 8;
		const struct lx *v = lx_bin(LX_AND, lx_bin(LX_SHR, lx_load(pl->x, (int)n, false), lx_const(pl->bitshift)),
					    lx_hex(pl->bitsize >= 64 ? ~0ULL : (1ULL << pl->bitsize) - 1));
		return btf_int_signed(b, t) ? lx_sext(v, (int)pl->bitsize) : v;
	}
	return btf_typed_value(b, pl->type, lx_load(pl->x, (int)(size && size <= 8 ? size : 8), false));
}


const struct lx *btf_chain_lx(const struct btf *b, uint32_t type, const struct lx *base, bool base_addr,
			      const struct expr *e, bool addrof, char **why)
{
	struct place pl = { .addr = base_addr, .x = base, .type = type };

	if (!follow(b, e, &pl, why))
		return NULL;
	if (addrof) {   /* &...: where the chain ends */
		if (!pl.addr || pl.bitsize) {
			*why = xasprintf("'&' of something without an address (%s)", pl.bitsize ? "a bit field" : "a value");
			return NULL;
		}
		return pl.x;
	}
	return place_value(b, e, &pl, why);
}
