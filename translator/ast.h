/* ast.h - the one header for cstap's syntax tree.
 *
 * Pass 1 (parse.c) builds it, pass 2 (elaborate.c) resolves names and fills in
 * types, pass 3 walks it to emit C (translate/module/) or BPF (translate/bpf/).
 * Every node carries the source position of the token that starts it (for
 * diagnostics and run-time "near ... at file:line:col" messages).
 *
 * Ownership: nodes are allocated with xmalloc/xcalloc and never freed.
 */
#ifndef CSTAP_AST_H
#define CSTAP_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

/* ---- source ------------------------------------------------------------ */

struct srcfile {
	char *name;      /* as shown in messages: "x.stp", "<input>", tapset path */
	char *text;      /* whole file, NUL-terminated */
	size_t len;
	bool is_tapset;  /* from the tapset library: embedded C allowed */
	bool from_include; /* a tapset from a -I directory: the user's own code to
			    * --privilege (its embedded C's marks are not trusted) */
	bool is_macro;   /* a .stpm macro file */
};

struct srcpos {
	const struct srcfile *file;
	int line, col;   /* 1-based; col counts bytes */
};

/* ---- types ------------------------------------------------------------- */

enum type {
	TYPE_UNKNOWN = 0,
	TYPE_LONG,
	TYPE_STRING,
	TYPE_STATS,         /* an aggregate (x <<< v) */
	TYPE_VOID,          /* function with no return value */
};
const char *type_name(enum type t);

/* ---- tokens (shared by lexer and parser) -------------------------------- */

enum tok_kind {
	TK_EOF,
	TK_IDENT,        /* name, also keywords (checked by text) */
	TK_NUMBER,       /* integer literal; value in tok->num */
	TK_STRING,       /* "..." with escapes already decoded into tok->str */
	TK_OP,           /* operator or punctuation, text in tok->text */
	TK_EMBEDDED,     /* %{ ... %}: code between the braces in tok->str */
	TK_DOLLAR_VAR,   /* $name, $$vars etc.: text includes the '$' */
	TK_AT_OP,        /* @name: @count, @cast, @define, @1 ... */
	TK_PARAM,        /* $1 / @1 command-line argument references (before subst.) */
	TK_ERROR,        /* the lexer or preprocessor reported an error (diag printed) */
};

struct token {
	enum tok_kind kind;
	char *text;      /* token text as written (for messages) */
	char *str;       /* decoded string literal / embedded code */
	size_t str_len;
	int64_t num;
	struct srcpos pos;
	struct token *chain; /* macro expansion: token this one came from */
	bool glued;      /* no whitespace or comment before it (probe point wildcards) */
	bool version_dependent; /* a systemtap_v %( %) condition was evaluated since the
	                 * token before it (--check-version) */
};

/* ---- expressions -------------------------------------------------------- */

enum expr_kind {
	EXPR_NUM,           /* 42, 0x2a, 052 */
	EXPR_STR,           /* "text" (adjacent literals already concatenated) */
	EXPR_VAR,           /* x: local, global or parameter (sym filled by pass 2) */
	EXPR_INDEX,         /* a[k1, k2, ...] (args); array slicing keys may be EXPR_STAR;
			  * @hist_log(x)[i]: name NULL, lhs is the EXPR_HIST */
	EXPR_STAR,          /* '*' in a slice a[*, 1] */
	EXPR_CALL,          /* f(args); print family too (name tells); guru-only
			  * @kregister(n) @uregister(n) @kderef(size, addr)
			  * @uderef(size, addr) @const("NAME") too, and
			  * @probewrite(var); name with its '@' */
	EXPR_UNARY,         /* op: - + ! ~ */
	EXPR_BINARY,        /* op: * / % + - . << >> >>> & ^ | && || < > <= >= == != */
	EXPR_PREINC,        /* ++x / --x: op OP_INC or OP_DEC */
	EXPR_POSTINC,       /* x++ / x-- */
	EXPR_ASSIGN,        /* op: = <<< or a compound one (enum op_kind) */
	EXPR_TERNARY,       /* cond ? a : b  (args[0..2]) */
	EXPR_IN,            /* [k1, k2] in a / k in a: args = keys, lhs = array */
	EXPR_STATOP,        /* @count(x) etc: name = "count", lhs = operand, args = extra */
	EXPR_HIST,          /* @hist_log(x) / @hist_linear(x, lo, hi, step) */
	EXPR_TARGET,        /* $var with member/index chain, $$vars ...: name = "$var" */
	EXPR_CAST,          /* @cast(p, "type"[, "module"]) with chain */
	EXPR_DEFINED,       /* @defined(expr) */
	EXPR_CHOOSE,        /* @choose_defined(a, b) */
	EXPR_ENTRY,         /* @entry(expr) */
	EXPR_ATVAR,         /* @var("name@file"[, "module"]) with chain; name = "name@file" */
	EXPR_PERF,          /* @perf("name") */
	EXPR_EMBEDDED,      /* %{ code %} used as an expression (guru mode) */
	EXPR_REGEX,         /* s =~ "re" / s !~ "re" : op, lhs, rhs */
	EXPR_ADDROF,        /* &$var->f : lhs is the target expression */
	EXPR_PARAM,         /* $1 / @1 left unresolved (only inside %( $# ... %) etc.) */
	EXPR_AUTOCAST,      /* (expr)->a[1]$ : lhs is any expression, with chain and suffix */
};

