/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: what the function tapsets (task, dentry, inet, dev,
 * conversions) need in C: checked access to kernel objects whose address
 * comes from a script and UTF-16/32 strings (kernel-version shims: kcompat.h).
 */
#ifndef STP_KOBJECTS_H
#define STP_KOBJECTS_H

#include "kcompat.h"
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/pid.h>
#include <linux/uaccess.h>

/* A script-given task address, referenced, if it is a live task (found
 * again through its pid): never dereference an unchecked pointer. */
static inline __maybe_unused struct task_struct *stp_task_get(int64_t addr)
{
	struct task_struct *given = (struct task_struct *)(unsigned long)addr, *t;
	pid_t nr;

	if (!addr || copy_from_kernel_nofault(&nr, &given->pid, sizeof(nr)))
		return NULL;
	rcu_read_lock();
	t = pid_task(find_pid_ns(nr, &init_pid_ns), PIDTYPE_PID);
	if (t != given)
		t = NULL;
	if (t)
		get_task_struct(t);
	rcu_read_unlock();
	return t;
}

/* Append code point cp as UTF-8 at dst[*n] if it fits in size - 1. */
static inline bool stp_put_utf8(char *dst, size_t *n, size_t size, u32 cp)
{
	char b[4];
	int k, i;

	if (cp < 0x80) {
		b[0] = cp; k = 1;
	} else if (cp < 0x800) {
		b[0] = 0xc0 | (cp >> 6); b[1] = 0x80 | (cp & 0x3f); k = 2;
	} else if (cp < 0x10000) {
		b[0] = 0xe0 | (cp >> 12); b[1] = 0x80 | ((cp >> 6) & 0x3f);
		b[2] = 0x80 | (cp & 0x3f); k = 3;
	} else {
		b[0] = 0xf0 | (cp >> 18); b[1] = 0x80 | ((cp >> 12) & 0x3f);
		b[2] = 0x80 | ((cp >> 6) & 0x3f); b[3] = 0x80 | (cp & 0x3f); k = 4;
	}
	if (*n + k > size - 1)
		return false;
	for (i = 0; i < k; i++)
		dst[(*n)++] = b[i];
	return true;
}

/* One unit (2 or 4 bytes) of a kernel or user string; 0 or -EFAULT. */
static inline int stp_read_unit(unsigned long addr, int unit, bool user, u32 *out)
{
	u16 h;
	long rc;
	void *dst = unit == 2 ? (void *)&h : (void *)out;

	if (user)
		rc = copy_from_user_nofault(dst, (const void __user *)addr, unit);
	else
		rc = copy_from_kernel_nofault(dst, (const void *)addr, unit);
	if (rc)
		return -EFAULT;
	if (unit == 2)
		*out = h;
	return 0;
}

/* The NUL-terminated UTF-16 (unit 2) or UTF-32 (unit 4) string at addr,
 * as UTF-8 in dst (size bytes), cut at a whole character. 0, -EFAULT, or
 * -EILSEQ for a code point that is not Unicode. */
static inline __maybe_unused long stp_utf_string(char *dst, size_t size, int64_t addr,
						 int unit, bool user)
{
	unsigned long a = (unsigned long)addr;
	size_t n = 0;
	u32 cp, lo;

	dst[0] = '\0';
	for (;;) {
		if (stp_read_unit(a, unit, user, &cp))
			goto fault;
		a += unit;
		if (!cp)
			break;
		if (unit == 2 && cp >= 0xd800 && cp < 0xdc00) {
			if (stp_read_unit(a, unit, user, &lo))
				goto fault;
			if (lo < 0xdc00 || lo >= 0xe000)
				goto bad;
			a += unit;
			cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		} else if (cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000)) {
			goto bad;
		}
		if (!stp_put_utf8(dst, &n, size, cp))
			break;
	}
	dst[n] = '\0';
	return 0;
fault:
	dst[0] = '\0';
	return -EFAULT;
bad:
	dst[0] = '\0';
	return -EILSEQ;
}

#endif /* STP_KOBJECTS_H */
