/* uprobes.c - process probes through the kernel's uprobes: registered at
 * the inode of the probed file and an offset in it (runtime/uprobes.h), so
 * they catch every process that maps the file, also those started later.
 * dwarf.c finds the addresses (uprobes.h); this file keeps them and emits
 * their table. The handler gets the user registers and the load bias of
 * the file in the probed process (where the link-time address is now),
 * which $target variables at fixed addresses need (PIE programs, shared
 * libraries).
 * SDT markers (process("P")[.library("L")][.provider("PROV")].mark("NAME"))
 * are derived here from the file's .note.stapsdt (target/sdt.h): a uprobe
 * at the marker, its semaphore the uprobe's reference counter, $argN
 * compiled from the note's operands (tvar_code).
 */
#include "uprobes.h"
#include "bpf_proto.h"

#include <dwarf.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <string.h>

#include "diag.h"
#include "inputs.h"
#include "kpoint.h"
#include "target/sdt.h"
#include "target/uimage.h"

extern const struct provider uprobes_provider;

/* A derived probe of this family (dp->data). */
struct uprobe_probe {
	const char *path;        /* the probed file, as the kernel finds it */
	const char *host;        /* where it is read here (under --sysroot) */
	uint64_t vaddr, offset;  /* link-time address, and where it is in the file */
	uint64_t func;           /* entry of the function probed (vaddr may be past
				    its prologue) */
	uint64_t body, body_offset; /* a .return probe's: where values at entry
				    are read (past the prologue: the scope's) */
	bool ret;
	bool optional;
	bool dyn;                /* the file is ET_DYN (PIE, shared library) */
	bool target_only;        /* the point names no program: -c/-x's, whose
				    process tree alone it fires in */
	long pid;                /* process(PID): that process alone, else 0 */
	bool has_scope;
	struct dw_scope scope;
	/* an SDT marker */
	bool mark;
	uint64_t ref_ctr;        /* its semaphore's file offset, 0: none */
	char *provider, *name, *args;
	int nargs;
};

/* A probe at vaddr of img with pp() text (taken), or NULL (text freed)
 * if vaddr is in no loadable segment. */
static struct uprobe_probe *add(struct session *s, struct probe *p, struct probe_point *pp,
				struct dw_image *img, uint64_t vaddr, uint64_t func, bool ret,
				const struct dw_scope *scope, char *text)
{
	uint64_t off;

	/* the entry point has no caller to return to: no .return there, as
	 * SystemTap refuses it */
	if (!uimage_file_offset(img, vaddr, &off) || (ret && uimage_is_entry(img, func))) {
		free(text);
		return NULL;
	}
	struct derived_probe *dp = derived_probe_add(s, p, pp, &uprobes_provider, STP_PK_NORMAL);
	struct uprobe_probe *u = xcalloc(1, sizeof(*u));
	u->path = img->user;
	u->host = img->path;
	u->vaddr = vaddr;
	u->func = func;
	u->offset = off;
	u->ret = ret;
	u->optional = pp->optional;
	u->dyn = uimage_is_dyn(img);
	if (scope) {
		u->scope = *scope;
		u->has_scope = true;
	}
	u->body = ret && scope ? scope->entry : vaddr;
	if (!uimage_file_offset(img, u->body, &u->body_offset))
		u->body_offset = off;
	dp->data = u;
	free(dp->pp);
	dp->pp = text;
	return u;
}

bool uprobe_add(struct session *s, struct probe *p, struct probe_point *pp, struct dw_image *img,
		uint64_t vaddr, uint64_t func, bool ret, const struct dw_scope *scope, char *text)
{
	return add(s, p, pp, img, vaddr, func, ret, scope, text) != NULL;
}

/* pp() of a probe on the function (or PLT entry) name: the point with the
 * file's path in process("P") (a library's point has its paths already)
 * and name in component fn_comp, which may have had no argument. */
static char *point_named(struct probe_point *pp, int fn_comp, struct dw_image *img, const char *name)
{
	struct expr *a0 = pp->comps.items[0]->arg, *af = pp->comps.items[fn_comp]->arg;
	struct expr t0 = { .kind = EXPR_STR }, tf = { .kind = EXPR_STR };
	char *text;

	if (a0)
		t0 = *a0;
	if (af)
		tf = *af;
	if (fn_comp == 1) {
		t0.str = img->user;
		t0.str_len = strlen(img->user);
	}
	tf.str = (char *)name;
	tf.str_len = strlen(name);
	pp->comps.items[0]->arg = &t0;
	pp->comps.items[fn_comp]->arg = &tf;
	text = pp_text(pp);
	pp->comps.items[0]->arg = a0;
	pp->comps.items[fn_comp]->arg = af;
	return text;
}

