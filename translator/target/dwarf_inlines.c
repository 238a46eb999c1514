/* dwarf_inlines.c - the index of the units holding inlined instances, by
 * the inlined function's name (see .h). */
#include "dwarf_inlines.h"
#include "env.h"
#include "kimage.h"

#include <dwarf.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The cache file, as the index is in memory: header, unit offsets, names
 * (each the range of offsets of its units), their strings. */
#define INL_MAGIC "CSTAPIN1"
struct inl_header { char magic[8]; uint32_t nnames, ncus, strbytes, pad; };
struct inl_name { uint32_t str, first, count; };

struct dw_inline_index {
	char *buf;
	const uint64_t *cus;
	const struct inl_name *names;   /* sorted by name */
	const char *strs;
	uint32_t nnames, ncus, strbytes;
};

bool dw_inline_may_hold(int tag)
{
	return tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block ||
	       tag == DW_TAG_inlined_subroutine;
}

/* Point idx into buf (len bytes, malloc'ed: aligned) if it is a whole,
 * consistent index; takes buf either way. */
static struct dw_inline_index *index_from(char *buf, size_t len)
{
	const struct inl_header *h = (const struct inl_header *)buf;
	struct dw_inline_index *idx = NULL;

	if (!buf || len < sizeof(*h) || memcmp(h->magic, INL_MAGIC, 8) ||
	    len != sizeof(*h) + 8ull * h->ncus + sizeof(struct inl_name) * (uint64_t)h->nnames +
			   h->strbytes ||
	    !h->strbytes || buf[len - 1])
		goto bad;
	idx = xcalloc(1, sizeof(*idx));
	idx->buf = buf;
	idx->ncus = h->ncus;
	idx->nnames = h->nnames;
	idx->strbytes = h->strbytes;
	idx->cus = (const uint64_t *)(buf + sizeof(*h));
	idx->names = (const struct inl_name *)(idx->cus + h->ncus);
	idx->strs = (const char *)(idx->names + h->nnames);
	for (uint32_t i = 0; i < idx->nnames; i++) {
		const struct inl_name *n = &idx->names[i];
		if (n->str >= idx->strbytes || n->first > idx->ncus || n->count > idx->ncus - n->first)
			goto bad;
	}
	return idx;
bad:
	free(idx);
	free(buf);
	return NULL;
}

struct pair { const char *name; Dwarf_Off cu; };
typedef VEC(struct pair) pairvec;
typedef VEC(const char *) namevec;

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const char *const *)a, y = (uintptr_t)*(const char *const *)b;

	return x < y ? -1 : x > y;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : x->cu < y->cu ? -1 : x->cu > y->cu;
}

/* The names of the inlined instances under d, as inlines_under walks. */
static void collect(Dwarf_Die *d, namevec *out)
{
	Dwarf_Die c;

	if (dwarf_child(d, &c) != 0)
		return;
	do {
		int tag = dwarf_tag(&c);
		const char *name;
		if (tag == DW_TAG_inlined_subroutine && (name = dwarf_diename(&c)))
			vec_push(out, name);
		if (dw_inline_may_hold(tag))
			collect(&c, out);
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* Walk every unit: (name, unit) once each, laid out as the file is. */
static char *build(Dwarf *dbg, size_t *len)
{
	pairvec pairs = { 0 };
	namevec names = { 0 };
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(dbg, off + hsize, &cu)) {
			names.len = 0;
			collect(&cu, &names);
			if (names.len > 1)   /* one string per name, mostly: dedup cheaply first */
				qsort(names.items, names.len, sizeof(*names.items), cmp_ptr);
			for (int i = 0; i < names.len; i++)
				if (!i || names.items[i] != names.items[i - 1]) {
					struct pair p = { names.items[i], off + hsize };
					vec_push(&pairs, p);
				}
		}
		off = next;
	}
	free(names.items);
	if (pairs.len > 1)
		qsort(pairs.items, pairs.len, sizeof(*pairs.items), cmp_pair);
	int u = 0;   /* each (name, unit) once: a name's string may repeat */
	for (int i = 0; i < pairs.len; i++)
		if (!u || cmp_pair(&pairs.items[u - 1], &pairs.items[i]))
			pairs.items[u++] = pairs.items[i];
	pairs.len = u;
	uint32_t nnames = 0, ncus = (uint32_t)pairs.len, strbytes = 0;
	for (int i = 0; i < pairs.len; i++)
		if (!i || strcmp(pairs.items[i].name, pairs.items[i - 1].name)) {
			nnames++;
			strbytes += strlen(pairs.items[i].name) + 1;
		}
	if (!strbytes)
		strbytes = 1;   /* (an image without inlined code: one empty string) */
	*len = sizeof(struct inl_header) + 8ull * ncus + sizeof(struct inl_name) * (size_t)nnames + strbytes;
	char *buf = xcalloc(1, *len);
	struct inl_header *h = (struct inl_header *)buf;
	memcpy(h->magic, INL_MAGIC, 8);
	h->nnames = nnames;
	h->ncus = ncus;
	h->strbytes = strbytes;
	uint64_t *cus = (uint64_t *)(buf + sizeof(*h));
	struct inl_name *nm = (struct inl_name *)(cus + ncus);
	char *strs = (char *)(nm + nnames);
	uint32_t c = 0, n = 0, s = 0;
	for (int i = 0; i < pairs.len; i++) {
		const struct pair *p = &pairs.items[i];
		if (!i || strcmp(p->name, pairs.items[i - 1].name)) {
			size_t l = strlen(p->name) + 1;
			memcpy(strs + s, p->name, l);
			nm[n++] = (struct inl_name){ s, c, 0 };
			s += l;
		}
		nm[n - 1].count++;
		cus[c++] = p->cu;
	}
	free(pairs.items);
	return buf;
}

