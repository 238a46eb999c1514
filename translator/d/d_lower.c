/* d_lower.c - a checked D program as a SystemTap script in cstap's own
 * language (d_lower.h says the mapping): the probes, the clauses under
 * their predicates, statements and expressions. Aggregations are
 * d_lower_agg.c's, output formats d_lower_fmt.c's. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "d/d_btf.h"
#include "d/d_lower.h"
#include "d/d_types.h"

void d_line(struct d_lower *L, const char *fmt, ...)
{
	va_list ap;

	for (int i = 0; i < L->indent; i++)
		strbuf_addstr(&L->probes, "    ");
	va_start(ap, fmt);
	strbuf_vaddf(&L->probes, fmt, ap);
	va_end(ap);
	/* every statement ends with ';': a line starting with '(' would
	 * otherwise call the value the line before ended with */
	char last = L->probes.len ? L->probes.buf[L->probes.len - 1] : '{';
	if (last != '{' && last != '}' && last != ';')
		strbuf_addch(&L->probes, ';');
	strbuf_addch(&L->probes, '\n');
}

/* a D string value known when lowering as a literal of cstap's
 * language: at most strsize bytes, as D's strings hold */
static void add_string(struct d_lower *L, struct strbuf *out, const char *s, size_t n)
{
	if (L->sema->opts->strsize > 0 && n > (size_t)L->sema->opts->strsize)
		n = (size_t)L->sema->opts->strsize;
	if (n > L->sema->longest_string)
		L->sema->longest_string = n;
	strbuf_addch(out, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\')
			strbuf_addf(out, "\\%c", c);
		else if (c == '\n')
			strbuf_addstr(out, "\\n");
		else if (c == '\t')
			strbuf_addstr(out, "\\t");
		else if (c < 32 || c >= 127)
			strbuf_addf(out, "\\%03o", c);
		else
			strbuf_addch(out, c);
	}
	strbuf_addch(out, '"');
}

/* ---- names ---------------------------------------------------------------------- */

static bool lower_var_member(struct d_lower *L, struct strbuf *out, const struct d_expr *e, const char *more);
static void leaf_paths(const struct d_type *t, const char *prefix, strvec *out);
static bool is_sou(const struct d_type *t);

static void var_ref(struct d_lower *L, struct strbuf *out, const struct d_var *v)
{
	(void)L;
	switch (v->kind) {
	case DV_GLOBAL: strbuf_addf(out, "__d_g_%s", v->name); break;
	case DV_SELF: strbuf_addf(out, "__d_s_%s", v->name); break;
	case DV_THIS: strbuf_addf(out, "__d_t_%s", v->name); break;
	case DV_AGG: strbuf_addf(out, "__d_a_%d", v->id); break;
	}
}

/* keys of an associative array, self-> arrays keyed by thread first */
static void add_keys(struct d_lower *L, struct strbuf *out, const struct d_var *v, const struct d_expr *idx)
{
	strbuf_addch(out, '[');
	if (v->kind == DV_SELF) {
		d_provider_thread(L, out);   /* tid(), or the thread the probe is for */
		strbuf_addstr(out, idx ? ", " : "");
	}
	const struct d_type *vt = d_type_resolve(v->type);
	if (!v->assoc && vt && vt->kind == DT_ARRAY && vt->nelem > 0 && idx && idx->args.len == 1 &&
	    idx->args.items[0]->kind != DE_INT) {   /* int a[5]: a[i] within bounds, else a fault */
		d_mem_index(L, out, idx->args.items[0], vt->nelem);
		strbuf_addch(out, ']');
		return;
	}
	for (int i = 0; idx && i < idx->args.len; i++) {
		const struct d_expr *k = idx->args.items[i];
		if (i)
			strbuf_addstr(out, ", ");
		if (is_sou(k->type)) {   /* a struct as a key: its members, each a key */
			strvec paths = { 0 };
			leaf_paths(k->type, "", &paths);
			for (int j = 0; j < paths.len; j++) {
				if (j)
					strbuf_addstr(out, ", ");
				if (!lower_var_member(L, out, k, paths.items[j]))
					strbuf_addstr(out, "0");
			}
			continue;
		}
		d_lower_expr(L, out, k);
	}
	strbuf_addch(out, ']');
}

static struct d_var *var_of(struct d_lower *L, const struct d_expr *e, const struct d_expr **idx)
{
	*idx = NULL;
	if (e->kind == DE_INDEX) {
		*idx = e;
		e = e->lhs;
	}
	if (e->kind == DE_IDENT)
		return d_var_find(L->sema, DV_GLOBAL, e->name);
	if (e->kind == DE_ARROW && e->lhs->kind == DE_IDENT &&
	    (!strcmp(e->lhs->name, "self") || !strcmp(e->lhs->name, "this")))
		return d_var_find(L->sema, !strcmp(e->lhs->name, "self") ? DV_SELF : DV_THIS, e->name);
	return NULL;
}

/* a member chain over a variable (r.a.b): the variable, its path
 * ("__a__b") added to path; a struct variable is one variable a member */
static struct d_var *member_base(struct d_lower *L, const struct d_expr *e, struct strbuf *path,
				 const struct d_expr **idx)
{
	if (e->kind != DE_MEMBER)
		return var_of(L, e, idx);
	struct d_var *v = member_base(L, e->lhs, path, idx);
	if (v)
		strbuf_addf(path, "__%s", e->name);
	return v;
}

/* an lvalue (or the read of one): a variable, an array element, a
 * member of a struct variable */
static bool lower_var_member(struct d_lower *L, struct strbuf *out, const struct d_expr *e, const char *more)
{
	const struct d_expr *idx;
	struct strbuf path;
	struct d_var *v;

	strbuf_init(&path);
	v = member_base(L, e, &path, &idx);
	if (!v) {
		strbuf_release(&path);
		return false;
	}
	var_ref(L, out, v);
	strbuf_addstr(out, path.buf);
	strbuf_addstr(out, more);
	strbuf_release(&path);
	if (idx || v->kind == DV_SELF)
		add_keys(L, out, v, idx);
	return true;
}

static bool lower_var(struct d_lower *L, struct strbuf *out, const struct d_expr *e)
{
	return lower_var_member(L, out, e, "");
}

/* the bit-field e (a member access) is, its width in *bits (0: none) */
static int bitfield_of(const struct d_expr *e, bool *sign)
{
	int64_t off;

	if (e->kind != DE_MEMBER || !e->lhs->type)
		return 0;
	const struct d_member *m = d_type_member(e->lhs->type, e->name, &off);
	if (!m || !m->bits)
		return 0;
	const struct d_type *t = d_type_resolve(m->type);
	*sign = t && t->is_signed;
	return m->bits;
}

/* every scalar member of struct or union type t, as "__a__b" paths */
static void leaf_paths(const struct d_type *t, const char *prefix, strvec *out)
{
	const struct d_type *st = d_type_resolve((struct d_type *)t);

	if (!st || (st->kind != DT_STRUCT && st->kind != DT_UNION) || !st->complete) {
		vec_push(out, xstrdup(prefix));
		return;
	}
	for (int i = 0; i < st->members.len; i++) {
		const struct d_member *m = st->members.items[i];
		if (!m->name)
			continue;
		char *p = xasprintf("%s__%s", prefix, m->name);
		leaf_paths(m->type, p, out);
		free(p);
	}
}

static bool is_sou(const struct d_type *t)
{
	const struct d_type *st = d_type_resolve((struct d_type *)t);

	return st && (st->kind == DT_STRUCT || st->kind == DT_UNION);
}

/* the bytes of a struct variable's scalar members (bit-fields and arrays
 * left 0): bytes[off] the expression of its byte at off */
static void struct_bytes(struct d_lower *L, const struct d_expr *e, const struct d_type *t, const char *prefix,
			 int64_t base, char **bytes, int64_t size)
{
	const struct d_type *st = d_type_resolve((struct d_type *)t);

	if (!st)
		return;
	if (st->kind == DT_STRUCT || st->kind == DT_UNION) {
		for (int i = 0; st->complete && i < st->members.len; i++) {
			const struct d_member *m = st->members.items[i];
			if (!m->name || m->bits)
				continue;
			char *p = xasprintf("%s__%s", prefix, m->name);
			struct_bytes(L, e, m->type, p, base + m->offset, bytes, size);
			free(p);
		}
		return;
	}
	if (st->kind != DT_INT && st->kind != DT_ENUM && st->kind != DT_PTR)
		return;
	struct strbuf v;
	strbuf_init(&v);
	if (!lower_var_member(L, &v, e, prefix)) {
		strbuf_release(&v);
		return;
	}
	for (int64_t i = 0; i < st->size && i < 8 && base + i < size; i++) {
		if (bytes[base + i])   /* a union's byte: its first member's */
			continue;
		bytes[base + i] = xasprintf("((%s >> %d) & 0xff)", v.buf, (int)(8 * i));
	}
	strbuf_release(&v);
}

