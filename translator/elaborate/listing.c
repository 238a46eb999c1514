/* listing.c - stap -l / -L (see listing.h).
 *
 * -l PATTERN is run as the script "probe PATTERN {}" through pass 2 (as
 * SystemTap does); what the providers derived is printed in SystemTap's
 * format: kernel.function("vfs_read@fs/read_write.c:450"), and with -L
 * " $file:struct file* $buf:char* ..." from the family's list_vars hook.
 * A probe reached through an alias is listed by the alias's name, and -L
 * lists first the locals its prologue sets ("vfs.read file:long ..."), as
 * SystemTap does. With --runtime=bpf only what the target kernel can
 * attach is listed (target/attach.h); what was left out is warned of once,
 * with why.
 */
#include "listing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf_proto.h"
#include "diag.h"
#include "probes/provider.h"
#include "target/attach.h"

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether var (" $name:type", len bytes) is one of the words of list; a type
 * may hold blanks ("struct sock*"), so a word runs up to the next " $". */
static bool has_var(const char *list, const char *var, size_t len)
{
	for (const char *q = strstr(list, " $"); q;) {
		const char *next = strstr(q + 1, " $");
		size_t n = next ? (size_t)(next - q) : strlen(q);
		if (n == len && !strncmp(q, var, len))
			return true;
		q = next;
	}
	return false;
}

/* Is derived probe dp one of those alias name alias_pp expanded to? */
static bool of_alias(const struct derived_probe *dp, const char *alias_pp)
{
	return dp->probe->alias_pp && !strcmp(dp->probe->alias_pp, alias_pp);
}

/* The target variables of an alias's probes: those of its first probe that
 * every other probe of the alias has too, with the same type (as SystemTap
 * lists an alias covering several functions or inlined copies, or naming
 * other aliases as alternatives). */
static void alias_common_vars(struct session *s, int first, struct strbuf *out)
{
	const char *alias_pp = s->probes.items[first]->probe->alias_pp;
	struct strbuf mine = STRBUF_INIT;
	strvec others = { 0 };

	s->probes.items[first]->prov->list_vars(s, s->probes.items[first], &mine);
	for (int j = first + 1; j < s->probes.len; j++) {
		struct derived_probe *dp = s->probes.items[j];
		struct strbuf sb = STRBUF_INIT;
		if (!of_alias(dp, alias_pp))
			continue;
		if (dp->prov->list_vars)
			dp->prov->list_vars(s, dp, &sb);
		vec_push(&others, strbuf_detach(&sb));
	}
	const char *v = mine.buf ? strstr(mine.buf, " $") : NULL;
	while (v) {
		const char *next = strstr(v + 1, " $");
		size_t len = next ? (size_t)(next - v) : strlen(v);
		bool all = true;
		for (int j = 0; j < others.len && all; j++)
			all = has_var(others.items[j], v, len);
		if (all)
			strbuf_addf(out, "%.*s", (int)len, v);
		v = next;
	}
	for (int j = 0; j < others.len; j++)
		free(others.items[j]);
	free(others.items);
	free(strbuf_detach(&mine));
}

/* The locals an alias's prologues set: those of its first probe that every
 * other expansion of the alias sets too, with the same type. */
static void alias_common_locals(struct session *s, int first, struct strbuf *out)
{
	const struct probe *p = s->probes.items[first]->probe;

	for (int i = 0; i < p->locals.len; i++) {
		const struct sym *l = p->locals.items[i];
		bool all = true;
		for (int j = first + 1; j < s->probes.len && all; j++) {
			const struct probe *q = s->probes.items[j]->probe;
			if (q == p || !of_alias(s->probes.items[j], p->alias_pp))
				continue;
			all = false;
			for (int k = 0; k < q->locals.len && !all; k++)
				all = !strcmp(q->locals.items[k]->name, l->name) &&
				      q->locals.items[k]->type == l->type;
		}
		if (all)
			strbuf_addf(out, " %s:%s", l->name, type_name(l->type));
	}
}

/* --runtime=bpf: why the target kernel cannot attach dp's program where
 * the backend would put it (the family's point; *twhy: and why not on the
 * trampoline it would try first, if any), or NULL. A family without a BPF
 * form is listed (the run says so). */
static const char *bpf_unattachable(struct session *s, const struct derived_probe *dp, const char **twhy)
{
	struct bpf_attach at;
	const char *why = NULL;

	*twhy = NULL;
	if (dp->prov->bpf_trampoline && dp->prov->bpf_trampoline(s, dp, &at) == 0 &&
	    !(*twhy = bpf_attach_refused(s, at.kind, at.symbol)))
		return NULL;
	if (!dp->prov->bpf_attach || dp->prov->bpf_attach(dp, &at, &why) < 0)
		return NULL;
	return bpf_attach_refused(s, at.kind, at.symbol);
}

int list_probe_points(struct session *s)
{
	strvec lines = { 0 };
	const char *unattachable = NULL, *untrampolined = NULL;
	int nunattachable = 0;

	for (int i = 0; i < s->probes.len; i++) {
		struct derived_probe *dp = s->probes.items[i];
		struct strbuf sb = STRBUF_INIT;
		const struct probe *p = dp->probe;
		bool listed = false;
		/* an alias is listed once, with the variables all it covers
		 * have (as SystemTap: not once per function or inlined copy) */
		for (int j = 0; j < i && p->alias_pp && !listed; j++)
			listed = of_alias(s->probes.items[j], p->alias_pp);
		/* a tapset file's own probes (argv.stp's begin) came along with
		 * its functions: not what the pattern named */
		if (!p->alias_pp && p->file && p->file->is_tapset)
			continue;
		if (listed)
			continue;
		const char *twhy, *why = s->runtime_bpf ? bpf_unattachable(s, dp, &twhy) : NULL;
		if (why) {
			if (!nunattachable++) {
				unattachable = why;
				untrampolined = twhy;
			}
			continue;
		}
		strbuf_addstr(&sb, p->alias_pp ? p->alias_pp : dp->list_pp ? dp->list_pp : dp->pp);
		if (s->list_vars && p->alias_pp)
			alias_common_locals(s, i, &sb);
		if (s->list_vars && dp->prov->list_vars) {
			if (p->alias_pp)
				alias_common_vars(s, i, &sb);
			else
				dp->prov->list_vars(s, dp, &sb);
		}
		vec_push(&lines, strbuf_detach(&sb));
	}
	if (lines.len)
		qsort(lines.items, lines.len, sizeof(char *), cmp_line);
	for (int i = 0; i < lines.len; i++)
		if (!i || strcmp(lines.items[i], lines.items[i - 1]))
			printf("%s\n", lines.items[i]);
	if (nunattachable)
		diag(s, W_UNATTACHABLE, (struct srcpos){0}, "%d matching probe point%s not listed: this kernel "
		     "cannot attach %s: %s%s%s", nunattachable, nunattachable == 1 ? "" : "s",
		     nunattachable == 1 ? "it" : "them", unattachable, untrampolined ? "; " : "",
		     untrampolined ? untrampolined : "");
	return 0;
}
