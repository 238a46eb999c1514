/* doubleglob.c - pass 2: probe points with '**' in a component, and with a
 * '*' inside a component name that no alias or family takes as written.
 *
 * SystemTap lets '**' match across components: `t**ile` is timer.profile,
 * `*sys**pen` syscall.open, nd_syscall.mq_open ..., `ke**on("f")`
 * kernel.function("f"). The point's names up to the first component with
 * an argument (all of them if none has one) are matched, as one dotted text
 * where '*' stays within a component and '**' crosses dots, against the
 * names of every alias and every family's point shapes (provider.h's
 * `shapes`); each that matches becomes a point of its own: its components,
 * the last given that argument, then the point's remaining components.
 * A single '*' in a name (`kernel.func*("vfs_read")`, `k*.function("f")`)
 * is matched the same way once neither the aliases nor the families took
 * the point: SystemTap expands such names too.
 */
#include <fnmatch.h>
#include <string.h>

#include "diag.h"
#include "parse/tapset_index.h"
#include "passes.h"
#include "probes/provider.h"

/* '*' matches within a component, '**' across, '?' one character. */
static bool glob_dotted(const char *p, const char *s)
{
	if (!*p)
		return !*s;
	if (p[0] == '*' && p[1] == '*') {
		for (const char *t = s;; t++) {
			if (glob_dotted(p + 2, t))
				return true;
			if (!*t)
				return false;
		}
	}
	if (*p == '*') {
		for (const char *t = s;; t++) {
			if (glob_dotted(p + 1, t))
				return true;
			if (!*t || *t == '.')
				return false;
		}
	}
	if (*p == '?')
		return *s && *s != '.' && glob_dotted(p + 1, s + 1);
	return *p == *s && glob_dotted(p + 1, s + 1);
}

bool pp_has_doubleglob(const struct probe_point *pp)
{
	for (int i = 0; i < pp->comps.len; i++)
		if (strstr(pp->comps.items[i]->name, "**"))
			return true;
	return false;
}

bool pp_has_name_glob(const struct probe_point *pp)
{
	for (int i = 0; i < pp->comps.len; i++) {
		if (strpbrk(pp->comps.items[i]->name, "*?["))
			return true;
		if (pp->comps.items[i]->arg)
			return false;   /* past the head: a suffix's glob (.re*) is its family's */
	}
	return false;
}

/* The point the shape (dotted names) makes of pp: its components, the last
 * with the argument of pp's component head, then pp's after head. */
static struct probe_point *expand(const struct probe_point *pp, int head, const char *shape)
{
	struct probe_point *np = xcalloc(1, sizeof(*np));

	*np = *pp;
	memset(&np->comps, 0, sizeof(np->comps));
	for (const char *p = shape; *p;) {
		size_t len = strcspn(p, ".");
		struct pp_comp *c = xcalloc(1, sizeof(*c));
		*c = *pp->comps.items[head];
		c->name = xstrndup(p, len);
		c->arg = p[len] ? NULL : pp->comps.items[head]->arg;
		vec_push(&np->comps, c);
		p += len + (p[len] == '.');
	}
	for (int i = head + 1; i < pp->comps.len; i++)
		vec_push(&np->comps, pp->comps.items[i]);
	np->optional = true;   /* a pattern: the shapes that do not resolve are no error */
	return np;
}

/* The dotted names of an alias's name. */
static char *alias_text(const struct probe_point *name)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < name->comps.len; i++)
		strbuf_addf(&sb, "%s%s", i ? "." : "", name->comps.items[i]->name);
	return strbuf_detach(&sb);
}

