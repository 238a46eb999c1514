/* d_prov_btf.c - the kernel's BTF for the providers that name kernel
 * functions and tracepoints (fbt, rawtp): their parameters' names and
 * types. It is the running kernel's (the host dtrace traces natively); a
 * module runtime's target kernel is resolved again by stap's pass 2 when
 * it probes the points.
 */
#include <string.h>

#include "d/d_prov_uproc.h"
#include "target/btf.h"

/* the running kernel's BTF, NULL when it has none */
const struct btf *d_btf(void)
{
	static bool tried;
	static const struct btf *b;

	if (!tried) {
		tried = true;
		b = btf_kernel(d_session(), NULL);
	}
	return b;
}

/* "struct file*" as DTrace writes it: "struct file *" */
static char *dtrace_type(const struct btf *b, uint32_t type)
{
	struct strbuf t = STRBUF_INIT, out = STRBUF_INIT;

	btf_type_text(b, type, &t);
	for (const char *p = t.buf; *p; p++) {
		if (*p == '*' && out.len && out.buf[out.len - 1] != '*' && out.buf[out.len - 1] != ' ')
			strbuf_addch(&out, ' ');
		strbuf_addch(&out, *p);
	}
	strbuf_release(&t);
	return strbuf_detach(&out);
}

/* The parameters of prototype proto from the first'th on: their names
 * (NULL for an unnamed one) and D type names; the return type's */
void d_btf_params(uint32_t proto, int first, struct d_params *out)
{
	const struct btf *b = d_btf();
	int n = b && proto ? btf_nparams(b, proto) : 0;

	for (int i = first; i < n; i++) {
		const char *name = btf_param_name(b, proto, i);
		vec_push(&out->names, name && *name ? (char *)name : NULL);
		vec_push(&out->types, dtrace_type(b, btf_param_type(b, proto, i)));
		vec_push(&out->type_ids, (int)btf_param_type(b, proto, i));
	}
	out->ret = b && proto && btf_return_type(b, proto) ? dtrace_type(b, btf_return_type(b, proto)) : NULL;
}

/* What members names (outermost last) of a value of BTF type `type`
 * come to: 's' a char array (a string), 'i' an integer of *size bytes
 * (*sign), 'o' anything else (a pointer, a structure), 0 when a name is
 * not a member of what it follows */
int d_btf_chain(uint32_t type, const char *const *names, int n, int *size, bool *sign)
{
	const struct btf *b = d_btf();
	uint32_t t = b ? btf_resolve(b, type) : 0;

	for (int i = n - 1; i >= 0 && t; i--) {
		uint64_t off;
		uint32_t mt, bits;
		if (btf_kind(b, t) == BTFK_PTR)
			t = btf_resolve(b, btf_pointee(b, t));
		if (!t || (btf_kind(b, t) != BTFK_STRUCT && btf_kind(b, t) != BTFK_UNION) ||
		    !btf_member(b, t, names[i], &off, &mt, &bits))
			return 0;
		t = btf_resolve(b, mt);
	}
	if (!t)
		return 0;
	int k = btf_kind(b, t);
	if (k == BTFK_ARRAY) {
		uint32_t nelem, e = btf_resolve(b, btf_array_elem(b, t, &nelem));
		if (e && btf_kind(b, e) == BTFK_INT && btf_size(b, e) == 1)
			return 's';
	}
	if (k == BTFK_INT || k == BTFK_ENUM || k == BTFK_ENUM64) {
		*size = (int)btf_size(b, t);
		*sign = k != BTFK_INT || btf_int_signed(b, t);
		return 'i';
	}
	return 'o';
}
