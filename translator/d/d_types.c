/* d_types.c - D's type table (see d_types.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "d/d_types.h"
#include "util.h"

struct d_sym {
	char *key;
	void *val;
	struct d_sym *next;
};

struct enumconst {
	struct d_type *en;
	int64_t value;
};

struct d_types {
	int64_t strsize;
	struct d_type *string;
	struct d_symtab names;          /* intrinsics, D's typedefs, the program's */
	struct d_symtab tags[3];        /* struct, union, enum */
	struct d_symtab derived;        /* pointers, arrays ... made once */
	struct d_symtab enumerators;    /* name -> struct enumconst */
	struct d_symtab decls[3];       /* by enum d_storage */
	d_type_resolver resolver;
	void *resolver_arg;
};

/* ---- the symbol table ------------------------------------------------------------ */

static unsigned sym_hash(const char *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

void *d_symtab_get(const struct d_symtab *t, const char *key)
{
	if (!t->nbuckets)
		return NULL;
	for (struct d_sym *s = t->buckets[sym_hash(key) % t->nbuckets]; s; s = s->next)
		if (!strcmp(s->key, key))
			return s->val;
	return NULL;
}

/* Double the buckets when the chains get long (keeps lookups O(1)). */
static void symtab_grow(struct d_symtab *t)
{
	int n = t->nbuckets ? 2 * t->nbuckets : 64;
	struct d_sym **b = xcalloc(n, sizeof(*b));

	for (int i = 0; i < t->nbuckets; i++)
		for (struct d_sym *s = t->buckets[i], *next; s; s = next) {
			next = s->next;
			s->next = b[sym_hash(s->key) % n];
			b[sym_hash(s->key) % n] = s;
		}
	free(t->buckets);
	t->buckets = b;
	t->nbuckets = n;
}

void d_symtab_put(struct d_symtab *t, const char *key, void *val)
{
	struct d_sym *s;

	if (t->count >= 2 * t->nbuckets)
		symtab_grow(t);
	for (s = t->buckets[sym_hash(key) % t->nbuckets]; s; s = s->next)
		if (!strcmp(s->key, key)) {
			s->val = val;
			return;
		}
	s = xcalloc(1, sizeof(*s));
	s->key = xstrdup(key);
	s->val = val;
	s->next = t->buckets[sym_hash(key) % t->nbuckets];
	t->buckets[sym_hash(key) % t->nbuckets] = s;
	t->count++;
}

/* ---- the built-in types ------------------------------------------------------------ */

static struct d_type *type_new(enum d_tkind kind, const char *name, int64_t size)
{
	struct d_type *t = xcalloc(1, sizeof(*t));

	t->kind = kind;
	t->name = name ? xstrdup(name) : NULL;
	t->size = size;
	t->complete = true;
	return t;
}

/* LP64 as DTrace's "C" container has them (the names are the CTF names). */
static const struct {
	const char *name;
	enum d_tkind kind;
	int size;
	bool is_signed;
} intrinsics[] = {
	{ "void", DT_VOID, 0, false },
	{ "signed", DT_INT, 4, true },
	{ "unsigned", DT_INT, 4, false },
	{ "char", DT_INT, 1, true },
	{ "short", DT_INT, 2, true },
	{ "int", DT_INT, 4, true },
	{ "long", DT_INT, 8, true },
	{ "long long", DT_INT, 8, true },
	{ "signed char", DT_INT, 1, true },
	{ "signed short", DT_INT, 2, true },
	{ "signed int", DT_INT, 4, true },
	{ "signed long", DT_INT, 8, true },
	{ "signed long long", DT_INT, 8, true },
	{ "unsigned char", DT_INT, 1, false },
	{ "unsigned short", DT_INT, 2, false },
	{ "unsigned int", DT_INT, 4, false },
	{ "unsigned long", DT_INT, 8, false },
	{ "unsigned long long", DT_INT, 8, false },
	{ "_Bool", DT_INT, 1, false },
	{ "float", DT_FLOAT, 4, true },
	{ "double", DT_FLOAT, 8, true },
	{ "long double", DT_FLOAT, 16, true },
};

/* The typedefs DTrace's "D" container predefines on LP64, then the usual
 * <sys/types.h> names D scripts use (as the Linux kernel defines them). */
static const struct {
	const char *name, *type;
} typedefs[] = {
	{ "int8_t", "signed char" }, { "int16_t", "short" }, { "int32_t", "int" },
	{ "int64_t", "long" }, { "intptr_t", "long" }, { "ssize_t", "long" },
	{ "uint8_t", "unsigned char" }, { "uint16_t", "unsigned short" },
	{ "uint32_t", "unsigned" }, { "uint64_t", "unsigned long" },
	{ "uchar_t", "unsigned char" }, { "ushort_t", "unsigned short" },
	{ "uint_t", "unsigned" }, { "ulong_t", "unsigned long" },
	{ "u_longlong_t", "unsigned long long" }, { "ptrdiff_t", "long" },
	{ "uintptr_t", "unsigned long" }, { "size_t", "unsigned long" },
	{ "id_t", "int" }, { "pid_t", "int" },
	{ "longlong_t", "long long" }, { "uid_t", "unsigned int" }, { "gid_t", "unsigned int" },
	{ "off_t", "long" }, { "off64_t", "long long" }, { "time_t", "long" },
	{ "dev_t", "unsigned int" }, { "ino_t", "unsigned long" }, { "mode_t", "unsigned int" },
	{ "nlink_t", "unsigned int" }, { "boolean_t", "int" }, { "hrtime_t", "long long" },
	{ "processorid_t", "int" }, { "zoneid_t", "int" }, { "projid_t", "int" },
	{ "taskid_t", "int" }, { "psetid_t", "int" }, { "chipid_t", "int" },
	{ "lgrp_id_t", "int" }, { "major_t", "unsigned int" }, { "minor_t", "unsigned int" },
};

struct d_types *d_types_new(void)
{
	struct d_types *ts = xcalloc(1, sizeof(*ts));

	for (size_t i = 0; i < sizeof(intrinsics) / sizeof(intrinsics[0]); i++) {
		struct d_type *t = type_new(intrinsics[i].kind, intrinsics[i].name, intrinsics[i].size);

		t->is_signed = intrinsics[i].is_signed;
		d_symtab_put(&ts->names, t->name, t);
	}
	ts->strsize = 256;
	ts->string = type_new(DT_STRING, "string", ts->strsize);
	d_symtab_put(&ts->names, "string", ts->string);
	for (size_t i = 0; i < sizeof(typedefs) / sizeof(typedefs[0]); i++)
		d_typedef_declare(ts, typedefs[i].name, d_symtab_get(&ts->names, typedefs[i].type));
	d_typedef_declare(ts, "caddr_t", d_type_pointer(ts, d_symtab_get(&ts->names, "char")));
	return ts;
}

void d_types_set_strsize(struct d_types *ts, int64_t size)
{
	ts->strsize = size;
	ts->string->size = size;
}

int64_t d_types_strsize(const struct d_types *ts)
{
	return ts->strsize;
}

void d_types_set_resolver(struct d_types *ts, d_type_resolver fn, void *arg)
{
	ts->resolver = fn;
	ts->resolver_arg = arg;
}

struct d_type *d_type_new_int(struct d_types *ts, const char *name, int64_t size, bool is_signed)
{
	struct d_type *t = type_new(DT_INT, name, size);

	t->is_signed = is_signed;
	return t;
}

/* ---- names ---------------------------------------------------------------------- */

bool d_type_is_typedef(const struct d_type *t)
{
	return t && t->typedef_of && !t->is_const && !t->is_volatile && !t->is_userland;
}

static bool is_qualifier(const struct d_type *t)
{
	return t->typedef_of && !d_type_is_typedef(t);
}

static const char *quals(const struct d_type *t)
{
	if (t->is_const && t->is_volatile)
		return "const volatile";
	if (t->is_const)
		return "const";
	if (t->is_volatile)
		return "volatile";
	return "userland";
}

/* Append t declared around inner ("*", "[5]", "" ...), as C writes it
 * and as CTF names it: "char *", "int [5]", "int (*)[5]", "char *const". */
static void type_decl(struct strbuf *sb, struct d_type *t, const char *inner)
{
	char *in;

	if (is_qualifier(t) && t->typedef_of->kind == DT_PTR) {
		in = xasprintf("%s%s", quals(t), *inner ? xasprintf(" %s", inner) : "");
		type_decl(sb, t->typedef_of, in);
		return;
	}
	if (is_qualifier(t)) {
		strbuf_addf(sb, "%s ", quals(t));
		type_decl(sb, t->typedef_of, inner);
		return;
	}
	if (d_type_is_typedef(t)) {
		strbuf_addstr(sb, t->name);
	} else switch (t->kind) {
	case DT_PTR: {
		struct d_type *r = t->ref;
		bool wrap = !d_type_is_typedef(r) && !is_qualifier(r) &&
			(r->kind == DT_ARRAY || r->kind == DT_FUNC);

		in = xasprintf(wrap ? "(*%s)" : "*%s", inner);
		type_decl(sb, r, in);
		return;
	}
	case DT_ARRAY:
		in = t->nelem < 0 ? xasprintf("%s[]", inner)
			: xasprintf("%s[%lld]", inner, (long long)t->nelem);
		type_decl(sb, t->ref, in);
		return;
	case DT_FUNC:
		in = xasprintf("%s()", inner);
		type_decl(sb, t->ref, in);
		return;
	default:
		strbuf_addstr(sb, t->name ? t->name : "?");
		break;
	}
	if (*inner)
		strbuf_addf(sb, " %s", inner);
}

const char *d_type_name(struct d_type *t)
{
	struct strbuf sb = STRBUF_INIT;

	if (!t)
		return "<none>";
	if (d_type_is_typedef(t) || (!is_qualifier(t) && t->kind != DT_PTR &&
				     t->kind != DT_ARRAY && t->kind != DT_FUNC))
		return t->name;
	/* derived: named now, as the types named may have been renamed since */
	type_decl(&sb, t, "");
	t->name = strbuf_detach(&sb);
	return t->name;
}

/* ---- derived types ----------------------------------------------------------------- */

struct d_type *d_type_pointer(struct d_types *ts, struct d_type *to)
{
	char key[64];
	struct d_type *t;

	snprintf(key, sizeof(key), "%p*", (void *)to);
	if ((t = d_symtab_get(&ts->derived, key)))
		return t;
	t = type_new(DT_PTR, NULL, 8);
	t->ref = to;
	d_type_name(t);
	d_symtab_put(&ts->derived, key, t);
	return t;
}

struct d_type *d_type_array(struct d_types *ts, struct d_type *elem, int64_t nelem)
{
	char key[64];
	struct d_type *t;

	snprintf(key, sizeof(key), "%p[%lld]", (void *)elem, (long long)nelem);
	if ((t = d_symtab_get(&ts->derived, key)))
		return t;
	t = type_new(DT_ARRAY, NULL, nelem > 0 ? nelem * d_type_resolve(elem)->size : 0);
	t->ref = elem;
	t->nelem = nelem;
	d_type_name(t);
	d_symtab_put(&ts->derived, key, t);
	return t;
}

struct d_type *d_type_func(struct d_types *ts, struct d_type *ret)
{
	char key[64];
	struct d_type *t;

	snprintf(key, sizeof(key), "%p()", (void *)ret);
	if ((t = d_symtab_get(&ts->derived, key)))
		return t;
	t = type_new(DT_FUNC, NULL, 0);
	t->ref = ret;
	d_type_name(t);
	d_symtab_put(&ts->derived, key, t);
	return t;
}

struct d_type *d_type_qualified(struct d_types *ts, struct d_type *t,
				bool is_const, bool is_volatile, bool is_userland)
{
	char key[64];
	struct d_type *q, *base = t;

	/* qualifying a qualified type: add to its qualifiers */
	if (is_qualifier(t)) {
		is_const |= t->is_const;
		is_volatile |= t->is_volatile;
		is_userland |= t->is_userland;
		base = t->typedef_of;
	}
	if (!is_const && !is_volatile && !is_userland)
		return t;
	snprintf(key, sizeof(key), "%p%s%s%s", (void *)base, is_const ? "c" : "",
		 is_volatile ? "v" : "", is_userland ? "u" : "");
	if ((q = d_symtab_get(&ts->derived, key)))
		return q;
	q = xcalloc(1, sizeof(*q));
	*q = *base;
	q->typedef_of = base;
	q->is_const = is_const;
	q->is_volatile = is_volatile;
	q->is_userland = is_userland;
	q->name = NULL;
	d_type_name(q);
	d_symtab_put(&ts->derived, key, q);
	return q;
}

struct d_type *d_typedef_declare(struct d_types *ts, const char *name, struct d_type *type)
{
	struct d_type *t = xcalloc(1, sizeof(*t));

	*t = *type;
	t->name = xstrdup(name);
	t->typedef_of = type;
	t->is_const = t->is_volatile = t->is_userland = false;
	d_symtab_put(&ts->names, name, t);
	return t;
}

struct d_type *d_typedef_lookup(struct d_types *ts, const char *name)
{
	struct d_type *t = d_symtab_get(&ts->names, name);

	return d_type_is_typedef(t) ? t : NULL;
}

/* ---- struct, union and enum ----------------------------------------------------------- */

static int tag_index(enum d_tkind kind)
{
	return kind == DT_STRUCT ? 0 : kind == DT_UNION ? 1 : 2;
}

static const char *tag_word(enum d_tkind kind)
{
	return kind == DT_STRUCT ? "struct" : kind == DT_UNION ? "union" : "enum";
}

/* "mod`name" into its module (NULL when unscoped) and name */
static const char *split_scope(const char *name, char **module)
{
	const char *bq = strrchr(name, '`');

	*module = bq ? xstrndup(name, bq - name) : NULL;
	return bq ? bq + 1 : name;
}

/* A module name that means this table: D's own definitions. */
static bool local_module(const char *module)
{
	return !module || !strcmp(module, "D") || !strcmp(module, "C") || !*module;
}

struct d_type *d_type_tag(struct d_types *ts, enum d_tkind kind, const char *tag, bool create)
{
	char *module, *full;
	const char *name = split_scope(tag, &module);
	struct d_type *t = d_symtab_get(&ts->tags[tag_index(kind)], name);

	if (t && local_module(module))
		return t;
	if (ts->resolver) {
		full = xasprintf("%s %s", tag_word(kind), name);
		struct d_type *r = ts->resolver(ts->resolver_arg, ts, module, full);
		free(full);
		if (r)
			return r;
	}
	if (t)
		return t;
	if (!create)
		return NULL;
	/* A tag named before it is defined. CTF names such a forward
	 * declaration "struct X" whatever its kind, and DTrace's messages
	 * show that name ("incomplete struct/union/enum struct pirate"). */
	t = type_new(kind, NULL, 0);
	t->complete = false;
	t->tag = xstrdup(name);
	t->name = xasprintf("struct %s", name);
	if (kind == DT_ENUM)
		t->is_signed = true;
	d_symtab_put(&ts->tags[tag_index(kind)], name, t);
	return t;
}

struct d_type *d_type_local_tag(struct d_types *ts, enum d_tkind kind, const char *tag)
{
	return d_symtab_get(&ts->tags[tag_index(kind)], tag);
}

struct d_type *d_type_local_name(struct d_types *ts, const char *name)
{
	return d_symtab_get(&ts->names, name);
}

struct d_type *d_sou_begin(struct d_types *ts, enum d_tkind kind, const char *tag)
{
	struct d_type *t = tag ? d_symtab_get(&ts->tags[tag_index(kind)], tag) : NULL;

	if (!t) {
		t = type_new(kind, NULL, 0);
		if (tag) {
			t->tag = xstrdup(tag);
			d_symtab_put(&ts->tags[tag_index(kind)], tag, t);
		}
	}
	t->complete = false;
	t->size = 0;
	t->name = tag ? xasprintf("%s %s", tag_word(kind), tag) : xasprintf("%s (anon)", tag_word(kind));
	return t;
}

bool d_sou_add(struct d_types *ts, struct d_type *sou, const char *name,
	       struct d_type *type, int bits)
{
	struct d_member *m;

	for (int i = 0; name && i < sou->members.len; i++)
		if (sou->members.items[i]->name && !strcmp(sou->members.items[i]->name, name))
			return false;
	m = xcalloc(1, sizeof(*m));
	m->name = name ? xstrdup(name) : NULL;
	m->type = type;
	m->bits = bits;
	vec_push(&sou->members, m);
	return true;
}

/* n rounded up to a multiple of a */
static int64_t round_up(int64_t n, int64_t a)
{
	return a > 1 ? (n + a - 1) / a * a : n;
}

/* The System V x86_64 rules: a member at the next multiple of its
 * alignment; a bit-field in the storage unit of its declared type that
 * holds the bits so far if it fits there, else at the next such unit;
 * the struct as aligned as its most aligned (named) member. */
void d_sou_end(struct d_types *ts, struct d_type *sou)
{
	int64_t bit = 0, size = 0, align = 1;

	for (int i = 0; i < sou->members.len; i++) {
		struct d_member *m = sou->members.items[i];
		struct d_type *mt = d_type_resolve(m->type);
		int64_t msize = mt->size, malign = d_type_align(mt);

		if (sou->kind == DT_UNION) {
			m->offset = 0;
			m->bitoff = 0;
			size = size > msize ? size : msize;
		} else if (!m->bits) {
			int64_t off = round_up((bit + 7) / 8, malign);

			m->offset = off;
			bit = (off + msize) * 8;
		} else {
			int64_t unit = malign * 8;

			if (bit / unit != (bit + m->bits - 1) / unit)
				bit = round_up(bit, unit);
			m->offset = bit / unit * malign;
			m->bitoff = bit % unit;
			bit += m->bits;
		}
		if (m->name || !m->bits)
			align = align > malign ? align : malign;
	}
	if (sou->kind == DT_STRUCT)
		size = (bit + 7) / 8;
	sou->size = round_up(size, align);
	sou->complete = true;
}

struct d_type *d_enum_begin(struct d_types *ts, const char *tag)
{
	struct d_type *t = tag ? d_symtab_get(&ts->tags[2], tag) : NULL;

	if (!t) {
		t = type_new(DT_ENUM, NULL, 4);
		if (tag) {
			t->tag = xstrdup(tag);
			d_symtab_put(&ts->tags[2], tag, t);
		}
	}
	t->size = 4;
	t->is_signed = true;
	t->complete = false;
	t->name = tag ? xasprintf("enum %s", tag) : xstrdup("enum (anon)");
	return t;
}

bool d_enum_add(struct d_types *ts, struct d_type *en, const char *name, int64_t value)
{
	struct d_enumerator e = { xstrdup(name), value };

	for (int i = 0; i < en->enumerators.len; i++)
		if (!strcmp(en->enumerators.items[i].name, name))
			return false;
	vec_push(&en->enumerators, e);
	return true;
}

void d_enum_end(struct d_types *ts, struct d_type *en)
{
	en->complete = true;
}

void d_types_add_enumerator(struct d_types *ts, const char *name, struct d_type *en, int64_t value)
{
	struct enumconst *c = xcalloc(1, sizeof(*c));

	c->en = en;
	c->value = value;
	d_symtab_put(&ts->enumerators, name, c);
}

bool d_types_enumerator(struct d_types *ts, const char *name, struct d_type **en, int64_t *value)
{
	struct enumconst *c = d_symtab_get(&ts->enumerators, name);

	if (!c)
		return false;
	if (en)
		*en = c->en;
	if (value)
		*value = c->value;
	return true;
}

/* ---- the program's declarations ------------------------------------------------------ */

struct d_decl *d_types_decl(struct d_types *ts, enum d_storage storage, const char *name)
{
	return d_symtab_get(&ts->decls[storage], name);
}

void d_types_add_decl(struct d_types *ts, struct d_decl *d)
{
	d_symtab_put(&ts->decls[d->storage], d->name, d);
}

/* ---- lookup by name ------------------------------------------------------------------ */

/* name with its blanks as C spells them: trimmed, one between words */
static char *normalize(const char *name)
{
	struct strbuf sb = STRBUF_INIT;
	bool space = false;

	for (const char *p = name; *p; p++) {
		if (isspace((unsigned char)*p)) {
			space = sb.len > 0;
			continue;
		}
		if (space && *p != '*')
			strbuf_addch(&sb, ' ');
		space = false;
		strbuf_addch(&sb, *p);
	}
	return strbuf_detach(&sb);
}

/* "struct foo", "union foo", "enum foo": the word's kind and the tag */
static bool tag_name(const char *name, enum d_tkind *kind, const char **tag)
{
	static const struct { const char *word; enum d_tkind kind; } w[] = {
		{ "struct ", DT_STRUCT }, { "union ", DT_UNION }, { "enum ", DT_ENUM },
	};

	for (int i = 0; i < 3; i++)
		if (!strncmp(name, w[i].word, strlen(w[i].word))) {
			*kind = w[i].kind;
			*tag = name + strlen(w[i].word);
			return true;
		}
	return false;
}

/* A name without its '*'s: a tag, this table's, or the resolver's. */
static struct d_type *lookup_base(struct d_types *ts, const char *base)
{
	char *module;
	const char *name = split_scope(base, &module), *tag;
	enum d_tkind kind;
	struct d_type *t = NULL;

	if (tag_name(name, &kind, &tag))
		return d_type_tag(ts, kind, module ? xasprintf("%s`%s", module, tag) : tag, false);
	if (local_module(module) || !ts->resolver)
		t = d_symtab_get(&ts->names, name);
	if (!t && ts->resolver)
		t = ts->resolver(ts->resolver_arg, ts, module, name);
	return t;
}

struct d_type *d_type_lookup(struct d_types *ts, const char *name)
{
	char *s = normalize(name);
	size_t len = strlen(s);
	int stars = 0;
	struct d_type *t;

	while (len > 0 && s[len - 1] == '*') {
		s[--len] = 0;
		stars++;
	}
	while (len > 0 && s[len - 1] == ' ')
		s[--len] = 0;
	if (!len)
		return NULL;
	t = lookup_base(ts, s);
	while (t && stars--)
		t = d_type_pointer(ts, t);
	free(s);
	return t;
}

/* ---- questions ------------------------------------------------------------------------ */

struct d_type *d_type_resolve(struct d_type *t)
{
	while (t && t->typedef_of)
		t = t->typedef_of;
	return t;
}

int64_t d_type_align(struct d_type *t)
{
	int64_t a = 1;

	t = d_type_resolve(t);
	switch (t->kind) {
	case DT_INT:
	case DT_FLOAT:
	case DT_PTR:
		return t->size > 0 ? t->size : 1;
	case DT_ENUM:
		return 4;
	case DT_ARRAY:
		return d_type_align(t->ref);
	case DT_STRUCT:
	case DT_UNION:
		for (int i = 0; i < t->members.len; i++) {
			struct d_member *m = t->members.items[i];
			int64_t ma = d_type_align(m->type);

			if ((m->name || !m->bits) && ma > a)
				a = ma;
		}
		return a;
	default:
		return 1;
	}
}

const struct d_member *d_type_member(struct d_type *t, const char *name, int64_t *offset)
{
	t = d_type_resolve(t);
	if (!t || (t->kind != DT_STRUCT && t->kind != DT_UNION))
		return NULL;
	for (int i = 0; i < t->members.len; i++) {
		struct d_member *m = t->members.items[i];

		if (m->name && !strcmp(m->name, name)) {
			if (offset)
				*offset = m->offset;
			return m;
		}
	}
	/* C11's unnamed struct and union members (kernel types have them) */
	for (int i = 0; i < t->members.len; i++) {
		struct d_member *m = t->members.items[i];
		int64_t inner = 0;
		const struct d_member *f;

		if (!m->name && !m->bits && (f = d_type_member(m->type, name, &inner))) {
			if (offset)
				*offset = m->offset + inner;
			return f;
		}
	}
	return NULL;
}

bool d_type_is_integer(struct d_type *t)
{
	t = d_type_resolve(t);
	return t && (t->kind == DT_INT || t->kind == DT_ENUM);
}

bool d_type_is_void(struct d_type *t)
{
	t = d_type_resolve(t);
	return t && t->kind == DT_VOID;
}
