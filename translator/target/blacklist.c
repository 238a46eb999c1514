/* blacklist.c - the rules of what cstap will not probe (see blacklist.h). */
#include "blacklist.h"
#include "ksyms.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* Text the kernel will not probe, bounded by linker-script markers. The
 * init region (__init_begin..__init_end) holds init text and, after it,
 * the exit text of built-in code (exit_elf_binfmt ...): both are freed
 * once the kernel has booted, so a probe there would patch freed memory. */
const char *const blacklist_text_bounds[][2] = {
	{ "_sinittext", "_einittext" },
	{ "__init_begin", "__init_end" },
	{ "__kprobes_text_start", "__kprobes_text_end" },
	{ "__noinstr_text_start", "__noinstr_text_end" },
	{ "__entry_text_start", "__entry_text_end" },
	{ "__irqentry_text_start", "__irqentry_text_end" },
	{ "__softirqentry_text_start", "__softirqentry_text_end" },
};
const int blacklist_n_text_bounds = sizeof(blacklist_text_bounds) / sizeof(blacklist_text_bounds[0]);

/* A module's sections of the same kinds: init/exit code (gone after
 * load, or never run), noinstr and kprobes text (refused by the kernel). */
bool blacklist_section(const char *s)
{
	return !strncmp(s, ".init", 5) || !strncmp(s, ".exit", 5) || !strncmp(s, ".noinstr", 8) ||
	       !strncmp(s, ".kprobes", 8);
}

/* Why a group of rules refuses its functions (printed after "blacklisted:"). */
static const char why_lock[] =
	"a locking primitive: the probe handler, its output and the kprobe exception path take locks, "
	"so a probe here recurses or deadlocks";
static const char why_atomic[] =
	"an atomic, bit or preempt-count helper the probe handler itself runs through (recursion)";
static const char why_current[] =
	"it reads the current task, which the probe handler does on every hit (recursion)";
static const char why_irq[] =
	"interrupt, APIC or softirq code: a probe here fires in contexts the handler cannot take "
	"(and its output path raises interrupts itself)";
static const char why_mm[] =
	"page-table code: the handler's fault-safe reads and the kprobes' text patching go through it";
static const char why_trap[] =
	"trap, exception-table and context-switch code the kprobe exception path runs through";
static const char why_paravirt[] =
	"a paravirt or low-level asm helper inlined into the kprobe and interrupt paths";
static const char why_kprobes[] =
	"the kprobes machinery itself";
static const char why_thunk[] =
	"a speculation-mitigation thunk (return, indirect-branch or untrain): it runs at every return "
	"or indirect call, the handler's own too, and it is asm with no frame to probe";
static const char why_seq[] =
	"seq_file code, which SystemTap's runtime prints its /proc files through: refused as SystemTap refuses it";

struct rule {
	const char *pattern;    /* fnmatch pattern */
	const char *why;
};