int uprobe_add_symbols(struct session *s, struct probe *p, struct probe_point *pp, int fn_comp,
		       struct dw_image *img, const char *pat, bool ret, int first)
{
	usymvec syms = { 0 };
	int n = 0;

	uimage_functions(img, pat, &syms);
	for (int i = 0; i < syms.len; i++) {
		bool have = false;   /* already probed through DWARF */
		for (int k = first; k < s->probes.len && !have; k++) {
			const struct derived_probe *dp = s->probes.items[k];
			const struct uprobe_probe *u = dp->data;
			have = dp->prov == &uprobes_provider && u->func == syms.items[i].addr &&
			       !strcmp(u->path, img->user);
		}
		if (!have) {
			uint64_t a = syms.items[i].addr;
			n += uprobe_add(s, p, pp, img, a, a, ret, NULL,
					point_named(pp, fn_comp, img, syms.items[i].name));
		}
		free(syms.items[i].name);
	}
	free(syms.items);
	return n;
}

/* $$name of a .plt probe: the function the PLT entry calls, which pp()
 * names (tapsets/uprobes.stp reads it from there). */
static const struct ctx_var plt_vars[] = {
	{ "$$name", "__uprobe_plt_name", NULL, NULL, false, "$$name cannot be assigned" },
};

int uprobe_add_plt(struct session *s, struct probe *p, struct probe_point *pp, int fn_comp,
		   struct dw_image *img, const char *pat, bool ret)
{
	usymvec plt = { 0 };
	int n = 0;

	uimage_plt(img, pat, &plt);
	for (int i = 0; i < plt.len; i++) {
		uint64_t a = plt.items[i].addr;
		n += uprobe_add(s, p, pp, img, a, a, ret, NULL, point_named(pp, fn_comp, img, plt.items[i].name));
		free(plt.items[i].name);
	}
	free(plt.items);
	if (n)
		ctx_vars_rewrite(s, p->body, plt_vars, 1, NULL);
	return n;
}

/* process("P")[.library("L")]: the user files the point names (the
 * program, or its shared libraries matching L), appended to files, and
 * the program's path in *exe; false after an error is reported (or,
 * optional, nothing to probe). A point without "P" names the program of
 * -c CMD, as in SystemTap. */
bool uprobe_process_files(struct session *s, struct probe_point *pp, bool library, strvec *files,
			  char **exe)
{
	const struct expr *a = pp->comps.items[0]->arg;
	const char *arg = NULL, *lib = NULL;
	char *why = NULL, *target = NULL;

	if ((!a && s->cmd) || (a && a->kind == EXPR_NUM) || (!a && s->target_pid)) {
		/* -c CMD's program; process(PID) and -x PID: that process's
		 * (its executable on this host) */
		if (!a && s->cmd) {
			const char *c = s->cmd + strspn(s->cmd, " \t");
			arg = target = xstrndup(c, strcspn(c, " \t;|&<>"));
		} else {
			arg = target = xasprintf("/proc/%lld/exe", a ? (long long)a->num : (long long)s->target_pid);
		}
	} else if (!a || a->kind != EXPR_STR) {
		if (!pp->optional)
			diag(s, E_PROBE_POINT, pp->comps.items[0]->pos,
			     "process probes without a path need -c CMD or -x PID");
		return false;
	} else if (!kpoint_str_arg(s, pp, 0, &arg)) {
		return false;
	}
	if (!library && kpoint_has_wildcard(arg)) {   /* every file matching */
		input_unkeyable(s, "a wildcard over files");
		uimage_glob(s, arg, files);
		if (!files->len && !pp->optional)
			diag(s, E_PROBE_POINT, pp->pos, "no match for probe point %s: no file matches '%s'",
			     pp_text(pp), arg);
		*exe = files->len ? xstrdup(files->items[0]) : NULL;
		return files->len > 0;
	}
	if ((library && !kpoint_str_arg(s, pp, 1, &lib)) || !(*exe = uimage_resolve(s, arg, &why))) {
		if (why && !pp->optional) {
			char *t = pp_text(pp);
			diag(s, E_PROBE_POINT, pp->pos, "cannot resolve %s: %s", t, why);
			free(t);
		}
		free(why);
		free(target);
		return false;
	}
	if (!library) {
		vec_push(files, xstrdup(*exe));
	} else {   /* the program too: the guest runs it (-c NAME) */
		uimage_libraries(s, *exe, lib, files);
		uimage_add_file(s, *exe);
	}
	if (!files->len && !pp->optional) {
		char *t = pp_text(pp);
		diag(s, E_PROBE_POINT, pp->pos, "no match for probe point %s: no shared library '%s' of %s",
		     t, lib, arg);
		free(t);
	}
	free(target);
	return files->len > 0;
}