/* trace() of a struct or union variable: its bytes in hex and as text,
 * 16 a row under a header (DTrace's dump of a value it cannot print as a
 * number); false when e is no such variable */
bool d_lower_trace_struct(struct d_lower *L, const struct d_expr *e)
{
	const struct d_type *t = e->type ? d_type_resolve(e->type) : NULL;
	struct strbuf probe;

	if (!t || (t->kind != DT_STRUCT && t->kind != DT_UNION) || t->size <= 0 || t->size > 4096)
		return false;
	strbuf_init(&probe);
	bool ok = lower_var(L, &probe, e);
	strbuf_release(&probe);
	if (!ok)
		return false;
	char **bytes = xcalloc((size_t)t->size, sizeof(*bytes));
	struct_bytes(L, e, t, "", 0, bytes, t->size);
	d_need(L, H_PC);
	d_line(L, "printf(\"\\n             0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f  0123456789abcdef\\n\")");
	for (int64_t row = 0; row < t->size; row += 16) {
		struct strbuf fmt, hex, txt;
		strbuf_init(&fmt);
		strbuf_init(&hex);
		strbuf_init(&txt);
		strbuf_addstr(&fmt, "%10x: ");
		for (int64_t i = row; i < row + 16; i++) {
			if (i >= t->size) {
				strbuf_addstr(&fmt, "   ");
				continue;
			}
			const char *b = bytes[i] ? bytes[i] : "0";
			strbuf_addstr(&fmt, "%02x ");
			strbuf_addf(&hex, ", %s", b);
			strbuf_addf(&txt, ", __d_pc(%s)", b);
		}
		strbuf_addch(&fmt, ' ');
		for (int64_t i = row; i < row + 16 && i < t->size; i++)
			strbuf_addstr(&fmt, "%s");
		d_line(L, "printf(\"%s\\n\", %lld%s%s)", fmt.buf, (long long)row, hex.buf, txt.buf);
		strbuf_release(&fmt);
		strbuf_release(&hex);
		strbuf_release(&txt);
	}
	for (int64_t i = 0; i < t->size; i++)
		free(bytes[i]);
	free(bytes);
	return true;
}

/* a built-in variable */
static void lower_builtin(struct d_lower *L, struct strbuf *out, const char *n)
{
	const struct d_pdesc *d = L->desc;
	static const struct { const char *d, *stap; } b[] = {
		{ "execname", "execname()" }, { "pid", "pid()" }, { "tid", "tid()" }, { "ppid", "ppid()" },
		{ "uid", "uid()" }, { "gid", "gid()" }, { "cpu", "cpu()" },
		{ "timestamp", "gettimeofday_ns()" }, { "vtimestamp", "__d_vts" },
		{ "walltimestamp", "gettimeofday_ns()" }, { "curthread", "task_current()" },
		{ "errno", "0" }, { "ipl", "0" }, { "stackdepth", "0" }, { "ustackdepth", "0" },
		{ "caller", "0" }, { "ucaller", "0" }, { "cwd", "\"/\"" }, { "root", "\"/\"" },
		{ "zonename", "\"global\"" },
	};

	if (d_provider_builtin(L, out, n, NULL))
		return;
	/* BEGIN, END and ERROR run in dtrace itself, on -xcpu's CPU when given */
	bool own = !*d->prov && !*d->func &&
		   (!strcmp(d->name, "BEGIN") || !strcmp(d->name, "END") || !strcmp(d->name, "ERROR"));
	if (!strcmp(n, "execname") && own) {
		strbuf_addstr(out, "\"dtrace\"");
		return;
	}
	if (!strcmp(n, "cpu") && own && L->sema->opts->cpu >= 0) {
		strbuf_addf(out, "%lld", (long long)L->sema->opts->cpu);
		return;
	}
	for (size_t i = 0; i < sizeof(b) / sizeof(b[0]); i++)
		if (!strcmp(b[i].d, n)) {
			strbuf_addstr(out, b[i].stap);
			L->vts_used |= !strcmp(n, "vtimestamp");
			return;
		}
	if (!strcmp(n, "probefunc"))
		return add_string(L, out, d->func, strlen(d->func));
	if (!strcmp(n, "probename"))
		return add_string(L, out, d->name, strlen(d->name));
	if (!strcmp(n, "probemod"))
		return add_string(L, out, d->mod, strlen(d->mod));
	if (!strcmp(n, "probeprov")) {   /* BEGIN's is dtrace, tick-N's profile, when not written */
		const char *prov = d->prov;
		if (!*prov && (!strcmp(d->name, "BEGIN") || !strcmp(d->name, "END") || !strcmp(d->name, "ERROR")))
			prov = "dtrace";
		else if (!*prov && (!strncmp(d->name, "tick-", 5) || !strncmp(d->name, "profile-", 8)))
			prov = "profile";
		return add_string(L, out, prov, strlen(prov));
	}
	if (!strcmp(n, "epid") || !strcmp(n, "id")) {
		strbuf_addf(out, "%d", L->clause->index + 1);
		return;
	}
	if (L->in_errfn && !strncmp(n, "arg", 3) && n[3] >= '0' && n[3] <= '5' && !n[4]) {
		strbuf_addf(out, "__d_ea%c", n[3]);   /* ERROR's, set by __d_report() */
		return;
	}
	strbuf_addstr(out, "0");   /* arg0..arg9 of the dtrace provider */
}

/* a built-in variable; a string one (probefunc, execname) cut to a
 * strsize set below the default */
static void lower_builtin_cut(struct d_lower *L, struct strbuf *out, const struct d_expr *e)
{
	int64_t n = L->sema->opts->strsize;
	bool cut = d_is_string(e->type) && n > 0 && n < D_STRSIZE_DEFAULT;

	if (cut)
		strbuf_addstr(out, "substr(");
	lower_builtin(L, out, e->name);
	if (cut)
		strbuf_addf(out, ", 0, %lld)", (long long)n);
}

/* ---- expressions ------------------------------------------------------------------ */

/* the helper that cuts a value to an integer type narrower than 64 bits */
static const char *narrow(struct d_lower *L, const struct d_type *t)
{
	while (t && t->typedef_of)
		t = t->typedef_of;
	if (!t || (t->kind != DT_INT && t->kind != DT_ENUM) || t->size >= 8)
		return NULL;
	static const char *names[2][3] = { { "__d_u8", "__d_u16", "__d_u32" }, { "__d_s8", "__d_s16", "__d_s32" } };
	static const enum d_helper helpers[2][3] = { { H_U8, H_U16, H_U32 }, { H_S8, H_S16, H_S32 } };
	int i = t->size == 1 ? 0 : t->size == 2 ? 1 : 2;
	bool sign = t->kind == DT_ENUM || t->is_signed;
	d_need(L, helpers[sign][i]);
	return names[sign][i];
}

static const char *binop_text(enum d_op op)
{
	switch (op) {
	case DOP_MUL: return "*"; case DOP_DIV: return "/"; case DOP_MOD: return "%";
	case DOP_ADD: return "+"; case DOP_SUB: return "-"; case DOP_SHL: return "<<";
	case DOP_SHR: return ">>"; case DOP_LT: return "<"; case DOP_GT: return ">";
	case DOP_LE: return "<="; case DOP_GE: return ">="; case DOP_EQ: return "==";
	case DOP_NE: return "!="; case DOP_BAND: return "&"; case DOP_BXOR: return "^";
	case DOP_BOR: return "|"; case DOP_LAND: return "&&"; case DOP_LOR: return "||";
	default: return "?";
	}
}

/* what a pointer steps by (its pointee's size, void's 1), 1 for other types */
static int64_t ptr_step(const struct d_type *t)
{
	const struct d_type *r = d_type_resolve((struct d_type *)t);

	if (!r || (r->kind != DT_PTR && r->kind != DT_ARRAY))
		return 1;
	const struct d_type *el = d_type_resolve(r->ref);
	return el && el->size > 0 ? el->size : 1;
}

/* p + i, p - i, i + p, p - q: C's pointer arithmetic (the integer
 * counts elements); false for other operations */
