/* d_main.c - dtrace: DTrace's command line on cstap's passes.
 *
 * The D program (-s files, -n descriptions and clauses) is parsed,
 * checked and lowered here (d_parse.c, d_check.c, d_lower.c) to a script
 * in cstap's language; then stap's passes 2-5 run it as any script, with
 * the stap options DTrace's ask for (-c, -p as -x, -o, -e as -p4).
 */
#include <errno.h>
#include <getopt.h>
#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "d/d_btf.h"
#include "d/d_lower.h"
#include "d/d_main.h"
#include "d/d_parse.h"
#include "d/d_provider.h"
#include "d/d_sema.h"
#include "d/d_types.h"
#include "d/d_usdt.h"
#include "bpf_proto.h"   /* BPF_STRSZ, BPF_STRSZ_MAX */
#include "passes.h"
#include "session.h"

/* one source of the program: a -s file or a -n text */
struct d_source {
	bool is_file;
	const char *arg;         /* the path or the text */
	int spec;                /* -P -m -f -i: the D_PSPEC_* of a description alone, else -1 */
};

struct d_cmdline {
	VEC(struct d_source) sources;
	VEC(char *) stap_args;   /* what stap is asked to do besides -e */
	struct d_opts opts;
	bool compile_only;       /* -e */
	bool list;               /* -l */
	bool verbose;            /* -v: -l with attributes and argument types */
	bool cpp;                /* -C */
	VEC(char *) cpp_args;    /* -D -U -I for cpp */
	bool dump_lowered;       /* --dump-lowered: the script stap gets, on stdout */
	struct d_usdt_opts usdt; /* -h, -G: a provider's header or object (d_usdt.c) */
	const char *cmd;         /* -c */
	long pid;                /* -p */
	int argc;                /* macro arguments $1.. */
	char **argv;
};

static void usage(FILE *f)
{
	fputs("Usage: dtrace [-32|-64] [-CeGhlqvwZ] [-c cmd] [-p pid] [-o output] [-x opt[=val]]\n"
	      "\t[-D name[=def]] [-I path] [-U name] [-n probe-desc-and-clause]\n"
	      "\t[-P provider] [-m module] [-f function] [-s script] [args ...]\n"
	      "\n"
	      "\t-32 -64  -G: the object's ELF class (the compiler's by default)\n"
	      "\t-c  run the command and exit when it exits ($target is its pid)\n"
	      "\t-C  run cpp(1) over the script first (with -D, -U, -I)\n"
	      "\t-e  exit after compiling\n"
	      "\t-G  compile an object of the -s script's USDT probe semaphores (-o: its name)\n"
	      "\t-h  write a header of the -s script's USDT probe macros (-o: its name)\n"
	      "\t-l  list the probes the descriptions match\n"
	      "\t-v  with -l: the probes' attributes and argument types\n"
	      "\t-n  a probe description, with an optional /predicate/ and { clause }\n"
	      "\t-o  write the output to a file\n"
	      "\t-p  trace this process ($target)\n"
	      "\t-q  quiet: only what the program prints\n"
	      "\t-s  the D program in a file\n"
	      "\t-w  allow destructive actions\n"
	      "\t-x  set an option (quiet, destructive, strsize=N, ...)\n"
	      "\t-Z  a description matching no probe is no error\n"
	      "\t-V  the version of D\n"
	      "(cstap's dtrace: see dtrace(1))\n", f);
}

/* a size option's bytes: N, Nk, Nm, Ng (DTrace's suffixes); dflt when
 * no value or none that reads as a size */
static int64_t size_value(const char *value, int64_t dflt)
{
	char *end;
	long long n;

	if (!value || !isdigit((unsigned char)*value))
		return dflt;
	n = strtoll(value, &end, 0);
	switch (tolower((unsigned char)*end)) {
	case 'k': n <<= 10; break;
	case 'm': n <<= 20; break;
	case 'g': n <<= 30; break;
	case 't': n <<= 40; break;
	}
	return n > 0 ? n : dflt;
}

