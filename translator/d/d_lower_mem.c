/* d_lower_mem.c - D's memory: pointers to kernel memory and to the clause's
 * scratch space (alloca()), and the faults reading them makes.
 *
 * The scratch space is the global __d_mem, one byte a key; its addresses
 * are offsets from 8 (DTrace's alloca() gives 8 first) up to the end of
 * the last allocation (__d_top; past it: a fault), so a pointer that falls
 * there is scratch and any other is the kernel's (read with kernel_long()
 * and its kin in a kernel probe). BEGIN, END and ERROR, which stapbpf runs
 * in user space, cannot read the kernel's: an address in its half reads
 * as 0 there, any other faults.
 * A clause that calls alloca() starts with an empty space; what alloca()
 * gives is zeroed.
 *
 * A fault (a bad address, no scratch left, an index out of a D array's
 * bounds: DTRACEFLT_BADADDR, _NOSCRATCH, and 10 and 11 as DTrace's
 * "invalid size" and "index out of bounds") sets __d_flt and its address;
 * the statements after the one that faulted are skipped (each is under
 * "if (!__d_flt)"), then the clause reports it as DTrace does: the message
 * on stderr and the ERROR probe's clauses (the function __d_ERROR, its
 * arg1..arg5 the globals __d_ea1..__d_ea5).
 */
#include <stdlib.h>
#include <string.h>

#include "d/d_btf.h"
#include "d/d_lower.h"
#include "d/d_types.h"

/* a kernel symbol's address (/proc/kallsyms), 0 when it lists none */
static uint64_t ksym_addr(const char *name)
{
	uint64_t a;

	return d_kernel_symbol_addr(name, &a) ? a : 0;
}

/* the memory helpers written so far (bits) */
enum { M_BASE = 1, M_USER = 2, M_KERN = 4, M_INDEX = 8, M_COPYIN = 16, M_KLOAD = 32 /* 4 bits */ };

static bool user_probe(const struct d_lower *L)
{
	const char *p = L->site ? L->site->point : "begin";

	return L->in_errfn || !strncmp(p, "begin", 5) || !strncmp(p, "end", 3) ||
	       !strncmp(p, "error", 5) || !strncmp(p, "procfs", 6);
}

/* the flavour of the helpers that may read kernel memory: u or k */
static char flavour(const struct d_lower *L)
{
	return user_probe(L) ? 'u' : 'k';
}

static int64_t scratch_size(const struct d_lower *L)
{
	int64_t n = L->sema->opts->scratchsize;

	return n > 0 ? n : 256;
}

