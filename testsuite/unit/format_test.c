/*
 * Unit tests of runtime/format.h: SystemTap printf semantics, compared with
 * glibc's snprintf where the two agree and with hand-written expectations
 * where SystemTap differs from C.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <CUnit/Basic.h>

/*
 * Memory reads go through hooks so the tests can make a range of addresses
 * fault: [bad_lo, bad_hi) faults, and the hooks count which one ran.
 */
static uintptr_t bad_lo, bad_hi;
static int kernel_reads, user_reads;

static int test_read(void *dst, uint64_t addr, size_t n, int *counter)
{
	size_t i;

	(*counter)++;
	for (i = 0; i < n; i++)
		if (addr + i >= bad_lo && addr + i < bad_hi)
			return -EFAULT;
	if (addr < 4096)
		return -EFAULT;
	memcpy(dst, (const void *)(uintptr_t)addr, n);
	return 0;
}
#define STP_READ_MEM(dst, addr, n) test_read((dst), (addr), (n), &kernel_reads)
#define STP_READ_USER_MEM(dst, addr, n) test_read((dst), (addr), (n), &user_reads)

#include "format.h"

#define L(x) { .n = (int64_t)(x) }
#define S(x) { .s = (x) }
#define P(x) { .n = (int64_t)(uintptr_t)(x) }

static char out[1 << 16];
static size_t outlen;

/* stp_format into a big buffer; checks that the return matches strlen
 * unless the output holds NUL bytes (callers check outlen then). */
static const char *run(const char *fmt, int nargs, const union stp_val *args)
{
	memset(out, 'Z', sizeof(out));
	outlen = stp_format(out, sizeof(out), fmt, nargs, args);
	return out;
}

#define FMT(fmt, ...) \
	run((fmt), sizeof((union stp_val[]){ __VA_ARGS__ }) / sizeof(union stp_val), \
	    (union stp_val[]){ __VA_ARGS__ })
#define FMT0(fmt) run((fmt), 0, NULL)

#define CHECK_FMT(expect, ...) do {					\
	const char *_got = FMT(__VA_ARGS__);				\
	CU_ASSERT_STRING_EQUAL(_got, (expect));				\
	CU_ASSERT_EQUAL(outlen, strlen(expect));			\
	if (strcmp(_got, (expect)))					\
		fprintf(stderr, "\n  format %s: got '%s' want '%s'\n",	\
			#__VA_ARGS__, _got, (expect));			\
} while (0)

/* ---------- numbers compared with glibc ---------- */

static const int64_t values[] = {
	0, 1, -1, 7, 8, 42, -42, 255, 4096, 123456789, -987654321,
	INT64_MAX, INT64_MIN, (int64_t)0x1234abcdLL, 1000000000000LL,
};

/* Whether SystemTap's printf formats this like C's. */
static bool same_as_c(char flag, int width, int prec, char conv, int64_t v)
{
	bool is_signed = conv == 'd' || conv == 'i';

	if (flag == '#' && (conv == 'x' || conv == 'X' || conv == 'o'))
		return v != 0 && !(conv == 'o' && prec >= 0);	/* 0x0, 00, 0010 */
	if (flag == '0' && prec >= 0)
		return false;	/* stap keeps zero padding with a precision */
	if (prec == 0 && v == 0)
		return false;	/* C prints nothing, stap "0" */
	(void)is_signed;
	(void)width;
	return true;
}

