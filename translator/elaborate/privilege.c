/* privilege.c - pass 2's checks for a module users of the groups stapusr
 * and stapsys may load (--privilege=stapusr|stapsys, --unprivileged), as
 * SystemTap restricts them:
 *   - probes of the families that touch only the user's own processes or
 *     nothing of anyone's (begin, end, error, never, timer, process):
 *     provider->unprivileged; the runtime fires process probes only in the
 *     user's processes (runtime/run_state.h, stp_is_myproc);
 *   - no kernel data: a target expression ($var, @cast, @var, &...) that
 *     reads the kernel's memory or registers, or gives a kernel address
 *     (tvars_kernel: a kernel probe's $vars, @cast to kernel types, kernel
 *     globals), in the script or in a tapset function it calls;
 *   - no embedded C of the user's own: the script's needs guru mode, which
 *     options.c refuses with --privilege, and a tapset from a -I directory
 *     is the user's too (srcfile.from_include): its marks are not trusted;
 *   - only the library's functions whose embedded C is marked unprivileged
 *     or myproc-unprivileged (the latter run only in the user's processes:
 *     translate/module/module.c checks that at run time), and script functions whose
 *     bodies, and what they call, pass these same checks; an embedded
 *     expression in a library function must be marked unprivileged.
 * A probe alias's body is checked as part of the user's probe. Each refusal
 * is an E_PRIVILEGE error where the script asks for it: the construct, the
 * call of the refused function, or (for what an alias's body does) the
 * user's probe, with a note where the library does it.
 */
#include <string.h>

#include "diag.h"
#include "passes.h"
#include "probes/provider.h"
#include "tvars.h"
#include "walk.h"

static const char *level(const struct session *s)
{
	return s->privilege == PRIV_STAPSYS ? "stapsys" : "stapusr";
}

/* Library code carries marks the privilege check trusts; the script's
 * files and -I tapsets are the user's. */
static bool library_file(const struct srcfile *f)
{
	return f && f->is_tapset && !f->from_include;
}

/* Does embedded code carry the pragma comment / * name * /? (As the
 * parser collects a function's pragmas: one word between the markers.) */
static bool code_has_pragma(const char *code, const char *name)
{
	const char *s = code, *w;
	size_t n;

	while ((w = pragma_next(&s, &n)))
		if (n == strlen(name) && !strncmp(w, name, n))
			return true;
	return false;
}

/* A library function whose embedded C says it may run for stapusr. */
static bool marked_unprivileged(const struct func *f)
{
	if (!library_file(f->file))
		return false;
	for (int i = 0; i < f->pragmas.len; i++)
		if (!strcmp(f->pragmas.items[i], "unprivileged") ||
		    !strcmp(f->pragmas.items[i], "myproc-unprivileged"))
			return true;
	return false;
}

/* The first refused construct found in a body: what, and where. */
struct finding {
	const char *what;
	struct srcpos pos;
};

/* A function's verdict, once per function (and derived probe, for one
 * reading the probe's $vars). */
struct verdict {
	const struct func *f;
	const struct derived_probe *dp;
	bool done;            /* false: being checked (recursion: no answer yet) */
	struct finding bad;   /* what: NULL if allowed */
};
typedef VEC(struct verdict *) verdictvec;
typedef VEC(struct srcpos) posvec;

struct check {
	struct session *s;
	const struct derived_probe *dp;   /* the context target expressions resolve in */
	const struct probe *probe;        /* report mode: the user's probe walked, or NULL */
	bool report;                      /* diagnose each refused construct (else: find one) */
	struct finding found;             /* !report: the first found */
	verdictvec *memo;
	posvec *reported;                 /* report: where errors were given (each once) */
};

/* Was an error already given here (a body walked for each derived probe,
 * an alias body's findings all at the user's probe)? Notes it if not. */
static bool reported_at(posvec *seen, struct srcpos pos)
{
	for (int i = 0; i < seen->len; i++)
		if (seen->items[i].file == pos.file && seen->items[i].line == pos.line &&
		    seen->items[i].col == pos.col)
			return true;
	vec_push(seen, pos);
	return false;
}