/* the helpers every memory access needs, once */
static void need_base(struct d_lower *L)
{
	if (L->mem_helpers & M_BASE)
		return;
	L->mem_helpers |= M_BASE;
	strbuf_addf(&L->funcs,
		/* is [a, a + n) in the scratch space? */
		"function __d_scr:long(a:long, n:long) { return a >= 8 && n >= 0 && a + n <= __d_top }\n"
		/* the first fault of a clause: its kind (DTRACEFLT_*) and address */
		"function __d_fault:long(k:long, a:long) { if (!__d_flt) { __d_flt = k; __d_flt_addr = a }; return 0 }\n"
		/* p of p->m: NULL faults (at 0, not at the member) */
		"function __d_nn:long(p:long) { if (!p) __d_fault(1, 0); return p }\n"
		/* n bytes of scratch, little-endian */
		"function __d_lds:long(a:long, n:long) {\n"
		"    v = __d_mem[a]\n"
		"    if (n >= 2) v |= __d_mem[a + 1] << 8\n"
		"    if (n >= 4) { v |= __d_mem[a + 2] << 16; v |= __d_mem[a + 3] << 24 }\n"
		"    if (n >= 8) { v |= __d_mem[a + 4] << 32; v |= __d_mem[a + 5] << 40\n"
		"                  v |= __d_mem[a + 6] << 48; v |= __d_mem[a + 7] << 56 }\n"
		"    return v\n"
		"}\n"
		"function __d_st:long(a:long, n:long, v:long) {\n"
		"    if (!__d_scr(a, n)) return __d_fault(1, a)\n"
		"    __d_mem[a] = v & 0xff\n"
		"    if (n >= 2) __d_mem[a + 1] = (v >> 8) & 0xff\n"
		"    if (n >= 4) { __d_mem[a + 2] = (v >> 16) & 0xff; __d_mem[a + 3] = (v >> 24) & 0xff }\n"
		"    if (n >= 8) { __d_mem[a + 4] = (v >> 32) & 0xff; __d_mem[a + 5] = (v >> 40) & 0xff\n"
		"                  __d_mem[a + 6] = (v >> 48) & 0xff; __d_mem[a + 7] = (v >> 56) & 0xff }\n"
		"    return v\n"
		"}\n"
		/* alloca(n): 8-byte aligned, from the clause's space, zeroed */
		"function __d_alloca:long(n:long) {\n"
		"    a = __d_sp\n"
		"    if (n < 0 || a + n > %lld) return __d_fault(5, 0)\n"
		"    __d_sp = (a + n + 7) & -8; __d_top = a + n\n"
		"    for (i = 0; i < %lld; i++) { if (i >= n) break; delete __d_mem[a + i] }\n"
		"    return a\n"
		"}\n"
		/* a string in scratch: up to its NUL, at most strsize bytes (and
		 * 63, the most a string of BPF's holds: the verifier walks each) */
		"function __d_strs:string(a:long) {\n"
		"    s = \"\"\n"
		"    for (i = 0; i < %lld; i++) {\n"
		"        c = __d_scr(a + i, 1) ? __d_mem[a + i] : 0\n"
		"        if (!c) break\n"
		"        s .= sprintf(\"%%c\", c)\n"
		"    }\n"
		"    return s\n"
		"}\n"
		/* *(string *)a = s: its bytes and a NUL */
		"function __d_ststr:string(a:long, s:string) {\n"
		"    n = strlen(s)\n"
		"    for (i = 0; i <= n && !__d_flt; i++) __d_st(a + i, 1, i < n ? stringat(s, i) : 0)\n"
		"    return s\n"
		"}\n"
		/* bcopy() of a D string: its bytes, NULs past its end */
		"function __d_bcopy_s:long(s:string, d:long, n:long) {\n"
		"    if (n < 0) return __d_fault(10, n)\n"
		"    l = strlen(s)\n"
		"    for (i = 0; i < %lld; i++) { if (i >= n || __d_flt) break; __d_st(d + i, 1, i < l ? stringat(s, i) : 0) }\n"
		"    return 0\n"
		"}\n",
		(long long)(8 + scratch_size(L)), (long long)scratch_size(L),
		(long long)(L->sema->opts->strsize < 63 ? L->sema->opts->strsize : 63),
		(long long)scratch_size(L));
}

/* the helpers that read memory anywhere: user probes fault on what is not
 * scratch, kernel probes read the kernel's */
static void need_reader(struct d_lower *L)
{
	need_base(L);
	bool user = user_probe(L);
	unsigned bit = user ? M_USER : M_KERN;
	if (L->mem_helpers & bit)
		return;
	L->mem_helpers |= bit;
	char f = user ? 'u' : 'k';
	if (user)
		strbuf_addstr(&L->funcs,
			"function __d_ldu:long(a:long, n:long) {\n"
			"    if (__d_scr(a, n)) return __d_lds(a, n)\n"
			"    if (a < 0) return 0\n"
			"    return __d_fault(1, a)\n"
			"}\n"
			"function __d_stru:string(a:long) {\n"
			"    if (__d_scr(a, 1)) return __d_strs(a)\n"
			"    if (a >= 0) __d_fault(1, a)\n"
			"    return \"\"\n"
			"}\n");
	else
		strbuf_addstr(&L->funcs,
			"function __d_ldk:long(a:long, n:long) {\n"
			"    if (__d_scr(a, n)) return __d_lds(a, n)\n"
			"    try {\n"
			"        if (n == 1) return kernel_char(a) & 0xff\n"
			"        if (n == 2) return kernel_short(a) & 0xffff\n"
			"        if (n == 4) return kernel_int(a) & 0xffffffff\n"
			"        return kernel_long(a)\n"
			"    } catch { return __d_fault(1, a) }\n"
			"}\n"
			/* (not scratch's: the verifier gives up on its loop there) */
			"function __d_strk:string(a:long) {\n"
			"    if (__d_scr(a, 1)) return \"\"\n"
			"    try { return kernel_string(a) } catch { __d_fault(1, a); return \"\" }\n"
			"}\n");
	strbuf_addf(&L->funcs,
		"function __d_bcopy%c:long(s:long, d:long, n:long) {\n"
		"    if (n < 0) return __d_fault(10, n)\n"
		"    for (i = 0; i < %lld; i++) { if (i >= n || __d_flt) break; __d_st(d + i, 1, __d_ld%c(s + i, 1)) }\n"
		"    return 0\n"
		"}\n", f, (long long)scratch_size(L), f);
}

