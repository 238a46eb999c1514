/* d_lower_agg.c - D's aggregations in cstap's language: each one an
 * aggregate array keyed by its keys (a lone 0 when it has none), the
 * quantize family's buckets in a second one keyed by keys and bucket;
 * printa and the print at exit in DTrace's layout (keys in columns by
 * type, the value in 17, the quantize family's distribution art). */
#include <string.h>

#include "d/d_lower.h"

static const struct d_var *agg_of(struct d_lower *L, const struct d_expr *e)
{
	const char *name = e->kind == DE_INDEX ? e->lhs->name : e->name;

	return d_var_find(L->sema, DV_AGG, name);
}

static bool is_quant(const struct d_var *v)
{
	return v->fn == DA_QUANTIZE || v->fn == DA_LQUANTIZE || v->fn == DA_LLQUANTIZE;
}

/* "[k1, k2]" of the keys written, or "[0]" */
static void keys_of(struct d_lower *L, struct strbuf *out, const struct d_expr *lhs)
{
	strbuf_addch(out, '[');
	if (lhs->kind != DE_INDEX || !lhs->args.len)
		strbuf_addch(out, '0');
	for (int i = 0; lhs->kind == DE_INDEX && i < lhs->args.len; i++) {
		if (i)
			strbuf_addstr(out, ", ");
		d_lower_expr(L, out, lhs->args.items[i]);
	}
	strbuf_addch(out, ']');
}

/* @a[k] = f(v): the value into the aggregate (and its bucket) */
void d_lower_aggregate(struct d_lower *L, const struct d_expr *e)
{
	const struct d_var *v = agg_of(L, e->lhs);
	const struct d_expr *call = e->rhs;
	struct strbuf keys, val, incr;

	strbuf_init(&keys);
	strbuf_init(&val);
	strbuf_init(&incr);
	keys_of(L, &keys, e->lhs);
	if (call->args.len)
		d_lower_expr(L, &val, call->args.items[0]);
	switch (v->fn) {
	case DA_COUNT:
		d_line(L, "__d_a_%d%s <<< 1", v->id, keys.buf);
		break;
	case DA_STDDEV:
	case DA_SUM: case DA_AVG: case DA_MIN: case DA_MAX:
		d_line(L, "__d_a_%d%s <<< %s", v->id, keys.buf, val.buf);
		break;
	case DA_QUANTIZE: case DA_LQUANTIZE: case DA_LLQUANTIZE: {
		int incr_arg = v->fn == DA_QUANTIZE ? 1 : v->fn == DA_LQUANTIZE ? 4 : 5;
		if (call->args.len > incr_arg)
			d_lower_expr(L, &incr, call->args.items[incr_arg]);
		else
			strbuf_addstr(&incr, "1");
		keys.len--;   /* the bucket joins the keys */
		keys.buf[keys.len] = 0;
		/* the value and the increment once each, the bucket from them (the
		 * same locals for each aggregating statement: BPF's stack is small) */
		d_line(L, "__qv = %s; __qi = %s", val.buf, incr.buf);
		if (v->fn == DA_LLQUANTIZE) {
			d_need(L, H_LLQBUCKET);
			d_line(L, "__qb = __d_llqbucket(__qv, %lld, %lld, %lld, %lld)",
			       (long long)v->llq_factor, (long long)v->llq_low, (long long)v->llq_high,
			       (long long)v->llq_steps);
		} else if (v->fn == DA_LQUANTIZE) {
			d_need(L, H_LQBUCKET);
			d_line(L, "__qb = __d_lqbucket(__qv, %lld, %lld, %lld)",
			       (long long)v->lq_base, (long long)v->lq_limit, (long long)v->lq_step);
		} else {
			d_need(L, H_QBUCKET);
			d_line(L, "__qb = __d_qbucket(__qv)");
		}
		d_line(L, "__d_q_%d%s, __qb] <<< __qi", v->id, keys.buf);
		/* the entry's value, that printa and trunc() sort by: DTrace's
		 * sum of each bucket's value times its count (llquantize: the count) */
		if (v->fn == DA_LQUANTIZE)
			d_line(L, "__d_a_%d%s] <<< __qi * __d_lqvalue(__qb, %lld, %lld, %lld)", v->id, keys.buf,
			       (long long)v->lq_base, (long long)v->lq_limit, (long long)v->lq_step);
		else if (v->fn == DA_QUANTIZE)
			d_line(L, "__d_a_%d%s] <<< __qi * __d_qvalue(__qb)", v->id, keys.buf);
		else
			d_line(L, "__d_a_%d%s] <<< __qi", v->id, keys.buf);
		break;
	}
	default:
		break;
	}
	strbuf_release(&keys);
	strbuf_release(&val);
	strbuf_release(&incr);
}

