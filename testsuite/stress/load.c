/* load.c - the stress test's workload: NPROC processes (default 2, one a
 * vCPU) that each loop for SECS seconds (default 3600: until killed) over
 * read(2) of /dev/zero and /proc/self/stat (vfs_read), getppid(2), and a
 * fork+wait every 64 rounds (scheduler switches, process creation and exit),
 * so that probes on hot kernel paths fire on both CPUs at once. Built static
 * on the host by testsuite/stress.sh. Prints "load: N rounds" per process.
 * SIGTERM to the first process stops them all: the caller kills one pid,
 * never a `pidof load` list, which can name a fork that is already gone. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

/* SIGTERM ends the loops; each process still reports. */
static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* One process's loop; returns its number of rounds. */
static long spin(time_t secs)
{
	time_t end = time(NULL) + secs;
	char buf[512];
	long rounds = 0;
	int zero = open("/dev/zero", O_RDONLY);
	int stat = open("/proc/self/stat", O_RDONLY);

	while (!stop && time(NULL) < end) {
		if (read(zero, buf, sizeof(buf)) < 0 || pread(stat, buf, sizeof(buf), 0) < 0)
			break;
		syscall(SYS_getppid);
		if (++rounds % 64 == 0) {
			pid_t p = fork();
			if (p == 0)
				_exit(0);
			if (p > 0)
				waitpid(p, NULL, 0);
		}
	}
	return rounds;
}

int main(int argc, char **argv)
{
	int nproc = argc > 1 ? atoi(argv[1]) : 2;
	time_t secs = argc > 2 ? atol(argv[2]) : 3600;
	pid_t workers[64];
	int n = 0;

	signal(SIGTERM, on_term);

	for (int i = 1; i < nproc && n < 64; i++) {
		pid_t p = fork();
		if (p == 0) {
			printf("load: %ld rounds\n", spin(secs));
			return 0;
		}
		if (p > 0)
			workers[n++] = p;
	}
	printf("load: %ld rounds\n", spin(secs));
	fflush(stdout);
	for (int i = 0; i < n; i++)
		kill(workers[i], SIGTERM);
	while (wait(NULL) > 0)
		;
	return 0;
}