static void test_numbers_vs_glibc(void)
{
	static const char flags[] = { 0, '-', '+', ' ', '#', '0' };
	static const char convs[] = "diuoxX";
	static const int widths[] = { -1, 0, 1, 3, 8, 25 };
	static const int precs[] = { -1, 0, 1, 4, 21 };
	size_t f, c, w, p, v;
	int compared = 0, failed = 0;

	for (f = 0; f < sizeof(flags); f++)
	for (c = 0; c < sizeof(convs) - 1; c++)
	for (w = 0; w < sizeof(widths) / sizeof(widths[0]); w++)
	for (p = 0; p < sizeof(precs) / sizeof(precs[0]); p++)
	for (v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
		char sfmt[32], cfmt[32], spec[16], want[128];
		union stp_val arg = { .n = values[v] };
		int n = 0;

		if (flags[f] == '0' && widths[w] == 0)
			continue;	/* "%00d" would be flag 0, width 0 */
		if (flags[f])
			spec[n++] = flags[f];
		if (widths[w] >= 0)
			n += sprintf(spec + n, "%d", widths[w]);
		if (precs[p] >= 0)
			n += sprintf(spec + n, ".%d", precs[p]);
		spec[n] = '\0';
		if (!same_as_c(flags[f], widths[w], precs[p], convs[c], values[v]))
			continue;
		snprintf(sfmt, sizeof(sfmt), "<%%%s%c>", spec, convs[c]);
		snprintf(cfmt, sizeof(cfmt), "<%%%sll%c>", spec, convs[c]);
		if (convs[c] == 'd' || convs[c] == 'i')
			snprintf(want, sizeof(want), cfmt, (long long)values[v]);
		else
			snprintf(want, sizeof(want), cfmt,
				 (unsigned long long)values[v]);
		run(sfmt, 1, &arg);
		compared++;
		if (strcmp(out, want) || outlen != strlen(want)) {
			if (failed++ < 10)
				fprintf(stderr, "\n  %s of %" PRId64 ": got '%s' want '%s'",
					sfmt, values[v], out, want);
		}
	}
	CU_ASSERT(compared > 5000);
	CU_ASSERT_EQUAL(failed, 0);
}

/* ---------- numbers where SystemTap is not C ---------- */

static void test_numbers_stap_specific(void)
{
	/* '#' prefixes even zero; the octal '0' is not part of the precision */
	CHECK_FMT("0x0", "%#x", L(0));
	CHECK_FMT("0X0", "%#X", L(0));
	CHECK_FMT("00", "%#o", L(0));
	CHECK_FMT("0010", "%#.3o", L(8));
	CHECK_FMT("0x002a", "%#.4x", L(42));
	CHECK_FMT("  0x2a", "%#6x", L(42));
	CHECK_FMT("01 0x2 0X3\n", "%#o %#x %#X\n", L(1), L(2), L(3));
	/* '#' on decimal does nothing */
	CHECK_FMT("42", "%#d", L(42));
	CHECK_FMT("42", "%#u", L(42));
	/* precision 0 still prints the digit of 0 */
	CHECK_FMT("0", "%.0d", L(0));
	CHECK_FMT("0", "%.0x", L(0));
	CHECK_FMT("0", "%.d", L(0));
	/* zero padding survives a precision */
	CHECK_FMT("00000005", "%08.3d", L(5));
	CHECK_FMT("-0000005", "%08.3d", L(-5));
	CHECK_FMT("005", "%0.3d", L(5));
	/* one flag only: the rest is the width, so no zero padding here */
	CHECK_FMT("  +42", "%+05d", L(42));
	CHECK_FMT("42   ", "%-05d", L(42));
	CHECK_FMT("     0x3", "%#08x", L(3));
	CHECK_FMT("   42", "% 05d", L(42));
	CHECK_FMT("00042", "%005d", L(42));
	/* zero padding goes after the sign and the prefix */
	CHECK_FMT("-0042", "%05d", L(-42));
	CHECK_FMT("      0x2a", "%#010x", L(42)); /* '#', then width "010" */
	/* '+' and ' ' only for signed conversions */
	CHECK_FMT("+0", "%+d", L(0));
	CHECK_FMT("+7", "%+i", L(7));
	CHECK_FMT(" 7", "% d", L(7));
	CHECK_FMT("-7", "% d", L(-7));
	CHECK_FMT("7", "%+u", L(7));
	CHECK_FMT("ff", "%+x", L(255));
	CHECK_FMT("377", "% o", L(255));
	/* 64-bit everywhere */
	CHECK_FMT("-9223372036854775808", "%d", L(INT64_MIN));
	CHECK_FMT("9223372036854775807", "%i", L(INT64_MAX));
	CHECK_FMT("18446744073709551615", "%u", L(-1));
	CHECK_FMT("ffffffffffffffff", "%x", L(-1));
	CHECK_FMT("FFFFFFFFFFFFFFFF", "%X", L(-1));
	CHECK_FMT("1777777777777777777777", "%o", L(-1));
	CHECK_FMT("8000000000000000", "%x", L(INT64_MIN));
	/* an 'l' is accepted and ignored */
	CHECK_FMT("-3 fffffffffffffffd", "%ld %lx", L(-3), L(-3));
}

