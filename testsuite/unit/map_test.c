/*
 * Unit tests of runtime/map.h: insert/find/delete, overflow, wrap, sort and
 * iteration with mixed key types, string truncation, and a randomized
 * comparison with a naive reference model.
 */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <CUnit/Basic.h>

#include "map.h"

static const enum stp_type K_L[] = { STP_LONG };
static const enum stp_type K_S[] = { STP_STRING };
static const enum stp_type K_SLS[] = { STP_STRING, STP_LONG, STP_STRING };

/* Keys as a compound literal: KEYS({ .n = 1 }, { .s = "a" }) */
#define KEYS(...) ((const union stp_key[]){ __VA_ARGS__ })
#define KL(x) KEYS({ .n = (x) })
#define KS(x) KEYS({ .s = (x) })

/* Iteration order of a one-long-key map as a string "k1,k2,...". */
static const char *order_l(struct stp_map *m)
{
	static char buf[4096];
	struct stp_map_entry *e;
	size_t n = 0;

	buf[0] = '\0';
	for (e = stp_map_first(m); e; e = stp_map_next(m, e))
		n += snprintf(buf + n, sizeof(buf) - n, "%s%lld", n ? "," : "",
			      (long long)stp_entry_key_long(m, e, 0));
	return buf;
}

static void test_new_bad_args(void)
{
	const enum stp_type bad[] = { 3 };
	const enum stp_type nine[9] = { STP_LONG, STP_LONG, STP_LONG, STP_LONG,
		STP_LONG, STP_LONG, STP_LONG, STP_LONG, STP_LONG };

	CU_ASSERT_PTR_NULL(stp_map_new(10, 0, K_L, STP_LONG, false));
	CU_ASSERT_PTR_NULL(stp_map_new(10, 10, nine, STP_LONG, false));
	CU_ASSERT_PTR_NULL(stp_map_new(10, 1, bad, STP_LONG, false));
	CU_ASSERT_PTR_NULL(stp_map_new(10, 1, K_L, 0, false));
	{
		struct stp_map *m = stp_map_new(0, 1, K_L, STP_LONG, false);

		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT_EQUAL(m->max_entries, MAXMAPENTRIES);
		stp_map_free(m);
	}
	stp_map_free(NULL);
}