static bool lower_ptr_arith(struct d_lower *L, struct strbuf *out, const struct d_expr *e)
{
	if (e->op != DOP_ADD && e->op != DOP_SUB)
		return false;
	int64_t ls = d_is_ptr(e->lhs->type) && !d_is_string(e->lhs->type) ? ptr_step(e->lhs->type) : 0;
	int64_t rs = d_is_ptr(e->rhs->type) && !d_is_string(e->rhs->type) ? ptr_step(e->rhs->type) : 0;
	if (ls && rs) {   /* p - q: in elements */
		if (e->op != DOP_SUB || ls == 1)
			return false;
		strbuf_addstr(out, "((");
		d_lower_expr(L, out, e->lhs);
		strbuf_addstr(out, " - ");
		d_lower_expr(L, out, e->rhs);
		strbuf_addf(out, ") / %lld)", (long long)ls);
		return true;
	}
	if (ls > 1) {
		strbuf_addch(out, '(');
		d_lower_expr(L, out, e->lhs);
		strbuf_addstr(out, e->op == DOP_ADD ? " + (" : " - (");
		d_lower_expr(L, out, e->rhs);
		strbuf_addf(out, ") * %lld)", (long long)ls);
		return true;
	}
	if (rs > 1 && e->op == DOP_ADD) {
		strbuf_addstr(out, "((");
		d_lower_expr(L, out, e->lhs);
		strbuf_addf(out, ") * %lld + ", (long long)rs);
		d_lower_expr(L, out, e->rhs);
		strbuf_addch(out, ')');
		return true;
	}
	return false;
}

/* an operation whose result is cut to its D type's width */
static void wrap_open(struct d_lower *L, struct strbuf *out, const struct d_type *t, const char **close)
{
	const char *f = narrow(L, t);

	*close = f ? ")" : "";
	if (f)
		strbuf_addf(out, "%s(", f);
}

/* (type)constant to a smaller integer: DTrace folds it to the constant's
 * low bytes, not sign-extended ((char)0x1ef is 239, (short)-2 65534);
 * false when e is not such a cast */
static bool cast_constant(struct strbuf *out, const struct d_expr *e)
{
	const struct d_expr *k = e->lhs;
	struct d_type *to = e->type ? d_type_resolve(e->type) : NULL;
	struct d_type *from = k->type ? d_type_resolve(k->type) : NULL;
	bool neg = k->kind == DE_UNARY && k->op == DOP_NEG;

	if (neg)
		k = k->lhs;
	if (k->kind != DE_INT || !to || !from || to->kind != DT_INT || from->kind != DT_INT || to->size >= from->size ||
	    to->size >= 8)
		return false;
	uint64_t v = neg ? -(uint64_t)k->num : (uint64_t)k->num;
	strbuf_addf(out, "%lld", (long long)(v & ((1ull << (to->size * 8)) - 1)));
	return true;
}

/* e is NULL (0, or 0 cast to a pointer) */
static bool null_const(const struct d_expr *e)
{
	while (e->kind == DE_CAST)
		e = e->lhs;
	return e->kind == DE_INT && e->num == 0;
}

/* e where a string is wanted: a string's NULL is the empty string, as
 * the string functions give no match (strstr(), strchr(), strtok()) */
static void lower_as_string(struct d_lower *L, struct strbuf *out, const struct d_expr *e)
{
	if (!d_is_string(e->type) && null_const(e))
		strbuf_addstr(out, "\"\"");
	else
		d_lower_expr(L, out, e);
}

/* a comparison of a string with NULL */
static bool string_vs_null(const struct d_expr *e)
{
	bool ls = d_is_string(e->lhs->type), rs = d_is_string(e->rhs->type);

	return ls != rs && (e->op == DOP_EQ || e->op == DOP_NE || e->op == DOP_LT || e->op == DOP_GT ||
			    e->op == DOP_LE || e->op == DOP_GE) &&
	       null_const(ls ? e->rhs : e->lhs);
}

static void lower_binary(struct d_lower *L, struct strbuf *out, const struct d_expr *e)
{
	const char *close = "";

	if (e->op == DOP_LXOR) {
		strbuf_addstr(out, "(!(");
		d_lower_expr(L, out, e->lhs);
		strbuf_addstr(out, ") != !(");
		d_lower_expr(L, out, e->rhs);
		strbuf_addstr(out, "))");
		return;
	}
	if (e->op == DOP_COMMA) {   /* both for their effects: the value is the right's */
		strbuf_addstr(out, "(");
		d_lower_expr(L, out, e->lhs);
		strbuf_addstr(out, " ? ");
		d_lower_expr(L, out, e->rhs);
		strbuf_addstr(out, " : ");
		d_lower_expr(L, out, e->rhs);
		strbuf_addstr(out, ")");
		return;
	}
	if (e->op == DOP_MOD) {
		d_need(L, H_MOD);
		strbuf_addstr(out, "__d_mod(");
		d_lower_expr(L, out, e->lhs);
		strbuf_addstr(out, ", ");
		d_lower_expr(L, out, e->rhs);
		strbuf_addch(out, ')');
		return;
	}
	if (lower_ptr_arith(L, out, e))
		return;
	bool arith = e->op == DOP_MUL || e->op == DOP_ADD || e->op == DOP_SUB || e->op == DOP_SHL;
	if (arith)
		wrap_open(L, out, e->type, &close);
	strbuf_addch(out, '(');
	bool null = string_vs_null(e);
	if (null)
		lower_as_string(L, out, e->lhs);
	else
		d_lower_expr(L, out, e->lhs);
	const char *op = binop_text(e->op);
	if (e->op == DOP_SHR && e->type && !e->type->is_signed)
		op = ">>>";
	strbuf_addf(out, " %s ", op);
	if (null)
		lower_as_string(L, out, e->rhs);
	else
		d_lower_expr(L, out, e->rhs);
	strbuf_addch(out, ')');
	strbuf_addstr(out, close);
}

static void lower_assign(struct d_lower *L, struct strbuf *out, const struct d_expr *e)
{
	const char *close = "";
	struct strbuf lhs;

	strbuf_init(&lhs);
	if (d_mem_place(e->lhs)) {   /* a store to memory: the value, then __d_st() of it */
		struct strbuf v = STRBUF_INIT;
		wrap_open(L, &v, e->lhs->type, &close);
		if (e->op != DOP_ASSIGN) {
			strbuf_addch(&v, '(');
			d_mem_read(L, &v, e->lhs);
			strbuf_addf(&v, " %s ", binop_text(e->op));
			d_lower_expr(L, &v, e->rhs);
			strbuf_addch(&v, ')');
		} else {
			d_lower_expr(L, &v, e->rhs);
		}
		strbuf_addstr(&v, close);
		d_mem_store(L, out, e->lhs, v.buf);
		strbuf_release(&v);
		strbuf_release(&lhs);
		return;
	}
	if (!lower_var(L, &lhs, e->lhs))
		d_lower_expr(L, &lhs, e->lhs);
	strbuf_addf(out, "(%s = ", lhs.buf);
	bool sign = false;
	int bits = bitfield_of(e->lhs, &sign);
	if (bits && bits < 64) {   /* a bit-field keeps its bits, sign-extended if signed */
		strbuf_addf(out, sign ? "(((" : "((");
		close = sign ? xasprintf(") << %d) >> %d)", 64 - bits, 64 - bits)
			     : xasprintf(") & 0x%llx)", (unsigned long long)((1ULL << bits) - 1));
	} else {
		wrap_open(L, out, e->type, &close);
	}
	if (e->op != DOP_ASSIGN) {
		strbuf_addf(out, "(%s %s ", lhs.buf, binop_text(e->op));
		d_lower_expr(L, out, e->rhs);
		strbuf_addch(out, ')');
	} else if (d_is_string(e->lhs->type)) {
		lower_as_string(L, out, e->rhs);
	} else {
		d_lower_expr(L, out, e->rhs);
	}
	strbuf_addf(out, "%s)", close);
	strbuf_release(&lhs);
}