/* One step of a target-variable chain: ->name, [index] */
struct target_step {
	enum { TS_FIELD, TS_INDEX } kind;
	char *field;         /* TS_FIELD */
	struct expr *index;  /* TS_INDEX */
	struct srcpos pos;
};

/* The aggregate operators, @count(s) ... @variance(s) (EXPR_STATOP), and
 * what foreach sorts an aggregate array by (STMT_FOREACH's sort_op): set
 * by the parser, read by pass 2 and both backends. */
enum stat_op { SO_COUNT, SO_SUM, SO_MIN, SO_MAX, SO_AVG, SO_VARIANCE };
/* "count" ... "variance": name's operator, -1 if none */
int stat_op_of(const char *name);

/* The operator of an EXPR_UNARY, BINARY, ASSIGN, PREINC/POSTINC or REGEX:
 * set by the parser, read by pass 2 and both backends. An assignment's is
 * OP_ASSIGN for '=', OP_STAT_ADD for '<<<', else the binary operator of
 * the compound one: OP_ADD for '+='. */
enum op_kind {
	OP_NONE,
	OP_MUL, OP_DIV, OP_MOD, OP_ADD, OP_SUB, OP_CAT,         /* * / % + - . */
	OP_SHL, OP_SHR, OP_USHR, OP_AND, OP_XOR, OP_OR,         /* << >> >>> & ^ | */
	OP_LAND, OP_LOR,                                        /* && || */
	OP_LT, OP_GT, OP_LE, OP_GE, OP_EQ, OP_NE,               /* < > <= >= == != */
	OP_NEG, OP_PLUS, OP_NOT, OP_BITNOT,                     /* unary - + ! ~ */
	OP_INC, OP_DEC,                                         /* ++ -- */
	OP_REGEX_MATCH, OP_REGEX_NOMATCH,                       /* =~ !~ */
	OP_ASSIGN, OP_STAT_ADD,                                 /* = <<< */
};
/* The operator spelled text in an expression of kind ("-" is OP_NEG in
 * an EXPR_UNARY, "-=" OP_SUB in an EXPR_ASSIGN); OP_NONE if none */
enum op_kind op_of(enum expr_kind kind, const char *text);
/* op's own spelling: "+" for OP_ADD and OP_PLUS, NULL for OP_NONE */
const char *op_text(enum op_kind op);

struct lupdate;

struct expr {
	enum expr_kind kind;
	struct srcpos pos;
	enum type type;      /* filled by pass 2 */
	enum op_kind op;     /* UNARY/BINARY/ASSIGN/INC/REGEX's operator */
	const struct lupdate *upd;   /* ASSIGN, PREINC, POSTINC: pass 2's lowering (lowered.h) */
	char *name;          /* VAR / INDEX / CALL / STATOP / HIST / TARGET name */
	int64_t num;         /* EXPR_NUM */
	char *str;           /* EXPR_STR, EXPR_EMBEDDED code, EXPR_CAST type name */
	size_t str_len;
	struct expr *lhs, *rhs;
	VEC(struct expr *) args;     /* call args, index keys, ternary parts ... */
	VEC(struct target_step *) chain; /* EXPR_TARGET/EXPR_CAST/EXPR_ATVAR member chain */
	char *suffix;        /* "$" or "$$" pretty-print suffix on targets, or NULL */
	char *module;        /* EXPR_CAST / EXPR_ATVAR optional module string */
	/* EXPR_CAST made by autocast from (x)->chain where x's type comes
	 * through a variable or a function (str NULL): x has the DWARF type
	 * of this expression's value (a $target, @var or @cast chain, &
	 * of one, or @choose_defined of such), resolved in the same probe;
	 * NULL too: the type is unknown (only under @defined) */
	const struct expr *type_src;
	/* filled by pass 2 */
	struct sym *sym;     /* EXPR_VAR / EXPR_INDEX / EXPR_IN array / statop operand */
	struct func *func;   /* EXPR_CALL target */
	const struct print_kind *print;  /* EXPR_CALL of a print builtin (set by pass 1) */
	enum stat_op statop;             /* EXPR_STATOP: which (name says it too) */
	struct regex_prog *regex; /* EXPR_REGEX: compiled by pass 2 (regex.h) */
	int temp;            /* pass 3 scratch */
};

