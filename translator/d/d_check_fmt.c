/* d_check_fmt.c - printf() and printa() formats against their arguments.
 *
 * A format is read whole first (its conversions' syntax: D_SYNTAX), as
 * DTrace does when it builds the format, then each conversion takes its
 * arguments in order: a '*' width or precision an int (D_PRINTF_DYN_*),
 * then its value of the conversion's types (D_PRINTF_ARG_*). printa()'s
 * conversions take the first aggregation's keys, its %@ ones the values.
 */
#include <string.h>

#include "d/d_check_int.h"

/* one conversion of a format */
struct conv {
	int index;               /* its number, from 1 */
	bool at;                 /* the @ flag: an aggregation's value */
	bool star_width, star_prec;
	char name[8];            /* size prefixes and the conversion: "d", "lx", "s" */
};

typedef VEC(struct conv) convs;

/* What a conversion may print, and how DTrace describes that. */
enum argkind { AK_INT, AK_CHAR, AK_FLOAT, AK_PTR, AK_STR, AK_STACK };

static const char *const kind_text[] = {
	[AK_INT] = "char, short, int, long, or long long",
	[AK_CHAR] = "char, short, or int",
	[AK_FLOAT] = "double, float, or long double",
	[AK_PTR] = "pointer or integer",
	[AK_STR] = "char [] or string (or use stringof)",
	[AK_STACK] = "stack",
};

/* the conversion character's kind, false if D has no such conversion */
static bool conv_kind(char c, enum argkind *k)
{
	if (strchr("diouxX", c))
		*k = AK_INT;
	else if (strchr("cC", c))
		*k = AK_CHAR;
	else if (strchr("eEfFgG", c))
		*k = AK_FLOAT;
	else if (strchr("aApP", c))
		*k = AK_PTR;
	else if (strchr("sS", c))
		*k = AK_STR;
	else if (c == 'k')
		*k = AK_STACK;
	else if (c == 'Y' || c == 'T')   /* times: a date, a duration */
		*k = AK_INT;
	else
		return false;
	return true;
}

static bool is_stack(struct d_type *t)
{
	return t && t->name && !strcmp(t->name, "stack");
}

/* a value of type t may be printed by a conversion of kind k */
static bool kind_accepts(enum argkind k, struct d_type *t)
{
	if (is_stack(t))
		return k == AK_STACK;
	switch (k) {
	case AK_INT: case AK_CHAR: case AK_PTR:
		return ck_is_int(t) || ck_is_ptr(t);
	case AK_FLOAT:
		return ck_is_arith(t);
	case AK_STR:
		return ck_is_strlike(t);
	case AK_STACK:
		return false;
	}
	return false;
}

/* ---- reading a format ------------------------------------------------------------------ */

/* digits then '$': the positional %n$ form D does not take */
static void no_positional(struct d_ck *ck, struct d_pos pos, const char **p, const char *end, int n)
{
	const char *q = *p;

	while (q < end && *q >= '0' && *q <= '9')
		q++;
	if (q > *p && q < end && *q == '$')
		CK_ERR(ck, "D_SYNTAX", pos, "format conversion #%d uses unsupported positional format (%%n$)", n);
	*p = q;
}

/* One conversion after its '%' at *p: flags, width, precision, size
 * prefixes, the conversion character; *p moved past it. */
static struct conv read_conv(struct d_ck *ck, struct d_pos pos, const char **p, const char *end, int n)
{
	struct conv c = { .index = n };
	bool dot = false, width = false;
	size_t len = 0;

	for (;;) {
		if (*p >= end)
			CK_ERR(ck, "D_SYNTAX", pos, "format conversion #%d name expected before end of format string", n);
		char ch = **p;
		if (strchr("-+ #'?", ch) || (ch == '0' && !dot && !width)) {
			(*p)++;
		} else if (ch == '@') {
			c.at = true;
			(*p)++;
		} else if (ch >= '0' && ch <= '9') {
			no_positional(ck, pos, p, end, n);
			width = !dot;
		} else if (ch == '*') {
			if (dot && c.star_prec)
				CK_ERR(ck, "D_SYNTAX", pos, "format conversion #%d has more than one '*' specified "
				       "for the output precision", n);
			if (!dot && c.star_width)
				CK_ERR(ck, "D_SYNTAX", pos, "format conversion #%d has more than one '*' specified "
				       "for the output width", n);
			*(dot ? &c.star_prec : &c.star_width) = true;
			(*p)++;
			no_positional(ck, pos, p, end, n);
		} else if (ch == '.') {
			if (dot)
				CK_ERR(ck, "D_SYNTAX", pos, "format conversion #%d has more than one '.' specified", n);
			dot = true;
			(*p)++;
		} else {
			break;
		}
	}
	while (*p < end && strchr("hlLjztw", **p) && len < 4)
		c.name[len++] = *(*p)++;
	if (*p >= end)
		CK_ERR(ck, "D_SYNTAX", pos, "format conversion #%d name expected before end of format string", n);
	c.name[len++] = *(*p)++;
	c.name[len] = 0;
	enum argkind k;
	if (!conv_kind(c.name[len - 1], &k))
		CK_ERR(ck, "D_SYNTAX", pos, "format conversion #%d is undefined: %%%s", n, c.name);
	return c;
}