/* ++x, x++ ...: the value as D gives it, cut to the variable's width */
static void lower_incdec(struct d_lower *L, struct strbuf *out, const struct d_expr *e)
{
	struct strbuf lv;
	const char *close = "";
	bool inc = e->op == DOP_PREINC || e->op == DOP_POSTINC;
	bool post = e->kind == DE_POSTFIX;

	strbuf_init(&lv);
	if (d_mem_place(e->lhs)) {   /* in memory: the new value stored, the old one given back for x++ */
		struct strbuf v = STRBUF_INIT;
		const char *c2;
		wrap_open(L, &v, e->type, &c2);
		strbuf_addch(&v, '(');
		d_mem_read(L, &v, e->lhs);
		strbuf_addf(&v, " %s %lld)%s", inc ? "+" : "-", (long long)ptr_step(e->lhs->type), c2);
		if (post)
			strbuf_addch(out, '(');
		d_mem_store(L, out, e->lhs, v.buf);
		if (post)
			strbuf_addf(out, " %s %lld)", inc ? "-" : "+", (long long)ptr_step(e->lhs->type));
		strbuf_release(&v);
		strbuf_release(&lv);
		return;
	}
	if (!lower_var(L, &lv, e->lhs))
		d_lower_expr(L, &lv, e->lhs);
	if (!narrow(L, e->type)) {
		if (ptr_step(e->lhs->type) != 1)   /* a pointer steps by its pointee's size */
			strbuf_addf(out, post ? "((%1$s %2$s= %3$lld) %4$s %3$lld)" : "(%1$s %2$s= %3$lld)", lv.buf,
				    inc ? "+" : "-", (long long)ptr_step(e->lhs->type), inc ? "-" : "+");
		else
			strbuf_addf(out, post ? "%s%s" : "%2$s%1$s", lv.buf, inc ? "++" : "--");
		strbuf_release(&lv);
		return;
	}
	/* (x = narrow(x + 1)) for ++x; x++ is that minus 1, cut again */
	if (post)
		wrap_open(L, out, e->type, &close), strbuf_addch(out, '(');
	const char *c2;
	strbuf_addf(out, "(%s = ", lv.buf);
	wrap_open(L, out, e->type, &c2);
	strbuf_addf(out, "%s %s 1%s)", lv.buf, inc ? "+" : "-", c2);
	if (post)
		strbuf_addf(out, " %s 1)%s", inc ? "-" : "+", close);
	strbuf_release(&lv);
}

static void lower_unary(struct d_lower *L, struct strbuf *out, const struct d_expr *e)
{
	const char *close = "";

	switch (e->op) {
	case DOP_PREINC: case DOP_PREDEC: case DOP_POSTINC: case DOP_POSTDEC:
		lower_incdec(L, out, e);
		return;
	case DOP_SIZEOF:
		strbuf_addf(out, "%lld", (long long)(e->lhs->type ? e->lhs->type->size : 8));
		return;
	case DOP_STRINGOF:
		if (d_is_string(e->lhs->type) || d_is_ptr(e->lhs->type))
			d_lower_string(L, out, e->lhs);
		else
			strbuf_addstr(out, "sprint("), d_lower_expr(L, out, e->lhs), strbuf_addch(out, ')');
		return;
	case DOP_PLUS:
		d_lower_expr(L, out, e->lhs);
		return;
	case DOP_NOT:
		strbuf_addstr(out, "(!");
		d_lower_expr(L, out, e->lhs);
		strbuf_addch(out, ')');
		return;
	case DOP_NEG: case DOP_BITNOT:
		wrap_open(L, out, e->type, &close);
		strbuf_addstr(out, e->op == DOP_NEG ? "(-" : "(~");
		d_lower_expr(L, out, e->lhs);
		strbuf_addf(out, ")%s", close);
		return;
	case DOP_DEREF:
		if (d_mem_place(e))
			d_mem_read(L, out, e);
		else
			strbuf_addstr(out, "0");
		return;
	case DOP_ADDROF: {   /* &`sym: its address, from the kernel's symbol table; & of memory */
		uint64_t addr;
		if (e->lhs->kind == DE_IDENT && strchr(e->lhs->name, '`') && d_kernel_symbol_addr(e->lhs->name, &addr))
			strbuf_addf(out, "%lld", (long long)addr);
		else if (d_mem_place(e->lhs))
			d_mem_addr(L, out, e->lhs);
		else
			strbuf_addstr(out, "0");
		return;
	}
	default:
		strbuf_addstr(out, "0");
		return;
	}
}

/* NULL, 0 or a cast of them: strtok()'s "go on" */
static bool is_null(const struct d_expr *e)
{
	while (e->kind == DE_CAST)
		e = e->lhs;
	return (e->kind == DE_INT && e->num == 0) || (e->kind == DE_IDENT && !strcmp(e->name, "NULL"));
}

static void lower_call_value(struct d_lower *L, struct strbuf *out, const struct d_expr *e)
{
	static const struct { const char *d; enum d_helper h; const char *stap; } subr[] = {
		{ "substr", H_SUBSTR, "__d_substr" }, { "index", H_INDEX, "__d_index" },
		{ "rindex", H_RINDEX, "__d_rindex" }, { "strchr", H_STRCHR, "__d_strchr" },
		{ "strrchr", H_STRRCHR, "__d_strrchr" }, { "strstr", H_STRSTR, "__d_strstr" },
		{ "toupper", H_TOUPPER, "__d_toupper" }, { "tolower", H_TOLOWER, "__d_tolower" },
		{ "basename", H_BASENAME, "__d_basename" }, { "dirname", H_DIRNAME, "__d_dirname" },
		{ "lltostr", H_LLTOSTR, "__d_lltostr" }, { "strtok", H_STRTOK, "__d_strtok" },
		{ "cleanpath", H_CLEANPATH, "__d_cleanpath" },
	};
	const char *name = e->name;

	if (d_mem_call(L, out, e))
		return;
	if (!strcmp(name, "strjoin")) {   /* at most strsize bytes, as every D string */
		strbuf_addstr(out, "substr(");
		d_lower_string(L, out, e->args.items[0]);
		strbuf_addstr(out, " . ");
		d_lower_string(L, out, e->args.items[1]);
		strbuf_addf(out, ", 0, %lld)", (long long)L->sema->opts->strsize);
		return;
	}
	if (!strcmp(name, "stack") || !strcmp(name, "ustack") || !strcmp(name, "jstack")) {
		strbuf_addstr(out, name[0] == 's' ? "sprint_backtrace()" : "sprint_ubacktrace()");
		return;
	}
	if (!strcmp(name, "sym") || !strcmp(name, "func") || !strcmp(name, "usym") || !strcmp(name, "ufunc")) {
		strbuf_addstr(out, name[0] == 'u' ? "usymname(" : "symname(");
		d_lower_expr(L, out, e->args.items[0]);
		strbuf_addch(out, ')');
		return;
	}
	if (!strcmp(name, "mod") || !strcmp(name, "umod") || !strcmp(name, "uaddr")) {
		strbuf_addstr(out, name[1] == 'a' ? "usymdata(" : name[0] == 'u' ? "umodname(" : "modname(");
		d_lower_expr(L, out, e->args.items[0]);
		strbuf_addch(out, ')');
		return;
	}
	if (!strcmp(name, "speculation")) {
		d_need(L, H_SPEC);
		L->spec_used = true;
		strbuf_addf(out, "__d_speculation(%lld)", (long long)(L->sema->opts->nspec ? L->sema->opts->nspec : 1));
		return;
	}
	if (!strcmp(name, "getmajor") || !strcmp(name, "getminor")) {   /* Linux's dev_t: 12 bits, 20 bits */
		strbuf_addch(out, '(');
		d_lower_expr(L, out, e->args.items[0]);
		strbuf_addstr(out, name[3] == 'm' && name[4] == 'a' ? " >> 20)" : " & 0xfffff)");
		return;
	}
	if (!strcmp(name, "copyinstr")) {   /* a user-space string: strsize bytes, or n with its NUL */
		int64_t n = L->sema->opts->strsize;
		bool cut = e->args.len > 1 && n > 0 && n < D_STRSIZE_DEFAULT;   /* n and strsize: the less */
		strbuf_addstr(out, cut ? "substr(user_string_n(" : "user_string_n(");
		d_lower_expr(L, out, e->args.items[0]);
		strbuf_addstr(out, ", ");
		if (e->args.len > 1)
			strbuf_addstr(out, "("), d_lower_expr(L, out, e->args.items[1]), strbuf_addstr(out, ") - 1");
		else
			strbuf_addf(out, "%lld", (long long)n);
		strbuf_addch(out, ')');
		if (cut)
			strbuf_addf(out, ", 0, %lld)", (long long)n - 1);
		return;
	}
	if (!strcmp(name, "rand")) {
		strbuf_addstr(out, "randint(2147483647)");
		return;
	}
	if (!strcmp(name, "htons") || !strcmp(name, "ntohs") || !strcmp(name, "htonl") ||
	    !strcmp(name, "ntohl") || !strcmp(name, "htonll") || !strcmp(name, "ntohll")) {
		int bytes = name[4] == 's' ? 2 : name[4] == 'l' && name[5] == 'l' ? 8 : 4;
		d_need(L, H_BSWAP);
		strbuf_addf(out, "__d_bswap%d(", bytes * 8);
		d_lower_expr(L, out, e->args.items[0]);
		strbuf_addch(out, ')');
		return;
	}
	bool strfn = !strcmp(name, "strlen");   /* its string arguments may be pointers */
	for (size_t i = 0; i < sizeof(subr) / sizeof(subr[0]); i++)
		if (!strcmp(subr[i].d, name)) {
			d_need(L, subr[i].h);
			name = subr[i].stap;
			strfn = true;
			break;
		}
	strbuf_addf(out, "%s(", name);
	for (int i = 0; i < e->args.len; i++) {
		if (i)
			strbuf_addstr(out, ", ");
		if (!strcmp(e->name, "strtok") && i == 0 && is_null(e->args.items[0]))
			strbuf_addstr(out, "\"\"");
		else if (strfn)
			d_lower_string(L, out, e->args.items[i]);
		else
			d_lower_expr(L, out, e->args.items[i]);
	}
	/* D's optional arguments as the helpers' fixed ones */
	if (!strcmp(e->name, "substr"))
		strbuf_addstr(out, e->args.len == 2 ? ", 0, 0" : ", 1");
	if (!strcmp(e->name, "index") && e->args.len == 2)
		strbuf_addstr(out, ", 0");
	if (!strcmp(e->name, "rindex"))
		strbuf_addstr(out, e->args.len == 2 ? ", 0, 0" : ", 1");
	if (!strcmp(e->name, "lltostr") && e->args.len == 1)
		strbuf_addstr(out, ", 10");
	if (!strcmp(e->name, "strtok"))   /* strtok(NULL, d) goes on with the last string */
		strbuf_addstr(out, !is_null(e->args.items[0]) ? ", 1" : ", 0");
	strbuf_addch(out, ')');
}