/* one option by name (-x NAME[=VALUE], #pragma D option NAME[=VALUE]) */
static int set_option(struct d_opts *o, const char *name, const char *value)
{
	if (!strcmp(name, "quiet"))
		o->quiet = true;
	else if (!strcmp(name, "destructive"))
		o->destructive = true;
	else if (!strcmp(name, "errtags"))
		o->errtags = true;
	else if (!strcmp(name, "flowindent"))
		o->flowindent = true;
	else if (!strcmp(name, "rawbytes"))
		o->rawbytes = true;
	else if (!strcmp(name, "zdefs"))
		o->zdefs = true;
	else if (!strcmp(name, "defaultargs"))
		o->defaultargs = true;
	else if (!strcmp(name, "argref"))
		o->argref = true;
	else if (!strcmp(name, "aggsortkey"))
		o->aggsortkey = true;
	else if (!strcmp(name, "aggsortrev"))
		o->aggsortrev = true;
	else if (!strcmp(name, "aggsortkeypos")) {
		o->aggsortpos = value ? atoi(value) : 0;
		o->aggsortkeypos_set = true;
	} else if (!strcmp(name, "aggsortpos"))
		;   /* which of printa's aggregations sorts: the first, for now */
	else if (!strcmp(name, "nspec"))
		o->nspec = value ? strtoll(value, NULL, 0) : 1;
	else if (!strcmp(name, "bufpolicy")) {
		if (!value || (strcmp(value, "fill") && strcmp(value, "ring") && strcmp(value, "switch")))
			return -1;
		o->fill = !strcmp(value, "fill");
		o->ring = !strcmp(value, "ring");
	} else if (!strcmp(name, "bufsize"))
		o->bufsize = size_value(value, 0);
	else if (!strcmp(name, "strsize"))
		o->strsize = value ? strtoll(value, NULL, 0) : 0;
	else if (!strcmp(name, "ustackframes"))
		o->ustackframes = value ? strtoll(value, NULL, 0) : 0;
	else if (!strcmp(name, "cpu"))
		o->cpu = value ? strtoll(value, NULL, 0) : -1;
	else if (!strcmp(name, "maxframes"))
		o->maxframes = value ? strtoll(value, NULL, 0) : 0;
	else if (!strcmp(name, "dynvarsize"))
		o->dynvarsize = size_value(value, o->dynvarsize);
	else if (!strcmp(name, "scratchsize"))
		o->scratchsize = value ? strtoll(value, NULL, 0) : 0;
	else {
		static const char *const known[] = {
			"switchrate", "statusrate", "aggrate", "cleanrate",
			"scratchsize", "aggsize", "specsize", "stdc",
			"stackframes", "jstackframes", "jstackstrsize", "bufresize",
			"version", "evaltime", "grabanon", "linkmode", "linktype",
			"nolibs", "pspec", "stackindent", "amin", "modpath", "bpflog", "bpflogsize",
			"lockmem", "disasm", "define", "iregs", "libdir", "preallocate", "incdir",
			"procfs", "core", "debug", "noresolve", "tree", "sortorder", "undef",
			"ctypes", "dtypes", "cpp", "cpppath", "cppargs", "empty", "errtags", "droptags", NULL,
		};
		for (int i = 0; known[i]; i++)
			if (!strcmp(name, known[i]))
				return 0;
		return -1;
	}
	return 0;
}

static int x_option(struct d_cmdline *c, const char *arg)
{
	char *name = xstrdup(arg), *eq = strchr(name, '=');

	if (eq)
		*eq++ = 0;
	if (!strcmp(name, "stdc") && eq && !strcmp(eq, "s"))   /* K&R: no __STDC__ */
		vec_push(&c->cpp_args, "-traditional-cpp");
	if (set_option(&c->opts, name, eq)) {
		fprintf(stderr, "dtrace: failed to set -x %s: Invalid option name\n", arg);
		return 1;
	}
	return 0;
}