static const struct finding *func_refused(struct check *c, const struct func *f);
static void check_user_func(struct check *c, const struct func *f);

/* Report a refused construct at pos (what it is, and why if that is not
 * plain), or, for library code in the user's probe (an alias's body, a
 * macro's expansion), at the probe with a note at pos; inner: what in a
 * called function refused it, as a note. */
static void refuse(struct check *c, struct srcpos pos, const char *what, const char *why,
		   const struct finding *inner)
{
	if (!c->report) {
		if (!c->found.what)
			c->found = (struct finding){ what, pos };
		return;
	}
	bool lib = library_file(pos.file) && c->probe;
	if (reported_at(c->reported, lib ? c->probe->pos : pos))
		return;
	diag(c->s, E_PRIVILEGE, lib ? c->probe->pos : pos, "%s is not allowed with --privilege=%s%s%s%s",
	     what, level(c->s), why ? ": " : "", why ? why : "",
	     !lib ? "" : pos.file->is_macro ? " (in a library macro this probe uses)"
					    : " (in the body of a probe alias this probe uses)");
	if (lib)
		diag_note(c->s, pos, "there");
	if (inner)
		diag_note(c->s, inner->pos, "%s", inner->what);
}

/* Why an embedded-C function cannot be called, or NULL. */
static const char *embedded_refused(const struct func *f)
{
	if (marked_unprivileged(f))
		return NULL;
	return library_file(f->file) ? "its embedded C is not marked unprivileged"
				     : "its embedded C is the user's own (a -I tapset)";
}

static enum walk_action check_expr(struct expr *e, void *ctx)
{
	struct check *c = ctx;

	switch (e->kind) {
	case EXPR_CALL: {
		if (!e->func)
			return WALK_DESCEND;
		if (c->report && !e->func->embedded && !library_file(e->func->file)) {
			check_user_func(c, e->func);   /* its own constructs are reported */
			return WALK_DESCEND;
		}
		const char *why = e->func->embedded ? embedded_refused(e->func) : NULL;
		const struct finding *inner = e->func->embedded ? NULL : func_refused(c, e->func);
		if (why || inner) {
			char *what = xasprintf("function '%s'", e->func->name);
			refuse(c, e->pos, what, why ? why : "it reads kernel data, or calls what is not allowed", inner);
		}
		return WALK_DESCEND;
	}
	case EXPR_EMBEDDED:
		if (!library_file(e->pos.file) || !code_has_pragma(e->str, "unprivileged"))
			refuse(c, e->pos, "embedded C not marked unprivileged", NULL, NULL);
		return WALK_SKIP;
	case EXPR_DEFINED:   /* a question, not a read */
		return WALK_SKIP;
	case EXPR_ADDROF:
		if (!e->lhs || (e->lhs->kind != EXPR_TARGET && e->lhs->kind != EXPR_CAST &&
				e->lhs->kind != EXPR_ATVAR))
			return WALK_DESCEND;
		/* resolved under the & */
		/* fall through */
	case EXPR_TARGET:
	case EXPR_CAST:
	case EXPR_ATVAR:
		if (tvars_kernel(c->s, c->dp, e))
			refuse(c, e->pos, e->kind == EXPR_TARGET ? "a kernel probe's target variable"
				   : e->kind == EXPR_ADDROF ? "the address of kernel data"
				   : e->kind == EXPR_ATVAR ? "@var of kernel data (a kernel global)"
				   : "@cast to a kernel type (kernel memory)", NULL, NULL);
		return WALK_DESCEND;   /* the pointer operand and [index] expressions */
	default:
		return WALK_DESCEND;
	}
}

static enum walk_action check_stmt(struct stmt *st, void *ctx)
{
	struct check *c = ctx;

	if (st->kind == STMT_EMBEDDED && (!library_file(st->pos.file) || !code_has_pragma(st->code, "unprivileged")))
		refuse(c, st->pos, "embedded C not marked unprivileged", NULL, NULL);
	return WALK_DESCEND;
}

/* The memo's verdict for (f, dp), made (not done, nothing found) and
 * *fresh set when there was none yet. */
