/* kpoint.c - probe-point helpers shared by the kernel probe providers. */
#include "kpoint.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

bool kpoint_has_wildcard(const char *pat)
{
	return strpbrk(pat, "*?[") != NULL;
}

bool kpoint_str_arg(struct session *s, struct probe_point *pp, int i, const char **out)
{
	const struct expr *a = pp->comps.items[i]->arg;

	if (!a || a->kind != EXPR_STR || !a->str[0]) {
		diag(s, E_PROBE_ARG, pp->comps.items[i]->pos, "%s needs a non-empty string argument",
		     pp->comps.items[i]->name);
		return false;
	}
	if (out)
		*out = a->str;
	return true;
}

/* A suffix component written with wildcards (ret*, maxact*(10), as an
 * alias's suffix often is) names the one suffix that fits there, taking an
 * argument or not as written: c->name becomes it. False if none or several
 * fit (left unmatched). */
static bool expand_suffix_name(struct pp_comp *c, bool dwarf, const struct kpoint_suffix *suf)
{
	static const char *const plain[] = { "return", "call", "exported", NULL };
	const char *found = NULL;

	if (!kpoint_has_wildcard(c->name))
		return true;
	if (c->arg) {
		if (suf->ret && !fnmatch(c->name, "maxactive", 0))
			found = "maxactive";
	} else {
		for (int k = 0; plain[k]; k++) {
			if ((k == 2 && !dwarf) || ((k == 0 || k == 1) && (suf->ret || suf->call)))
				continue;
			if (fnmatch(c->name, plain[k], 0))
				continue;
			if (found)
				return false;
			found = plain[k];
		}
	}
	if (!found)
		return false;
	free(c->name);
	c->name = xstrdup(found);
	return true;
}

int kpoint_parse_suffix(struct session *s, struct probe_point *pp, int from, bool dwarf,
			struct kpoint_suffix *suf)
{
	memset(suf, 0, sizeof(*suf));
	for (int i = from; i < pp->comps.len; i++) {
		struct pp_comp *c = pp->comps.items[i];
		int64_t n;
		if (!expand_suffix_name(c, dwarf, suf))
			return 0;
		if (!strcmp(c->name, "return") && !c->arg && !suf->ret && !suf->call) {
			suf->ret = true;
		} else if (!strcmp(c->name, "call") && !c->arg && !suf->ret && !suf->call) {
			suf->call = true;
		} else if (!strcmp(c->name, "maxactive") && suf->ret && i == pp->comps.len - 1) {
			if (!pp_comp_num(pp, i, &n) || n < 0 || n > 32767) {   /* SystemTap 4.8's range */
				diag(s, E_PROBE_ARG, c->pos, "maxactive needs a number from 0 to 32767");
				return -1;
			}
			suf->maxactive = (int)n;
		} else if (dwarf && !strcmp(c->name, "exported") && !c->arg) {
			suf->exported = true;
		} else {
			return 0;
		}
	}
	return 1;
}

char *kpoint_text(const struct probe_point *pp, int i, const char *arg)
{
	struct pp_comp *c = pp->comps.items[i];
	struct expr *saved = c->arg, tmp = *saved;
	char *t;

	tmp.str = (char *)arg;
	tmp.str_len = strlen(arg);
	c->arg = &tmp;
	t = pp_text(pp);
	c->arg = saved;
	return t;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void kpoint_sort_unique(strvec *v)
{
	int n = 0;

	if (!v->len)
		return;
	qsort(v->items, v->len, sizeof(char *), cmp_str);
	for (int i = 0; i < v->len; i++)
		if (!n || strcmp(v->items[n - 1], v->items[i]))
			v->items[n++] = v->items[i];
	v->len = n;
}

int kpoint_no_match(struct session *s, struct probe_point *pp, const struct ksymtab *t,
		    const char *name)
{
	char *similar, *text;

	if (pp->optional)   /* before the costly search for similar names */
		return 1;
	similar = t && name ? ksyms_similar(t, name, 5) : NULL;
	text = pp_text(pp);
	if (similar)
		diag(s, E_PROBE_POINT, pp->pos, "no match for probe point %s (similar: %s)", text, similar);
	else
		diag(s, E_PROBE_POINT, pp->pos, "no match for probe point %s", text);
	free(text);
	free(similar);
	return -1;
}