/* __d_ldkN(a): N bytes (1, 2, 4, 8) in a kernel probe, scratch's or the
 * kernel's, each part straight-line code */
static void need_kload(struct d_lower *L, int64_t n)
{
	static const char *const reader[] = { [1] = "kernel_char(a) & 0xff", [2] = "kernel_short(a) & 0xffff",
					      [4] = "kernel_int(a) & 0xffffffff", [8] = "kernel_long(a)" };
	unsigned bit = M_KLOAD << (n == 1 ? 0 : n == 2 ? 1 : n == 4 ? 2 : 3);

	if (L->mem_helpers & bit)
		return;
	L->mem_helpers |= bit;
	strbuf_addf(&L->funcs, "function __d_ldk%lld:long(a:long) {\n"
		    "    if (a >= 8 && a + %lld <= __d_top) return __d_lds(a, %lld)\n"
		    "    try { return %s } catch { return __d_fault(1, a) }\n"
		    "}\n", (long long)n, (long long)n, (long long)n, reader[n == 1 || n == 2 || n == 4 ? n : 8]);
}

static struct d_type *res(const struct d_type *t)
{
	return d_type_resolve((struct d_type *)t);
}

static bool is_ptr(const struct d_type *t)
{
	const struct d_type *r = res(t);

	return r && r->kind == DT_PTR;
}

static bool is_array(const struct d_type *t)
{
	const struct d_type *r = res(t);

	return r && r->kind == DT_ARRAY;
}

/* the size of what a pointer or array type points at (void: 1) */
static int64_t elem_size(const struct d_type *t)
{
	const struct d_type *r = res(t);
	const struct d_type *el = r ? res(r->ref) : NULL;

	return el && el->size > 0 ? el->size : 1;
}

/* a D variable's array (an associative array of cstap's: no memory) */
static bool d_var_array(const struct d_expr *e)
{
	if (!is_array(e->type))
		return false;
	if (e->kind == DE_IDENT)
		return !strchr(e->name, '`');
	return e->kind == DE_ARROW && e->lhs->kind == DE_IDENT &&
	       (!strcmp(e->lhs->name, "self") || !strcmp(e->lhs->name, "this"));
}

/* a pointer that is no address here: a string cast to one (D strings are
 * values, not memory), a translator's output (the provider reads it), a
 * D variable's array */
static bool no_address(const struct d_expr *e)
{
	for (int depth = 0; e && depth < 16; depth++) {
		if (e->xlator || e->kind == DE_XLATE || d_is_string(e->type) || d_var_array(e))
			return true;
		if (e->kind == DE_IDENT && !strcmp(e->name, "curcpu"))   /* a cpuinfo_t of D's, no memory */
			return true;
		if (e->kind == DE_CAST)
			e = e->lhs;
		else if (e->kind == DE_IDENT && e->decl && e->decl->kind == DD_INLINE)
			e = e->decl->init;
		else
			return false;
	}
	return false;
}

bool d_mem_place(const struct d_expr *e)
{
	switch (e->kind) {
	case DE_IDENT:   /* `sym: a kernel variable, where kallsyms says */
		return strchr(e->name, '`') && !e->decl && ksym_addr(e->name);
	case DE_UNARY:
		return e->op == DOP_DEREF && (is_ptr(e->lhs->type) || is_array(e->lhs->type)) &&
		       !no_address(e->lhs);
	case DE_INDEX:
		if (e->lhs->kind == DE_IDENT && !strcmp(e->lhs->name, "args"))
			return false;
		if (e->args.len != 1)
			return false;
		return (is_ptr(e->lhs->type) && !no_address(e->lhs)) || (is_array(e->lhs->type) && d_mem_place(e->lhs));
	case DE_ARROW:
		if (e->lhs->kind == DE_IDENT && (!strcmp(e->lhs->name, "self") || !strcmp(e->lhs->name, "this")))
			return false;
		return is_ptr(e->lhs->type) && !no_address(e->lhs);
	case DE_MEMBER:
		return d_mem_place(e->lhs);
	default:
		return false;
	}
}