/* the operator sorting and giving an aggregation's value */
static const char *stat_of(const struct d_var *v)
{
	switch (v->fn) {
	case DA_COUNT: return "count";
	case DA_AVG: return "avg";
	case DA_MIN: return "min";
	case DA_MAX: return "max";
	default: return "sum";
	}
}

/* a key's column: a number by its size (a char's or a short's as
 * unsigned, as DTrace prints them), a string left-aligned */
static void print_key(struct strbuf *f, const struct d_type *t, int i)
{
	if (d_is_string(t)) {
		strbuf_addf(f, "        printf(\"  %%-50s\", k%d)\n", i);
		return;
	}
	switch (t ? t->size : 8) {
	case 1: strbuf_addf(f, "        printf(\" %%3d\", k%d & 0xff)\n", i); break;
	case 2: strbuf_addf(f, "        printf(\" %%5d\", k%d & 0xffff)\n", i); break;
	case 4: strbuf_addf(f, "        printf(\" %%8d\", k%d)\n", i); break;
	default: strbuf_addf(f, "        printf(\" %%16d\", k%d)\n", i); break;
	}
}

/* "k1, k2" for n keys */
static void key_vars(struct strbuf *out, int n)
{
	for (int i = 0; i < (n ? n : 1); i++)
		strbuf_addf(out, "%sk%d", i ? ", " : "", i + 1);
}

/* the value of entry [k1..] of v, as DTrace prints it (stddev: the
 * population's, from the sample variance cstap keeps) */
static void value_expr(struct strbuf *out, const struct d_var *v, const char *keys)
{
	if (v->fn == DA_STDDEV)
		strbuf_addf(out, "__d_stddev(@count(__d_a_%d[%s]), @variance(__d_a_%d[%s]))", v->id, keys, v->id, keys);
	else
		strbuf_addf(out, "(@%s(__d_a_%d[%s]) / __d_norm_%d)", stat_of(v), v->id, keys, v->id);
}

/* llquantize's buckets between its under- and overflow ones (the
 * overflow bucket's number) */
static long long llq_buckets(const struct d_var *v)
{
	long long last = 1, b = 0;

	for (int64_t i = 0; i < v->llq_low; i++)
		last *= v->llq_factor;
	for (int64_t m = v->llq_low; m <= v->llq_high && v->llq_factor > 1; m++) {
		long long next = last * v->llq_factor;
		long long nb = next > v->llq_steps ? v->llq_steps : next;
		long long w = nb ? next / nb : 1;
		b += nb - (w ? last / w : 0);
		last = next;
	}
	return b;
}

/* "k1:long, k2:string" for the keys of v */
static void key_params(struct strbuf *out, const struct d_var *v)
{
	for (int i = 0; i < (v->nkeys ? v->nkeys : 1); i++)
		strbuf_addf(out, "%sk%d:%s", i ? ", " : "", i + 1,
			    v->nkeys && d_is_string(v->keys[i]) ? "string" : "long");
}

/* function __d_dist_ID(keys): an entry's distribution, its header and
 * rows from the bucket below the first used to the one above the last
 * (an entry all 0, or none, the rows around 0); each row's share in
 * 40 @s of the total of the counts' magnitudes, kept as total >> 20 and
 * the rest so that a count of 2^63 does not overflow it */