/* The function (or inlined instance) of img's DWARF holding pc, with the
 * innermost block there: a marker's scope for the program's own variables
 * ($argc ...), as SystemTap resolves names that are no marker argument. */
static bool marker_scope(struct dw_image *img, uint64_t pc, struct dw_scope *sc)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu, *scopes = NULL;
	int n;

	if (!img->dbg || !(cu = dwfl_module_addrdie(img->mod, pc + img->bias, &bias)))
		return false;
	n = dwarf_getscopes(cu, pc + img->bias - bias, &scopes);
	for (int i = 0; i < n; i++) {
		int tag = dwarf_tag(&scopes[i]);
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
			*sc = (struct dw_scope){ .img = img, .die = dwarf_dieoffset(&scopes[i]), .entry = pc };
			dw_scope_find_block(sc);
			free(scopes);
			return true;
		}
	}
	free(scopes);
	return false;
}

/* The markers of one file matching the point: a probe each. pp() is
 * process("FILE").statement(0xPC), as SystemTap's; -l lists the point with
 * the program's and the library's paths and the marker's name. */
static int derive_marks(struct session *s, struct probe *p, struct probe_point *pp, const char *exe,
			const char *lib, const char *file, const char *prov, const char *name, strvec *seen)
{
	const char *dwhy = NULL;
	char *why = NULL;
	sdtvec marks = { 0 };
	struct dw_image *img = dw_user(s, file, &dwhy);
	int n = 0;

	if (!img || !sdt_markers(img->path, &marks, &why)) {
		if (!pp->optional) {
			char *t = pp_text(pp);
			diag(s, E_PROBE_POINT, pp->pos, "cannot resolve %s: %s", t, why ? why : dwhy);
			free(t);
		}
		free(why);
		return -1;
	}
	for (int i = 0; i < marks.len; i++) {
		struct sdt_marker *m = &marks.items[i];
		if ((prov && fnmatch(prov, m->provider, 0)) || fnmatch(name, m->name, 0)) {
			vec_push(seen, xstrdup(m->name));
			continue;
		}
		uint64_t sem = 0;
		if (m->sem && !uimage_file_offset(img, m->sem, &sem)) {
			diag(s, W_GENERIC, pp->pos, "the semaphore of marker %s:%s in %s is not in the file: "
			     "probed without it", m->provider, m->name, file);
			sem = 0;
		}
		struct strbuf list = STRBUF_INIT;
		strbuf_addstr(&list, "process(");
		strbuf_add_cstr_literal(&list, exe);
		if (lib) {
			strbuf_addstr(&list, ").library(");
			strbuf_add_cstr_literal(&list, file);
		}
		if (prov) {
			strbuf_addstr(&list, ").provider(");
			strbuf_add_cstr_literal(&list, m->provider);
		}
		strbuf_addstr(&list, ").mark(");
		strbuf_add_cstr_literal(&list, m->name);
		strbuf_addch(&list, ')');
		struct strbuf text = STRBUF_INIT;
		strbuf_addstr(&text, "process(");
		strbuf_add_cstr_literal(&text, file);
		strbuf_addf(&text, ").statement(0x%" PRIx64 ")", m->pc);
		struct dw_scope sc;
		bool has_sc = marker_scope(img, m->pc, &sc);
		struct uprobe_probe *u = add(s, p, pp, img, m->pc, m->pc, false, has_sc ? &sc : NULL,
					     strbuf_detach(&text));
		if (!u) {
			strbuf_release(&list);
			continue;
		}
		struct derived_probe *dp = s->probes.items[s->probes.len - 1];
		dp->list_pp = strbuf_detach(&list);
		u->mark = true;
		u->ref_ctr = sem;
		u->provider = m->provider;
		u->name = m->name;
		u->args = m->args;
		u->nargs = sdt_arg_count(m->args);
		m->provider = m->name = m->args = NULL;
		n++;
	}
	sdt_markers_free(&marks);
	return n;
}

