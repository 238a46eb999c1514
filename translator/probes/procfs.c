/* procfs.c - procfs("PATH").read[.maxsize(N)], procfs("PATH").write, and
 * procfs.umask(M) forms: files under /proc/systemtap/MODULE/ served by the
 * script (runtime/procfs.h).
 *
 * A read of the file runs the read probe, whose `$value = ...` and
 * `$value .= ...` fill the read buffer (maxsize bytes, MAXSTRINGLEN when not
 * given); a write runs the write probe with `$value` the bytes written (at
 * most MAXSTRINGLEN - 1 per call); several probes of one file run in turn.
 * PATH defaults to "command". Permissions
 * are 0444 (read) and 0222 (write) less the umask, which is 0044 / 0022 when
 * not given: 0400 for a read probe, 0200 for a write, 0600 for both.
 *
 * $value is not DWARF: at derive time the probe body's uses are rewritten
 * into calls of tapsets/procfs.stp's __procfs_value(), __procfs_set(v) and
 * __procfs_append(v), which work on the buffer the handler is given.
 */
#include "provider.h"
#include "bpf_proto.h"

#include <string.h>

#include "diag.h"

extern const struct provider procfs_provider;

struct procfs_probe {
	char *path;
	bool write;
	int64_t umask;       /* -1: the default */
	int64_t maxsize;     /* read buffer bytes, 0: MAXSTRINGLEN */
};

/* $value: what a read probe fills (= and .=), or a write probe was given */
static const struct ctx_var read_value[] = {
	{ "$value", NULL, "__procfs_set", "__procfs_append", false, NULL,
	  "$value of a procfs read probe is what the probe gives the reader: it cannot be read" },
};
static const struct ctx_var write_value[] = {
	{ "$value", "__procfs_value", NULL, NULL, false,
	  "$value of a procfs write probe is what was written: it cannot be assigned" },
};

/* a/b/c: not empty, no leading or doubled '/', no "." or ".." component */
static bool path_ok(const char *path)
{
	for (const char *p = path;; p++) {
		size_t len = strcspn(p, "/");
		if (!len || (len == 1 && p[0] == '.') || (len == 2 && !strncmp(p, "..", 2)))
			return false;
		p += len;
		if (!*p)
			return true;
	}
}

/* procfs[("PATH")][.umask(M)].read[.maxsize(N)] | ...write */
static int derive(struct session *s, struct probe *p, struct probe_point *pp)
{
	struct procfs_probe pr = { .umask = -1 };
	int i = 1;

	if (!pp_comp_is(pp, 0, "procfs"))
		return 0;
	const struct expr *a = pp->comps.items[0]->arg;
	if (a && (a->kind != EXPR_STR || !path_ok(a->str))) {
		diag(s, E_PROBE_ARG, pp->comps.items[0]->pos,
		     "procfs needs a file name under /proc/systemtap/MODULE: no leading '/', "
		     "no empty, \".\" or \"..\" component");
		return -1;
	}
	pr.path = xstrdup(a ? a->str : "command");
	if (pp_comp_is(pp, i, "umask")) {
		if (!pp_comp_num(pp, i, &pr.umask) || pr.umask < 0 || pr.umask > 0777) {
			diag(s, E_PROBE_ARG, pp->comps.items[i]->pos, "umask needs a number from 0 to 0777");
			return -1;
		}
		i++;
	}
	if (pp_comp_is(pp, i, "write")) {
		pr.write = true;
	} else if (!pp_comp_is(pp, i, "read")) {
		return 0;
	}
	i++;
	if (!pr.write && pp_comp_is(pp, i, "maxsize")) {
		if (!pp_comp_num(pp, i, &pr.maxsize) || pr.maxsize <= 0 || pr.maxsize > (1 << 24)) {
			diag(s, E_PROBE_ARG, pp->comps.items[i]->pos, "maxsize needs a number from 1 to 16M");
			return -1;
		}
		i++;
	}
	if (i != pp->comps.len)
		return 0;
	ctx_vars_rewrite(s, p->body, pr.write ? write_value : read_value, 1, NULL);
	struct derived_probe *dp = derived_probe_add(s, p, pp, &procfs_provider, STP_PK_NORMAL);
	struct procfs_probe *d = xmalloc(sizeof(*d));
	*d = pr;
	dp->data = d;
	return 1;
}

static const struct handler_abi procfs_abi = {
	.params = "char *buf, size_t size",
	.fill = "\tc->regs = NULL;\n\tc->procfs_buf = buf;\n\tc->procfs_size = size;\n",
};

/* The C function a file's read or write runs: the one probe's handler, or
 * one calling each of several (input.char and input.line both write
 * __stdin) in turn. */
