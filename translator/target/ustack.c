/* ustack.c - symbols and unwind tables of user files (see ustack.h). */
#include "ustack.h"

#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/libdw.h>

#include "sysroot.h"
#include "uimage.h"

static void add_unique(strvec *out, const char *path)
{
	for (int i = 0; i < out->len; i++)
		if (!strcmp(out->items[i], path))
			return;
	vec_push(out, xstrdup(path));
}

void ustack_files(struct session *s, strvec *out)
{
	const strvec *probed = uimage_files(s);

	for (int i = 0; i < probed->len; i++)
		add_unique(out, probed->items[i]);
	for (int i = 0; i < s->unwind_files.len; i++) {
		char *why = NULL, *p = sysroot_realpath(s, s->unwind_files.items[i], &why);
		if (p)
			add_unique(out, p);
		free(p);
		free(why);
	}
	if (!s->ldd)
		return;
	for (int i = 0, n = out->len; i < n; i++) {
		strvec libs = { 0 };
		uimage_libraries(s, out->items[i], "*", &libs);
		for (int k = 0; k < libs.len; k++) {
			add_unique(out, libs.items[k]);
			free(libs.items[k]);
		}
		free(libs.items);
	}
}

/* --- call frame information ------------------------------------------------ */

struct cfi_reader {
	const uint8_t *d;
	size_t size, pos;
	uint64_t vaddr;		/* the section's link-time address (pc-relative pointers) */
	bool bad;
};

static uint64_t rd_n(struct cfi_reader *r, int n)
{
	uint64_t v = 0;

	if (r->pos + n > r->size) {
		r->bad = true;
		return 0;
	}
	for (int i = 0; i < n; i++)
		v |= (uint64_t)r->d[r->pos + i] << (8 * i);
	r->pos += n;
	return v;
}

