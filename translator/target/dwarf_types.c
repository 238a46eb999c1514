/* dwarf_types.c - facts about types in a DWARF image (dwarf_types.h):
 * typedefs and qualifiers followed, a type's size and signedness, a
 * member of a struct and its offset, a type looked up by name.
 */
#include "dwarf_types.h"

#include <dwarf.h>
#include <string.h>

/* Follow typedefs and qualifiers; false for void. */
bool dw_peel(Dwarf_Die *t)
{
	Dwarf_Attribute a;

	for (int n = 0; n < 64; n++) {
		int tag = dwarf_tag(t);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type)
			return true;
		if (!dwarf_formref_die(dwarf_attr_integrate(t, DW_AT_type, &a), t))
			return false;
	}
	return false;
}

/* The DW_AT_type of d, peeled; false for void or none. */
bool dw_type_of(Dwarf_Die *d, Dwarf_Die *t)
{
	Dwarf_Attribute a;

	if (!dwarf_formref_die(dwarf_attr_integrate(d, DW_AT_type, &a), t))
		return false;
	return dw_peel(t);
}

/* The size of a value of type t in bytes (a pointer: 8); 0 if it has none. */
int dw_byte_size(Dwarf_Die *t)
{
	Dwarf_Word w;

	if (dwarf_tag(t) == DW_TAG_pointer_type)
		return 8;
	if (dwarf_aggregate_size(t, &w) == 0)
		return (int)w;
	return 0;
}

/* A signed integer type, or an enum over one? */
bool dw_is_signed(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word enc;
	Dwarf_Die u;

	if (dwarf_tag(t) == DW_TAG_enumeration_type)
		return dw_type_of(t, &u) && dw_is_signed(&u);
	if (dwarf_tag(t) != DW_TAG_base_type || dwarf_formudata(dwarf_attr(t, DW_AT_encoding, &a), &enc))
		return false;
	return enc == DW_ATE_signed || enc == DW_ATE_signed_char;
}

/* A one-byte character type (char, signed or unsigned char)? */
bool dw_is_char(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word enc;

	if (dwarf_tag(t) != DW_TAG_base_type || dwarf_formudata(dwarf_attr(t, DW_AT_encoding, &a), &enc))
		return false;
	return (enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char) && dw_byte_size(t) == 1;
}

/* A struct, union or class? */
bool dw_is_aggregate(Dwarf_Die *t)
{
	int tag = dwarf_tag(t);

	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_class_type;
}

/* A member named name of struct/union st, looking into anonymous members;
 * its offset in bytes and bitfield position. */
bool dw_find_member(Dwarf_Die *st, const char *name, Dwarf_Die *mem, Dwarf_Word *off,
		    int *bit_size, int *bit_off, int depth)
{
	Dwarf_Die m, t;
	Dwarf_Attribute a;

	if (depth > 8 || dwarf_child(st, &m) != 0)
		return false;
	do {
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		const char *n = dwarf_diename(&m);
		Dwarf_Word moff = 0, bs = 0, bo = 0, dbo = 0;
		if (dwarf_attr(&m, DW_AT_data_member_location, &a))
			dwarf_formudata(&a, &moff);
		if (n && !strcmp(n, name)) {
			*mem = m;
			*bit_size = 0;
			*bit_off = 0;
			if (dwarf_attr(&m, DW_AT_bit_size, &a) && dwarf_formudata(&a, &bs) == 0 && bs) {
				*bit_size = (int)bs;
				if (dwarf_attr(&m, DW_AT_data_bit_offset, &a) && dwarf_formudata(&a, &dbo) == 0) {
					moff = dbo / 8;
					*bit_off = (int)(dbo % 8);
				} else if (dwarf_attr(&m, DW_AT_bit_offset, &a) && dwarf_formudata(&a, &bo) == 0) {
					Dwarf_Word bsz = 0;
					if (dwarf_attr(&m, DW_AT_byte_size, &a))
						dwarf_formudata(&a, &bsz);
					else if (dw_type_of(&m, &t))
						bsz = (Dwarf_Word)dw_byte_size(&t);
					Dwarf_Word le = moff * 8 + bsz * 8 - bo - bs;
					moff = le / 8;
					*bit_off = (int)(le % 8);
				}
			}
			*off += moff;
			return true;
		}
		if (!n && dw_type_of(&m, &t) && dw_is_aggregate(&t)) {
			Dwarf_Word inner = *off + moff;
			if (dw_find_member(&t, name, mem, &inner, bit_size, bit_off, depth + 1)) {
				*off = inner;
				return true;
			}
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

/* Top-level type DIEs found by name (@cast, dw_member_offset), cached in
 * their image. */
struct type_hit {
	char *name;
	Dwarf_Off off;
};
struct dw_type_cache {
	VEC(struct type_hit) hits;
};

/* A complete type named name ("struct x", "union x", "x") in img, found by
 * walking every unit's top level once per name (a miss is cached too). */
bool dw_find_type(struct dw_image *img, const char *name, Dwarf_Die *out)
{
	int want = 0;
	const char *n = name;

	if (!img->types)
		img->types = xcalloc(1, sizeof(*img->types));
	for (int i = 0; i < img->types->hits.len; i++)
		if (!strcmp(img->types->hits.items[i].name, name))
			return img->types->hits.items[i].off && dwarf_offdie(img->dbg, img->types->hits.items[i].off, out);
	if (!strncmp(n, "struct ", 7)) {
		want = DW_TAG_structure_type;
		n += 7;
	} else if (!strncmp(n, "union ", 6)) {
		want = DW_TAG_union_type;
		n += 6;
	} else if (!strncmp(n, "enum ", 5)) {
		want = DW_TAG_enumeration_type;
		n += 5;
	}
	while (*n == ' ')
		n++;
	size_t len = strcspn(n, " *");
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, d;
	Dwarf_Off found = 0;
	while (!found && dwarf_get_units(img->dbg, cu, &cu, NULL, NULL, &cudie, NULL) == 0) {
		if (dwarf_child(&cudie, &d) != 0)
			continue;
		do {
			int tag = dwarf_tag(&d);
			const char *dn = dwarf_diename(&d);
			bool ok = want ? tag == want : (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
							tag == DW_TAG_typedef || tag == DW_TAG_base_type ||
							tag == DW_TAG_enumeration_type);
			if (!ok || !dn || strlen(dn) != len || strncmp(dn, n, len))
				continue;
			if (dwarf_hasattr(&d, DW_AT_declaration))
				continue;
			found = dwarf_dieoffset(&d);
			break;
		} while (dwarf_siblingof(&d, &d) == 0);
	}
	struct type_hit h = { xstrdup(name), found };
	vec_push(&img->types->hits, h);
	return found && dwarf_offdie(img->dbg, found, out);
}

/* Free the cache of an image being closed (dw_module_close). */
void dw_type_cache_free(struct dw_type_cache *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->hits.len; i++)
		free(c->hits.items[i].name);
	free(c->hits.items);
	free(c);
}

/* syscalls_gen.c, tracepoint.c: where a member of a kernel struct is, for
 * reading the kernel's data at translation time or in the module. */
long dw_member_offset(struct dw_image *img, const char *type, const char *member)
{
	Dwarf_Die t, m;
	Dwarf_Word off = 0;
	int bs, bo;

	if (!dw_find_type(img, type, &t) || !dw_peel(&t) || !dw_is_aggregate(&t) ||
	    !dw_find_member(&t, member, &m, &off, &bs, &bo, 0) || bs)
		return -1;
	return (long)off;
}
