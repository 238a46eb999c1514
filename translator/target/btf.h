/* btf.h - the target kernel's BTF: its types and its functions with their
 * parameters, for kernel.function probes and their $target variables when
 * no DWARF debuginfo is installed (no -dbg package, no debuginfod).
 *
 * Found in /sys/kernel/btf/vmlinux when the target is the running kernel,
 * else in the .BTF section of the vmlinux inside /boot/vmlinuz-REL
 * (decompressed once with lz4/zstd/xz/gzip, the section kept in the cache).
 * BTF has no local variables, no line numbers or source files, no inlined
 * copies of functions, and no function the compiler inlined everywhere.
 */
#ifndef CSTAP_BTF_H
#define CSTAP_BTF_H

#include <stdbool.h>
#include <stdint.h>

#include "session.h"
#include "lowered.h"
#include "util.h"

/* BTF kinds (the kernel's BTF_KIND_*) */
enum {
	BTFK_INT = 1, BTFK_PTR, BTFK_ARRAY, BTFK_STRUCT, BTFK_UNION, BTFK_ENUM, BTFK_FWD,
	BTFK_TYPEDEF, BTFK_VOLATILE, BTFK_CONST, BTFK_RESTRICT, BTFK_FUNC, BTFK_FUNC_PROTO,
	BTFK_VAR, BTFK_DATASEC, BTFK_FLOAT, BTFK_DECL_TAG, BTFK_TYPE_TAG, BTFK_ENUM64,
};

struct btf;

/* The target kernel's BTF; NULL with *why (static text or allocated once). */
const struct btf *btf_kernel(struct session *s, const char **why);

/* The functions BTF describes, sorted by name, each once: how many, and
 * the i'th's name (a pointer into the BTF). */
size_t btf_nfuncs(const struct btf *b);
const char *btf_func_name(const struct btf *b, size_t i);
/* The names of the functions matching fnmatch pattern pat, each once,
 * sorted, appended to out (pointers into the BTF). */
void btf_funcs_matching(const struct btf *b, const char *pat, strvec *out);
/* The tracepoints BTF describes (typedef btf_trace_NAME) whose NAME
 * matches pat, appended to out (pointers into the BTF); a tracepoint's
 * prototype (void *__data, then its arguments, named as its event class's
 * __bpf_trace_ function names them when BTF has one), or 0. */
void btf_tracepoints_matching(const struct btf *b, const char *pat, strvec *out);
uint32_t btf_tracepoint_proto(const struct btf *b, const char *name);
/* FUNC name's prototype (a FUNC_PROTO id), 0 if BTF has no such function. */
uint32_t btf_func_proto(const struct btf *b, const char *name);
/* FUNC name's own type id (what a BPF trampoline is attached by), 0 if none. */
uint32_t btf_func_id(const struct btf *b, const char *name);

/* A prototype's parameters and return type (0: void). */
int btf_nparams(const struct btf *b, uint32_t proto);
const char *btf_param_name(const struct btf *b, uint32_t proto, int i);
uint32_t btf_param_type(const struct btf *b, uint32_t proto, int i);
uint32_t btf_return_type(const struct btf *b, uint32_t proto);
/* The first parameter passed by value as a structure (or one wider than a
 * register), or the count: from it on the calling convention does not say
 * where the parameters are, and older kernels' BPF trampolines take none. */
int btf_first_by_value(const struct btf *b, uint32_t proto);

/* The type as SystemTap writes it: "struct file*", "char const*", "size_t". */
void btf_type_text(const struct btf *b, uint32_t id, struct strbuf *out);

/* Through typedefs and qualifiers to the type itself. */
uint32_t btf_resolve(const struct btf *b, uint32_t id);
int btf_kind(const struct btf *b, uint32_t id);
/* Size in bytes of an int, enum, pointer (8), struct or union; arrays:
 * elements x element size; 0 if unknown. */
uint64_t btf_size(const struct btf *b, uint32_t id);
bool btf_int_signed(const struct btf *b, uint32_t id);
/* What a pointer points to, or an array's element type (*n: how many). */
uint32_t btf_pointee(const struct btf *b, uint32_t id);
uint32_t btf_array_elem(const struct btf *b, uint32_t id, uint32_t *n);
/* Member `name` of a struct or union (anonymous members searched too): its
 * offset in bits from the start and its type; bitsize 0 unless a bit field.
 * false if none. */
bool btf_member(const struct btf *b, uint32_t sid, const char *name, uint64_t *bitoff, uint32_t *type,
		uint32_t *bitsize);

/* For walking every type (the D front end indexes them by name): how many
 * ids there are (types are 1 .. btf_ntypes() - 1) and a type's name ("" if
 * it has none). */
uint32_t btf_ntypes(const struct btf *b);
const char *btf_name(const struct btf *b, uint32_t id);
/* What a pointer, typedef, qualifier, variable or prototype (its return
 * type) refers to, one step; 0 for void or none. */
uint32_t btf_ref(const struct btf *b, uint32_t id);
/* A struct's or union's members in order: how many, and the i-th (name ""
 * when anonymous, offset in bits, bitsize 0 unless a bit field). */
int btf_nmembers(const struct btf *b, uint32_t id);
void btf_member_at(const struct btf *b, uint32_t id, int i, const char **name, uint64_t *bitoff,
		   uint32_t *type, uint32_t *bitsize);

/* A type by name: "struct file", "file" (a struct, union or typedef),
 * "union u", "enum e"; 0 if BTF has none. */
uint32_t btf_type_named(const struct btf *b, const char *name);

/* Target expressions through BTF in the lowered form (btf_chain.c),
 * reading kernel memory: */
/* v (a value of type `type`) cut to the type's size and sign */
const struct lx *btf_typed_value(const struct btf *b, uint32_t type, const struct lx *v);
/* e's chain (->member, [index] as LX_INDEX) from base: a value of type
 * `type`, or (base_addr) the address of an object of that type; the
 * value at its end, or (addrof) its address. NULL with *why (allocated). */
struct expr;
const struct lx *btf_chain_lx(const struct btf *b, uint32_t type, const struct lx *base, bool base_addr,
			      const struct expr *e, bool addrof, char **why);

#endif
