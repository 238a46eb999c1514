/* sigcalls.c - signal system calls for the signal tapset's tests: a handler
 * set for SIGUSR1 (do_sigaction), the pending set read (sigpending), SIGUSR1
 * sent to itself (check_kill_permission), a POSIX timer whose expiry queues
 * SIGALRM (send_sigqueue), and a sleeping child woken by SIGTERM
 * (signal_wake_up). Prints nothing. */
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static volatile sig_atomic_t got;

static void on_signal(int sig)
{
	got = sig;
}

int main(void)
{
	struct sigaction sa;
	sigset_t set, old;
	struct sigevent ev;
	struct itimerspec its = { .it_value = { 0, 1000000 } };
	timer_t timer;
	pid_t child;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	sigpending(&set);
	kill(getpid(), SIGUSR1);

	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGALRM;
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, &old);   /* no SIGALRM before sigsuspend */
	if (timer_create(CLOCK_MONOTONIC, &ev, &timer) == 0) {
		timer_settime(timer, 0, &its, NULL);
		while (got != SIGALRM)
			sigsuspend(&old);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);

	child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	usleep(100000);
	kill(child, SIGTERM);
	waitpid(child, NULL, 0);
	return 0;
}