void d_mem_addr(struct d_lower *L, struct strbuf *out, const struct d_expr *e)
{
	int64_t off = 0;

	switch (e->kind) {
	case DE_IDENT:
		strbuf_addf(out, "%lld", (long long)ksym_addr(e->name));
		return;
	case DE_UNARY:
		d_lower_expr(L, out, e->lhs);
		return;
	case DE_INDEX:
		strbuf_addch(out, '(');
		if (is_ptr(e->lhs->type))
			d_lower_expr(L, out, e->lhs);
		else
			d_mem_addr(L, out, e->lhs);
		strbuf_addstr(out, " + (");
		d_lower_expr(L, out, e->args.items[0]);
		strbuf_addf(out, ") * %lld)", (long long)elem_size(e->lhs->type));
		return;
	case DE_ARROW: {
		const struct d_type *r = res(e->lhs->type);
		if (r && r->ref)
			d_type_member(r->ref, e->name, &off);
		need_base(L);   /* NULL->m faults at NULL, as DTrace reports it */
		strbuf_addstr(out, "(__d_nn(");
		d_lower_expr(L, out, e->lhs);
		strbuf_addf(out, ") + %lld)", (long long)off);
		return;
	}
	case DE_MEMBER:
		d_type_member(e->lhs->type, e->name, &off);
		strbuf_addch(out, '(');
		d_mem_addr(L, out, e->lhs);
		strbuf_addf(out, " + %lld)", (long long)off);
		return;
	default:
		strbuf_addstr(out, "0");
		return;
	}
}

/* a char array in memory is a string where D reads one */
static bool char_array(const struct d_type *t)
{
	const struct d_type *r = res(t);

	return r && r->kind == DT_ARRAY && d_is_string(r);
}

/* does the place's address come from a kernel object (curthread, `sym)?
 * In a user-space probe there is none to read: its data reads as 0 */
static bool kernel_rooted(const struct d_expr *e)
{
	for (int depth = 0; e && depth < 64; depth++) {
		switch (e->kind) {
		case DE_IDENT:
			return strchr(e->name, '`') || !strcmp(e->name, "curthread");
		case DE_ARROW: case DE_MEMBER: case DE_INDEX: case DE_CAST: case DE_UNARY:
			e = e->lhs;
			break;
		case DE_BINARY:   /* p + i: the pointer's */
			e = d_is_ptr(e->lhs->type) ? e->lhs : e->rhs;
			break;
		default:
			return false;
		}
	}
	return false;
}

void d_mem_read(struct d_lower *L, struct strbuf *out, const struct d_expr *e)
{
	const struct d_type *t = res(e->type);
	struct strbuf a = STRBUF_INIT;

	if (user_probe(L) && kernel_rooted(e)) {
		strbuf_addstr(out, t && (t->kind == DT_STRING || char_array(t)) ? "\"\"" : "0");
		return;
	}

	d_mem_addr(L, &a, e);
	if (!t || t->kind == DT_STRUCT || t->kind == DT_UNION || (t->kind == DT_ARRAY && !char_array(t))) {
		strbuf_addstr(out, a.buf);   /* an aggregate's value is where it is */
	} else if (t->kind == DT_STRING || char_array(t)) {
		need_reader(L);
		L->memops++;
		strbuf_addf(out, "__d_str%c(%s)", flavour(L), a.buf);
	} else {
		need_reader(L);
		L->memops++;
		const char *close = "";
		int64_t n = t->size > 0 && t->size <= 8 ? t->size : 8;
		if (t->is_signed && n < 8) {   /* sign-extended */
			strbuf_addf(out, "(((");
			close = xasprintf(") << %lld) >> %lld)", (long long)(64 - 8 * n), (long long)(64 - 8 * n));
		}
		if (user_probe(L)) {
			strbuf_addf(out, "__d_ldu(%s, %lld)%s", a.buf, (long long)n, close);
		} else {   /* one helper a size: fewer paths for the verifier to walk */
			need_kload(L, n);
			strbuf_addf(out, "__d_ldk%lld(%s)%s", (long long)n, a.buf, close);
		}
	}
	strbuf_release(&a);
}