static int parse_cmdline(struct d_cmdline *c, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "dump-lowered", no_argument, NULL, 1 },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":3:6:ab:c:CD:eFf:GhHi:I:lm:n:o:p:P:qs:SU:vVwx:XZ", longopts, NULL)) != -1) {
		switch (ch) {
		case 1: c->dump_lowered = true; break;
		case 'c': c->cmd = optarg; break;
		case 'C': c->cpp = true; break;
		case 'D': vec_push(&c->cpp_args, xasprintf("-D%s", optarg)); break;
		case 'U': vec_push(&c->cpp_args, xasprintf("-U%s", optarg)); break;
		case 'I': vec_push(&c->cpp_args, xasprintf("-I%s", optarg)); break;
		case 'e': c->compile_only = true; break;
		case 'l': c->list = true; break;
		case 'q': c->opts.quiet = true; break;
		case 'w': c->opts.destructive = true; break;
		case 'Z': c->opts.zdefs = true; break;
		case 'F': c->opts.flowindent = true; break;
		case 'o':
			c->usdt.output = optarg;
			vec_push(&c->stap_args, "-o");
			vec_push(&c->stap_args, optarg);
			break;
		case 'p': {
			char *end;
			c->pid = strtol(optarg, &end, 10);
			if (*end || c->pid <= 0) {
				fprintf(stderr, "dtrace: failed to grab pid %s: No such process\n", optarg);
				return 1;
			}
			if (kill((pid_t)c->pid, 0) && errno == ESRCH) {   /* DTrace's words */
				fprintf(stderr, "dtrace: %s\n", strerror(ESRCH));
				return 1;
			}
			break;
		}
		case 's':
			vec_push(&c->sources, ((struct d_source){ true, optarg, -1 }));
			vec_push(&c->usdt.scripts, optarg);
			break;
		case 'n': vec_push(&c->sources, ((struct d_source){ false, optarg, -1 })); break;
		case 'P': case 'm': case 'f': case 'i': {
			/* a description whose last part is the provider, module ... */
			int spec = ch == 'P' ? D_PSPEC_PROVIDER : ch == 'm' ? D_PSPEC_MODULE
				   : ch == 'f' ? D_PSPEC_FUNCTION : D_PSPEC_NAME;
			vec_push(&c->sources, ((struct d_source){ false, optarg, spec }));
			break;
		}
		case 'x':
			if (x_option(c, optarg))
				return 1;
			break;
		case 'V':
			printf("dtrace: Sun D 2.0 (cstap " PACKAGE_VERSION ")\n");
			return -1;
		case 'h': c->usdt.mode = D_USDT_HEADER; break;
		case 'G': c->usdt.mode = D_USDT_OBJECT; break;
		case '3': case '6':   /* -32, -64 */
			if (strcmp(optarg, ch == '3' ? "2" : "4")) {
				fprintf(stderr, "dtrace: illegal option -- %c%s\n", ch, optarg);
				usage(stderr);
				return 2;
			}
			c->usdt.m32 = ch == '3';
			break;
		case 'v': c->verbose = true; break;
		case 'a': case 'b': case 'H': case 'S': case 'X':
			break;   /* anonymous tracing, buffer sizes, listing flags: nothing to do here */
		case ':':
			fprintf(stderr, "dtrace: option requires an argument -- %c\n", optopt);
			usage(stderr);
			return 2;
		default:
			fprintf(stderr, "dtrace: illegal option -- %c\n", optopt);
			usage(stderr);
			return 2;
		}
	}
	c->argc = argc - optind;
	c->argv = argv + optind;
	if (!c->sources.len && !c->usdt.mode && !c->list) {
		usage(stderr);
		return 2;
	}
	return 0;
}

/* the text of a -n or -P/-m/-f/-i source as a program: a description
 * alone gets an empty clause; -P X is the description X:::, its parts
 * checked as DTrace splits them (D_PDESC_INVAL: too many) */
