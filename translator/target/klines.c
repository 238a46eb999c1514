/* klines.c - the kernel's DWARF line table, compacted for the module
 * (klines.h describes the format; runtime/klines.h reads it).
 *
 * Every unit's rows are gathered (statements or not: the line of an address
 * is what addr2line says), sorted by address,
 * and rows that repeat the previous row's file and line dropped (a lookup
 * takes the last row at or before an address, so they change nothing);
 * the ends of sequences stay, as rows without a file, so that an address
 * in a gap between sequences has no line.
 */
#include "klines.h"

#include <elfutils/libdw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "debuginfo.h"
#include "ksyms.h"
#include "util.h"

struct kl_row {
	uint64_t addr;
	uint32_t file;          /* UINT32_MAX: end of a sequence */
	int32_t line;
	uint32_t seq;           /* order of appearance: ties keep it */
};

/* File names, each once: a simple open-addressing set. */
struct kl_names {
	char **names;
	uint32_t n, cap;
	uint32_t *slots;        /* index + 1, 0 empty */
	uint32_t nslots;
};

static uint32_t kl_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* The index of name in the set, added if new. */
static uint32_t kl_name_id(struct kl_names *t, const char *name)
{
	if (2 * (t->n + 1) > t->nslots) {
		uint32_t ns = t->nslots ? 2 * t->nslots : 4096;
		uint32_t *slots = xcalloc(ns, sizeof(*slots));
		for (uint32_t i = 0; i < t->n; i++) {
			uint32_t h = kl_hash(t->names[i]) & (ns - 1);
			while (slots[h])
				h = (h + 1) & (ns - 1);
			slots[h] = i + 1;
		}
		free(t->slots);
		t->slots = slots;
		t->nslots = ns;
	}
	uint32_t h = kl_hash(name) & (t->nslots - 1);
	while (t->slots[h]) {
		if (!strcmp(t->names[t->slots[h] - 1], name))
			return t->slots[h] - 1;
		h = (h + 1) & (t->nslots - 1);
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 1024;
		t->names = xrealloc(t->names, t->cap * sizeof(*t->names));
	}
	t->names[t->n] = xstrdup(name);
	t->slots[h] = ++t->n;
	return t->n - 1;
}

static int kl_row_cmp(const void *a, const void *b)
{
	const struct kl_row *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void put_uleb(struct strbuf *b, uint64_t v)
{
	do {
		unsigned char c = v & 0x7f;
		v >>= 7;
		strbuf_addch(b, (char)(v ? c | 0x80 : c));
	} while (v);
}

static void put_sleb(struct strbuf *b, int64_t v)
{
	for (;;) {
		unsigned char c = v & 0x7f;
		v >>= 7;
		if ((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40))) {
			strbuf_addch(b, (char)c);
			return;
		}
		strbuf_addch(b, (char)(c | 0x80));
	}
}

/* Gather the statement rows of every unit into *rows. */
static void kl_collect(Dwarf *dbg, struct kl_names *names, struct kl_row **rows, size_t *n)
{
	size_t cap = 0;
	uint32_t seq = 0;
	Dwarf_Off off = 0, next;
	size_t hsize;

	*rows = NULL;
	*n = 0;
	while (dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t nl;

		if (!dwarf_offdie(dbg, off + hsize, &cu)) {
			off = next;
			continue;
		}
		off = next;
		if (dwarf_getsrclines(&cu, &lines, &nl) != 0)
			continue;
		for (size_t i = 0; i < nl; i++) {
			Dwarf_Line *l = dwarf_onesrcline(lines, i);
			Dwarf_Addr addr;
			bool end = false;
			int line = 0;
			const char *file;

			if (!l || dwarf_lineaddr(l, &addr) != 0)
				continue;
			dwarf_lineendsequence(l, &end);
			dwarf_lineno(l, &line);
			file = end ? NULL : dwarf_linesrc(l, NULL, NULL);
			if (!end && (!file || addr == 0))
				continue;
			if (*n == cap) {
				cap = cap ? 2 * cap : 1 << 20;
				*rows = xrealloc(*rows, cap * sizeof(**rows));
			}
			(*rows)[(*n)++] = (struct kl_row){
				.addr = addr,
				.file = end ? UINT32_MAX : kl_name_id(names, file),
				.line = line,
				.seq = seq++,
			};
		}
	}
}