static void test_pointer(void)
{
	CHECK_FMT("0x1234abcd", "%p", L(0x1234abcd));
	CHECK_FMT("0x0", "%p", L(0));
	CHECK_FMT("0xffffffff81000000", "%p", L(0xffffffff81000000ULL));
	CHECK_FMT("        0x1234abcd", "%18p", L(0x1234abcd));
	CHECK_FMT("0x1234abcd        |", "%-18p|", L(0x1234abcd));
	CHECK_FMT("0x00001234abcd", "%014p", L(0x1234abcd));
	CHECK_FMT("0x00001234abcd", "%.12p", L(0x1234abcd));
	CHECK_FMT("0x1234abcd", "%#p", L(0x1234abcd));
	CHECK_FMT("0x1234abcd", "%3p", L(0x1234abcd));
	CHECK_FMT("0xdead", "%lp", L(0xdead));
}

/* The example of stap(1)'s printf section. */
static void test_man_page_examples(void)
{
	CHECK_FMT("a is alice; 1234abcd or 1234ABCD or 0x1234abcd; -1 or 18446744073709551615\n",
		  "%c is %s; %x or %X or %p; %d or %u\n", L(97), S("alice"),
		  L(0x1234abcd), L(0x1234abcd), L(0x1234abcd), L(-1), L(-1));
	CHECK_FMT("\\000 \\t *\n", "%#c %#c %#c\n", L(0), L(9), L(42));
}

/* ---------- strings ---------- */

static void test_strings_vs_glibc(void)
{
	static const char *strs[] = { "", "a", "alice", "a longer string here" };
	static const char flags[] = { 0, '-' };
	static const int widths[] = { -1, 1, 5, 30 };
	static const int precs[] = { -1, 0, 1, 3, 100 };
	size_t s, f, w, p;
	int failed = 0;

	for (s = 0; s < 4; s++)
	for (f = 0; f < sizeof(flags); f++)
	for (w = 0; w < 4; w++)
	for (p = 0; p < 5; p++) {
		char fmt[32], want[128];
		union stp_val arg = { .s = strs[s] };
		int n = 0;

		fmt[n++] = '[';
		fmt[n++] = '%';
		if (flags[f])
			fmt[n++] = flags[f];
		if (widths[w] >= 0)
			n += sprintf(fmt + n, "%d", widths[w]);
		if (precs[p] >= 0)
			n += sprintf(fmt + n, ".%d", precs[p]);
		strcpy(fmt + n, "s]");
		snprintf(want, sizeof(want), fmt, strs[s]);
		run(fmt, 1, &arg);
		if (strcmp(out, want) || outlen != strlen(want))
			if (failed++ < 10)
				fprintf(stderr, "\n  %s of '%s': got '%s' want '%s'",
					fmt, strs[s], out, want);
	}
	CU_ASSERT_EQUAL(failed, 0);
}