static char *source_text(struct d_diag *dg, const struct d_source *src)
{
	size_t digits = strspn(src->arg, "0123456789");
	struct d_pos none = { 0, 0 };

	if (digits && src->spec > D_PSPEC_NAME) {   /* -P -m -f: no probe ID */
		static const char *const what[] = {
			[D_PSPEC_FUNCTION] = "functions", [D_PSPEC_MODULE] = "modules",
			[D_PSPEC_PROVIDER] = "providers",
		};
		d_error(dg, "D_PDESC_INVAL", none, "probe identifier %.*s not permitted when specifying %s",
			(int)digits, src->arg, what[src->spec]);
	}
	if (src->spec == D_PSPEC_NAME && digits && strchr("/{ \t", src->arg[digits]))
		return xstrdup(src->arg);   /* -i 'N{...}': probe N and its clause */
	if (src->spec >= 0 && src->arg[digits]) {   /* -i N: a probe's ID */
		/* the description, then its predicate and clause if any (-f
		 * 'read{...}'); -i's number followed by more is that more */
		size_t n = strcspn(src->arg + digits, "/{");
		char *text = src->spec == D_PSPEC_NAME ? xstrndup(src->arg + digits, n)
						       : xstrndup(src->arg, digits + n);
		n += digits;
		struct d_parse_args pa = { .spec = (enum d_pspec)src->spec, .target_pid = d_provider_target()->pid };
		struct d_pdesc *d = d_parse_pdesc(dg, text, &pa);
		return xasprintf("%s:%s:%s:%s %s", d->prov, d->mod, d->func, d->name, src->arg[n] ? src->arg + n : "{}");
	}
	return strchr(src->arg, '{') ? xstrdup(src->arg) : xasprintf("%s {}", src->arg);
}

/* -c's command as words for sh -c: each word quoted, as DTrace runs
 * the command itself, split at blanks ("find . -exec true ;") */
static char *shell_words(const char *cmd)
{
	struct strbuf sb = STRBUF_INIT;
	char *copy = xstrdup(cmd), *save = NULL;

	for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (sb.len)
			strbuf_addch(&sb, ' ');
		strbuf_add_shell_quoted(&sb, w);
	}
	free(copy);
	return strbuf_detach(&sb);
}

/* a -s file's text; its #! line is blanked (kept as a line for numbering) */
static char *read_source(const char *path)
{
	FILE *f = fopen(path, "r");
	struct strbuf sb;
	char buf[8192];
	size_t n;

	if (!f)
		return NULL;
	strbuf_init(&sb);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		strbuf_add(&sb, buf, n);
	fclose(f);
	if (sb.len >= 2 && sb.buf[0] == '#' && sb.buf[1] == '!')
		for (size_t i = 0; i < sb.len && sb.buf[i] != '\n'; i++)
			sb.buf[i] = ' ';
	return strbuf_detach(&sb);
}

/* cpp over text (-C): the -D -U -I options, line markers kept */
static char *run_cpp(struct d_cmdline *c, const char *text)
{
	char tmpl[] = "/tmp/dtrace-cpp.XXXXXX";
	int fd = mkstemp(tmpl);
	struct strbuf cmd, out;
	FILE *p;
	char buf[8192];
	size_t n;

	if (fd < 0)
		return NULL;
	if (write(fd, text, strlen(text)) < 0) {
		close(fd);
		return NULL;
	}
	close(fd);
	strbuf_init(&cmd);
	strbuf_addstr(&cmd, "cpp -x c -undef -D__linux -D__linux__ -D__unix -D__x86_64 -D__x86_64__ -D__SUNW_D=1 -D__SUNW_D_64");
	for (int i = 0; i < c->cpp_args.len; i++) {
		strbuf_addch(&cmd, ' ');
		strbuf_add_shell_quoted(&cmd, c->cpp_args.items[i]);
	}
	strbuf_addf(&cmd, " %s", tmpl);
	p = popen(cmd.buf, "r");
	strbuf_release(&cmd);
	if (!p) {
		unlink(tmpl);
		return NULL;
	}
	strbuf_init(&out);
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		strbuf_add(&out, buf, n);
	int st = pclose(p);
	unlink(tmpl);
	if (st) {
		strbuf_release(&out);
		return NULL;
	}
	return strbuf_detach(&out);
}

/* a -s script for -h and -G: its text, through cpp with -C */
static char *usdt_load(void *arg, const char *path)
{
	struct d_cmdline *c = arg;
	char *text = read_source(path);

	if (!text) {
		fprintf(stderr, "dtrace: failed to open %s: %s\n", path, strerror(errno));
		return NULL;
	}
	if (c->cpp) {
		/* its #include "x.h" finds x.h beside it, as cpp of the file would */
		const char *slash = strrchr(path, '/');
		vec_push(&c->cpp_args, !slash ? "-iquote." : slash == path ? "-iquote/"
				       : xasprintf("-iquote%.*s", (int)(slash - path), path));
		if (!(text = run_cpp(c, text)))
			fprintf(stderr, "dtrace: failed to preprocess %s\n", path);
	}
	return text;
}