static void file_handler(struct strbuf *out, struct strbuf *files, const char *what, int file, const intvec *dps)
{
	if (dps->len == 1) {
		strbuf_addf(files, ".%s = dp_%d, ", what, dps->items[0]);
		return;
	}
	strbuf_addf(out, "static void stp_procfs_%s_%d(char *buf, size_t size)\n{\n", what, file);
	for (int k = 0; k < dps->len; k++)
		strbuf_addf(out, "\tdp_%d(buf, size);\n", dps->items[k]);
	strbuf_addstr(out, "}\n");
	strbuf_addf(files, ".%s = stp_procfs_%s_%d, ", what, what, file);
}

/* The files, one per path, each with its read and write probes. */
static void emit_decls(struct session *s, struct strbuf *out)
{
	struct strbuf files = STRBUF_INIT;
	int n = 0;

	for (int i = 0; i < s->probes.len; i++) {
		const struct derived_probe *dp = s->probes.items[i];
		const struct procfs_probe *d = dp->data;
		intvec rd = { 0 }, wr = { 0 };
		int64_t mode = 0, maxsize = 0;
		bool seen = false;
		if (dp->prov != &procfs_provider)
			continue;
		for (int k = 0; k < i && !seen; k++)
			seen = s->probes.items[k]->prov == &procfs_provider &&
			       !strcmp(((const struct procfs_probe *)s->probes.items[k]->data)->path, d->path);
		if (seen)
			continue;
		for (int k = i; k < s->probes.len; k++) {
			const struct derived_probe *o = s->probes.items[k];
			const struct procfs_probe *od = o->data;
			if (o->prov != &procfs_provider || strcmp(od->path, d->path))
				continue;
			if (od->write) {
				vec_push(&wr, o->index);
				mode |= 0222 & ~(od->umask >= 0 ? od->umask : 0022);
			} else {
				vec_push(&rd, o->index);
				if (od->maxsize > maxsize)
					maxsize = od->maxsize;
				mode |= 0444 & ~(od->umask >= 0 ? od->umask : 0044);
			}
		}
		strbuf_addf(&files, "\t{ .path = \"%s\", .mode = 0%llo, .maxsize = %lld, ", d->path,
			    (unsigned long long)mode, (long long)maxsize);
		if (rd.len)
			file_handler(out, &files, "read", n, &rd);
		if (wr.len)
			file_handler(out, &files, "write", n, &wr);
		strbuf_addstr(&files, "},\n");
		free(rd.items);
		free(wr.items);
		n++;
	}
	strbuf_addf(out, "static struct stp_procfs_file stp_procfs_files[%d] = {\n%s};\n", n, files.buf);
	strbuf_release(&files);
}

static void emit_register(struct session *s, struct strbuf *out)
{
	(void)s;
	strbuf_addstr(out, "\trc = stp_procfs_start(stp_procfs_files, ARRAY_SIZE(stp_procfs_files));\n"
			   "\tif (rc)\n\t\treturn rc;\n");
}

static void emit_unregister(struct session *s, struct strbuf *out)
{
	(void)s;
	strbuf_addstr(out, "\tstp_procfs_stop(stp_procfs_files, ARRAY_SIZE(stp_procfs_files));\n");
}

/* --runtime=bpf: stapbpf runs the probe in its interpreter when the file,
 * a FIFO under /var/tmp/systemtap-USER/MODULE/ (SystemTap's stapbpf's
 * place), is read or written; "__stdin" is stapbpf's standard input. The
 * mode is this probe's share of the file's, as emit_decls adds them. */
static int bpf_attach(const struct derived_probe *dp, struct bpf_attach *at, const char **why)
{
	const struct procfs_probe *d = dp->data;
	int64_t mode = d->write ? 0222 & ~(d->umask >= 0 ? d->umask : 0022)
				: 0444 & ~(d->umask >= 0 ? d->umask : 0044);

	if (strpbrk(d->path, " \t\n")) {
		*why = "a file name with white space";
		return -1;
	}
	*at = (struct bpf_attach){ .kind = d->write ? BA_PROCFS_WRITE : BA_PROCFS_READ, .symbol = d->path,
				   .offset = mode, .period = d->maxsize };
	return 0;
}

static const char *const shapes[] = { "procfs", NULL };

const struct provider procfs_provider = {
	.name = "procfs",
	.runtime_header = "procfs.h",
	.type_name = "procfs",
	.derive = derive,
	.handler = &procfs_abi,
	.emit_decls = emit_decls,
	.emit_register = emit_register,
	.emit_unregister = emit_unregister,
	.bpf_attach = bpf_attach,
	.shapes = shapes,
};
