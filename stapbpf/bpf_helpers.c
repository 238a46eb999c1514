/* bpf_helpers.c - the helpers an interpreted program calls
 * (doc/bpf-bundle.md, "Helpers"), done in user space.
 *
 * map_lookup_elem gives a copy of the value (per-CPU maps merged). The
 * copies stay valid for the rest of the run, as the kernel's pointers do;
 * the ones written to are compared with their bytes when last in step and
 * written back when they differ: before every helper call (so the helper,
 * a later lookup included, sees them) and when the program ends. After a
 * helper that changed a map, the copies of that map are read again. The
 * copies of @scratch (working memory for one run) are never written back.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/random.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "bpf_ksym.h"
#include "bpf_printf.h"
#include "bpf_vm.h"
#include "bpf_proto.h"
#include "hist.h"


static void hist_put(void *arg, const char *s)
{
	fputs(s, arg);
}

/* print_hist(record, kind, lo, hi, step): an aggregate's histogram (its
 * buckets after count, sum, min, max) as the module runtime prints it */
static uint64_t print_hist(struct vm *vm, const uint64_t *r)
{
	struct stp_stat_desc d = { .hist = (int)r[2], .lo = (int64_t)r[3], .hi = (int64_t)r[4],
				   .step = (int64_t)r[5] };
	const uint8_t *rec;

	if (d.hist == STP_HIST_LOG)
		d.nbuckets = STP_HIST_LOG_BUCKETS;
	else if (d.hist == STP_HIST_LINEAR && d.step > 0 && d.hi > d.lo)
		d.nbuckets = (int)((d.hi - d.lo) / d.step) + 3;
	else
		return vm_fail(vm, "print_hist of an unknown histogram (%d)", d.hist), 0;
	rec = vm_mem(vm, r[1], 32 + (size_t)d.nbuckets * 8, false);
	if (!rec)
		return 0;
	stp_hist_print((const int64_t *)(rec + 32), &d, hist_put, vm->env->out ? vm->env->out : stdout);
	return 0;
}

/* A map value's copy read again from its map: in step with it, or dead
 * when its entry is gone (-ENOENT). */
static int read_again(struct region *r)
{
	int rc = umap_read(r->map, r->key, r->p);

	if (rc == 0)
		memcpy(r->orig, r->p, r->size);
	else if (rc == -ENOENT)
		r->dead = true;
	return rc;
}

/* reread(value): the copy at value read again from its map, merged over
 * the CPUs (written back first, as before every helper): a V's variance
 * is what user space puts there when it merges; 0, or -ENOENT when the
 * entry is gone. */
static uint64_t reread(struct vm *vm, uint64_t addr)
{
	for (struct region *r = vm->regions; r; r = r->next)
		if (!r->reserved && !r->dead && (uint64_t)(uintptr_t)r->p == addr)
			return (uint64_t)(int64_t)read_again(r);
	return vm_fail(vm, "reread of a value that is no map's copy"), 0;
}

/* The parent of process pid, from /proc/PID/stat (its 4th field, after
 * the command in parentheses); -1 if there is no such process. */
static int64_t pid_parent(int64_t pid)
{
	char path[64], buf[512];
	FILE *f;
	size_t n;
	const char *close;
	long long ppid;

	snprintf(path, sizeof(path), "/proc/%lld/stat", (long long)pid);
	f = pid > 0 ? fopen(path, "r") : NULL;
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	close = strrchr(buf, ')');
	if (!close || sscanf(close + 1, " %*c %lld", &ppid) != 1)
		return -1;
	return ppid;
}

/* jiffies64: the kernel's jiffies, as /proc/timer_list shows them (its
 * first "jiffies: N" line); 0 if it cannot be read. */
static uint64_t jiffies64(void)
{
	FILE *f = fopen("/proc/timer_list", "r");
	char line[256];
	unsigned long long j = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "jiffies: %llu", &j) == 1)
			break;
	if (f)
		fclose(f);
	return j;
}

