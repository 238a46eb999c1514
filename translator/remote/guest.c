/* guest.c - the guest's /init: a busybox sh script that sets up the
 * system and the serial channels, runs the job(s) and powers off.
 *
 * Channels (all raw mode): ttyS1 = the interactive command's stdout, ttyS2 =
 * its stderr, ttyS3 = control. Guest -> host on ttyS3: "UP", "RC <status>"
 * (interactive), per batch job "RESULT <id> <status> <timedout>", "OUT",
 * base64 lines, "ERR", base64 lines, "END <id>", and last "DONE". Host ->
 * guest on ttyS3: "INT" (the host got SIGINT). The console (ttyS0) only gets
 * "cstap-guest:" progress lines besides the kernel's messages.
 *
 * Draining: a tty's last close waits until its output is sent, so "DONE" is
 * written with a fresh open after every other holder is gone; every job's
 * process group is gone (hence its ttys closed) before its status is sent.
 */
#include "internal.h"

#include <string.h>

static const char init_head[] =
	"#!/bin/sh\n"
	"# /init of a cstap QEMU guest, written by the host (translator/remote/guest.c)\n"
	"export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root TERM=dumb\n"
	"export CSTAP_STAPIO=" VM_GUEST_STAPIO "\n"
	"mount -t proc proc /proc\n"
	"mount -t sysfs sysfs /sys\n"
	"mount -t devtmpfs devtmpfs /dev\n"
	"mount -t debugfs debugfs /sys/kernel/debug\n"
	"mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null\n"
	"mkdir -p /dev/pts /run/cstap/out\n"
	"mount -t devpts devpts /dev/pts\n"
	"hostname cstap-guest\n"
	"cd /\n"
	"S=/run/cstap\n"
	"for p in 1 2 3; do\n"
	"\tstty -F /dev/ttyS$p raw -echo || echo \"cstap-guest: cannot set up /dev/ttyS$p\"\n"
	"done\n"
	"exec 3<>/dev/ttyS3\n"
	"# host -> guest: INT = the host got SIGINT: interrupt the job, skip the rest\n"
	"while read -r l; do\n"
	"\tcase $l in\n"
	"\tINT) : >$S/stop; p=$(cat $S/pid 2>/dev/null) && kill -INT -$p 2>/dev/null;;\n"
	"\tesac\n"
	"done <&3 &\n"
	"lsn=$!\n"
	"echo \"cstap-guest: up after $(cut -d' ' -f1 /proc/uptime) s\"\n"
	"echo UP >&3\n"
	"\n"
	"# run TIMEOUT OUT ERR PROGRAM ARGS...: run a job in a session (so a process\n"
	"# group) of its own, stdin /dev/null. TIMEOUT (0: none): SIGINT to the group,\n"
	"# SIGKILL 5 s later. Stragglers get 5 s to finish after the job's leader.\n"
	"# Sets rc, ran (0: skipped after an interrupt), timedout.\n"
	"run() {\n"
	"\tt=$1 o=$2 e=$3; shift 3\n"
	"\trc=130 ran=0 timedout=0 wd=\n"
	"\t[ -e $S/stop ] && return\n"
	"\tran=1\n"
	"\trm -f $S/pid $S/timedout\n"
	"\tif [ \"$t\" -gt 0 ]; then\n"
	"\t\tsetsid sh -c 'sleep $1; p=$(cat /run/cstap/pid) || exit 0; : >/run/cstap/timedout\n"
	"\t\t\techo \"cstap-guest: job timed out after $1 s: SIGINT\"; kill -INT -$p; sleep 5\n"
	"\t\t\techo \"cstap-guest: job still running: SIGKILL\"; kill -KILL -$p' watchdog \"$t\" </dev/null &\n"
	"\t\twd=$!\n"
	"\tfi\n"
	"\tsetsid sh -c 'echo $$ >/run/cstap/pid; exec \"$@\"' job \"$@\" </dev/null >\"$o\" 2>\"$e\"\n"
	"\trc=$?\n"
	"\tp=$(cat $S/pid 2>/dev/null)\n"
	"\tif [ -n \"$p\" ]; then\n"
	"\t\ti=0\n"
	"\t\twhile kill -0 -$p 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done\n"
	"\t\tkill -KILL -$p 2>/dev/null\n"
	"\tfi\n"
	"\t[ -n \"$wd\" ] && kill -KILL -$wd 2>/dev/null\n"
	"\t[ -e $S/timedout ] && timedout=1\n"
	"\trm -f $S/pid\n"
	"}\n"
	"\n";

static const char init_tail[] =
	"\n"
	"kill $lsn 2>/dev/null; wait $lsn 2>/dev/null\n"
	"exec 3>&-\n"
	"echo \"cstap-guest: done after $(cut -d' ' -f1 /proc/uptime) s\"\n"
	"echo DONE >/dev/ttyS3\n"
	"poweroff -f\n"
	"echo o >/proc/sysrq-trigger\n";

static const char batch_job_fn[] =
	"# job ID TIMEOUT: run /cstap/jobs/ID.sh, send its results to the host\n"
	"job() {\n"
	"\trun $2 $S/out/$1.out $S/out/$1.err sh /cstap/jobs/$1.sh\n"
	"\t[ $ran = 1 ] || return 0\n"
	"\techo \"cstap-guest: job $1 exited with status $rc\"\n"
	"\t{ echo \"RESULT $1 $rc $timedout\"; echo OUT; base64 $S/out/$1.out\n"
	"\t  echo ERR; base64 $S/out/$1.err; echo \"END $1\"; } >&3\n"
	"\trm -f $S/out/$1.out $S/out/$1.err\n"
	"}\n"
	"\n";

char *vm_init_interactive(char *const argv[], const char *prelude)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, init_head);
	strbuf_addstr(&sb, prelude);
	strbuf_addstr(&sb, "run 0 /dev/ttyS1 /dev/ttyS2");
	for (int i = 0; argv[i]; i++) {
		strbuf_addch(&sb, ' ');
		strbuf_add_shell_quoted(&sb, argv[i]);
	}
	strbuf_addstr(&sb, "\necho \"cstap-guest: command exited with status $rc\"\n"
			   "echo \"RC $rc\" >&3\n");
	strbuf_addstr(&sb, init_tail);
	return strbuf_detach(&sb);
}

char *vm_init_batch(const struct vm_job *jobs, int njobs, const char *prelude)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addstr(&sb, init_head);
	strbuf_addstr(&sb, prelude);
	strbuf_addstr(&sb, batch_job_fn);
	for (int i = 0; i < njobs; i++)
		strbuf_addf(&sb, "job %d %d\n", i + 1, jobs[i].timeout_s > 0 ? jobs[i].timeout_s : 60);
	strbuf_addstr(&sb, init_tail);
	return strbuf_detach(&sb);
}
