/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: the one header a generated module includes after its
 * configuration #defines (doc/runtime-api.md). Everything is static: the
 * runtime and the script form a single translation unit.
 */
#ifndef STP_RUNTIME_H
#define STP_RUNTIME_H

#include "kheaders.h"	/* the kernel's, precompiled by pass 4 */
#include "config.h"
#include "ctl_proto.h"
#include "run_state.h"
#include "transport.h"
#include "format.h"
#include "strings.h"
#include "map.h"
#include "context.h"
#include "print.h"
#include "lock.h"
#include "ops.h"
#include "stat.h"
#include "deref.h"

#endif /* STP_RUNTIME_H */