static void test_long_basic(void)
{
	struct stp_map *m = stp_map_new(100, 1, K_L, STP_LONG, false);
	struct stp_map_entry *e;
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL(stp_map_size(m), 0);
	CU_ASSERT_PTR_NULL(stp_map_first(m));
	CU_ASSERT_EQUAL(stp_map_get_long(m, KL(5)), 0);
	CU_ASSERT(!stp_map_exists(m, KL(5)));
	CU_ASSERT_EQUAL(stp_map_size(m), 0);	/* reading does not insert */

	CU_ASSERT_EQUAL(stp_map_set_long(m, KL(5), 50), 0);
	CU_ASSERT_EQUAL(stp_map_set_long(m, KL(-5), -50), 0);
	CU_ASSERT_EQUAL(stp_map_set_long(m, KL(INT64_MIN), 1), 0);
	CU_ASSERT_EQUAL(stp_map_set_long(m, KL(INT64_MAX), 2), 0);
	CU_ASSERT_EQUAL(stp_map_size(m), 4);
	CU_ASSERT_EQUAL(stp_map_get_long(m, KL(5)), 50);
	CU_ASSERT_EQUAL(stp_map_get_long(m, KL(-5)), -50);
	CU_ASSERT_EQUAL(stp_map_get_long(m, KL(INT64_MIN)), 1);
	CU_ASSERT_EQUAL(stp_map_get_long(m, KL(INT64_MAX)), 2);

	/* overwrite keeps one element and its place */
	CU_ASSERT_EQUAL(stp_map_set_long(m, KL(5), 51), 0);
	CU_ASSERT_EQUAL(stp_map_size(m), 4);
	CU_ASSERT_EQUAL(stp_map_get_long(m, KL(5)), 51);
	CU_ASSERT_STRING_EQUAL(order_l(m),
			       "5,-5,-9223372036854775808,9223372036854775807");

	/* assigning 0 keeps the element (SystemTap since 0.5.12) */
	CU_ASSERT_EQUAL(stp_map_set_long(m, KL(-5), 0), 0);
	CU_ASSERT(stp_map_exists(m, KL(-5)));
	CU_ASSERT_EQUAL(stp_map_size(m), 4);

	/* insert returns the existing entry; entry accessors */
	e = stp_map_insert(m, KL(5));
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_PTR_EQUAL(e, stp_map_find(m, KL(5)));
	CU_ASSERT_EQUAL(stp_entry_long(m, e), 51);
	stp_entry_set_long(m, e, stp_entry_long(m, e) + 1);	/* a[5]++ */
	CU_ASSERT_EQUAL(stp_map_get_long(m, KL(5)), 52);
	e = stp_map_insert(m, KL(6));
	CU_ASSERT_EQUAL(stp_entry_long(m, e), 0);
	CU_ASSERT_EQUAL(stp_map_size(m), 5);

	/* delete */
	stp_map_delete(m, KL(-5));
	stp_map_delete(m, KL(12345));	/* absent: fine */
	CU_ASSERT(!stp_map_exists(m, KL(-5)));
	CU_ASSERT_EQUAL(stp_map_size(m), 4);
	CU_ASSERT_STRING_EQUAL(order_l(m),
			       "5,-9223372036854775808,9223372036854775807,6");
	/* re-inserted elements go to the end */
	stp_map_set_long(m, KL(-5), 7);
	CU_ASSERT_STRING_EQUAL(order_l(m),
			       "5,-9223372036854775808,9223372036854775807,6,-5");

	/* many keys, all found */
	stp_map_clear(m);
	for (i = 0; i < 100; i++)
		CU_ASSERT_EQUAL(stp_map_set_long(m, KL(i * 1000003LL), i), 0);
	for (i = 0; i < 100; i++)
		CU_ASSERT_EQUAL(stp_map_get_long(m, KL(i * 1000003LL)), i);
	CU_ASSERT_EQUAL(stp_map_size(m), 100);
	stp_map_free(m);
}

static void test_string_values_and_keys(void)
{
	struct stp_map *m = stp_map_new(10, 1, K_S, STP_STRING, false);
	struct stp_map_entry *e;
	char long1[MAXSTRINGLEN + 100], long2[MAXSTRINGLEN + 100];

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_STRING_EQUAL(stp_map_get_str(m, KS("x")), "");
	CU_ASSERT_EQUAL(stp_map_set_str(m, KS("x"), "hello"), 0);
	CU_ASSERT_EQUAL(stp_map_set_str(m, KS(""), "empty key"), 0);
	CU_ASSERT_STRING_EQUAL(stp_map_get_str(m, KS("x")), "hello");
	CU_ASSERT_STRING_EQUAL(stp_map_get_str(m, KS("")), "empty key");
	CU_ASSERT_STRING_EQUAL(stp_map_get_str(m, KS(NULL)), "empty key");
	CU_ASSERT(!stp_map_exists(m, KS("X")));

	/* "" stays in the array */
	stp_map_set_str(m, KS("x"), "");
	CU_ASSERT(stp_map_exists(m, KS("x")));
	CU_ASSERT_EQUAL(stp_map_size(m), 2);

	/* keys and values are cut to MAXSTRINGLEN - 1 bytes */
	memset(long1, 'a', sizeof(long1));
	long1[sizeof(long1) - 1] = '\0';
	memcpy(long2, long1, sizeof(long2));
	long2[MAXSTRINGLEN - 1] = 'b';		/* differs past the cut */
	CU_ASSERT_EQUAL(stp_map_set_str(m, KS(long1), long1), 0);
	CU_ASSERT_EQUAL(strlen(stp_map_get_str(m, KS(long1))), MAXSTRINGLEN - 1);
	CU_ASSERT(stp_map_exists(m, KS(long2)));	/* same key once cut */
	CU_ASSERT_EQUAL(stp_map_size(m), 3);
	e = stp_map_find(m, KS(long2));
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_EQUAL(strlen(stp_entry_key_str(m, e, 0)), MAXSTRINGLEN - 1);
	long2[MAXSTRINGLEN - 2] = 'b';		/* differs inside the cut */
	CU_ASSERT(!stp_map_exists(m, KS(long2)));

	/* setting an entry's value from its own value is fine */
	stp_entry_set_str(m, e, stp_entry_str(m, e));
	CU_ASSERT_EQUAL(strlen(stp_entry_str(m, e)), MAXSTRINGLEN - 1);
	stp_map_free(m);
}