static uint64_t rd_uleb(struct cfi_reader *r)
{
	uint64_t v = 0;
	int shift = 0;

	while (r->pos < r->size) {
		uint8_t b = r->d[r->pos++];
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

static int64_t rd_sleb(struct cfi_reader *r)
{
	int64_t v = 0;
	int shift = 0;

	while (r->pos < r->size) {
		uint8_t b = r->d[r->pos++];
		if (shift < 64)
			v |= (int64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= -((int64_t)1 << shift);
			return v;
		}
	}
	r->bad = true;
	return 0;
}

/* A pointer in the DW_EH_PE encoding enc; absolute and pc-relative ones only. */
static uint64_t rd_encoded(struct cfi_reader *r, uint8_t enc)
{
	uint64_t at = r->vaddr + r->pos, v;

	switch (enc & 0x0f) {
	case 0x00: v = rd_n(r, 8); break;
	case 0x01: v = rd_uleb(r); break;
	case 0x02: v = rd_n(r, 2); break;
	case 0x03: v = rd_n(r, 4); break;
	case 0x04: v = rd_n(r, 8); break;
	case 0x09: v = (uint64_t)rd_sleb(r); break;
	case 0x0a: v = (uint64_t)(int16_t)rd_n(r, 2); break;
	case 0x0b: v = (uint64_t)(int32_t)rd_n(r, 4); break;
	case 0x0c: v = rd_n(r, 8); break;
	default: r->bad = true; return 0;
	}
	switch (enc & 0x70) {
	case 0x00: return v;
	case 0x10: return v + at;
	default: r->bad = true; return 0;
	}
}

struct cie_info {
	size_t off;		/* in the section */
	bool ok;
	uint8_t fde_enc;	/* 'R' */
	bool has_z;
	struct ustk_cie c;	/* ins: offset in the section */
};

struct frame_tables {
	VEC(struct cie_info) cies;
	VEC(struct ustk_fde) fdes;	/* ins: offset in the section; cie: index in cies */
};

/* The CIE at off (parsed once); its index, or -1 if it is not one we read. */
static int cie_at(struct cfi_reader *sec, bool eh, size_t off, struct frame_tables *t)
{
	for (int i = 0; i < t->cies.len; i++)
		if (t->cies.items[i].off == off)
			return t->cies.items[i].ok ? i : -1;
	struct cie_info ci = { .off = off, .fde_enc = eh ? 0x00 : 0x00 };
	struct cfi_reader r = *sec;
	r.pos = off;
	r.bad = false;
	uint64_t len = rd_n(&r, 4);
	int idsz = 4;
	if (len == 0xffffffffu) {
		len = rd_n(&r, 8);
		idsz = 8;
	}
	size_t end = r.pos + len;
	uint64_t id = rd_n(&r, idsz);
	bool is_cie = eh ? id == 0 : id == (idsz == 4 ? 0xffffffffu : UINT64_MAX);
	uint8_t version = (uint8_t)rd_n(&r, 1);
	const char *aug = (const char *)r.d + r.pos;
	size_t auglen = strnlen(aug, r.size - r.pos);
	r.pos += auglen + 1;
	ci.ok = is_cie && !r.bad && end <= r.size;
	if (ci.ok && !strcmp(aug, "eh"))
		rd_n(&r, 8);
	else if (ci.ok && aug[0] && aug[0] != 'z')
		ci.ok = false;   /* an augmentation we cannot skip */
	if (ci.ok && !eh && version >= 4)
		rd_n(&r, 2);     /* address_size, segment_size */
	ci.c.code_align = (uint32_t)rd_uleb(&r);
	ci.c.data_align = (int32_t)rd_sleb(&r);
	ci.c.ra = (uint32_t)(version == 1 ? rd_n(&r, 1) : rd_uleb(&r));
	if (ci.ok && aug[0] == 'z') {
		uint64_t n = rd_uleb(&r);
		size_t data_end = r.pos + n;
		ci.has_z = true;
		for (const char *a = aug + 1; *a && !r.bad; a++) {
			if (*a == 'R')
				ci.fde_enc = (uint8_t)rd_n(&r, 1);
			else if (*a == 'L')
				rd_n(&r, 1);
			else if (*a == 'P')
				rd_encoded(&r, (uint8_t)rd_n(&r, 1) & 0x7f);
			else if (*a == 'S')
				ci.c.flags |= USTK_CIE_SIGNAL;
			else
				break;   /* the rest of the data is skipped by its length */
		}
		r.pos = data_end;
	}
	ci.ok = ci.ok && !r.bad && r.pos <= end;
	ci.c.ins = (uint32_t)r.pos;
	ci.c.ins_len = ci.ok ? (uint32_t)(end - r.pos) : 0;
	vec_push(&t->cies, ci);
	return ci.ok ? t->cies.len - 1 : -1;
}

/* Every FDE of the section (.eh_frame if eh, else .debug_frame). */
static void parse_frames(struct cfi_reader *sec, bool eh, struct frame_tables *t)
{
	size_t off = 0;

	while (off + 4 <= sec->size) {
		struct cfi_reader r = *sec;
		r.pos = off;
		uint64_t len = rd_n(&r, 4);
		int idsz = 4;
		if (len == 0)
			break;   /* .eh_frame's terminator */
		if (len == 0xffffffffu) {
			len = rd_n(&r, 8);
			idsz = 8;
		}
		size_t body = r.pos, end = body + len;
		if (r.bad || end > sec->size)
			break;
		uint64_t id = rd_n(&r, idsz);
		bool is_cie = eh ? id == 0 : id == (idsz == 4 ? 0xffffffffu : UINT64_MAX);
		off = end;
		if (is_cie)
			continue;
		int ci = cie_at(sec, eh, eh ? body - id : id, t);
		if (ci < 0)
			continue;
		const struct cie_info *c = &t->cies.items[ci];
		uint64_t lo = rd_encoded(&r, eh ? c->fde_enc : 0x00);
		uint64_t range = rd_encoded(&r, (eh ? c->fde_enc : 0x00) & 0x0f);
		if (c->has_z)
			r.pos += rd_uleb(&r);
		if (r.bad || r.pos > end || !lo || range > UINT32_MAX)
			continue;
		vec_push(&t->fdes, ((struct ustk_fde){ .lo = lo, .len = (uint32_t)range, .cie = (uint32_t)ci,
							.ins = (uint32_t)r.pos, .ins_len = (uint32_t)(end - r.pos) }));
	}
}

static int cmp_fde(const void *a, const void *b)
{
	const struct ustk_fde *x = a, *y = b;

	return (x->lo > y->lo) - (x->lo < y->lo);
}

/* The named section's bytes and address in e; NULL if it has none. */
static Elf_Data *find_section(Elf *e, const char *name, uint64_t *addr)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (!e || elf_getshdrstrndx(e, &shstrndx) != 0)
		return NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *n;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(n = elf_strptr(e, shstrndx, sh.sh_name)) || strcmp(n, name))
			continue;
		*addr = sh.sh_addr;
		return elf_getdata(scn, NULL);
	}
	return NULL;
}

