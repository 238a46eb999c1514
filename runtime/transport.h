/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: the control channel /proc/cstap_<module>.
 *
 * Module -> stapio: one ring buffer of records (struct stp_msg + payload).
 * Probes append from any context (atomic, any CPU, interrupts possibly
 * off) under a raw spinlock with irqsave; they never sleep and never call
 * wake_up(): the first record into an empty ring queues an irq_work that
 * wakes the reader. A record that does not fit is dropped and its bytes
 * counted (reported in DONE). HELLO, EXIT and DONE are not stored in the
 * ring, the reader makes them, so they can never be dropped.
 *
 * Stapio -> module: write() of START / STOP records; they run the script's
 * begin/end probes in the writer's (stapio's) process context.
 */
#ifndef STP_TRANSPORT_H
#define STP_TRANSPORT_H

#include "kcompat.h"
#include <linux/fs.h>
#include <linux/proc_fs.h>
#include <linux/poll.h>
#include <linux/wait.h>
#include <linux/irq_work.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/vmalloc.h>
#include <linux/uaccess.h>
#include <linux/sched/signal.h>
#include <linux/delay.h>
#include "config.h"
#include "ctl_proto.h"
#include "run_state.h"

/* reader-side bounce buffer: records are copied here under the lock */
#define STP_BOUNCE_SIZE (2 * STP_MIN_READ)

struct stp_ring {
	raw_spinlock_t lock;
	char *buf;
	size_t size;		/* bytes */
	size_t rd;		/* offset of the oldest byte */
	size_t used;		/* bytes stored */
	atomic64_t dropped;	/* payload bytes that did not fit */
};

static struct stp_ring stp_ring = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(stp_ring.lock),
	.dropped = ATOMIC64_INIT(0),
};
static DECLARE_WAIT_QUEUE_HEAD(stp_read_wq);
static struct irq_work stp_wake_work;
static DEFINE_MUTEX(stp_read_mutex);
static char *stp_bounce;
static struct proc_dir_entry *stp_proc_entry;
static atomic_t stp_proc_open = ATOMIC_INIT(0);
static bool stp_hello_sent;
static atomic_t stp_exit_msg = ATOMIC_INIT(0);	/* 0 none, 1 pending, 2 sent */
static bool stp_done_ready;	/* STOP finished: DONE once the ring is empty */
static bool stp_done_sent;
static bool stp_shutdown;	/* module unloading: readers return EOF */

/* entry points of the START/STOP records, defined in runtime_main.h */
static int stp_ctl_start(int target_pid);
static void stp_ctl_stop(void);

/* irq_work callback: a safe context to wake the reader from. */
static void stp_wake_reader(struct irq_work *w)
{
	wake_up_interruptible(&stp_read_wq);
}

/* Copy n bytes into the ring at logical offset off (from rd), wrapping. */
static void stp_ring_put(size_t off, const void *src, size_t n)
{
	size_t pos = (stp_ring.rd + off) % stp_ring.size;
	size_t first = min(n, stp_ring.size - pos);

	memcpy(stp_ring.buf + pos, src, first);
	memcpy(stp_ring.buf, (const char *)src + first, n - first);
}

/* Copy n bytes out of the ring from logical offset off, wrapping. */
static void stp_ring_get(size_t off, void *dst, size_t n)
{
	size_t pos = (stp_ring.rd + off) % stp_ring.size;
	size_t first = min(n, stp_ring.size - pos);

	memcpy(dst, stp_ring.buf + pos, first);
	memcpy((char *)dst + first, stp_ring.buf, n - first);
}

/*
 * Take the ring lock from any context without risking a deadlock. A probe
 * that fired inside the locked region on this CPU (an NMI, a kprobe on a
 * function the lock holder calls) must not wait for itself: it sees its
 * own CPU as the owner and gives up at once. Another CPU's holder is waited
 * for, but not forever: up to a second, because a guest vCPU that holds it
 * can be descheduled for a long time (QEMU's single-threaded TCG switches
 * vCPUs every 100 ms; a 100 ms budget lost a record there), while on bare
 * metal the holder, interrupts off, lets go within microseconds.
 * Interrupts are off on success; release with stp_ring_unlock().
 */
#define STP_RING_SPIN_US 1000000
static int stp_ring_owner = -1;	/* CPU holding the lock, -1 none */