static void write_dist(struct d_lower *L, const struct d_var *v)
{
	struct strbuf *f = &L->funcs, kv, jv;
	int n = v->nkeys;

	d_need(L, H_QROW);
	strbuf_init(&kv);
	strbuf_init(&jv);
	key_vars(&kv, n);
	for (int i = 0; i < (n ? n : 1); i++)
		strbuf_addf(&jv, "%sj%d", i ? ", " : "", i + 1);
	strbuf_addf(f, "function __d_dist_%d(", v->id);
	key_params(f, v);
	strbuf_addf(f, ") {\n"
		    "    lo = 1000000; hi = -1000000; th = 0; tl = 0; pos = 0; neg = 0\n"
		    "    foreach ([%s, b] in __d_q_%d) {\n"
		    "        if (", jv.buf, v->id);
	for (int i = 0; i < (n ? n : 1); i++)
		strbuf_addf(f, "%sj%d != k%d", i ? " || " : "", i + 1, i + 1);
	strbuf_addf(f, ") continue\n"
		    "        c = @sum(__d_q_%d[%s, b])\n"
		    "        if (c > 0) pos = 1\n"
		    "        if (c < 0) neg = 1\n"
		    "        a = c < 0 ? -c : c\n"
		    "        if (a < 0) a = 0x7fffffffffffffff\n"
		    "        th += a >> 20; tl += a & 0xfffff\n"
		    "        if (c != 0) { if (b < lo) lo = b; if (b > hi) hi = b }\n"
		    "    }\n"
		    "    if (hi < lo) { lo = 0; hi = 0 }\n"
		    "    lo--; hi++\n", v->id, jv.buf);
	if (v->fn == DA_LQUANTIZE || v->fn == DA_LLQUANTIZE) {
		long long nb = v->fn == DA_LQUANTIZE ? (long long)((v->lq_limit - v->lq_base) / v->lq_step) : llq_buckets(v);
		int under = v->fn == DA_LLQUANTIZE && v->llq_low == 0 ? -2 : -1;
		strbuf_addf(f, "    if (lo < %d) lo = %d\n"
			    "    if (hi > %lld) hi = %lld\n", under, under, nb, nb);
	} else {   /* 63 buckets each side of 0's, the last 2^62's */
		strbuf_addstr(f, "    if (lo < -63) lo = -63\n"
			    "    if (hi > 63) hi = 63\n");
	}
	strbuf_addstr(f, "    tt = th + (tl >> 20)\n"
		    "    if (tt < 0x1000000000) { sh = 0; tot = (th << 20) + tl } else { sh = 20; tot = tt }\n"
		    "    mode = neg ? (pos ? 2 : 1) : 0\n"
		    "    printf(\"%16s  %s %-9s\\n\", \"value\", \"------------- Distribution -------------\", \"count\")\n"
		    "    for (b = lo; b <= hi; b++) {\n");
	strbuf_addf(f, "        c = ([%s, b] in __d_q_%d) ? @sum(__d_q_%d[%s, b]) : 0\n", kv.buf, v->id, v->id, kv.buf);
	if (v->fn == DA_LQUANTIZE) {
		long long nb = (long long)((v->lq_limit - v->lq_base) / v->lq_step);
		strbuf_addf(f, "        lab = b < 0 ? \"< %lld\" : b >= %lld ? \">= %lld\" : sprint(%lld + b * %lld)\n",
			    (long long)v->lq_base, nb, (long long)v->lq_limit, (long long)v->lq_base,
			    (long long)v->lq_step);
	} else if (v->fn == DA_LLQUANTIZE) {
		strbuf_addf(f, "        lab = __d_llqlabel(b, %lld, %lld, %lld, %lld)\n", (long long)v->llq_factor,
			    (long long)v->llq_low, (long long)v->llq_high, (long long)v->llq_steps);
	} else {
		strbuf_addstr(f, "        lab = sprint(__d_qvalue(b))\n");
	}
	strbuf_addf(f, "        __d_qrow(lab, c, tot, sh, mode, __d_norm_%d)\n"
		    "    }\n"
		    "}\n", v->id);
	strbuf_release(&kv);
	strbuf_release(&jv);
}

/* "[k1, k2] in __d_a_ID @sum+": by value (DTrace's default), or by a
 * key (aggsortkey, aggsortkeypos=N), reversed with aggsortrev; the key's
 * number (from 1) when it sorts by one, else 0 */
static int sort_spec(struct strbuf *f, const struct d_opts *o, const struct d_var *v, const char *keys)
{
	char dir = o->aggsortrev ? '-' : '+';
	int n = v->nkeys ? v->nkeys : 1;
	int by = o->aggsortkey || o->aggsortkeypos_set ? o->aggsortpos + 1 : 0;

	if (by > n || !v->nkeys)
		by = 0;
	if (!by) {
		strbuf_addf(f, "[%s] in __d_a_%d @%s%c", keys, v->id, stat_of(v), dir);
		return 0;
	}
	strbuf_addch(f, '[');
	for (int i = 1; i <= n; i++)
		strbuf_addf(f, "%sk%d%s", i > 1 ? ", " : "", i, i == by ? (dir == '+' ? "+" : "-") : "");
	strbuf_addf(f, "] in __d_a_%d", v->id);
	return by;
}