/* --- the table ------------------------------------------------------------- */

struct usym_full {
	uint64_t addr;
	uint32_t size;
	int rank;		/* which name wins at one address: global, weak, local */
	char *name;
};

typedef VEC(struct usym_full) ufullvec;

static int cmp_sym(const void *a, const void *b)
{
	const struct usym_full *x = a, *y = b;

	if (x->addr != y->addr)
		return (x->addr > y->addr) - (x->addr < y->addr);
	return x->rank - y->rank;
}

static void add_symbol(const char *name, const GElf_Sym *sym, uint64_t addr, void *ctx)
{
	ufullvec *out = ctx;
	int type = GELF_ST_TYPE(sym->st_info), bind = GELF_ST_BIND(sym->st_info);

	if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT)
		return;
	/* "__libc_start_main@@GLIBC_2.34": the name, not its version */
	vec_push(out, ((struct usym_full){ addr, (uint32_t)sym->st_size,
					   bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2,
					   xstrndup(name, strcspn(name, "@")) }));
}

/* The image's function and data symbols, by address, one per address. */
static void file_symbols(struct dw_image *img, ufullvec *out)
{
	uimage_each_symbol(img, add_symbol, out);
	if (out->len > 1)
		qsort(out->items, out->len, sizeof(out->items[0]), cmp_sym);
	int k = 0;
	for (int i = 0; i < out->len; i++)
		if (!k || out->items[k - 1].addr != out->items[i].addr)
			out->items[k++] = out->items[i];
		else
			free(out->items[i].name);
	out->len = k;
	/* a symbol's size, as SystemTap shows it, is the distance to the next
	 * one (padding included); the last keeps its own */
	for (int i = 0; i + 1 < out->len; i++)
		out->items[i].size = (uint32_t)(out->items[i + 1].addr - out->items[i].addr);
}

static uint32_t blob_add(struct strbuf *b, const void *p, size_t n)
{
	while (b->len % 8)
		strbuf_addch(b, 0);
	uint32_t at = (uint32_t)b->len;
	strbuf_add(b, p, n);
	return at;
}

