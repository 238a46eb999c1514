/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: the kernel's source file and line of an address
 * (symfileline, symfile, symline). The translator puts a compact copy of
 * the kernel's DWARF line table in the module (stp_klines .. stp_klines_end,
 * format in translator/target/klines.h); a lookup is a binary search of its
 * index, then the decoding of at most one group of rows. Only the module's
 * own read-only data is read, so a lookup cannot fault.
 */
#ifndef STP_KLINES_H
#define STP_KLINES_H

#include <linux/slab.h>

extern const char stp_klines[], stp_klines_end[];

struct stp_klines_hdr {
	u32 magic, nfiles, nindex, rows_len, names_len, pad;
	u64 base, kfree_addr;
};

struct stp_klines_idx {
	u32 addr_off, rows_off, file;
	s32 line;
};

#define STP_KLINES_MAGIC 0x4c505453u
#define STP_KLINES_GROUP 32

/* The table's parts; false if it is not one. */
static bool stp_klines_parts(const struct stp_klines_hdr **h, const u32 **files,
			     const struct stp_klines_idx **idx, const u8 **rows, const char **names)
{
	size_t size = stp_klines_end - stp_klines;

	*h = (const struct stp_klines_hdr *)stp_klines;
	if (size < sizeof(**h) || (*h)->magic != STP_KLINES_MAGIC ||
	    size != sizeof(**h) + (size_t)(*h)->nfiles * 4 + (size_t)(*h)->nindex * sizeof(**idx) +
		    (*h)->rows_len + (*h)->names_len)
		return false;
	*files = (const u32 *)(stp_klines + sizeof(**h));
	*idx = (const struct stp_klines_idx *)(*files + (*h)->nfiles);
	*rows = (const u8 *)(*idx + (*h)->nindex);
	*names = (const char *)(*rows + (*h)->rows_len);
	return true;
}

static u64 stp_klines_uleb(const u8 **p, const u8 *end)
{
	u64 v = 0;
	int shift = 0;

	while (*p < end && shift < 64) {
		u8 c = *(*p)++;

		v |= (u64)(c & 0x7f) << shift;
		shift += 7;
		if (!(c & 0x80))
			break;
	}
	return v;
}

static s64 stp_klines_sleb(const u8 **p, const u8 *end)
{
	s64 v = 0;
	int shift = 0;
	u8 c = 0;

	while (*p < end && shift < 64) {
		c = *(*p)++;
		v |= (s64)(c & 0x7f) << shift;
		shift += 7;
		if (!(c & 0x80))
			break;
	}
	if (shift < 64 && (c & 0x40))
		v |= -((s64)1 << shift);
	return v;
}

/*
 * The file name and line of a running kernel's address: true and *file,
 * *line set if the line table has the address, false otherwise (a module's
 * address, data, a gap between the kernel's sequences of lines).
 */
static __maybe_unused bool stp_klines_lookup(unsigned long addr, const char **file, long *line)
{
	const struct stp_klines_hdr *h;
	const u32 *files;
	const struct stp_klines_idx *idx;
	const u8 *rows, *p, *end;
	const char *names;
	unsigned long slide;
	u64 off;
	u32 lo, hi, g, f, nrows, i;
	s64 ln;

	if (!stp_klines_parts(&h, &files, &idx, &rows, &names) || !h->nindex)
		return false;
	slide = (unsigned long)&kfree - (unsigned long)h->kfree_addr;
	off = (u64)(addr - slide) - h->base;
	if ((u64)(addr - slide) < h->base || off > U32_MAX)
		return false;
	/* the last group starting at or before off */
	lo = 0;
	hi = h->nindex;
	while (hi - lo > 1) {
		u32 mid = lo + (hi - lo) / 2;

		if (idx[mid].addr_off <= off)
			lo = mid;
		else
			hi = mid;
	}
	g = lo;
	if (idx[g].addr_off > off)
		return false;
	f = idx[g].file;
	ln = idx[g].line;
	p = rows + idx[g].rows_off;
	end = g + 1 < h->nindex ? rows + idx[g + 1].rows_off : rows + h->rows_len;
	nrows = STP_KLINES_GROUP - 1;
	{
		u64 a = idx[g].addr_off;

		for (i = 0; i < nrows && p < end; i++) {
			const u8 *save = p;
			u64 v = stp_klines_uleb(&p, end);
			u32 nf = f;

			a += v >> 1;
			if (a > off) {
				p = save;
				break;
			}
			if (v & 1)
				nf = (u32)stp_klines_uleb(&p, end);
			f = nf;
			ln += stp_klines_sleb(&p, end);
		}
	}
	if (f >= h->nfiles || files[f] >= h->names_len)
		return false;
	*file = names + files[f];
	*line = (long)ln;
	return true;
}

#endif /* STP_KLINES_H */