/* function __d_pr_ID(): printa(@a)'s and the exit's layout; sorted by
 * a number key, as DTrace's unsigned one: those from 0 up first, then
 * the negative ones (two loops) */
static void write_printer(struct d_lower *L, const struct d_var *v)
{
	struct strbuf *f = &L->funcs, kv, head, body;
	bool rev = L->sema->opts->aggsortrev;

	if (is_quant(v))
		write_dist(L, v);
	strbuf_init(&kv);
	strbuf_init(&head);
	strbuf_init(&body);
	key_vars(&kv, v->nkeys);
	int by = sort_spec(&head, L->sema->opts, v, kv.buf);
	for (int i = 0; i < v->nkeys; i++)
		print_key(&body, v->keys[i], i + 1);
	if (is_quant(v)) {
		strbuf_addf(&body, "        printf(\"\\n\")\n        __d_dist_%d(%s)\n        printf(\"\\n\")\n", v->id, kv.buf);
	} else {
		strbuf_addstr(&body, "        printf(\" %16d\\n\", ");
		value_expr(&body, v, kv.buf);
		strbuf_addstr(&body, ")\n");
	}
	strbuf_addf(f, "function __d_pr_%d() {\n", v->id);
	if (by && !d_is_string(v->keys[by - 1])) {
		strbuf_addf(f, "    foreach (%s) {\n        if (k%d %s 0) continue\n%s    }\n", head.buf, by, rev ? ">=" : "<",
			    body.buf);
		strbuf_addf(f, "    foreach (%s) {\n        if (k%d %s 0) continue\n%s    }\n", head.buf, by, rev ? "<" : ">=",
			    body.buf);
	} else {
		strbuf_addf(f, "    foreach (%s) {\n%s    }\n", head.buf, body.buf);
	}
	strbuf_addstr(f, "}\n");
	strbuf_release(&kv);
	strbuf_release(&head);
	strbuf_release(&body);
}

void d_lower_agg_globals(struct d_lower *L)
{
	struct d_sema *S = L->sema;
	bool stddev = false;

	for (int i = 0; i < S->vars.len; i++) {
		struct d_var *v = S->vars.items[i];
		if (v->kind != DV_AGG)
			continue;
		strbuf_addf(&L->globals, "global __d_a_%d, __d_norm_%d = 1, __d_x_%d, __d_u_%d\n", v->id, v->id, v->id, v->id);
		if (is_quant(v))
			strbuf_addf(&L->globals, "global __d_q_%d\n", v->id);
		stddev |= v->fn == DA_STDDEV;
		write_printer(L, v);
	}
	if (stddev)
		strbuf_addstr(&L->funcs,
			"function __d_stddev:long(n:long, var:long) {\n"
			"    if (n < 2) return 0\n"
			"    v = var * (n - 1) / n\n"
			"    if (v <= 0) return 0\n"
			"    r = v; x = (r + 1) / 2\n"
			"    while (x < r) { r = x; x = (x + v / x) / 2 }\n"
			"    return r\n"
			"}\n");
}

/* the same keys, so that printa can look v's entries up in w */
static bool same_keys(const struct d_var *v, const struct d_var *w)
{
	if (v->nkeys != w->nkeys)
		return false;
	for (int i = 0; i < v->nkeys; i++)
		if (d_is_string(v->keys[i]) != d_is_string(w->keys[i]))
			return false;
	return true;
}

/* printa's format with several aggregations: the entries of all of them
 * (one an aggregation lacks is 0 there), each ranked by the values of
 * the aggregations in order, then by the keys (DTrace's order); the
 * rank into __d_u_ID, which the loop then sorts by */
