/* dump.c - what -p1 and -p2 print: the script as SystemTap source, and after
 * elaboration the kept globals, functions and probes with their types. */
#include <stdio.h>

#include "passes.h"
#include "probes/provider.h"

void print_pass1(struct session *s)
{
	struct strbuf out = STRBUF_INIT;

	strbuf_addstr(&out, "# parse tree dump\n");
	unparse_script(&out, s->user);
	for (int i = 0; i < s->user_more.len; i++)
		unparse_script(&out, s->user_more.items[i]);
	fwrite(out.buf, 1, out.len, stdout);
	strbuf_release(&out);
}

static void print_sym(struct strbuf *out, const struct sym *v)
{
	strbuf_addf(out, "%s:%s", v->name, type_name(v->type));
	if (v->is_array) {
		strbuf_addstr(out, " [");
		for (int k = 0; k < v->nkeys; k++)
			strbuf_addf(out, "%s%s", k ? ", " : "", type_name(v->key_types[k]));
		strbuf_addstr(out, "]");
	}
}

void print_pass2(struct session *s)
{
	struct strbuf out = STRBUF_INIT;

	strbuf_addstr(&out, "# globals\n");
	for (int i = 0; i < s->globals.len; i++) {
		print_sym(&out, s->globals.items[i]);
		strbuf_addch(&out, '\n');
	}
	strbuf_addstr(&out, "# functions\n");
	for (int i = 0; i < s->funcs.len; i++) {
		struct func *f = s->funcs.items[i];
		strbuf_addf(&out, "%s:%s (", f->name, type_name(f->ret));
		for (int j = 0; j < f->params.len; j++) {
			if (j)
				strbuf_addstr(&out, ", ");
			print_sym(&out, f->params.items[j]);
		}
		strbuf_addstr(&out, ")\n");
		for (int j = 0; j < f->locals.len; j++) {
			strbuf_addstr(&out, "  local ");
			print_sym(&out, f->locals.items[j]);
			strbuf_addch(&out, '\n');
		}
		if (f->body) {
			unparse_stmt(&out, f->body, 0);
			strbuf_addch(&out, '\n');
		}
	}
	strbuf_addstr(&out, "# probes\n");
	for (int i = 0; i < s->probes.len; i++) {
		struct derived_probe *dp = s->probes.items[i];
		strbuf_addstr(&out, dp->pp);
		if (dp->prov->dump_note)
			dp->prov->dump_note(dp, &out);
		strbuf_addstr(&out, " /* <- ");
		unparse_probe_point(&out, dp->point);
		strbuf_addstr(&out, " */\n");
		for (int j = 0; j < dp->probe->locals.len; j++) {
			strbuf_addstr(&out, "  local ");
			print_sym(&out, dp->probe->locals.items[j]);
			strbuf_addch(&out, '\n');
		}
		unparse_stmt(&out, dp->probe->body, 0);
		strbuf_addch(&out, '\n');
	}
	fwrite(out.buf, 1, out.len, stdout);
	strbuf_release(&out);
}