/* cache_dir()/dwinl-BUILDID.bin, or NULL (no build-id, no cache). Only a
 * kernel's: a module's few units are walked in no time, and hundreds of
 * modules' files would push the kernels' out of the cache. */
static char *cache_path(struct dw_image *img, char **dir)
{
	char *id = img->mod || img->user ? NULL : elf_build_id_hex(dwarf_getelf(img->dbg));

	*dir = id ? cache_dir() : NULL;
	char *path = *dir ? xasprintf("%s/dwinl-%s.bin", *dir, id) : NULL;
	free(id);
	return path;
}

const struct dw_inline_index *dw_inline_index(struct dw_image *img, bool build_it)
{
	if (img->inlines || env_get(ENV_CSTAP_NO_DWARF_INDEX))
		return img->inlines;
	char *dir = NULL, *path = cache_path(img, &dir);
	size_t len = 0;
	char *data = path ? read_file(path, &len) : NULL;
	if (data && (img->inlines = index_from(data, len))) {   /* (takes data) */
		utimensat(AT_FDCWD, path, NULL, 0);   /* used, for cache_prune */
	} else if (build_it && !img->inlines_built) {
		img->inlines_built = true;   /* one walk per run, whatever comes of it */
		data = build(img->dbg, &len);
		if (path)   /* (a few kernels': ~2 MB each) */
			cache_store(dir, path, data, len, "dwinl-", 8, 90L * 86400);
		img->inlines = index_from(data, len);
	}
	free(path);
	free(dir);
	return img->inlines;
}

/* Free the index of an image being closed (dw_module_close). */
void dw_inline_index_free(struct dw_inline_index *idx)
{
	if (idx)
		free(idx->buf);
	free(idx);
}

/* A pattern fnmatch matches only itself by: no wildcard, no escape. */
static bool plain(const char *pat)
{
	return !strpbrk(pat, "*?[\\");
}

void dw_inline_units(const struct dw_inline_index *idx, const char *pat, dw_offvec *out)
{
	int first = out->len;
	uint32_t lo = 0, hi = idx->nnames;
	bool one = plain(pat);

	if (one) {   /* the one name, by binary search */
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (strcmp(idx->strs + idx->names[mid].str, pat) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		hi = lo < idx->nnames && !strcmp(idx->strs + idx->names[lo].str, pat) ? lo + 1 : lo;
	}
	for (uint32_t i = lo; i < hi; i++) {
		const struct inl_name *n = &idx->names[i];
		if (!one && fnmatch(pat, idx->strs + n->str, 0) != 0)
			continue;
		for (uint32_t k = 0; k < n->count; k++)
			vec_push(out, (Dwarf_Off)idx->cus[n->first + k]);
	}
	if (out->len - first > 1)
		qsort(out->items + first, out->len - first, sizeof(Dwarf_Off), dw_off_cmp);
	int n = first;
	for (int i = first; i < out->len; i++)
		if (n == first || out->items[n - 1] != out->items[i])
			out->items[n++] = out->items[i];
	out->len = n;
}
