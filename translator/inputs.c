/* inputs.c - the files this run read and whether the run can be cached
 * (inputs.h). */
#include "inputs.h"

#include <string.h>

/* A file is noted once however often it is opened, so the cache compares
 * each file's identity once. */
void input_note(struct session *s, const char *path)
{
	for (int i = 0; i < s->inputs.len; i++)
		if (!strcmp(s->inputs.items[i], path))
			return;
	vec_push(&s->inputs, xstrdup(path));
}

/* The first reason is the one the cache reports (-v). */
void input_unkeyable(struct session *s, const char *why)
{
	if (!s->inputs_unkeyable)
		s->inputs_unkeyable = why;
}