int doubleglob_expand(struct session *s, struct probe *p, struct probe_point *pp, int depth,
		      void (*derive)(struct session *, struct probe *, struct probe_point *, int))
{
	struct strbuf pat = STRBUF_INIT;
	int head = 0, before = s->probes.len, errors = s->errors;
	strvec shapes = { 0 };

	library_need(s, TN_ALIAS, "*");   /* '**' may reach any alias */
	aliases_listed(s);
	while (head < pp->comps.len - 1 && !pp->comps.items[head]->arg)
		head++;
	for (int i = 0; i <= head; i++)
		strbuf_addf(&pat, "%s%s", i ? "." : "", pp->comps.items[i]->name);
	for (int i = 0; i < s->aliases.len; i++)
		for (int j = 0; j < s->aliases.items[i]->alias_names.len; j++)
			vec_push(&shapes, alias_text(s->aliases.items[i]->alias_names.items[j]));
	bool has_arg = pp->comps.items[head]->arg != NULL;
	for (int i = 0; providers[i]; i++)
		for (int j = 0; providers[i]->shapes && providers[i]->shapes[j]; j++) {
			const char *sh = providers[i]->shapes[j];
			size_t len = strlen(sh);
			bool needs_arg = len > 2 && !strcmp(sh + len - 2, "()");
			if (needs_arg && !has_arg)   /* timer.** is no timer.ms without a period */
				continue;
			vec_push(&shapes, xstrndup(sh, needs_arg ? len - 2 : len));
		}
	for (int i = 0; i < shapes.len; i++) {
		bool seen = false;
		for (int k = 0; k < i && !seen; k++)
			seen = !strcmp(shapes.items[k], shapes.items[i]);
		if (!seen && glob_dotted(pat.buf, shapes.items[i]))
			derive(s, p, expand(pp, head, shapes.items[i]), depth + 1);
	}
	for (int i = 0; i < shapes.len; i++)
		free(shapes.items[i]);
	free(shapes.items);
	strbuf_release(&pat);
	return s->probes.len > before || s->errors > errors;
}

struct probe_point *doubleglob_within(const struct probe_point *pp)
{
	struct probe_point *np = xcalloc(1, sizeof(*np));

	*np = *pp;
	memset(&np->comps, 0, sizeof(np->comps));
	for (int i = 0; i < pp->comps.len; i++) {
		struct pp_comp *c = xmalloc(sizeof(*c));
		char *n, *star;
		*c = *pp->comps.items[i];
		c->name = n = xstrdup(c->name);
		while ((star = strstr(n, "**")))   /* "**" -> "*" */
			memmove(star, star + 1, strlen(star));
		vec_push(&np->comps, c);
	}
	return np;
}

/* kernel.function("f").*: a glob in a suffix (a name past the first
 * argument) that no family took, tried as each suffix name a kernel or
 * process function point takes; the ones that resolve are derived (as
 * SystemTap expands .* to .call, .callees, .exported, .return ...). */
int suffixglob_expand(struct session *s, struct probe *p, struct probe_point *pp, int depth,
		      void (*derive)(struct session *, struct probe *, struct probe_point *, int))
{
	static const char *const names[] = { "call", "exported", "inline", "return", "callees", NULL };
	int head = 0, at = -1, before = s->probes.len, errors = s->errors;

	while (head < pp->comps.len && !pp->comps.items[head]->arg)
		head++;
	for (int i = head + 1; i < pp->comps.len && at < 0; i++)
		if (!pp->comps.items[i]->arg && strpbrk(pp->comps.items[i]->name, "*?["))
			at = i;
	if (at < 0)
		return 0;
	for (int k = 0; names[k]; k++) {
		if (fnmatch(pp->comps.items[at]->name, names[k], 0))
			continue;
		struct probe_point *np = xcalloc(1, sizeof(*np));
		*np = *pp;
		memset(&np->comps, 0, sizeof(np->comps));
		for (int i = 0; i < pp->comps.len; i++) {
			struct pp_comp *c = pp->comps.items[i];
			if (i == at) {
				c = xmalloc(sizeof(*c));
				*c = *pp->comps.items[i];
				c->name = xstrdup(names[k]);
			}
			vec_push(&np->comps, c);
		}
		np->optional = true;
		derive(s, p, np, depth + 1);
	}
	return s->probes.len > before || s->errors > errors;
}