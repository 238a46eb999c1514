/* listing.c - stap -l / -L (see listing.h).
 *
 * -l PATTERN is run as the script "probe PATTERN {}" through pass 2 (as
 * SystemTap does); what the providers derived is printed in SystemTap's
 * format: kernel.function("vfs_read@fs/read_write.c:450"), and with -L
 * " $file:struct file* $buf:char* ..." from the family's list_vars hook.
 * A probe reached through an alias is listed by the alias's name, and -L
 * lists first the locals its prologue sets ("vfs.read file:long ..."), as
 * SystemTap does.
 */
#include "listing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/provider.h"

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int list_probe_points(struct session *s)
{
	strvec lines = { 0 };

	for (int i = 0; i < s->probes.len; i++) {
		struct derived_probe *dp = s->probes.items[i];
		struct strbuf sb = STRBUF_INIT;
		const struct probe *p = dp->probe;
		bool listed = false;
		/* an alias is listed once, with its first probe's variables (as
		 * SystemTap: not once per function or inlined copy it covers) */
		for (int j = 0; j < i && p->alias_pp && !listed; j++)
			listed = s->probes.items[j]->probe == p;
		/* a tapset file's own probes (argv.stp's begin) came along with
		 * its functions: not what the pattern named */
		if (!p->alias_pp && p->file && p->file->is_tapset)
			continue;
		if (listed)
			continue;
		strbuf_addstr(&sb, p->alias_pp ? p->alias_pp : dp->pp);
		if (s->list_vars && p->alias_pp)
			for (int j = 0; j < p->locals.len; j++)
				strbuf_addf(&sb, " %s:%s", p->locals.items[j]->name,
					    type_name(p->locals.items[j]->type));
		if (s->list_vars && dp->prov->list_vars)
			dp->prov->list_vars(s, dp, &sb);
		vec_push(&lines, strbuf_detach(&sb));
	}
	if (lines.len)
		qsort(lines.items, lines.len, sizeof(char *), cmp_line);
	for (int i = 0; i < lines.len; i++)
		if (!i || strcmp(lines.items[i], lines.items[i - 1]))
			printf("%s\n", lines.items[i]);
	return 0;
}