void d_mem_store(struct d_lower *L, struct strbuf *out, const struct d_expr *place, const char *value)
{
	const struct d_type *t = res(place->type);
	struct strbuf a = STRBUF_INIT;

	need_base(L);
	L->memops++;
	d_mem_addr(L, &a, place);
	if (t && t->kind == DT_STRING)
		strbuf_addf(out, "__d_ststr(%s, %s)", a.buf, value);
	else
		strbuf_addf(out, "__d_st(%s, %lld, %s)", a.buf,
			    (long long)(t && t->size > 0 && t->size <= 8 ? t->size : 8), value);
	strbuf_release(&a);
}

void d_lower_string(struct d_lower *L, struct strbuf *out, const struct d_expr *e)
{
	if (d_is_string(e->type) || !d_is_ptr(e->type) || no_address(e)) {
		d_lower_expr(L, out, e);
		return;
	}
	need_reader(L);
	L->memops++;
	strbuf_addf(out, "__d_str%c(", flavour(L));
	d_lower_expr(L, out, e);
	strbuf_addch(out, ')');
}

void d_mem_index(struct d_lower *L, struct strbuf *out, const struct d_expr *k, int64_t n)
{
	need_base(L);
	if (!(L->mem_helpers & M_INDEX)) {
		L->mem_helpers |= M_INDEX;
		strbuf_addstr(&L->funcs, "function __d_idx:long(k:long, n:long) { if (k >= 0 && k < n) return k; return __d_fault(11, k) }\n");
	}
	L->memops++;
	strbuf_addstr(out, "__d_idx(");
	d_lower_expr(L, out, k);
	strbuf_addf(out, ", %lld)", (long long)n);
}

bool d_mem_call(struct d_lower *L, struct strbuf *out, const struct d_expr *e)
{
	if (!strcmp(e->name, "alloca")) {
		need_base(L);
		L->memops++;
		strbuf_addstr(out, "__d_alloca(");
		d_lower_expr(L, out, e->args.items[0]);
		strbuf_addch(out, ')');
		return true;
	}
	if (!strcmp(e->name, "copyin")) {   /* n bytes of the task's memory, in scratch */
		need_base(L);
		if (!(L->mem_helpers & M_COPYIN)) {
			L->mem_helpers |= M_COPYIN;
			strbuf_addf(&L->funcs,
				"function __d_copyin:long(a:long, n:long) {\n"
				"    d = __d_sp\n"   /* alloca()'s, unzeroed: every byte is written */
				"    if (n < 0 || d + n > %lld) return __d_fault(5, 0)\n"
				"    __d_sp = (d + n + 7) & -8; __d_top = d + n\n"
				"    for (i = 0; i < %lld; i++) {\n"
				"        if (i >= n || __d_flt) break\n"
				"        try { __d_mem[d + i] = user_uint8_error(a + i) } catch { __d_fault(1, a + i) }\n"
				"    }\n"
				"    return d\n"
				"}\n", (long long)(8 + scratch_size(L)), (long long)scratch_size(L));
		}
		L->memops++;
		strbuf_addstr(out, "__d_copyin(");
		d_lower_expr(L, out, e->args.items[0]);
		strbuf_addstr(out, ", ");
		d_lower_expr(L, out, e->args.items[1]);
		strbuf_addch(out, ')');
		return true;
	}
	if (!strcmp(e->name, "bcopy")) {
		const struct d_expr *src = e->args.items[0];
		bool str = no_address(src) && !char_array(src->type);
		need_reader(L);
		L->memops++;
		if (str)
			strbuf_addstr(out, "__d_bcopy_s(");
		else
			strbuf_addf(out, "__d_bcopy%c(", flavour(L));
		if (!str && d_mem_place(src) && is_array(src->type))
			d_mem_addr(L, out, src);   /* a char array in memory: where it is */
		else
			d_lower_expr(L, out, src);
		for (int i = 1; i < 3; i++) {
			strbuf_addstr(out, ", ");
			d_lower_expr(L, out, e->args.items[i]);
		}
		strbuf_addch(out, ')');
		return true;
	}
	return false;
}