static void rank_entries(struct d_lower *L, const struct d_expr *call, const struct d_var *v, const char *kv,
			 const char *jv, int id)
{
	const char *op = L->sema->opts->aggsortrev ? ">" : "<";

	d_line(L, "delete __d_u_%d; delete __d_x_%d", v->id, v->id);
	for (int i = 1; i < call->args.len; i++) {
		const struct d_var *w = agg_of(L, call->args.items[i]);
		if (w && same_keys(v, w))
			d_line(L, "foreach ([%s] in __d_a_%d) __d_x_%d[%s] = 1", kv, w->id, v->id, kv);
	}
	d_line(L, "foreach ([%s] in __d_x_%d) {", kv, v->id);
	d_line(L, "    __rkr = 0");
	d_line(L, "    foreach ([%s] in __d_x_%d) {", jv, v->id);
	d_line(L, "        __rkd = 0; __rkl = 0");
	for (int i = 1; i < call->args.len; i++) {
		const struct d_var *w = agg_of(L, call->args.items[i]);
		struct strbuf a, b;
		if (!w || !same_keys(v, w))
			continue;
		strbuf_init(&a);
		strbuf_init(&b);
		value_expr(&a, w, jv);
		value_expr(&b, w, kv);
		d_line(L, "        if (!__rkd) { __rka = ([%s] in __d_a_%d) ? %s : 0; __rkb = ([%s] in __d_a_%d) ? %s : 0;",
		       jv, w->id, a.buf, kv, w->id, b.buf);
		d_line(L, "            if (__rka != __rkb) { __rkd = 1; __rkl = __rka %s __rkb } }", op);
		strbuf_release(&a);
		strbuf_release(&b);
	}
	for (int i = 1; i <= (v->nkeys ? v->nkeys : 1); i++)
		d_line(L, "        if (!__rkd && __pj%d_%d != __pk%d_%d) { __rkd = 1; __rkl = __pj%d_%d < __pk%d_%d }", id, i,
		       id, i, id, i, id, i);
	d_line(L, "        if (__rkl) __rkr++");
	d_line(L, "    }");
	d_line(L, "    __d_u_%d[%s] = __rkr", v->id, kv);
	d_line(L, "}");
	d_line(L, "delete __d_x_%d", v->id);
}

/* the printf of the format's text so far, then none */
static void flush_printf(struct strbuf *body, struct strbuf *fmt, struct strbuf *args)
{
	if (!fmt->len)
		return;
	strbuf_addf(body, "printf(\"%s\"%s)\n", fmt->buf, args->buf);
	strbuf_reset(fmt);
	strbuf_reset(args);
}

/* one conversion of printa's format: spec ("%-*.2") and conv, its '*'
 * arguments, its value; a '*' width through __d_pad, as C's printf takes
 * a negative one (left-justified), where cstap's counts it as 0 */
static void printa_conv(struct d_lower *L, struct strbuf *fmt, struct strbuf *args, const char *spec, char conv,
			struct strbuf *star, const char *val)
{
	const char *dot = strchr(spec, '.'), *ws = strchr(spec, '*');
	int nstar = 0;

	for (const char *q = spec; *q; q++)
		nstar += *q == '*';
	if (!ws || (dot && ws > dot)) {   /* no '*' width */
		strbuf_addf(fmt, "%s%c", spec, conv);
		for (int i = 0; i < nstar && i < 2; i++)
			strbuf_addf(args, ", %s", star[i].buf);
		strbuf_addf(args, ", %s", val);
		return;
	}
	d_need(L, H_PAD);
	strbuf_addstr(fmt, "%s");
	strbuf_addstr(args, ", __d_pad(sprintf(\"");
	for (const char *q = spec; *q; q++)   /* the spec without its width and - */
		if ((*q != '*' && *q != '-') || (dot && q > dot))
			strbuf_addch(args, *q);
	strbuf_addf(args, "%c\"", conv);
	if (nstar > 1)
		strbuf_addf(args, ", %s", star[1].buf);
	strbuf_addf(args, ", %s), %s, %d)", val, star[0].buf, strchr(spec, '-') && (!dot || strchr(spec, '-') < dot));
}