static bool stp_ring_trylock(unsigned long *flags)
{
	int i, cpu;

	for (i = 0; i < STP_RING_SPIN_US; i++) {
		local_irq_save(*flags);
		cpu = raw_smp_processor_id();
		if (raw_spin_trylock(&stp_ring.lock)) {
			WRITE_ONCE(stp_ring_owner, cpu);
			return true;
		}
		local_irq_restore(*flags);
		if (READ_ONCE(stp_ring_owner) == cpu)
			return false;
		udelay(1);
	}
	return false;
}

static void stp_ring_unlock(unsigned long flags)
{
	WRITE_ONCE(stp_ring_owner, -1);
	raw_spin_unlock_irqrestore(&stp_ring.lock, flags);
}

/* The reader's lock: process context, may wait. */
static void stp_ring_lock(unsigned long *flags)
{
	raw_spin_lock_irqsave(&stp_ring.lock, *flags);
	WRITE_ONCE(stp_ring_owner, raw_smp_processor_id());
}

/* Append one record of at most STP_MAX_PAYLOAD bytes, or count it dropped. */
static void stp_transport_record_pfx(u32 type, const void *pfx, size_t pn, const void *data, size_t n)
{
	struct stp_msg h = { .type = type, .len = pn + n };
	unsigned long flags;
	bool was_empty;

	if (!stp_ring_trylock(&flags)) {
		atomic64_add(n, &stp_ring.dropped);
		return;
	}
	if (!stp_ring.buf || stp_ring.size - stp_ring.used < sizeof(h) + pn + n) {
		stp_ring_unlock(flags);
		atomic64_add(n, &stp_ring.dropped);
		return;
	}
	was_empty = stp_ring.used == 0;
	stp_ring_put(stp_ring.used, &h, sizeof(h));
	if (pn)
		stp_ring_put(stp_ring.used + sizeof(h), pfx, pn);
	stp_ring_put(stp_ring.used + sizeof(h) + pn, data, n);
	stp_ring.used += sizeof(h) + pn + n;
	stp_ring_unlock(flags);
	if (was_empty)
		irq_work_queue(&stp_wake_work);
}

static __maybe_unused void stp_transport_record(u32 type, const void *data, size_t n)
{
	stp_transport_record_pfx(type, NULL, 0, data, n);
}

#ifdef STP_BULKMODE
/* stap -b: each flush of stdout is a record of its CPU's file */
static atomic_t stp_bulk_seq = ATOMIC_INIT(0);

static void stp_transport_bulk(const char *data, size_t n)
{
	struct stp_msg_bulk b = {
		.cpu = raw_smp_processor_id(),
		.seq = (u32)atomic_inc_return(&stp_bulk_seq),
	};

	stp_transport_record_pfx(STP_MSG_BULK_OUT, &b, sizeof(b), data, n);
}
#define STP_OUT_CHUNK (STP_MAX_PAYLOAD - sizeof(struct stp_msg_bulk))
#else
#define STP_OUT_CHUNK STP_MAX_PAYLOAD
#endif

/* Send bytes to stapio's stdout (STP_MSG_OUT) or stderr (STP_MSG_ERR). */
static __maybe_unused void stp_transport_write(u32 type, const char *data, size_t len)
{
	while (len) {
		size_t n = min_t(size_t, len, (size_t)STP_OUT_CHUNK);

#ifdef STP_BULKMODE
		if (type == STP_MSG_OUT)
			stp_transport_bulk(data, n);
		else
#endif
			stp_transport_record(type, data, n);
		data += n;
		len -= n;
	}
}

/* Output that was lost before reaching the ring (e.g. truncated). */
static __maybe_unused void stp_transport_count_dropped(size_t n)
{
	atomic64_add(n, &stp_ring.dropped);
}

/* Ask stapio (once) to send STOP; callable from any context. */
static void stp_transport_send_exit(void)
{
	if (atomic_cmpxchg(&stp_exit_msg, 0, 1) == 0)
		irq_work_queue(&stp_wake_work);
}

/*
 * Move whole records from the ring into buf (at most size bytes); returns
 * the number of bytes moved. Only the single reader (stp_read_mutex) calls
 * this and only it advances rd, so the bytes it takes stay put while it
 * copies them without the lock: producers only write into free space.
 */
