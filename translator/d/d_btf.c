/* d_btf.c - kernel types (BTF) and symbols (/proc/kallsyms) for the D
 * front end, made into D's types when a program names them.
 *
 * The BTF is read once, on the first name the program's own table lacks,
 * and indexed by name; a BTF type becomes a struct d_type once (memoized by
 * id), a struct with every member it has, so a kernel struct pulls in what
 * its members name. Qualifiers are dropped (D reads kernel memory only).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "d/d_btf.h"
#include "d/d_lib.h"
#include "options.h"
#include "session.h"
#include "target/btf.h"
#include "util.h"

struct kernel {
	bool tried;
	const struct btf *btf;
	struct d_symtab by_name;     /* "struct x", "union x", "enum x", typedef "x",
				      * "var x": id + 1 (as a pointer-sized int) */
	struct d_type **made;        /* by id */
	bool syms_tried;
	int ndata;                   /* data symbols kallsyms lists (a few section
				      * bounds without CONFIG_KALLSYMS_ALL) */
	struct d_symtab syms;        /* "name" and "module`name" */
};

static struct kernel K;

/* The running kernel's BTF, as stap finds it for its own target. */
static const struct btf *load_btf(void)
{
	static struct session s;
	struct utsname u;
	const char *why = NULL;

	session_init(&s);
	s.runtime_bpf = true;
	if (uname(&u) == 0)
		s.kernel_release = xstrdup(u.release);
	return btf_kernel(&s, &why);
}

/* The name a BTF type is found by, or NULL for a type no name reaches. */
static char *index_key(const struct btf *b, uint32_t id)
{
	const char *name = btf_name(b, id);

	if (!*name)
		return NULL;
	switch (btf_kind(b, id)) {
	case BTFK_STRUCT: return xasprintf("struct %s", name);
	case BTFK_UNION: return xasprintf("union %s", name);
	case BTFK_ENUM: case BTFK_ENUM64: return xasprintf("enum %s", name);
	case BTFK_TYPEDEF: return xstrdup(name);
	case BTFK_VAR: return xasprintf("var %s", name);
	default: return NULL;
	}
}

/* BTF loaded and indexed (the first definition of a name wins). */
static bool kernel_ready(void)
{
	if (!K.tried) {
		K.tried = true;
		K.btf = load_btf();
		if (!K.btf)
			return false;
		uint32_t n = btf_ntypes(K.btf);
		K.made = xcalloc(n, sizeof(*K.made));
		for (uint32_t id = 1; id < n; id++) {
			char *key = index_key(K.btf, id);
			if (key && !d_symtab_get(&K.by_name, key))
				d_symtab_put(&K.by_name, key, (void *)(uintptr_t)(id + 1));
			free(key);
		}
	}
	return K.btf != NULL;
}

static uint32_t lookup_id(const char *key)
{
	uintptr_t v = (uintptr_t)d_symtab_get(&K.by_name, key);

	return v ? (uint32_t)(v - 1) : 0;
}

static struct d_type *convert(struct d_types *ts, uint32_t id);

/* A struct or union with BTF's layout (not recomputed: the kernel's may be
 * packed or aligned). Made before its members, which may point back. */
static struct d_type *convert_sou(struct d_types *ts, uint32_t id)
{
	const struct btf *b = K.btf;
	bool is_union = btf_kind(b, id) == BTFK_UNION;
	struct d_type *t = xcalloc(1, sizeof(*t));
	const char *name = btf_name(b, id);

	t->kind = is_union ? DT_UNION : DT_STRUCT;
	t->size = (int64_t)btf_size(b, id);
	t->tag = *name ? xstrdup(name) : NULL;
	t->name = xasprintf("%s %s", is_union ? "union" : "struct", *name ? name : "(anon)");
	K.made[id] = t;
	for (int i = 0; i < btf_nmembers(b, id); i++) {
		const char *mname;
		uint64_t bitoff;
		uint32_t type, bits;

		btf_member_at(b, id, i, &mname, &bitoff, &type, &bits);
		struct d_member *m = xcalloc(1, sizeof(*m));
		m->name = *mname ? xstrdup(mname) : NULL;
		m->type = convert(ts, type);
		m->bits = (int)bits;
		m->offset = (int64_t)(bitoff / 8);
		m->bitoff = bits ? (int)(bitoff % 8) : 0;
		vec_push(&t->members, m);
	}
	t->complete = true;
	return t;
}

/* A typedef of the kernel's (not declared in the table: the program may
 * declare its own of that name). */
static struct d_type *convert_typedef(struct d_types *ts, uint32_t id)
{
	struct d_type *t = xcalloc(1, sizeof(*t)), *to;

	K.made[id] = t;
	t->name = xstrdup(btf_name(K.btf, id));
	to = convert(ts, btf_ref(K.btf, id));
	t->kind = to->kind;
	t->size = to->size;
	t->is_signed = to->is_signed;
	t->complete = to->complete;
	t->typedef_of = to;
	return t;
}

/* An integer: D's own type of that name when it has one ("int"), else one
 * of the kernel's name ("long unsigned int"). */
static struct d_type *convert_int(struct d_types *ts, uint32_t id)
{
	const char *name = btf_name(K.btf, id);
	struct d_type *t = d_type_lookup(ts, name);
	uint64_t size = btf_size(K.btf, id);
	bool sign = btf_int_signed(K.btf, id);

	if (t && t->kind == DT_INT && (uint64_t)t->size == size && t->is_signed == sign)
		return t;
	return d_type_new_int(ts, name, (int64_t)size, sign);
}