struct announce {
	const char *kind;        /* "script" or "description" */
	const char *name;
	int probes;
	bool quiet;              /* quiet (-q, the option) leaves the notice out, as DTrace does */
	bool compile_only;       /* -e */
	bool destructive;        /* -w or the option: said after the match */
};

/* "dtrace: script 'x.d' matched 2 probes", once the program is built;
 * -e (compile only) leaves no module behind */
static void announce(struct session *s, enum stap_hook when, void *arg)
{
	const struct announce *a = arg;

	if (when == STAP_HOOK_OPTIONS) {
		s->no_module_copy = a->compile_only;
		return;
	}

	/* no notice of the runtime or guest stap chose: dtrace's output is DTrace's */
	s->runtime_auto = false;
	s->no_guest_notice = true;
	if (a->quiet)
		return;
	fprintf(stderr, "dtrace: %s '%s' matched %d probe%s\n", a->kind, a->name, a->probes,
		a->probes == 1 ? "" : "s");
	if (a->destructive)
		fprintf(stderr, "dtrace: allowing destructive actions\n");
}

/* the clause's errors name the source it came from (-f fight -f write:
 * fight's) */
static void set_clause_source(struct d_clause *c, const struct d_diag *dg)
{
	c->src_what = dg->what;
	c->src_text = dg->text;
	c->src_no_lines = dg->no_lines;
}

