/* procfs.h - procfs("PATH").read / .write probes: files under
 * /proc/systemtap/MODULE/ served by the script.
 *
 * Each file has at most one read and one write probe (generated handlers
 * taking the $value buffer). Reading runs the read probe once per open,
 * into a buffer of that open's, then serves it at any offset; each write()
 * runs the write probe with the bytes written (at most MAXSTRINGLEN - 1 a
 * call; a longer write comes back for the rest). The handlers run as any
 * probe's do (they are skipped, leaving the file empty, unless the script
 * is running). /proc/systemtap is made when missing and left in place:
 * other modules' files may be in it.
 */
#ifndef _STP_PROCFS_H_
#define _STP_PROCFS_H_

#include <linux/moduleparam.h>
#include <linux/namei.h>
#include <linux/cred.h>
#include <linux/proc_fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

struct stp_procfs_file {
	const char *path;		/* under /proc/systemtap/MODULE */
	umode_t mode;
	size_t maxsize;			/* read buffer, 0: MAXSTRINGLEN */
	void (*read)(char *buf, size_t size);
	void (*write)(char *buf, size_t size);
	struct proc_dir_entry *pde;
};

/* /proc/systemtap/NAME, NAME as loaded (staprun -R renames modules) */
static char stp_procfs_dir[16 + MODULE_NAME_LEN];

/*
 * A non-root caller's uid and gid, which staprun passes: the directory and
 * files are theirs, as SystemTap makes them, so that their stapio can write
 * the script's input (__stdin) and they can use the files. 0: root's.
 */
static unsigned int stp_procfs_uid, stp_procfs_gid;
module_param_named(_stp_procfs_uid, stp_procfs_uid, uint, 0444);
module_param_named(_stp_procfs_gid, stp_procfs_gid, uint, 0444);

static void stp_procfs_own(struct proc_dir_entry *pde)
{
	if (pde && (stp_procfs_uid || stp_procfs_gid))
		proc_set_user(pde, make_kuid(&init_user_ns, stp_procfs_uid),
			      make_kgid(&init_user_ns, stp_procfs_gid));
}

/* What one open of a file read: the read probe's output. */
struct stp_procfs_open {
	bool filled;
	size_t len;
	char buf[];
};

static size_t stp_procfs_bufsize(const struct stp_procfs_file *f)
{
	return (f->maxsize ? f->maxsize : MAXSTRINGLEN) + 1;
}

static int stp_procfs_open_fn(struct inode *inode, struct file *file)
{
	struct stp_procfs_file *f = pde_data(inode);

	if ((file->f_mode & FMODE_READ) && f->read) {
		struct stp_procfs_open *o = kvzalloc(sizeof(*o) + stp_procfs_bufsize(f), GFP_KERNEL);
		if (!o)
			return -ENOMEM;
		file->private_data = o;
	}
	return 0;
}

static int stp_procfs_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	return 0;
}

static ssize_t stp_procfs_read(struct file *file, char __user *ubuf, size_t count, loff_t *ppos)
{
	struct stp_procfs_file *f = pde_data(file_inode(file));
	struct stp_procfs_open *o = file->private_data;

	if (!o)
		return -EINVAL;
	if (!o->filled) {
		o->buf[0] = '\0';
		f->read(o->buf, stp_procfs_bufsize(f));
		o->len = strnlen(o->buf, stp_procfs_bufsize(f) - 1);
		o->filled = true;
	}
	return simple_read_from_buffer(ubuf, count, ppos, o->buf, o->len);
}

static ssize_t stp_procfs_write(struct file *file, const char __user *ubuf, size_t count, loff_t *ppos)
{
	struct stp_procfs_file *f = pde_data(file_inode(file));
	size_t n = min_t(size_t, count, MAXSTRINGLEN - 1);
	char *buf;

	if (!f->write)
		return -EINVAL;
	buf = kmalloc(MAXSTRINGLEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (copy_from_user(buf, ubuf, n)) {
		kfree(buf);
		return -EFAULT;
	}
	buf[n] = '\0';
	f->write(buf, MAXSTRINGLEN);
	kfree(buf);
	*ppos += n;
	return n;
}

static const struct proc_ops stp_procfs_ops = {
	.proc_open = stp_procfs_open_fn,
	.proc_release = stp_procfs_release,
	.proc_read = stp_procfs_read,
	.proc_write = stp_procfs_write,
	.proc_lseek = default_llseek,
};

static void stp_procfs_stop(struct stp_procfs_file *files, size_t n)
{
	remove_proc_subtree(stp_procfs_dir, NULL);
}

/* /proc/systemtap/MODULE, the directories of the paths, the files. */
static int stp_procfs_start(struct stp_procfs_file *files, size_t n)
{
	char path[256];
	size_t i;
	struct path there;
	struct proc_dir_entry *pde;

	/* made by another module (or an earlier run of this one): kept */
	if (kern_path("/proc/systemtap", LOOKUP_DIRECTORY, &there) == 0)
		path_put(&there);
	else
		proc_mkdir("systemtap", NULL);
	snprintf(stp_procfs_dir, sizeof(stp_procfs_dir), "systemtap/%s", THIS_MODULE->name);
	pde = proc_mkdir(stp_procfs_dir, NULL);
	if (!pde)
		return -EEXIST;
	stp_procfs_own(pde);
	for (i = 0; i < n; i++) {
		char *slash;

		if (snprintf(path, sizeof(path), "%s/%s", stp_procfs_dir, files[i].path) >= (int)sizeof(path)) {
			stp_procfs_stop(files, n);
			return -ENAMETOOLONG;
		}
		/* the directories on the way (made once; NULL after) */
		for (slash = strchr(path + strlen(stp_procfs_dir) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
			*slash = '\0';
			stp_procfs_own(proc_mkdir(path, NULL));
			*slash = '/';
		}
		files[i].pde = proc_create_data(path, files[i].mode, NULL, &stp_procfs_ops, &files[i]);
		stp_procfs_own(files[i].pde);
		if (!files[i].pde) {
			stp_err("procfs probe: cannot create /proc/%s", path);
			stp_procfs_stop(files, n);
			return -ENOMEM;
		}
	}
	return 0;
}

#endif /* _STP_PROCFS_H_ */