/* All the conversions of fmt (a string constant). */
static void read_format(struct d_ck *ck, const struct d_expr *fmt, struct d_pos pos, convs *out)
{
	const char *p = fmt->str, *end = fmt->str + fmt->str_len;
	int n = 0;

	while (p < end) {
		if (*p++ != '%')
			continue;
		if (p < end && *p == '%') {
			p++;
			continue;
		}
		struct conv c = read_conv(ck, pos, &p, end, ++n);
		vec_push(out, c);
	}
}

/* ---- printf ------------------------------------------------------------------------------- */

static char conv_char(const struct conv *c)
{
	return c->name[strlen(c->name) - 1];
}

/* the '*' of conversion c: argument i an int */
static void dyn_arg(struct d_ck *ck, const char *fn, struct d_expr *call, const struct conv *c, int i,
		    const char *star)
{
	struct d_expr *a;

	if (i >= call->args.len)
		CK_ERR(ck, "D_PRINTF_DYN_PROTO", call->pos, "%s( ) prototype mismatch: conversion #%d (%%%s) is "
		       "missing a corresponding \"%s\" argument", fn, c->index, c->name, star);
	a = call->args.items[i];
	if (!ck_is_int(a->type))
		CK_ERR(ck, "D_PRINTF_DYN_TYPE", call->pos, "%s( ) argument #%d is incompatible with conversion "
		       "#%d prototype:\n\tconversion: %% %s %s\n\t prototype: int\n\t  argument: %s", fn, i + 1,
		       c->index, star, c->name, ck_name(a->type));
}

/* value v (argument #argno) printed by conversion c */
static void value_arg(struct d_ck *ck, const char *fn, struct d_expr *call, const struct conv *c, int argno,
		      struct d_type *t)
{
	enum argkind k;

	conv_kind(conv_char(c), &k);
	if (!kind_accepts(k, t))
		CK_ERR(ck, "D_PRINTF_ARG_TYPE", call->pos, "%s( ) argument #%d is incompatible with conversion #%d "
		       "prototype:\n\tconversion: %%%s\n\t prototype: %s\n\t  argument: %s", fn, argno, c->index,
		       c->name, kind_text[k], ck_name(t));
}

/* the first argument: a format, a string constant */
static const struct d_expr *format_arg(struct d_ck *ck, const char *fn, struct d_expr *call)
{
	const struct d_expr *f = call->args.items[0];

	if (f->kind != DE_STR)
		CK_ERR(ck, "D_PRINTF_ARG_FMT", call->pos, "%s( ) argument #1 is incompatible with prototype:\n"
		       "\tprototype: string constant\n\t argument: %s", fn, ck_name(f->type));
	return f;
}

void ck_printf(struct d_ck *ck, struct d_expr *call, const char *fn)
{
	const struct d_expr *f = format_arg(ck, fn, call);
	convs cv = { 0 };
	int next = 1;

	if (!f->str_len && !strcmp(fn, "printf"))
		CK_ERR(ck, "D_PRINTF_FMT_EMPTY", call->pos, "%s( ) format string is empty", fn);
	read_format(ck, f, call->pos, &cv);
	for (int i = 0; i < cv.len; i++) {
		const struct conv *c = &cv.items[i];
		if (c->at)
			CK_ERR(ck, "D_PRINTF_AGG_CONV", call->pos, "%%@ conversion requires an aggregation and is "
			       "not for use with %s( )", fn);
		if (c->star_width)
			dyn_arg(ck, fn, call, c, next++, "*");
		if (c->star_prec)
			dyn_arg(ck, fn, call, c, next++, ".*");
		if (next >= call->args.len)
			CK_ERR(ck, "D_PRINTF_ARG_PROTO", call->pos, "%s( ) prototype mismatch: conversion #%d "
			       "(%%%s) is missing a corresponding value argument", fn, c->index, c->name);
		value_arg(ck, fn, call, c, next + 1, call->args.items[next]->type);
		next++;
	}
	if (next < call->args.len)
		CK_ERR(ck, "D_PRINTF_ARG_EXTRA", call->pos, "%s( ) prototype mismatch: only %d arguments "
		       "required by this format string", fn, next - 1);
}

