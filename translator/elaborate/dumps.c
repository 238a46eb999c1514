/* dumps.c - stap --dump-functions, --dump-probe-types, --dump-probe-aliases:
 * what the tapset library and the probe families offer, printed after pass
 * 1 (no script needed), one item a line, sorted, each once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "listing.h"
#include "passes.h"
#include "probes/provider.h"

static int cmp_lines(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Print the lines sorted, each once, and free them. */
static void print_sorted(strvec *v)
{
	if (v->len)
		qsort(v->items, (size_t)v->len, sizeof(char *), cmp_lines);
	for (int i = 0; i < v->len; i++) {
		if (!i || strcmp(v->items[i], v->items[i - 1]))
			printf("%s\n", v->items[i]);
	}
	for (int i = 0; i < v->len; i++)
		free(v->items[i]);
	free(v->items);
}

/* "name:type (param:type, ...)" as SystemTap's --dump-functions writes a
 * function (a type the declaration does not give is "unknown"), with its
 * privilege pragma. */
static char *func_line(const struct func *f)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s:%s (", f->name, type_name(f->ret));
	for (int i = 0; i < f->params.len; i++)
		strbuf_addf(&sb, "%s%s:%s", i ? ", " : "", f->params.items[i]->name,
			    type_name(f->params.items[i]->type));
	strbuf_addch(&sb, ')');
	for (int i = 0; i < f->pragmas.len; i++)
		if (!strcmp(f->pragmas.items[i], "unprivileged") ||
		    !strcmp(f->pragmas.items[i], "myproc-unprivileged"))
			strbuf_addf(&sb, " /* %s */", f->pragmas.items[i]);
	return strbuf_detach(&sb);
}

/* "name = point, point?" for each name of an alias not starting with '_'. */
static void add_alias(const struct probe *a, strvec *out)
{
	struct strbuf rhs = STRBUF_INIT;

	for (int i = 0; i < a->points.len; i++) {
		char *t = pp_text(a->points.items[i]);
		strbuf_addf(&rhs, "%s%s", i ? ", " : "", t);
		free(t);
	}
	for (int j = 0; j < a->alias_names.len; j++) {
		char *name = pp_text(a->alias_names.items[j]);
		if (name[0] != '_')
			vec_push(out, xasprintf("%s = %s", name, rhs.buf));
		free(name);
	}
	strbuf_release(&rhs);
}

static void add_funcs(const struct script *sc, strvec *out)
{
	for (int i = 0; sc && i < sc->funcs.len; i++)
		if (!sc->funcs.items[i]->is_private && strncmp(sc->funcs.items[i]->name, "__", 2))
			vec_push(out, func_line(sc->funcs.items[i]));
}

int dump_lists(struct session *s)
{
	strvec v = { 0 };

	library_need_all(s);   /* the whole library is listed */
	switch (s->dump) {
	case DUMP_FUNCTIONS:
		add_funcs(s->user, &v);
		for (int i = 0; i < s->library.len; i++)
			add_funcs(s->library.items[i], &v);
		break;
	case DUMP_PROBE_TYPES:
		for (int i = 0; providers[i]; i++)
			for (int j = 0; providers[i]->shapes && providers[i]->shapes[j]; j++)
				vec_push(&v, xstrdup(providers[i]->shapes[j]));
		break;
	case DUMP_PROBE_ALIASES:
		aliases_listed(s);
		for (int i = 0; i < s->aliases.len; i++) {
			if (!s->aliases.items[i]->is_private)
				add_alias(s->aliases.items[i], &v);
		}
		break;
	default:
		return 1;
	}
	print_sorted(&v);
	return 0;
}
