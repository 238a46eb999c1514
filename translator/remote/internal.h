/* internal.h - internals shared by the QEMU runner's files (not an API). */
#ifndef CSTAP_REMOTE_INTERNAL_H
#define CSTAP_REMOTE_INTERNAL_H

#include "qemu.h"

/* Guest paths of the cstap user-space tools. */
#define VM_GUEST_STAPRUN "/usr/bin/staprun"
#define VM_GUEST_STAPIO  "/usr/libexec/cstap/stapio"

/* Report an error (or warning) on stderr, prefixed with the program's name. */
void vm_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* An in-memory newc ("070701") cpio archive. */
struct cpio {
	struct strbuf buf;
	unsigned ino;
	VEC(char *) dirs;   /* directories already emitted (no duplicates) */
};

void cpio_init(struct cpio *c, unsigned first_ino);
void cpio_release(struct cpio *c);
/* Add an entry; path is absolute or relative to the guest's root. Parent
 * directories are emitted first. */
void cpio_dir(struct cpio *c, const char *path, unsigned mode);
void cpio_file(struct cpio *c, const char *path, unsigned mode, const void *data, size_t len);
void cpio_symlink(struct cpio *c, const char *path, const char *target);
void cpio_chardev(struct cpio *c, const char *path, unsigned mode, unsigned major, unsigned minor);
/* Terminate the archive (TRAILER!!!) and pad it to 512 bytes, so that
 * another archive can be appended. */
void cpio_finish(struct cpio *c);

/* Add host file `host` at guest path `guest`, with its shared libraries if it
 * is a dynamically linked ELF program. -1 after a message on failure. */
int vm_cpio_host_file(struct cpio *c, const char *host, const char *guest, int verbose);

/* Write the whole initrd to `path`: the base part (busybox and its applet
 * links, staprun, stapio: taken from the cache if its inputs did not change)
 * followed by `run` (a finished per-run archive). staprun/stapio may be
 * NULL. -1 after a message on failure. */
int vm_write_initrd(const char *path, const char *staprun, const char *stapio,
		    const struct cpio *run, int verbose);

/* The guest's /init for one interactive command (argv) or for a batch of
 * jobs (job i's script at /cstap/jobs/<i+1>.sh). */
char *vm_init_interactive(char *const argv[], const char *prelude);
char *vm_init_batch(const struct vm_job *jobs, int njobs, const char *prelude);

/* /init lines that load c->modules (dependencies first), whose files are
 * added to c->files (a private copy of the vector); "" if none, NULL after
 * a message. */
char *vm_modules_prelude(struct vm_config *c);

/* Catch SIGINT/SIGTERM/SIGHUP for vm_boot (and ignore SIGPIPE) from now
 * on; restore the caller's handlers. */
int vm_signals_catch(void);
void vm_signals_restore(void);

/* One boot of the guest with a ready initrd. cfg is resolved (kernel,
 * cpus, mem_mb, timeout_s set; timeout_s < 0: no limit). Signals must be
 * caught (vm_signals_catch). Batch if jobs is not NULL: results go to
 * outdir as they arrive. Interactive: *status gets the command's status.
 * 0 if the guest finished, -1 after a message (with the console log's name
 * and tail) if not. */
int vm_boot(struct vm_config *cfg, const char *initrd, const struct vm_job *jobs, int njobs,
	    const char *outdir, int *status);

#endif
