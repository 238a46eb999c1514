/*
 * Unit tests of runtime/strings.h: bounded copy/concatenation at
 * MAXSTRINGLEN, integer conversions, and that the system <strings.h> stays
 * usable with runtime/ on the include path.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>	/* the system one, through runtime/strings.h */
#include <CUnit/Basic.h>

#include "strings.h"

static char big[MAXSTRINGLEN * 2];

static void fill(char *s, char c, size_t n)
{
	memset(s, c, n);
	s[n] = '\0';
}

static void test_strlcpy(void)
{
	char dst[MAXSTRINGLEN + 16];

	memset(dst, 'X', sizeof(dst));
	CU_ASSERT_EQUAL(stp_strlcpy(dst, "hello"), 5);
	CU_ASSERT_STRING_EQUAL(dst, "hello");
	CU_ASSERT_EQUAL(stp_strlcpy(dst, ""), 0);
	CU_ASSERT_STRING_EQUAL(dst, "");
	CU_ASSERT_EQUAL(stp_strlcpy(dst, NULL), 0);
	CU_ASSERT_STRING_EQUAL(dst, "");

	/* exactly MAXSTRINGLEN - 1 fits, more is cut */
	fill(big, 'a', MAXSTRINGLEN - 1);
	CU_ASSERT_EQUAL(stp_strlcpy(dst, big), MAXSTRINGLEN - 1);
	CU_ASSERT_STRING_EQUAL(dst, big);
	fill(big, 'b', sizeof(big) - 1);
	memset(dst, 'X', sizeof(dst));
	CU_ASSERT_EQUAL(stp_strlcpy(dst, big), MAXSTRINGLEN - 1);
	CU_ASSERT_EQUAL(strlen(dst), MAXSTRINGLEN - 1);
	CU_ASSERT_EQUAL(dst[MAXSTRINGLEN - 1], '\0');
	CU_ASSERT_EQUAL(dst[MAXSTRINGLEN], 'X');	/* nothing past the buffer */

	/* explicit sizes */
	memset(dst, 'X', sizeof(dst));
	CU_ASSERT_EQUAL(stp_strlcpy_sz(dst, "hello", 0), 0);
	CU_ASSERT_EQUAL(dst[0], 'X');
	CU_ASSERT_EQUAL(stp_strlcpy_sz(dst, "hello", 1), 0);
	CU_ASSERT_STRING_EQUAL(dst, "");
	CU_ASSERT_EQUAL(stp_strlcpy_sz(dst, "hello", 3), 2);
	CU_ASSERT_STRING_EQUAL(dst, "he");
	CU_ASSERT_EQUAL(dst[3], 'X');
	CU_ASSERT_EQUAL(stp_strlcpy_sz(dst, "hello", 6), 5);
	CU_ASSERT_STRING_EQUAL(dst, "hello");
}

static void test_strlcat(void)
{
	char dst[MAXSTRINGLEN + 16];

	stp_strlcpy(dst, "foo");
	CU_ASSERT_EQUAL(stp_strlcat(dst, "bar"), 6);
	CU_ASSERT_STRING_EQUAL(dst, "foobar");
	CU_ASSERT_EQUAL(stp_strlcat(dst, ""), 6);
	CU_ASSERT_EQUAL(stp_strlcat(dst, NULL), 6);
	CU_ASSERT_STRING_EQUAL(dst, "foobar");

	/* concatenation is cut at MAXSTRINGLEN - 1 */
	memset(dst, 'X', sizeof(dst));
	fill(big, 'a', MAXSTRINGLEN - 3);
	stp_strlcpy(dst, big);
	CU_ASSERT_EQUAL(stp_strlcat(dst, "bcdef"), MAXSTRINGLEN - 1);
	CU_ASSERT_EQUAL(strlen(dst), MAXSTRINGLEN - 1);
	CU_ASSERT_EQUAL(dst[MAXSTRINGLEN - 3], 'b');
	CU_ASSERT_EQUAL(dst[MAXSTRINGLEN - 2], 'c');
	CU_ASSERT_EQUAL(dst[MAXSTRINGLEN], 'X');
	/* appending to a full string changes nothing */
	CU_ASSERT_EQUAL(stp_strlcat(dst, "zzz"), MAXSTRINGLEN - 1);
	CU_ASSERT_EQUAL(dst[MAXSTRINGLEN - 2], 'c');

	/* explicit sizes, and an unterminated destination */
	memset(dst, 'X', sizeof(dst));
	dst[0] = 'a';
	dst[1] = '\0';
	CU_ASSERT_EQUAL(stp_strlcat_sz(dst, "bcd", 3), 2);
	CU_ASSERT_STRING_EQUAL(dst, "ab");
	memset(dst, 'X', sizeof(dst));
	CU_ASSERT_EQUAL(stp_strlcat_sz(dst, "bcd", 4), 4);
	CU_ASSERT_EQUAL(dst[4], 'X');
}

static void test_ltoa(void)
{
	static const int64_t v[] = { 0, 1, -1, 9, 10, -10, 1234567890123LL,
				     INT64_MAX, INT64_MIN, INT64_MIN + 1 };
	char dst[MAXSTRINGLEN], want[32];
	size_t i;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		snprintf(want, sizeof(want), "%" PRId64, v[i]);
		CU_ASSERT_EQUAL(stp_ltoa(dst, v[i]), strlen(want));
		CU_ASSERT_STRING_EQUAL(dst, want);
	}
}

static void test_utoa_rev(void)
{
	char tmp[24];
	int n;

	n = stp_utoa_rev(tmp, 0, 10, false);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(tmp[0], '0');
	n = stp_utoa_rev(tmp, 0xabcdefULL, 16, false);
	CU_ASSERT_EQUAL(n, 6);
	CU_ASSERT(memcmp(tmp, "fedcba", 6) == 0);
	n = stp_utoa_rev(tmp, 0xabcdefULL, 16, true);
	CU_ASSERT(memcmp(tmp, "FEDCBA", 6) == 0);
	n = stp_utoa_rev(tmp, UINT64_MAX, 8, false);
	CU_ASSERT_EQUAL(n, 22);
	CU_ASSERT_EQUAL(tmp[21], '1');
	n = stp_utoa_rev(tmp, UINT64_MAX, 10, false);
	CU_ASSERT_EQUAL(n, 20);
	CU_ASSERT(memcmp(tmp, "51615590737044764481", 20) == 0);
}

/* runtime/strings.h hands libc's own <strings.h> through. */
static void test_system_strings_h(void)
{
	CU_ASSERT_EQUAL(strcasecmp("HeLLo", "hello"), 0);
	CU_ASSERT_EQUAL(strncasecmp("ABCx", "abcy", 3), 0);
	CU_ASSERT_EQUAL(ffs(8), 4);
}

int main(void)
{
	CU_pSuite s;
	unsigned int failures;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite("strings", NULL, NULL);
	CU_add_test(s, "strlcpy", test_strlcpy);
	CU_add_test(s, "strlcat", test_strlcat);
	CU_add_test(s, "ltoa", test_ltoa);
	CU_add_test(s, "utoa_rev", test_utoa_rev);
	CU_add_test(s, "system strings.h", test_system_strings_h);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failures ? 1 : 0;
}
