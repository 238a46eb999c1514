/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: module init/exit and the START/STOP handling. Included at
 * the end of the generated module, after stp_script_init/start/stop/exit
 * and STP_FRAME_SIZE are defined.
 */
#ifndef STP_RUNTIME_MAIN_H
#define STP_RUNTIME_MAIN_H

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/cred.h>
#include "runtime.h"

MODULE_LICENSE("GPL");		/* irq_work, kprobes etc. are GPL-only */
/* who may load it: staprun checks the caller's groups against this when
 * the module is signed by a signer it trusts (a module's own word is
 * worth nothing otherwise) */
#if defined(STP_PRIVILEGE_SYS)
MODULE_INFO(stap_privilege, "stapsys");
#elif defined(STP_PRIVILEGE_USR)
MODULE_INFO(stap_privilege, "stapusr");
#else
MODULE_INFO(stap_privilege, "stapdev");
#endif

/* staprun -s N: output ring of N MiB (0 = STP_BUFFER_SIZE) */
static unsigned int stp_bufsize_mb;
module_param_named(_stp_bufsize, stp_bufsize_mb, uint, 0);

static DEFINE_MUTEX(stp_ctl_mutex);	/* serializes START, STOP, unload */
static bool stp_started, stp_stopped;

/*
 * START: begin probes run here, in stapio's write(), then the other probes
 * get registered. A registration failure is a run-time error: stapio
 * hears EXIT, sends STOP and exits 1.
 */
static int stp_ctl_start(int target_pid)
{
	int rc;

	mutex_lock(&stp_ctl_mutex);
	if (stp_started || stp_stopped) {
		mutex_unlock(&stp_ctl_mutex);
		return -EALREADY;
	}
	if (stp_init_error) {
		/* not a run-time error: no end probes, no summary; stapio exits 1 */
		char line[STP_MSG_LINE_MAX];
		int n = scnprintf(line, sizeof(line), "ERROR: %s\n", stp_init_error);

		stp_transport_write(STP_MSG_ERR, line, n);
		stp_stopped = true;
		mutex_unlock(&stp_ctl_mutex);
		return -ECANCELED;
	}
	stp_started = true;
	stp_target = target_pid;
	/* stapio writes START: this is its process */
	stp_stapio_pid = task_tgid_nr(current);
	stp_stapio_uid = from_kuid(&init_user_ns, current_uid());
	rc = stp_script_start();
	if (rc)
		stp_err("probe registration failed (error %d)", rc);
	stp_state_move(1u << STP_STARTING, STP_RUNNING);
	mutex_unlock(&stp_ctl_mutex);
	return 0;
}

/* Stop the script (once): unregister, end or error probes, STOPPED. */
static void stp_stop_locked(void)
{
	if (stp_stopped)
		return;
	stp_stopped = true;
	if (stp_started) {
		stp_state_move((1u << STP_STARTING) | (1u << STP_RUNNING),
			       STP_STOPPING);
		stp_script_stop();
		stp_timing_report();
	}
	atomic_set(&stp_state, STP_STOPPED);
	stp_transport_done();
}

/* STOP: runs the end probes in stapio's write(); DONE follows the output. */
static void stp_ctl_stop(void)
{
	mutex_lock(&stp_ctl_mutex);
	stp_stop_locked();
	mutex_unlock(&stp_ctl_mutex);
}

static int __init stp_module_init(void)
{
	size_t bufsize = stp_bufsize_mb ? (size_t)stp_bufsize_mb << 20 : STP_BUFFER_SIZE;
	int rc;

	rc = stp_transport_init(bufsize);
	if (rc)
		return rc;
	rc = stp_contexts_alloc(STP_FRAME_SIZE);
	if (rc)
		goto err_transport;
	rc = stp_script_init();
	if (rc && !stp_init_error)
		goto err_contexts;
	rc = stp_transport_open();
	if (rc)
		goto err_script;
	return 0;

err_script:
	stp_script_exit();
err_contexts:
	stp_contexts_free();
err_transport:
	stp_transport_exit();
	return rc;
}

/*
 * Unload. If stapio went away without STOP (killed), the probes are still
 * registered: stop them first (end probes run, their output is lost).
 */
static void __exit stp_module_exit(void)
{
	mutex_lock(&stp_ctl_mutex);
	stp_stop_locked();
	mutex_unlock(&stp_ctl_mutex);
	stp_transport_exit();
	stp_script_exit();
	stp_contexts_free();
}

module_init(stp_module_init);
module_exit(stp_module_exit);

#endif /* STP_RUNTIME_MAIN_H */