/* process("P")[.library("L")][.provider("PROV")].mark("NAME"); the
 * .function and .statement points are taken by dwarf.c. */
static int derive(struct session *s, struct probe *p, struct probe_point *pp)
{
	const char *prov = NULL, *name = NULL;
	int i = 1;
	bool library = pp_comp_is(pp, 1, "library");

	if (!pp_comp_is(pp, 0, "process"))
		return 0;
	i += library;
	if (pp_comp_is(pp, i, "provider")) {
		if (!kpoint_str_arg(s, pp, i, &prov))
			return -1;
		i++;
	}
	if (!pp_comp_is(pp, i, "mark") || pp->comps.len != i + 1)
		return 0;
	if (!kpoint_str_arg(s, pp, i, &name))
		return -1;
	/* DTrace's name of a marker foo__bar is foo-bar (dtrace -h): SystemTap
	 * takes either */
	char *mark = str_replace_all(name, "-", "__");

	strvec files = { 0 }, seen = { 0 };
	char *exe = NULL;
	int n = 0, first = s->probes.len;
	if (!uprobe_process_files(s, pp, library, &files, &exe)) {
		free(mark);
		return pp->optional ? 1 : -1;
	}
	for (int k = 0; k < files.len; k++) {
		int r = derive_marks(s, p, pp, library ? exe : files.items[k], library ? files.items[k] : NULL,
				     files.items[k], prov, mark, &seen);
		if (r < 0) {
			n = -1;
			break;
		}
		n += r;
	}
	uprobe_restrict(s, pp, first);
	if (!n && !pp->optional) {
		/* SystemTap's hint: up to five other markers, most recent first */
		struct strbuf hint = STRBUF_INIT;
		int shown = 0;
		for (int k = seen.len - 1; k >= 0 && shown < 5; k--) {
			bool dup = false;
			for (int j = seen.len - 1; j > k && !dup; j--)
				dup = !strcmp(seen.items[j], seen.items[k]);
			if (dup)
				continue;
			strbuf_addstr(&hint, shown++ ? ", " : " (similar marks: ");
			strbuf_addstr(&hint, seen.items[k]);
		}
		if (shown)
			strbuf_addch(&hint, ')');
		char *t = pp_text(pp);
		diag(s, E_PROBE_POINT, pp->pos, "no match for probe point %s%s", t, hint.len ? hint.buf : "");
		free(t);
		strbuf_release(&hint);
	}
	for (int k = 0; k < seen.len; k++)
		free(seen.items[k]);
	free(seen.items);
	for (int k = 0; k < files.len; k++)
		free(files.items[k]);
	free(files.items);
	free(exe);
	free(mark);
	return n > 0 || pp->optional ? 1 : -1;
}

static const struct dw_scope *tvar_scope(const struct derived_probe *dp)
{
	const struct uprobe_probe *u = dp->data;

	return u->has_scope ? &u->scope : NULL;
}

static void list_vars(struct session *s, const struct derived_probe *dp, struct strbuf *out)
{
	const struct uprobe_probe *u = dp->data;
	const struct dw_scope *sc = tvar_scope(dp);

	(void)s;
	if (u->mark) {   /* a marker's arguments only, as SystemTap lists them */
		for (int i = 1; i <= u->nargs; i++)
			strbuf_addf(out, " $arg%d:long", i);
	} else if (sc) {
		dw_scope_vars(sc, out);
	}
}

/* $argN of a marker (N up to its count: beyond, the name is the program's,
 * as in SystemTap), $$name, $$provider, and $$parms / $$vars: "$arg1=0x..
 * $arg2=0x..". */