/* String keys are hashed and compared a word (8 bytes) at a time: every
 * length around a word boundary, prefixes of each other, and a stored key
 * whose slot holds older, longer bytes past its NUL (a reused element). */
static void test_string_keys_by_word(void)
{
	struct stp_map *m = stp_map_new(64, 1, K_S, STP_LONG, false);
	char k[32], probe[32];
	int len;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	for (len = 0; len < 20; len++) {
		memset(k, 'a' + len, sizeof(k));
		memset(k, 'x', len);
		k[len] = '\0';
		CU_ASSERT_EQUAL(stp_map_set_long(m, KS(k), len + 1), 0);
	}
	CU_ASSERT_EQUAL(stp_map_size(m), 20);
	for (len = 0; len < 20; len++) {
		memset(probe, 'z', sizeof(probe));	/* garbage past the NUL */
		memset(probe, 'x', len);
		probe[len] = '\0';
		CU_ASSERT_EQUAL(stp_map_get_long(m, KS(probe)), len + 1);
	}
	CU_ASSERT_FALSE(stp_map_exists(m, KS("xxxxxxxy")));
	CU_ASSERT_FALSE(stp_map_exists(m, KS("xxxxxxxxy")));
	/* a slot reused for a shorter key keeps bytes of the old one */
	stp_map_clear(m);
	CU_ASSERT_EQUAL(stp_map_set_long(m, KS("abcdefghijklm"), 1), 0);
	stp_map_clear(m);
	CU_ASSERT_EQUAL(stp_map_set_long(m, KS("abc"), 2), 0);
	CU_ASSERT_EQUAL(stp_map_get_long(m, KS("abc")), 2);
	CU_ASSERT_FALSE(stp_map_exists(m, KS("abcdefghijklm")));
	CU_ASSERT_FALSE(stp_map_exists(m, KS("abcd")));
	CU_ASSERT_FALSE(stp_map_exists(m, KS("ab")));
	stp_map_free(m);
}