/* ---- printa ------------------------------------------------------------------------------- */

/* @name without its @, for DTrace's "foo key #1" */
static const char *bare(const char *agg)
{
	return agg[0] == '@' && agg[1] ? agg + 1 : agg;
}

/* the aggregations printed together have the same keys */
static void same_keys(struct d_ck *ck, struct d_expr *call, struct d_var *first, struct d_var *v)
{
	if (first->nkeys != v->nkeys)
		CK_ERR(ck, "D_PRINTA_AGGKEY", call->pos, "printa( ): %s and %s do not have matching key "
		       "signatures: %s has %d key%s, %s has %d key%s", first->name, v->name, first->name,
		       first->nkeys, first->nkeys == 1 ? "" : "s", v->name, v->nkeys, v->nkeys == 1 ? "" : "s");
	for (int i = 0; i < v->nkeys && i < D_MAXKEYS; i++)
		if (ck_is_strlike(first->keys[i]) != ck_is_strlike(v->keys[i]) ||
		    is_stack(first->keys[i]) != is_stack(v->keys[i]))
			CK_ERR(ck, "D_PRINTA_AGGPROTO", call->pos, "printa( ): %s[ ] key #%d is incompatible with "
			       "%s:\n      %s key #%d: %s\n      %s key #%d: %s", v->name, i + 1, first->name,
			       bare(first->name), i + 1, ck_name(first->keys[i]), bare(v->name), i + 1,
			       ck_name(v->keys[i]));
}

/* the format's conversions against the first aggregation's keys and
 * (%@) the aggregations' values */
static void printa_format(struct d_ck *ck, struct d_expr *call, struct d_var *v)
{
	convs cv = { 0 };
	int key = 0;

	read_format(ck, call->args.items[0], call->pos, &cv);
	for (int i = 0; i < cv.len; i++) {
		const struct conv *c = &cv.items[i];
		if (c->at) {
			value_arg(ck, "printa", call, c, 2, v->type);
			continue;
		}
		if (key >= v->nkeys)
			CK_ERR(ck, "D_PRINTF_ARG_PROTO", call->pos, "printa( ) prototype mismatch: conversion #%d "
			       "(%%%s) is missing a corresponding value argument", c->index, c->name);
		value_arg(ck, "printa", call, c, 2, v->keys[key++]);
	}
}

void ck_printa(struct d_ck *ck, struct d_expr *call)
{
	struct d_expr *first = call->args.items[0];
	bool fmt = first->kind == DE_STR;
	struct d_var *v0 = NULL;

	if (!fmt && first->kind != DE_AGG)
		CK_ERR(ck, "D_PRINTA_AGGARG", call->pos, "printa( ) argument #1 is incompatible with prototype:\n"
		       "\tprototype: aggregation or format string\n\t argument: %s", ck_name(first->type));
	if (fmt && call->args.len < 2)
		CK_ERR(ck, "D_PRINTA_PROTO", call->pos, "printa( ) prototype mismatch: aggregation argument "
		       "expected after format string");
	for (int i = fmt ? 1 : 0; i < call->args.len; i++)
		if (call->args.items[i]->kind != DE_AGG)
			CK_ERR(ck, "D_PRINTA_AGGARG", call->pos, "printa( ) argument #%d is incompatible with "
			       "prototype:\n\tprototype: aggregation\n\t argument: %s", i + 1,
			       ck_name(call->args.items[i]->type));
	for (int i = fmt ? 1 : 0; i < call->args.len; i++) {
		struct d_var *v = d_var_find(ck->S, DV_AGG, call->args.items[i]->name);
		if (!v)
			return;
		if (!v0)
			v0 = v;
		else
			same_keys(ck, call, v0, v);
	}
	if (fmt)
		printa_format(ck, call, v0);
}