/* a subroutine's value; a string one cut to a strsize set below the
 * default (the default is as long as the runtime's strings or longer) */
static void lower_call(struct d_lower *L, struct strbuf *out, const struct d_expr *e)
{
	int64_t n = L->sema->opts->strsize;
	bool cut = d_is_string(e->type) && n > 0 && n < D_STRSIZE_DEFAULT && strcmp(e->name, "strjoin") &&
		   strcmp(e->name, "copyinstr");

	if (cut)
		strbuf_addstr(out, "substr(");
	lower_call_value(L, out, e);
	if (cut)
		strbuf_addf(out, ", 0, %lld)", (long long)n);
}

/* a char * (what a string assigned to it is, in the lowered script) */
static bool is_char_ptr(const struct d_type *t)
{
	const struct d_type *r = d_type_resolve((struct d_type *)t);
	const struct d_type *c = r && r->kind == DT_PTR ? d_type_resolve(r->ref) : NULL;

	return c && c->kind == DT_INT && c->size == 1;
}

/* s[i] of a string (not an associative array's element), or of a char *
 * variable (a string was assigned to it: nothing else is, in the lowered
 * script): its character */
static bool string_char(struct d_lower *L, struct strbuf *out, const struct d_expr *e)
{
	const struct d_expr *idx;
	const struct d_var *v = var_of(L, e, &idx);
	bool str = d_is_string(e->lhs->type) || (v && is_char_ptr(e->lhs->type) && v->alloca != 1);

	if (!str || e->args.len != 1 || (v && v->assoc))
		return false;
	d_need(L, H_STRAT);
	strbuf_addstr(out, "__d_strat(");
	d_lower_expr(L, out, e->lhs);
	strbuf_addstr(out, ", ");
	d_lower_expr(L, out, e->args.items[0]);
	strbuf_addch(out, ')');
	return true;
}

/* a macro variable: $1 as the number or text given, $target as target() */
static void lower_macro(struct d_lower *L, struct strbuf *out, const struct d_expr *e)
{
	const char *n = e->name + 1;
	bool str = *n == '$';

	if (str)
		n++;
	if (!strcmp(n, "target") || !strcmp(n, "pid")) {
		strbuf_addstr(out, str ? "sprint(target())" : "target()");
		return;
	}
	long i = strtol(n, NULL, 10);
	/* past the arguments (defaultargs): 0, or "" */
	const char *v = i == 0 ? "dtrace" : i <= L->sema->nargs ? L->sema->args[i - 1] : "";
	if (d_is_string(e->type))
		add_string(L, out, v, strlen(v));
	else
		strbuf_addf(out, "%lld", strtoll(v, NULL, 0));
}

void d_lower_expr(struct d_lower *L, struct strbuf *out, const struct d_expr *e)
{
	const char *close = "";

	for (int i = 0; i < L->nsubst; i++)
		if (L->subst[i] == e) {   /* hoisted: its temporary */
			strbuf_addstr(out, L->subst_name[i]);
			return;
		}
	switch (e->kind) {
	case DE_INT:
		strbuf_addf(out, "%lld", (long long)e->num);
		return;
	case DE_STR:
		add_string(L, out, e->str, e->str_len);
		return;
	case DE_IDENT:
		if (e->decl && e->decl->kind == DD_INLINE) {   /* an inline: its expression, cut to its type */
			wrap_open(L, out, e->type, &close);
			strbuf_addch(out, '(');
			d_lower_expr(L, out, e->decl->init);
			strbuf_addf(out, ")%s", close);
			return;
		}
		if (lower_var(L, out, e))
			return;
		if (d_mem_place(e))   /* `sym */
			d_mem_read(L, out, e);
		else
			lower_builtin_cut(L, out, e);
		return;
	case DE_MACRO:
		lower_macro(L, out, e);
		return;
	case DE_INDEX:
		if (e->lhs->kind == DE_IDENT && !strcmp(e->lhs->name, "args")) {
			if (!d_provider_builtin(L, out, "args", e))
				strbuf_addstr(out, "0");
			return;
		}
		if (string_char(L, out, e))   /* a char * holding a string: its character */
			return;
		if (d_mem_place(e)) {
			d_mem_read(L, out, e);
			return;
		}
		if (!lower_var(L, out, e))
			strbuf_addstr(out, "0");
		return;
	case DE_ARROW: case DE_MEMBER:
		if (d_provider_member(L, out, e))   /* args[0]->pr_pid, args[1]->f_cred->uid.val */
			return;
		if (lower_var(L, out, e))
			return;
		if (d_mem_place(e))
			d_mem_read(L, out, e);
		else
			strbuf_addstr(out, "0");
		return;
	case DE_CALL:
		lower_call(L, out, e);
		return;
	case DE_UNARY: case DE_POSTFIX:
		lower_unary(L, out, e);
		return;
	case DE_BINARY:
		lower_binary(L, out, e);
		return;
	case DE_ASSIGN:
		lower_assign(L, out, e);
		return;
	case DE_TERNARY:
		strbuf_addch(out, '(');
		d_lower_expr(L, out, e->args.items[0]);
		strbuf_addstr(out, " ? ");
		if (d_is_string(e->type)) {   /* c ? s : NULL */
			lower_as_string(L, out, e->lhs);
			strbuf_addstr(out, " : ");
			lower_as_string(L, out, e->rhs);
		} else {
			d_lower_expr(L, out, e->lhs);
			strbuf_addstr(out, " : ");
			d_lower_expr(L, out, e->rhs);
		}
		strbuf_addch(out, ')');
		return;
	case DE_CAST:
		if (d_is_string(e->type) || d_is_string(e->lhs->type)) {
			if (d_is_string(e->type))   /* (string)p: what p points at */
				d_lower_string(L, out, e->lhs);
			else
				d_lower_expr(L, out, e->lhs);
			return;
		}
		if (cast_constant(out, e))
			return;
		wrap_open(L, out, e->type, &close);
		d_lower_expr(L, out, e->lhs);
		strbuf_addstr(out, close);
		return;
	case DE_OFFSETOF: {
		int64_t off = 0;
		if (!e->cast_type || !d_type_member(e->cast_type, e->name, &off))
			off = 0;
		strbuf_addf(out, "%lld", (long long)off);
		return;
	}
	case DE_SIZEOF_TYPE:
		strbuf_addf(out, "%lld", (long long)(e->cast_type ? e->cast_type->size : 0));
		return;
	default:
		strbuf_addstr(out, "0");
		return;
	}
}

/* ---- statements ------------------------------------------------------------------- */

static void lower_stmt(struct d_lower *L, const struct d_stmt *st);

