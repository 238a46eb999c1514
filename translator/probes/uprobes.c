/* uprobes.c - process probes through the kernel's uprobes: registered at
 * the inode of the probed file and an offset in it (runtime/uprobes.h), so
 * they catch every process that maps the file, also those started later.
 * dwarf.c finds the addresses (uprobes.h); this file keeps them and emits
 * their table. The handler gets the user registers and the load bias of
 * the file in the probed process (where the link-time address is now),
 * which $target variables at fixed addresses need (PIE programs, shared
 * libraries).
 */
#include "uprobes.h"

#include <string.h>

#include "diag.h"
#include "target/tvars.h"
#include "target/uimage.h"

extern const struct provider uprobes_provider;

/* A derived probe of this family (dp->data). */
struct uprobe_probe {
	const char *path;        /* the probed file, as the kernel finds it */
	uint64_t vaddr, offset;  /* link-time address, and where it is in the file */
	uint64_t func;           /* entry of the function probed (vaddr may be past
				    its prologue) */
	uint64_t body, body_offset; /* a .return probe's: where values at entry
				    are read (past the prologue: the scope's) */
	bool ret;
	bool optional;
	bool dyn;                /* the file is ET_DYN (PIE, shared library) */
	bool has_scope;
	struct dw_scope scope;
};

bool uprobe_add(struct session *s, struct probe *p, struct probe_point *pp, struct dw_image *img,
		uint64_t vaddr, uint64_t func, bool ret, const struct dw_scope *scope, char *text)
{
	uint64_t off;

	/* the entry point has no caller to return to: no .return there, as
	 * SystemTap refuses it */
	if (!uimage_file_offset(img, vaddr, &off) || (ret && uimage_is_entry(img, func))) {
		free(text);
		return false;
	}
	struct derived_probe *dp = derived_probe_add(s, p, pp, &uprobes_provider, PK_NORMAL);
	struct uprobe_probe *u = xcalloc(1, sizeof(*u));
	u->path = img->user;
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
	return true;
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

/* The points are taken by dwarf.c (process("P").function ...). */
static int derive(struct session *s, struct probe *p, struct probe_point *pp)
{
	(void)s, (void)p, (void)pp;
	return 0;
}

static const struct dw_scope *tvar_scope(const struct derived_probe *dp)
{
	const struct uprobe_probe *u = dp->data;

	return u->has_scope ? &u->scope : NULL;
}

static void list_vars(struct session *s, const struct derived_probe *dp, struct strbuf *out)
{
	const struct dw_scope *sc = tvar_scope(dp);

	(void)s;
	if (sc)
		dw_scope_vars(sc, out);
}

/* Where the probe is in its file, as SystemTap's -p2 notes it. */
static void dump_note(const struct derived_probe *dp, struct strbuf *out)
{
	const struct uprobe_probe *u = dp->data;

	strbuf_addf(out, " /* pc=%s+0x%llx */", u->dyn ? ".dynamic" : ".absolute", (unsigned long long)u->offset);
}

static const char *probe_type(const struct derived_probe *dp)
{
	return ((const struct uprobe_probe *)dp->data)->ret ? "uretprobe" : "uprobe";
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
		strbuf_addf(out, ", .offset = 0x%llxULL, .vaddr = 0x%llxUL, .pp = ",
			    (unsigned long long)u->offset, (unsigned long long)u->vaddr);
		strbuf_add_cstr_literal(out, dp->pp);
		strbuf_addf(out, ",\n\t  .handler = dp_%d, .flags = 0%s%s", dp->index,
			    u->ret ? " | STP_UPF_RETURN" : "", u->optional ? " | STP_UPF_OPTIONAL" : "");
		int reg;
		int64_t cfa;
		if (u->ret && dp->has_entry && !tvars_cfa(s, dp, &reg, &cfa))
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
	.derive = derive,
	.tvar_scope = tvar_scope,
	.empty_lists_without_dwarf = true,
	.list_vars = list_vars,
	.handler = &uprobe_abi,
	.emit_decls = emit_decls,
	.emit_register = emit_register,
	.emit_unregister = emit_unregister,
	.probe_type = probe_type,
	.shows_origin = true,
	.dump_note = dump_note,
};