/* A clock in ns, as the kernel's time helpers give it. */
static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* r1 as a map reference (&env->maps[ID], as the program's LD_IMM64 made it). */
static struct umap *arg_map(struct vm *vm, uint64_t h, int32_t id)
{
	uintptr_t base = (uintptr_t)vm->env->maps, n = vm->env->b->nmaps;

	if (h < base || h >= base + n * sizeof(struct umap) || (h - base) % sizeof(struct umap)) {
		vm_fail(vm, "calls helper %d with 0x%llx, which is not a map", id, (unsigned long long)h);
		return NULL;
	}
	return (struct umap *)(uintptr_t)h;
}

/* @scratch holds one run's strings: its copies need no write-back. */
static bool is_scratch(const struct umap *u)
{
	return !strcmp(u->m->name, "@scratch");
}

/* Zeroed memory the program may use, newest first in the list. */
static struct region *new_region(struct vm *vm, size_t size, bool reserved)
{
	struct region *r = calloc(1, sizeof(*r));

	if (r && size && !(r->p = calloc(1, size))) {
		free(r);
		r = NULL;
	}
	if (!r) {
		vm_fail(vm, "is out of memory");
		return NULL;
	}
	r->size = size;
	r->reserved = reserved;
	r->next = vm->regions;
	vm->regions = r;
	return r;
}

/* A region unlinked and freed (a submitted record, the end of the run). */
static void free_region(struct vm *vm, struct region *r)
{
	struct region **pp = &vm->regions;

	while (*pp && *pp != r)
		pp = &(*pp)->next;
	if (*pp)
		*pp = r->next;
	if (vm->last_hit == r)
		vm->last_hit = NULL;
	free(r->p);
	free(r->key);
	free(r->orig);
	free(r);
}

/* The touched copies that differ from their map written back (not @scratch). */
void vm_flush(struct vm *vm)
{
	for (struct region *r = vm->regions; r; r = r->next) {
		int rc;

		if (r->reserved || r->dead || !r->touched)
			continue;
		r->touched = false;
		if (is_scratch(r->map) || !memcmp(r->p, r->orig, r->size))
			continue;
		/* BPF_EXIST: a value whose entry was deleted meanwhile goes nowhere */
		rc = umap_write(r->map, r->key, r->p, BPF_EXIST);
		if (rc < 0 && rc != -ENOENT && vm->env->verbose)
			fprintf(stderr, "stapbpf: program %d: writing back a value of map %d (%s): %s\n",
				vm->prog->id, r->map->m->id, r->map->m->name, strerror(-rc));
		memcpy(r->orig, r->p, r->size);
	}
}

/* A helper changed map u: its copies show the map again; the ones whose
 * entry is gone are dead (as a kernel pointer to a deleted element: a
 * later lookup of the key does not find them). */
static void refresh(struct vm *vm, const struct umap *u)
{
	for (struct region *r = vm->regions; r; r = r->next)
		if (!r->reserved && !r->dead && r->map == u)
			read_again(r);
}

/* map_lookup_elem: the copy of the value at key (the same copy for the
 * same key, as the kernel gives the same address), or 0. */
static uint64_t map_lookup(struct vm *vm, struct umap *u, uint64_t key_addr)
{
	size_t ks = u->m->key_size, vs = u->m->val_size;
	const uint8_t *key = vm_mem(vm, key_addr, ks, false);
	struct region *r;
	int rc;

	if (!key)
		return 0;
	for (r = vm->regions; r; r = r->next)
		if (!r->reserved && !r->dead && r->map == u && !memcmp(r->key, key, ks))
			return (uint64_t)(uintptr_t)r->p;
	r = new_region(vm, vs, false);
	if (!r)
		return 0;
	r->map = u;
	r->key = malloc(ks);
	r->orig = malloc(vs);
	if (!r->key || !r->orig) {
		free_region(vm, r);
		vm_fail(vm, "is out of memory");
		return 0;
	}
	memcpy(r->key, key, ks);
	rc = umap_read(u, key, r->p);
	if (rc < 0) {
		if (rc != -ENOENT && vm->env->verbose)
			fprintf(stderr, "stapbpf: program %d: reading map %d (%s): %s\n",
				vm->prog->id, u->m->id, u->m->name, strerror(-rc));
		free_region(vm, r);
		return 0;
	}
	memcpy(r->orig, r->p, vs);
	return (uint64_t)(uintptr_t)r->p;
}

/* probe_read_kernel_str: up to size-1 bytes until a NUL, then a NUL; the
 * length with the NUL, or -EFAULT (dst zeroed) if src is not readable. */
static uint64_t read_str(struct vm *vm, uint64_t dst_addr, uint64_t size, uint64_t src)
{
	uint8_t *dst = size ? vm_mem(vm, dst_addr, size, true) : NULL;
	size_t n = 0;

	if (!dst)
		return size ? 0 : (uint64_t)-EINVAL;
	while (n + 1 < size) {
		const uint8_t *s = vm_find(vm, src + n, 1, false);

		if (!s) {
			memset(dst, 0, size);
			return (uint64_t)-EFAULT;
		}
		if (!*s)
			break;
		dst[n++] = *s;
	}
	dst[n] = '\0';
	return n + 1;
}

/* n bytes of this process's memory at src (a begin or end probe's "user"
 * space is stapbpf's own, its current task) into p; false when they are
 * not all readable (process_vm_readv: no fault, whatever the address). */
static bool read_own(uint8_t *p, uint64_t src, size_t n)
{
	struct iovec to = { p, n }, from = { (void *)(uintptr_t)src, n };

	return n == 0 || process_vm_readv(getpid(), &to, 1, &from, 1, 0) == (ssize_t)n;
}

/* probe_read_user, probe_read_user_str: of this process's memory; a fault
 * is -EFAULT with dst zeroed, as the kernel's. */
static uint64_t read_user(struct vm *vm, uint64_t dst_addr, uint64_t size, uint64_t src, bool str)
{
	uint8_t *dst = size ? vm_mem(vm, dst_addr, size, true) : NULL;
	size_t n = 0;

	if (!dst)
		return size && !str ? 0 : (uint64_t)-EINVAL;
	if (!str) {
		if (read_own(dst, src, size))
			return 0;
		memset(dst, 0, size);
		return (uint64_t)-EFAULT;
	}
	while (n + 1 < size) {
		if (!read_own(dst + n, src + n, 1)) {
			memset(dst, 0, size);
			return (uint64_t)-EFAULT;
		}
		if (!dst[n])
			break;
		n++;
	}
	dst[n] = '\0';
	return n + 1;
}

/* A record from a program: to stapbpf's handler at once, as a kernel one
 * (the copies are already written back: vm_call flushed them). */
static void record(struct vm *vm, const uint8_t *data, size_t size)
{
	vm->env->on_record(vm->env->ctx, data, size);
}

/* ringbuf_submit/discard: the reservation that starts at addr, or NULL. */
static struct region *reservation(struct vm *vm, uint64_t addr, int32_t id)
{
	for (struct region *r = vm->regions; r; r = r->next)
		if (r->reserved && (uint64_t)(uintptr_t)r->p == addr)
			return r;
	vm_fail(vm, "calls helper %d with 0x%llx, which ringbuf_reserve did not give",
		id, (unsigned long long)addr);
	return NULL;
}

/* foreach_start: the keys taken now, in order; the handle is their slot. */
static uint64_t foreach_start(struct vm *vm, struct umap *u, uint64_t spec, int64_t limit)
{
	struct iter it = { .key_size = u->m->key_size, .used = true };
	size_t h;
	int rc = umap_sorted_keys(u, spec, limit, &it.keys, &it.n);

	if (rc < 0) {
		if (rc == -EINVAL)
			vm_fail(vm, "starts a foreach on map %d (%s) with a bad spec 0x%llx",
				u->m->id, u->m->name, (unsigned long long)spec);
		return (uint64_t)(int64_t)rc;
	}
	for (h = 0; h < vm->niters && vm->iters[h].used; h++)
		;
	if (h == vm->niters) {
		struct iter *n = realloc(vm->iters, (h + 1) * sizeof(*n));

		if (!n) {
			free(it.keys);
			vm_fail(vm, "is out of memory");
			return (uint64_t)-ENOMEM;
		}
		vm->iters = n;
		vm->niters++;
	}
	vm->iters[h] = it;
	return h;
}

/* foreach_next: the next key to key_out, or 0 (and the slot freed). */
static uint64_t foreach_next(struct vm *vm, uint64_t h, uint64_t key_addr)
{
	struct iter *it = h < vm->niters ? &vm->iters[h] : NULL;
	uint8_t *out;

	if (!it || !it->used) {
		vm_fail(vm, "calls foreach_next with %lld, which is not a foreach in progress", (long long)h);
		return 0;
	}
	if (it->next == it->n) {
		free(it->keys);
		it->keys = NULL;
		it->used = false;
		return 0;
	}
	out = vm_mem(vm, key_addr, it->key_size, true);
	if (!out)
		return 0;
	memcpy(out, it->keys + it->next++ * it->key_size, it->key_size);
	return 1;
}

/* sprintf(dst, fmt, args): fmt applied to the values at args (a PRINTF
 * record's after its tag) into the 64-byte string slot dst. */
static uint64_t sprintf_slot(struct vm *vm, uint64_t dst_addr, uint64_t id, uint64_t args_addr)
{
	const struct bundle_fmt *f = bundle_fmt_of(vm->env->b, id);
	uint8_t *dst = vm_mem(vm, dst_addr, bundle_strsz, true);
	const uint8_t *args;
	char *text;
	size_t n;

	if (!dst)
		return 0;
	if (!f) {
		vm_fail(vm, "calls sprintf with fmt %llu, which the bundle has not", (unsigned long long)id);
		return 0;
	}
	args = f->args_size ? vm_mem(vm, args_addr, f->args_size, false) : NULL;
	if (f->args_size && !args)
		return 0;
	text = bpf_format(f, args, f->args_size, &n);
	memset(dst, 0, bundle_strsz);
	memcpy(dst, text, n < bundle_strsz - 1 ? n : bundle_strsz - 1);
	free(text);
	return 0;
}

/* HU_PROCFS(op, str): the file of the procfs probe being run (env's
 * procfs_buf, size bytes with its NUL; NULL in other programs): $value
 * read (at most a string's 63 bytes), set, appended to (up to its size,
 * as the module's strscpy/strlcat), or whether there is one. */
static uint64_t procfs_op(struct vm *vm, uint64_t op, uint64_t str)
{
	struct interp_env *env = vm->env;
	char *buf = env->procfs_buf;
	uint8_t *p;
	size_t len;

	if (op == PROCFS_ACTIVE)
		return buf != NULL;
	p = vm_mem(vm, str, bundle_strsz, op == PROCFS_VALUE);
	if (!p)
		return 0;
	if (op == PROCFS_VALUE) {
		memset(p, 0, bundle_strsz);
		if (buf)
			memcpy(p, buf, strnlen(buf, bundle_strsz - 1));
		return 0;
	}
	if (!buf || !env->procfs_size)
		return 0;
	len = op == PROCFS_APPEND ? strnlen(buf, env->procfs_size - 1) : 0;
	for (size_t i = 0; i < bundle_strsz && p[i] && len < env->procfs_size - 1; i++)
		buf[len++] = (char)p[i];
	buf[len] = '\0';
	return 0;
}

/* One helper call: the copies flushed first, the map argument checked. */
uint64_t vm_call(struct vm *vm, int32_t id)
{
	uint64_t *r = vm->r;
	struct umap *u = NULL;
	struct region *rg;
	uint8_t *p, *q;
	int64_t n;

	vm_flush(vm);
	switch (id) {	/* the helpers taking a map first */
	case H_MAP_LOOKUP: case H_MAP_UPDATE: case H_MAP_DELETE: case H_RB_OUTPUT: case H_RB_RESERVE:
	case HU_FOREACH_START: case HU_MAP_CLEAR: case HU_MAP_COUNT:
		u = arg_map(vm, r[1], id);
		if (!u)
			return 0;
		if ((id == H_RB_OUTPUT || id == H_RB_RESERVE) != (u->m->kind == BM_RINGBUF)) {
			vm_fail(vm, "calls helper %d with map %d (%s)", id, u->m->id, u->m->name);
			return 0;
		}
	}
	switch (id) {
	case H_MAP_LOOKUP:
		return map_lookup(vm, u, r[2]);
	case H_MAP_UPDATE:
	case H_MAP_DELETE:
		p = vm_mem(vm, r[2], u->m->key_size, false);
		q = id == H_MAP_UPDATE && p ? vm_mem(vm, r[3], u->m->val_size, false) : NULL;
		if (!p || (id == H_MAP_UPDATE && !q))
			return 0;
		n = id == H_MAP_UPDATE ? umap_write(u, p, q, r[4]) : umap_delete(u, p);
		refresh(vm, u);
		return (uint64_t)n;
	case H_CURRENT_TASK:   /* no kernel task here: its fields read as faults */
		return 0;
	case H_KTIME_NS:
		return clock_ns(CLOCK_MONOTONIC);
	case H_PRANDOM_U32: {
		uint32_t v = 0;

		if (getrandom(&v, sizeof(v), 0) != sizeof(v))
			v = (uint32_t)random();
		return v;
	}
	case H_BOOT_NS:
		return clock_ns(CLOCK_BOOTTIME);
	case H_JIFFIES64:
		return jiffies64();
	case HU_REALTIME_NS:
		return clock_ns(CLOCK_REALTIME);
	case H_SMP_PROCESSOR_ID:
		return (uint64_t)(uint32_t)sched_getcpu();
	case H_PID_TGID:
		return (uint64_t)getpid() << 32 | (uint32_t)gettid();
	case H_UID_GID:
		return (uint64_t)getgid() << 32 | (uint32_t)getuid();
	case H_COMM: {
		char comm[17] = "";

		p = r[2] ? vm_mem(vm, r[1], r[2], true) : NULL;
		if (!p)
			return (uint64_t)-EINVAL;
		prctl(PR_GET_NAME, comm);
		memset(p, 0, r[2]);
		memcpy(p, comm, strnlen(comm, r[2] - 1));
		return 0;
	}
	case H_READ_KERNEL:
		p = r[2] ? vm_mem(vm, r[1], r[2], true) : NULL;
		if (!p)
			return 0;
		q = vm_find(vm, r[3], r[2], false);
		if (!q) {
			memset(p, 0, r[2]);
			return (uint64_t)-EFAULT;
		}
		memmove(p, q, r[2]);
		return 0;
	case H_READ_KERNEL_STR:
		return read_str(vm, r[1], r[2], r[3]);
	case H_READ_USER:
	case H_READ_USER_STR:
		return read_user(vm, r[1], r[2], r[3], id == H_READ_USER_STR);
	case H_RB_OUTPUT:
		p = vm_mem(vm, r[2], r[3], false);
		if (p)
			record(vm, p, r[3]);
		return 0;
	case H_RB_RESERVE:
		if (r[2] == 0 || r[2] + 8 > u->m->max_entries)
			return 0;	/* as the kernel: too big for the buffer with its header */
		rg = new_region(vm, r[2], true);
		return rg ? (uint64_t)(uintptr_t)rg->p : 0;
	case H_RB_SUBMIT:
	case H_RB_DISCARD:
		rg = reservation(vm, r[1], id);
		if (!rg)
			return 0;
		if (id == H_RB_SUBMIT)
			record(vm, rg->p, rg->size);
		free_region(vm, rg);
		return 0;
	case HU_FOREACH_START:
		return foreach_start(vm, u, r[2], (int64_t)r[3]);
	case HU_FOREACH_NEXT:
		return foreach_next(vm, r[1], r[2]);
	case HU_MAP_CLEAR:
		n = umap_clear(u);
		refresh(vm, u);
		return (uint64_t)n;
	case HU_MAP_COUNT:
		return umap_count(u, &n) < 0 ? 0 : (uint64_t)n;
	case HU_SPRINTF:
		return sprintf_slot(vm, r[1], r[2], r[3]);
	case HU_PRINT_HIST:
		return print_hist(vm, r);
	case HU_REREAD:
		return reread(vm, r[1]);
	case HU_PID_PARENT:
		return (uint64_t)pid_parent((int64_t)r[1]);
	case HU_PROCFS:
		return procfs_op(vm, r[1], r[2]);
	case HU_KSYM:   /* (dst, addr, data): symname() or symdata() into a string slot */
		p = vm_mem(vm, r[1], bundle_strsz, true);
		if (p) {
			memset(p, 0, bundle_strsz);
			bpf_ksym_name((char *)p, bundle_strsz, r[2], r[3]);
		}
		return 0;
	}
	vm_fail(vm, "calls helper %d, which stapbpf's interpreter does not have", id);
	return 0;
}

/* The end of a run: copies written back, regions and foreach slots freed. */
void vm_release(struct vm *vm)
{
	vm_flush(vm);
	while (vm->regions)
		free_region(vm, vm->regions);
	for (size_t i = 0; i < vm->niters; i++)
		free(vm->iters[i].keys);
	free(vm->iters);
	vm->iters = NULL;
	vm->niters = 0;
}
