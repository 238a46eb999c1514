/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap: when the runtime lets a probe run. The one definition, shared by
 * the translator (translator/probes/provider.h: a derived probe's kind) and
 * the module runtime (run_state.h, context.h), so the numbers the generated
 * C names cannot drift. No includes: kernel and user space both read it.
 */
#ifndef STP_PROBE_KIND_H
#define STP_PROBE_KIND_H

enum stp_probe_kind {
	STP_PK_NORMAL = 0,	/* while the run is running */
	STP_PK_BEGIN,		/* once, as the run starts */
	STP_PK_END,		/* once, as it stops */
	STP_PK_ERROR,		/* once, when it stops on errors */
	STP_PK_NEVER,		/* never: the translator drops its handler */
};

#endif /* STP_PROBE_KIND_H */
