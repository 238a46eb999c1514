/* spin MS: a program busy on the CPU, the sampling perf probes' workload
 * (perf_process run test): a second thread and the first each use MS
 * milliseconds of CPU time, the thread first, then the first thread. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static long ms;

static void spin(void)
{
	struct timespec t0, t;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do {
		for (int i = 0; i < 100000; i++)
			x += i;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

static void *thread_fn(void *arg)
{
	spin();
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;

	ms = argc > 1 ? atol(argv[1]) : 100;
	pthread_create(&t, NULL, thread_fn, NULL);
	pthread_join(t, NULL);
	spin();
	return 0;
}
