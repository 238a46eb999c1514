/* alias.c - pass 2: probe aliases.
 *
 *   probe vfs.read = kernel.function("vfs_read") { file = $file }   (prologue)
 *   probe vfs.read += kernel.function("vfs_read") { n++ }           (epilogue)
 *
 * A probe point that names an alias (with wildcards per component, as
 * `syscall.*`) becomes a new probe on the alias's own points, whose body is
 * the prologue followed by the user's body (or the body followed by the
 * epilogue). Each expansion gets its own copy of both, since pass 2
 * annotates the tree. When no alias has exactly the point's components, one
 * whose name is a prefix of them matches too, and the rest of the point is
 * appended to the alias's points (`syscall.read.maxactive(10)`).
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "parse/tapset_index.h"
#include "passes.h"
#include "probes/provider.h"
#include "session.h"

static bool comp_matches(const struct pp_comp *user, const struct pp_comp *alias)
{
	/* a plain name is compared as it is: expanding syscall.* compares
	 * each of two thousand points with as many aliases */
	if (strpbrk(user->name, "*?[\\") ? fnmatch(user->name, alias->name, 0) != 0 : strcmp(user->name, alias->name) != 0)
		return false;
	if (!user->arg && !alias->arg)
		return true;
	if (!user->arg || !alias->arg || user->arg->kind != alias->arg->kind)
		return false;
	if (user->arg->kind == EXPR_NUM)
		return user->arg->num == alias->arg->num;
	if (user->arg->kind == EXPR_STR)
		return fnmatch(user->arg->str, alias->arg->str, 0) == 0;
	return false;
}

/* Components of pp that name matches: its length, or -1. */
static int match_name(const struct probe_point *name, const struct probe_point *pp)
{
	if (pp->comps.len < name->comps.len)
		return -1;
	for (int i = 0; i < name->comps.len; i++)
		if (!comp_matches(pp->comps.items[i], name->comps.items[i]))
			return -1;
	return name->comps.len;
}

/* The alias's points with the user's extra components appended. */
static struct probe_point *target_point(const struct probe_point *t, const struct probe_point *pp, int used)
{
	struct probe_point *c = xcalloc(1, sizeof(*c));

	*c = *t;
	c->comps.items = NULL;
	c->comps.len = c->comps.cap = 0;
	for (int i = 0; i < t->comps.len; i++)
		vec_push(&c->comps, t->comps.items[i]);
	for (int i = used; i < pp->comps.len; i++)
		vec_push(&c->comps, pp->comps.items[i]);
	c->optional = t->optional || pp->optional;
	c->sufficient = t->sufficient;   /* the user's '!' ends the user's list */
	c->cond = t->cond ? t->cond : pp->cond;
	return c;
}

/* The alias's name with the user's extra components: what -l lists. */
static char *alias_text(const struct probe_point *name, const struct probe_point *pp, int used)
{
	struct probe_point *t = target_point(name, pp, used);
	char *text;

	t->optional = t->sufficient = false;
	t->cond = NULL;
	text = pp_text(t);
	free(t->comps.items);
	free(t);
	return text;
}

/* { prologue; body } or { body; epilogue } */
static struct stmt *combined_body(const struct probe *alias, const struct probe *user)
{
	struct stmt *b = stmt_new(STMT_BLOCK, user->pos);

	if (!alias->alias_epilogue)
		vec_push(&b->stmts, stmt_clone(alias->body));
	vec_push(&b->stmts, stmt_clone(user->body));
	if (alias->alias_epilogue)
		vec_push(&b->stmts, stmt_clone(alias->body));
	if (alias->epilogue)
		vec_push(&b->stmts, stmt_clone(alias->epilogue));
	return b;
}

