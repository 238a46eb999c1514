/* ucall_loop.c - probe-hit workload for process probes: N calls of a small
 * function that a uprobe is put on, timed; prints ns_per_call=<float> n=N
 * (the syscall_loop format of ../shared/anchor/bench). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) long hot(long x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, s = 0;
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++)
		s = hot(s);
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("ns_per_call=%.1f n=%ld s=%ld\n", ns / (n ? n : 1), n, s);
	return 0;
}