static struct verdict *verdict_of(verdictvec *memo, const struct func *f, const struct derived_probe *dp,
				  bool *fresh)
{
	struct verdict *v;

	for (int i = 0; i < memo->len; i++)
		if (memo->items[i]->f == f && memo->items[i]->dp == dp) {
			*fresh = false;
			return memo->items[i];
		}
	v = xcalloc(1, sizeof(*v));
	v->f = f;
	v->dp = dp;
	vec_push(memo, v);
	*fresh = true;
	return v;
}

/* What makes a script function refused, or NULL: its body is checked as
 * the user's code would be, in the context of the probe that calls it if
 * it reads that probe's $vars. */
static const struct finding *func_refused(struct check *c, const struct func *f)
{
	const struct derived_probe *dp = f->in_context ? c->dp : NULL;
	bool fresh;
	struct verdict *v = verdict_of(c->memo, f, dp, &fresh);

	if (!fresh)
		return v->done && v->bad.what ? &v->bad : NULL;   /* in progress: what it calls decides */
	struct check in = { .s = c->s, .dp = dp, .memo = c->memo };
	const struct walker w = { .expr = check_expr, .stmt = check_stmt, .ctx = &in };
	walk_stmt(&w, f->body);
	v->bad = in.found;
	v->done = true;
	return v->bad.what ? &v->bad : NULL;
}

/* A script function of the user's that reads the calling probe's $vars
 * is checked in each probe that calls it (once per derived probe);
 * the others once, by check_privilege. */
static void check_user_func(struct check *c, const struct func *f)
{
	bool fresh;

	if (!f->in_context)
		return;
	struct verdict *v = verdict_of(c->memo, f, c->dp, &fresh);
	if (!fresh)
		return;
	v->done = true;   /* a user function's verdict is its reports */
	const struct walker w = { .expr = check_expr, .stmt = check_stmt, .ctx = c };
	walk_stmt(&w, f->body);
}

/* Probe points of the families an unprivileged module may not have. */
static void check_probe_points(struct session *s, posvec *reported)
{
	const struct probe *last = NULL;

	for (int i = 0; i < s->probes.len; i++) {
		const struct derived_probe *dp = s->probes.items[i];
		if (!dp->prov->unprivileged && dp->probe != last && !reported_at(reported, dp->probe->pos)) {
			diag(s, E_PRIVILEGE, dp->probe->pos, "probe point %s is not allowed with --privilege=%s "
			     "(only begin, end, error, never, timer and process probes are)", dp->pp, level(s));
			last = dp->probe;
		}
	}
}

void check_privilege(struct session *s)
{
	verdictvec memo = { 0 };
	posvec reported = { 0 };

	if (s->privilege == PRIV_STAPDEV)
		return;
	check_probe_points(s, &reported);
	/* the user's probe bodies (with their aliases' bodies) in each
	 * derived probe's context: a $var or an @cast reads the kernel in
	 * some families and the user's process in others */
	for (int i = 0; i < s->probes.len; i++) {
		const struct derived_probe *dp = s->probes.items[i];
		if (library_file(dp->probe->file))
			continue;   /* the library's own probes (argv.stp's begin) */
		struct check c = { .s = s, .dp = dp, .probe = dp->probe, .report = true, .memo = &memo,
				   .reported = &reported };
		const struct walker w = { .expr = check_expr, .stmt = check_stmt, .ctx = &c };
		walk_stmt(&w, dp->probe->body);
	}
	for (int i = 0; i < s->funcs.len; i++) {
		struct func *f = s->funcs.items[i];
		if (library_file(f->file) || f->embedded || f->in_context)
			continue;   /* the last: checked in the probes that call them */
		struct check c = { .s = s, .report = true, .memo = &memo, .reported = &reported };
		const struct walker w = { .expr = check_expr, .stmt = check_stmt, .ctx = &c };
		walk_stmt(&w, f->body);
	}
	for (int i = 0; i < memo.len; i++)
		free(memo.items[i]);
	free(memo.items);
	free(reported.items);
}