static size_t stp_ring_take(char *buf, size_t size)
{
	unsigned long flags;
	size_t total = 0;
	struct stp_msg h;

	stp_ring_lock(&flags);
	while (stp_ring.used - total >= sizeof(h)) {
		stp_ring_get(total, &h, sizeof(h));
		if (total + sizeof(h) + h.len > size)
			break;
		total += sizeof(h) + h.len;
	}
	stp_ring_unlock(flags);
	if (!total)
		return 0;
	stp_ring_get(0, buf, total);
	stp_ring_lock(&flags);
	stp_ring.rd = (stp_ring.rd + total) % stp_ring.size;
	stp_ring.used -= total;
	stp_ring_unlock(flags);
	return total;
}

/* Append a reader-made record (HELLO, EXIT, DONE) to buf at *pos. */
static void stp_put_record(char *buf, size_t *pos, u32 type,
			   const void *data, u32 len)
{
	struct stp_msg h = { .type = type, .len = len };

	memcpy(buf + *pos, &h, sizeof(h));
	if (len)
		memcpy(buf + *pos + sizeof(h), data, len);
	*pos += sizeof(h) + len;
}

/* Is there anything for the reader? (wait condition, lock-free peek) */
static bool stp_read_ready(void)
{
	return !stp_hello_sent || READ_ONCE(stp_ring.used) ||
	       atomic_read(&stp_exit_msg) == 1 ||
	       (READ_ONCE(stp_done_ready) && !stp_done_sent) ||
	       READ_ONCE(stp_shutdown);
}

/* Fill the bounce buffer with what is there now; 0 if nothing. */
static size_t stp_read_fill(size_t size)
{
	bool done_ready = smp_load_acquire(&stp_done_ready);
	size_t n = 0;

	if (!stp_hello_sent) {
		struct stp_msg_hello hello = { .proto_version = STP_PROTO_VERSION };

		stp_put_record(stp_bounce, &n, STP_MSG_HELLO, &hello, sizeof(hello));
		stp_hello_sent = true;
	}
	n += stp_ring_take(stp_bounce + n, size - n);
	if (n + sizeof(struct stp_msg) <= size &&
	    atomic_cmpxchg(&stp_exit_msg, 1, 2) == 1)
		stp_put_record(stp_bounce, &n, STP_MSG_EXIT, NULL, 0);
	if (done_ready && !stp_done_sent && READ_ONCE(stp_ring.used) == 0 &&
	    n + sizeof(struct stp_msg) + sizeof(struct stp_msg_done) <= size) {
		struct stp_msg_done d = {
			.errors = atomic_read(&stp_error_count),
			.suppressed = atomic_read(&stp_suppressed_count),
			.skipped = atomic_read(&stp_skipped_count),
			.dropped_bytes = atomic64_read(&stp_ring.dropped),
			.exit_status = atomic_read(&stp_exit_status),
		};

		stp_put_record(stp_bounce, &n, STP_MSG_DONE, &d, sizeof(d));
		stp_done_sent = true;
	}
	return n;
}

/*
 * read(): whole records only, so the buffer must hold STP_MIN_READ bytes.
 * Blocks until there is something (re-checking every 100 ms in case a
 * wakeup was missed); returns 0 after DONE or when the module unloads.
 */
static ssize_t stp_proc_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	size_t n = 0;
	long rc;

	if (count < STP_MIN_READ)
		return -EINVAL;
	count = min_t(size_t, count, STP_BOUNCE_SIZE);
	if (mutex_lock_interruptible(&stp_read_mutex))
		return -ERESTARTSYS;
	for (;;) {
		if (stp_done_sent || READ_ONCE(stp_shutdown))
			break;
		n = stp_read_fill(count);
		if (n)
			break;
		if (file->f_flags & O_NONBLOCK) {
			mutex_unlock(&stp_read_mutex);
			return -EAGAIN;
		}
		rc = wait_event_interruptible_timeout(stp_read_wq,
						      stp_read_ready(), HZ / 10);
		if (rc < 0) {
			mutex_unlock(&stp_read_mutex);
			return rc;
		}
	}
	if (n && copy_to_user(ubuf, stp_bounce, n))
		n = -EFAULT;	/* records are lost: stapio cannot go on anyway */
	mutex_unlock(&stp_read_mutex);
	return n;
}

