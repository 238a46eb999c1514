/* sdt_test.c - SDT markers (<sys/sdt.h>, Debian's systemtap-sdt-dev) for
 * the process("P").mark(...) run tests: markers without arguments, with
 * arguments of every size and signedness in registers, in memory and as
 * constants, and one guarded by a semaphore (as `dtrace -h` headers guard
 * them), which is only reached while it is probed: the kernel increments
 * the semaphore then. The unguarded marker "semaphore" passes its value.
 * The marker "end" passes how many times the guarded one was reached.
 * usage: sdt_test [N]   (N loop iterations, default 3)
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

/* The semaphore of marker cstap_test:guarded, in section .probes as
 * sdt.h expects it. */
unsigned short cstap_test_guarded_semaphore __attribute__((section(".probes"))) = 0;

/* sdt.h names a semaphore only when _SDT_HAS_SEMAPHORES was defined
 * before it was included, for every marker of the file; here only the
 * guarded marker names one. */
#undef _SDT_SEMAPHORE
#define _SDT_SEMAPHORE(p, n) _SDT_ASM_1(_SDT_ASM_ADDR p##_##n##_semaphore)
static int guarded(int i, const char *word)
{
	if (!cstap_test_guarded_semaphore)
		return 0;
	STAP_PROBE2(cstap_test, guarded, i, word);
	return 1;
}
#undef _SDT_SEMAPHORE
#define _SDT_SEMAPHORE(p, n) _SDT_ASM_1(_SDT_ASM_ADDR 0)

struct point { int x; long y; };
static long total;

/* A memory operand relative to %rip (total(%rip)): its argument must be
 * in memory. */
#undef STAP_SDT_ARG_CONSTRAINT
#define STAP_SDT_ARG_CONSTRAINT m
static void global_marker(void)
{
	STAP_PROBE1(cstap_test, global, total);
}
#undef STAP_SDT_ARG_CONSTRAINT
#define STAP_SDT_ARG_CONSTRAINT nor
static const char word[] = "hello";

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3, hits = 0;
	struct point pt = { -7, 1234567890123L };
	volatile char first = word[0];   /* its page is in: the script reads it */

	(void)first;

	STAP_PROBE(cstap_test, start);
	for (int i = 0; i < n; i++) {
		signed char c = (signed char)-i;
		short s = (short)(-1000 * i);
		unsigned short us = (unsigned short)(60000 + i);
		unsigned int u = 4000000000U + (unsigned)i;
		total += 10 * i;
		STAP_PROBE3(cstap_test, loop, i, word, total);
		STAP_PROBE5(cstap_test, sizes, c, s, us, u, (long)-i);
		STAP_PROBE1(cstap_test, semaphore, cstap_test_guarded_semaphore);
		hits += guarded(i, word);
	}
	STAP_PROBE3(cstap_test, point, pt.x, pt.y, &pt);
	STAP_PROBE2(cstap_test, constants, 5, -1);
	global_marker();
	STAP_PROBE1(cstap_test, end, hits);
	printf("guarded hits %d\n", hits);
	return 0;
}
