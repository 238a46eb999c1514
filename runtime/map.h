/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: associative arrays (doc/runtime-api.md, "Maps"), for the
 * kernel module and user space (unit tests).
 *
 * One vzalloc'd block per map holds the header, the hash buckets and
 * max_entries fixed-size entries, so nothing is allocated after
 * stp_map_new (probe context is atomic). Entries hang off bucket chains
 * (hlist style, O(1) unlink) and off one doubly linked list that is the
 * iteration order: insertion order, until stp_map_sort reorders it in place.
 * Unused entries sit on a free list.
 *
 * SystemTap semantics kept here:
 *  - an element set to 0 or "" stays in the array (only delete removes it);
 *    reading a missing element does not create it;
 *  - string keys and values are cut to MAXSTRINGLEN - 1 bytes, and two keys
 *    that agree on that prefix are the same key;
 *  - stp_map_sort is a stable merge sort of the current list: ties keep
 *    their current order, which is insertion order unless an earlier sort
 *    reordered the list (SystemTap sorts its map list in place the same
 *    way, so a later unsorted foreach sees the last sorted order too);
 *  - wrap (global a%[N]): when full, the entry at the head of the list is
 *    reused and becomes the newest: the oldest one, unless a sort reordered
 *    the list (then the first in that order, as in SystemTap).
 * Longs compare as signed 64-bit, strings bytewise (strcmp).
 * Callers serialize access (the generated code holds the global's lock);
 * do not insert or delete while walking the list, except through
 * stp_map_delete_entry on the current entry after fetching the next one.
 */
#ifndef STP_MAP_H
#define STP_MAP_H

#include "userspace_shim.h"
#include "strings.h"

/*
 * A script's maps are sized by MAXMAPENTRIES: a huge one must fail cleanly,
 * without the allocator's warning and stack dump on the console (which the
 * test guest counts as kernel trouble).
 */
#ifdef __KERNEL__
#define stp_vzalloc(size) __vmalloc((size), GFP_KERNEL | __GFP_ZERO | __GFP_NOWARN)
#else
#define stp_vzalloc(size) vzalloc(size)
#endif

#ifndef MAXSTRINGLEN
#define MAXSTRINGLEN 512
#endif
#ifndef MAXMAPENTRIES
#define MAXMAPENTRIES 2048
#endif

#define STP_MAP_MAX_KEYS 9

enum stp_type { STP_LONG = 1, STP_STRING = 2, STP_STAT = 3 };

union stp_key {
	int64_t n;
	const char *s;
};

/*
 * An element. Its keys and value follow the header at the map's key_off[]
 * and val_off: an int64_t for a long, a char[MAXSTRINGLEN] for a string.
 */
struct stp_map_entry {
	struct stp_map_entry *hnext;	/* bucket chain, or free list */
	struct stp_map_entry **hpprev;	/* what points at us in the chain */
	struct stp_map_entry *next, *prev;	/* iteration list */
	u64 hash;
	u64 data[];
};

struct stp_map {
	int max_entries, nkeys, size;
	bool wrap;
	enum stp_type key_types[STP_MAP_MAX_KEYS];
	enum stp_type value_type;
	size_t value_size;		/* bytes of the value slot */
	unsigned int sort_sub;		/* STP_STAT: offset of the int64 to sort on */
	unsigned int key_off[STP_MAP_MAX_KEYS], val_off;
	size_t entry_size;
	u64 bucket_mask;
	struct stp_map_entry **buckets;
	struct stp_map_entry *first, *last;	/* iteration list */
	struct stp_map_entry *free;
	struct stp_map_entry *hot;	/* last element <<< reached: tried before
					 * hashing (stat.h); NULL when unlinked */
	char *entries;
};

/* Bytes of one key or value slot, a multiple of 8 (STP_STAT: the map's
 * stat_size, see stp_map_new_stat). */
static inline size_t stp_map_slot_size(enum stp_type t)
{
	return t == STP_STRING ? (MAXSTRINGLEN + 7) & ~(size_t)7 : 8;
}

static inline void *stp_map_slot(struct stp_map_entry *e, unsigned int off)
{
	return (char *)e + off;
}

/* Finalizer of a 64-bit hash (MurmurHash3's fmix64): all bits mix. */
static inline u64 stp_map_fmix(u64 h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb53fe1a85ec9ULL;
	h ^= h >> 33;
	return h;
}

/*
 * String keys are hashed and compared 8 bytes at a time (a key is often a
 * short name hashed on every probe hit: a[execname()] <<< 1). A word is
 * the 8 bytes at s (little-endian); past a string's NUL the kernel may
 * read a few bytes beyond the object (load_unaligned_zeropad: a word that
 * crosses into an unmapped page reads zeros there, as the dcache's name
 * hashing does), which are then masked off. User space reads bytes.
 */
#ifdef __KERNEL__
#include <asm/word-at-a-time.h>
#define stp_load_word(s) ((u64)load_unaligned_zeropad(s))
#else
static inline u64 stp_load_word(const char *s)
{
	u64 w = 0;
	int i;

	for (i = 0; i < 8 && s[i]; i++)
		w |= (u64)(unsigned char)s[i] << (8 * i);
	return w;
}
#endif

#define STP_ONES 0x0101010101010101ULL
#define STP_HIGHS 0x8080808080808080ULL

/*
 * Word n / 8 of string s, cut at MAXSTRINGLEN - 1 bytes, with every byte
 * after its first NUL cleared; *end set if it holds the terminator.
 */
static inline u64 stp_str_word(const char *s, size_t n, bool *end)
{
	u64 w = stp_load_word(s + n), zero;

	if (unlikely(MAXSTRINGLEN - 1 - n < 8))	/* the cut: a NUL there */
		w &= (1ULL << (8 * (MAXSTRINGLEN - 1 - n))) - 1;
	/* high bit of each zero byte; exact up to the first zero byte,
	 * the only one used */
	zero = (w - STP_ONES) & ~w & STP_HIGHS;
	*end = zero != 0;
	if (zero)	/* keep the bytes before the first zero byte */
		w &= ((zero - 1) & ~zero) >> 7;
	return w;
}

/* Mix string s into h, a word at a time. O(length). */
static inline u64 stp_map_hash_str(u64 h, const char *s)
{
	size_t n = 0;
	bool end;

	for (;; n += 8) {
		u64 w = stp_str_word(s, n, &end);

		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
		if (end)
			break;
	}
	return (h ^ n) * 0x100000001b3ULL;	/* n ends the key */
}

/*
 * Whether string key slot a, as stp_map_add_h stores it (8-aligned, at
 * most MAXSTRINGLEN - 1 bytes, zeros after the NUL to the end of its
 * word), equals s cut to MAXSTRINGLEN - 1 bytes: a's words are compared
 * as they are. O(length).
 */
static inline bool stp_map_str_equal(const char *a, const char *s)
{
	size_t n = 0;
	bool end;

	for (;; n += 8) {
		u64 wa;

		memcpy(&wa, a + n, sizeof(wa));	/* one aligned load */
		if (wa != stp_str_word(s, n, &end))
			return false;
		if (end)
			return true;
	}
}

#define STP_MAP_HASH_SEED 0xcbf29ce484222325ULL

/*
 * Hash of all keys: words of string keys (as stored: at most
 * MAXSTRINGLEN - 1 bytes), multiply-xor for longs. O(total key length).
 */
static __always_inline u64 stp_map_hash(const struct stp_map *m,
					const union stp_key *keys)
{
	u64 h = STP_MAP_HASH_SEED;
	int i;

	for (i = 0; i < m->nkeys; i++) {
		if (m->key_types[i] == STP_STRING) {
			h = stp_map_hash_str(h, keys[i].s ? keys[i].s : "");
		} else {
			h ^= stp_map_fmix((u64)keys[i].n + i);
			h *= 0x9e3779b97f4a7c15ULL;
		}
	}
	return stp_map_fmix(h);
}

/*
 * Whether e's keys equal keys[] at every position whose bit is clear in
 * wild (bit i set: key i is a '*' of a slice, a[*, k]). O(nkeys),
 * O(MAXSTRINGLEN) for strings (compared as stored).
 */
static __maybe_unused bool stp_map_entry_matches(const struct stp_map *m,
						 struct stp_map_entry *e,
						 const union stp_key *keys,
						 unsigned int wild)
{
	int i;

	for (i = 0; i < m->nkeys; i++) {
		void *slot = stp_map_slot(e, m->key_off[i]);

		if (wild & (1u << i))
			continue;
		if (m->key_types[i] == STP_STRING) {
			if (strncmp(slot, keys[i].s ? keys[i].s : "",
				    MAXSTRINGLEN - 1) != 0)
				return false;
		} else if (*(int64_t *)slot != keys[i].n) {
			return false;
		}
	}
	return true;
}

/* Whether e holds exactly these keys (strings compared as stored). */
static __always_inline bool stp_map_keys_equal(const struct stp_map *m,
					       struct stp_map_entry *e,
					       const union stp_key *keys)
{
	int i;

	for (i = 0; i < m->nkeys; i++) {
		void *slot = stp_map_slot(e, m->key_off[i]);

		if (m->key_types[i] == STP_STRING) {
			if (!stp_map_str_equal(slot, keys[i].s ? keys[i].s : ""))
				return false;
		} else if (*(int64_t *)slot != keys[i].n) {
			return false;
		}
	}
	return true;
}

/*
 * A map for max_entries elements (<= 0: MAXMAPENTRIES) with nkeys keys of
 * the given types. NULL if the arguments are bad or memory is short.
 * O(max_entries); the only allocation the map ever makes. Process context.
 */
static __maybe_unused struct stp_map *stp_map_new_sized(int max_entries, int nkeys,
							const enum stp_type *key_types,
							enum stp_type value_type,
							size_t value_size, bool wrap);

static __maybe_unused struct stp_map *stp_map_new(int max_entries, int nkeys,
						  const enum stp_type *key_types,
						  enum stp_type value_type,
						  bool wrap)
{
	return stp_map_new_sized(max_entries, nkeys, key_types, value_type,
				 stp_map_slot_size(value_type), wrap);
}

/* An array of aggregates: each value is a stat record of value_size bytes
 * (a multiple of 8; runtime/stat.h). */
static __maybe_unused struct stp_map *stp_map_new_stat(int max_entries, int nkeys,
						       const enum stp_type *key_types,
						       size_t value_size, bool wrap)
{
	return stp_map_new_sized(max_entries, nkeys, key_types, STP_STAT,
				 (value_size + 7) & ~(size_t)7, wrap);
}

static __maybe_unused struct stp_map *stp_map_new_sized(int max_entries, int nkeys,
							const enum stp_type *key_types,
							enum stp_type value_type,
							size_t value_size, bool wrap)
{
	struct stp_map *m;
	size_t off, entry_size, nbuckets = 16, head, total;
	int i;

	if (max_entries <= 0)
		max_entries = MAXMAPENTRIES;
	if (nkeys < 1 || nkeys > STP_MAP_MAX_KEYS)
		return NULL;
	if (value_type != STP_LONG && value_type != STP_STRING && value_type != STP_STAT)
		return NULL;
	for (i = 0; i < nkeys; i++)
		if (key_types[i] != STP_LONG && key_types[i] != STP_STRING)
			return NULL;

	off = sizeof(struct stp_map_entry);
	for (i = 0; i < nkeys; i++)
		off += stp_map_slot_size(key_types[i]);
	entry_size = off + value_size;
	while (nbuckets < (size_t)max_entries)
		nbuckets <<= 1;
	head = (sizeof(*m) + 7) & ~(size_t)7;
	/* nbuckets < 2 * max_entries: bound the total well below SIZE_MAX */
	if ((u64)max_entries * (entry_size + 2 * sizeof(m->buckets[0])) >
	    SIZE_MAX / 2)
		return NULL;
	total = head + nbuckets * sizeof(m->buckets[0]) +
		(size_t)max_entries * entry_size;

	m = stp_vzalloc(total);
	if (!m)
		return NULL;
	m->max_entries = max_entries;
	m->nkeys = nkeys;
	m->wrap = wrap;
	m->value_type = value_type;
	m->value_size = value_size;
	off = sizeof(struct stp_map_entry);
	for (i = 0; i < nkeys; i++) {
		m->key_types[i] = key_types[i];
		m->key_off[i] = off;
		off += stp_map_slot_size(key_types[i]);
	}
	m->val_off = off;
	m->entry_size = entry_size;
	m->bucket_mask = nbuckets - 1;
	m->buckets = (struct stp_map_entry **)((char *)m + head);
	m->entries = (char *)(m->buckets + nbuckets);
	for (i = max_entries - 1; i >= 0; i--) {
		struct stp_map_entry *e =
			(struct stp_map_entry *)(m->entries + i * entry_size);

		e->hnext = m->free;
		m->free = e;
	}
	return m;
}

/* O(1). NULL is fine. Process context (vfree). */
static inline __maybe_unused void stp_map_free(struct stp_map *m)
{
	if (m)
		vfree(m);
}

/* The element with these keys, whose hash is h, or NULL. O(1) expected. */
static __always_inline struct stp_map_entry *
stp_map_find_h(struct stp_map *m, const union stp_key *keys, u64 h)
{
	struct stp_map_entry *e;

	for (e = m->buckets[h & m->bucket_mask]; e; e = e->hnext)
		if (e->hash == h && stp_map_keys_equal(m, e, keys))
			return e;
	return NULL;
}

/* The element with these keys, or NULL. O(1) expected. */
static __maybe_unused struct stp_map_entry *
stp_map_find(struct stp_map *m, const union stp_key *keys)
{
	return stp_map_find_h(m, keys, stp_map_hash(m, keys));
}

/* Take e out of its bucket chain and the list. O(1). */
static inline void stp_map_unlink(struct stp_map *m, struct stp_map_entry *e)
{
	if (m->hot == e)
		m->hot = NULL;
	*e->hpprev = e->hnext;
	if (e->hnext)
		e->hnext->hpprev = e->hpprev;
	if (e->prev)
		e->prev->next = e->next;
	else
		m->first = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		m->last = e->prev;
}

/*
 * Insert keys, absent from m, with hash h (value 0 or ""). NULL when full
 * and !wrap (the caller reports "Array overflow, check MAXMAPENTRIES");
 * with wrap the head of the list is reused. A new element goes to the end
 * of the list. O(1).
 */
static __maybe_unused struct stp_map_entry *
stp_map_add_h(struct stp_map *m, const union stp_key *keys, u64 h)
{
	struct stp_map_entry **bucket = &m->buckets[h & m->bucket_mask];
	struct stp_map_entry *e;
	int i;

	if (m->free) {
		e = m->free;
		m->free = e->hnext;
		m->size++;
	} else if (m->wrap && m->first) {
		e = m->first;
		stp_map_unlink(m, e);
	} else {
		return NULL;
	}

	for (i = 0; i < m->nkeys; i++) {
		void *slot = stp_map_slot(e, m->key_off[i]);

		if (m->key_types[i] == STP_STRING) {
			size_t n = stp_strlcpy(slot, keys[i].s) + 1;

			/* zeros to the end of the NUL's word: the
			 * slot compares a word at a time */
			memset((char *)slot + n, 0, (8 - (n & 7)) & 7);
		} else {
			*(int64_t *)slot = keys[i].n;
		}
	}
	if (m->value_type == STP_STRING)
		*(char *)stp_map_slot(e, m->val_off) = '\0';
	else if (m->value_type == STP_STAT)
		memset(stp_map_slot(e, m->val_off), 0, m->value_size);
	else
		*(int64_t *)stp_map_slot(e, m->val_off) = 0;
	e->hash = h;

	e->hnext = *bucket;
	if (e->hnext)
		e->hnext->hpprev = &e->hnext;
	e->hpprev = bucket;
	*bucket = e;

	e->next = NULL;
	e->prev = m->last;
	if (m->last)
		m->last->next = e;
	else
		m->first = e;
	m->last = e;
	return e;
}

/* Find or insert (stp_map_add_h). O(1) expected. */
static __maybe_unused struct stp_map_entry *
stp_map_insert(struct stp_map *m, const union stp_key *keys)
{
	u64 h = stp_map_hash(m, keys);
	struct stp_map_entry *e = stp_map_find_h(m, keys, h);

	return e ? e : stp_map_add_h(m, keys, h);
}

/* O(1). */
static inline __maybe_unused int64_t stp_entry_long(struct stp_map *m,
						    struct stp_map_entry *e)
{
	return *(int64_t *)stp_map_slot(e, m->val_off);
}

/* O(1); the string lives in the entry until it is changed or deleted. */
static inline __maybe_unused const char *stp_entry_str(struct stp_map *m,
						       struct stp_map_entry *e)
{
	return stp_map_slot(e, m->val_off);
}

/* O(1). */
static inline __maybe_unused void stp_entry_set_long(struct stp_map *m,
						     struct stp_map_entry *e,
						     int64_t v)
{
	*(int64_t *)stp_map_slot(e, m->val_off) = v;
}

/* O(length of v), cut to MAXSTRINGLEN - 1 bytes. v may be e's own value. */
static inline __maybe_unused void stp_entry_set_str(struct stp_map *m,
						    struct stp_map_entry *e,
						    const char *v)
{
	char *slot = stp_map_slot(e, m->val_off);

	if (v != slot)
		stp_strlcpy(slot, v);
}

/* Key i (0-based) of e. O(1). */
static inline __maybe_unused int64_t stp_entry_key_long(struct stp_map *m,
							struct stp_map_entry *e,
							int i)
{
	return *(int64_t *)stp_map_slot(e, m->key_off[i]);
}

/* O(1). */
static inline __maybe_unused const char *stp_entry_key_str(struct stp_map *m,
							   struct stp_map_entry *e,
							   int i)
{
	return stp_map_slot(e, m->key_off[i]);
}

/* Value, or 0 if absent (nothing is inserted). O(1) expected. */
static inline __maybe_unused int64_t stp_map_get_long(struct stp_map *m,
						      const union stp_key *keys)
{
	struct stp_map_entry *e = stp_map_find(m, keys);

	return e ? stp_entry_long(m, e) : 0;
}

/* Value, or "" if absent (nothing is inserted). O(1) expected. */
static inline __maybe_unused const char *stp_map_get_str(struct stp_map *m,
							 const union stp_key *keys)
{
	struct stp_map_entry *e = stp_map_find(m, keys);

	return e ? stp_entry_str(m, e) : "";
}

/* Set (inserting if needed); 0, or -E2BIG when full. O(1) expected. */
static inline __maybe_unused int stp_map_set_long(struct stp_map *m,
						  const union stp_key *keys,
						  int64_t v)
{
	struct stp_map_entry *e = stp_map_insert(m, keys);

	if (unlikely(!e))
		return -E2BIG;
	stp_entry_set_long(m, e, v);
	return 0;
}

/* Set (inserting if needed); 0, or -E2BIG when full. O(1) expected. */
static inline __maybe_unused int stp_map_set_str(struct stp_map *m,
						 const union stp_key *keys,
						 const char *v)
{
	struct stp_map_entry *e = stp_map_insert(m, keys);

	if (unlikely(!e))
		return -E2BIG;
	stp_entry_set_str(m, e, v);
	return 0;
}

/* [keys] in m. O(1) expected. */
static inline __maybe_unused bool stp_map_exists(struct stp_map *m,
						 const union stp_key *keys)
{
	return stp_map_find(m, keys) != NULL;
}

/* Remove e (from stp_map_find or the list) and free its slot. O(1). */
static inline __maybe_unused void stp_map_delete_entry(struct stp_map *m,
						       struct stp_map_entry *e)
{
	stp_map_unlink(m, e);
	e->hnext = m->free;
	m->free = e;
	m->size--;
}

/* delete m[keys]; absent keys are fine. O(1) expected. */
static inline __maybe_unused void stp_map_delete(struct stp_map *m,
						 const union stp_key *keys)
{
	struct stp_map_entry *e = stp_map_find(m, keys);

	if (e)
		stp_map_delete_entry(m, e);
}

/* delete m. O(size). */
static __maybe_unused void stp_map_clear(struct stp_map *m)
{
	struct stp_map_entry *e, *next;

	for (e = m->first; e; e = next) {
		next = e->next;
		m->buckets[e->hash & m->bucket_mask] = NULL;
		e->hnext = m->free;
		m->free = e;
	}
	m->first = m->last = m->hot = NULL;
	m->size = 0;
}

/* [k, *] in m: some element matches the slice. O(size). */
static __maybe_unused bool stp_map_exists_slice(struct stp_map *m,
						const union stp_key *keys,
						unsigned int wild)
{
	struct stp_map_entry *e;

	for (e = m->first; e; e = e->next)
		if (stp_map_entry_matches(m, e, keys, wild))
			return true;
	return false;
}

/* delete m[k, *]: every element matching the slice. O(size). */
static __maybe_unused void stp_map_delete_slice(struct stp_map *m,
						const union stp_key *keys,
						unsigned int wild)
{
	struct stp_map_entry *e, *next;

	for (e = m->first; e; e = next) {
		next = e->next;
		if (stp_map_entry_matches(m, e, keys, wild))
			stp_map_delete_entry(m, e);
	}
}

/* O(1). */
static inline __maybe_unused int stp_map_size(struct stp_map *m)
{
	return m->size;
}

/*
 * Order of a and b by column (0 value, 1..nkeys key) times dir: < 0 when a
 * goes first. O(1), O(MAXSTRINGLEN) for strings.
 */
static __maybe_unused int stp_map_cmp(struct stp_map *m,
				      struct stp_map_entry *a,
				      struct stp_map_entry *b,
				      int column, int dir)
{
	unsigned int off = column ? m->key_off[column - 1] : m->val_off + m->sort_sub;
	enum stp_type t = column ? m->key_types[column - 1] : m->value_type;
	int r;

	if (t == STP_STRING) {
		r = strcmp(stp_map_slot(a, off), stp_map_slot(b, off));
	} else {
		int64_t x = *(int64_t *)stp_map_slot(a, off);
		int64_t y = *(int64_t *)stp_map_slot(b, off);

		r = x < y ? -1 : x > y;
	}
	return dir < 0 ? -r : r;
}

/*
 * Sort the list in place by column (0 = value, 1..nkeys = key), dir +1
 * ascending, -1 descending; 0 leaves the current order. Stable bottom-up
 * merge sort on the linked list (runs of 1, 2, 4, ... merged pairwise):
 * O(size log size) comparisons, O(1) extra space, no allocation.
 */
static __maybe_unused void stp_map_sort(struct stp_map *m, int column, int dir)
{
	struct stp_map_entry *list = m->first, *p, *q, *e, *tail;
	int run, merges, psize, qsize;

	if (dir == 0 || column < 0 || column > m->nkeys || !list)
		return;

	for (run = 1;; run *= 2) {
		p = list;
		list = tail = NULL;
		merges = 0;
		while (p) {
			merges++;
			q = p;
			for (psize = 0; psize < run && q; psize++)
				q = q->next;
			qsize = run;
			while (psize > 0 || (qsize > 0 && q)) {
				/* take from p on ties: stable */
				if (psize > 0 && (qsize == 0 || !q ||
				    stp_map_cmp(m, p, q, column, dir) <= 0)) {
					e = p;
					p = p->next;
					psize--;
				} else {
					e = q;
					q = q->next;
					qsize--;
				}
				if (tail)
					tail->next = e;
				else
					list = e;
				e->prev = tail;
				tail = e;
			}
			p = q;
		}
		tail->next = NULL;
		if (merges <= 1)
			break;
	}
	m->first = list;
	m->last = tail;
}

/* Start of iteration. O(1). */
static inline __maybe_unused struct stp_map_entry *
stp_map_first(struct stp_map *m)
{
	return m->first;
}

/* Next in iteration order, NULL at the end. O(1). */
static inline __maybe_unused struct stp_map_entry *
stp_map_next(struct stp_map *m, struct stp_map_entry *e)
{
	return e->next;
}

#endif /* STP_MAP_H */