static void test_strings_stap_specific(void)
{
	CHECK_FMT("al", "%.2s", S("alice"));
	CHECK_FMT("", "%.0s", S("alice"));
	CHECK_FMT("alice", "%.s", S("alice"));		/* '.' alone: no precision */
	CHECK_FMT("ali", "%.*s", L(3), S("alice"));
	CHECK_FMT("", "%.*s", L(-1), S("alice"));	/* negative counts as 0 */
	CHECK_FMT("  ali", "%*.*s", L(5), L(3), S("alice"));
	CHECK_FMT("alice", "%*s", L(-8), S("alice"));	/* no left-justify */
	CHECK_FMT("<NULL>", "%s", S(NULL));
	CHECK_FMT("alice", "%#s", S("alice"));
	CHECK_FMT("alice", "%+s", S("alice"));
	CHECK_FMT("alice", "% s", S("alice"));
	CHECK_FMT("a\"b%c", "%s", S("a\"b%c"));	/* no interpretation of args */

	/* "%0s": padded with spaces, then a NUL byte */
	FMT("%05s|", S("ab"));
	CU_ASSERT_EQUAL(outlen, 7);
	CU_ASSERT(memcmp(out, "   ab\0|", 8) == 0);
	FMT("%0s", S("ab"));
	CU_ASSERT_EQUAL(outlen, 3);
	CU_ASSERT(memcmp(out, "ab\0\0", 4) == 0);
}

/* ---------- characters ---------- */

static void test_chars(void)
{
	char want[32];

	CHECK_FMT("a", "%c", L('a'));
	CHECK_FMT("    a", "%5c", L('a'));
	CHECK_FMT("a    |", "%-5c|", L('a'));
	CHECK_FMT("    a", "%05c", L('a'));	/* '0' does not zero-pad %c */
	CHECK_FMT("A", "%c", L(0x141));		/* low byte only */
	snprintf(want, sizeof(want), "%c%c", 0xe9, 0x7f);
	CHECK_FMT(want, "%c%c", L(0xe9), L(0x7f));

	/* '#': C escapes, else three octal digits */
	CHECK_FMT("\\a\\b\\f\\n\\r\\t\\v", "%#c%#c%#c%#c%#c%#c%#c",
		  L('\a'), L('\b'), L('\f'), L('\n'), L('\r'), L('\t'), L('\v'));
	CHECK_FMT("\\'\\\\\"", "%#c%#c%#c", L('\''), L('\\'), L('"'));
	CHECK_FMT("\\001\\033\\177\\200\\377", "%#c%#c%#c%#c%#c",
		  L(1), L(27), L(127), L(128), L(255));
	CHECK_FMT("x ~", "%#c%#c%#c", L('x'), L(' '), L('~'));
	CHECK_FMT("   \\n", "%#5c", L('\n'));
	CHECK_FMT(" \\000|", "%#5c|", L(0));	/* '#' is the one flag: no '-' */

	/* "%c" of 0 writes a NUL byte */
	FMT("[%c]", L(0));
	CU_ASSERT_EQUAL(outlen, 3);
	CU_ASSERT(memcmp(out, "[\0]", 4) == 0);
}

/* ---------- %b ---------- */

static void check_bytes(const char *fmt, int nargs, const union stp_val *args,
			const void *want, size_t n)
{
	run(fmt, nargs, args);
	CU_ASSERT_EQUAL(outlen, n);
	CU_ASSERT(memcmp(out, want, n) == 0);
	if (outlen != n || memcmp(out, want, n))
		fprintf(stderr, "\n  %s: got %zu bytes", fmt, outlen);
}