/* BTF type id as a D type (memoized: each id becomes one node). */
static struct d_type *convert(struct d_types *ts, uint32_t id)
{
	const struct btf *b = K.btf;
	struct d_type *t;
	uint32_t n;

	if (!id)
		return d_type_lookup(ts, "void");
	if (K.made[id])
		return K.made[id];
	switch (btf_kind(b, id)) {
	case BTFK_INT:
		t = convert_int(ts, id);
		break;
	case BTFK_FLOAT:
		t = d_type_lookup(ts, btf_size(b, id) == 4 ? "float" : btf_size(b, id) == 8 ? "double"
								     : "long double");
		break;
	case BTFK_PTR:
		if (btf_kind(b, btf_ref(b, id)) == BTFK_FUNC_PROTO)
			t = d_type_pointer(ts, d_type_func(ts, convert(ts, btf_ref(b, btf_ref(b, id)))));
		else
			t = d_type_pointer(ts, convert(ts, btf_ref(b, id)));
		break;
	case BTFK_ARRAY: {
		uint32_t e = btf_array_elem(b, id, &n);
		t = d_type_array(ts, convert(ts, e), n);
		break;
	}
	case BTFK_STRUCT: case BTFK_UNION:
		return convert_sou(ts, id);
	case BTFK_TYPEDEF:
		return convert_typedef(ts, id);
	case BTFK_ENUM: case BTFK_ENUM64:
		t = xcalloc(1, sizeof(*t));
		t->kind = DT_ENUM;
		t->size = (int64_t)btf_size(b, id);
		t->is_signed = btf_int_signed(b, id);
		t->name = xasprintf("enum %s", *btf_name(b, id) ? btf_name(b, id) : "(anon)");
		t->complete = true;
		break;
	case BTFK_FWD:
		t = xcalloc(1, sizeof(*t));
		t->kind = DT_STRUCT;
		t->name = xasprintf("struct %s", btf_name(b, id));
		t->tag = xstrdup(btf_name(b, id));
		break;
	case BTFK_FUNC_PROTO:
		t = d_type_func(ts, convert(ts, btf_ref(b, id)));
		break;
	default:   /* qualifiers, variables: the type they qualify */
		t = convert(ts, btf_ref(b, id));
		break;
	}
	K.made[id] = t;
	return t;
}

struct d_type *d_kernel_resolver(void *arg, struct d_types *ts, const char *module, const char *name)
{
	struct d_type *t;
	uint32_t id;

	(void)arg;
	if (!module && (t = d_lib_type(ts, name)))
		return t;
	if (module && strcmp(module, "vmlinux"))
		return NULL;
	if (!kernel_ready() || !(id = lookup_id(name)))
		return NULL;
	return convert(ts, id);
}

/* /proc/kallsyms's names, with and without their module, each to its
 * address (1 when kallsyms hides them: a symbol is never at 0) */
static void read_kallsyms(void)
{
	FILE *f;
	char line[512];

	K.syms_tried = true;
	if (!(f = fopen("/proc/kallsyms", "r")))
		return;
	while (fgets(line, sizeof(line), f)) {
		char type, name[256], mod[128] = "";
		unsigned long long addr;

		if (sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name, mod) < 3)
			continue;
		if (strchr("dDbBrR", type))
			K.ndata++;
		uint64_t *at = xmalloc(sizeof(*at));
		*at = addr;
		if (!d_symtab_get(&K.syms, name))   /* a name twice: its first address */
			d_symtab_put(&K.syms, name, at);
		if (*mod)
			d_symtab_put(&K.syms, xasprintf("%s`%s", mod, name), at);
	}
	fclose(f);
}

/* Is the module loaded (vmlinux always is)? */
static bool module_loaded(const char *module)
{
	struct stat st;
	char *path;
	bool ok;

	if (!strcmp(module, "vmlinux"))
		return true;
	path = xasprintf("/sys/module/%s", module);
	ok = stat(path, &st) == 0;
	free(path);
	return ok;
}

struct d_type *d_kernel_symbol(struct d_types *ts, const char *name)
{
	const char *bq = strrchr(name, '`');
	char *module = bq && bq > name ? xstrndup(name, bq - name) : xstrdup("vmlinux");
	const char *sym = bq ? bq + 1 : name;
	uint32_t id;

	if (!*sym || !module_loaded(module))
		return NULL;
	if (!strcmp(module, "vmlinux") && kernel_ready()) {
		char *key = xasprintf("var %s", sym);
		id = lookup_id(key);
		free(key);
		if (id)
			return convert(ts, id);
	}
	if (!K.syms_tried)
		read_kallsyms();
	/* a symbol table without data symbols (no CONFIG_KALLSYMS_ALL) cannot
	 * say whether a variable exists: every name is taken as one */
	if (d_symtab_get(&K.syms, strcmp(module, "vmlinux") ? xasprintf("%s`%s", module, sym) : sym) ||
	    (K.ndata < 1000 && !strcmp(module, "vmlinux")))
		return d_type_lookup(ts, "int");
	return NULL;
}

/* &`sym: the symbol's address in /proc/kallsyms ("vmlinux`x" is "x") */
bool d_kernel_symbol_addr(const char *name, uint64_t *addr)
{
	const char *bq = strrchr(name, '`');
	char *key = bq && bq > name && strncmp(name, "vmlinux`", 8) ? xstrdup(name) : xstrdup(bq ? bq + 1 : name);
	const uint64_t *at;

	if (!K.syms_tried)
		read_kallsyms();
	at = d_symtab_get(&K.syms, key);
	free(key);
	if (!at)
		return false;
	*addr = *at;
	return true;
}