/* write(): exactly one START or STOP record per call. */
static ssize_t stp_proc_write(struct file *file, const char __user *ubuf,
			      size_t count, loff_t *ppos)
{
	char buf[sizeof(struct stp_msg) + sizeof(struct stp_msg_start)];
	struct stp_msg h;
	struct stp_msg_start start;
	int rc = 0;

	if (count < sizeof(h) || count > sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	memcpy(&h, buf, sizeof(h));
	if (h.len != count - sizeof(h))
		return -EINVAL;
	switch (h.type) {
	case STP_MSG_START:
		if (h.len != sizeof(start))
			return -EINVAL;
		memcpy(&start, buf + sizeof(h), sizeof(start));
		if (start.proto_version != STP_PROTO_VERSION)
			return -EPROTO;
		rc = stp_ctl_start(start.target_pid);
		break;
	case STP_MSG_STOP:
		stp_ctl_stop();
		break;
	default:
		return -EINVAL;
	}
	return rc ? rc : count;
}

/* poll(): readable when read() would not block; writes never block long. */
static __poll_t stp_proc_poll(struct file *file, poll_table *wait)
{
	poll_wait(file, &stp_read_wq, wait);
	return (stp_read_ready() ? EPOLLIN | EPOLLRDNORM : 0) | EPOLLOUT | EPOLLWRNORM;
}

/* One stapio at a time; each one starts with HELLO. */
static int stp_proc_open_fn(struct inode *inode, struct file *file)
{
	if (atomic_cmpxchg(&stp_proc_open, 0, 1) != 0)
		return -EBUSY;
	mutex_lock(&stp_read_mutex);
	stp_hello_sent = false;
	mutex_unlock(&stp_read_mutex);
	return nonseekable_open(inode, file);
}

/* stapio closed (or died): another may open; the session goes on. */
static int stp_proc_release(struct inode *inode, struct file *file)
{
	atomic_set(&stp_proc_open, 0);
	return 0;
}

#ifdef STP_HAVE_PROC_OPS
static const struct proc_ops stp_proc_ops = {
	.proc_open = stp_proc_open_fn,
	.proc_release = stp_proc_release,
	.proc_read = stp_proc_read,
	.proc_write = stp_proc_write,
	.proc_poll = stp_proc_poll,
	.proc_lseek = STP_NO_LLSEEK,
};
#else
static const struct file_operations stp_proc_ops = {
	.owner = THIS_MODULE,
	.open = stp_proc_open_fn,
	.release = stp_proc_release,
	.read = stp_proc_read,
	.write = stp_proc_write,
	.poll = stp_proc_poll,
	.llseek = STP_NO_LLSEEK,
};
#endif

/* Allocate the ring (bytes) and the reader's bounce buffer. */
static int stp_transport_init(size_t bytes)
{
	init_irq_work(&stp_wake_work, stp_wake_reader);
	stp_ring.buf = vmalloc(bytes);
	stp_bounce = vmalloc(STP_BOUNCE_SIZE);
	if (!stp_ring.buf || !stp_bounce) {
		vfree(stp_ring.buf);
		vfree(stp_bounce);
		stp_ring.buf = NULL;
		stp_bounce = NULL;
		return -ENOMEM;
	}
	stp_ring.size = bytes;
	return 0;
}

/* Create the control file last: stapio may connect as soon as it exists. */
static int stp_transport_open(void)
{
	char name[8 + MODULE_NAME_LEN];

	/* the module's name as loaded: staprun -R renames it */
	snprintf(name, sizeof(name), STP_PROC_PREFIX "%s", THIS_MODULE->name);
	stp_proc_entry = proc_create(name, 0600, NULL, &stp_proc_ops);
	return stp_proc_entry ? 0 : -ENOMEM;
}

/* DONE may go out once the ring drains (called after STOP finished). */
static void stp_transport_done(void)
{
	smp_store_release(&stp_done_ready, true);
	wake_up_interruptible(&stp_read_wq);
}

/*
 * Unload: wake blocked readers (they see stp_shutdown and return EOF),
 * remove the file (waits for running read/write calls), then free.
 */
static void stp_transport_exit(void)
{
	unsigned long flags;
	char *buf;

	WRITE_ONCE(stp_shutdown, true);
	wake_up_interruptible(&stp_read_wq);
	if (stp_proc_entry)
		proc_remove(stp_proc_entry);
	stp_proc_entry = NULL;
	irq_work_sync(&stp_wake_work);
	stp_ring_lock(&flags);
	buf = stp_ring.buf;
	stp_ring.buf = NULL;
	stp_ring_unlock(flags);
	vfree(buf);
	vfree(stp_bounce);
	stp_bounce = NULL;
}

#endif /* STP_TRANSPORT_H */