/* ---- statements --------------------------------------------------------- */

enum stmt_kind {
	STMT_BLOCK,         /* { stmts } */
	STMT_EXPR,          /* expression statement */
	STMT_NULL,          /* ; */
	STMT_IF,            /* if (cond) then [else els] */
	STMT_WHILE,         /* while (cond) body */
	STMT_FOR,           /* for (init; cond; step) body (any part may be NULL) */
	STMT_FOREACH,       /* see fields below */
	STMT_BREAK,
	STMT_CONTINUE,
	STMT_NEXT,
	STMT_RETURN,        /* return [value] */
	STMT_DELETE,        /* delete expr (var, a[k], a, a[*,k]) */
	STMT_TRY,           /* try body catch [(catch_var)] handler */
	STMT_EMBEDDED,      /* %{ %} as a statement (guru) */
};

struct stmt {
	enum stmt_kind kind;
	struct srcpos pos;
	VEC(struct stmt *) stmts;    /* STMT_BLOCK */
	struct expr *expr;           /* STMT_EXPR / STMT_RETURN value / STMT_DELETE / cond */
	struct stmt *body, *els;     /* IF then/else, loops' body, TRY body/handler */
	struct expr *init, *step;    /* STMT_FOR (as expressions) */
	char *code;                  /* STMT_EMBEDDED */
	/* STMT_FOREACH: foreach ([k1, k2] in arr [+|-] limit N)  or
	 *            foreach (v = [k1, k2] in arr ...)         or
	 *            foreach (k in @hist_log(s)) */
	VEC(struct expr *) keys;     /* EXPR_VAR key variables */
	struct expr *value;          /* EXPR_VAR for "v =", or NULL */
	struct expr *array;          /* EXPR_VAR (array), or EXPR_INDEX for slicing, or EXPR_HIST */
	int sort_column;             /* 0 = value, i = key i (1-based), -1 = unsorted */
	int sort_dir;                /* +1 ascending, -1 descending, 0 none */
	struct expr *limit;          /* or NULL */
	struct expr *catch_var;      /* STMT_TRY: EXPR_VAR or NULL */
	char *sort_aggr;             /* foreach (... in a @count+): "count" ... or NULL */
	enum stat_op sort_op;        /* ... as an operator (SO_COUNT without one) */
};

/* ---- declarations ------------------------------------------------------- */

enum sym_kind { SYM_GLOBAL, SYM_LOCAL, SYM_PARAM };

/* A variable: global, function/probe local, or function parameter. */
struct regex_prog;

struct sym {
	enum sym_kind kind;
	char *name;
	struct srcpos pos;
	enum type type;          /* value type; TYPE_STATS for aggregates */
	bool is_array;
	int nkeys;               /* arrays: number of keys (-1 unknown yet) */
	enum type key_types[9];
	int64_t max_entries;     /* global a[N]; 0 = default */
	bool wrap;               /* global a%[N] / a% */
	bool is_private;
	struct expr *init;       /* global initialiser (literal) or NULL */
	int index;               /* globals: position in s->globals (pass 2 analysis) */
	/* aggregates (TYPE_STATS), filled by pass 2 from @hist_* and @variance uses */
	int hist_kind;           /* 0 none, 1 log, 2 linear */
	int64_t hist_lo, hist_hi, hist_step;
	int var_shift;           /* @variance(s, N): largest N */
	bool var_used;           /* @variance is used: keep Welford's sums */
	bool atomic;             /* a long only ever bumped (x++, x += e): lock-free atomic64 */
	/* usage, filled by pass 2 */
	bool read, written;
	struct expr *scalar_use; /* a global: its first use as a scalar, if any */
	struct srcfile const *file; /* declaring file (private scoping) */
	struct sym *link;        /* for tapset globals merged into the script */
	bool version_dependent;  /* its declaration evaluated a systemtap_v condition */
};

/* a list of symbols (parameters, locals, globals) */
typedef VEC(struct sym *) symvec;

struct func {
	char *name;
	struct srcpos pos;
	enum type ret;               /* declared (f:string) or inferred */
	bool ret_declared;
	symvec params;               /* SYM_PARAM, type from "x:long" or inferred */
	struct stmt *body;           /* or NULL for embedded */
	char *embedded;              /* function f() %{ ... %} */
	VEC(char *) pragmas;         /* pragma comments in embedded code: pure, unprivileged ... */
	bool is_private;
	const struct srcfile *file;
	int64_t priority;            /* function f() : N { } overload priority, 0 = none */
	bool version_dependent;      /* its text evaluated a systemtap_v condition */
	/* pass 2 */
	symvec locals;
	bool used;
	int index;
	bool in_context;             /* reads the probe's $target variables, itself or
	                              * through a call: compiled once per derived probe
	                              * calling it (context_funcs.c) */
};

