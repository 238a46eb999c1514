/* qemu.h - run commands in a QEMU/TCG guest booting a given kernel.
 *
 * The host kernel may be unable to load modules (or be another release), so
 * pass 5 and the test suite run staprun in a throw-away guest: a busybox
 * initramfs (cached base: busybox, staprun, stapio; plus a small per-run part
 * with /init, the jobs and the requested files) on the target kernel.
 *
 * Channels: the kernel console (ttyS0) goes to a log file only; the job's
 * stdout and stderr travel on their own serial ports (ttyS1, ttyS2, raw
 * mode), control messages and batch results on ttyS3. So kernel messages
 * never mix into the job's output. In the guest: staprun at /usr/bin/staprun,
 * stapio at /usr/libexec/cstap/stapio (also exported as $CSTAP_STAPIO),
 * TERM=dumb, proc/sys/devtmpfs/debugfs/tracefs mounted.
 *
 * Messages are printed to stderr prefixed with the program's name.
 */
#ifndef CSTAP_REMOTE_QEMU_H
#define CSTAP_REMOTE_QEMU_H

#include "util.h"

/* Copy host file `host` into the guest at absolute path `guest` (NULL: the
 * host file's absolute path). Dynamically linked executables get their
 * shared libraries (at their host paths) too. */
struct vm_file { const char *host, *guest; };

struct vm_config {
	const char *release;    /* kernel release; NULL = releases_default() (target/releases.h) */
	const char *kernel;     /* vmlinuz path; NULL = ROOT/boot/vmlinuz-<release> */
	const char *root;       /* the system's files under this directory (--sysroot):
	                           its kernel image and modules; NULL = this system's */
	int cpus;               /* default 1; >1 uses -accel tcg,thread=single */
	int mem_mb;             /* default 512, more for big files (default_memory) */
	int timeout_s;          /* whole-VM wall-clock limit; 0: default 60 + 60 per job
	                           (batch: a job's share is max(60, its timeout + 10));
	                           < 0: no limit */
	int verbose;            /* 1: steps and timings on stderr; 2: also the console */
	VEC(struct vm_file) files;
	VEC(const char *) modules;  /* modules of the guest kernel to load before the
	                           job(s): names as in lsmod ("brd"); their dependencies
	                           (modules.dep) come along; needs .release */
	const char *staprun, *stapio;  /* host paths of the static binaries; NULL = find them:
	                           $CSTAP_STAPRUN / $CSTAP_STAPIO, else the build tree
	                           (<dir of this program>/../staprun/), else the installed
	                           ones (<dir of this program>/staprun, PKGLIBEXECDIR/stapio).
	                           Not found: warning, the guest has none. */
	/* extensions */
	const char *console_log;  /* keep the kernel console log here (NULL: a temp file,
	                           removed after a clean run, kept and named on failure) */
	const char *append;       /* extra kernel command line arguments, or NULL */
	const char *qemu;         /* qemu binary; NULL = $CSTAP_QEMU or qemu-system-x86_64 */
	VEC(const char *) forwards;  /* "HOSTPORT:GUESTPORT": TCP connections to
	                           127.0.0.1:HOSTPORT on the host reach GUESTPORT in the
	                           guest (QEMU user networking, virtio-net; the guest's
	                           eth0 is 10.0.2.15/24, gateway 10.0.2.2). Needs .release */
};

/* Interactive: run `argv` (e.g. staprun /ko/x.ko ...) in the guest; its stdout
 * and stderr are streamed to ours (fd 1, fd 2) while it runs. The first SIGINT
 * on the host is forwarded to the guest command's process group as SIGINT (so
 * end probes run); a second SIGINT, SIGTERM or SIGHUP kills the guest.
 * Returns the command's exit status (128+N if killed by signal N), or -1 after
 * a message naming the console log if the guest failed to boot or finish
 * (panic, oops, timeout, killed). */
int vm_run_interactive(struct vm_config *cfg, char *const argv[]);

/* Batch: many jobs in ONE boot, one after another. Each job is a shell
 * command line run by /bin/sh in the guest (stdin /dev/null, own process
 * group) with a per-job timeout (timeout_s <= 0: 60): SIGINT to its process
 * group, SIGKILL 5 s later. Results in outdir/NAME.out (stdout), NAME.err
 * (stderr), NAME.rc (exit status and a newline), byte-exact; each job's files
 * are written as soon as it ends. NAME: [A-Za-z0-9_.-]+, not starting with '.'.
 * A SIGINT on the host interrupts the current job and skips the rest (they get
 * no files, and the result is -1). Returns 0 if the guest finished (even if
 * jobs failed), -1 if not. */
struct vm_job { const char *name; const char *cmd; int timeout_s; };
int vm_run_batch(struct vm_config *cfg, const struct vm_job *jobs, int njobs, const char *outdir);

#endif