static void test_binary(void)
{
	union stp_val v = { .n = 0x1122334455667788LL };
	union stp_val two[2] = { { .n = 4 }, { .n = 0x1122334455667788LL } };
	const uint64_t n8 = 0x1122334455667788ULL;
	const uint32_t n4 = 0x55667788;
	const uint16_t n2 = 0x7788;
	unsigned char want[16];

	check_bytes("%b", 1, &v, &n8, 8);
	check_bytes("%8b", 1, &v, &n8, 8);
	check_bytes("%4b", 1, &v, &n4, 4);
	check_bytes("%2b", 1, &v, &n2, 2);
	check_bytes("%1b", 1, &v, "\x88", 1);
	check_bytes("%.4b", 1, &v, &n4, 4);
	check_bytes("%.3b", 1, &v, &n8, 8);	/* invalid size: default 8 */
	check_bytes("%3b", 1, &v, &n8, 8);	/* width < size: no padding */
	check_bytes("%*b", 2, two, &n4, 4);	/* '*' width selects the size */

	/* width > size: NUL padding before, or after with '-' */
	memset(want, 0, sizeof(want));
	memcpy(want + 3, &n2, 2);
	check_bytes("%5.2b", 1, &v, want, 5);
	memset(want, 0, sizeof(want));
	memcpy(want, &n2, 2);
	check_bytes("%-5.2b", 1, &v, want, 5);
	memset(want, 0, sizeof(want));
	memcpy(want + 2, &n8, 8);
	check_bytes("%10b", 1, &v, want, 10);

	/* the man page example: %4b of 0x1234abcd, native order */
	{
		union stp_val p = { .n = 0x1234abcd };
		uint32_t w = 0x1234abcd;

		check_bytes("%4b", 1, &p, &w, 4);
	}
	/* text around binary output */
	{
		union stp_val c = { .n = 'A' };

		check_bytes("<%1b>", 1, &c, "<A>", 3);
	}
}

/* ---------- %m / %M ---------- */

static void test_memory(void)
{
	static const char mem[] = "abcdefghij";
	struct stp_fmt_fault fault;
	union stp_val a[3];
	char buf[64];
	size_t n;

	kernel_reads = user_reads = 0;
	CHECK_FMT("a", "%m", P(mem));			/* default 1 byte */
	CHECK_FMT("a", "%.0m", P(mem));			/* .0 is 1 byte too */
	CHECK_FMT("abcd", "%.4m", P(mem));
	CHECK_FMT("   ab", "%5.2m", P(mem));
	CHECK_FMT("ab   |", "%-5.2m|", P(mem));
	CHECK_FMT("abc", "%.*m", L(3), P(mem));
	CHECK_FMT("  a", "%3m", P(mem));
	CU_ASSERT(kernel_reads > 0);
	CU_ASSERT_EQUAL(user_reads, 0);

	CHECK_FMT("61", "%M", P(mem));
	CHECK_FMT("616263", "%.3M", P(mem));
	CHECK_FMT("  61626364", "%10.4M", P(mem));
	CHECK_FMT("6162    |", "%-8.2M|", P(mem));
	CHECK_FMT("6162636465666768696a", "%.*M", L(10), P(mem));

	/* '#': user memory */
	kernel_reads = 0;
	CHECK_FMT("abc", "%#.3m", P(mem));
	CHECK_FMT("616263", "%#.3M", P(mem));
	CU_ASSERT(user_reads >= 2);
	CU_ASSERT_EQUAL(kernel_reads, 0);

	/* more than one read chunk */
	{
		static char big[200];
		char want[401];
		int i;

		for (i = 0; i < 200; i++) {
			big[i] = (char)i;
			sprintf(want + 2 * i, "%02x", i);
		}
		a[0].n = (int64_t)(uintptr_t)big;
		run("%.200M", 1, a);
		CU_ASSERT_EQUAL(outlen, 400);
		CU_ASSERT_STRING_EQUAL(out, want);
		run("%.200m", 1, a);
		CU_ASSERT_EQUAL(outlen, 200);
		CU_ASSERT(memcmp(out, big, 200) == 0);
	}

	/* "%0m": a NUL byte after the field */
	FMT("%03.2m", P(mem));
	CU_ASSERT_EQUAL(outlen, 4);
	CU_ASSERT(memcmp(out, " ab\0", 5) == 0);

	/* a fault drops the output and says where */
	a[0].n = 1;
	strcpy(buf, "junk");
	n = stp_format_ex(buf, sizeof(buf), "before %m after", 1, a, &fault);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_STRING_EQUAL(buf, "");
	CU_ASSERT(fault.faulted);
	CU_ASSERT_EQUAL(fault.addr, 1);

	/* the first bad byte is reported, inside a chunk */
	bad_lo = (uintptr_t)mem + 5;
	bad_hi = bad_lo + 1;
	a[0].n = (int64_t)(uintptr_t)mem;
	n = stp_format_ex(buf, sizeof(buf), "%.8M", 1, a, &fault);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT(fault.faulted);
	CU_ASSERT_EQUAL(fault.addr, (uint64_t)(uintptr_t)mem + 5);
	n = stp_format_ex(buf, sizeof(buf), "%.5m|", 1, a, &fault);
	CU_ASSERT_EQUAL(n, 6);
	CU_ASSERT_STRING_EQUAL(buf, "abcde|");
	CU_ASSERT(!fault.faulted);
	bad_lo = bad_hi = 0;

	/* stp_format (no fault report) drops the output too */
	a[0].n = 2;
	n = stp_format(buf, sizeof(buf), "x%my", 1, a);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_STRING_EQUAL(buf, "");

	/* bytes that do not fit are counted, not read: no fault reported */
	a[0].n = (int64_t)(uintptr_t)mem;
	n = stp_format_ex(buf, 4, "%.10m", 1, a, &fault);
	CU_ASSERT_EQUAL(n, 10);
	CU_ASSERT_STRING_EQUAL(buf, "abc");
	n = stp_format_ex(buf, 4, "%.10M", 1, a, &fault);
	CU_ASSERT_EQUAL(n, 20);
	CU_ASSERT_STRING_EQUAL(buf, "616");
}