static void test_mixed_keys(void)
{
	struct stp_map *m = stp_map_new(50, 3, K_SLS, STP_LONG, false);
	const enum stp_type nine_t[9] = { STP_LONG, STP_STRING, STP_LONG,
		STP_STRING, STP_LONG, STP_STRING, STP_LONG, STP_STRING, STP_LONG };
	struct stp_map *m9 = stp_map_new(8, 9, nine_t, STP_STRING, false);
	struct stp_map_entry *e;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m9);
	stp_map_set_long(m, KEYS({ .s = "ab" }, { .n = 1 }, { .s = "c" }), 1);
	stp_map_set_long(m, KEYS({ .s = "a" }, { .n = 1 }, { .s = "bc" }), 2);
	stp_map_set_long(m, KEYS({ .s = "ab" }, { .n = 2 }, { .s = "c" }), 3);
	stp_map_set_long(m, KEYS({ .s = "c" }, { .n = 1 }, { .s = "ab" }), 4);
	CU_ASSERT_EQUAL(stp_map_size(m), 4);
	CU_ASSERT_EQUAL(stp_map_get_long(m, KEYS({ .s = "ab" }, { .n = 1 }, { .s = "c" })), 1);
	CU_ASSERT_EQUAL(stp_map_get_long(m, KEYS({ .s = "a" }, { .n = 1 }, { .s = "bc" })), 2);
	CU_ASSERT_EQUAL(stp_map_get_long(m, KEYS({ .s = "ab" }, { .n = 2 }, { .s = "c" })), 3);
	CU_ASSERT_EQUAL(stp_map_get_long(m, KEYS({ .s = "c" }, { .n = 1 }, { .s = "ab" })), 4);
	CU_ASSERT(!stp_map_exists(m, KEYS({ .s = "abc" }, { .n = 1 }, { .s = "" })));

	e = stp_map_first(m);
	CU_ASSERT_STRING_EQUAL(stp_entry_key_str(m, e, 0), "ab");
	CU_ASSERT_EQUAL(stp_entry_key_long(m, e, 1), 1);
	CU_ASSERT_STRING_EQUAL(stp_entry_key_str(m, e, 2), "c");

	/* sort by key 2 (the long) descending, ties in list order */
	stp_map_sort(m, 2, -1);
	e = stp_map_first(m);
	CU_ASSERT_EQUAL(stp_entry_long(m, e), 3);
	e = stp_map_next(m, e);
	CU_ASSERT_EQUAL(stp_entry_long(m, e), 1);
	e = stp_map_next(m, e);
	CU_ASSERT_EQUAL(stp_entry_long(m, e), 2);
	e = stp_map_next(m, e);
	CU_ASSERT_EQUAL(stp_entry_long(m, e), 4);
	CU_ASSERT_PTR_NULL(stp_map_next(m, e));
	/* by key 3 (a string) ascending */
	stp_map_sort(m, 3, 1);
	e = stp_map_first(m);
	CU_ASSERT_STRING_EQUAL(stp_entry_key_str(m, e, 2), "ab");
	e = stp_map_next(m, e);
	CU_ASSERT_STRING_EQUAL(stp_entry_key_str(m, e, 2), "bc");

	/* nine keys */
	stp_map_set_str(m9, KEYS({ .n = 1 }, { .s = "2" }, { .n = 3 }, { .s = "4" },
				 { .n = 5 }, { .s = "6" }, { .n = 7 }, { .s = "8" },
				 { .n = 9 }), "nine");
	stp_map_set_str(m9, KEYS({ .n = 1 }, { .s = "2" }, { .n = 3 }, { .s = "4" },
				 { .n = 5 }, { .s = "6" }, { .n = 7 }, { .s = "8" },
				 { .n = 10 }), "ten");
	CU_ASSERT_STRING_EQUAL(stp_map_get_str(m9, KEYS({ .n = 1 }, { .s = "2" },
		{ .n = 3 }, { .s = "4" }, { .n = 5 }, { .s = "6" }, { .n = 7 },
		{ .s = "8" }, { .n = 9 })), "nine");
	CU_ASSERT_EQUAL(stp_map_size(m9), 2);
	e = stp_map_first(m9);
	CU_ASSERT_EQUAL(stp_entry_key_long(m9, e, 8), 9);
	CU_ASSERT_STRING_EQUAL(stp_entry_key_str(m9, e, 7), "8");
	stp_map_free(m);
	stp_map_free(m9);
}

static void test_overflow(void)
{
	struct stp_map *m = stp_map_new(4, 1, K_L, STP_LONG, false);
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(stp_map_set_long(m, KL(i), i), 0);
	CU_ASSERT_PTR_NULL(stp_map_insert(m, KL(4)));
	CU_ASSERT_EQUAL(stp_map_set_long(m, KL(4), 4), -E2BIG);
	CU_ASSERT_EQUAL(stp_map_set_str(m, KL(4), "x"), -E2BIG);
	CU_ASSERT_EQUAL(stp_map_size(m), 4);
	CU_ASSERT(!stp_map_exists(m, KL(4)));
	/* existing keys can still be set when full */
	CU_ASSERT_EQUAL(stp_map_set_long(m, KL(2), 22), 0);
	CU_ASSERT_EQUAL(stp_map_get_long(m, KL(2)), 22);
	/* a delete makes room */
	stp_map_delete(m, KL(0));
	CU_ASSERT_EQUAL(stp_map_set_long(m, KL(4), 4), 0);
	CU_ASSERT_STRING_EQUAL(order_l(m), "1,2,3,4");
	CU_ASSERT_PTR_NULL(stp_map_insert(m, KL(5)));
	/* clear makes room for all of them again */
	stp_map_clear(m);
	CU_ASSERT_EQUAL(stp_map_size(m), 0);
	CU_ASSERT_PTR_NULL(stp_map_first(m));
	CU_ASSERT(!stp_map_exists(m, KL(1)));
	for (i = 10; i < 14; i++)
		CU_ASSERT_EQUAL(stp_map_set_long(m, KL(i), i), 0);
	CU_ASSERT_EQUAL(stp_map_set_long(m, KL(14), 0), -E2BIG);
	CU_ASSERT_STRING_EQUAL(order_l(m), "10,11,12,13");
	stp_map_free(m);
}

