/* d_prov_lockstat.c - the lockstat provider: mutexes, reader/writer
 * locks and spin locks acquired, released, blocked or spun on, as the
 * kernel functions doing it (kernel.function, optional: the module
 * runtime's kprobes; this host has neither kprobes nor trampolines, and
 * cstap refuses to probe the spin lock functions its own handlers take).
 * args[0] is the lock; the times blocked or spun (args[1]) are not
 * measured (0).
 */
#include "d/d_provider.h"

#define FN(f) "kernel.function(\"" f "\") ?"
#define RET(f) "kernel.function(\"" f "\").return ?"
#define WRITER "(ppfunc() == \"_raw_write_lock\" || ppfunc() == \"_raw_write_unlock\" || " \
	"ppfunc() == \"queued_write_lock_slowpath\")"

static const struct d_tprobe probes[] = {
	{ "adaptive-acquire", RET("mutex_lock"), NULL, NULL, { { "struct mutex *", "$lock" } } },
	{ "adaptive-acquire-error", RET("mutex_lock_interruptible"), "$return != 0", NULL,
	  { { "struct mutex *", "$lock" }, { "int", "$return" } } },
	{ "adaptive-block", RET("__mutex_lock_slowpath"), NULL, NULL,
	  { { "struct mutex *", "$lock" }, { "uint64_t", "0" } } },
	{ "adaptive-release", FN("mutex_unlock"), NULL, NULL, { { "struct mutex *", "$lock" } } },
	{ "adaptive-spin", RET("mutex_spin_on_owner"), NULL, NULL,
	  { { "struct mutex *", "$lock" }, { "uint64_t", "0" } } },
	{ "rw-acquire", RET("_raw_read_lock") ", " RET("_raw_write_lock"), NULL, NULL,
	  { { "struct rwlock *", "$lock" }, { "int", WRITER } } },
	{ "rw-block", RET("queued_read_lock_slowpath") ", " RET("queued_write_lock_slowpath"), NULL, NULL,
	  { { "struct rwlock *", "$lock" }, { "uint64_t", "0" }, { "int", WRITER } } },
	{ "rw-release", FN("_raw_read_unlock") ", " FN("_raw_write_unlock"), NULL, NULL,
	  { { "struct rwlock *", "$lock" }, { "int", WRITER } } },
	{ "rw-spin", RET("queued_read_lock_slowpath") ", " RET("queued_write_lock_slowpath"), NULL, NULL,
	  { { "struct rwlock *", "$lock" }, { "uint64_t", "0" }, { "int", WRITER } } },
	{ "spin-acquire", RET("_raw_spin_lock"), NULL, NULL, { { "spinlock_t *", "$lock" } } },
	{ "spin-release", FN("_raw_spin_unlock"), NULL, NULL, { { "spinlock_t *", "$lock" } } },
	{ "spin-spin", RET("native_queued_spin_lock_slowpath"), NULL, NULL,
	  { { "spinlock_t *", "$lock" }, { "uint64_t", "0" } } },
};

static const struct d_ptable table = { "lockstat", "vmlinux", probes, sizeof(probes) / sizeof(probes[0]) };

const struct d_family d_fam_lockstat = D_TABLE_FAMILY("lockstat", table, "Private", "Private", "Unknown",
						      "Evolving", "Evolving", "ISA");
