/* d_check_xlate.c - translators: their definitions (D_XLATE_SOU,
 * D_XLATE_REDECL, D_XLATE_MEMB, D_XLATE_INCOMPAT), xlate<T>(x)
 * (D_XLATE_NONE), and the members a translated value has (D_XLATE_NOCONV).
 * D's library's translators (to psinfo_t and lwpsinfo_t from a task) are
 * there from the start, with the members they define and no expressions.
 */
#include <string.h>

#include "d/d_check_int.h"
#include "d/d_lib.h"

/* The task type the library translates from. */
static struct d_type *task_pointer(struct d_ck *ck)
{
	struct d_type *t = d_type_lookup(ck->ts, "struct task_struct *");

	return t ? t : d_type_pointer(ck->ts, d_type_tag(ck->ts, DT_STRUCT, "task_struct", true));
}

void ck_xlators_builtin(struct d_ck *ck)
{
	static const char *const outputs[] = { "psinfo_t", "lwpsinfo_t" };

	for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++) {
		struct d_type *to = d_type_lookup(ck->ts, outputs[i]);
		const char *const *m = d_lib_xlated(outputs[i]);
		struct d_xlator *x;

		if (!to || !m)
			continue;
		x = xcalloc(1, sizeof(*x));
		x->builtin = true;
		x->to = to;
		x->from = task_pointer(ck);
		x->from_name = "T";
		for (; *m; m++)
			vec_push(&x->members, (char *)*m);
		vec_push(&ck->xlators, x);
	}
}

struct d_xlator *ck_xlator_to(struct d_ck *ck, const char *to_name)
{
	for (int i = 0; i < ck->xlators.len; i++) {
		struct d_xlator *x = ck->xlators.items[i];
		if (x->builtin && !strcmp(d_type_name(x->to), to_name))
			return x;
	}
	return NULL;
}

/* The translator to `to` (a struct) that takes a value of type from. */
static struct d_xlator *find(struct d_ck *ck, struct d_type *to, struct d_type *from)
{
	for (int i = ck->xlators.len - 1; i >= 0; i--) {
		struct d_xlator *x = ck->xlators.items[i];
		if (d_type_resolve(x->to) == d_type_resolve(to) &&
		    (ck_same(x->from, from) || ck_ptr_compat(x->from, from)))
			return x;
	}
	return NULL;
}

/* member = expr of a translator: a member of the output, of a type the
 * expression's value may be stored in */
static void check_member(struct d_ck *ck, struct d_xlator *x, struct d_type *to, int i)
{
	const char *name = x->members.items[i];
	struct d_expr *e = x->exprs.items[i];
	const struct d_member *m = d_type_member(to, name, NULL);
	struct d_type *t;

	if (!m)
		CK_ERR(ck, "D_XLATE_MEMB", x->end, "translator member %s is not a member of %s", name,
		       ck_name(x->to));
	ck->xl = x;
	t = ck_expr(ck, e);
	ck->xl = NULL;
	if (!ck_compat(m->type, t, ck_is_zero(ck, e)))
		CK_ERR(ck, "D_XLATE_INCOMPAT", x->end, "translator member %s definition uses incompatible types: "
		       "\"%s\" = \"%s\"", name, ck_name(m->type), ck_name(t));
}

void ck_xlator_decl(struct d_ck *ck, struct d_xlator *x)
{
	struct d_type *to = d_type_resolve(x->to);

	if (!ck_is_sou(to))
		CK_ERR(ck, "D_XLATE_SOU", x->end, "translator output type must be a struct or union");
	if (!to->complete)
		CK_ERR(ck, "D_XLATE_SOU", x->end, "incomplete struct/union/enum %s", ck_name(x->to));
	for (int i = 0; i < ck->xlators.len; i++) {
		struct d_xlator *y = ck->xlators.items[i];
		if (d_type_resolve(y->to) == to && ck_same(y->from, x->from))
			CK_ERR(ck, "D_XLATE_REDECL", x->end, "translator from %s to %s has already been declared",
			       ck_name(x->from), ck_name(x->to));
	}
	for (int i = 0; i < x->members.len; i++)
		check_member(ck, x, to, i);
	vec_push(&ck->xlators, x);
}

struct d_type *ck_xlate(struct d_ck *ck, struct d_expr *e)
{
	struct d_type *t = ck_expr(ck, e->lhs), *to = e->cast_type;
	struct d_type *out = ck_is_ptr(to) ? d_type_resolve(to)->ref : to;

	if (!ck_is_sou(out))
		CK_ERR(ck, "D_XLATE_SOU", e->pos, "translator output type must be a struct or union");
	if (!(e->xlator = find(ck, out, t)))
		CK_ERR(ck, "D_XLATE_NONE", e->pos, "cannot translate from \"%s\" to \"%s\"", ck_name(t),
		       ck_name(out));
	return to;
}

void ck_xlated_member(struct d_ck *ck, const struct d_xlator *x, struct d_expr *e)
{
	for (int i = 0; i < x->members.len; i++)
		if (!strcmp(x->members.items[i], e->name))
			return;
	CK_ERR(ck, "D_XLATE_NOCONV", e->pos, "translator does not define conversion for member: %s", e->name);
}