/* As SystemTap 4.8 did for "global w%[3]" (checked in the guest). */
static void test_wrap(void)
{
	struct stp_map *m = stp_map_new(3, 1, K_L, STP_LONG, true);
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	for (i = 1; i <= 5; i++)
		CU_ASSERT_EQUAL(stp_map_set_long(m, KL(i), i * 10), 0);
	CU_ASSERT_EQUAL(stp_map_size(m), 3);
	CU_ASSERT_STRING_EQUAL(order_l(m), "3,4,5");
	CU_ASSERT(!stp_map_exists(m, KL(1)));
	CU_ASSERT(!stp_map_exists(m, KL(2)));
	CU_ASSERT_EQUAL(stp_map_get_long(m, KL(5)), 50);
	/* updating an element does not make it newer */
	stp_map_set_long(m, KL(3), 33);
	stp_map_set_long(m, KL(6), 60);
	CU_ASSERT_STRING_EQUAL(order_l(m), "4,5,6");
	/* a reused entry starts from 0 */
	CU_ASSERT_EQUAL(stp_entry_long(m, stp_map_insert(m, KL(7))), 0);
	CU_ASSERT_STRING_EQUAL(order_l(m), "5,6,7");
	/* after a sort, the head of the sorted list is reused (as SystemTap) */
	stp_map_sort(m, 1, -1);
	CU_ASSERT_STRING_EQUAL(order_l(m), "7,6,5");
	stp_map_set_long(m, KL(8), 80);
	CU_ASSERT_STRING_EQUAL(order_l(m), "6,5,8");
	/* deleting then inserting uses the free slot, nothing is evicted */
	stp_map_delete(m, KL(5));
	stp_map_set_long(m, KL(9), 90);
	CU_ASSERT_STRING_EQUAL(order_l(m), "6,8,9");
	stp_map_free(m);
}

/*
 * The orders below are those SystemTap 4.8 printed for the same operations
 * on a global array (foreach with and without sorting, in the guest).
 */
static void test_sort(void)
{
	struct stp_map *m = stp_map_new(20, 1, K_S, STP_LONG, false);
	struct stp_map *ms = stp_map_new(20, 1, K_L, STP_STRING, false);
	static const char *names[] = { "d", "b", "e", "a", "c", "f" };
	static const int64_t vals[] = { 3, 1, 3, 2, 1, -7 };
	char buf[256];
	struct stp_map_entry *e;
	size_t n;
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ms);
	stp_map_sort(m, 0, 1);		/* empty: fine */
	for (i = 0; i < 6; i++)
		stp_map_set_long(m, KS(names[i]), vals[i]);