/* printa(@a) / printa(fmt, @a, @b ...) */
void d_lower_printa(struct d_lower *L, const struct d_expr *call)
{
	const struct d_expr *first = call->args.items[0];

	if (first->kind == DE_AGG) {
		const struct d_var *v = agg_of(L, first);
		if (!v)
			return;
		d_line(L, "printf(\"\\n\")");
		d_line(L, "__d_pr_%d()", v->id);
		return;
	}
	if (first->kind != DE_STR || call->args.len < 2 || call->args.items[1]->kind != DE_AGG)
		d_error(L->sema->dg, "D_PRINTA_AGGARG", call->pos, "printa( ) argument #%d must be an aggregation",
			first->kind == DE_STR ? 2 : 1);
	const struct d_var *v = agg_of(L, call->args.items[1]);
	if (!v)
		return;
	/* each entry of the first aggregation, the format's conversions taking
	 * the keys in order and %@ the aggregations' values (a distribution:
	 * on lines of its own, its width unused) */
	struct strbuf fmt, args, kv, jv, body;
	strbuf_init(&fmt);
	strbuf_init(&args);
	strbuf_init(&body);
	/* the loop's keys, named apart from other printa's of the probe */
	int id = L->temps++;
	strbuf_init(&kv);
	strbuf_init(&jv);
	for (int i = 0; i < (v->nkeys ? v->nkeys : 1); i++) {
		strbuf_addf(&kv, "%s__pk%d_%d", i ? ", " : "", id, i + 1);
		strbuf_addf(&jv, "%s__pj%d_%d", i ? ", " : "", id, i + 1);
	}
	int key = 0, agg = 1;
	bool multi = call->args.len > 2;
	if (multi)
		L->multi_printa = true;
	const char *p = first->str, *end = first->str + first->str_len;
	while (p < end) {
		const char *q = p;
		while (q < end && *q != '%')
			q++;
		d_format(L, &fmt, p, (size_t)(q - p));
		if (q >= end)
			break;
		if (q + 1 < end && q[1] == '%') {
			strbuf_addstr(&fmt, "%%");
			p = q + 2;
			continue;
		}
		const char *c = q + 1;
		bool at = false;
		struct strbuf spec;
		strbuf_init(&spec);
		strbuf_addch(&spec, '%');
		int stars = 0;
		while (c < end && strchr("-+ #0123456789.@hlLjzt*", *c)) {
			if (*c == '@')
				at = true;
			else if (!strchr("hlLjzt", *c))
				strbuf_addch(&spec, *c);
			stars += *c == '*';
			c++;
		}
		if (c >= end) {
			strbuf_release(&spec);
			break;
		}
		char conv = *c == 'i' ? 'd' : *c == 'S' ? 's' : *c;
		p = c + 1;
		struct strbuf star[2], val;
		for (int i = 0; i < stars && i < 2; i++) {   /* %*d: a width (or precision) from the next key */
			strbuf_init(&star[i]);
			if (key < v->nkeys)
				strbuf_addf(&star[i], "__pk%d_%d", id, ++key);
			else
				strbuf_addstr(&star[i], "0");
		}
		strbuf_init(&val);
		if (!at && (conv == 'k' || conv == 'K')) {   /* a stack: on lines of its own, no width */
			strbuf_addstr(&fmt, "\\n%s");
			strbuf_addstr(&args, ", ");
			if (key < v->nkeys)
				strbuf_addf(&args, "__pk%d_%d", id, ++key);
			else
				strbuf_addstr(&args, "\"\"");
			strbuf_reset(&spec);
		} else if (at) {
			const struct d_var *w = agg < call->args.len ? agg_of(L, call->args.items[agg]) : v;
			agg++;
			w = w ? w : v;
			if (is_quant(w)) {   /* the distribution, after a line's end */
				strbuf_addstr(&fmt, "\\n");
				flush_printf(&body, &fmt, &args);
				if (same_keys(v, w))
					strbuf_addf(&body, "__d_dist_%d(%s)\n", w->id, kv.buf);
				strbuf_reset(&spec);
			} else if (multi && same_keys(v, w)) {   /* an entry one of them lacks is 0 in it */
				strbuf_addf(&val, "(([%s] in __d_a_%d) ? ", kv.buf, w->id);
				value_expr(&val, w, kv.buf);
				strbuf_addstr(&val, " : 0)");
			} else if (multi) {
				strbuf_addstr(&val, "0");
			} else {
				value_expr(&val, w, kv.buf);
			}
		} else if (key < v->nkeys) {
			strbuf_addf(&val, "__pk%d_%d", id, ++key);
		} else {
			strbuf_addstr(&val, "0");
		}
		if (val.len)
			printa_conv(L, &fmt, &args, spec.buf, conv, stars ? star : NULL, val.buf);
		for (int i = 0; i < stars && i < 2; i++)
			strbuf_release(&star[i]);
		strbuf_release(&val);
		strbuf_release(&spec);
	}
	flush_printf(&body, &fmt, &args);
	if (multi) {
		rank_entries(L, call, v, kv.buf, jv.buf, id);
		d_line(L, "foreach ([%s] in __d_u_%d+) {", kv.buf, v->id);
	} else {
		d_line(L, "foreach ([%s] in __d_a_%d @%s%c) {", kv.buf, v->id, stat_of(v),
		       L->sema->opts->aggsortrev ? '-' : '+');
	}
	for (char *line = body.buf, *nl; line && *line; line = nl + 1) {
		nl = strchr(line, '\n');
		*nl = 0;
		d_line(L, "    %s", line);
	}
	d_line(L, "}");
	strbuf_release(&fmt);
	strbuf_release(&args);
	strbuf_release(&body);
	strbuf_release(&kv);
	strbuf_release(&jv);
}