/* ---------- '*', %%, literals, bad conversions ---------- */

static void test_misc(void)
{
	CHECK_FMT("    0042", "%*.*d", L(8), L(4), L(42));
	CHECK_FMT("42   |", "%-*d|", L(5), L(42));
	CHECK_FMT("42", "%*d", L(-5), L(42));		/* negative width is 0 */
	CHECK_FMT("42", "%.*d", L(-5), L(42));
	CHECK_FMT("   42", "%*d", L(0x100000005LL), L(42));	/* cut to int */
	CHECK_FMT("%", "%%");
	CHECK_FMT("100%", "100%");	/* a trailing lone '%' (invalid) */
	CHECK_FMT("a%b", "a%%b");
	CHECK_FMT("50% 7", "50%% %d", L(7));
	CHECK_FMT("", "");
	CHECK_FMT("plain text\n", "plain text\n");
	/* invalid conversions are copied (the translator refuses them) */
	CHECK_FMT("%q 5", "%q %d", L(5));
	CHECK_FMT("%-+5d", "%-+5d", L(5));
	CHECK_FMT("%lld", "%lld", L(5));
	CHECK_FMT("%hd", "%hd", L(5));
	CHECK_FMT("%5", "%5");
	/* missing arguments read as 0 / NULL */
	CHECK_FMT("0 <NULL>", "%d %s");
	/* many conversions in a row */
	CHECK_FMT("1,2,3,4,5,6,7,8,9,10", "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d",
		  L(1), L(2), L(3), L(4), L(5), L(6), L(7), L(8), L(9), L(10));
}

/* ---------- snprintf-style truncation ---------- */