static void lower_expr_stmt(struct d_lower *L, const struct d_expr *e);

/* an action (trace, printf, exit ...) whose arguments may fault: they
 * are computed first, into temporaries, and it acts only when none did;
 * false when no argument may fault */
static bool hoist_action(struct d_lower *L, const struct d_expr *e)
{
	static const char *const acts[] = { "trace", "printf", "exit", "printa", "stack", "ustack", NULL };
	int n0 = L->nsubst, i;

	for (i = 0; acts[i] && strcmp(acts[i], e->name); i++)
		;
	if (!acts[i])
		return false;
	for (i = 0; i < e->args.len && L->nsubst < 16; i++) {
		struct strbuf sb = STRBUF_INIT;
		int m0 = L->memops;
		d_lower_expr(L, &sb, e->args.items[i]);
		if (L->memops > m0) {
			char *name = xasprintf("__d_mt%d", ++L->temps);
			d_line(L, "%s = %s", name, sb.buf);
			L->subst[L->nsubst] = e->args.items[i];
			L->subst_name[L->nsubst++] = name;
		}
		strbuf_release(&sb);
	}
	if (L->nsubst == n0)
		return false;
	d_line(L, "if (!__d_flt) {");
	L->indent++;
	int m1 = L->memops;
	lower_expr_stmt(L, e);
	L->memops = m1 > L->memops ? m1 : L->memops;
	L->indent--;
	d_line(L, "}");
	while (L->nsubst > n0)
		free(L->subst_name[--L->nsubst]);
	return true;
}

/* a = b = c ...: the inner assignment e done first, its value in a
 * temporary (returned): nested, the chain is too deep for BPF's stack */
static char *assign_to_temp(struct d_lower *L, const struct d_expr *e)
{
	struct strbuf sb = STRBUF_INIT;
	char *inner = NULL;

	if (e->op == DOP_ASSIGN && e->rhs->kind == DE_ASSIGN && L->nsubst < 16) {
		inner = assign_to_temp(L, e->rhs);
		L->subst[L->nsubst] = e->rhs;
		L->subst_name[L->nsubst++] = inner;
	}
	d_lower_expr(L, &sb, e);
	if (inner)
		free(L->subst_name[--L->nsubst]);
	char *name = xasprintf("__d_mt%d", ++L->temps);
	d_line(L, "%s = %s", name, sb.buf);
	strbuf_release(&sb);
	return name;
}

/* an action or an expression statement */
static void lower_expr_stmt(struct d_lower *L, const struct d_expr *e)
{
	struct strbuf sb;

	if (e->kind == DE_ASSIGN && e->op == DOP_ASSIGN && e->rhs->kind == DE_ASSIGN && L->nsubst < 16 &&
	    !is_sou(e->lhs->type) && !(L->nsubst && L->subst[L->nsubst - 1] == e->rhs)) {
		char *t = assign_to_temp(L, e->rhs);
		L->subst[L->nsubst] = e->rhs;
		L->subst_name[L->nsubst++] = t;
		lower_expr_stmt(L, e);
		free(L->subst_name[--L->nsubst]);
		return;
	}

	if (e->kind == DE_ASSIGN && (e->lhs->kind == DE_AGG ||
				     (e->lhs->kind == DE_INDEX && e->lhs->lhs->kind == DE_AGG))) {
		d_lower_aggregate(L, e);
		return;
	}
	if (e->kind == DE_ASSIGN && e->op == DOP_ASSIGN && is_sou(e->lhs->type) && is_sou(e->rhs->type)) {
		/* a struct assigned: member by member */
		strvec paths = { 0 };
		leaf_paths(e->lhs->type, "", &paths);
		for (int i = 0; i < paths.len; i++) {
			struct strbuf l, r;
			strbuf_init(&l);
			strbuf_init(&r);
			if (lower_var_member(L, &l, e->lhs, paths.items[i]) && lower_var_member(L, &r, e->rhs, paths.items[i]))
				d_line(L, "%s = %s", l.buf, r.buf);
			strbuf_release(&l);
			strbuf_release(&r);
		}
		return;
	}
	if (e->kind == DE_CALL && hoist_action(L, e))
		return;
	if (e->kind == DE_CALL) {
		const char *n = e->name;
		if (!strcmp(n, "trace"))
			return d_lower_trace(L, e->args.items[0]);
		if (!strcmp(n, "printf"))
			return d_lower_printf(L, e);
		if (!strcmp(n, "printa"))
			return d_lower_printa(L, e);
		if (!strcmp(n, "clear") || !strcmp(n, "trunc") || !strcmp(n, "normalize") ||
		    !strcmp(n, "denormalize"))
			return d_lower_aggop(L, e);
		if (!strcmp(n, "exit")) {
			strbuf_init(&sb);
			d_lower_expr(L, &sb, e->args.items[0]);
			d_line(L, "exit_status(%s); __d_exiting = 1; exit()", sb.buf);
			strbuf_release(&sb);
			return;
		}
		if (!strcmp(n, "stack")) {
			d_line(L, "print_backtrace()");
			return;
		}
		if (!strcmp(n, "ustack") || !strcmp(n, "jstack")) {
			/* DTrace's: a blank line, then a line a frame, at most
			 * nframes (a constant; ustack() all) */
			const struct d_expr *nf = e->args.len ? e->args.items[0] : NULL;
			const struct d_opts *o = L->sema->opts;
			long long frames = nf && nf->kind == DE_INT ? (long long)nf->num : o->ustackframes;
			if (o->maxframes > 0 && (frames <= 0 || frames > o->maxframes))
				frames = o->maxframes;
			d_line(L, "printf(\"\\n\")");
			d_line(L, "_d_print_ustack(%lld)", frames);
			return;
		}
		if (!strcmp(n, "commit") || !strcmp(n, "discard")) {
			L->spec_used = true;
			strbuf_init(&sb);
			d_lower_expr(L, &sb, e->args.items[0]);
			d_line(L, "__sid = %s", sb.buf);
			if (!strcmp(n, "commit"))
				d_line(L, "if (__sid in __d_spec_buf) printf(\"%%s\", __d_spec_buf[__sid])");
			d_line(L, "delete __d_spec_buf[__sid]; delete __d_spec_busy[__sid]");
			strbuf_release(&sb);
			return;
		}
		if (!strcmp(n, "speculate"))
			return;   /* lower_clause sends the clause's output to the buffer */
		if (!strcmp(n, "system")) {
			d_lower_system(L, e);
			return;
		}
		if (!strcmp(n, "setopt") || !strcmp(n, "ftruncate") || !strcmp(n, "chill") ||
		    !strcmp(n, "breakpoint") || !strcmp(n, "panic") || !strcmp(n, "stop") ||
		    !strcmp(n, "raise") || !strcmp(n, "print") ||
		    !strcmp(n, "tracemem") || !strcmp(n, "pcap"))
			return;   /* not yet lowered */
	}
	strbuf_init(&sb);
	d_lower_expr(L, &sb, e);
	/* a subroutine's value unused: still made (copyinstr() faults), where
	 * stap would leave out the call of a function with no side effect */
	if (e->kind == DE_CALL && (d_is_string(e->type) || d_is_int(e->type))) {
		d_line(L, d_is_string(e->type) ? "__d_void = strlen(%s);" : "__d_void = %s;", sb.buf);
		strbuf_release(&sb);
		return;
	}
	/* a value alone is no statement in cstap's language */
	if (e->kind == DE_ASSIGN || e->kind == DE_CALL ||
	    ((e->kind == DE_UNARY || e->kind == DE_POSTFIX) &&
	     (e->op == DOP_PREINC || e->op == DOP_PREDEC || e->op == DOP_POSTINC || e->op == DOP_POSTDEC)))
		d_line(L, "%s;", sb.buf);
	else
		d_line(L, "__d_void = %s;", sb.buf);
	strbuf_release(&sb);
}

/* a statement in its own scope of fault guards (the branch of an if) */
static void lower_branch(struct d_lower *L, const struct d_stmt *st)
{
	int g = L->guards;

	lower_stmt(L, st);
	d_mem_unguard(L, g);
}