/* One file's record (its parts appended to blob); false if unreadable. */
static bool add_file(struct session *s, const char *path, struct strbuf *blob, struct ustk_file *f, char **why)
{
	const char *dwhy;
	struct dw_image *img = dw_user(s, path, &dwhy);
	int fd = -1;
	Elf *e = img ? elf_file_open(img->path, &fd) : NULL;
	size_t nph;

	if (!img || !e || elf_getphdrnum(e, &nph) != 0) {
		*why = xasprintf("cannot read %s as an ELF file", path);
		elf_file_close(e, fd);
		return false;
	}
	memset(f, 0, sizeof(*f));
	f->path = blob_add(blob, path, strlen(path) + 1);
	for (size_t i = 0; i < nph && f->nsegs < USTK_MAXSEG; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
			f->segs[f->nsegs++] = (struct ustk_seg){ ph.p_vaddr, ph.p_offset, ph.p_filesz };
	}

	ufullvec syms = { 0 };
	file_symbols(img, &syms);
	struct ustk_sym *us = xcalloc(syms.len + 1, sizeof(*us));
	for (int i = 0; i < syms.len; i++)
		us[i] = (struct ustk_sym){ syms.items[i].addr, syms.items[i].size,
					   blob_add(blob, syms.items[i].name, strlen(syms.items[i].name) + 1) };
	f->nsyms = (uint32_t)syms.len;
	f->syms = blob_add(blob, us, syms.len * sizeof(*us));
	free(us);
	for (int i = 0; i < syms.len; i++)
		free(syms.items[i].name);
	free(syms.items);

	/* .eh_frame, else .debug_frame (the file's or its debuginfo's) */
	uint64_t addr = 0;
	bool eh = true;
	Elf_Data *d = find_section(e, ".eh_frame", &addr);
	if (!d || !d->d_size) {
		eh = false;
		d = find_section(e, ".debug_frame", &addr);
		if ((!d || !d->d_size) && img->dbg)
			d = find_section(dwarf_getelf(img->dbg), ".debug_frame", &addr);
	}
	struct frame_tables t = { 0 };
	if (d && d->d_buf && d->d_size) {
		struct cfi_reader r = { .d = d->d_buf, .size = d->d_size, .vaddr = addr };
		parse_frames(&r, eh, &t);
		uint32_t base = blob_add(blob, d->d_buf, d->d_size);
		if (t.fdes.len > 1)
			qsort(t.fdes.items, t.fdes.len, sizeof(t.fdes.items[0]), cmp_fde);
		for (int i = 0; i < t.fdes.len; i++)
			t.fdes.items[i].ins += base;
		struct ustk_cie *uc = xcalloc(t.cies.len + 1, sizeof(*uc));
		for (int i = 0; i < t.cies.len; i++) {
			uc[i] = t.cies.items[i].c;
			uc[i].ins += base;
		}
		f->ncies = (uint32_t)t.cies.len;
		f->cies = blob_add(blob, uc, t.cies.len * sizeof(*uc));
		f->nfdes = (uint32_t)t.fdes.len;
		f->fdes = blob_add(blob, t.fdes.items, t.fdes.len * sizeof(t.fdes.items[0]));
		free(uc);
	}
	free(t.cies.items);
	free(t.fdes.items);
	elf_file_close(e, fd);
	return true;
}

int ustack_write(struct session *s, const char *path, char **why)
{
	strvec files = { 0 };
	struct strbuf blob = STRBUF_INIT;
	struct ustk_hdr h = { USTK_MAGIC, 0 };
	int rc = 0;

	ustack_files(s, &files);
	struct ustk_file *recs = xcalloc(files.len + 1, sizeof(*recs));
	strbuf_add(&blob, &h, sizeof(h));
	size_t recs_at = blob_add(&blob, recs, files.len * sizeof(*recs));
	for (int i = 0; i < files.len; i++) {
		char *w = NULL;
		if (add_file(s, files.items[i], &blob, &recs[h.nfiles], &w))
			h.nfiles++;
		else if (!*why)
			*why = w;
		else
			free(w);
		free(files.items[i]);
	}
	free(files.items);
	memcpy(blob.buf, &h, sizeof(h));
	memcpy(blob.buf + recs_at, recs, h.nfiles * sizeof(*recs));
	free(recs);
	FILE *fp = fopen(path, "wb");
	if (!fp || fwrite(blob.buf, 1, blob.len, fp) != blob.len) {
		if (!*why)
			*why = xasprintf("cannot write %s", path);
		rc = -1;
	}
	if (fp && fclose(fp) != 0)
		rc = -1;
	strbuf_release(&blob);
	return rc;
}