/* trunc(@a, n): the n entries of the greatest values stay (n < 0: of
 * the least); the others' keys gathered, then deleted */
static void trunc_to(struct d_lower *L, const struct d_var *v, const struct d_expr *n)
{
	struct strbuf kv, sb;
	int id = L->temps++;

	strbuf_init(&kv);
	strbuf_init(&sb);
	for (int i = 0; i < (v->nkeys ? v->nkeys : 1); i++)
		strbuf_addf(&kv, "%s__tk%d_%d", i ? ", " : "", id, i + 1);
	d_lower_expr(L, &sb, n);
	d_line(L, "__tn%d = %s; __ti%d = 0", id, sb.buf, id);
	d_line(L, "foreach ([%s] in __d_a_%d @%s%s) {", kv.buf, v->id, stat_of(v), "-");
	d_line(L, "    if (__tn%d >= 0 && ++__ti%d > __tn%d) __d_x_%d[%s] = 1", id, id, id, v->id, kv.buf);
	d_line(L, "}");
	d_line(L, "if (__tn%d < 0) {", id);
	d_line(L, "    foreach ([%s] in __d_a_%d @%s+) {", kv.buf, v->id, stat_of(v));
	d_line(L, "        if (++__ti%d > -__tn%d) __d_x_%d[%s] = 1", id, id, v->id, kv.buf);
	d_line(L, "    }");
	d_line(L, "}");
	d_line(L, "foreach ([%s] in __d_x_%d) {", kv.buf, v->id);
	d_line(L, "    delete __d_a_%d[%s]", v->id, kv.buf);
	if (is_quant(v))
		d_line(L, "    delete __d_q_%d[%s, *]", v->id, kv.buf);
	d_line(L, "}");
	d_line(L, "delete __d_x_%d", v->id);
	strbuf_release(&kv);
	strbuf_release(&sb);
}

/* clear(@a), trunc(@a[, n]), normalize(@a, n), denormalize(@a) */
void d_lower_aggop(struct d_lower *L, const struct d_expr *call)
{
	const struct d_expr *a = call->args.items[0];
	const struct d_var *v;
	struct strbuf sb;

	if (a->kind != DE_AGG)
		d_error(L->sema->dg, !strcmp(call->name, "trunc") ? "D_TRUNC_AGGARG" :
			!strcmp(call->name, "clear") ? "D_CLEAR_AGGARG" : "D_NORMALIZE_AGGARG", a->pos,
			"%s( ) argument #1 must be an aggregation", call->name);
	if (!(v = agg_of(L, a)))
		return;
	if (!strcmp(call->name, "normalize")) {
		strbuf_init(&sb);
		d_lower_expr(L, &sb, call->args.items[1]);
		d_line(L, "__d_norm_%d = %s", v->id, sb.buf);
		strbuf_release(&sb);
	} else if (!strcmp(call->name, "denormalize")) {
		d_line(L, "__d_norm_%d = 1", v->id);
	} else if (!strcmp(call->name, "trunc") && call->args.len > 1) {
		trunc_to(L, v, call->args.items[1]);
	} else {
		d_line(L, "delete __d_a_%d", v->id);
		if (is_quant(v))
			d_line(L, "delete __d_q_%d", v->id);
	}
}

/* at exit, after END's clauses: a blank line, then each aggregation printa
 * did not print, in the order they were first used */
void d_lower_agg_exit(struct d_lower *L)
{
	struct d_sema *S = L->sema;

	d_line(L, "printf(\"\\n\")");
	for (int i = 0; i < S->vars.len; i++) {
		struct d_var *v = S->vars.items[i];
		if (v->kind != DV_AGG || v->printed)
			continue;
		d_line(L, "__d_pr_%d()", v->id);
	}
}
