/* d_check_type.c - questions the checker asks of D types: what kind a type
 * is, whether a value of one type may be used where another is expected
 * (DTrace's assignment and pointer rules), and the built-in variables'
 * types. */
#include <string.h>

#include "d/d_check_int.h"

struct d_type *ck_type(struct d_ck *ck, const char *name)
{
	struct d_type *t = d_type_lookup(ck->ts, name);

	return t ? t : d_type_lookup(ck->ts, "int");
}

struct d_type *ck_unknown(void)
{
	static struct d_type t = { .kind = DT_INT, .size = 8, .is_signed = true, .name = "int64_t",
				   .complete = true };

	return &t;
}

struct d_type *ck_dyn(void)
{
	static struct d_type t = { .kind = DT_DYN, .name = "<DYN>", .complete = true };

	return &t;
}

static struct d_type *res(struct d_type *t)
{
	return d_type_resolve(t);
}

bool ck_is_int(struct d_type *t)
{
	t = res(t);
	return t && (t->kind == DT_INT || t->kind == DT_ENUM);
}

bool ck_is_arith(struct d_type *t)
{
	t = res(t);
	return t && (t->kind == DT_INT || t->kind == DT_ENUM || t->kind == DT_FLOAT);
}

bool ck_is_ptr(struct d_type *t)
{
	if (t == ck_unknown())
		return true;
	t = res(t);
	return t && t->kind == DT_PTR;
}

bool ck_is_array(struct d_type *t)
{
	t = res(t);
	return t && t->kind == DT_ARRAY;
}

bool ck_is_string(struct d_type *t)
{
	t = res(t);
	return t && t->kind == DT_STRING;
}

/* char, signed or not */
static bool is_char(struct d_type *t)
{
	t = res(t);
	return t && t->kind == DT_INT && t->size == 1;
}

bool ck_is_strlike(struct d_type *t)
{
	if (t == ck_unknown())
		return true;
	t = res(t);
	return t && (t->kind == DT_STRING ||
		     ((t->kind == DT_ARRAY || t->kind == DT_PTR) && is_char(t->ref)));
}

bool ck_is_scalar(struct d_type *t)
{
	t = res(t);
	return t && (t->kind == DT_INT || t->kind == DT_ENUM || t->kind == DT_PTR ||
		     t->kind == DT_ARRAY || t->kind == DT_FLOAT);
}

bool ck_is_void(struct d_type *t)
{
	t = res(t);
	return t && t->kind == DT_VOID;
}

bool ck_is_sou(struct d_type *t)
{
	t = res(t);
	return t && (t->kind == DT_STRUCT || t->kind == DT_UNION);
}

bool ck_is_dyn(struct d_type *t)
{
	t = res(t);
	return t && t->kind == DT_DYN;
}

bool ck_is_func(struct d_type *t)
{
	t = res(t);
	return t && t->kind == DT_FUNC;
}

bool ck_same(struct d_type *a, struct d_type *b)
{
	a = res(a);
	b = res(b);
	if (a == b)
		return true;
	if (!a || !b || a->kind != b->kind)
		return false;
	switch (a->kind) {
	case DT_INT:
	case DT_FLOAT:
		return a->size == b->size && a->is_signed == b->is_signed;
	case DT_VOID:
	case DT_STRING:
		return true;
	case DT_PTR:
		return ck_same(a->ref, b->ref);
	case DT_ARRAY:
		return a->nelem == b->nelem && ck_same(a->ref, b->ref);
	default:   /* struct, union, enum: the same definition */
		return false;
	}
}

bool ck_ptr_compat(struct d_type *a, struct d_type *b)
{
	a = res(a);
	b = res(b);
	if (!a || !b || (a->kind != DT_PTR && a->kind != DT_ARRAY) ||
	    (b->kind != DT_PTR && b->kind != DT_ARRAY))
		return false;
	return ck_is_void(a->ref) || ck_is_void(b->ref) || ck_same(a->ref, b->ref);
}

