/* options.c - stap's command line, and where things are (runtime, tapsets,
 * kernel build tree), decided once so later passes just read the session.
 */
#include "options.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diag.h"
#include "env.h"
#include "spawn.h"
#include "cache/modcache.h"
#include "target/kernel.h"

#ifndef PKGDATADIR
#define PKGDATADIR "/usr/local/share/cstap"
#endif

static void usage(FILE *f)
{
	fputs("Usage: stap [options] FILE [ARGS...]        run a script file (- for stdin)\n"
	      "   or: stap [options] -e SCRIPT [ARGS...]   run the script given as text\n"
	      "   or: stap --dtrace [dtrace options]        run a D program (as dtrace(1))\n"
	      "  (-E SCRIPT, repeatable, adds a script run with the main one)\n"
	      "Options:\n"
	      "  -p NUM          stop after pass NUM (1 parse, 2 elaborate, 3 translate, 4 build, 5 run)\n"
	      "  -v              more verbose (repeatable); prints each pass's time\n"
	      "  -k              keep the build directory\n"
	      "  -t              report each probe's hits and cycle costs at exit\n"
	      "  -g              guru mode: embedded C and writes to kernel memory\n"
	      "  -u              keep unused code (check everything)\n"
	      "  --skip-badvars  read target variables that cannot be resolved as 0\n"
	      "  --suppress-time-limits  (with -g) no MAXACTION limit, locks waited for\n"
	      "  --suppress-handler-errors  a probe handler's run-time error ends it quietly\n"
	      "                  (counted in the closing warning, not fatal)\n"
	      "  -w / -W         suppress warnings / treat warnings as errors\n"
	      "  --compatible=V  behave as SystemTap version V\n"
	      "  --check-version warn of the tapset constructs used that depend on the version\n"
	      "  -m NAME         name the module NAME (pass 4 leaves NAME.ko here)\n"
	      "  -o FILE         send the script's output to FILE\n"
	      "  -S MB[,N]       with -o: FILE.0, FILE.1 ... of at most MB each, the last N kept\n"
	      "  -F              flight recorder: load, start and detach (staprun -L; with -o,\n"
	      "                  in the background: staprun -D)\n"
	      "  -c CMD          run CMD while the script runs, end with it; target() is its pid\n"
	      "  -x PID          set target() to PID\n"
	      "  -T SECS         end the script after SECS seconds\n"
	      "  -b              bulk mode: each CPU's output in a file of its own (-o FILE:\n"
	      "                  FILE_N, else stpd_cpuN), merged by stap-merge\n"
	      "  -s NUM          output buffer size in MiB\n"
	      "  -D NAME[=VAL]   define a C macro for the module build (MAXACTION=...)\n"
	      "  -G VAR=VAL      set a global variable's value at load time\n"
	      "  -I DIR          look for tapsets in DIR too\n"
	      "  -l PROBE        list the probe points PROBE matches, then stop\n"
	      "  -L PROBE        the same, with their variables\n"
	      "  --dump-functions / --dump-probe-types / --dump-probe-aliases\n"
	      "                  list the tapset functions, the probe point families, the\n"
	      "                  tapset probe aliases, then stop\n"
	      "  -R DIR          use the runtime in DIR\n"
	      "  --runtime=MODE  kernel (a kernel module, the default) or bpf (eBPF programs\n"
	      "                  run by stapbpf: no module, no kbuild; doc/bpf-bundle.md);\n"
	      "                  with bpf the target kernel is the running one unless -r\n"
	      "  --bpf           --runtime=bpf\n"
	      "  -B NAME=VAL     pass a make variable to kbuild (pass 4)\n"
	      "  -a ARCH         the target architecture: x86_64 (the only one)\n"
	      "  --tmpdir=DIR    make build directories in DIR (default $TMPDIR, /tmp)\n"
	      "  --sysroot=DIR   build for the system whose files are under DIR: its kernel\n"
	      "                  (DIR/lib/modules/REL, DIR/usr/lib/debug, DIR/boot), its\n"
	      "                  programs (process(\"/bin/ls\") reads DIR/bin/ls)\n"
	      "  --sysenv=VAR=VALUE  the target's environment (PATH for bare program names,\n"
	      "                  LD_LIBRARY_PATH for their libraries) with --sysroot\n"
	      "  --privilege=LEVEL  who may load the module: stapdev (root, the default),\n"
	      "                  stapsys or stapusr (users of those groups; pass 2 then allows\n"
	      "                  only what SystemTap marks unprivileged and no kernel data,\n"
	      "                  and -g -D -I -R -B are refused); --unprivileged: stapusr\n"
	      "  --sign-key=KEY --sign-cert=CERT  sign the module (pass 4) with the private\n"
	      "                  key and its certificate (PEM or DER; default $CSTAP_SIGN_KEY,\n"
	      "                  $CSTAP_SIGN_CERT): staprun loads a signed --privilege module\n"
	      "                  for stapusr when CERT is in /etc/cstap/staprun/; a kernel that\n"
	      "                  enforces signatures loads it when CERT is enrolled (mokutil)\n"
	      "  --rlimit-as/cpu/fsize/nproc/stack=N  stap's own resource limits\n"
	      "  --disable-cache neither use nor fill the module cache (~/.cache/cstap/modules)\n"
	      "  --clean-cache   remove the least recently used modules beyond the cache's size\n"
	      "                  limit (modules/cache_mb_limit, MiB, default 256), then stop\n"
	      "  -r RELEASE      build for kernel RELEASE (default: the running one, or the\n"
	      "                  newest installed one when modules run in a guest)\n"
	      "  --remote=qemu   run pass 5 in a QEMU guest booting the target kernel\n"
	      "                  (the default when this kernel cannot load modules)\n"
	      "  --remote=ssh://[USER@]HOST[:PORT]  run pass 5 on HOST over ssh (repeatable:\n"
	      "                  built once per kernel the hosts run, run on all at once)\n"
	      "  --remote-prefix put \"N: \" (the host's index) before each line of its output\n"
	      "  --example NAME  run the example script NAME (see examples/README)\n"
	      "  --list-tags     list the diagnostic tags with their meaning\n"
	      "  -V, --version   print the version\n", f);
}