int klines_write(struct session *s, const char *path, const char **why)
{
	struct dw_image *img = dw_kernel(s, why);
	const struct ksymtab *syms = img ? ksyms_kernel(s, why) : NULL;
	struct kl_names names = { 0 };
	struct kl_row *rows;
	size_t n, m = 0;
	struct klines_hdr h = { .magic = KLINES_MAGIC };
	struct strbuf idx = STRBUF_INIT, enc = STRBUF_INIT, str = STRBUF_INIT, files = STRBUF_INIT;

	if (!img || !syms)
		return -1;
	for (size_t i = 0; i < syms->n && !h.kfree_addr; i++)
		if (!strcmp(syms->syms[i].name, "kfree"))
			h.kfree_addr = syms->syms[i].addr;
	kl_collect(img->dbg, &names, &rows, &n);
	qsort(rows, n, sizeof(*rows), kl_row_cmp);
	/* several rows at one address: the last one stands; then drop rows
	 * that repeat the one before, and ends of sequence that are not gaps */
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && rows[i + 1].addr == rows[i].addr)
			continue;
		if (m && rows[m - 1].file == rows[i].file && rows[m - 1].line == rows[i].line)
			continue;
		if (!m && rows[i].file == UINT32_MAX)
			continue;
		rows[m++] = rows[i];
	}
	if (!m) {
		*why = "the kernel's DWARF has no line table";
		free(rows);
		return -1;
	}
	h.base = rows[0].addr;
	h.nfiles = names.n;
	for (uint32_t i = 0; i < names.n; i++) {
		uint32_t o = (uint32_t)str.len;
		strbuf_add(&files, (const char *)&o, sizeof(o));
		strbuf_add(&str, names.names[i], strlen(names.names[i]) + 1);
		free(names.names[i]);
	}
	for (size_t i = 0; i < m; i++) {
		uint32_t file = rows[i].file == UINT32_MAX ? names.n : rows[i].file;
		if (i % KLINES_GROUP == 0) {
			struct klines_idx e = {
				.addr_off = (uint32_t)(rows[i].addr - h.base),
				.rows_off = (uint32_t)enc.len,
				.file = file,
				.line = rows[i].line,
			};
			strbuf_add(&idx, (const char *)&e, sizeof(e));
			h.nindex++;
			continue;
		}
		uint32_t pfile = rows[i - 1].file == UINT32_MAX ? names.n : rows[i - 1].file;
		put_uleb(&enc, (rows[i].addr - rows[i - 1].addr) << 1 | (file != pfile));
		if (file != pfile)
			put_uleb(&enc, file);
		put_sleb(&enc, (int64_t)rows[i].line - rows[i - 1].line);
	}
	h.rows_len = (uint32_t)enc.len;
	h.names_len = (uint32_t)str.len;

	FILE *f = fopen(path, "wb");
	int rc = -1;
	if (!f) {
		*why = "cannot write the line table";
	} else {
		fwrite(&h, sizeof(h), 1, f);
		fwrite(files.buf, 1, files.len, f);
		fwrite(idx.buf, 1, idx.len, f);
		fwrite(enc.buf, 1, enc.len, f);
		fwrite(str.buf, 1, str.len, f);
		rc = fclose(f) == 0 ? 0 : -1;
		if (rc)
			*why = "cannot write the line table";
	}
	free(rows);
	free(names.names);
	free(names.slots);
	strbuf_release(&idx);
	strbuf_release(&enc);
	strbuf_release(&str);
	strbuf_release(&files);
	return rc;
}
