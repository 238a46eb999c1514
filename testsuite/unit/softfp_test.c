/*
 * Unit tests of runtime/softfp.h: the integer-only IEEE binary64 operations
 * are compared with this machine's FPU (round to nearest even) on random
 * operands of every kind (subnormals, huge, tiny, zeros, infinities), and
 * the SystemTap-specific parts (NaNs, fp_to_string, string_to_fp) with
 * values SystemTap 4.8 produced.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <CUnit/Basic.h>

#include "softfp.h"

static uint64_t seed = 0x9e3779b97f4a7c15ULL;

/* xorshift64*: reproducible operands */
static uint64_t rnd(void)
{
	seed ^= seed >> 12;
	seed ^= seed << 25;
	seed ^= seed >> 27;
	return seed * 0x2545f4914f6cdd1dULL;
}

/* A random double's bits, biased toward the interesting exponents. */
static uint64_t rnd_f64(void)
{
	uint64_t r = rnd(), sign = r & (1ULL << 63), frac = rnd() & STP_F64_FRAC_MASK;
	uint64_t e;

	switch (r & 7) {
	case 0: e = 0; break;				/* zero / subnormal */
	case 1: e = 0x7fe - (r >> 8 & 3); break;	/* near overflow */
	case 2: e = 1 + (r >> 8 & 63); break;		/* near underflow */
	case 3: e = 0x3ff + (r >> 8 & 7); break;	/* near 1 */
	case 4: return sign | (r >> 8 & 1 ? 0x7ff0000000000000ULL : 0);
	default: e = r >> 8 & 0x7fe; break;
	}
	return sign | e << 52 | frac;
}

static double dbl(uint64_t b)
{
	double d;

	memcpy(&d, &b, 8);
	return d;
}

static uint64_t bits(double d)
{
	uint64_t b;

	memcpy(&b, &d, 8);
	return b;
}

/* our result agrees with the FPU's: the same bits, or both NaNs */
static int same(uint64_t ours, double fpu)
{
	if (isnan(fpu))
		return stp_f64_is_nan(ours);
	return ours == bits(fpu);
}

static void test_arith_vs_fpu(void)
{
	int i, bad = 0;

	for (i = 0; i < 200000; i++) {
		uint64_t a = rnd_f64(), b = rnd_f64();
		double x = dbl(a), y = dbl(b);

		bad += !same(stp_f64_addsub(a, b, false), x + y);
		bad += !same(stp_f64_addsub(a, b, true), x - y);
		bad += !same(stp_f64_mul(a, b), x * y);
		bad += !same(stp_f64_div(a, b), x / y);
		bad += !same(stp_f64_rem(a, b), remainder(x, y));
		bad += !same(stp_f64_sqrt(a), sqrt(x));
		bad += stp_f64_eq(a, b) != (x == y);
		bad += stp_f64_lt(a, b) != (x < y);
		bad += stp_f64_le(a, b) != (x <= y);
	}
	CU_ASSERT_EQUAL(bad, 0);
}

static void test_conversions_vs_fpu(void)
{
	int i, bad = 0;

	for (i = 0; i < 100000; i++) {
		int64_t v = (int64_t)rnd() >> (rnd() & 63);
		uint32_t f = (uint32_t)rnd();
		float fl;
		uint64_t a = rnd_f64();
		double x = dbl(a);

		bad += stp_i64_to_f64(v) != bits((double)v);
		memcpy(&fl, &f, 4);
		if (!isnan(fl))
			bad += stp_f32_to_f64(f) != bits((double)fl);
		if (!isnan(x) && fabs(x) < 9.2e18)
			bad += stp_f64_to_i64(a, 1) != (int64_t)x;
	}
	CU_ASSERT_EQUAL(bad, 0);
}

/* what SystemTap 4.8 gives where IEEE leaves the choice, or where its
 * functions do not print a number right */
