/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: the kernel-version shims, in one place. Everything else in
 * runtime/ (and the C of the tapsets) uses the names defined here and never
 * tests LINUX_VERSION_CODE itself. Nor does this file: it decides on the
 * STP_HAVE_* macros of stp_kfeatures.h, which pass 4 writes by compiling a
 * small test per feature against the target kernel's headers
 * (translator/build/kfeatures.c), so a backport counts. Targets: 5.3 and
 * later; tested on Debian's 6.1 and 6.12 cloud kernels.
 */
#ifndef STP_KCOMPAT_H
#define STP_KCOMPAT_H

#ifdef __KERNEL__
#ifndef STP_KFEATURES_H
#error "stp_kfeatures.h (pass 4's kernel feature tests) must be included before the runtime"
#endif
#include <linux/fs.h>
#include <linux/uaccess.h>

/*
 * STP_READ_MEM(dst, addr, n) / STP_READ_USER_MEM(dst, addr, n): copy n
 * bytes from a kernel / user address without faulting; 0 or -EFAULT.
 * A module may define its own before including the runtime.
 * 5.8 renamed probe_kernel_read/probe_user_read.
 */
#ifdef STP_HAVE_NOFAULT_READS
#ifndef STP_READ_MEM
#define STP_READ_MEM(dst, addr, n)					\
	(copy_from_kernel_nofault((dst), (const void *)(uintptr_t)(addr), \
				  (n)) ? -EFAULT : 0)
#endif
#ifndef STP_READ_USER_MEM
#define STP_READ_USER_MEM(dst, addr, n)					\
	(copy_from_user_nofault((dst),					\
				(const void __user *)(uintptr_t)(addr),	\
				(n)) ? -EFAULT : 0)
#endif
#else
#ifndef STP_READ_MEM
#define STP_READ_MEM(dst, addr, n)					\
	(probe_kernel_read((dst), (const void *)(uintptr_t)(addr),	\
			   (n)) ? -EFAULT : 0)
#endif
#ifndef STP_READ_USER_MEM
#define STP_READ_USER_MEM(dst, addr, n)					\
	(probe_user_read((dst), (const void __user *)(uintptr_t)(addr),	\
			 (n)) ? -EFAULT : 0)
#endif
#endif

/*
 * stp_write_kernel_nofault(dst, src, size): store size (1, 2, 4 or 8) bytes
 * at a kernel address without faulting; 0 or -EFAULT. Neither 6.1 nor 6.12
 * exports copy_to_kernel_nofault, so this is its inline core: the arch's
 * __put_kernel_nofault with page faults disabled.
 */
static inline int stp_write_kernel_nofault(void *dst, const void *src, int size)
{
	pagefault_disable();
	switch (size) {
	case 1: __put_kernel_nofault(dst, src, u8, efault); break;
	case 2: __put_kernel_nofault(dst, src, u16, efault); break;
	case 4: __put_kernel_nofault(dst, src, u32, efault); break;
	case 8: __put_kernel_nofault(dst, src, u64, efault); break;
	default: goto efault;
	}
	pagefault_enable();
	return 0;
efault:
	pagefault_enable();
	return -EFAULT;
}

/* 5.6 gave /proc files their own struct proc_ops (STP_HAVE_PROC_OPS). */

/* 6.12 removed no_llseek: a NULL llseek (with nonseekable_open) says the
 * same. */
#ifdef STP_HAVE_NO_LLSEEK
#define STP_NO_LLSEEK no_llseek
#else
#define STP_NO_LLSEEK NULL
#endif

/*
 * 6.8 removed strlcpy (for strscpy, which returns -E2BIG, not the source
 * length). The embedded C of scripts and tapsets written for SystemTap
 * calls it, so it stays: the same semantics, the length of src returned.
 */
#ifndef STP_HAVE_STRLCPY
#include <linux/string.h>
static inline size_t stp_kstrlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}
#define strlcpy stp_kstrlcpy
#endif

/*
 * STP_MODULE_TEXT_SIZE(mod) / STP_MODULE_CORE_SIZE(mod): bytes of a
 * module's code, and of all it keeps after init (module_size()). 6.4 split
 * the core layout into one area per kind of memory.
 */