static int tvar_code(struct session *s, const struct derived_probe *dp, const struct expr *e,
		     const struct lx **value, lpvec **pretty, char **why)
{
	const struct uprobe_probe *u = dp->data;
	const char *n = e->name;
	int argno = 0;

	(void)s;
	if (!u->mark)
		return 0;
	if (!strncmp(n, "$arg", 4) && n[4] >= '1' && n[4] <= '9' && strspn(n + 4, "0123456789") == strlen(n + 4))
		argno = atoi(n + 4);
	if (argno > u->nargs && !u->has_scope) {   /* nor a variable of the program's */
		*why = xasprintf("no %s: marker %s:%s has %d argument%s and %s no debuginfo", n, u->provider,
				 u->name, u->nargs, u->nargs == 1 ? "" : "s", u->path);
		return -1;
	}
	if (argno > u->nargs)
		return 0;
	if (!argno && strcmp(n, "$$name") && strcmp(n, "$$provider") && strcmp(n, "$$parms") && strcmp(n, "$$vars"))
		return 0;
	if (e->chain.len || e->suffix) {
		*why = xasprintf("'%s' of an SDT marker has no type: '->', '[]' and pretty printing need @cast", n);
		return -1;
	}
	if (argno) {
		*value = sdt_arg_lx(u->host, u->args, argno, why);
		return *value ? 1 : -1;
	}
	lpvec *out = xcalloc(1, sizeof(*out));
	*pretty = out;
	if (!strcmp(n, "$$name") || !strcmp(n, "$$provider")) {
		lp_text(out, n[2] == 'n' ? u->name : u->provider);
		return 1;
	}
	for (int i = 1; i <= u->nargs; i++) {
		const struct lx *x = sdt_arg_lx(u->host, u->args, i, why);
		if (!x) {
			*pretty = NULL;
			return -1;
		}
		lp_textf(out, "%s$arg%d=", i > 1 ? " " : "", i);
		lp_value(out, x, LP_HEX);
	}
	return 1;
}

const char *uprobe_path(const struct derived_probe *dp)
{
	return dp->prov == &uprobes_provider ? ((const struct uprobe_probe *)dp->data)->path : NULL;
}

void uprobe_restrict(struct session *s, const struct probe_point *pp, int first)
{
	const struct expr *a = pp->comps.items[0]->arg;

	if (a && a->kind != EXPR_NUM)
		return;
	for (int i = first; i < s->probes.len; i++) {
		struct uprobe_probe *u = s->probes.items[i]->data;
		if (s->probes.items[i]->prov != &uprobes_provider)
			continue;
		if (a)
			u->pid = a->num;
		else
			u->target_only = true;
	}
}

/* Where the probe is in its file, as SystemTap's -p2 notes it. */
static void dump_note(const struct derived_probe *dp, struct strbuf *out)
{
	const struct uprobe_probe *u = dp->data;

	strbuf_addf(out, " /* pc=%s+0x%llx */", u->dyn ? ".dynamic" : ".absolute", (unsigned long long)u->offset);
}

/* A probe on a file's symbols (no debuginfo): $$vars are "", as SystemTap. */
static bool without_dwarf(const struct derived_probe *dp)
{
	return !((const struct uprobe_probe *)dp->data)->has_scope;
}

static const char *probe_type(const struct derived_probe *dp)
{
	return ((const struct uprobe_probe *)dp->data)->ret ? "uretprobe" : "uprobe";
}

/* --runtime=bpf: a uprobe (ret: uretprobe) through the uprobe PMU at
 * offset in u's file, with the semaphore the kernel counts (REFCTR) and
 * process(PID)'s pid; -1 with *why when u has none. */
static int attach_at(const struct uprobe_probe *u, bool ret, uint64_t offset, struct bpf_attach *at,
		     const char **why)
{
	if (u->target_only) {
		*why = "a point that names no program (the -c/-x target's process tree)";
		return -1;
	}
	if (strpbrk(u->path, " \t\n")) {
		*why = "a file whose path has a space";
		return -1;
	}
	*at = (struct bpf_attach){ .kind = ret ? BA_URETPROBE : BA_UPROBE, .symbol = u->path,
				   .offset = (long long)offset, .ref_ctr = (long long)u->ref_ctr, .pid = u->pid };
	return 0;
}

static int bpf_attach(const struct derived_probe *dp, struct bpf_attach *at, const char **why)
{
	const struct uprobe_probe *u = dp->data;

	if (attach_at(u, u->ret, u->offset, at, why) < 0)
		return -1;
	at->optional = u->optional;
	return 0;
}

/* A uretprobe's values at entry are read by a uprobe past the prologue
 * (the scope's entry), as the module's (runtime/uprobes.h); the frame
 * address there is what the call frame information says, and the stack
 * pointer after the return. */
static int bpf_entry_attach(struct session *s, const struct derived_probe *dp, struct bpf_attach *at, int *reg,
			    int64_t *off, int64_t *ret_off, const char **why)
{
	const struct uprobe_probe *u = dp->data;

	if (!dw_scope_cfa(tvar_scope(dp), reg, off)) {
		*why = "no call frame information where the values at entry are read";
		return -1;
	}
	*ret_off = 0;
	return attach_at(u, false, u->body_offset, at, why);
}