bool ck_compat(struct d_type *a, struct d_type *b, bool b_zero)
{
	if (ck_is_dyn(a) || ck_is_dyn(b) || ck_is_void(a) || ck_is_void(b))
		return false;
	if (ck_is_arith(a) && ck_is_arith(b))
		return true;
	if ((ck_is_string(a) && ck_is_strlike(b)) || (ck_is_strlike(a) && ck_is_string(b)))
		return true;
	if (ck_ptr_compat(a, b))
		return true;
	if (ck_is_ptr(a) && b_zero)
		return true;
	if (ck_is_sou(a) || ck_is_sou(b))
		return res(a) == res(b);
	return false;
}

const char *ck_name(struct d_type *t)
{
	if (ck_is_dyn(t))
		return "<DYN>";
	return d_type_name(t);
}

struct d_type *ck_promote(struct d_ck *ck, struct d_type *a, struct d_type *b)
{
	struct d_type *x = res(a), *y = res(b);
	int64_t size = 4;
	bool sign = true;

	if (x->kind == DT_FLOAT || y->kind == DT_FLOAT)
		return x->kind == DT_FLOAT ? a : b;
	if (x->size > size)
		size = x->size;
	if (y->size > size)
		size = y->size;
	if ((x->size == size && x->kind == DT_INT && !x->is_signed) ||
	    (y->size == size && y->kind == DT_INT && !y->is_signed))
		sign = false;
	if (size == 8)
		return ck_type(ck, sign ? "long" : "unsigned long");
	return ck_type(ck, sign ? "int" : "unsigned int");
}

int64_t ck_sizeof(struct d_type *t)
{
	t = res(t);
	if (!t || t->kind == DT_VOID || t->kind == DT_FUNC || t->kind == DT_DYN)
		return 0;
	if ((t->kind == DT_STRUCT || t->kind == DT_UNION) && !t->complete)
		return 0;
	if (t->kind == DT_ARRAY)
		return t->nelem < 0 ? 0 : t->nelem * ck_sizeof(t->ref);
	return t->size;
}

/* D's built-in variables and their types (DTrace's documentation) */
static const struct {
	const char *name, *type;
} builtins[] = {
	{ "arg0", "int64_t" }, { "arg1", "int64_t" }, { "arg2", "int64_t" }, { "arg3", "int64_t" },
	{ "arg4", "int64_t" }, { "arg5", "int64_t" }, { "arg6", "int64_t" }, { "arg7", "int64_t" },
	{ "arg8", "int64_t" }, { "arg9", "int64_t" }, { "caller", "uintptr_t" },
	{ "ucaller", "uint64_t" }, { "cpu", "processorid_t" }, { "epid", "uint_t" },
	{ "errno", "int" }, { "execname", "string" }, { "gid", "gid_t" }, { "id", "uint_t" },
	{ "ipl", "uint_t" }, { "pid", "pid_t" }, { "ppid", "pid_t" }, { "probefunc", "string" },
	{ "probemod", "string" }, { "probename", "string" }, { "probeprov", "string" },
	{ "stackdepth", "uint32_t" }, { "ustackdepth", "uint32_t" }, { "tid", "id_t" },
	{ "timestamp", "uint64_t" }, { "vtimestamp", "uint64_t" }, { "walltimestamp", "int64_t" },
	{ "uid", "uid_t" }, { "cwd", "string" }, { "root", "string" }, { "zonename", "string" },
	{ "execargs", "string" },
};

struct d_type *ck_builtin_type(struct d_ck *ck, const char *name)
{
	struct d_type *t;

	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(builtins[i].name, name))
			return ck_type(ck, builtins[i].type);
	if (!strcmp(name, "curthread")) {
		t = d_type_lookup(ck->ts, "struct task_struct *");
		return t ? t : ck_type(ck, "void *");
	}
	if (!strcmp(name, "curpsinfo") || !strcmp(name, "curlwpsinfo")) {
		t = d_type_lookup(ck->ts, !strcmp(name, "curpsinfo") ? "psinfo_t *" : "lwpsinfo_t *");
		return t ? t : ck_type(ck, "void *");
	}
	if (!strcmp(name, "curcpu")) {
		t = d_type_lookup(ck->ts, "cpuinfo_t *");
		return t ? t : ck_type(ck, "void *");
	}
	return NULL;
}