#define ORDER_S() ({							\
	n = 0; buf[0] = '\0';						\
	for (e = stp_map_first(m); e; e = stp_map_next(m, e))		\
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s=%lld",	\
			      n ? "," : "", stp_entry_key_str(m, e, 0),	\
			      (long long)stp_entry_long(m, e));		\
	buf; })

	CU_ASSERT_STRING_EQUAL(ORDER_S(), "d=3,b=1,e=3,a=2,c=1,f=-7");
	stp_map_sort(m, 0, 0);		/* dir 0: unchanged */
	CU_ASSERT_STRING_EQUAL(ORDER_S(), "d=3,b=1,e=3,a=2,c=1,f=-7");
	/* by value ascending: ties keep insertion order (stable) */
	stp_map_sort(m, 0, 1);
	CU_ASSERT_STRING_EQUAL(ORDER_S(), "f=-7,b=1,c=1,a=2,d=3,e=3");
	/* by key */
	stp_map_sort(m, 1, 1);
	CU_ASSERT_STRING_EQUAL(ORDER_S(), "a=2,b=1,c=1,d=3,e=3,f=-7");
	stp_map_sort(m, 1, -1);
	CU_ASSERT_STRING_EQUAL(ORDER_S(), "f=-7,e=3,d=3,c=1,b=1,a=2");
	/* by value descending: ties keep the current (last sorted) order */
	stp_map_sort(m, 0, -1);
	CU_ASSERT_STRING_EQUAL(ORDER_S(), "e=3,d=3,a=2,c=1,b=1,f=-7");
	/* the sorted order persists for unsorted walks */
	stp_map_sort(m, 0, 0);
	CU_ASSERT_STRING_EQUAL(ORDER_S(), "e=3,d=3,a=2,c=1,b=1,f=-7");
	/* new elements go to the end, delete works on the sorted list */
	stp_map_set_long(m, KS("g"), 0);
	stp_map_delete(m, KS("a"));
	CU_ASSERT_STRING_EQUAL(ORDER_S(), "e=3,d=3,c=1,b=1,f=-7,g=0");
	/* last pointer is right after a sort: appending works */
	stp_map_sort(m, 0, 1);
	stp_map_set_long(m, KS("h"), 100);
	CU_ASSERT_STRING_EQUAL(ORDER_S(), "f=-7,g=0,c=1,b=1,e=3,d=3,h=100");
	/* backwards links are right too: delete the last two, then append */
	stp_map_delete(m, KS("h"));
	stp_map_delete(m, KS("d"));
	stp_map_set_long(m, KS("i"), 1);
	CU_ASSERT_STRING_EQUAL(ORDER_S(), "f=-7,g=0,c=1,b=1,e=3,i=1");
	CU_ASSERT_EQUAL(stp_map_size(m), 6);
#undef ORDER_S

	/* string values, long keys; extremes of int64 */
	stp_map_set_str(ms, KL(INT64_MAX), "b");
	stp_map_set_str(ms, KL(INT64_MIN), "a");
	stp_map_set_str(ms, KL(0), "");
	stp_map_set_str(ms, KL(-1), "b");
	stp_map_sort(ms, 1, 1);
	CU_ASSERT_STRING_EQUAL(order_l(ms), "-9223372036854775808,-1,0,9223372036854775807");
	stp_map_sort(ms, 0, 1);
	CU_ASSERT_STRING_EQUAL(order_l(ms), "0,-9223372036854775808,-1,9223372036854775807");
	stp_map_sort(ms, 0, -1);
	CU_ASSERT_STRING_EQUAL(order_l(ms), "-1,9223372036854775807,-9223372036854775808,0");
	/* bad column: no change */
	stp_map_sort(ms, 2, 1);
	CU_ASSERT_STRING_EQUAL(order_l(ms), "-1,9223372036854775807,-9223372036854775808,0");
	stp_map_free(m);
	stp_map_free(ms);
}

/* Delete every other element while walking (fetch next first). */
static void test_delete_while_walking(void)
{
	struct stp_map *m = stp_map_new(10, 1, K_L, STP_LONG, false);
	struct stp_map_entry *e, *next;
	int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	for (i = 0; i < 10; i++)
		stp_map_set_long(m, KL(i), i);
	for (e = stp_map_first(m); e; e = next) {
		next = stp_map_next(m, e);
		if (stp_entry_key_long(m, e, 0) % 2)
			stp_map_delete_entry(m, e);
	}
	CU_ASSERT_STRING_EQUAL(order_l(m), "0,2,4,6,8");
	CU_ASSERT_EQUAL(stp_map_size(m), 5);
	for (i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(stp_map_exists(m, KL(i)), i % 2 == 0);
	stp_map_free(m);
}

/* ---------- randomized comparison with a naive model ---------- */

#define RMAX 40
struct ref { bool used; int64_t k; char s[8]; int64_t v; long seq; };
static struct ref ref[RMAX * 4];
static long seq;

static uint64_t rng = 88172645463325252ULL;
static uint64_t xrand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static struct ref *ref_find(int64_t k, const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(ref) / sizeof(ref[0]); i++)
		if (ref[i].used && ref[i].k == k && !strcmp(ref[i].s, s))
			return &ref[i];
	return NULL;
}

