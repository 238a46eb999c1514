/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cstap runtime: process probes through the kernel's uprobes. The
 * generated code fills a table of struct stp_uprobe (the file, the offset
 * in it, the handler); a uprobe is registered at the file's inode, so it
 * fires in every process that maps the file, including those started
 * after the script. The handler gets the user registers and the file's
 * load bias in the probed process (run-time minus link-time address),
 * from the address the probe hit: $target variables at fixed addresses
 * need it (PIE programs, shared libraries).
 */
#ifndef STP_UPROBES_H
#define STP_UPROBES_H

#include <linux/namei.h>
#include <linux/ptrace.h>
#include <linux/uprobes.h>
#include "kcompat.h"
#include "run_state.h"

#define STP_UPF_RETURN		1	/* a uretprobe */
#define STP_UPF_OPTIONAL	2	/* failure to register is not reported */

struct stp_uprobe {
	const char *path;	/* the probed file */
	loff_t offset;		/* in the file */
	unsigned long vaddr;	/* its link-time address */
	const char *pp;		/* for messages */
	void (*handler)(struct pt_regs *regs, unsigned long ubias);
	int flags;		/* STP_UPF_* */
	struct uprobe_consumer uc;
	struct inode *inode;	/* held while registered */
	void *handle;		/* the kernel's struct uprobe (6.11 and later) */
	bool registered;
};

/* A probed instruction is reached; the uprobes core has set regs->ip to
 * its address. */
static __maybe_unused int stp_uprobe_hit(struct uprobe_consumer *uc, struct pt_regs *regs)
{
	struct stp_uprobe *p = container_of(uc, struct stp_uprobe, uc);

	p->handler(regs, instruction_pointer(regs) - p->vaddr);
	return 0;
}

/* The probed function returns to its caller; func is its run-time entry. */
static __maybe_unused int stp_uretprobe_hit(struct uprobe_consumer *uc, unsigned long func, struct pt_regs *regs)
{
	struct stp_uprobe *p = container_of(uc, struct stp_uprobe, uc);

	p->handler(regs, func - p->vaddr);
	return 0;
}

/*
 * Register every probe of the table. One the kernel refuses (or whose file
 * is gone) is skipped with a warning, silently if it is optional, as
 * kprobes are (kprobes.h).
 */
static __maybe_unused int stp_uprobes_register(struct stp_uprobe *t, int n)
{
	int i, rc;

	for (i = 0; i < n; i++) {
		struct stp_uprobe *p = &t[i];
		struct path path;

		rc = kern_path(p->path, LOOKUP_FOLLOW, &path);
		if (!rc) {
			p->inode = igrab(d_inode(path.dentry));
			path_put(&path);
			if (!p->inode)
				rc = -ENOENT;
		}
		if (!rc) {
			if (p->flags & STP_UPF_RETURN)
				p->uc.ret_handler = stp_uretprobe_hit;
			else
				p->uc.handler = stp_uprobe_hit;
			rc = stp_uprobe_register(p->inode, p->offset, 0, &p->uc, &p->handle);
			if (rc) {
				iput(p->inode);
				p->inode = NULL;
			}
		}
		p->registered = !rc;
		if (rc && !(p->flags & STP_UPF_OPTIONAL))
			stp_warn("probe %s registration error (rc %d)%s", p->pp, rc,
				 rc == -ENOENT ? ": no such file" : "");
	}
	return 0;
}

/* Unregister the table's probes, then wait for handlers still running. */
static __maybe_unused void stp_uprobes_unregister(struct stp_uprobe *t, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (t[i].registered)
			stp_uprobe_unregister(t[i].inode, t[i].offset, &t[i].uc, t[i].handle);
	stp_uprobe_sync();
	for (i = 0; i < n; i++)
		if (t[i].registered) {
			t[i].registered = false;
			iput(t[i].inode);
			t[i].inode = NULL;
		}
}

#endif /* STP_UPROBES_H */