#ifdef STP_HAVE_MODULE_MEM
#define STP_MODULE_TEXT_SIZE(mod) ((mod)->mem[MOD_TEXT].size)
#define STP_MODULE_CORE_SIZE(mod)					\
	((mod)->mem[MOD_TEXT].size + (mod)->mem[MOD_DATA].size +	\
	 (mod)->mem[MOD_RODATA].size + (mod)->mem[MOD_RO_AFTER_INIT].size)
#else
#define STP_MODULE_TEXT_SIZE(mod) ((mod)->core_layout.text_size)
#define STP_MODULE_CORE_SIZE(mod) ((mod)->core_layout.size)
#endif

/*
 * Uprobes (process probes). 6.12 (6.11's rework) returns the struct uprobe
 * from uprobe_register, which takes the SDT semaphore offset itself, and
 * splits unregistering into a per-probe part and one wait for every
 * handler to finish (uprobe_unregister_sync); before, register_refctr took
 * the semaphore and unregister waited per probe. A consumer's filter also
 * lost its context argument (cstap sets none).
 *   stp_uprobe_register(inode, off, ref_ctr, uc, &handle): 0 or -errno
 *   stp_uprobe_unregister(inode, off, uc, handle), then stp_uprobe_sync()
 */
#ifdef CONFIG_UPROBES
#include <linux/uprobes.h>
#ifdef STP_HAVE_UPROBE_NOSYNC
static inline int stp_uprobe_register(struct inode *inode, loff_t off, loff_t ref_ctr,
				      struct uprobe_consumer *uc, void **handle)
{
	struct uprobe *u = uprobe_register(inode, off, ref_ctr, uc);

	if (IS_ERR(u))
		return PTR_ERR(u);
	*handle = u;
	return 0;
}

static inline void stp_uprobe_unregister(struct inode *inode, loff_t off,
					 struct uprobe_consumer *uc, void *handle)
{
	uprobe_unregister_nosync(handle, uc);
}

static inline void stp_uprobe_sync(void)
{
	uprobe_unregister_sync();
}
#else
static inline int stp_uprobe_register(struct inode *inode, loff_t off, loff_t ref_ctr,
				      struct uprobe_consumer *uc, void **handle)
{
	*handle = NULL;
	return ref_ctr ? uprobe_register_refctr(inode, off, ref_ctr, uc)
		       : uprobe_register(inode, off, uc);
}

static inline void stp_uprobe_unregister(struct inode *inode, loff_t off,
					 struct uprobe_consumer *uc, void *handle)
{
	uprobe_unregister(inode, off, uc);
}

static inline void stp_uprobe_sync(void)
{
}
#endif
#endif /* CONFIG_UPROBES */

/*
 * task_work (process.h runs .begin handlers in the new task) is not
 * exported: process.h looks its functions up by name. 5.11 replaced
 * task_work_add's bool notify by enum task_work_notify_mode (TWA_SIGNAL
 * wakes the task). Cancelling by function is task_work_cancel_func since
 * 6.11 (and Debian's 6.1.192, which has the backport), where
 * task_work_cancel takes the callback_head; before, task_work_cancel:
 * the names are tried in this order.
 */
#include <linux/task_work.h>
#ifdef STP_HAVE_TWA_MODE
typedef int (*stp_task_work_add_fn)(struct task_struct *, struct callback_head *, enum task_work_notify_mode);
#define STP_TWA_RESUME TWA_RESUME
#define STP_TWA_SIGNAL TWA_SIGNAL
#else
typedef int (*stp_task_work_add_fn)(struct task_struct *, struct callback_head *, int);
#define STP_TWA_RESUME 1
#define STP_TWA_SIGNAL 1
#endif
typedef struct callback_head *(*stp_task_work_cancel_fn)(struct task_struct *, task_work_func_t);
#define STP_TASK_WORK_CANCEL_NAMES { "task_work_cancel_func", "task_work_cancel" }

#endif /* __KERNEL__ */
#endif /* STP_KCOMPAT_H */