static void test_truncation(void)
{
	union stp_val a[2] = { { .s = "world" }, { .n = 12345 } };
	char buf[16];
	size_t n;

	memset(buf, 'X', sizeof(buf));
	n = stp_format(buf, 5, "hello %s %d", 2, a);
	CU_ASSERT_EQUAL(n, 17);
	CU_ASSERT_STRING_EQUAL(buf, "hell");
	CU_ASSERT_EQUAL(buf[5], 'X');

	memset(buf, 'X', sizeof(buf));
	n = stp_format(buf, 1, "hello", 0, NULL);
	CU_ASSERT_EQUAL(n, 5);
	CU_ASSERT_EQUAL(buf[0], '\0');
	CU_ASSERT_EQUAL(buf[1], 'X');

	memset(buf, 'X', sizeof(buf));
	n = stp_format(buf, 0, "hello %d", 2, a + 1);
	CU_ASSERT_EQUAL(n, 11);
	CU_ASSERT_EQUAL(buf[0], 'X');
	CU_ASSERT_EQUAL(stp_format(NULL, 0, "%s!", 1, a), 6);

	/* cut inside a number, padding, a prefix */
	n = stp_format(buf, 8, "%20d", 1, a + 1);
	CU_ASSERT_EQUAL(n, 20);
	CU_ASSERT_STRING_EQUAL(buf, "       ");
	n = stp_format(buf, 4, "%#x", 1, a + 1);
	CU_ASSERT_EQUAL(n, 6);
	CU_ASSERT_STRING_EQUAL(buf, "0x3");
	n = stp_format(buf, 4, "%-10s|", 1, a);
	CU_ASSERT_EQUAL(n, 11);
	CU_ASSERT_STRING_EQUAL(buf, "wor");

	/* exact fit */
	n = stp_format(buf, 6, "%s", 1, a);
	CU_ASSERT_EQUAL(n, 5);
	CU_ASSERT_STRING_EQUAL(buf, "world");
	n = stp_format(buf, 5, "%s", 1, a);
	CU_ASSERT_EQUAL(n, 5);
	CU_ASSERT_STRING_EQUAL(buf, "worl");

	/* a huge width is counted, not written */
	n = stp_format(buf, sizeof(buf), "%1000000000d", 1, a + 1);
	CU_ASSERT_EQUAL(n, 1000000000);
	CU_ASSERT_EQUAL(strlen(buf), sizeof(buf) - 1);
	n = stp_format(buf, sizeof(buf), "%*s", 2,
		       (union stp_val[]){ { .n = 300000000 }, { .s = "x" } });
	CU_ASSERT_EQUAL(n, 300000000);
}

/* ---------- the parser the translator uses ---------- */