void session_init(struct session *s)
{
	memset(s, 0, sizeof(*s));
	s->last_pass = 5;
	s->target_pid = 0;
	s->arch = "x86_64";
}

static bool has_stp_suffix(const char *n)
{
	size_t len = strlen(n);

	return len > 4 && !strcmp(n + len - 4, ".stp");
}

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A file next to the stap binary (build tree), else the installed one:
 * where it is installed beside stap (BIN/../share/cstap/REL: a tree moved
 * or installed under DESTDIR), else where configure said. */
static char *locate(enum env_var env, const char *rel, const char *installed)
{
	static const char *const paths[] = { "../%1$s", "../share/cstap/%1$s", NULL };
	const char *e = env_or(env, NULL);
	char *p = e ? NULL : beside_self(rel, true, paths);

	return e ? xstrdup(e) : p ? p : xstrdup(installed);
}

/*
 * A host that loads no modules (lockdown, CONFIG_MODULES off, a sandbox)
 * but runs BPF with the kernel's BTF traces itself with the BPF runtime,
 * unless the user asked otherwise: a runtime, a kernel (-r, CSTAP_RELEASE),
 * a remote or a root of another system, what only modules do (signing,
 * kbuild variables, an unprivileged user's module), or
 * CSTAP_DEFAULT_RUNTIME=kernel. BPF needs root. Else the module runs in
 * a QEMU guest of an installed kernel, as --remote=qemu does.
 */
static bool native_bpf_by_default(const struct session *s)
{
	const char *def = env_get(ENV_CSTAP_DEFAULT_RUNTIME), *rel = env_get(ENV_CSTAP_RELEASE);

	if (s->runtime_given || s->kernel_release || (rel && *rel) || s->remote || s->ssh_remotes.len ||
	    s->sysroot || s->sign_key || s->kbuild_vars.len || s->privilege != PRIV_STAPDEV ||
	    (def && !strcmp(def, "kernel")))
		return false;
	return geteuid() == 0 && !host_can_load_modules() && access("/sys/kernel/btf/vmlinux", R_OK) == 0;
}

/* The target kernel (target/kernel.c decides), or a usage error when
 * there is none to build for. */
