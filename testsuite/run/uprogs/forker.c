/* forker: the process lifecycle probes' workload (process_* run tests).
 * One thread, then a child that exits with status 3, then a child that
 * execs this program again ("exec": it exits with status 5), each waited
 * for in turn, so the events come in a fixed order (the thread counts as
 * gone once /proc no longer lists it: pthread_join returns before the
 * kernel has quite finished with it). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static long thread_tid;

static void *thread_fn(void *arg)
{
	thread_tid = syscall(SYS_gettid);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t t;
	pid_t c;

	if (argc > 1 && !strcmp(argv[1], "exec"))
		return 5;
	pthread_create(&t, NULL, thread_fn, NULL);
	pthread_join(t, NULL);
	char task[64];
	snprintf(task, sizeof(task), "/proc/self/task/%ld", thread_tid);
	for (int i = 0; i < 2000 && access(task, F_OK) == 0; i++)
		usleep(1000);
	if ((c = fork()) == 0)
		_exit(3);
	waitpid(c, NULL, 0);
	if ((c = fork()) == 0) {
		execl(argv[0], argv[0], "exec", (char *)NULL);
		_exit(127);
	}
	waitpid(c, NULL, 0);
	getppid();
	return 0;
}
