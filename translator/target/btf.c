/* btf.c - the target kernel's BTF (see btf.h): found, cached, parsed. */
#include "btf.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "env.h"
#include "inputs.h"
#include "kernel.h"
#include "kimage.h"
#include "target.h"

#define BTF_MAGIC 0xeB9F

struct btf_func {
	const char *name;
	uint32_t proto;
	uint32_t id;            /* the FUNC's own id (for a tracepoint, its typedef's) */
};

struct btf {
	char *data;
	size_t len;
	const char *strs;
	uint32_t str_len;
	const uint32_t **types;     /* by id (0: void, none) */
	uint32_t ntypes;            /* ids 1 .. ntypes - 1 */
	struct btf_func *funcs;     /* sorted by name, each name once */
	size_t nfuncs;
	struct btf_func *tps;       /* tracepoints (typedef btf_trace_NAME): NAME, the
				     * typedef's type (a pointer to its prototype); sorted */
	size_t ntps;
};

#define TP_TYPEDEF "btf_trace_"

static uint32_t rd32(const char *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static int kind_of(const uint32_t *t) { return (t[1] >> 24) & 0x1f; }
static int vlen_of(const uint32_t *t) { return t[1] & 0xffff; }
static bool kflag_of(const uint32_t *t) { return t[1] >> 31; }

/* Bytes after a type's 12-byte header, by kind. */
static size_t extra_size(const uint32_t *t)
{
	switch (kind_of(t)) {
	case BTFK_INT: case BTFK_VAR: case BTFK_DECL_TAG: return 4;
	case BTFK_ARRAY: return 12;
	case BTFK_STRUCT: case BTFK_UNION: case BTFK_DATASEC: case BTFK_ENUM64: return 12 * (size_t)vlen_of(t);
	case BTFK_ENUM: case BTFK_FUNC_PROTO: return 8 * (size_t)vlen_of(t);
	default: return 0;
	}
}

static const char *str_at(const struct btf *b, uint32_t off)
{
	return off < b->str_len ? b->strs + off : "";
}

static int func_cmp(const void *a, const void *b)
{
	return strcmp(((const struct btf_func *)a)->name, ((const struct btf_func *)b)->name);
}

/* A raw BTF blob (kept by the result); NULL if malformed. */
static struct btf *btf_parse(char *data, size_t len)
{
	if (len < 24 || (rd32(data) & 0xffff) != BTF_MAGIC)
		return NULL;
	uint32_t hdr = rd32(data + 4), toff = rd32(data + 8), tlen = rd32(data + 12);
	uint32_t soff = rd32(data + 16), slen = rd32(data + 20);
	if ((uint64_t)hdr + toff + tlen > len || (uint64_t)hdr + soff + slen > len || (toff | tlen) & 3)
		return NULL;
	struct btf *b = xcalloc(1, sizeof(*b));
	VEC(const uint32_t *) types = { 0 };
	VEC(struct btf_func) funcs = { 0 }, tps = { 0 };
	b->data = data;
	b->len = len;
	b->strs = data + hdr + soff;
	b->str_len = slen;
	vec_push(&types, (const uint32_t *)NULL);   /* id 0: void */
	for (const char *p = data + hdr + toff, *end = p + tlen; p < end;) {
		const uint32_t *t = (const uint32_t *)p;
		if (end - p < 12 || (size_t)(end - p) < 12 + extra_size(t)) {
			free(types.items);
			free(funcs.items);
			free(tps.items);
			free(b);
			return NULL;
		}
		if (kind_of(t) == BTFK_FUNC) {
			struct btf_func f = { str_at(b, t[0]), t[2], (uint32_t)types.len };
			vec_push(&funcs, f);
		} else if (kind_of(t) == BTFK_TYPEDEF && !strncmp(str_at(b, t[0]), TP_TYPEDEF, strlen(TP_TYPEDEF))) {
			struct btf_func f = { str_at(b, t[0]) + strlen(TP_TYPEDEF), t[2], (uint32_t)types.len };
			vec_push(&tps, f);
		}
		vec_push(&types, t);
		p += 12 + extra_size(t);
	}
	qsort(funcs.items, (size_t)funcs.len, sizeof(*funcs.items), func_cmp);
	size_t n = 0;   /* static functions repeat: keep the first of a name */
	for (int i = 0; i < funcs.len; i++)
		if (!n || strcmp(funcs.items[n - 1].name, funcs.items[i].name))
			funcs.items[n++] = funcs.items[i];
	b->types = types.items;
	b->ntypes = (uint32_t)types.len;
	b->funcs = funcs.items;
	b->nfuncs = n;
	qsort(tps.items, (size_t)tps.len, sizeof(*tps.items), func_cmp);
	b->tps = tps.items;
	b->ntps = (size_t)tps.len;
	return b;
}

static const uint32_t *type_at(const struct btf *b, uint32_t id)
{
	return id && id < b->ntypes ? b->types[id] : NULL;
}

/* The cached .BTF of a kernel image: one per image (path, size, mtime). */
static char *cache_path(const char *vmlinuz)
{
	struct stat st;
	char *dir = cache_dir();

	if (!dir || stat(vmlinuz, &st) < 0) {
		free(dir);
		return NULL;
	}
	char *key = xasprintf("%s|%lld|%lld", vmlinuz, (long long)st.st_size, (long long)st.st_mtime);
	uint64_t h = hash64(key, strlen(key));
	char *path = xasprintf("%s/btf-%016llx.bin", dir, (unsigned long long)h);
	free(key);
	free(dir);
	return path;
}

/* The raw BTF of the target kernel, from wherever it is; NULL with *why. */
static char *load_raw(struct session *s, size_t *len, const char **why)
{
	const struct target_kernel *k = target_kernel(s);
	char *data;

	if (k->running && (data = read_file("/sys/kernel/btf/vmlinux", len)))
		return data;
	char *vmlinuz = xstrdup(k->image);
	char *cached = cache_path(vmlinuz);
	if (cached && (data = read_file(cached, len))) {
		utimensat(AT_FDCWD, cached, NULL, 0);   /* used, for cache_prune */
		input_note(s, vmlinuz);
	} else if ((data = kimage_section(vmlinuz, ".BTF", len))) {
		input_note(s, vmlinuz);
		char *dir = cached ? cache_dir() : NULL;
		if (dir)   /* one per kernel image */
			cache_store(dir, cached, data, *len, "btf-", 8, 90L * 86400);
		free(dir);
	} else {
		*why = access(vmlinuz, R_OK) ? xasprintf("no BTF: cannot read %s", vmlinuz)
					     : xasprintf("no BTF: %s has no .BTF section (CONFIG_DEBUG_INFO_BTF)", vmlinuz);
	}
	free(cached);
	free(vmlinuz);
	return data;
}

const struct btf *btf_kernel(struct session *s, const char **why)
{
	struct target *t = target_of(s);
	size_t len = 0;

	if (!t->btf.tried) {
		t->btf.tried = true;
		char *data = load_raw(s, &len, &t->btf.why);
		if (data && !(t->btf.kernel = btf_parse(data, len))) {
			free(data);
			t->btf.why = "no BTF: the kernel's .BTF is malformed";
		}
	}
	if (!t->btf.kernel && why)
		*why = t->btf.why;
	return t->btf.kernel;
}

size_t btf_nfuncs(const struct btf *b)
{
	return b->nfuncs;
}

const char *btf_func_name(const struct btf *b, size_t i)
{
	return b->funcs[i].name;
}

void btf_funcs_matching(const struct btf *b, const char *pat, strvec *out)
{
	for (size_t i = 0; i < b->nfuncs; i++)
		if (!fnmatch(pat, b->funcs[i].name, 0))
			vec_push(out, (char *)b->funcs[i].name);
}

void btf_tracepoints_matching(const struct btf *b, const char *pat, strvec *out)
{
	for (size_t i = 0; i < b->ntps; i++)
		if (!fnmatch(pat, b->tps[i].name, 0))
			vec_push(out, (char *)b->tps[i].name);
}

/* Do prototypes a and b take the same types? */
static bool same_params(const struct btf *b, uint32_t pa, uint32_t pb)
{
	int n = btf_nparams(b, pa);

	if (n != btf_nparams(b, pb))
		return false;
	for (int i = 0; i < n; i++)
		if (btf_param_type(b, pa, i) != btf_param_type(b, pb, i))
			return false;
	return true;
}

/* How many leading bytes two names share. */
static size_t common_prefix(const char *a, const char *b)
{
	size_t n = 0;

	while (a[n] && a[n] == b[n])
		n++;
	return n;
}

/* The typedef btf_trace_NAME is void (*)(void *__data, the tracepoint's
 * arguments), unnamed; the event class's __bpf_trace_CLASS function has the
 * same types with their names (CLASS is NAME for an event of its own: else
 * the class of those types whose name shares most with NAME). */
uint32_t btf_tracepoint_proto(const struct btf *b, const char *name)
{
	struct btf_func key = { name, 0 };
	const struct btf_func *tp = bsearch(&key, b->tps, b->ntps, sizeof(key), func_cmp);
	uint32_t unnamed = tp ? btf_pointee(b, btf_resolve(b, tp->proto)) : 0, best = 0;
	size_t best_len = 0, pre = strlen("__bpf_trace_");

	if (!unnamed || btf_kind(b, unnamed) != BTFK_FUNC_PROTO)
		return 0;
	char *own = xasprintf("__bpf_trace_%s", name);
	uint32_t p = btf_func_proto(b, own);
	free(own);
	if (p && same_params(b, p, unnamed))
		return p;
	key.name = "__bpf_trace_";
	const struct btf_func *f = b->funcs, *end = b->funcs + b->nfuncs;
	while (f < end && strcmp(f->name, key.name) < 0)   /* the first __bpf_trace_ */
		f++;
	for (; f < end && !strncmp(f->name, key.name, pre); f++) {
		const uint32_t *t = type_at(b, f->proto);
		size_t len = common_prefix(f->name + pre, name);
		if (t && kind_of(t) == BTFK_FUNC_PROTO && len > best_len && same_params(b, f->proto, unnamed)) {
			best = f->proto;
			best_len = len;
		}
	}
	return best ? best : unnamed;
}

uint32_t btf_func_proto(const struct btf *b, const char *name)
{
	struct btf_func key = { name, 0 };
	const struct btf_func *f = bsearch(&key, b->funcs, b->nfuncs, sizeof(key), func_cmp);
	const uint32_t *t = f ? type_at(b, f->proto) : NULL;

	return t && kind_of(t) == BTFK_FUNC_PROTO ? f->proto : 0;
}

uint32_t btf_func_id(const struct btf *b, const char *name)
{
	struct btf_func key = { name, 0, 0 };
	const struct btf_func *f = bsearch(&key, b->funcs, b->nfuncs, sizeof(key), func_cmp);

	return f ? f->id : 0;
}

int btf_first_by_value(const struct btf *b, uint32_t proto)
{
	int i, n = btf_nparams(b, proto);

	for (i = 0; i < n; i++) {
		uint32_t t = btf_resolve(b, btf_param_type(b, proto, i));
		if (btf_kind(b, t) == BTFK_STRUCT || btf_kind(b, t) == BTFK_UNION || btf_size(b, t) > 8)
			break;
	}
	return i;
}

int btf_nparams(const struct btf *b, uint32_t proto)
{
	const uint32_t *t = type_at(b, proto);
	int n = t ? vlen_of(t) : 0;

	/* a variadic function ends with an unnamed void parameter */
	if (n && !t[3 + 2 * (n - 1)] && !t[3 + 2 * (n - 1) + 1])
		n--;
	return n;
}

const char *btf_param_name(const struct btf *b, uint32_t proto, int i)
{
	return str_at(b, type_at(b, proto)[3 + 2 * i]);
}

uint32_t btf_param_type(const struct btf *b, uint32_t proto, int i)
{
	return type_at(b, proto)[3 + 2 * i + 1];
}

uint32_t btf_return_type(const struct btf *b, uint32_t proto)
{
	return type_at(b, proto)[2];
}

void btf_type_text(const struct btf *b, uint32_t id, struct strbuf *out)
{
	const uint32_t *t = type_at(b, id);
	const char *name = t ? str_at(b, t[0]) : "";

	if (!t) {
		strbuf_addstr(out, "void");
		return;
	}
	switch (kind_of(t)) {
	case BTFK_PTR:
		if (kind_of(type_at(b, t[2]) ? type_at(b, t[2]) : t) == BTFK_FUNC_PROTO && type_at(b, t[2])) {
			btf_type_text(b, btf_return_type(b, t[2]), out);
			strbuf_addstr(out, "(*)()");
			return;
		}
		btf_type_text(b, t[2], out);
		strbuf_addch(out, '*');
		return;
	case BTFK_CONST:
	case BTFK_VOLATILE:
		btf_type_text(b, t[2], out);
		strbuf_addstr(out, kind_of(t) == BTFK_CONST ? " const" : " volatile");
		return;
	case BTFK_RESTRICT:
	case BTFK_TYPE_TAG:   /* __user, __rcu ... */
		btf_type_text(b, t[2], out);
		return;
	case BTFK_STRUCT:
	case BTFK_UNION:
	case BTFK_ENUM:
	case BTFK_ENUM64:
	case BTFK_FWD: {
		int k = kind_of(t);
		strbuf_addstr(out, k == BTFK_UNION || (k == BTFK_FWD && kflag_of(t)) ? "union " :
				   k == BTFK_ENUM || k == BTFK_ENUM64 ? "enum " : "struct ");
		strbuf_addstr(out, *name ? name : "{...}");
		return;
	}
	case BTFK_ARRAY: {
		uint32_t n = 0, e = btf_array_elem(b, id, &n);
		btf_type_text(b, e, out);
		strbuf_addf(out, "[%u]", n);
		return;
	}
	case BTFK_FUNC_PROTO:
		btf_type_text(b, t[2], out);
		strbuf_addstr(out, "()");
		return;
	default:   /* int, float, typedef */
		strbuf_addstr(out, *name ? name : "?");
	}
}

uint32_t btf_resolve(const struct btf *b, uint32_t id)
{
	for (int guard = 0; guard < 64; guard++) {
		const uint32_t *t = type_at(b, id);
		if (!t)
			return 0;
		switch (kind_of(t)) {
		case BTFK_TYPEDEF: case BTFK_VOLATILE: case BTFK_CONST: case BTFK_RESTRICT: case BTFK_TYPE_TAG:
			id = t[2];
			break;
		default:
			return id;
		}
	}
	return 0;
}

int btf_kind(const struct btf *b, uint32_t id)
{
	const uint32_t *t = type_at(b, id);
	return t ? kind_of(t) : 0;
}

uint64_t btf_size(const struct btf *b, uint32_t id)
{
	id = btf_resolve(b, id);
	const uint32_t *t = type_at(b, id);
	if (!t)
		return 0;
	switch (kind_of(t)) {
	case BTFK_INT: case BTFK_ENUM: case BTFK_ENUM64: case BTFK_STRUCT: case BTFK_UNION: case BTFK_FLOAT:
		return t[2];
	case BTFK_PTR:
		return 8;
	case BTFK_ARRAY: {
		uint32_t n = 0, e = btf_array_elem(b, id, &n);
		return (uint64_t)n * btf_size(b, e);
	}
	default:
		return 0;
	}
}

bool btf_int_signed(const struct btf *b, uint32_t id)
{
	const uint32_t *t = type_at(b, btf_resolve(b, id));
	if (!t)
		return false;
	if (kind_of(t) == BTFK_ENUM || kind_of(t) == BTFK_ENUM64)
		return kflag_of(t);
	return kind_of(t) == BTFK_INT && (t[3] >> 24 & 1);
}

uint32_t btf_pointee(const struct btf *b, uint32_t id)
{
	const uint32_t *t = type_at(b, btf_resolve(b, id));
	return t && kind_of(t) == BTFK_PTR ? t[2] : 0;
}

uint32_t btf_array_elem(const struct btf *b, uint32_t id, uint32_t *n)
{
	const uint32_t *t = type_at(b, btf_resolve(b, id));
	if (!t || kind_of(t) != BTFK_ARRAY)
		return 0;
	*n = t[5];
	return t[3];
}

bool btf_member(const struct btf *b, uint32_t sid, const char *name, uint64_t *bitoff, uint32_t *type,
		uint32_t *bitsize)
{
	const uint32_t *t = type_at(b, btf_resolve(b, sid));

	if (!t || (kind_of(t) != BTFK_STRUCT && kind_of(t) != BTFK_UNION))
		return false;
	for (int i = 0; i < vlen_of(t); i++) {
		const uint32_t *m = t + 3 + 3 * i;
		uint64_t off = kflag_of(t) ? (m[2] & 0xffffff) : m[2];
		uint32_t bits = kflag_of(t) ? m[2] >> 24 : 0;
		const char *mn = str_at(b, m[0]);
		if (*mn && !strcmp(mn, name)) {
			*bitoff = off;
			*type = m[1];
			*bitsize = bits;
			return true;
		}
		if (!*mn && btf_member(b, m[1], name, bitoff, type, bitsize)) {   /* anonymous */
			*bitoff += off;
			return true;
		}
	}
	return false;
}

uint32_t btf_ntypes(const struct btf *b)
{
	return b->ntypes;
}

const char *btf_name(const struct btf *b, uint32_t id)
{
	const uint32_t *t = type_at(b, id);
	return t ? str_at(b, t[0]) : "";
}

uint32_t btf_ref(const struct btf *b, uint32_t id)
{
	const uint32_t *t = type_at(b, id);

	if (!t)
		return 0;
	switch (kind_of(t)) {
	case BTFK_PTR: case BTFK_TYPEDEF: case BTFK_VOLATILE: case BTFK_CONST: case BTFK_RESTRICT:
	case BTFK_TYPE_TAG: case BTFK_VAR: case BTFK_FUNC_PROTO: case BTFK_FUNC:
		return t[2];
	default:
		return 0;
	}
}

int btf_nmembers(const struct btf *b, uint32_t id)
{
	const uint32_t *t = type_at(b, id);
	return t && (kind_of(t) == BTFK_STRUCT || kind_of(t) == BTFK_UNION) ? vlen_of(t) : 0;
}

void btf_member_at(const struct btf *b, uint32_t id, int i, const char **name, uint64_t *bitoff,
		   uint32_t *type, uint32_t *bitsize)
{
	const uint32_t *t = type_at(b, id), *m = t + 3 + 3 * i;

	*name = str_at(b, m[0]);
	*type = m[1];
	*bitoff = kflag_of(t) ? (m[2] & 0xffffff) : m[2];
	*bitsize = kflag_of(t) ? m[2] >> 24 : 0;
}

uint32_t btf_type_named(const struct btf *b, const char *name)
{
	int want = 0;   /* 0: struct, union or typedef */

	if (!strncmp(name, "struct ", 7))
		want = BTFK_STRUCT, name += 7;
	else if (!strncmp(name, "union ", 6))
		want = BTFK_UNION, name += 6;
	else if (!strncmp(name, "enum ", 5))
		want = BTFK_ENUM, name += 5;
	name += strspn(name, " ");
	for (uint32_t id = 1; id < b->ntypes; id++) {
		const uint32_t *t = b->types[id];
		int k = kind_of(t);
		if (want ? (k != want && !(want == BTFK_ENUM && k == BTFK_ENUM64))
			 : (k != BTFK_STRUCT && k != BTFK_UNION && k != BTFK_TYPEDEF))
			continue;
		if (!strcmp(str_at(b, t[0]), name))
			return id;
	}
	return 0;
}
