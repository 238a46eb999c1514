/* translate.c - pass 3: the module's C (translate/module/) or the BPF
 * bundle (translate/bpf/) into a fresh build directory; and what both
 * backends say alike of a script's places ("near ..." in run-time errors,
 * -t's table). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"

#include "diag.h"
#include "options.h"
#include "passes.h"
#include "probes/provider.h"
#include "session.h"
#include "translate/bpf/unit.h"
#include "translate/module/module.h"
#include "translate/translate.h"

/* "identifier 'x' at f.stp:3:5" for run-time error messages */
char *near_text(const char *what, const char *name, struct srcpos pos)
{
	const char *file = pos.file ? pos.file->name : "?";

	return name ? xasprintf("%s '%s' at %s:%d:%d", what, name, file, pos.line, pos.col)
		    : xasprintf("%s at %s:%d:%d", what, file, pos.line, pos.col);
}

/* How SystemTap names the first token of a statement in "near ..." */
char *stmt_near_text(const struct stmt *st)
{
	const struct expr *e = st->kind == STMT_EXPR ? st->expr : NULL;

	while (e && (e->kind == EXPR_ASSIGN || e->kind == EXPR_BINARY || e->kind == EXPR_POSTINC ||
		     e->kind == EXPR_TERNARY || e->kind == EXPR_IN) && (e->lhs || e->args.len)) {
		if (e->kind == EXPR_POSTINC || e->kind == EXPR_ASSIGN || e->kind == EXPR_BINARY)
			e = e->lhs;
		else
			e = e->args.items[0];
	}
	if (e && (e->kind == EXPR_VAR || e->kind == EXPR_INDEX || e->kind == EXPR_CALL))
		return near_text("identifier", e->name, e->pos);
	if (st->kind == STMT_BLOCK)
		return near_text("operator", "{", st->pos);
	return near_text("keyword", NULL, st->pos);
}

/* A loop body with no statement of its own still counts once a round, so
 * that `while (1) {}` ends too. */
bool has_statements(const struct stmt *st)
{
	if (!st)
		return false;
	if (st->kind != STMT_BLOCK)
		return st->kind != STMT_NULL;
	for (int i = 0; i < st->stmts.len; i++)
		if (has_statements(st->stmts.items[i]))
			return true;
	return false;
}


/* Where dp's probe is written, for -t. */
char *probe_pos(const struct derived_probe *dp)
{
	struct srcpos p = dp->probe->pos;

	return xasprintf("%s:%d:%d", p.file ? p.file->name : "?", p.line, p.col);
}

/* -t's "from:" (translate.h) */
char *timing_from(const struct derived_probe *dp)
{
	struct strbuf pp = STRBUF_INIT;

	if (dp->prov->shows_origin && dp->point) {
		strbuf_addf(&pp, "%s from: ", dp->pp);
		unparse_probe_point(&pp, dp->point);
	} else if (dp->probe->points.len) {
		unparse_probe_point(&pp, dp->probe->points.items[0]);
	}
	return pp.buf ? strbuf_detach(&pp) : xstrdup("");
}
/* %m/%M: a module checks for the read's fault after the print; BPF has no
 * form of them. An invalid format (refused in pass 2) reads nothing. */
bool format_reads_memory(const struct expr *fmt)
{
	char *sig = xmalloc(fmt->str_len + 1);
	bool reads = stp_format_signature(fmt->str, sig, fmt->str_len + 1, NULL) >= 0 && strpbrk(sig, "mM");

	free(sig);
	return reads;
}

/* Pass 3: write the module source into a fresh build directory; -p3 prints it. */
int pass3_translate(struct session *s)
{
	struct strbuf out = STRBUF_INIT;

	/* first: the module's source may name files written next to it */
	if (session_mkdtemp(s))
		return 1;
	if (s->runtime_bpf)   /* lowered at pass 2's end (translate/bpf/) */
		bpf_bundle_write(s->bpf_unit, &out);
	else if (translate_module(s, &out))
		return 1;
	s->c_file = xasprintf("%s/%s.%s", s->tmpdir, s->module_name, s->runtime_bpf ? "bo" : "c");
	if (write_file(s->c_file, out.buf, out.len) != 0) {
		diag(s, T_INTERNAL, (struct srcpos){0}, "cannot write %s", s->c_file);
		return 1;
	}
	if (s->last_pass == 3)
		fwrite(out.buf, 1, out.len, stdout);
	strbuf_release(&out);
	return 0;
}