static int ref_size(void)
{
	size_t i;
	int n = 0;

	for (i = 0; i < sizeof(ref) / sizeof(ref[0]); i++)
		n += ref[i].used;
	return n;
}

static void test_random_vs_model(void)
{
	const enum stp_type kt[2] = { STP_LONG, STP_STRING };
	struct stp_map *m = stp_map_new(RMAX, 2, kt, STP_LONG, false);
	int op, mismatches = 0, sorts = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	for (op = 0; op < 200000; op++) {
		int64_t k = (int64_t)(xrand() % 60) - 30;
		char s[8];
		union stp_key keys[2];
		struct ref *r;
		unsigned int what = xrand() % 100;

		snprintf(s, sizeof(s), "s%d", (int)(xrand() % 3));
		keys[0].n = k;
		keys[1].s = s;
		r = ref_find(k, s);
		if (what < 50) {			/* set */
			int64_t v = (int64_t)(xrand() % 7);
			int rc = stp_map_set_long(m, keys, v);

			if (r) {
				r->v = v;
				mismatches += rc != 0;
			} else if (ref_size() >= RMAX) {
				mismatches += rc != -E2BIG;
			} else {
				size_t i;

				for (i = 0; ref[i].used; i++)
					;
				ref[i] = (struct ref){ true, k, "", v, seq++ };
				strcpy(ref[i].s, s);
				mismatches += rc != 0;
			}
		} else if (what < 80) {			/* delete */
			stp_map_delete(m, keys);
			if (r)
				r->used = false;
		} else if (what < 98) {			/* get */
			mismatches += stp_map_get_long(m, keys) != (r ? r->v : 0);
			mismatches += stp_map_exists(m, keys) != (r != NULL);
		} else if (what < 99) {
			stp_map_clear(m);
			memset(ref, 0, sizeof(ref));
		} else {				/* sort and check */
			int col = xrand() % 3, dir = xrand() % 2 ? 1 : -1;
			struct stp_map_entry *e, *prev = NULL;
			int n = 0;

			stp_map_sort(m, col, dir);
			sorts++;
			for (e = stp_map_first(m); e; prev = e, e = stp_map_next(m, e)) {
				n++;
				if (prev && stp_map_cmp(m, prev, e, col, dir) > 0)
					mismatches++;
				if (e->prev != prev)
					mismatches++;
			}
			mismatches += m->last != prev;
			mismatches += n != ref_size();
		}
		mismatches += stp_map_size(m) != ref_size();
		if (mismatches) {
			fprintf(stderr, "\n  mismatch at op %d", op);
			break;
		}
	}
	CU_ASSERT_EQUAL(mismatches, 0);
	CU_ASSERT(sorts > 100);
	stp_map_free(m);
}