/* --runtime=bpf: user registers, with the function's arguments; the ip is
 * the probed address, so the load bias is it minus the link-time one (a
 * .return's is read at entry); a marker's arguments. */
static void bpf_context(const struct derived_probe *dp, struct bpf_context *c)
{
	const struct uprobe_probe *u = dp->data;

	c->user = true;
	c->reg_args = true;
	c->ip_back = 0;
	c->bias_at_entry = u->ret;
	c->vaddr = u->vaddr;
	c->entry_vaddr = u->body;
	c->mark_args = u->mark ? u->nargs : -1;
}

static void emit_decls(struct session *s, struct strbuf *out)
{
	strbuf_addf(out, "static struct stp_uprobe stp_up[%d] = {\n", provider_probes(s, &uprobes_provider));
	for (int i = 0; i < s->probes.len; i++) {
		const struct derived_probe *dp = s->probes.items[i];
		if (dp->prov != &uprobes_provider)
			continue;
		const struct uprobe_probe *u = dp->data;
		strbuf_addstr(out, "\t{ .path = ");
		strbuf_add_cstr_literal(out, u->path);
		strbuf_addf(out, ", .offset = 0x%llxULL, .vaddr = 0x%llxUL, ",
			    (unsigned long long)u->offset, (unsigned long long)u->vaddr);
		if (u->ref_ctr)
			strbuf_addf(out, ".ref_ctr = 0x%llxULL, ", (unsigned long long)u->ref_ctr);
		strbuf_addstr(out, ".pp = ");
		strbuf_add_cstr_literal(out, dp->pp);
		strbuf_addf(out, ",\n\t  .handler = dp_%d, .flags = 0%s%s%s, .pid = %ld", dp->index,
			    u->ret ? " | STP_UPF_RETURN" : "", u->optional ? " | STP_UPF_OPTIONAL" : "",
			    u->target_only ? " | STP_UPF_TARGET" : "", u->pid);
		int reg;
		int64_t cfa;
		if (u->ret && dp->has_entry && !dw_scope_cfa(tvar_scope(dp), &reg, &cfa))
			diag(s, E_TARGET_VAR, dp->probe->pos, "values at entry of %s: no call frame "
			     "information where they are read (0x%llx)", dp->pp, (unsigned long long)u->body);
		else if (u->ret && dp->has_entry)
			strbuf_addf(out, ",\n\t  .entry = dpentry_%d, .data_size = sizeof(struct entry_d%d),"
				    " .entry_offset = 0x%llxULL, .entry_vaddr = 0x%llxUL, .cfa_reg = %d,"
				    " .cfa_off = %lld", dp->index, dp->index, (unsigned long long)u->body_offset,
				    (unsigned long long)u->body, reg, (long long)cfa);
		strbuf_addstr(out, " },\n");
	}
	strbuf_addstr(out, "};\n\n");
}

static void emit_register(struct session *s, struct strbuf *out)
{
	strbuf_addf(out, "\trc = stp_uprobes_register(stp_up, %d);\n\tif (rc)\n\t\treturn rc;\n",
		    provider_probes(s, &uprobes_provider));
}

static void emit_unregister(struct session *s, struct strbuf *out)
{
	strbuf_addf(out, "\tstp_uprobes_unregister(stp_up, %d);\n", provider_probes(s, &uprobes_provider));
}

/* The consumer calls dp_N with the user registers and the file's load bias. */
static const struct handler_abi uprobe_abi = {
	.params = "struct pt_regs *regs, unsigned long ubias",
	.fill = "\tc->regs = regs;\n\tc->ubias = ubias;\n",
};

const struct provider uprobes_provider = {
	.name = "uprobes",
	.runtime_header = "uprobes.h",
	.unprivileged = true,
	.derive = derive,
	.tvar_scope = tvar_scope,
	.without_dwarf = without_dwarf,
	.tvar_code = tvar_code,
	.list_vars = list_vars,
	.handler = &uprobe_abi,
	.emit_decls = emit_decls,
	.emit_register = emit_register,
	.emit_unregister = emit_unregister,
	.probe_type = probe_type,
	.shows_origin = true,
	.dump_note = dump_note,
	.bpf_attach = bpf_attach,
	.bpf_entry_attach = bpf_entry_attach,
	.bpf_context = bpf_context,
};