static void test_systemtap_cases(void)
{
	char buf[MAXSTRINGLEN];
	uint64_t v = 0;

	CU_ASSERT_EQUAL(stp_f64_sqrt(0xbff8000000000000ULL), 0x7ff8000000000000ULL);
	CU_ASSERT_EQUAL(stp_f64_addsub(0x7ff8000000000000ULL, 0x7ff4000000000000ULL, false),
			0x7ffc000000000000ULL);
	CU_ASSERT_EQUAL(stp_f64_mul(0xfff8000000000001ULL, 0x7ff8000000000000ULL),
			0xfff8000000000001ULL);
	CU_ASSERT_EQUAL(stp_f64_addsub(0, 0xfff8000000000001ULL, true), 0xfff8000000000001ULL);
	CU_ASSERT_EQUAL(stp_f32_to_f64(0x7f800001), 0x7ff8000020000000ULL);
	CU_ASSERT_EQUAL(stp_f64_to_i64(0x7ff8000000000000ULL, 0), 0);
	CU_ASSERT_EQUAL(stp_f64_to_i64(0x7ff0000000000000ULL, 0), INT64_MAX);
	CU_ASSERT_EQUAL(stp_f64_to_i64(0x4004000000000000ULL, 6), 2);	/* 6: truncates */
	CU_ASSERT_EQUAL(stp_f64_to_i64(0xbfe0000000000000ULL, 4), -1);

	stp_f64_to_string(buf, sizeof(buf), 0x400921fb54442d18ULL, 6);
	CU_ASSERT_STRING_EQUAL(buf, "3.141593");
	stp_f64_to_string(buf, sizeof(buf), 0x4415af1d78b58c40ULL, 6);	/* 1e20 */
	CU_ASSERT_STRING_EQUAL(buf, "5.421011");
	stp_f64_to_string(buf, sizeof(buf), 0x3feffffffffffffeULL, 2);
	CU_ASSERT_STRING_EQUAL(buf, "0.910");
	stp_f64_to_string(buf, sizeof(buf), 0x3f589374bc6a7efaULL, 6);	/* 0.0015 */
	CU_ASSERT_STRING_EQUAL(buf, "0.001100");
	stp_f64_to_string(buf, sizeof(buf), 0xfff0000000000000ULL, 0);
	CU_ASSERT_STRING_EQUAL(buf, "-1.0");
	stp_f64_to_string(buf, 8, 0x400921fb54442d18ULL, 100);
	CU_ASSERT_STRING_EQUAL(buf, "3.14159");

	CU_ASSERT_EQUAL(stp_string_to_f64("1e10", &v), 0);
	CU_ASSERT_EQUAL(v, 0x4202a05f1ffffffeULL);
	CU_ASSERT_EQUAL(stp_string_to_f64("-.5", &v), 0);
	CU_ASSERT_EQUAL(v, 0xbfe0000000000000ULL);
	CU_ASSERT_EQUAL(stp_string_to_f64("99999999999999999999", &v), 0);
	CU_ASSERT_EQUAL(v, 0x4415af1d78b58c41ULL);
	CU_ASSERT_EQUAL(stp_string_to_f64("-", &v), 0);
	CU_ASSERT_EQUAL(v, 0x8000000000000000ULL);
	CU_ASSERT_EQUAL(stp_string_to_f64("1e-99999", &v), 0);
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT_EQUAL(stp_string_to_f64("0e99999", &v), -EINVAL);
	CU_ASSERT_EQUAL(stp_string_to_f64(" 7", &v), -EINVAL);
	CU_ASSERT_EQUAL(stp_string_to_f64("1.2.3", &v), -EINVAL);
	CU_ASSERT_EQUAL(stp_string_to_f64("inf", &v), -EINVAL);
}

int main(void)
{
	CU_pSuite s;
	unsigned int failures;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	s = CU_add_suite("softfp", NULL, NULL);
	CU_add_test(s, "arithmetic against the FPU", test_arith_vs_fpu);
	CU_add_test(s, "conversions against the FPU", test_conversions_vs_fpu);
	CU_add_test(s, "SystemTap 4.8's choices", test_systemtap_cases);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failures = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failures ? 1 : 0;
}