static void test_parse_spec(void)
{
	struct stp_fmt_spec sp;

	CU_ASSERT_EQUAL(stp_format_parse_spec("d rest", &sp), 1);
	CU_ASSERT_EQUAL(sp.conv, 'd');
	CU_ASSERT_EQUAL(sp.flags, STP_FMT_SIGN);
	CU_ASSERT_EQUAL(sp.width, -1);
	CU_ASSERT_EQUAL(sp.prec, -1);
	CU_ASSERT_EQUAL(sp.len, 1);
	CU_ASSERT_EQUAL(stp_fmt_spec_nargs(&sp), 1);
	CU_ASSERT(!stp_fmt_spec_takes_string(&sp));

	CU_ASSERT_EQUAL(stp_format_parse_spec("08.3lx", &sp), 6);
	CU_ASSERT_EQUAL(sp.conv, 'x');
	CU_ASSERT_EQUAL(sp.flags, STP_FMT_ZEROPAD);
	CU_ASSERT_EQUAL(sp.width, 8);
	CU_ASSERT_EQUAL(sp.prec, 3);
	CU_ASSERT_EQUAL(sp.len, 6);

	CU_ASSERT_EQUAL(stp_format_parse_spec("-*.*s", &sp), 5);
	CU_ASSERT_EQUAL(sp.conv, 's');
	CU_ASSERT_EQUAL(sp.flags, STP_FMT_LEFT);
	CU_ASSERT(sp.width_star);
	CU_ASSERT(sp.prec_star);
	CU_ASSERT_EQUAL(stp_fmt_spec_nargs(&sp), 3);
	CU_ASSERT(stp_fmt_spec_takes_string(&sp));

	CU_ASSERT_EQUAL(stp_format_parse_spec("p", &sp), 1);
	CU_ASSERT_EQUAL(sp.flags, STP_FMT_SPECIAL);
	CU_ASSERT_EQUAL(stp_format_parse_spec("X", &sp), 1);
	CU_ASSERT_EQUAL(sp.flags, STP_FMT_LARGE);
	CU_ASSERT_EQUAL(stp_format_parse_spec("#.0M", &sp), 4);
	CU_ASSERT_EQUAL(sp.flags, STP_FMT_SPECIAL);
	CU_ASSERT_EQUAL(sp.prec, 0);
	CU_ASSERT_EQUAL(stp_format_parse_spec(".d", &sp), 2);
	CU_ASSERT_EQUAL(sp.prec, -1);
	CU_ASSERT_EQUAL(stp_format_parse_spec(" i", &sp), 2);
	CU_ASSERT_EQUAL(sp.flags, STP_FMT_SPACE | STP_FMT_SIGN);
	CU_ASSERT_EQUAL(stp_format_parse_spec("+u", &sp), 2);
	CU_ASSERT_EQUAL(sp.flags, STP_FMT_PLUS);
	CU_ASSERT_EQUAL(stp_format_parse_spec("99999999999999b", &sp), 15);
	CU_ASSERT_EQUAL(sp.width, STP_FMT_MAX_FIELD);

	/* every valid conversion */
	{
		const char *c;

		for (c = "bcsmMdiuoxXp"; *c; c++) {
			char s[2] = { *c, 0 };

			CU_ASSERT_EQUAL(stp_format_parse_spec(s, &sp), 1);
			CU_ASSERT_EQUAL(sp.conv, *c);
		}
	}

	/* "%%", and a lone trailing '%' (invalid, not incomplete) */
	CU_ASSERT_EQUAL(stp_format_parse_spec("%d", &sp), 1);
	CU_ASSERT_EQUAL(sp.conv, '%');
	CU_ASSERT_EQUAL(stp_fmt_spec_nargs(&sp), 0);
	CU_ASSERT_EQUAL(stp_format_parse_spec("", &sp), -1);	/* "100%" */
	CU_ASSERT_EQUAL(sp.conv, '%');

	/* invalid: conv says which byte, '\0' for a truncated conversion */
	CU_ASSERT_EQUAL(stp_format_parse_spec("-+5d", &sp), -1);
	CU_ASSERT_EQUAL(sp.conv, '+');
	CU_ASSERT_EQUAL(stp_format_parse_spec("lld", &sp), -1);
	CU_ASSERT_EQUAL(sp.conv, 'l');
	CU_ASSERT_EQUAL(stp_format_parse_spec("hd", &sp), -1);
	CU_ASSERT_EQUAL(sp.conv, 'h');
	CU_ASSERT_EQUAL(stp_format_parse_spec("f", &sp), -1);
	CU_ASSERT_EQUAL(sp.conv, 'f');
	CU_ASSERT_EQUAL(stp_format_parse_spec("n", &sp), -1);
	CU_ASSERT_EQUAL(stp_format_parse_spec("-%", &sp), -1);
	CU_ASSERT_EQUAL(sp.conv, '%');
	CU_ASSERT_EQUAL(stp_format_parse_spec("5", &sp), -1);
	CU_ASSERT_EQUAL(sp.conv, '\0');
	CU_ASSERT_EQUAL(stp_format_parse_spec("-", &sp), -1);
	CU_ASSERT_EQUAL(sp.conv, '\0');
	CU_ASSERT_EQUAL(stp_format_parse_spec("5.*l", &sp), -1);
	CU_ASSERT_EQUAL(sp.conv, '\0');
}

int main(void)
{
	CU_pSuite s;
	unsigned int failures;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite("format", NULL, NULL);
	CU_add_test(s, "numbers vs glibc", test_numbers_vs_glibc);
	CU_add_test(s, "numbers, stap specific", test_numbers_stap_specific);
	CU_add_test(s, "pointer", test_pointer);
	CU_add_test(s, "man page examples", test_man_page_examples);
	CU_add_test(s, "strings vs glibc", test_strings_vs_glibc);
	CU_add_test(s, "strings, stap specific", test_strings_stap_specific);
	CU_add_test(s, "chars", test_chars);
	CU_add_test(s, "binary", test_binary);
	CU_add_test(s, "memory", test_memory);
	CU_add_test(s, "misc", test_misc);
	CU_add_test(s, "truncation", test_truncation);
	CU_add_test(s, "parse spec", test_parse_spec);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failures ? 1 : 0;
}
