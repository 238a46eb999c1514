/* dwarf_types.h - facts about the types of a DWARF image: what pass 2
 * walks when it resolves $x->y and @cast (elaborate/tvars.c), and where a
 * member of a kernel struct is for the families and the syscall tapset
 * generator that read the kernel's data.
 */
#ifndef CSTAP_TARGET_DWARF_TYPES_H
#define CSTAP_TARGET_DWARF_TYPES_H

#include "debuginfo.h"

/* Follow typedefs and qualifiers from *t; false for void. */
bool dw_peel(Dwarf_Die *t);
/* The DW_AT_type of d into *t, peeled; false for void or none. */
bool dw_type_of(Dwarf_Die *d, Dwarf_Die *t);
/* The size of a value of type t in bytes (a pointer: 8); 0 if it has none. */
int dw_byte_size(Dwarf_Die *t);
/* A signed integer type, or an enum over one? */
bool dw_is_signed(Dwarf_Die *t);
/* A one-byte character type? */
bool dw_is_char(Dwarf_Die *t);
/* A struct, union or class? */
bool dw_is_aggregate(Dwarf_Die *t);
/* The member named name of struct/union st, looked for in its anonymous
 * members too (depth: 0): *mem, *off (bytes, added to what it holds) and a
 * bitfield's *bit_size and *bit_off (0 when it is none). */
bool dw_find_member(Dwarf_Die *st, const char *name, Dwarf_Die *mem, Dwarf_Word *off,
		    int *bit_size, int *bit_off, int depth);
/* A complete type named name ("struct x", "union x", "enum x", "x") in
 * img; cached per image (img->types). */
bool dw_find_type(struct dw_image *img, const char *name, Dwarf_Die *out);
/* Offset of a member in a struct type of img ("struct x"), or -1 (none,
 * or a bitfield). */
long dw_member_offset(struct dw_image *img, const char *type, const char *member);

#endif