typedef VEC(struct func *) funcvec;

/* probe point component: name[(arg)] e.g. kernel, function("vfs_*"), return, ms(100) */
struct pp_comp {
	char *name;              /* may contain * wildcards */
	struct expr *arg;        /* EXPR_NUM / EXPR_STR / NULL ; may be EXPR_PARAM for @1 */
	struct srcpos pos;
	unsigned char alt_flags; /* parser: ends a brace alternative marked ? (1) or ! (2) */
};

struct probe_point {
	VEC(struct pp_comp *) comps;
	bool optional;           /* ? */
	bool sufficient;         /* ! */
	struct expr *cond;       /* if (expr), or NULL */
	struct srcpos pos;
};

struct probe {
	VEC(struct probe_point *) points;  /* comma list */
	struct stmt *body;                 /* STMT_BLOCK */
	struct srcpos pos;
	const struct srcfile *file;
	bool is_private;
	/* probe aliases: probe a.b = x.y { prologue }  /  probe a.b += x.y { epilogue } */
	bool is_alias;
	bool alias_epilogue;               /* += */
	VEC(struct probe_point *) alias_names; /* left-hand side(s) of = / += */
	struct stmt *epilogue;             /* probe a = b { prologue }, { epilogue } */
	char *alias_pp;                    /* expanded from an alias: its name as reached
					    * ("vfs.read.return"), listed by -l/-L */
	bool version_dependent;            /* its text evaluated a systemtap_v condition */
	const struct probe *alias;         /* expanded: the alias it came from ... */
	const struct probe *expanded;      /* ... and the probe that used it */
	/* pass 2 */
	symvec locals;
	int index;
	struct expr *cond;                 /* probe PP if (cond): the condition, checked */
};

/* top-level %{ %} block */
struct embed {
	char *code;
	struct srcpos pos;
	const struct srcfile *file;
};

/* One parsed file. */
struct script {
	const struct srcfile *file;
	VEC(struct sym *) globals;
	VEC(struct func *) funcs;
	VEC(struct probe *) probes;        /* includes aliases (is_alias) */
	VEC(struct embed *) embeds;
	bool probes_derived;               /* pass 2: a tapset file's own probes joined */
	int library_file;                  /* a tapset file's number in the library (-1: the
					    * user's, or generated in pass 2) */
};

/* ---- pass 1 entry points (parse.c) ------------------------------------- */

struct session;

/* Read and parse one file (or -e text). Returns NULL after printing
 * diagnostics. Preprocessor conditionals and macros are resolved here. */
struct script *parse_script(struct session *s, struct srcfile *f);
struct srcfile *srcfile_new(const char *name, char *text, size_t len);
struct srcfile *srcfile_read(const char *path); /* NULL on error (errno) */

/* -p1 output: print a script back as SystemTap source (unparse.c). */
void unparse_script(struct strbuf *out, const struct script *sc);
void unparse_expr(struct strbuf *out, const struct expr *e);
void unparse_stmt(struct strbuf *out, const struct stmt *st, int indent);
void unparse_probe_point(struct strbuf *out, const struct probe_point *pp);

/* constructors (ast.c) */
struct expr *expr_new(enum expr_kind kind, struct srcpos pos);
struct stmt *stmt_new(enum stmt_kind kind, struct srcpos pos);
/* deep copies of a tree (before pass 2 annotates it) */
struct expr *expr_clone(const struct expr *e);
struct target_step *step_clone(const struct target_step *s);
/* An assignment (any operator, <<< too), ++ or --: it writes its lhs. */
bool expr_is_update(const struct expr *e);
/* e's operator as the script spells it: "+=" for a compound assignment */
const char *expr_op_text(const struct expr *e);
/* The print builtins (printf, sprintf, print, println, printd, printdln,
 * and sprint, sprintln, sprintd, sprintdln): what a call of one does. The
 * parser, pass 2 and both backends read this, not the name. */
struct print_kind {
	const char *name;
	bool to_string;         /* s...: returns the text instead of printing it */
	bool formatted;         /* printf, sprintf: args[0] is a literal format */
	bool delim;             /* printd...: args[0] is a literal delimiter between the values */
	bool newline;           /* ...ln: a newline after the values */
};
/* name's, or NULL if it is none of them */
const struct print_kind *print_kind(const char *name);
/* The next pragma comment of embedded code at or after *s (a one-word
 * comment: / * pure * /, / * unprivileged * / ...): its word, not
 * NUL-terminated, *len bytes; *s moves past it. NULL when none is left. */
const char *pragma_next(const char **s, size_t *len);
struct stmt *stmt_clone(const struct stmt *st);

#endif