/* Stability: equal values keep insertion order for many elements. */
static void test_sort_stable_large(void)
{
	struct stp_map *m = stp_map_new(1000, 1, K_L, STP_LONG, false);
	struct stp_map_entry *e, *prev = NULL;
	int i, bad = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	for (i = 0; i < 1000; i++)
		stp_map_set_long(m, KL(i), (i * 7919) % 13);
	stp_map_sort(m, 0, -1);
	for (e = stp_map_first(m); e; prev = e, e = stp_map_next(m, e)) {
		if (!prev)
			continue;
		if (stp_entry_long(m, prev) < stp_entry_long(m, e))
			bad++;
		if (stp_entry_long(m, prev) == stp_entry_long(m, e) &&
		    stp_entry_key_long(m, prev, 0) > stp_entry_key_long(m, e, 0))
			bad++;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(stp_entry_long(m, stp_map_first(m)), 12);
	stp_map_free(m);
}

/* Slices: a '*' (bit i of wild) matches any key i; membership, and the
 * delete of every matching element, keeping the others in order. */
static void test_slices(void)
{
	struct stp_map *m = stp_map_new(100, 3, K_SLS, STP_LONG, false);
	struct stp_map_entry *e;
	int n = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT(!stp_map_exists_slice(m, KEYS({ .s = "" }, { .n = 0 }, { .s = "" }), 7));
	stp_map_set_long(m, KEYS({ .s = "a" }, { .n = 1 }, { .s = "x" }), 1);
	stp_map_set_long(m, KEYS({ .s = "a" }, { .n = 2 }, { .s = "y" }), 2);
	stp_map_set_long(m, KEYS({ .s = "b" }, { .n = 1 }, { .s = "x" }), 3);
	stp_map_set_long(m, KEYS({ .s = "b" }, { .n = 2 }, { .s = "x" }), 4);
	CU_ASSERT(stp_map_exists_slice(m, KEYS({ .s = "" }, { .n = 0 }, { .s = "" }), 7));
	CU_ASSERT(stp_map_exists_slice(m, KEYS({ .s = "a" }, { .n = 0 }, { .s = "y" }), 2));
	CU_ASSERT(!stp_map_exists_slice(m, KEYS({ .s = "b" }, { .n = 0 }, { .s = "y" }), 2));
	CU_ASSERT(!stp_map_exists_slice(m, KEYS({ .s = "" }, { .n = 3 }, { .s = "" }), 5));
	/* no '*': the one element, as stp_map_exists */
	CU_ASSERT(stp_map_exists_slice(m, KEYS({ .s = "b" }, { .n = 2 }, { .s = "x" }), 0));
	CU_ASSERT(!stp_map_exists_slice(m, KEYS({ .s = "b" }, { .n = 2 }, { .s = "y" }), 0));
	for (e = stp_map_first(m); e; e = stp_map_next(m, e))
		n += stp_map_entry_matches(m, e, KEYS({ .s = "" }, { .n = 1 }, { .s = "x" }), 5);
	CU_ASSERT_EQUAL(n, 2);

	stp_map_delete_slice(m, KEYS({ .s = "" }, { .n = 0 }, { .s = "x" }), 3);
	CU_ASSERT_EQUAL(stp_map_size(m), 1);
	CU_ASSERT_EQUAL(stp_map_get_long(m, KEYS({ .s = "a" }, { .n = 2 }, { .s = "y" })), 2);
	stp_map_set_long(m, KEYS({ .s = "c" }, { .n = 1 }, { .s = "z" }), 5);
	stp_map_delete_slice(m, KEYS({ .s = "" }, { .n = 0 }, { .s = "" }), 7);
	CU_ASSERT_EQUAL(stp_map_size(m), 0);
	CU_ASSERT_PTR_NULL(stp_map_first(m));
	stp_map_free(m);
}

int main(void)
{
	CU_pSuite s;
	unsigned int failures;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite("map", NULL, NULL);
	CU_add_test(s, "new: bad arguments", test_new_bad_args);
	CU_add_test(s, "long keys and values", test_long_basic);
	CU_add_test(s, "string keys and values", test_string_values_and_keys);
	CU_add_test(s, "string keys by word", test_string_keys_by_word);
	CU_add_test(s, "mixed and nine keys", test_mixed_keys);
	CU_add_test(s, "overflow", test_overflow);
	CU_add_test(s, "wrap", test_wrap);
	CU_add_test(s, "sort", test_sort);
	CU_add_test(s, "delete while walking", test_delete_while_walking);
	CU_add_test(s, "random ops vs model", test_random_vs_model);
	CU_add_test(s, "stable sort, 1000 elements", test_sort_stable_large);
	CU_add_test(s, "slices", test_slices);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failures ? 1 : 0;
}