static void lower_stmt(struct d_lower *L, const struct d_stmt *st)
{
	struct strbuf sb;
	int m0 = L->memops;

	switch (st->kind) {
	case DS_EXPR:
		if (st->expr->kind == DE_BINARY && st->expr->op == DOP_COMMA) {
			struct d_stmt a = *st, b = *st;
			a.expr = st->expr->lhs;
			b.expr = st->expr->rhs;
			lower_stmt(L, &a);
			lower_stmt(L, &b);
			return;
		}
		lower_expr_stmt(L, st->expr);
		d_mem_guard(L, m0);   /* what follows runs when it did not fault */
		return;
	case DS_EMPTY:
		return;
	case DS_IF:
		strbuf_init(&sb);
		d_lower_expr(L, &sb, st->expr);
		d_line(L, "if (%s) {", sb.buf);
		strbuf_release(&sb);
		L->indent++;
		lower_branch(L, st->then);
		L->indent--;
		if (st->els) {
			d_line(L, "} else {");
			L->indent++;
			lower_branch(L, st->els);
			L->indent--;
		}
		d_line(L, "}");
		d_mem_guard(L, m0);
		return;
	case DS_BLOCK:
		for (int i = 0; i < st->stmts.len; i++)
			lower_stmt(L, st->stmts.items[i]);
		return;
	}
}

/* ---- clauses and probes ------------------------------------------------------------ */

/* does the clause print a record line? Not when all it does is aggregate:
 * DTrace's default action (the probe's line) is for a clause that records
 * nothing at all, or records data */
static bool stmt_records(const struct d_stmt *st, bool *acts)
{
	if (st->kind == DS_BLOCK || st->kind == DS_IF) {
		bool r = false;
		for (int i = 0; i < st->stmts.len; i++)
			r |= stmt_records(st->stmts.items[i], acts);
		if (st->then)
			r |= stmt_records(st->then, acts);
		if (st->els)
			r |= stmt_records(st->els, acts);
		return r;
	}
	if (st->kind != DS_EXPR)
		return false;
	const struct d_expr *e = st->expr;
	if (e->kind == DE_ASSIGN && (e->lhs->kind == DE_AGG || (e->lhs->kind == DE_INDEX && e->lhs->lhs->kind == DE_AGG))) {
		*acts = true;
		return false;
	}
	if (e->kind == DE_CALL) {
		const char *n = e->name;
		if (!strcmp(n, "clear") || !strcmp(n, "trunc") || !strcmp(n, "normalize") ||
		    !strcmp(n, "denormalize") || !strcmp(n, "setopt") || !strcmp(n, "printa") ||
		    !strcmp(n, "speculate") || !strcmp(n, "commit") || !strcmp(n, "discard")) {
			*acts = true;
			return !strcmp(n, "printa");
		}
		if (!strcmp(n, "trace") || !strcmp(n, "printf") || !strcmp(n, "exit") || !strcmp(n, "stack") ||
		    !strcmp(n, "ustack") || !strcmp(n, "tracemem") || !strcmp(n, "print") || !strcmp(n, "system")) {
			*acts = true;
			return true;
		}
	}
	return false;
}

static bool clause_records(const struct d_clause *c)
{
	bool acts = false, rec = false, stmts = false;

	for (int i = 0; i < c->body.len; i++) {
		rec |= stmt_records(c->body.items[i], &acts);
		stmts |= c->body.items[i]->kind != DS_EMPTY;
	}
	return rec || !stmts;
}

/* a recorded item of size bytes at the end of a record of *off bytes,
 * aligned to its size (8 at most) */
static void record_item(int64_t *off, int64_t size)
{
	int64_t align = size >= 8 ? 8 : size >= 4 ? 4 : size >= 2 ? 2 : 1;

	*off = (*off + align - 1) / align * align + size;
}

/* the bytes of a value's record: its type's size (a string's strsize) */
static int64_t value_size(const struct d_lower *L, const struct d_expr *e)
{
	const struct d_type *t = e->type ? d_type_resolve(e->type) : NULL;

	if (d_is_string(e->type))
		return L->sema->opts->strsize;
	return t && t->size > 0 ? t->size : 8;
}

/* the bytes st's actions add to its clause's record */
static void stmt_record_size(const struct d_lower *L, const struct d_stmt *st, int64_t *off)
{
	if (st->kind == DS_BLOCK || st->kind == DS_IF) {
		for (int i = 0; i < st->stmts.len; i++)
			stmt_record_size(L, st->stmts.items[i], off);
		if (st->then)
			stmt_record_size(L, st->then, off);
		if (st->els)
			stmt_record_size(L, st->els, off);
		return;
	}
	if (st->kind != DS_EXPR || st->expr->kind != DE_CALL)
		return;
	const struct d_expr *e = st->expr;
	if (!strcmp(e->name, "trace") && e->args.len)
		record_item(off, value_size(L, e->args.items[0]));
	else if (!strcmp(e->name, "printf"))
		for (int i = 1; i < e->args.len; i++)
			record_item(off, value_size(L, e->args.items[i]));
	else if (!strcmp(e->name, "exit"))
		record_item(off, 4);
	else if (!strcmp(e->name, "stack") || !strcmp(e->name, "ustack") || !strcmp(e->name, "tracemem") ||
		 !strcmp(e->name, "print") || !strcmp(e->name, "system") || !strcmp(e->name, "printa"))
		record_item(off, 8);
}

/* the bytes a firing of c puts in its CPU's buffer: DTrace's record, a
 * 4-byte probe ID then the actions' data; 0 when it records nothing */
static int64_t clause_record_size(const struct d_lower *L, const struct d_clause *c)
{
	int64_t off = 4;

	if (!clause_records(c))
		return 0;
	for (int i = 0; i < c->body.len; i++)
		stmt_record_size(L, c->body.items[i], &off);
	return off;
}

/* the record line's start: the header once, then CPU, ID, FUNCTION:NAME
 * (FUNCTION:NAME alone when _DTRACE_TESTING is set, as the original's
 * test harness runs it) */
static void record_start(struct d_lower *L)
{
	bool testing = getenv("_DTRACE_TESTING") != NULL;

	d_line(L, "if (!__d_hdr) { __d_hdr = 1; printf(\"%s\\n\") }",
	       testing ? "                   FUNCTION:NAME" : "CPU     ID                    FUNCTION:NAME");
	struct strbuf label = STRBUF_INIT, id = STRBUF_INIT;
	d_provider_label(L, &label);   /* the probe's, when the clause has many */
	if (!d_provider_builtin(L, &id, "id", NULL))
		strbuf_addf(&id, "%d", L->clause->index + 1);
	if (testing)
		d_line(L, "printf(\"%%32s \", %s)", label.buf);
	else
		d_line(L, "printf(\"%%3d %%6d %%32s \", cpu(), %s, %s)", id.buf, label.buf);
	strbuf_release(&label);
	strbuf_release(&id);
}

/* speculate(id)'s argument in the clause, or NULL */
static const struct d_expr *speculated(const struct d_clause *c)
{
	for (int i = 0; i < c->body.len; i++) {
		const struct d_stmt *st = c->body.items[i];
		if (st->kind == DS_EXPR && st->expr->kind == DE_CALL && !strcmp(st->expr->name, "speculate") &&
		    st->expr->args.len == 1)
			return st->expr->args.items[0];
	}
	return NULL;
}

/* body's text into out, its printf's output appended to the string
 * variable to instead (the header's printf aside: printed once, as is) */
static void redirect_output(struct strbuf *out, const char *body, const char *to)
{
	for (const char *p = body; *p; ) {
		const char *q = strstr(p, "printf(");
		if (!q || (q > body && (q[-1] == 's' || q[-1] == '_')) ||
		    (q - body >= 13 && !strncmp(q - 13, "__d_hdr = 1; ", 13))) {
			q = q ? q + 7 : p + strlen(p);
			strbuf_add(out, p, (size_t)(q - p));
			p = q;
			continue;
		}
		strbuf_add(out, p, (size_t)(q - p));
		strbuf_addf(out, "%s .= sprintf(", to);
		p = q + 7;
	}
}