int dtrace_main(int argc, char **argv)
{
	struct d_cmdline c = { 0 };
	int rc;

	c.opts.strsize = D_STRSIZE_DEFAULT;
	c.opts.dynvarsize = 1 << 20;   /* DTrace's default */
	c.opts.cpu = -1;
	if ((rc = parse_cmdline(&c, argc, argv)))
		return rc < 0 ? 0 : rc;
	if (c.usdt.mode) {   /* -h, -G: the -s scripts' providers, nothing traced */
		c.usdt.load = usdt_load;
		c.usdt.load_arg = &c;
		c.usdt.objects = c.argv;
		c.usdt.errtags = c.opts.errtags;
		c.usdt.nobjects = c.argc;
		return d_usdt_main(&c.usdt);
	}
	d_provider_set_target(c.pid, c.cmd);   /* for pid$target and USDT probes */
	if (!c.sources.len)   /* -l alone: every probe */
		return d_provider_list_program(NULL, c.verbose);

	/* the program: every -s and -n source, in order */
	struct d_source *src = &c.sources.items[0];
	char *text = NULL;
	jmp_buf abort;
	struct d_diag dg = { .abort = &abort, .errtags = c.opts.errtags };
	if (setjmp(abort))
		return 1;
	if (!src->is_file) {
		dg.what = xasprintf("invalid probe specifier %s", src->arg);
		text = source_text(&dg, src);
	}
	if (src->is_file) {
		text = read_source(src->arg);
		if (!text) {
			fprintf(stderr, "dtrace: failed to open %s: %s\n", src->arg, strerror(errno));
			return 2;
		}
	}
	if (c.cpp && !(text = run_cpp(&c, text))) {
		fprintf(stderr, "dtrace: failed to preprocess %s\n", src->arg);
		return 1;
	}

	dg.text = text;
	dg.no_lines = !src->is_file;
	dg.what = src->is_file ? xasprintf("failed to compile script %s", src->arg)
			       : xasprintf("invalid probe specifier %s", src->arg);
	struct d_sema sema = { .dg = &dg, .opts = &c.opts, .nargs = c.argc, .args = c.argv, .target_pid = c.pid };
	struct d_types *types = d_types_new();
	d_types_set_resolver(types, d_kernel_resolver, NULL);   /* D's library, the kernel's BTF */
	/* $0 is the script's name, $1.. the words after the options */
	const char **margv = xcalloc((size_t)c.argc + 2, sizeof(*margv));
	margv[0] = src->is_file ? src->arg : "dtrace";
	for (int i = 0; i < c.argc; i++)
		margv[i + 1] = c.argv[i];
	struct d_parse_args pa = { .argc = c.argc + 1, .argv = margv, .target_pid = c.pid,
				   .spec = D_PSPEC_NAME, .is_file = src->is_file,
				   .defaultargs = c.opts.defaultargs, .argref = c.opts.argref };
	struct d_program *prog = d_parse(&dg, types, src->is_file ? src->arg : "-n", text, &pa);
	if (!prog)
		return 1;
	for (int j = 0; j < prog->clauses.len; j++)
		set_clause_source(prog->clauses.items[j], &dg);
	for (int i = 1; i < c.sources.len; i++) {   /* the other sources join the first */
		struct d_source *more = &c.sources.items[i];
		dg.what = xasprintf("invalid probe specifier %s", more->arg);
		char *t = more->is_file ? read_source(more->arg) : source_text(&dg, more);
		if (!t) {
			fprintf(stderr, "dtrace: failed to open %s: %s\n", more->arg, strerror(errno));
			return 2;
		}
		dg.text = t;
		dg.no_lines = !more->is_file;
		dg.what = more->is_file ? xasprintf("failed to compile script %s", more->arg)
					: xasprintf("invalid probe specifier %s", more->arg);
		pa.is_file = more->is_file;
		struct d_program *p2 = d_parse(&dg, types, more->is_file ? more->arg : "-n", t, &pa);
		for (int j = 0; j < p2->clauses.len; j++) {
			set_clause_source(p2->clauses.items[j], &dg);
			p2->clauses.items[j]->index = prog->clauses.len;
			vec_push(&prog->clauses, p2->clauses.items[j]);
		}
		for (int j = 0; j < p2->decls.len; j++)
			vec_push(&prog->decls, p2->decls.items[j]);
		for (int j = 0; j < p2->pragmas.len; j++)
			vec_push(&prog->pragmas, p2->pragmas.items[j]);
	}
	for (int i = 0; i < prog->pragmas.len; i++) {
		struct d_pragma *pr = prog->pragmas.items[i];
		if (pr->kind == DP_OPTION && set_option(&c.opts, pr->name, pr->value))
			d_error(&dg, "D_PRAGMA_OPTSET", pr->pos, "failed to set option '%s': Invalid option name", pr->name);
	}
	if (c.list)   /* -l: the probes the descriptions match, nothing run */
		return d_provider_list_program(prog, c.verbose);
	sema.prog = prog;
	sema.types = types;
	if (d_check(&sema))
		return 1;
	char *script = d_lower(&sema);
	if (c.verbose && !c.dump_lowered && src->is_file)
		d_provider_stability(&sema, src->arg);
	if (c.dump_lowered) {
		fputs(script, stdout);
		return 0;
	}

	/* stap's passes on the lowered script */
	VEC(char *) av = { 0 };
	vec_push(&av, "stap");
	vec_push(&av, "-w");   /* the lowered script's warnings are not the user's */
	if (c.compile_only)   /* -e: passes 1-4, their errors alone */
		vec_push(&av, "-p4");
	if (c.cmd) {   /* DTrace splits the command at blanks, no shell: stap's runs one */
		vec_push(&av, "-c");
		vec_push(&av, shell_words(c.cmd));
	}
	if (c.pid) {
		vec_push(&av, "-x");
		vec_push(&av, xasprintf("%ld", c.pid));
	}
	for (int i = 0; i < c.stap_args.len; i++)
		vec_push(&av, c.stap_args.items[i]);
	/* a string literal longer than a BPF string's default: strings of
	 * strsize bytes and the NUL (as long as BPF's may be) */
	if (sema.longest_string >= BPF_STRSZ && c.opts.strsize >= BPF_STRSZ) {
		int64_t n = c.opts.strsize + 1 < BPF_STRSZ_MAX ? c.opts.strsize + 1 : BPF_STRSZ_MAX;
		vec_push(&av, xasprintf("-DMAXSTRINGLEN=%lld", (long long)n));
	}
	vec_push(&av, "-e");
	vec_push(&av, script);
	vec_push(&av, NULL);
	struct announce an = {
		.kind = src->is_file ? "script" : "description",
		.name = src->arg,
		.probes = d_provider_matched(&sema),
	};
	optind = 0;
	an.quiet = c.opts.quiet;
	an.compile_only = c.compile_only;
	an.destructive = c.opts.destructive;
	return stap_run(av.len - 1, av.items, announce, &an);
}