static int choose_kernel(struct session *s)
{
	const struct target_kernel *k = target_kernel(s);

	if (!k->release && s->sysroot) {
		diag(s, B_NO_KERNEL, (struct srcpos){0}, "no kernel to build for under the sysroot %s: it has no "
		     "boot/vmlinuz-REL with lib/modules/REL/build (or give -r REL)", s->sysroot);
		return 1;
	}
	if (!k->release) {
		diag(s, B_NO_KERNEL, (struct srcpos){0},
		     "no kernel to build for: this kernel cannot load modules and no other kernel with "
		     "a build tree is installed (apt-get install linux-image-cloud-amd64 linux-headers-cloud-amd64)");
		return 1;
	}
	s->kernel_release = k->release;
	s->kernel_build = k->build;
	s->kernel_config = kernel_config_text;
	return 0;
}

/* stap_<hash>_<pid>: unique per run unless -m names it. */
static char *default_module_name(struct session *s)
{
	const char *t = s->script_text ? s->script_text : (s->script_files.len ? s->script_files.items[0] : "");
	uint64_t h = hash64(t, strlen(t));
	return xasprintf("stap_%012llx_%d", (unsigned long long)(h & 0xffffffffffffULL), (int)getpid());
}

static bool valid_module_name(const char *n)
{
	if (!*n || strlen(n) > 55)
		return false;
	for (const char *p = n; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_')
			return false;
	return true;
}

/* The build directory goes under --tmpdir, else $TMPDIR, else /tmp: it must
 * exist, and its name must not trip up the shell or make (kbuild), as
 * SystemTap requires. */
static int check_tmpdir(struct session *s)
{
	const char *t = s->tmp_base ? s->tmp_base : env_get(ENV_TMPDIR);
	const char *what = s->tmp_base ? "--tmpdir" : "TMPDIR";

	if (!t || !*t) {
		s->tmp_base = "/tmp";
		return 0;
	}
	if (!is_dir(t) || access(t, W_OK) != 0) {
		diag(s, O_USAGE, (struct srcpos){0}, "%s '%s' is not a writable directory", what, t);
		return 1;
	}
	for (const char *p = t; *p; p++) {
		if (!isalnum((unsigned char)*p) && !strchr("/._-+,@", *p)) {
			diag(s, O_USAGE, (struct srcpos){0},
			     "%s '%s' has a character the module build cannot cope with: '%c'", what, t, *p);
			return 1;
		}
	}
	s->tmp_base = t;
	return 0;
}

/* --rlimit-as/cpu/fsize/nproc/stack=N: stap's own limit (soft and hard),
 * as SystemTap sets them; i indexes the options in that order. */
static int set_rlimit(struct session *s, int i, const char *v)
{
	static const struct { const char *name; int res; } lim[] = {
		{ "--rlimit-as", RLIMIT_AS }, { "--rlimit-cpu", RLIMIT_CPU },
		{ "--rlimit-fsize", RLIMIT_FSIZE }, { "--rlimit-nproc", RLIMIT_NPROC },
		{ "--rlimit-stack", RLIMIT_STACK },
	};
	char *end;
	unsigned long long n = strtoull(v, &end, 10);

	if (!*v || *end || *v == '-') {
		diag(s, O_USAGE, (struct srcpos){0}, "%s takes a number, not '%s'", lim[i].name, v);
		return 1;
	}
	struct rlimit r = { .rlim_cur = n, .rlim_max = n };
	if (setrlimit(lim[i].res, &r) != 0) {
		diag(s, O_USAGE, (struct srcpos){0}, "%s=%s: %s", lim[i].name, v, strerror(errno));
		return 1;
	}
	return 0;
}

/* --example NAME: the script is examples/NAME(.stp), from the build tree
 * or the installed examples. */
static int find_example(struct session *s)
{
	const char *name = s->script_files.len ? s->script_files.items[0] : NULL;
	char *dir = locate(ENV_CSTAP_EXAMPLES, "examples", PKGDATADIR "/examples");

	if (!name || s->script_text || strchr(name, '/')) {
		diag(s, O_USAGE, (struct srcpos){0}, "--example takes the name of an example (ls %s)", dir);
		return 1;
	}
	char *path = xasprintf("%s/%s%s", dir, name, has_stp_suffix(name) ? "" : ".stp");
	if (access(path, R_OK) != 0) {
		diag(s, O_FILE, (struct srcpos){0}, "no example '%s' in %s", name, dir);
		return 1;
	}
	s->script_files.items[0] = path;
	return 0;
}

/* --sign-key and --sign-cert (else CSTAP_SIGN_KEY and CSTAP_SIGN_CERT):
 * both or neither, files that can be read, and a module to sign. */
static int check_signing(struct session *s)
{
	if (!s->sign_key && !s->sign_cert) {
		s->sign_key = env_or(ENV_CSTAP_SIGN_KEY, NULL);
		s->sign_cert = env_or(ENV_CSTAP_SIGN_CERT, NULL);
	}
	if (!s->sign_key != !s->sign_cert) {
		diag(s, O_USAGE, (struct srcpos){0}, "%s needs %s too (the private key and its certificate)",
		     s->sign_key ? "--sign-key" : "--sign-cert", s->sign_key ? "--sign-cert" : "--sign-key");
		return 1;
	}
	if (!s->sign_key)
		return 0;
	if (s->runtime_bpf) {
		diag(s, O_USAGE, (struct srcpos){0}, "--sign-key signs kernel modules: --runtime=bpf makes none");
		return 1;
	}
	const char *files[] = { s->sign_key, s->sign_cert };
	for (int i = 0; i < 2; i++)
		if (access(files[i], R_OK) != 0) {
			diag(s, O_USAGE, (struct srcpos){0}, "cannot read %s: %s", files[i], strerror(errno));
			return 1;
		}
	return 0;
}

/* --privilege=stapusr|stapsys: a module its users may load through setuid
 * staprun must hold nothing but what pass 2 checks, so the options that
 * put other code or settings into it are refused, as SystemTap's compile
 * server refuses them to unprivileged users: -g (guru mode: embedded C,
 * kernel writes), -D (runtime limits and switches), -I (tapsets of one's
 * own), -R (another runtime), -B (kbuild variables). Call before the
 * library's directory joins include_dirs and runtime_dir gets its
 * default. Returns 1 (and reports each) if one was given. */
static int check_privileged_options(struct session *s)
{
	const char *lv = s->privilege == PRIV_STAPSYS ? "stapsys" : "stapusr";
	const struct { bool given; const char *opt; } refused[] = {
		{ s->guru, "-g (guru mode)" },
		{ s->defines.len > (s->bulk ? 1 : 0), "-D (a macro for the module's build)" },   /* -b adds one */
		{ s->include_dirs.len > 0, "-I (tapset directories of your own)" },
		{ s->runtime_dir != NULL, "-R (another runtime)" },
		{ s->kbuild_vars.len > 0, "-B (kbuild variables)" },
	};
	int bad = 0;

	if (s->privilege == PRIV_STAPDEV)
		return 0;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (refused[i].given) {
			diag(s, O_USAGE, (struct srcpos){0}, "%s is not allowed with --privilege=%s "
			     "(a module for unprivileged users holds only what pass 2 checks)", refused[i].opt, lv);
			bad = 1;
		}
	return bad;
}

/* Returns 0 to go on, -1 to exit successfully (help), >0 to fail. */
int parse_options(struct session *s, int argc, char **argv)
{
	enum { OPT_REMOTE = 256, OPT_LIST_TAGS, OPT_COMPATIBLE, OPT_PROLOGUE, OPT_SKIP_BADVARS,
	       OPT_NO_TIME_LIMITS, OPT_CHECK_VERSION, OPT_DISABLE_CACHE, OPT_CLEAN_CACHE, OPT_LDD,
	       OPT_ALL_MODULES, OPT_MONITOR, OPT_RLIMIT_AS, OPT_RLIMIT_CPU, OPT_RLIMIT_FSIZE,
	       OPT_RLIMIT_NPROC, OPT_RLIMIT_STACK, OPT_DUMP_FUNCTIONS, OPT_DUMP_PROBE_TYPES,
	       OPT_DUMP_PROBE_ALIASES, OPT_SUPPRESS_HANDLER_ERRORS, OPT_TMPDIR, OPT_PRIVILEGE,
	       OPT_UNPRIVILEGED, OPT_SYSROOT, OPT_SYSENV, OPT_EXAMPLE, OPT_REMOTE_PREFIX, OPT_RUNTIME, OPT_BPF,
	       OPT_SIGN_KEY, OPT_SIGN_CERT };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "remote", required_argument, NULL, OPT_REMOTE },
		{ "remote-prefix", no_argument, NULL, OPT_REMOTE_PREFIX },
		{ "runtime", required_argument, NULL, OPT_RUNTIME },
		{ "bpf", no_argument, NULL, OPT_BPF },
		{ "list-tags", no_argument, NULL, OPT_LIST_TAGS },
		{ "compatible", required_argument, NULL, OPT_COMPATIBLE },
		{ "prologue-searching", optional_argument, NULL, OPT_PROLOGUE },
		{ "skip-badvars", no_argument, NULL, OPT_SKIP_BADVARS },
		{ "suppress-time-limits", no_argument, NULL, OPT_NO_TIME_LIMITS },
		{ "suppress-handler-errors", no_argument, NULL, OPT_SUPPRESS_HANDLER_ERRORS },
		{ "tmpdir", required_argument, NULL, OPT_TMPDIR },
		{ "privilege", required_argument, NULL, OPT_PRIVILEGE },
		{ "unprivileged", no_argument, NULL, OPT_UNPRIVILEGED },
		{ "sign-key", required_argument, NULL, OPT_SIGN_KEY },
		{ "sign-cert", required_argument, NULL, OPT_SIGN_CERT },
		{ "sysroot", required_argument, NULL, OPT_SYSROOT },
		{ "sysenv", required_argument, NULL, OPT_SYSENV },
		{ "example", no_argument, NULL, OPT_EXAMPLE },
		{ "check-version", no_argument, NULL, OPT_CHECK_VERSION },
		/* the module cache (cache/modcache.c) */
		{ "disable-cache", no_argument, NULL, OPT_DISABLE_CACHE },
		{ "clean-cache", no_argument, NULL, OPT_CLEAN_CACHE },
		{ "interactive", no_argument, NULL, 'i' },
		{ "dump-functions", no_argument, NULL, OPT_DUMP_FUNCTIONS },
		{ "dump-probe-types", no_argument, NULL, OPT_DUMP_PROBE_TYPES },
		{ "dump-probe-aliases", no_argument, NULL, OPT_DUMP_PROBE_ALIASES },
		{ "monitor", optional_argument, NULL, OPT_MONITOR },
		{ "rlimit-as", required_argument, NULL, OPT_RLIMIT_AS },
		{ "rlimit-cpu", required_argument, NULL, OPT_RLIMIT_CPU },
		{ "rlimit-fsize", required_argument, NULL, OPT_RLIMIT_FSIZE },
		{ "rlimit-nproc", required_argument, NULL, OPT_RLIMIT_NPROC },
		{ "rlimit-stack", required_argument, NULL, OPT_RLIMIT_STACK },
		{ "all-modules", no_argument, NULL, OPT_ALL_MODULES },
		{ "ldd", no_argument, NULL, OPT_LDD },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	bool clean_cache = false;
	const char *mode = NULL;   /* -i / --monitor: SystemTap's own front ends */
	bool example = false;      /* --example: FILE names one of the examples */

	opterr = 0;   /* our own messages, tagged like every diagnostic */
	while ((c = getopt_long(argc, argv, ":hVp:vktguwWim:o:c:x:s:S:FbT:D:G:I:R:r:e:E:l:L:d:a:B:", longopts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return -1;
		case 'V': printf("cstap (SystemTap-compatible) version " PACKAGE_VERSION "\n"); return -1;
		case 'p':
			s->last_pass = atoi(optarg);
			if (s->last_pass < 1 || s->last_pass > 5) {
				diag(s, O_USAGE, (struct srcpos){0}, "-p takes 1 to 5, not '%s'", optarg);
				return 1;
			}
			break;
		case 'v': s->verbose++; break;
		case 'k': s->keep_tmpdir = true; break;
		case 't': s->timing = true; break;
		case 'g': s->guru = true; break;
		case 'u': s->keep_unused = true; break;
		case 'w': s->suppress_warnings = true; break;
		case 'W': s->warnings_are_errors = true; break;
		case 'm':
			if (!valid_module_name(optarg)) {
				diag(s, O_USAGE, (struct srcpos){0},
				     "module name '%s' must be letters, digits and _ (at most 55)", optarg);
				return 1;
			}
			s->module_name = optarg;
			s->module_name_given = true;
			break;
		case 'o': s->output_file = optarg; break;
		case 'S': {
			char *end;
			long mb = strtol(optarg, &end, 10), keep = 1;
			if (*end == ',')
				keep = strtol(end + 1, &end, 10);
			if (!isdigit((unsigned char)*optarg) || *end || mb < 1 || mb > 4095 || keep < 1) {
				diag(s, O_USAGE, (struct srcpos){0}, "-S takes MB[,N] (file size 1 to 4095 MiB, files kept), not '%s'", optarg);
				return 1;
			}
			s->rotate = optarg;
			break;
		}
		case 'F': s->flight = true; break;
		case 'b':   /* the runtime sends each CPU's output on its own (transport.h) */
			if (!s->bulk)
				vec_push(&s->defines, (char *)"STP_BULKMODE");
			s->bulk = true;
			break;
		case 'c': s->cmd = optarg; break;
		case 'x': s->target_pid = atol(optarg); break;
		case 's':
			s->bufsize_mb = atoi(optarg);
			if (s->bufsize_mb < 1 || s->bufsize_mb > 4095) {
				diag(s, O_USAGE, (struct srcpos){0}, "-s takes a buffer size of 1 to 4095 MiB, not '%s'", optarg);
				return 1;
			}
			break;
		case 'D': vec_push(&s->defines, optarg); break;
		case 'G':
			if (!strchr(optarg, '=')) {
				diag(s, O_USAGE, (struct srcpos){0}, "-G needs VAR=VALUE, not '%s'", optarg);
				return 1;
			}
			vec_push(&s->globals_set, optarg);
			break;
		case 'I': vec_push(&s->include_dirs, optarg); break;
		case 'R': s->runtime_dir = optarg; break;
		case 'r': s->kernel_release = optarg; break;
		case 'e':
			if (s->script_text) {
				diag(s, O_USAGE, (struct srcpos){0}, "only one -e script may be given");
				return 1;
			}
			s->script_text = optarg;
			break;
		case 'E': vec_push(&s->extra_scripts, optarg); break;
		case 'l':
		case 'L':
			/* as SystemTap: -l PROBE is the script "probe PROBE {}" through pass 2 */
			if (s->script_text) {
				diag(s, O_USAGE, (struct srcpos){0}, "-%c cannot be used with -e or another -l/-L", c);
				return 1;
			}
			s->script_text = xasprintf("probe %s {}", optarg);
			s->list_mode = true;
			s->list_vars = c == 'L';
			s->last_pass = 2;
			break;
		case OPT_COMPATIBLE: s->compatible = optarg; break;
		case OPT_PROLOGUE:
			if (optarg && strcmp(optarg, "always") && strcmp(optarg, "never") && strcmp(optarg, "auto")) {
				diag(s, O_USAGE, (struct srcpos){0}, "--prologue-searching takes always, never or auto");
				return 1;
			}
			break;
		case OPT_REMOTE:
			if (!strcmp(optarg, "qemu")) {
				s->remote = "qemu";
			} else if (!strncmp(optarg, "ssh://", 6) || (!strstr(optarg, "://") &&
				   strncmp(optarg, "unix:", 5) && *optarg && *optarg != '-')) {
				vec_push(&s->ssh_remotes, optarg);
			} else {
				diag(s, O_USAGE, (struct srcpos){0},
				     "--remote supports 'qemu' and ssh://[USER@]HOST[:PORT] ([USER@]HOST), not '%s'", optarg);
				return 1;
			}
			break;
		case OPT_REMOTE_PREFIX: s->remote_prefix = true; break;
		case OPT_RUNTIME:   /* kernel: a module (the default); bpf: stapbpf's programs */
			if (strcmp(optarg, "kernel") && strcmp(optarg, "bpf")) {
				diag(s, O_USAGE, (struct srcpos){0}, "--runtime takes kernel or bpf, not '%s'", optarg);
				return 1;
			}
			s->runtime_bpf = !strcmp(optarg, "bpf");
			s->no_cache |= s->runtime_bpf;   /* a bundle is made in milliseconds */
			s->runtime_given = true;
			break;
		case OPT_BPF:   /* SystemTap's short form */
			s->runtime_bpf = s->no_cache = s->runtime_given = true;
			break;
		case OPT_LIST_TAGS: diag_list_tags(); return -1;
		case OPT_SKIP_BADVARS: s->skip_badvars = true; break;
		case OPT_NO_TIME_LIMITS: s->no_time_limits = true; break;
		case OPT_SUPPRESS_HANDLER_ERRORS: s->suppress_handler_errors = true; break;
		case OPT_TMPDIR: s->tmp_base = optarg; break;
		case OPT_EXAMPLE: example = true; break;
		case 'a':   /* SystemTap's architecture names for this one */
			if (strcmp(optarg, "x86_64") && strcmp(optarg, "amd64")) {
				diag(s, O_USAGE, (struct srcpos){0}, "-a %s: cstap builds for x86_64 only", optarg);
				return 1;
			}
			break;
		case 'B':
			if (!strchr(optarg, '=') || optarg[0] == '=') {
				diag(s, O_USAGE, (struct srcpos){0}, "-B takes NAME=VALUE (a kbuild make variable), not '%s'", optarg);
				return 1;
			}
			vec_push(&s->kbuild_vars, optarg);
			break;
		case OPT_UNPRIVILEGED: s->privilege = PRIV_STAPUSR; break;
		case OPT_SIGN_KEY: s->sign_key = optarg; break;
		case OPT_SIGN_CERT: s->sign_cert = optarg; break;
		case OPT_PRIVILEGE:
			if (!strcmp(optarg, "stapdev")) s->privilege = PRIV_STAPDEV;
			else if (!strcmp(optarg, "stapsys")) s->privilege = PRIV_STAPSYS;
			else if (!strcmp(optarg, "stapusr")) s->privilege = PRIV_STAPUSR;
			else {
				diag(s, O_USAGE, (struct srcpos){0}, "--privilege takes stapusr, stapsys or stapdev, not '%s'", optarg);
				return 1;
			}
			break;
		case OPT_SYSROOT: {
			char real[PATH_MAX];
			if (!realpath(optarg, real) || !is_dir(real)) {
				diag(s, O_USAGE, (struct srcpos){0}, "--sysroot: '%s' is not a directory", optarg);
				return 1;
			}
			s->sysroot = strcmp(real, "/") ? xstrdup(real) : NULL;   /* "/" is the host */
			break;
		}
		case OPT_SYSENV:
			if (!strchr(optarg, '=') || *optarg == '=') {
				diag(s, O_USAGE, (struct srcpos){0}, "--sysenv takes VAR=VALUE, not '%s'", optarg);
				return 1;
			}
			vec_push(&s->sysenv, optarg);
			break;
		case OPT_CHECK_VERSION: s->check_version = true; break;
		case OPT_DISABLE_CACHE: s->no_cache = true; break;
		case 'i': mode = "-i (interactive mode)"; break;
		case OPT_MONITOR: mode = "--monitor"; break;
		case OPT_DUMP_FUNCTIONS: s->dump = DUMP_FUNCTIONS; break;
		case OPT_DUMP_PROBE_TYPES: s->dump = DUMP_PROBE_TYPES; break;
		case OPT_DUMP_PROBE_ALIASES: s->dump = DUMP_PROBE_ALIASES; break;
		case 'T': {
			char *end;
			long t = strtol(optarg, &end, 10);
			if (*optarg == '\0' || *end || t < 1 || t > INT_MAX / 1000) {
				diag(s, O_USAGE, (struct srcpos){0}, "-T takes a timeout in seconds, not '%s'", optarg);
				return 1;
			}
			/* as SystemTap: a probe of the script's own (staprun's -T is
			 * something else: how long stapio waits between reads) */
			vec_push(&s->extra_scripts, xasprintf("probe timer.ms(%ld) {exit()}", t * 1000));
			break;
		}
		case OPT_RLIMIT_AS: case OPT_RLIMIT_CPU: case OPT_RLIMIT_FSIZE:
		case OPT_RLIMIT_NPROC: case OPT_RLIMIT_STACK:
			if (set_rlimit(s, c - OPT_RLIMIT_AS, optarg))
				return 1;
			break;
		case OPT_CLEAN_CACHE: clean_cache = true; break;
		/* user files' symbols and unwind tables go into the module
		 * (target/ustack.c); a kernel module's are in kallsyms */
		case 'd':
			if (strchr(optarg, '/'))
				vec_push(&s->unwind_files, xstrdup(optarg));
			break;
		case OPT_LDD: s->ldd = true; break;
		case OPT_ALL_MODULES: s->all_modules = true; break;
		case ':':
			diag(s, O_USAGE, (struct srcpos){0}, "option '%s' needs an argument (stap --help)",
			     argv[optind - 1]);
			return 1;
		default:
			if (optopt)
				diag(s, O_USAGE, (struct srcpos){0}, "unknown option '-%c' (stap --help)", optopt);
			else
				diag(s, O_USAGE, (struct srcpos){0}, "unknown option '%s' (stap --help)",
				     argv[optind - 1]);
			return 1;
		}
	}
	if (clean_cache)   /* SystemTap's: bound the cache, then stop */
		return modcache_clean(s) ? 1 : -1;
	if (mode) {
		if (s->list_mode || s->dump)
			diag(s, O_USAGE, (struct srcpos){0}, "%s cannot be used with -l/-L/--dump-* (it is a way to run a script, those only list)", mode);
		else
			diag(s, O_USAGE, (struct srcpos){0}, "%s is not supported by cstap: run the script with stap FILE", mode);
		return 1;
	}
	if (s->dump && !s->script_text && optind >= argc)
		s->script_text = "probe never {}";   /* the library alone */
	if (!s->script_text) {
		if (optind >= argc) {
			diag(s, O_USAGE, (struct srcpos){0}, "no script given (a file, - for stdin, or -e SCRIPT)");
			return 1;
		}
		vec_push(&s->script_files, argv[optind++]);
	}
	if (example && find_example(s))
		return 1;
	for (; optind < argc; optind++)
		vec_push(&s->args, argv[optind]);
	if (s->no_time_limits && !s->guru) {
		diag(s, O_USAGE, (struct srcpos){0}, "--suppress-time-limits requires guru mode (-g)");
		return 1;
	}
	if (s->rotate && !s->output_file) {
		diag(s, O_USAGE, (struct srcpos){0}, "-S switches output files: it needs -o FILE");
		return 1;
	}
	if (s->remote && s->ssh_remotes.len) {
		diag(s, O_USAGE, (struct srcpos){0}, "--remote=qemu and --remote=ssh://... cannot be used together");
		return 1;
	}
	if (s->cmd && s->target_pid) {
		diag(s, O_USAGE, (struct srcpos){0}, "-c and -x cannot be used together");
		return 1;
	}
	if (s->sysenv.len && !s->sysroot) {
		diag(s, O_USAGE, (struct srcpos){0}, "--sysenv sets the environment of a --sysroot's system: "
		     "it needs --sysroot=DIR");
		return 1;
	}
	if (native_bpf_by_default(s))
		s->runtime_bpf = s->no_cache = s->runtime_auto = true;
	if (check_tmpdir(s) || check_privileged_options(s) || check_signing(s))
		return 1;

	const char *rt = env_or(ENV_SYSTEMTAP_RUNTIME, NULL);   /* SystemTap's name for it */
	if (!s->runtime_dir)
		s->runtime_dir = rt ? rt : locate(ENV_CSTAP_RUNTIME, "runtime", PKGDATADIR "/runtime");
	const char *st = env_or(ENV_SYSTEMTAP_TAPSET, NULL);   /* SystemTap's name for it */
	vec_push(&s->include_dirs, st ? xstrdup(st) : locate(ENV_CSTAP_TAPSETS, "tapsets", PKGDATADIR "/tapsets"));
	if (!s->module_name)
		s->module_name = default_module_name(s);
	return choose_kernel(s);
}

/* A fresh build directory, s->tmpdir, under --tmpdir/$TMPDIR//tmp; 0, or
 * 1 with a diagnostic. */
int session_mkdtemp(struct session *s)
{
	char *tmpl = xasprintf("%s/stapXXXXXX", s->tmp_base ? s->tmp_base : "/tmp");

	if (!mkdtemp(tmpl)) {
		diag(s, T_INTERNAL, (struct srcpos){0}, "cannot create a build directory in %s", tmpl);
		free(tmpl);
		return 1;
	}
	s->tmpdir = tmpl;
	return 0;
}

/* Remove the build directory (unless -k, which says where it is). */
static int rm_tree(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (!d)
		return unlink(path);
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *p = xasprintf("%s/%s", path, de->d_name);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			rm_tree(p);
		else
			unlink(p);
		free(p);
	}
	closedir(d);
	return rmdir(path);
}

long long session_define(const struct session *s, const char *name, long long dflt)
{
	size_t n = strlen(name);

	for (int i = 0; i < s->defines.len; i++) {
		const char *d = s->defines.items[i];
		if (!strncmp(d, name, n) && (d[n] == '=' || !d[n]))
			dflt = d[n] ? strtoll(d + n + 1, NULL, 0) : 1;
	}
	return dflt;
}

void cleanup_session(struct session *s)
{
	if (!s->tmpdir)
		return;
	if (s->keep_tmpdir) {
		fprintf(stderr, "Keeping temporary directory \"%s\"\n", s->tmpdir);
		return;
	}
	rm_tree(s->tmpdir);
}