/* The user's aliases, then the library's, once per run. */
static void list_aliases(struct session *s)
{
	struct script *sc[1 + s->user_more.len];

	sc[0] = s->user;
	for (int i = 0; i < s->user_more.len; i++)
		sc[1 + i] = s->user_more.items[i];
	for (int k = 0; k < 1 + s->user_more.len; k++)
		for (int i = 0; i < sc[k]->probes.len; i++)
			if (sc[k]->probes.items[i]->is_alias)
				vec_push(&s->aliases, sc[k]->probes.items[i]);
	for (int k = 0; k < s->library.len; k++)
		for (int i = 0; i < s->library.items[k]->probes.len; i++)
			if (s->library.items[k]->probes.items[i]->is_alias)
				vec_push(&s->aliases, s->library.items[k]->probes.items[i]);
}

void aliases_listed(struct session *s)
{
	if (!s->aliases_listed) {
		list_aliases(s);
		s->aliases_listed = true;
	}
}

static bool pp_has_wildcard(const struct probe_point *pp)
{
	for (int i = 0; i < pp->comps.len; i++)
		if (strchr(pp->comps.items[i]->name, '*'))
			return true;
	return false;
}

int alias_expand(struct session *s, struct probe *user, struct probe_point *pp, int depth,
		 void (*derive)(struct session *, struct probe *, struct probe_point *, int))
{
	int found = 0;
	/* stap -l 'sunrpc.svc.*': as SystemTap, an alias the wildcard names
	 * that resolves to nothing is left out of the list, not an error */
	bool mute = s->list_mode && depth == 0 && pp_has_wildcard(pp);

	/* the library files whose aliases may match pp, parsed first: the
	 * expansions below may parse more (other names), which lists the
	 * aliases again, so the matches are taken before any is derived */
	library_need(s, TN_ALIAS, pp->comps.items[0]->name);
	aliases_listed(s);
	struct match { struct probe *a; struct probe_point *name; int used; };
	VEC(struct match) matches = { 0 };
	for (int exact = 1; exact >= 0 && !matches.len; exact--) {
		/* with a suffix: the aliases naming the longest prefix
		 * (timer.profile.freq.hz(N) is timer.profile.freq's, not
		 * timer.profile's with .freq.hz(N)) */
		int longest = 0;
		for (int i = 0; i < s->aliases.len && !exact; i++)
			for (int j = 0; j < s->aliases.items[i]->alias_names.len; j++) {
				int used = match_name(s->aliases.items[i]->alias_names.items[j], pp);
				if (used > longest)
					longest = used;
			}
		for (int i = 0; i < s->aliases.len; i++) {
			struct probe *a = s->aliases.items[i];
			for (int j = 0; j < a->alias_names.len; j++) {
				struct probe_point *name = a->alias_names.items[j];
				int used = match_name(name, pp);
				if (used < 0 || (exact && used != pp->comps.len) || (!exact && used != longest))
					continue;
				if (a->is_private && a->file != user->file)
					continue;
				vec_push(&matches, ((struct match){ a, name, used }));
			}
		}
	}
	for (int m = 0; m < matches.len; m++) {
		struct probe *a = matches.items[m].a;
		struct probe_point *name = matches.items[m].name;
		int used = matches.items[m].used;
		if (depth > 16) {
			diag(s, E_RECURSIVE_ALIAS, pp->pos, "probe alias expands to itself (or nests too deep)");
			free(matches.items);
			return -1;
		}
		struct probe *np = xcalloc(1, sizeof(*np));
		np->pos = user->pos;
		np->file = user->file;
		np->body = combined_body(a, user);
		np->alias = a;
		np->expanded = user;
		np->alias_pp = user->alias_pp ? xstrdup(user->alias_pp) : alias_text(name, pp, used);
		for (int k = 0; k < a->points.len; k++)
			vec_push(&np->points, target_point(a->points.items[k], pp, used));
		s->muted += mute;
		for (int k = 0; k < np->points.len; k++) {
			int before = s->probes.len;
			derive(s, np, np->points.items[k], depth + 1);
			if (np->points.items[k]->sufficient && s->probes.len > before)
				break;   /* a !: the rest are not tried */
		}
		s->muted -= mute;
		found++;
	}
	free(matches.items);
	return found > 0;
}
