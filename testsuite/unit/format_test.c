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

/* ---------- outputs of SystemTap 4.8 itself ---------- */

/*
 * printf outputs recorded from real SystemTap 4.8 modules run in the guest
 * (4479 format/argument cases were compared byte for byte, all numbers
 * included; this is every non-number case and a sample of the numbers).
 * Left out: "%1.3b" and "%-1.3b", where stap 4.8 writes 2 bytes and loses
 * the next character (its precision is clamped to the space reserved for
 * the rest of the output, a stap bug); cstap writes the 1 byte.
 */
struct oracle_case {
	const char *fmt;
	int nargs;
	union stp_val args[9];
	const char *want;
	size_t wantlen;
};

static const struct oracle_case oracle[] = {
	{ "<%d>", 1, { L(0LL) }, "<0>", 3 },
	{ "<%o>", 1, { L(305441741LL) }, "<2215125715>", 12 },
	{ "<%.d>", 1, { L(INT64_MIN) }, "<-9223372036854775808>", 22 },
	{ "<%.p>", 1, { L(0LL) }, "<0x0>", 5 },
	{ "<%.0u>", 1, { L(305441741LL) }, "<305441741>", 11 },
	{ "<%.3d>", 1, { L(-42LL) }, "<-042>", 6 },
	{ "<%.3X>", 1, { L(0LL) }, "<000>", 5 },
	{ "<%.12i>", 1, { L(305441741LL) }, "<000305441741>", 14 },
	{ "<%1d>", 1, { L(1LL) }, "<1>", 3 },
	{ "<%1x>", 1, { L(0LL) }, "<0>", 3 },
	{ "<%1.d>", 1, { L(9223372036854775807LL) }, "<9223372036854775807>", 21 },
	{ "<%1.p>", 1, { L(-42LL) }, "<0xffffffffffffffd6>", 20 },
	{ "<%1.0o>", 1, { L(0LL) }, "<0>", 3 },
	{ "<%1.3d>", 1, { L(255LL) }, "<255>", 5 },
	{ "<%1.3X>", 1, { L(-42LL) }, "<FFFFFFFFFFFFFFD6>", 18 },
	{ "<%1.12u>", 1, { L(0LL) }, "<000000000000>", 14 },
	{ "<%6d>", 1, { L(-1LL) }, "<    -1>", 8 },
	{ "<%6x>", 1, { L(-42LL) }, "<ffffffffffffffd6>", 18 },
	{ "<%6.i>", 1, { L(0LL) }, "<     0>", 8 },
	{ "<%6.p>", 1, { L(305441741LL) }, "<0x1234abcd>", 12 },
	{ "<%6.0o>", 1, { L(-42LL) }, "<1777777777777777777726>", 24 },
	{ "<%6.3d>", 1, { L(305441741LL) }, "<305441741>", 11 },
	{ "<%6.3X>", 1, { L(305441741LL) }, "<1234ABCD>", 10 },
	{ "<%6.12u>", 1, { L(-42LL) }, "<18446744073709551574>", 22 },
	{ "<%08d>", 1, { L(42LL) }, "<00000042>", 10 },
	{ "<%08x>", 1, { L(305441741LL) }, "<1234abcd>", 10 },
	{ "<%08.i>", 1, { L(-42LL) }, "<-0000042>", 10 },
	{ "<%08.0d>", 1, { L(0LL) }, "<00000000>", 10 },
	{ "<%08.0o>", 1, { L(305441741LL) }, "<2215125715>", 12 },
	{ "<%08.3d>", 1, { L(INT64_MIN) }, "<-9223372036854775808>", 22 },
	{ "<%08.3p>", 1, { L(0LL) }, "<0x000000>", 10 },
	{ "<%08.12u>", 1, { L(305441741LL) }, "<000305441741>", 14 },
	{ "<%20d>", 1, { L(-42LL) }, "<                 -42>", 22 },
	{ "<%20X>", 1, { L(0LL) }, "<                   0>", 22 },
	{ "<%20.i>", 1, { L(305441741LL) }, "<           305441741>", 22 },
	{ "<%20.0d>", 1, { L(1LL) }, "<                   1>", 22 },
	{ "<%20.0x>", 1, { L(0LL) }, "<                   0>", 22 },
	{ "<%20.3d>", 1, { L(9223372036854775807LL) }, "< 9223372036854775807>", 22 },
	{ "<%20.3p>", 1, { L(-42LL) }, "<  0xffffffffffffffd6>", 22 },
	{ "<%20.12o>", 1, { L(0LL) }, "<        000000000000>", 22 },
	{ "<%-d>", 1, { L(255LL) }, "<255>", 5 },
	{ "<%-X>", 1, { L(-42LL) }, "<FFFFFFFFFFFFFFD6>", 18 },
	{ "<%-.u>", 1, { L(0LL) }, "<0>", 3 },
	{ "<%-.0d>", 1, { L(-1LL) }, "<-1>", 4 },
	{ "<%-.0x>", 1, { L(-42LL) }, "<ffffffffffffffd6>", 18 },
	{ "<%-.3i>", 1, { L(0LL) }, "<000>", 5 },
	{ "<%-.3p>", 1, { L(305441741LL) }, "<0x1234abcd>", 12 },
	{ "<%-.12o>", 1, { L(-42LL) }, "<1777777777777777777726>", 24 },
	{ "<%-1d>", 1, { L(305441741LL) }, "<305441741>", 11 },
	{ "<%-1X>", 1, { L(305441741LL) }, "<1234ABCD>", 10 },
	{ "<%-1.u>", 1, { L(-42LL) }, "<18446744073709551574>", 22 },
	{ "<%-1.0d>", 1, { L(42LL) }, "<42>", 4 },
	{ "<%-1.0x>", 1, { L(305441741LL) }, "<1234abcd>", 10 },
	{ "<%-1.3i>", 1, { L(-42LL) }, "<-042>", 6 },
	{ "<%-1.12d>", 1, { L(0LL) }, "<000000000000>", 14 },
	{ "<%-1.12o>", 1, { L(305441741LL) }, "<002215125715>", 14 },
	{ "<%-6d>", 1, { L(INT64_MIN) }, "<-9223372036854775808>", 22 },
	{ "<%-6p>", 1, { L(0LL) }, "<0x0   >", 8 },
	{ "<%-6.u>", 1, { L(305441741LL) }, "<305441741>", 11 },
	{ "<%-6.0d>", 1, { L(-42LL) }, "<-42   >", 8 },
	{ "<%-6.0X>", 1, { L(0LL) }, "<0     >", 8 },
	{ "<%-6.3i>", 1, { L(305441741LL) }, "<305441741>", 11 },
	{ "<%-6.12d>", 1, { L(1LL) }, "<000000000001>", 14 },
	{ "<%-6.12x>", 1, { L(0LL) }, "<000000000000>", 14 },
	{ "<%-08d>", 1, { L(9223372036854775807LL) }, "<9223372036854775807>", 21 },
	{ "<%-08p>", 1, { L(-42LL) }, "<0xffffffffffffffd6>", 20 },
	{ "<%-08.o>", 1, { L(0LL) }, "<0       >", 10 },
	{ "<%-08.0d>", 1, { L(255LL) }, "<255     >", 10 },
	{ "<%-08.0X>", 1, { L(-42LL) }, "<FFFFFFFFFFFFFFD6>", 18 },
	{ "<%-08.3u>", 1, { L(0LL) }, "<000     >", 10 },
	{ "<%-08.12d>", 1, { L(-1LL) }, "<-000000000001>", 15 },
	{ "<%-08.12x>", 1, { L(-42LL) }, "<ffffffffffffffd6>", 18 },
	{ "<%-20i>", 1, { L(0LL) }, "<0                   >", 22 },
	{ "<%-20p>", 1, { L(305441741LL) }, "<0x1234abcd          >", 22 },
	{ "<%-20.o>", 1, { L(-42LL) }, "<1777777777777777777726>", 24 },
	{ "<%-20.0d>", 1, { L(305441741LL) }, "<305441741           >", 22 },
	{ "<%-20.0X>", 1, { L(305441741LL) }, "<1234ABCD            >", 22 },
	{ "<%-20.3u>", 1, { L(-42LL) }, "<18446744073709551574>", 22 },
	{ "<%-20.12d>", 1, { L(42LL) }, "<000000000042        >", 22 },
	{ "<%-20.12x>", 1, { L(305441741LL) }, "<00001234abcd        >", 22 },
	{ "<%+i>", 1, { L(-42LL) }, "<-42>", 5 },
	{ "<%+.d>", 1, { L(0LL) }, "<+0>", 4 },
	{ "<%+.o>", 1, { L(305441741LL) }, "<2215125715>", 12 },
	{ "<%+.0d>", 1, { L(INT64_MIN) }, "<-9223372036854775808>", 22 },
	{ "<%+.0p>", 1, { L(0LL) }, "<0x0>", 5 },
	{ "<%+.3u>", 1, { L(305441741LL) }, "<305441741>", 11 },
	{ "<%+.12d>", 1, { L(-42LL) }, "<-000000000042>", 15 },
	{ "<%+.12X>", 1, { L(0LL) }, "<000000000000>", 14 },
	{ "<%+1i>", 1, { L(305441741LL) }, "<+305441741>", 12 },
	{ "<%+1.d>", 1, { L(1LL) }, "<+1>", 4 },
	{ "<%+1.x>", 1, { L(0LL) }, "<0>", 3 },
	{ "<%+1.0d>", 1, { L(9223372036854775807LL) }, "<+9223372036854775807>", 22 },
	{ "<%+1.0p>", 1, { L(-42LL) }, "<0xffffffffffffffd6>", 20 },
	{ "<%+1.3o>", 1, { L(0LL) }, "<000>", 5 },
	{ "<%+1.12d>", 1, { L(255LL) }, "<+000000000255>", 15 },
	{ "<%+1.12X>", 1, { L(-42LL) }, "<FFFFFFFFFFFFFFD6>", 18 },
	{ "<%+6u>", 1, { L(0LL) }, "<     0>", 8 },
	{ "<%+6.d>", 1, { L(-1LL) }, "<    -1>", 8 },
	{ "<%+6.x>", 1, { L(-42LL) }, "<ffffffffffffffd6>", 18 },
	{ "<%+6.0i>", 1, { L(0LL) }, "<    +0>", 8 },
	{ "<%+6.0p>", 1, { L(305441741LL) }, "<0x1234abcd>", 12 },
	{ "<%+6.3o>", 1, { L(-42LL) }, "<1777777777777777777726>", 24 },
	{ "<%+6.12d>", 1, { L(305441741LL) }, "<+000305441741>", 15 },
	{ "<%+6.12X>", 1, { L(305441741LL) }, "<00001234ABCD>", 14 },
	{ "<%+08u>", 1, { L(-42LL) }, "<18446744073709551574>", 22 },
	{ "<%+08.d>", 1, { L(42LL) }, "<     +42>", 10 },
	{ "<%+08.x>", 1, { L(305441741LL) }, "<1234abcd>", 10 },
	{ "<%+08.0i>", 1, { L(-42LL) }, "<     -42>", 10 },
	{ "<%+08.3d>", 1, { L(0LL) }, "<    +000>", 10 },
	{ "<%+08.3o>", 1, { L(305441741LL) }, "<2215125715>", 12 },
	{ "<%+08.12d>", 1, { L(INT64_MIN) }, "<-9223372036854775808>", 22 },
	{ "<%+08.12p>", 1, { L(0LL) }, "<0x000000000000>", 16 },
	{ "<%+20u>", 1, { L(305441741LL) }, "<           305441741>", 22 },
	{ "<%+20.d>", 1, { L(-42LL) }, "<                 -42>", 22 },
	{ "<%+20.X>", 1, { L(0LL) }, "<                   0>", 22 },
	{ "<%+20.0i>", 1, { L(305441741LL) }, "<          +305441741>", 22 },
	{ "<%+20.3d>", 1, { L(1LL) }, "<                +001>", 22 },
	{ "<%+20.3x>", 1, { L(0LL) }, "<                 000>", 22 },
	{ "<%+20.12d>", 1, { L(9223372036854775807LL) }, "<+9223372036854775807>", 22 },
	{ "<%+20.12p>", 1, { L(-42LL) }, "<  0xffffffffffffffd6>", 22 },
	{ "<% o>", 1, { L(0LL) }, "<0>", 3 },
	{ "<% .d>", 1, { L(255LL) }, "< 255>", 6 },
	{ "<% .X>", 1, { L(-42LL) }, "<FFFFFFFFFFFFFFD6>", 18 },
	{ "<% .0u>", 1, { L(0LL) }, "<0>", 3 },
	{ "<% .3d>", 1, { L(-1LL) }, "<-001>", 6 },
	{ "<% .3x>", 1, { L(-42LL) }, "<ffffffffffffffd6>", 18 },
	{ "<% .12i>", 1, { L(0LL) }, "< 000000000000>", 15 },
	{ "<% .12p>", 1, { L(305441741LL) }, "<0x00001234abcd>", 16 },
	{ "<% 1o>", 1, { L(-42LL) }, "<1777777777777777777726>", 24 },
	{ "<% 1.d>", 1, { L(305441741LL) }, "< 305441741>", 12 },
	{ "<% 1.X>", 1, { L(305441741LL) }, "<1234ABCD>", 10 },
	{ "<% 1.0u>", 1, { L(-42LL) }, "<18446744073709551574>", 22 },
	{ "<% 1.3d>", 1, { L(42LL) }, "< 042>", 6 },
	{ "<% 1.3x>", 1, { L(305441741LL) }, "<1234abcd>", 10 },
	{ "<% 1.12i>", 1, { L(-42LL) }, "<-000000000042>", 15 },
	{ "<% 6d>", 1, { L(0LL) }, "<     0>", 8 },
	{ "<% 6o>", 1, { L(305441741LL) }, "<2215125715>", 12 },
	{ "<% 6.d>", 1, { L(INT64_MIN) }, "<-9223372036854775808>", 22 },
	{ "<% 6.p>", 1, { L(0LL) }, "<   0x0>", 8 },
	{ "<% 6.0u>", 1, { L(305441741LL) }, "<305441741>", 11 },
	{ "<% 6.3d>", 1, { L(-42LL) }, "<  -042>", 8 },
	{ "<% 6.3X>", 1, { L(0LL) }, "<   000>", 8 },
	{ "<% 6.12i>", 1, { L(305441741LL) }, "< 000305441741>", 15 },
	{ "<% 08d>", 1, { L(1LL) }, "<       1>", 10 },
	{ "<% 08x>", 1, { L(0LL) }, "<       0>", 10 },
	{ "<% 08.d>", 1, { L(9223372036854775807LL) }, "< 9223372036854775807>", 22 },
	{ "<% 08.p>", 1, { L(-42LL) }, "<0xffffffffffffffd6>", 20 },
	{ "<% 08.0o>", 1, { L(0LL) }, "<       0>", 10 },
	{ "<% 08.3d>", 1, { L(255LL) }, "<     255>", 10 },
	{ "<% 08.3X>", 1, { L(-42LL) }, "<FFFFFFFFFFFFFFD6>", 18 },
	{ "<% 08.12u>", 1, { L(0LL) }, "<000000000000>", 14 },
	{ "<% 20d>", 1, { L(-1LL) }, "<                  -1>", 22 },
	{ "<% 20x>", 1, { L(-42LL) }, "<    ffffffffffffffd6>", 22 },
	{ "<% 20.i>", 1, { L(0LL) }, "<                   0>", 22 },
	{ "<% 20.p>", 1, { L(305441741LL) }, "<          0x1234abcd>", 22 },
	{ "<% 20.0o>", 1, { L(-42LL) }, "<1777777777777777777726>", 24 },
	{ "<% 20.3d>", 1, { L(305441741LL) }, "<           305441741>", 22 },
	{ "<% 20.3X>", 1, { L(305441741LL) }, "<            1234ABCD>", 22 },
	{ "<% 20.12u>", 1, { L(-42LL) }, "<18446744073709551574>", 22 },
	{ "<%#d>", 1, { L(42LL) }, "<42>", 4 },
	{ "<%#x>", 1, { L(305441741LL) }, "<0x1234abcd>", 12 },
	{ "<%#.i>", 1, { L(-42LL) }, "<-42>", 5 },
	{ "<%#.0d>", 1, { L(0LL) }, "<0>", 3 },
	{ "<%#.0o>", 1, { L(305441741LL) }, "<02215125715>", 13 },
	{ "<%#.3d>", 1, { L(INT64_MIN) }, "<-9223372036854775808>", 22 },
	{ "<%#.3p>", 1, { L(0LL) }, "<0x000>", 7 },
	{ "<%#.12u>", 1, { L(305441741LL) }, "<000305441741>", 14 },
	{ "<%#1d>", 1, { L(-42LL) }, "<-42>", 5 },
	{ "<%#1X>", 1, { L(0LL) }, "<0X0>", 5 },
	{ "<%#1.i>", 1, { L(305441741LL) }, "<305441741>", 11 },
	{ "<%#1.0d>", 1, { L(1LL) }, "<1>", 3 },
	{ "<%#1.0x>", 1, { L(0LL) }, "<0x0>", 5 },
	{ "<%#1.3d>", 1, { L(9223372036854775807LL) }, "<9223372036854775807>", 21 },
	{ "<%#1.3p>", 1, { L(-42LL) }, "<0xffffffffffffffd6>", 20 },
	{ "<%#1.12o>", 1, { L(0LL) }, "<0000000000000>", 15 },
	{ "<%#6d>", 1, { L(255LL) }, "<   255>", 8 },
	{ "<%#6X>", 1, { L(-42LL) }, "<0XFFFFFFFFFFFFFFD6>", 20 },
	{ "<%#6.u>", 1, { L(0LL) }, "<     0>", 8 },
	{ "<%#6.0d>", 1, { L(-1LL) }, "<    -1>", 8 },
	{ "<%#6.0x>", 1, { L(-42LL) }, "<0xffffffffffffffd6>", 20 },
	{ "<%#6.3i>", 1, { L(0LL) }, "<   000>", 8 },
	{ "<%#6.3p>", 1, { L(305441741LL) }, "<0x1234abcd>", 12 },
	{ "<%#6.12o>", 1, { L(-42LL) }, "<01777777777777777777726>", 25 },
	{ "<%#08d>", 1, { L(305441741LL) }, "<305441741>", 11 },
	{ "<%#08X>", 1, { L(305441741LL) }, "<0X1234ABCD>", 12 },
	{ "<%#08.u>", 1, { L(-42LL) }, "<18446744073709551574>", 22 },
	{ "<%#08.0d>", 1, { L(42LL) }, "<      42>", 10 },
	{ "<%#08.0x>", 1, { L(305441741LL) }, "<0x1234abcd>", 12 },
	{ "<%#08.3i>", 1, { L(-42LL) }, "<    -042>", 10 },
	{ "<%#08.12d>", 1, { L(0LL) }, "<000000000000>", 14 },
	{ "<%#08.12o>", 1, { L(305441741LL) }, "<0002215125715>", 15 },
	{ "<%#20d>", 1, { L(INT64_MIN) }, "<-9223372036854775808>", 22 },
	{ "<%#20p>", 1, { L(0LL) }, "<                 0x0>", 22 },
	{ "<%#20.u>", 1, { L(305441741LL) }, "<           305441741>", 22 },
	{ "<%#20.0d>", 1, { L(-42LL) }, "<                 -42>", 22 },
	{ "<%#20.0X>", 1, { L(0LL) }, "<                 0X0>", 22 },
	{ "<%#20.3i>", 1, { L(305441741LL) }, "<           305441741>", 22 },
	{ "<%#20.12d>", 1, { L(1LL) }, "<        000000000001>", 22 },
	{ "<%#20.12x>", 1, { L(0LL) }, "<      0x000000000000>", 22 },
	{ "<%0d>", 1, { L(9223372036854775807LL) }, "<9223372036854775807>", 21 },
	{ "<%0p>", 1, { L(-42LL) }, "<0xffffffffffffffd6>", 20 },
	{ "<%0.o>", 1, { L(0LL) }, "<0>", 3 },
	{ "<%0.0d>", 1, { L(255LL) }, "<255>", 5 },
	{ "<%0.0X>", 1, { L(-42LL) }, "<FFFFFFFFFFFFFFD6>", 18 },
	{ "<%0.3u>", 1, { L(0LL) }, "<000>", 5 },
	{ "<%0.12d>", 1, { L(-1LL) }, "<-000000000001>", 15 },
	{ "<%0.12x>", 1, { L(-42LL) }, "<ffffffffffffffd6>", 18 },
	{ "<%01i>", 1, { L(0LL) }, "<0>", 3 },
	{ "<%01p>", 1, { L(305441741LL) }, "<0x1234abcd>", 12 },
	{ "<%01.o>", 1, { L(-42LL) }, "<1777777777777777777726>", 24 },
	{ "<%01.0d>", 1, { L(305441741LL) }, "<305441741>", 11 },
	{ "<%01.0X>", 1, { L(305441741LL) }, "<1234ABCD>", 10 },
	{ "<%01.3u>", 1, { L(-42LL) }, "<18446744073709551574>", 22 },
	{ "<%01.12d>", 1, { L(42LL) }, "<000000000042>", 14 },
	{ "<%01.12x>", 1, { L(305441741LL) }, "<00001234abcd>", 14 },
	{ "<%06i>", 1, { L(-42LL) }, "<-00042>", 8 },
	{ "<%06.d>", 1, { L(0LL) }, "<000000>", 8 },
	{ "<%06.o>", 1, { L(305441741LL) }, "<2215125715>", 12 },
	{ "<%06.0d>", 1, { L(INT64_MIN) }, "<-9223372036854775808>", 22 },
	{ "<%06.0p>", 1, { L(0LL) }, "<0x0000>", 8 },
	{ "<%06.3u>", 1, { L(305441741LL) }, "<305441741>", 11 },
	{ "<%06.12d>", 1, { L(-42LL) }, "<-000000000042>", 15 },
	{ "<%06.12X>", 1, { L(0LL) }, "<000000000000>", 14 },
	{ "<%008i>", 1, { L(305441741LL) }, "<305441741>", 11 },
	{ "<%008.d>", 1, { L(1LL) }, "<00000001>", 10 },
	{ "<%008.x>", 1, { L(0LL) }, "<00000000>", 10 },
	{ "<%008.0d>", 1, { L(9223372036854775807LL) }, "<9223372036854775807>", 21 },
	{ "<%008.0p>", 1, { L(-42LL) }, "<0xffffffffffffffd6>", 20 },
	{ "<%008.3o>", 1, { L(0LL) }, "<00000000>", 10 },
	{ "<%008.12d>", 1, { L(255LL) }, "<000000000255>", 14 },
	{ "<%008.12X>", 1, { L(-42LL) }, "<FFFFFFFFFFFFFFD6>", 18 },
	{ "<%020u>", 1, { L(0LL) }, "<00000000000000000000>", 22 },
	{ "<%020.d>", 1, { L(-1LL) }, "<-0000000000000000001>", 22 },
	{ "<%020.x>", 1, { L(-42LL) }, "<0000ffffffffffffffd6>", 22 },
	{ "<%020.0i>", 1, { L(0LL) }, "<00000000000000000000>", 22 },
	{ "<%020.0p>", 1, { L(305441741LL) }, "<0x00000000001234abcd>", 22 },
	{ "<%020.3o>", 1, { L(-42LL) }, "<1777777777777777777726>", 24 },
	{ "<%020.12d>", 1, { L(305441741LL) }, "<00000000000305441741>", 22 },
	{ "<%020.12X>", 1, { L(305441741LL) }, "<0000000000001234ABCD>", 22 },
	{ "<%s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%s>", 1, { S("") }, "<>", 2 },
	{ "<%.s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%.s>", 1, { S("") }, "<>", 2 },
	{ "<%.0s>", 1, { S("alice") }, "<>", 2 },
	{ "<%.0s>", 1, { S("") }, "<>", 2 },
	{ "<%.2s>", 1, { S("alice") }, "<al>", 4 },
	{ "<%.2s>", 1, { S("") }, "<>", 2 },
	{ "<%.9s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%.9s>", 1, { S("") }, "<>", 2 },
	{ "<%3s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%3s>", 1, { S("") }, "<   >", 5 },
	{ "<%3.s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%3.s>", 1, { S("") }, "<   >", 5 },
	{ "<%3.0s>", 1, { S("alice") }, "<   >", 5 },
	{ "<%3.0s>", 1, { S("") }, "<   >", 5 },
	{ "<%3.2s>", 1, { S("alice") }, "< al>", 5 },
	{ "<%3.2s>", 1, { S("") }, "<   >", 5 },
	{ "<%3.9s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%3.9s>", 1, { S("") }, "<   >", 5 },
	{ "<%8s>", 1, { S("alice") }, "<   alice>", 10 },
	{ "<%8s>", 1, { S("") }, "<        >", 10 },
	{ "<%8.s>", 1, { S("alice") }, "<   alice>", 10 },
	{ "<%8.s>", 1, { S("") }, "<        >", 10 },
	{ "<%8.0s>", 1, { S("alice") }, "<        >", 10 },
	{ "<%8.0s>", 1, { S("") }, "<        >", 10 },
	{ "<%8.2s>", 1, { S("alice") }, "<      al>", 10 },
	{ "<%8.2s>", 1, { S("") }, "<        >", 10 },
	{ "<%8.9s>", 1, { S("alice") }, "<   alice>", 10 },
	{ "<%8.9s>", 1, { S("") }, "<        >", 10 },
	{ "<%-s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%-s>", 1, { S("") }, "<>", 2 },
	{ "<%-.s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%-.s>", 1, { S("") }, "<>", 2 },
	{ "<%-.0s>", 1, { S("alice") }, "<>", 2 },
	{ "<%-.0s>", 1, { S("") }, "<>", 2 },
	{ "<%-.2s>", 1, { S("alice") }, "<al>", 4 },
	{ "<%-.2s>", 1, { S("") }, "<>", 2 },
	{ "<%-.9s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%-.9s>", 1, { S("") }, "<>", 2 },
	{ "<%-3s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%-3s>", 1, { S("") }, "<   >", 5 },
	{ "<%-3.s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%-3.s>", 1, { S("") }, "<   >", 5 },
	{ "<%-3.0s>", 1, { S("alice") }, "<   >", 5 },
	{ "<%-3.0s>", 1, { S("") }, "<   >", 5 },
	{ "<%-3.2s>", 1, { S("alice") }, "<al >", 5 },
	{ "<%-3.2s>", 1, { S("") }, "<   >", 5 },
	{ "<%-3.9s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%-3.9s>", 1, { S("") }, "<   >", 5 },
	{ "<%-8s>", 1, { S("alice") }, "<alice   >", 10 },
	{ "<%-8s>", 1, { S("") }, "<        >", 10 },
	{ "<%-8.s>", 1, { S("alice") }, "<alice   >", 10 },
	{ "<%-8.s>", 1, { S("") }, "<        >", 10 },
	{ "<%-8.0s>", 1, { S("alice") }, "<        >", 10 },
	{ "<%-8.0s>", 1, { S("") }, "<        >", 10 },
	{ "<%-8.2s>", 1, { S("alice") }, "<al      >", 10 },
	{ "<%-8.2s>", 1, { S("") }, "<        >", 10 },
	{ "<%-8.9s>", 1, { S("alice") }, "<alice   >", 10 },
	{ "<%-8.9s>", 1, { S("") }, "<        >", 10 },
	{ "<%0s>", 1, { S("alice") }, "<alice\x00>", 8 },
	{ "<%0s>", 1, { S("") }, "<\x00>", 3 },
	{ "<%0.s>", 1, { S("alice") }, "<alice\x00>", 8 },
	{ "<%0.s>", 1, { S("") }, "<\x00>", 3 },
	{ "<%0.0s>", 1, { S("alice") }, "<\x00>", 3 },
	{ "<%0.0s>", 1, { S("") }, "<\x00>", 3 },
	{ "<%0.2s>", 1, { S("alice") }, "<al\x00>", 5 },
	{ "<%0.2s>", 1, { S("") }, "<\x00>", 3 },
	{ "<%0.9s>", 1, { S("alice") }, "<alice\x00>", 8 },
	{ "<%0.9s>", 1, { S("") }, "<\x00>", 3 },
	{ "<%03s>", 1, { S("alice") }, "<alice\x00>", 8 },
	{ "<%03s>", 1, { S("") }, "<   \x00>", 6 },
	{ "<%03.s>", 1, { S("alice") }, "<alice\x00>", 8 },
	{ "<%03.s>", 1, { S("") }, "<   \x00>", 6 },
	{ "<%03.0s>", 1, { S("alice") }, "<   \x00>", 6 },
	{ "<%03.0s>", 1, { S("") }, "<   \x00>", 6 },
	{ "<%03.2s>", 1, { S("alice") }, "< al\x00>", 6 },
	{ "<%03.2s>", 1, { S("") }, "<   \x00>", 6 },
	{ "<%03.9s>", 1, { S("alice") }, "<alice\x00>", 8 },
	{ "<%03.9s>", 1, { S("") }, "<   \x00>", 6 },
	{ "<%08s>", 1, { S("alice") }, "<   alice\x00>", 11 },
	{ "<%08s>", 1, { S("") }, "<        \x00>", 11 },
	{ "<%08.s>", 1, { S("alice") }, "<   alice\x00>", 11 },
	{ "<%08.s>", 1, { S("") }, "<        \x00>", 11 },
	{ "<%08.0s>", 1, { S("alice") }, "<        \x00>", 11 },
	{ "<%08.0s>", 1, { S("") }, "<        \x00>", 11 },
	{ "<%08.2s>", 1, { S("alice") }, "<      al\x00>", 11 },
	{ "<%08.2s>", 1, { S("") }, "<        \x00>", 11 },
	{ "<%08.9s>", 1, { S("alice") }, "<   alice\x00>", 11 },
	{ "<%08.9s>", 1, { S("") }, "<        \x00>", 11 },
	{ "<%#s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%#s>", 1, { S("") }, "<>", 2 },
	{ "<%#.s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%#.s>", 1, { S("") }, "<>", 2 },
	{ "<%#.0s>", 1, { S("alice") }, "<>", 2 },
	{ "<%#.0s>", 1, { S("") }, "<>", 2 },
	{ "<%#.2s>", 1, { S("alice") }, "<al>", 4 },
	{ "<%#.2s>", 1, { S("") }, "<>", 2 },
	{ "<%#.9s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%#.9s>", 1, { S("") }, "<>", 2 },
	{ "<%#3s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%#3s>", 1, { S("") }, "<   >", 5 },
	{ "<%#3.s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%#3.s>", 1, { S("") }, "<   >", 5 },
	{ "<%#3.0s>", 1, { S("alice") }, "<   >", 5 },
	{ "<%#3.0s>", 1, { S("") }, "<   >", 5 },
	{ "<%#3.2s>", 1, { S("alice") }, "< al>", 5 },
	{ "<%#3.2s>", 1, { S("") }, "<   >", 5 },
	{ "<%#3.9s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%#3.9s>", 1, { S("") }, "<   >", 5 },
	{ "<%#8s>", 1, { S("alice") }, "<   alice>", 10 },
	{ "<%#8s>", 1, { S("") }, "<        >", 10 },
	{ "<%#8.s>", 1, { S("alice") }, "<   alice>", 10 },
	{ "<%#8.s>", 1, { S("") }, "<        >", 10 },
	{ "<%#8.0s>", 1, { S("alice") }, "<        >", 10 },
	{ "<%#8.0s>", 1, { S("") }, "<        >", 10 },
	{ "<%#8.2s>", 1, { S("alice") }, "<      al>", 10 },
	{ "<%#8.2s>", 1, { S("") }, "<        >", 10 },
	{ "<%#8.9s>", 1, { S("alice") }, "<   alice>", 10 },
	{ "<%#8.9s>", 1, { S("") }, "<        >", 10 },
	{ "<%+s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%+s>", 1, { S("") }, "<>", 2 },
	{ "<%+.s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%+.s>", 1, { S("") }, "<>", 2 },
	{ "<%+.0s>", 1, { S("alice") }, "<>", 2 },
	{ "<%+.0s>", 1, { S("") }, "<>", 2 },
	{ "<%+.2s>", 1, { S("alice") }, "<al>", 4 },
	{ "<%+.2s>", 1, { S("") }, "<>", 2 },
	{ "<%+.9s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%+.9s>", 1, { S("") }, "<>", 2 },
	{ "<%+3s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%+3s>", 1, { S("") }, "<   >", 5 },
	{ "<%+3.s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%+3.s>", 1, { S("") }, "<   >", 5 },
	{ "<%+3.0s>", 1, { S("alice") }, "<   >", 5 },
	{ "<%+3.0s>", 1, { S("") }, "<   >", 5 },
	{ "<%+3.2s>", 1, { S("alice") }, "< al>", 5 },
	{ "<%+3.2s>", 1, { S("") }, "<   >", 5 },
	{ "<%+3.9s>", 1, { S("alice") }, "<alice>", 7 },
	{ "<%+3.9s>", 1, { S("") }, "<   >", 5 },
	{ "<%+8s>", 1, { S("alice") }, "<   alice>", 10 },
	{ "<%+8s>", 1, { S("") }, "<        >", 10 },
	{ "<%+8.s>", 1, { S("alice") }, "<   alice>", 10 },
	{ "<%+8.s>", 1, { S("") }, "<        >", 10 },
	{ "<%+8.0s>", 1, { S("alice") }, "<        >", 10 },
	{ "<%+8.0s>", 1, { S("") }, "<        >", 10 },
	{ "<%+8.2s>", 1, { S("alice") }, "<      al>", 10 },
	{ "<%+8.2s>", 1, { S("") }, "<        >", 10 },
	{ "<%+8.9s>", 1, { S("alice") }, "<   alice>", 10 },
	{ "<%+8.9s>", 1, { S("") }, "<        >", 10 },
	{ "<%c>", 1, { L(97LL) }, "<a>", 3 },
	{ "<%c>", 1, { L(0LL) }, "<\x00>", 3 },
	{ "<%c>", 1, { L(9LL) }, "<\x09>", 3 },
	{ "<%c>", 1, { L(10LL) }, "<\x0a>", 3 },
	{ "<%c>", 1, { L(39LL) }, "<'>", 3 },
	{ "<%c>", 1, { L(92LL) }, "<\\>", 3 },
	{ "<%c>", 1, { L(34LL) }, "<\">", 3 },
	{ "<%c>", 1, { L(127LL) }, "<\x7f>", 3 },
	{ "<%c>", 1, { L(128LL) }, "<\x80>", 3 },
	{ "<%c>", 1, { L(255LL) }, "<\xff>", 3 },
	{ "<%c>", 1, { L(321LL) }, "<A>", 3 },
	{ "<%c>", 1, { L(32LL) }, "< >", 3 },
	{ "<%3c>", 1, { L(97LL) }, "<  a>", 5 },
	{ "<%3c>", 1, { L(0LL) }, "<  \x00>", 5 },
	{ "<%3c>", 1, { L(9LL) }, "<  \x09>", 5 },
	{ "<%3c>", 1, { L(10LL) }, "<  \x0a>", 5 },
	{ "<%3c>", 1, { L(39LL) }, "<  '>", 5 },
	{ "<%3c>", 1, { L(92LL) }, "<  \\>", 5 },
	{ "<%3c>", 1, { L(34LL) }, "<  \">", 5 },
	{ "<%3c>", 1, { L(127LL) }, "<  \x7f>", 5 },
	{ "<%3c>", 1, { L(128LL) }, "<  \x80>", 5 },
	{ "<%3c>", 1, { L(255LL) }, "<  \xff>", 5 },
	{ "<%3c>", 1, { L(321LL) }, "<  A>", 5 },
	{ "<%3c>", 1, { L(32LL) }, "<   >", 5 },
	{ "<%-c>", 1, { L(97LL) }, "<a>", 3 },
	{ "<%-c>", 1, { L(0LL) }, "<\x00>", 3 },
	{ "<%-c>", 1, { L(9LL) }, "<\x09>", 3 },
	{ "<%-c>", 1, { L(10LL) }, "<\x0a>", 3 },
	{ "<%-c>", 1, { L(39LL) }, "<'>", 3 },
	{ "<%-c>", 1, { L(92LL) }, "<\\>", 3 },
	{ "<%-c>", 1, { L(34LL) }, "<\">", 3 },
	{ "<%-c>", 1, { L(127LL) }, "<\x7f>", 3 },
	{ "<%-c>", 1, { L(128LL) }, "<\x80>", 3 },
	{ "<%-c>", 1, { L(255LL) }, "<\xff>", 3 },
	{ "<%-c>", 1, { L(321LL) }, "<A>", 3 },
	{ "<%-c>", 1, { L(32LL) }, "< >", 3 },
	{ "<%-3c>", 1, { L(97LL) }, "<a  >", 5 },
	{ "<%-3c>", 1, { L(0LL) }, "<\x00  >", 5 },
	{ "<%-3c>", 1, { L(9LL) }, "<\x09  >", 5 },
	{ "<%-3c>", 1, { L(10LL) }, "<\x0a  >", 5 },
	{ "<%-3c>", 1, { L(39LL) }, "<'  >", 5 },
	{ "<%-3c>", 1, { L(92LL) }, "<\\  >", 5 },
	{ "<%-3c>", 1, { L(34LL) }, "<\"  >", 5 },
	{ "<%-3c>", 1, { L(127LL) }, "<\x7f  >", 5 },
	{ "<%-3c>", 1, { L(128LL) }, "<\x80  >", 5 },
	{ "<%-3c>", 1, { L(255LL) }, "<\xff  >", 5 },
	{ "<%-3c>", 1, { L(321LL) }, "<A  >", 5 },
	{ "<%-3c>", 1, { L(32LL) }, "<   >", 5 },
	{ "<%0c>", 1, { L(97LL) }, "<a>", 3 },
	{ "<%0c>", 1, { L(0LL) }, "<\x00>", 3 },
	{ "<%0c>", 1, { L(9LL) }, "<\x09>", 3 },
	{ "<%0c>", 1, { L(10LL) }, "<\x0a>", 3 },
	{ "<%0c>", 1, { L(39LL) }, "<'>", 3 },
	{ "<%0c>", 1, { L(92LL) }, "<\\>", 3 },
	{ "<%0c>", 1, { L(34LL) }, "<\">", 3 },
	{ "<%0c>", 1, { L(127LL) }, "<\x7f>", 3 },
	{ "<%0c>", 1, { L(128LL) }, "<\x80>", 3 },
	{ "<%0c>", 1, { L(255LL) }, "<\xff>", 3 },
	{ "<%0c>", 1, { L(321LL) }, "<A>", 3 },
	{ "<%0c>", 1, { L(32LL) }, "< >", 3 },
	{ "<%03c>", 1, { L(97LL) }, "<  a>", 5 },
	{ "<%03c>", 1, { L(0LL) }, "<  \x00>", 5 },
	{ "<%03c>", 1, { L(9LL) }, "<  \x09>", 5 },
	{ "<%03c>", 1, { L(10LL) }, "<  \x0a>", 5 },
	{ "<%03c>", 1, { L(39LL) }, "<  '>", 5 },
	{ "<%03c>", 1, { L(92LL) }, "<  \\>", 5 },
	{ "<%03c>", 1, { L(34LL) }, "<  \">", 5 },
	{ "<%03c>", 1, { L(127LL) }, "<  \x7f>", 5 },
	{ "<%03c>", 1, { L(128LL) }, "<  \x80>", 5 },
	{ "<%03c>", 1, { L(255LL) }, "<  \xff>", 5 },
	{ "<%03c>", 1, { L(321LL) }, "<  A>", 5 },
	{ "<%03c>", 1, { L(32LL) }, "<   >", 5 },
	{ "<%#c>", 1, { L(97LL) }, "<a>", 3 },
	{ "<%#c>", 1, { L(0LL) }, "<\\000>", 6 },
	{ "<%#c>", 1, { L(9LL) }, "<\\t>", 4 },
	{ "<%#c>", 1, { L(10LL) }, "<\\n>", 4 },
	{ "<%#c>", 1, { L(39LL) }, "<\\'>", 4 },
	{ "<%#c>", 1, { L(92LL) }, "<\\\\>", 4 },
	{ "<%#c>", 1, { L(34LL) }, "<\">", 3 },
	{ "<%#c>", 1, { L(127LL) }, "<\\177>", 6 },
	{ "<%#c>", 1, { L(128LL) }, "<\\200>", 6 },
	{ "<%#c>", 1, { L(255LL) }, "<\\377>", 6 },
	{ "<%#c>", 1, { L(321LL) }, "<A>", 3 },
	{ "<%#c>", 1, { L(32LL) }, "< >", 3 },
	{ "<%#3c>", 1, { L(97LL) }, "<  a>", 5 },
	{ "<%#3c>", 1, { L(0LL) }, "<\\000>", 6 },
	{ "<%#3c>", 1, { L(9LL) }, "< \\t>", 5 },
	{ "<%#3c>", 1, { L(10LL) }, "< \\n>", 5 },
	{ "<%#3c>", 1, { L(39LL) }, "< \\'>", 5 },
	{ "<%#3c>", 1, { L(92LL) }, "< \\\\>", 5 },
	{ "<%#3c>", 1, { L(34LL) }, "<  \">", 5 },
	{ "<%#3c>", 1, { L(127LL) }, "<\\177>", 6 },
	{ "<%#3c>", 1, { L(128LL) }, "<\\200>", 6 },
	{ "<%#3c>", 1, { L(255LL) }, "<\\377>", 6 },
	{ "<%#3c>", 1, { L(321LL) }, "<  A>", 5 },
	{ "<%#3c>", 1, { L(32LL) }, "<   >", 5 },
	{ "<%b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%.1b>", 1, { L(1234605616436508552LL) }, "<\x88>", 3 },
	{ "<%.2b>", 1, { L(1234605616436508552LL) }, "<\x88w>", 4 },
	{ "<%.3b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%.4b>", 1, { L(1234605616436508552LL) }, "<\x88wfU>", 6 },
	{ "<%.8b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%.0b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%1b>", 1, { L(1234605616436508552LL) }, "<\x88>", 3 },
	{ "<%1.1b>", 1, { L(1234605616436508552LL) }, "<\x88>", 3 },
	{ "<%1.2b>", 1, { L(1234605616436508552LL) }, "<\x88w>", 4 },
	{ "<%1.4b>", 1, { L(1234605616436508552LL) }, "<\x88wfU>", 6 },
	{ "<%1.8b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%1.0b>", 1, { L(1234605616436508552LL) }, "<\x88>", 3 },
	{ "<%2b>", 1, { L(1234605616436508552LL) }, "<\x88w>", 4 },
	{ "<%2.1b>", 1, { L(1234605616436508552LL) }, "<\x00\x88>", 4 },
	{ "<%2.2b>", 1, { L(1234605616436508552LL) }, "<\x88w>", 4 },
	{ "<%2.3b>", 1, { L(1234605616436508552LL) }, "<\x88w>", 4 },
	{ "<%2.4b>", 1, { L(1234605616436508552LL) }, "<\x88wfU>", 6 },
	{ "<%2.8b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%2.0b>", 1, { L(1234605616436508552LL) }, "<\x88w>", 4 },
	{ "<%3b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%3.1b>", 1, { L(1234605616436508552LL) }, "<\x00\x00\x88>", 5 },
	{ "<%3.2b>", 1, { L(1234605616436508552LL) }, "<\x00\x88w>", 5 },
	{ "<%3.3b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%3.4b>", 1, { L(1234605616436508552LL) }, "<\x88wfU>", 6 },
	{ "<%3.8b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%3.0b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%4b>", 1, { L(1234605616436508552LL) }, "<\x88wfU>", 6 },
	{ "<%4.1b>", 1, { L(1234605616436508552LL) }, "<\x00\x00\x00\x88>", 6 },
	{ "<%4.2b>", 1, { L(1234605616436508552LL) }, "<\x00\x00\x88w>", 6 },
	{ "<%4.3b>", 1, { L(1234605616436508552LL) }, "<\x88wfU>", 6 },
	{ "<%4.4b>", 1, { L(1234605616436508552LL) }, "<\x88wfU>", 6 },
	{ "<%4.8b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%4.0b>", 1, { L(1234605616436508552LL) }, "<\x88wfU>", 6 },
	{ "<%8b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%8.1b>", 1, { L(1234605616436508552LL) }, "<\x00\x00\x00\x00\x00\x00\x00\x88>", 10 },
	{ "<%8.2b>", 1, { L(1234605616436508552LL) }, "<\x00\x00\x00\x00\x00\x00\x88w>", 10 },
	{ "<%8.3b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%8.4b>", 1, { L(1234605616436508552LL) }, "<\x00\x00\x00\x00\x88wfU>", 10 },
	{ "<%8.8b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%8.0b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%10b>", 1, { L(1234605616436508552LL) }, "<\x00\x00\x88wfUD3\"\x11>", 12 },
	{ "<%10.1b>", 1, { L(1234605616436508552LL) }, "<\x00\x00\x00\x00\x00\x00\x00\x00\x00\x88>", 12 },
	{ "<%10.2b>", 1, { L(1234605616436508552LL) }, "<\x00\x00\x00\x00\x00\x00\x00\x00\x88w>", 12 },
	{ "<%10.3b>", 1, { L(1234605616436508552LL) }, "<\x00\x00\x88wfUD3\"\x11>", 12 },
	{ "<%10.4b>", 1, { L(1234605616436508552LL) }, "<\x00\x00\x00\x00\x00\x00\x88wfU>", 12 },
	{ "<%10.8b>", 1, { L(1234605616436508552LL) }, "<\x00\x00\x88wfUD3\"\x11>", 12 },
	{ "<%10.0b>", 1, { L(1234605616436508552LL) }, "<\x00\x00\x88wfUD3\"\x11>", 12 },
	{ "<%-b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%-.1b>", 1, { L(1234605616436508552LL) }, "<\x88>", 3 },
	{ "<%-.2b>", 1, { L(1234605616436508552LL) }, "<\x88w>", 4 },
	{ "<%-.3b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%-.4b>", 1, { L(1234605616436508552LL) }, "<\x88wfU>", 6 },
	{ "<%-.8b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%-.0b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%-1b>", 1, { L(1234605616436508552LL) }, "<\x88>", 3 },
	{ "<%-1.1b>", 1, { L(1234605616436508552LL) }, "<\x88>", 3 },
	{ "<%-1.2b>", 1, { L(1234605616436508552LL) }, "<\x88w>", 4 },
	{ "<%-1.4b>", 1, { L(1234605616436508552LL) }, "<\x88wfU>", 6 },
	{ "<%-1.8b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%-1.0b>", 1, { L(1234605616436508552LL) }, "<\x88>", 3 },
	{ "<%-2b>", 1, { L(1234605616436508552LL) }, "<\x88w>", 4 },
	{ "<%-2.1b>", 1, { L(1234605616436508552LL) }, "<\x88\x00>", 4 },
	{ "<%-2.2b>", 1, { L(1234605616436508552LL) }, "<\x88w>", 4 },
	{ "<%-2.3b>", 1, { L(1234605616436508552LL) }, "<\x88w>", 4 },
	{ "<%-2.4b>", 1, { L(1234605616436508552LL) }, "<\x88wfU>", 6 },
	{ "<%-2.8b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%-2.0b>", 1, { L(1234605616436508552LL) }, "<\x88w>", 4 },
	{ "<%-3b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%-3.1b>", 1, { L(1234605616436508552LL) }, "<\x88\x00\x00>", 5 },
	{ "<%-3.2b>", 1, { L(1234605616436508552LL) }, "<\x88w\x00>", 5 },
	{ "<%-3.3b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%-3.4b>", 1, { L(1234605616436508552LL) }, "<\x88wfU>", 6 },
	{ "<%-3.8b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%-3.0b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%-4b>", 1, { L(1234605616436508552LL) }, "<\x88wfU>", 6 },
	{ "<%-4.1b>", 1, { L(1234605616436508552LL) }, "<\x88\x00\x00\x00>", 6 },
	{ "<%-4.2b>", 1, { L(1234605616436508552LL) }, "<\x88w\x00\x00>", 6 },
	{ "<%-4.3b>", 1, { L(1234605616436508552LL) }, "<\x88wfU>", 6 },
	{ "<%-4.4b>", 1, { L(1234605616436508552LL) }, "<\x88wfU>", 6 },
	{ "<%-4.8b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%-4.0b>", 1, { L(1234605616436508552LL) }, "<\x88wfU>", 6 },
	{ "<%-8b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%-8.1b>", 1, { L(1234605616436508552LL) }, "<\x88\x00\x00\x00\x00\x00\x00\x00>", 10 },
	{ "<%-8.2b>", 1, { L(1234605616436508552LL) }, "<\x88w\x00\x00\x00\x00\x00\x00>", 10 },
	{ "<%-8.3b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%-8.4b>", 1, { L(1234605616436508552LL) }, "<\x88wfU\x00\x00\x00\x00>", 10 },
	{ "<%-8.8b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%-8.0b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11>", 10 },
	{ "<%-10b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11\x00\x00>", 12 },
	{ "<%-10.1b>", 1, { L(1234605616436508552LL) }, "<\x88\x00\x00\x00\x00\x00\x00\x00\x00\x00>", 12 },
	{ "<%-10.2b>", 1, { L(1234605616436508552LL) }, "<\x88w\x00\x00\x00\x00\x00\x00\x00\x00>", 12 },
	{ "<%-10.3b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11\x00\x00>", 12 },
	{ "<%-10.4b>", 1, { L(1234605616436508552LL) }, "<\x88wfU\x00\x00\x00\x00\x00\x00>", 12 },
	{ "<%-10.8b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11\x00\x00>", 12 },
	{ "<%-10.0b>", 1, { L(1234605616436508552LL) }, "<\x88wfUD3\"\x11\x00\x00>", 12 },
	{ "<%*.*d>", 3, { L(-5LL), L(-1LL), L(42LL) }, "<42>", 4 },
	{ "<%*.*s>", 3, { L(-5LL), L(-1LL), S("alice") }, "<>", 2 },
	{ "<%-*.*x>", 3, { L(-5LL), L(-1LL), L(42LL) }, "<2a>", 4 },
	{ "<%*b>", 2, { L(-5LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(-5LL), L(0LL), L(42LL) }, "<42>", 4 },
	{ "<%*.*s>", 3, { L(-5LL), L(0LL), S("alice") }, "<>", 2 },
	{ "<%-*.*x>", 3, { L(-5LL), L(0LL), L(42LL) }, "<2a>", 4 },
	{ "<%*b>", 2, { L(-5LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(-5LL), L(2LL), L(42LL) }, "<42>", 4 },
	{ "<%*.*s>", 3, { L(-5LL), L(2LL), S("alice") }, "<al>", 4 },
	{ "<%-*.*x>", 3, { L(-5LL), L(2LL), L(42LL) }, "<2a>", 4 },
	{ "<%*b>", 2, { L(-5LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(-5LL), L(5LL), L(42LL) }, "<00042>", 7 },
	{ "<%*.*s>", 3, { L(-5LL), L(5LL), S("alice") }, "<alice>", 7 },
	{ "<%-*.*x>", 3, { L(-5LL), L(5LL), L(42LL) }, "<0002a>", 7 },
	{ "<%*b>", 2, { L(-5LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(0LL), L(-1LL), L(42LL) }, "<42>", 4 },
	{ "<%*.*s>", 3, { L(0LL), L(-1LL), S("alice") }, "<>", 2 },
	{ "<%-*.*x>", 3, { L(0LL), L(-1LL), L(42LL) }, "<2a>", 4 },
	{ "<%*b>", 2, { L(0LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(0LL), L(0LL), L(42LL) }, "<42>", 4 },
	{ "<%*.*s>", 3, { L(0LL), L(0LL), S("alice") }, "<>", 2 },
	{ "<%-*.*x>", 3, { L(0LL), L(0LL), L(42LL) }, "<2a>", 4 },
	{ "<%*b>", 2, { L(0LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(0LL), L(2LL), L(42LL) }, "<42>", 4 },
	{ "<%*.*s>", 3, { L(0LL), L(2LL), S("alice") }, "<al>", 4 },
	{ "<%-*.*x>", 3, { L(0LL), L(2LL), L(42LL) }, "<2a>", 4 },
	{ "<%*b>", 2, { L(0LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(0LL), L(5LL), L(42LL) }, "<00042>", 7 },
	{ "<%*.*s>", 3, { L(0LL), L(5LL), S("alice") }, "<alice>", 7 },
	{ "<%-*.*x>", 3, { L(0LL), L(5LL), L(42LL) }, "<0002a>", 7 },
	{ "<%*b>", 2, { L(0LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(3LL), L(-1LL), L(42LL) }, "< 42>", 5 },
	{ "<%*.*s>", 3, { L(3LL), L(-1LL), S("alice") }, "<   >", 5 },
	{ "<%-*.*x>", 3, { L(3LL), L(-1LL), L(42LL) }, "<2a >", 5 },
	{ "<%*b>", 2, { L(3LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(3LL), L(0LL), L(42LL) }, "< 42>", 5 },
	{ "<%*.*s>", 3, { L(3LL), L(0LL), S("alice") }, "<   >", 5 },
	{ "<%-*.*x>", 3, { L(3LL), L(0LL), L(42LL) }, "<2a >", 5 },
	{ "<%*b>", 2, { L(3LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(3LL), L(2LL), L(42LL) }, "< 42>", 5 },
	{ "<%*.*s>", 3, { L(3LL), L(2LL), S("alice") }, "< al>", 5 },
	{ "<%-*.*x>", 3, { L(3LL), L(2LL), L(42LL) }, "<2a >", 5 },
	{ "<%*b>", 2, { L(3LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(3LL), L(5LL), L(42LL) }, "<00042>", 7 },
	{ "<%*.*s>", 3, { L(3LL), L(5LL), S("alice") }, "<alice>", 7 },
	{ "<%-*.*x>", 3, { L(3LL), L(5LL), L(42LL) }, "<0002a>", 7 },
	{ "<%*b>", 2, { L(3LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(8LL), L(-1LL), L(42LL) }, "<      42>", 10 },
	{ "<%*.*s>", 3, { L(8LL), L(-1LL), S("alice") }, "<        >", 10 },
	{ "<%-*.*x>", 3, { L(8LL), L(-1LL), L(42LL) }, "<2a      >", 10 },
	{ "<%*b>", 2, { L(8LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(8LL), L(0LL), L(42LL) }, "<      42>", 10 },
	{ "<%*.*s>", 3, { L(8LL), L(0LL), S("alice") }, "<        >", 10 },
	{ "<%-*.*x>", 3, { L(8LL), L(0LL), L(42LL) }, "<2a      >", 10 },
	{ "<%*b>", 2, { L(8LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(8LL), L(2LL), L(42LL) }, "<      42>", 10 },
	{ "<%*.*s>", 3, { L(8LL), L(2LL), S("alice") }, "<      al>", 10 },
	{ "<%-*.*x>", 3, { L(8LL), L(2LL), L(42LL) }, "<2a      >", 10 },
	{ "<%*b>", 2, { L(8LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(8LL), L(5LL), L(42LL) }, "<   00042>", 10 },
	{ "<%*.*s>", 3, { L(8LL), L(5LL), S("alice") }, "<   alice>", 10 },
	{ "<%-*.*x>", 3, { L(8LL), L(5LL), L(42LL) }, "<0002a   >", 10 },
	{ "<%*b>", 2, { L(8LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(4294967301LL), L(-1LL), L(42LL) }, "<   42>", 7 },
	{ "<%*.*s>", 3, { L(4294967301LL), L(-1LL), S("alice") }, "<     >", 7 },
	{ "<%-*.*x>", 3, { L(4294967301LL), L(-1LL), L(42LL) }, "<2a   >", 7 },
	{ "<%*b>", 2, { L(4294967301LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(4294967301LL), L(0LL), L(42LL) }, "<   42>", 7 },
	{ "<%*.*s>", 3, { L(4294967301LL), L(0LL), S("alice") }, "<     >", 7 },
	{ "<%-*.*x>", 3, { L(4294967301LL), L(0LL), L(42LL) }, "<2a   >", 7 },
	{ "<%*b>", 2, { L(4294967301LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(4294967301LL), L(2LL), L(42LL) }, "<   42>", 7 },
	{ "<%*.*s>", 3, { L(4294967301LL), L(2LL), S("alice") }, "<   al>", 7 },
	{ "<%-*.*x>", 3, { L(4294967301LL), L(2LL), L(42LL) }, "<2a   >", 7 },
	{ "<%*b>", 2, { L(4294967301LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%*.*d>", 3, { L(4294967301LL), L(5LL), L(42LL) }, "<00042>", 7 },
	{ "<%*.*s>", 3, { L(4294967301LL), L(5LL), S("alice") }, "<alice>", 7 },
	{ "<%-*.*x>", 3, { L(4294967301LL), L(5LL), L(42LL) }, "<0002a>", 7 },
	{ "<%*b>", 2, { L(4294967301LL), L(1094861636LL) }, "<DCBA\x00\x00\x00\x00>", 10 },
	{ "<%%>", 0, { L(0) }, "<%>", 3 },
	{ "<%ld %li %lu %lx %lX %lo %lp %ls %lc>", 9, { L(1LL), L(2LL), L(3LL), L(4LL), L(5LL), L(6LL), L(7LL), S("x"), L(65LL) }, "<1 2 3 4 5 6 0x7 x A>", 21 },
	{ "%c is %s; %x or %X or %p; %d or %u", 7, { L(97LL), S("alice"), L(305441741LL), L(305441741LL), L(305441741LL), L(-1LL), L(-1LL) }, "a is alice; 1234abcd or 1234ABCD or 0x1234abcd; -1 or 18446744073709551615", 74 },
	{ "%#o %#x %#X", 3, { L(1LL), L(2LL), L(3LL) }, "01 0x2 0X3", 10 },
	{ "%#c %#c %#c", 3, { L(0LL), L(9LL), L(42LL) }, "\\000 \\t *", 9 },
};

static void test_systemtap_outputs(void)
{
	size_t i;
	int failed = 0;

	for (i = 0; i < sizeof(oracle) / sizeof(oracle[0]); i++) {
		const struct oracle_case *c = &oracle[i];

		run(c->fmt, c->nargs, c->args);
		if (outlen != c->wantlen || memcmp(out, c->want, c->wantlen)) {
			if (failed++ < 10)
				fprintf(stderr, "\n  %s: got %zu bytes '%.*s'",
					c->fmt, outlen, (int)outlen, out);
		}
	}
	CU_ASSERT_EQUAL(failed, 0);
	CU_ASSERT(i > 600);
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

/* ---------- the argument signature the translator and stapbpf check ---------- */

static void test_signature(void)
{
	char sig[8];
	const char *bad = NULL;
	const char *f;

	CU_ASSERT_EQUAL(stp_format_signature("no conversion %%", sig, sizeof(sig), &bad), 0);
	CU_ASSERT_STRING_EQUAL(sig, "");
	CU_ASSERT_EQUAL(stp_format_signature("%-*s=%d %#x%c", sig, sizeof(sig), &bad), 5);
	CU_ASSERT_STRING_EQUAL(sig, "*sdxc");
	CU_ASSERT_EQUAL(stp_format_signature("%*.*s|%.*M|%b", sig, sizeof(sig), &bad), 6);
	CU_ASSERT_STRING_EQUAL(sig, "**s*Mb");
	/* more arguments than fit: counted, sig cut */
	CU_ASSERT_EQUAL(stp_format_signature("%d%d%d%d%d%d%d%d%d", sig, sizeof(sig), &bad), 9);
	CU_ASSERT_STRING_EQUAL(sig, "ddddddd");
	CU_ASSERT_EQUAL(stp_format_signature("%d", sig, 1, &bad), 1);
	CU_ASSERT_STRING_EQUAL(sig, "");
	/* invalid: where, and the arguments before it */
	f = "%s %d %lld %d";
	CU_ASSERT_EQUAL(stp_format_signature(f, sig, sizeof(sig), &bad), -1);
	CU_ASSERT_PTR_EQUAL(bad, f + 6);
	CU_ASSERT_STRING_EQUAL(sig, "sd");
	f = "100%";
	CU_ASSERT_EQUAL(stp_format_signature(f, sig, sizeof(sig), &bad), -1);
	CU_ASSERT_PTR_EQUAL(bad, f + 3);
	CU_ASSERT_EQUAL(stp_format_signature("%-+5d", sig, sizeof(sig), NULL), -1);
	CU_ASSERT_STRING_EQUAL(sig, "");
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
	CU_add_test(s, "SystemTap 4.8 outputs", test_systemtap_outputs);
	CU_add_test(s, "parse spec", test_parse_spec);
	CU_add_test(s, "signature", test_signature);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failures ? 1 : 0;
}