/* does e call alloca() (or copyin(), which allocates)? */
static bool calls_alloca(const struct d_expr *e)
{
	if (!e)
		return false;
	if (e->kind == DE_CALL && (!strcmp(e->name, "alloca") || !strcmp(e->name, "copyin")))
		return true;
	if (calls_alloca(e->lhs) || calls_alloca(e->rhs))
		return true;
	for (int i = 0; i < e->args.len; i++)
		if (calls_alloca(e->args.items[i]))
			return true;
	return false;
}

static bool stmt_allocas(const struct d_stmt *st)
{
	if (!st)
		return false;
	if (calls_alloca(st->expr) || stmt_allocas(st->then) || stmt_allocas(st->els))
		return true;
	for (int i = 0; i < st->stmts.len; i++)
		if (stmt_allocas(st->stmts.items[i]))
			return true;
	return false;
}

void d_mem_clause_start(struct d_lower *L, const struct d_clause *c)
{
	bool any = calls_alloca(c->pred);

	for (int i = 0; i < c->body.len && !any; i++)
		any = stmt_allocas(c->body.items[i]);
	L->clause_memops = L->memops;
	if (!any)
		return;
	need_base(L);
	d_line(L, "__d_sp = __d_top = 8");
}

void d_mem_guard(struct d_lower *L, int before)
{
	if (L->memops == before)
		return;
	d_line(L, "if (!__d_flt) {");
	L->indent++;
	L->guards++;
}

void d_mem_unguard(struct d_lower *L, int guards)
{
	while (L->guards > guards) {
		L->guards--;
		L->indent--;
		d_line(L, "}");
	}
}

/* the clause's fault, reported: "dtrace: error in dt_clause_N for probe ID
 * I (prov:mod:func:name): invalid address (0x..) at BPF pc P", P being the
 * clause's line (there is no BPF pc of D's to tell) */
void d_mem_clause_end(struct d_lower *L, const struct d_clause *c)
{
	if (L->memops == L->clause_memops || L->in_errfn)
		return;
	struct strbuf id = STRBUF_INIT;
	if (!d_provider_builtin(L, &id, "id", NULL))
		strbuf_addf(&id, "%d", c->index + 1);
	const struct d_probe *p = L->site_probes && L->site_probes->len ? L->site_probes->items[0] : NULL;
	char *what = p ? xasprintf("%s:%s:%s:%s", p->prov, p->mod, p->func, p->name) : xstrdup("dtrace:::BEGIN");
	L->fault_report = true;
	d_line(L, "if (__d_flt) __d_report(%d, %s, \"%s\", %d)", c->index, id.buf, what, c->pos.line > 0 ? c->pos.line : 1);
	free(what);
	strbuf_release(&id);
}

void d_mem_globals(struct d_lower *L)
{
	if (L->mem_helpers)
		strbuf_addstr(&L->globals, "global __d_mem, __d_sp, __d_top, __d_flt, __d_flt_addr\n"
			      "probe begin(-1) { __d_mem[0] = 0; delete __d_mem }\n");   /* typed */
	if (!L->fault_report && !L->error_fn)
		return;
	strbuf_addstr(&L->globals, "global __d_ea0, __d_ea1, __d_ea2, __d_ea3, __d_ea4, __d_ea5\n");
	if (!L->fault_report)
		return;
	strbuf_addf(&L->funcs,
		"function __d_report(cl:long, id:long, what:string, pc:long) {\n"
		"    stderr_print(sprintf(\"dtrace: error in dt_clause_%%d for probe ID %%d (\", cl, id))\n"
		"    stderr_print(what)\n"
		"    if (__d_flt == 11) stderr_print(sprintf(\"): index out of bounds (%%d) at BPF pc %%d\\n\", __d_flt_addr, pc))\n"
		"    else stderr_print(sprintf(\"): %%s (0x%%x) at BPF pc %%d\\n\", __d_flt == 10 ? \"invalid size\" :\n"
		"                              __d_flt == 5 ? \"out of scratch space\" : \"invalid address\", __d_flt_addr, pc))\n"
		"    __d_ea1 = id; __d_ea2 = cl; __d_ea3 = pc; __d_ea4 = __d_flt; __d_ea5 = __d_flt_addr\n"
		"    __d_flt = 0\n"
		"%s"
		"}\n", L->error_fn ? "    __d_ERROR()\n    __d_flt = 0\n" : "");
}
