/* oldcalls.c - system calls made by number, for the syscall tapset's tests:
 * nanosleep and getuid (in a 32-bit build, the compat nanosleep_time32 and
 * the 16-bit-uid getuid), and calls the kernel no longer implements
 * (_sysctl; bdflush in a 32-bit task), which fail with ENOSYS. Built both
 * as a 64-bit and (-m32) a 32-bit static program by run-tests.sh. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#ifdef __i386__
#define NR_SYSCTL 149
#define NR_BDFLUSH 134
#else
#define NR_SYSCTL 156
#endif

int main(void)
{
	struct timespec ts = { 0, 1000 };
	long r;

	syscall(SYS_nanosleep, &ts, NULL);
	syscall(SYS_getuid);
	r = syscall(NR_SYSCTL, 0);
	printf("_sysctl: %ld\n", r);
#ifdef __i386__
	r = syscall(NR_BDFLUSH, 0, 0L);
	printf("bdflush: %ld\n", r);
#endif
	return 0;
}
