/* session.h - everything one run of stap knows: options, target kernel,
 * the parsed files and what pass 2 derived from them.
 */
#ifndef CSTAP_SESSION_H
#define CSTAP_SESSION_H

#include "ast.h"

struct derived_probe;
struct tvar_table;
struct target;
struct tapset_library;

struct session {
	/* options */
	int last_pass;            /* -p N (default 5) */
	int verbose;              /* -v count */
	bool guru;                /* -g */
	bool skip_badvars;        /* --skip-badvars: unresolvable $vars read as 0 */
	bool no_time_limits;      /* --suppress-time-limits (guru): no MAXACTION, no
				   * MAXTRYLOCK give-up */
	bool suppress_handler_errors; /* --suppress-handler-errors: counted, not printed */
	enum { PRIV_STAPDEV, PRIV_STAPSYS, PRIV_STAPUSR } privilege; /* --privilege, --unprivileged */
	const char *sign_key, *sign_cert; /* --sign-key/--sign-cert (CSTAP_SIGN_KEY/_CERT): pass 4 signs */
	bool keep_unused;         /* -u */
	bool suppress_warnings;   /* -w */
	int muted;                /* > 0: diag() drops everything (-l over a wildcard
				   * of aliases skips those that do not resolve) */
	bool warnings_are_errors; /* -W */
	bool check_version;       /* --check-version: warn of version-dependent tapset code */
	bool keep_tmpdir;         /* -k */
	bool timing;              /* -t: per-probe hits and cycles at exit */
	bool list_mode;           /* -l / -L */
	bool list_vars;           /* -L: with each point's variables */
	enum { DUMP_NONE, DUMP_FUNCTIONS, DUMP_PROBE_TYPES, DUMP_PROBE_ALIASES } dump; /* --dump-* */
	const char *module_name;  /* -m NAME, or stap_<hash>_<pid> */
	bool module_name_given;   /* -m was used */
	bool module_stays;        /* dtrace -e: pass 4's module not copied here */
	const char *output_file;  /* -o FILE */
	const char *rotate;       /* -S MB[,N]: staprun switches output files */
	bool flight;              /* -F: staprun -L (load, start, detach), with -o -D */
	bool bulk;                /* -b: a file per CPU (STP_BULKMODE; stap-merge) */
	const char *cmd;          /* -c CMD */
	long target_pid;          /* -x PID */
	int bufsize_mb;           /* -s N */
	const char *kernel_release; /* -r RELEASE, then target_kernel(s)->release */
	const char *kernel_build; /* target_kernel(s)->build: /lib/modules/REL/build */
	/* the target kernel's CONFIG_ lines, read when pass 1 first asks
	 * (target/kernel.c's kernel_config_text; NULL: none known) */
	const char *(*kernel_config)(struct session *s);
	const char *sysroot;      /* --sysroot=DIR (its realpath), or NULL: target/sysroot.h */
	VEC(char *) sysenv;       /* --sysenv=VAR=VALUE: the target's environment */
	const char *remote;       /* --remote=qemu / NULL */
	VEC(char *) ssh_remotes;  /* --remote=ssh://[USER@]HOST[:PORT] or [USER@]HOST */
	bool remote_prefix;       /* --remote-prefix: "N: " before each host's lines */
	const char *runtime_dir;  /* -R DIR */
	int kprobes;              /* pass 2: kernel kprobe table entries the probes take */
	bool runtime_bpf;         /* --runtime=bpf: eBPF programs for stapbpf, not a module */
	bool runtime_given;       /* --runtime or --bpf was given */
	bool runtime_auto;        /* BPF because this host loads no modules (options.c) */
	VEC(char *) defines;      /* -D NAME[=VALUE] */
	VEC(char *) kbuild_vars;  /* -B NAME=VALUE: make variables for kbuild */
	const char *tmp_base;     /* --tmpdir, else $TMPDIR, else /tmp */
	VEC(char *) globals_set;  /* -G var=value */
	VEC(char *) include_dirs; /* -I DIR, then the default tapset dir */
	VEC(char *) args;         /* script arguments $1 ... */
	VEC(char *) script_files; /* FILE / - */
	const char *script_text;  /* -e TEXT */
	VEC(char *) extra_scripts; /* -E TEXT ..., run with the main script */
	const char *arch;         /* "x86_64" */
	const char *compatible;   /* --compatible=V: behave as SystemTap V */
	VEC(char *) unwind_files; /* -d FILE: user files whose symbols and unwind
				   * tables the module carries (a kernel module
				   * name: kallsyms has it already) */
	bool ldd;                 /* --ldd: and the shared libraries of those files
				   * and of the probed ones */
	bool all_modules;         /* --all-modules: every kernel module's symbols,
				   * which kallsyms gives anyway */

	/* pass 1 */
	struct script *user;             /* the user's script (first file / -e) */
	VEC(struct script *) user_more;  /* further user script files */
	VEC(struct script *) library;    /* the tapset files parsed, in library order
					  * (pass 2 parses one when it needs a name
					  * it defines: library_need), then those
					  * pass 2 generates */
	int library_files;               /* the library's files (the pass 1 -v line) */
	struct tapset_library *tapsets;  /* parse/library.c: the files and their index */

	/* pass 2: what is kept */
	VEC(struct sym *) globals;
	VEC(struct func *) funcs;
	VEC(struct derived_probe *) probes;
	VEC(struct embed *) embeds;
	VEC(struct regex_prog *) regexes; /* every =~ / !~, compiled (pass 2; regex.h) */
	void **provider_states;   /* each probe family's own, by providers[] index */
	struct tvar_table *tvars; /* elaborate/tvars.c: resolved target expressions */
	VEC(struct probe *) aliases;     /* every probe alias, the user's first (alias.c) */
	bool aliases_listed;             /* aliases is filled */

	/* pass 3/4 */
	char *tmpdir;             /* build directory */
	char *c_file;             /* generated source */
	char *ko_file;            /* module built by pass 4 (--runtime=bpf: the bundle) */
	struct bpf_unit *bpf_unit;   /* --runtime=bpf: the script lowered at pass 2's end */

	/* the files passes 2-4 read beyond those known before pass 1 and
	 * whether they can be listed at all (inputs.c; the cache keys on them) */
	VEC(char *) inputs;       /* each path once (input_note) */
	const char *inputs_unkeyable; /* why the run has no key before pass 1 */

	/* the module cache (cache/modcache.c). An option that changes what
	 * passes 1-4 make must be part of its key (modcache.c, run_key). */
	bool no_cache;            /* --disable-cache */
	char *cache_key;          /* the run's key before pass 1; NULL: none */
	char *cache_c_key;        /* its key after pass 3; NULL: none */
	bool cache_hit;           /* the module came from the cache */
	struct strbuf *cache_diags; /* the diagnostics passes 1-4 printed */
	VEC(char *) run_modules;  /* on a hit: the kernel modules the guest loads */
	VEC(char *) run_files;    /* on a hit: the files process probes are on */

	/* the target kernel and what was loaded for it (target/target.h) */
	struct target *target;

	/* diagnostics */
	int errors;
	int warnings;
};

#endif