/* Function names (a clone's base name: foo for foo.isra.0). */
static const struct rule name_rules[] = {
	/* locks: spinlocks, rwlocks, mutexes and their raw_/_raw_ forms */
	{ "*spin_lock*", why_lock },
	{ "*spin_unlock*", why_lock },
	{ "*spin_trylock*", why_lock },
	{ "*read_lock*", why_lock },
	{ "*read_unlock*", why_lock },
	{ "*read_trylock*", why_lock },
	{ "*write_lock*", why_lock },
	{ "*write_unlock*", why_lock },
	{ "*write_trylock*", why_lock },
	{ "*raw_*_lock*", why_lock },
	{ "*raw_*_unlock*", why_lock },
	{ "*raw_*_trylock*", why_lock },
	{ "raw_spin_*", why_lock },
	{ "_raw_spin_*", why_lock },
	{ "*mutex*lock*", why_lock },
	{ "*spin_is_locked*", why_lock },
	{ "rwsem_is_locked", why_lock },
	{ "*write_seqlock*", why_lock },
	{ "*write_sequnlock*", why_lock },
	/* atomics, bit operations, the preempt count */
	{ "atomic_*", why_atomic },
	{ "atomic64_*", why_atomic },
	{ "get_bh", why_atomic },
	{ "put_bh", why_atomic },
	{ "*preempt_count*", why_atomic },
	/* the current task */
	{ "current_*", why_current },
	{ "get_current", why_current },
	{ "test_ti_thread_flag", why_current },
	/* interrupts, the local APIC, softirqs */
	{ "*softirq*", why_irq },
	{ "*apic*", why_irq },
	{ "*APIC*", why_irq },
	{ "*_intr*", why_irq },
	{ "xen_irq_*", why_irq },
	{ "unknown_nmi_error", why_irq },
	{ "notifier_call_chain", why_irq },
	{ "HYPERVISOR_event_channel_op", why_paravirt },
	/* page tables */
	{ "*_pte_*", why_mm },
	{ "native_set_pte", why_mm },
	{ "special_mapping_*", why_mm },
	/* traps, exception tables, context switch, signal frames */
	{ "*kernel_text*", why_trap },
	{ "*exception_tables*", why_trap },
	{ "__switch_to", why_trap },
	{ "*setup_rt_frame*", why_trap },
	{ "__delay", why_trap },
	/* the x86 return and indirect-branch thunks (arch/x86/lib/retpoline.S) */
	{ "srso_*ret*", why_thunk },
	{ "*untrain_ret*", why_thunk },
	{ "*return_thunk*", why_thunk },
	{ "__x86_indirect_*thunk*", why_thunk },
	{ "retbleed_*", why_thunk },
	{ "entry_ibpb", why_thunk },
	/* the instruction decoder kprobes use to prepare their single-step */
	{ "inat_get_opcode_attribute", why_kprobes },
	{ "hash_ptr", why_kprobes },
};

/* Declaring files (as listed: relative to the kernel source tree). */
static const struct rule file_rules[] = {
	{ "kernel/kprobes.c", why_kprobes },
	{ "fs/seq_file.c", why_seq },
	{ "arch/x86/include/asm/paravirt.h", why_paravirt },
	{ "arch/x86/kernel/paravirt.c", why_paravirt },
	{ "arch/x86/include/asm/bitops.h", why_atomic },
	{ "arch/x86/include/asm/io.h", why_paravirt },
};

/* The first rule of the table whose pattern matches s, or NULL. */
static const char *match(const struct rule *r, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (fnmatch(r[i].pattern, s, 0) == 0)
			return r[i].why;
	return NULL;
}

const char *blacklist_function_why(const char *name, const char *file)
{
	const char *dot = strchr(name, '.'), *why;
	char base[256];

	if (dot && (size_t)(dot - name) < sizeof(base)) {
		memcpy(base, name, (size_t)(dot - name));
		base[dot - name] = 0;
		name = base;
	}
	why = match(name_rules, sizeof(name_rules) / sizeof(name_rules[0]), name);
	if (!why && file)
		why = match(file_rules, sizeof(file_rules) / sizeof(file_rules[0]), file);
	return why;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

const char *blacklist_kernel_why(const struct ksymtab *t, const struct ksym *k)
{
	const char *name = k->name;

	for (int i = 0; i < t->bad_lo.len; i++)
		if (k->addr >= t->bad_lo.items[i] && k->addr < t->bad_hi.items[i])
			return "in text the kernel refuses kprobes in or frees after boot "
			       "(init, exit, entry, noinstr or kprobes text)";
	if (t->nokprobe.len &&
	    bsearch(&name, t->nokprobe.items, t->nokprobe.len, sizeof(char *), cmp_str))
		return "the kernel refuses kprobes on it (NOKPROBE_SYMBOL)";
	return NULL;
}

const char *blacklist_symbol_why(const struct ksymtab *t, const struct ksym *k)
{
	const char *why = blacklist_kernel_why(t, k);

	return why ? why : blacklist_function_why(k->name, NULL);
}