static void lower_clause(struct d_lower *L, const struct d_clause *c)
{
	struct strbuf sb;

	int m_start = L->memops;
	L->clause = c;
	L->desc = c->descs.items[0];
	L->records = !L->sema->opts->quiet && clause_records(c);
	strbuf_init(&sb);
	if (!L->in_end)   /* after exit() no clause runs, not even the rest of this probe's (END's aside) */
		strbuf_addstr(&sb, "!__d_exiting");
	/* -xcpu=N: probes fire on CPU N alone (BEGIN, END and ERROR are dtrace's own) */
	if (L->sema->opts->cpu >= 0 && L->site && strcmp(L->site->point, "begin") &&
	    strcmp(L->site->point, "end") && strcmp(L->site->point, "error"))
		strbuf_addf(&sb, "%scpu() == %lld", sb.len ? " && " : "", (long long)L->sema->opts->cpu);
	if (L->site && L->site_clause) {   /* which of the site's probes fired */
		struct strbuf g = STRBUF_INIT;
		if (d_site_guard(L->site, L->site_clause, &g))
			strbuf_addf(&sb, "%s(%s)", sb.len ? " && " : "", g.buf);
		strbuf_release(&g);
	}
	if (c->pred) {
		strbuf_addstr(&sb, sb.len ? " && (" : "(");
		d_lower_expr(L, &sb, c->pred);
		strbuf_addch(&sb, ')');
	}
	if (sb.len)
		d_line(L, "if (%s) {", sb.buf);
	else
		d_line(L, "{");
	strbuf_release(&sb);
	L->indent++;
	/* bufpolicy=fill: a record that no longer fits its CPU's buffer ends
	 * the tracing (DTrace's END still runs) */
	int64_t rsize = L->sema->opts->fill && !L->in_end ? clause_record_size(L, c) : 0;
	if (rsize) {
		L->fill_used = true;
		d_line(L, "if (__d_fill[cpu()] + %lld > %lld) { __d_exiting = 1; exit(); next }", (long long)rsize,
		       (long long)(L->sema->opts->bufsize ? L->sema->opts->bufsize : 4 << 20));
		d_line(L, "__d_fill[cpu()] += %lld", (long long)rsize);
	}
	d_mem_clause_start(L, c);   /* its scratch space */
	L->clause_memops = m_start;
	int guards = L->guards;
	/* a speculating clause's output goes to its speculation's buffer */
	const struct d_expr *spec = speculated(c);
	struct strbuf saved = L->probes;
	/* bufpolicy=ring: to the ring of records, printed at exit */
	int64_t ring = !spec && L->sema->opts->ring && L->sema->opts->bufsize ? clause_record_size(L, c) : 0;
	if (ring) {
		d_need(L, H_RING);
		saved = L->probes;
		strbuf_init(&L->probes);
	}
	if (spec) {
		L->spec_used = true;
		strbuf_init(&sb);
		d_lower_expr(L, &sb, spec);
		d_line(L, "__sid = %s", sb.buf);
		strbuf_release(&sb);
		saved = L->probes;
		strbuf_init(&L->probes);
	}
	if (L->records)
		record_start(L);
	for (int i = 0; i < c->body.len; i++)
		lower_stmt(L, c->body.items[i]);
	if (L->records)
		d_line(L, "printf(\"\\n\")");
	d_mem_unguard(L, guards);
	if (spec) {
		struct strbuf body = L->probes;
		L->probes = saved;
		d_line(L, "if (__sid in __d_spec_busy) {");
		redirect_output(&L->probes, body.buf, "__d_spec_buf[__sid]");
		d_line(L, "}");
		strbuf_release(&body);
	} else if (ring) {
		struct strbuf body = L->probes;
		L->probes = saved;
		d_line(L, "__d_rec = \"\"");
		redirect_output(&L->probes, body.buf, "__d_rec");
		d_line(L, "__d_ring_push(__d_rec, %lld, %lld)", (long long)ring, (long long)L->sema->opts->bufsize);
		strbuf_release(&body);
	}
	d_mem_clause_end(L, c);   /* its fault reported */
	L->indent--;
	d_line(L, "}");
}

/* text into sb at pos */
static void insert_text(struct strbuf *sb, size_t pos, const char *text)
{
	struct strbuf out;

	strbuf_init(&out);
	strbuf_add(&out, sb->buf, pos);
	strbuf_addstr(&out, text);
	strbuf_addstr(&out, sb->buf + pos);
	strbuf_release(sb);
	*sb = out;
}

/* the clauses of site s, each under its guard and predicate */
static void lower_site_clauses(struct d_lower *L, const struct d_site *s)
{
	for (int j = 0; j < s->clauses.len; j++) {
		L->site_clause = s->clauses.items[j];
		L->site_probes = &L->site_clause->probes;
		lower_clause(L, L->site_clause->clause);
	}
}

/* ERROR's clauses as the function __d_ERROR(), which a clause that
 * faulted calls (d_lower_mem.c): they run at the fault as in DTrace */
static void lower_error_fn(struct d_lower *L, const struct d_site *s)
{
	struct strbuf saved = L->probes;
	int indent = L->indent;

	strbuf_init(&L->probes);
	L->indent = 1;
	L->in_errfn = true;
	L->site = s;
	lower_site_clauses(L, s);
	L->in_errfn = false;
	L->indent = indent;
	strbuf_addf(&L->funcs, "function __d_ERROR() {\n%s}\n", L->probes.buf);
	strbuf_release(&L->probes);
	L->probes = saved;
	L->error_fn = true;
}

/* one probe per site (d_provider.h): the clauses of every DTrace probe
 * firing there, in program order, each under its guard and predicate;
 * this-> variables are locals of the probe, zero at its start (stap's are) */
static void lower_probes(struct d_lower *L)
{
	d_sitevec sites = d_provider_sites(L->sema);

	for (int i = 0; i < sites.len; i++) {
		const struct d_site *s = sites.items[i];
		d_line(L, "probe %s {", s->point);
		size_t head = L->probes.len;
		L->vts_used = false;
		L->indent++;
		L->site = s;
		L->in_end = !strcmp(s->point, "end");
		lower_site_clauses(L, s);
		L->site = NULL;
		L->site_clause = NULL;
		L->site_probes = NULL;
		if (L->vts_used)   /* vtimestamp: the time the probe fired (DTrace's leaves out its own) */
			insert_text(&L->probes, head, "    __d_vts = gettimeofday_ns()\n");
		L->indent--;
		d_line(L, "}");
		if (!strcmp(s->point, "error"))
			lower_error_fn(L, s);
	}
}

/* how many elements each dynamic variable's map holds: DTrace's
 * dynvarsize is one pool for them all, a map here is one of each; an
 * element (keys, value, the map's own) taken as 64 bytes */
static int dynvar_entries(struct d_lower *L)
{
	int64_t n = L->sema->opts->dynvarsize / 64;

	return n < 2048 ? 2048 : n > (1 << 20) ? 1 << 20 : (int)n;
}

/* the globals: one per D variable (self-> ones keyed by thread) */
static void lower_globals(struct d_lower *L)
{
	struct d_sema *S = L->sema;

	strbuf_addstr(&L->globals, "global __d_hdr, __d_exiting, __d_void\n");
	if (L->fill_used)
		strbuf_addstr(&L->globals, "global __d_fill\n");
	if (L->spec_used)   /* the speculation buffers, typed before anything runs */
		strbuf_addstr(&L->globals, "global __d_spec_buf, __d_spec_busy\n"
			      "probe begin(-1) { __d_spec_buf[0] = \"\"; __d_spec_busy[0] = 1; "
			      "delete __d_spec_buf; delete __d_spec_busy }\n");
	for (int i = 0; i < S->vars.len; i++) {
		struct d_var *v = S->vars.items[i];
		if (v->kind == DV_GLOBAL || v->kind == DV_SELF) {
			strvec paths = { 0 };
			leaf_paths(v->type, "", &paths);   /* a struct: a global a member */
			for (int j = 0; j < paths.len; j++) {
				strbuf_addstr(&L->globals, "global ");
				var_ref(L, &L->globals, v);
				strbuf_addstr(&L->globals, paths.items[j]);
				if (v->kind == DV_SELF || v->nkeys > 0)
					strbuf_addf(&L->globals, "[%d]", dynvar_entries(L));
				strbuf_addch(&L->globals, '\n');
			}
		}
	}
	d_lower_agg_globals(L);
	d_mem_globals(L);
}

char *d_lower(struct d_sema *sema)
{
	struct d_lower L = { .sema = sema };
	struct strbuf all;

	strbuf_init(&L.globals);
	strbuf_init(&L.funcs);
	strbuf_init(&L.probes);
	lower_probes(&L);
	/* after END's clauses: the aggregations not printed yet */
	d_line(&L, "probe end {");
	L.indent++;
	if (L.helpers & (1ull << H_RING))   /* the records the ring kept */
		d_line(&L, "__d_ring_print()");
	d_lower_agg_exit(&L);
	L.indent--;
	d_line(&L, "}");
	lower_globals(&L);
	strbuf_init(&all);
	strbuf_addf(&all, "%s%s%s", L.globals.buf, L.funcs.buf, L.probes.buf);
	strbuf_release(&L.globals);
	strbuf_release(&L.funcs);
	strbuf_release(&L.probes);
	return strbuf_detach(&all);
}
