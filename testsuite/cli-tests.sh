#!/bin/bash
# cli-tests.sh - stap on the host, passes 1-4: tagged diagnostics
# (testsuite/semko/TAG.name.stp must fail with [TAG]; NAME.opts adds options),
# -p1 round trip, -p2/-p3 output, -k, -p4 -m NAME, the -v pass lines.
# usage: cli-tests.sh    env: CSTAP_BUILD (build dir)
set -u
export CSTAP_DEFAULT_RUNTIME=kernel   # modules in a guest where this host loads none (native-tests.sh: the default)
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CSTAP_BUILD:-$(pwd)}
[ -x "$build/translator/stap" ] || build=$src
STAP=$build/translator/stap
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
pass=0; fail=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; shift; printf '    %s\n' "$@"; fail=$((fail + 1)); }
# CSTAP_QUICK=1 (make check-quick): passes 1-3 only, no kbuild and no guest
full() { [ "${CSTAP_QUICK:-0}" != 1 ]; }

# Each negative test names its tag; it must fail with that tag, a position
# and a caret line, without a crash, and print each diagnostic once.
for f in "$src"/testsuite/semko/*.stp; do
	name=$(basename "$f" .stp); tag=${name%%.*}
	opts=(); [ -f "${f%.stp}.opts" ] && read -r -a opts < "${f%.stp}.opts"
	out=$(cd "$(dirname "$f")" && "$STAP" -p3 "${opts[@]}" "$(basename "$f")" 2>&1 >/dev/null); rc=$?
	if [ $rc -ne 0 ] && [ $rc -lt 128 ] && grep -q "\[$tag\]" <<< "$out"; then
		dup=$(grep -E '^[a-z]+ error' <<< "$out" | sort | uniq -d)
		if [ -n "$dup" ]; then
			bad "semko/$name" "a diagnostic printed twice: $dup"
		elif [ "$tag" != E_GLOBAL_SET ] && ! grep -q "at $name.stp:[0-9]*:[0-9]*" <<< "$out"; then
			bad "semko/$name" "no file:line:col in: $out"
		elif [ "$tag" != E_GLOBAL_SET ] && ! grep -q '^ *\^$' <<< "$out"; then
			bad "semko/$name" "no caret line in: $out"
		else
			ok "semko/$name"
		fi
	else
		bad "semko/$name" "rc=$rc, expected tag [$tag]; got:" "$out"
	fi
done

cd "$work"
script='global n = 3, s; function f:string(x:long) { return sprint(x * 2) }
probe begin { s <<< 1; for (i = 0; i < n; i++) { a[i] = f(i) } foreach (k- in a limit 2) printf("%d %s\n", k, a[k]); exit() }
global a'
# -p1 prints source that parses again to the same text (<<< is parsed too)
if "$STAP" -p1 -e "$script" > p1.stp 2> p1.err && "$STAP" -p1 p1.stp > p1b.stp 2>&1 &&
   diff <(grep -v '^# file' p1.stp) <(grep -v '^# file' p1b.stp) > /dev/null && grep -q '<<<' p1.stp; then
	ok "-p1 round trip"
else
	bad "-p1 round trip" "$(cat p1.err p1.stp p1b.stp)"
fi

# options after the script file are options, as SystemTap's getopt permutes them
# (`stap x.stp -c CMD`); only the words after the file that are not options are
# script arguments
printf 'probe begin { println(@1) }\n' > after.stp
out=$("$STAP" -p2 after.stp -v word 2>&1)
if grep -q '^Pass 1:' <<< "$out" && grep -q '"word"' <<< "$out"; then
	ok "options after the script file"
else
	bad "options after the script file" "$out"
fi

# an alias's kernel.trace alternative given .return is no match: the next
# alternative is taken (as SystemTap)
out=$("$STAP" -p2 -e 'probe foo = kernel.trace("sched_switch") !, kernel.function("vfs_read") {}
probe foo.return { println(1) }' 2>&1)
if grep -q '^kernel.function("vfs_read@[^"]*").return' <<< "$out"; then
	ok "alias alternative: kernel.trace(...).return falls through"
else
	bad "alias alternative: kernel.trace(...).return falls through" "$out"
fi

# every tapset file parses (a broken one is only skipped with a warning when
# a script needs it: this says which, and where)
bad_tapsets=""
for t in "$src"/tapsets/*.stp; do
	"$STAP" -g -p1 "$t" > /dev/null 2> "$work/tapset.err" || bad_tapsets+="$(head -1 "$work/tapset.err")"$'\n'
done
if [ -z "$bad_tapsets" ]; then ok "every tapset file parses"; else bad "every tapset file parses" "$bad_tapsets"; fi

# -l lists what the pattern names only: not the probes of tapset files
# its aliases pull in (argv.stp's begin(-1001) came along with syscall.*)
out=$("$STAP" -l 'syscall.*' 2>&1); rc=$?
stray=$(grep -v '^syscall\.' <<< "$out" | head -3)
if [ $rc = 0 ] && [ -z "$stray" ] && [ "$(wc -l <<< "$out")" -gt 300 ]; then
	ok "-l syscall.* lists syscall.* only"
else
	bad "-l syscall.* lists syscall.* only" "rc=$rc, lines $(wc -l <<< "$out"), stray: $stray"
fi

script2='global n = 3; function f:string(x:long) { return sprint(x * 2) }
probe begin { for (i = 0; i < n; i++) { a[i] = f(i) } foreach (k- in a limit 2) printf("%d %s\n", k, a[k]); exit() }
probe timer.ms(100) { n++ }
global a'
out=$("$STAP" -p2 -e "$script2" 2>&1)
if grep -q '^n:long' <<< "$out" && grep -q '^a:string \[long\]' <<< "$out" &&
   grep -q '^f:string (x:long)' <<< "$out" && grep -q 'timer.ms(100)' <<< "$out"; then
	ok "-p2 shows types and probes"
else
	bad "-p2 shows types and probes" "$out"
fi
# a generated syscall alias whose kernel argument is named as a library
# global (execveat's argv, the argv tapset's) gets it as argv_arg, not the
# global: with script arguments argv.stp's argv[1] = @1 made it a type
# error (errsnoop.stp 1 10); argv_1 is the argv tapset's own
out=$("$STAP" -p2 -e 'probe syscall.execveat { println(argv_arg) } probe begin { println(argv_1) }' x y 2>&1)
if [ $? = 0 ] && grep -q '^argv_1:string' <<< "$out" && ! grep -q '^argv:long' <<< "$out"; then
	ok "a generated syscall alias's argument named as a library global (argv) is argv_arg"
else
	bad "syscall.execveat's argv and the argv tapset" "$(head -5 <<< "$out")"
fi
# a sampling perf probe of a program: -p2 as SystemTap 4.8 prints it (the
# default period, the program's real path); .sample after .process (cstap's,
# as after an alias) gives the same point with that period
out=$("$STAP" -p2 -e 'probe perf.sw.task_clock.process("/bin/true") { print(1) }
probe perf.type(1).config(0).process("/bin/true").sample(5000) { print(2) }' 2>&1)
if grep -qxF 'perf.type(1).config(1).sample(1000000).process("/usr/bin/true") /* <- perf.type(1).config(1).process("/bin/true") */' <<< "$out" &&
   grep -qF 'perf.type(1).config(0).sample(5000).process("/usr/bin/true") /*' <<< "$out"; then
	ok "-p2 of perf .process sampling probes"
else
	bad "-p2 of perf .process sampling probes" "$out"
fi
out=$("$STAP" -p3 -e "$script2" 2>&1)
if grep -q 'stp_script_start' <<< "$out" && grep -q 'runtime_main.h' <<< "$out"; then
	ok "-p3 prints the module source"
else
	bad "-p3 prints the module source" "$(head -5 <<< "$out")"
fi
out=$("$STAP" -k -p3 -e "$script2" 2>&1 >/dev/null)
dir=$(sed -n 's/^Keeping temporary directory "\(.*\)"$/\1/p' <<< "$out")
if [ -n "$dir" ] && ls "$dir"/*.c > /dev/null 2>&1; then
	ok "-k keeps the build directory"; rm -rf "$dir"
else
	bad "-k keeps the build directory" "$out"
fi
if full; then   # kbuild
	out=$("$STAP" -v -p4 --disable-cache -m cli_hello -e 'probe begin { printf("hello %s %d\n", "world", 42); exit() }' 2>err)
	if [ "$out" = cli_hello.ko ] && [ -s cli_hello.ko ] && modinfo=$(strings cli_hello.ko | grep '^name=cli_hello$') &&
	   grep -q '^Pass 1: parsed user script and [0-9]* library scripts using .* in [0-9]*usr/[0-9]*sys/[0-9]*real ms\.$' err &&
	   grep -q '^Pass 2: analyzed script: 1 probe, 1 function, 1 embed, 0 globals using' err &&
	   grep -q '^Pass 3: translated to C into ".*cli_hello.c" using' err &&
	   grep -q '^Pass 4: compiled C into "cli_hello.ko" in [0-9]*usr/[0-9]*sys/[0-9]*real ms\.$' err; then
		ok "-v -p4 -m NAME leaves NAME.ko and prints the pass lines"
	else
		bad "-v -p4 -m NAME" "stdout: $out" "$(cat err)"
	fi
	# no ftrace entry calls in the module: the kernel checks each at load with a
	# scan of all the module's symbols (quadratic: kernel.function("*") never loaded)
	if [ -s cli_hello.ko ] && ! readelf -SW cli_hello.ko | grep -q '__mcount_loc\|__patchable_function_entries'; then
		ok "modules are built without ftrace's entry calls (no __mcount_loc)"
	else
		bad "ftrace entry calls in the module" "$(readelf -SW cli_hello.ko | grep -i mcount)"
	fi
fi
# a glob in a suffix (kernel.function("f").*): each function-point suffix
# that resolves, as SystemTap 4.8 expands it (.call, .callees, .return ...)
out=$("$STAP" -p2 -e 'probe kernel.function("vfs_read").* { println(1) }' 2>&1)
if grep -q '^kernel.function("vfs_read@[^)]*).call ' <<<"$out" && grep -q '^kernel.function("vfs_read@[^)]*).return ' <<<"$out" &&
   grep -q 'callees' <<<"$out"; then
	ok "kernel.function(\"f\").* expands to the suffixes that resolve"
else
	bad "kernel.function(\"f\").*" "$out"
fi
# MAXKPROBES (semko/E_TOO_MANY_KPROBES.*): -D raises it; with --runtime=bpf a
# .call entry is a kprobe too (BPF attaches all through the kprobe PMU)
rw='probe kernel.function("*@fs/read_write.c") { }'
if "$STAP" -p2 -u -DMAXKPROBES=200 -e "$rw" > /dev/null 2>&1 &&
   ! out=$("$STAP" -p2 -u -DMAXKPROBES=100 -e "$rw" 2>&1) && grep -q 'E_TOO_MANY_KPROBES' <<< "$out"; then
	ok "-DMAXKPROBES=N sets the kprobe limit"
else
	bad "-DMAXKPROBES=N" "$out"
fi
rw='probe kernel.function("*@fs/read_write.c").call { }'
if "$STAP" -p2 -u -DMAXKPROBES=20 -e "$rw" > /dev/null 2>&1 &&
   ! out=$("$STAP" -p2 -u --runtime=bpf --remote=qemu -DMAXKPROBES=20 -e "$rw" 2>&1) && grep -q 'E_TOO_MANY_KPROBES' <<< "$out"; then
	ok "MAXKPROBES counts ftrace entries only with --runtime=bpf"
else
	bad "MAXKPROBES and .call" "$out"
fi
# a kernel without a kbuild tree (a host that runs BPF has none, often): the
# syscall tapset's decoding tables come from this system's uapi headers
# (linux-libc-dev), and the decoders build into BPF
out=$(CSTAP_DUMP_SYSCALLS=1 "$STAP" --runtime=bpf -p4 -r 9.9.9-nokbuild -m nokbuild \
	-e 'probe timer.s(1) { println(_sys_open_flag_str(0x241), errno_str(-2)) }' 2>&1 >/dev/null)
if [ -s nokbuild.bo ] && grep -q '{ "O_CREAT", 64LL }' <<< "$out" && grep -q '{ "ENOENT", 2LL }' <<< "$out"; then
	ok "decoding tables without a kbuild tree, from /usr/include"
else
	bad "decoding tables without a kbuild tree" "$(tail -5 <<< "$out")"
fi
if "$STAP" --list-tags | grep -q '^E_UNRESOLVED_FUNC *semantic error: '; then
	ok "--list-tags"
else
	bad "--list-tags" "$("$STAP" --list-tags 2>&1 | head -3)"
fi

# pass-1 inputs: a file, -e, - (stdin), -E (more scripts, named <inputN>),
# -I DIR (its .stp functions, embedded C allowed there without -g, and the
# macros of its .stpm files)
printf 'probe begin { x = 1 }\n' > in1.stp
out=$("$STAP" -p1 in1.stp 2>&1)
if grep -q '^# file in1.stp$' <<< "$out" && grep -q '^(x) = (1);$' <<< "$out"; then
	ok "-p1 FILE"
else
	bad "-p1 FILE" "$out"
fi
out=$("$STAP" -p1 - < in1.stp 2>&1)
if grep -q '^# file <input>$' <<< "$out" && grep -q '^(x) = (1);$' <<< "$out"; then
	ok "-p1 - reads the script from stdin"
else
	bad "-p1 - reads the script from stdin" "$out"
fi
out=$("$STAP" -p1 -E 'probe end { y = 2 }' -E 'probe end { z = 3 }' -e 'probe begin { x = 1 }' 2>&1)
err=$("$STAP" -p1 -E 'probe end { y = }' in1.stp 2>&1); erc=$?
out2=$("$STAP" -p2 -E 'probe end { y = 2; println(y) }' in1.stp 2>&1)
if [ "$(grep '^# file' <<< "$out" | tr '\n' ' ')" = "# file <input> # file <input1> # file <input2> " ] &&
   grep -q '^(z) = (3);$' <<< "$out" && [ $erc = 1 ] &&
   grep -q 'P_EXPECT_EXPR.* at <input1>:1:17' <<< "$err" &&
   grep -q '^end /\* <- end \*/' <<< "$out2"; then
	ok "-E SCRIPT adds scripts to the main one"
else
	bad "-E SCRIPT adds scripts to the main one" "$out" "$err" "$out2"
fi
mkdir -p tdir
printf 'function tdir_f:long(a:long) { return a + tdir_c() }\nfunction tdir_c:long() %%{ STAP_RETVALUE = 7; %%}\n' > tdir/lib.stp
printf '%%( arch == "x86_64" %%? @define tdir_m(x) %%( tdir_f(@x) %%) %%)\n' > tdir/lib.stpm
out=$("$STAP" -I tdir -p2 -e 'probe begin { println(@tdir_m(2)) }' 2>&1)
if grep -q '^tdir_c:long ()$' <<< "$out" && grep -q '^println(tdir_f(2));$' <<< "$out" &&
   ! "$STAP" -p1 -e 'probe begin { println(@tdir_m(2)) }' > /dev/null 2>&1; then
	ok "-I DIR: tapset functions, embedded C and .stpm macros"
else
	bad "-I DIR: tapset functions, embedded C and .stpm macros" "$out"
fi
# the same embedded C in the user's script needs -g
out=$("$STAP" -p1 tdir/lib.stp 2>&1); rc=$?
if [ $rc = 1 ] && grep -q 'P_EMBEDDED_NOT_GURU' <<< "$out" && "$STAP" -g -p1 tdir/lib.stp > /dev/null 2>&1; then
	ok "embedded C function: refused without -g in a user script, accepted with -g"
else
	bad "embedded C function without -g" "rc=$rc" "$out"
fi
# PP1 !, PP2: once PP1 resolves, PP2 is not tried (no error for it); when
# PP1 does not, PP2 is
out=$("$STAP" -p2 -u -e 'probe begin !, kernel.function("no_such_fn_cstap") { }' 2>&1); rc=$?
out2=$("$STAP" -p2 -u -e 'probe never.nothing_here !, begin { }' 2>&1); rc2=$?
if [ $rc = 0 ] && [ $rc2 = 0 ] && grep -q '^begin' <<< "$out2"; then
	ok "sufficient probe point (!) ends the list"
else
	bad "sufficient probe point (!)" "rc=$rc rc2=$rc2" "$out" "$out2"
fi
# the syscall tapset: every syscall.*/.return elaborates (argument-less calls too), and its
# decoding tables come from the target kernel's headers (skipped without a target kernel)
if "$STAP" -p2 -e 'probe syscall.*.return, nd_syscall.*.return { }' > /dev/null 2>tab.err; then
	tab=$(CSTAP_DUMP_SYSCALLS=1 "$STAP" -p2 -e 'probe begin { println(_signal_name(15), _sys_open_flag_str(0x80241)) }' 2>&1 >/dev/null)
	if grep -q '{ "SIGTERM", 15LL }' <<< "$tab" && grep -q '{ "O_CLOEXEC", 524288LL }' <<< "$tab" &&
	   grep -q '{ "O_CREAT", 64LL }' <<< "$tab" && grep -q '{ "read", 0LL }' <<< "$tab" &&
	   "$STAP" -L 'syscall.openat' | grep -q '^syscall.openat name:string dfd:long dfd_str:string filename:string'; then
		ok "syscall tapset: syscall.*.return elaborates; tables from the kernel's headers; -L lists the alias"
	else
		bad "syscall tapset tables or -L" "$(head -c 2000 <<< "$tab")"
	fi
elif grep -q 'no syscall\|cannot\|no target' tab.err; then
	echo "SKIP: syscall tapset (no target kernel)"
else
	bad "syscall.*.return elaborates" "$(head -20 tab.err)"
fi
# --check-version: a used tapset alias whose text depends on systemtap_v is
# reported (an error with -W, as SystemTap's deprecated01 expects); without the
# option, or for the user's own conditionals, nothing is said
acc='probe nd_syscall.accept { println(flags_str) } function f() { %( systemtap_v >= "2.0" %? return 1 %: return 2 %) }
probe begin { println(f()) }'
out=$("$STAP" --check-version --compatible=2.5 -W -p2 -e "$acc" 2>&1 >/dev/null); rc=$?
out2=$("$STAP" --check-version --compatible=2.5 -p2 -e "$acc" 2>&1 >/dev/null); rc2=$?
out3=$("$STAP" --compatible=2.5 -p2 -e "$acc" 2>&1 >/dev/null); rc3=$?
if [ $rc = 1 ] && grep -q '\[W_VERSION_DEPENDENT\]: this alias uses tapset constructs that are dependent on systemtap version at .*syscalls.stp:[0-9]*:1$' <<< "$out" &&
   [ "$(grep -c W_VERSION_DEPENDENT <<< "$out")" = 1 ] && [ $rc2 = 0 ] && grep -q W_VERSION_DEPENDENT <<< "$out2" &&
   [ $rc3 = 0 ] && [ -z "$out3" ]; then
	ok "--check-version reports a version-dependent tapset alias once (-W: an error)"
else
	bad "--check-version" "rc=$rc: $out" "rc=$rc2: $out2" "rc=$rc3: $out3"
fi
# a plain one-liner through pass 5: its output, and on stderr at most the
# one line saying it runs in a QEMU guest (no runner chatter without -v)
if full; then   # a guest
	out=$("$STAP" -e 'probe begin { println("hi"); exit() }' 2> err.txt); rc=$?
	if [ $rc = 0 ] && [ "$out" = hi ] && [ "$(grep -cv '^stap: this kernel cannot load modules; running in a QEMU guest' err.txt)" = 0 ]; then
		ok "stap -e runs the script and says nothing more"
	else
		bad "stap -e through pass 5" "rc=$rc stdout=$out" "$(cat err.txt)"
	fi
fi
# -c ./prog through pass 5: the guest gets the host's program named by a
# relative path (and its libraries), and a process probe on it fires there
cat > uprog.c <<'EOF2'
#include <stdio.h>
int twice(int x) { return 2 * x; }
int main(int argc, char **argv) { printf("prog %d\n", twice(argc)); return 0; }
EOF2
if gcc -g -O0 -o uprog uprog.c && full; then
	out=$("$STAP" -c './uprog a b' -e 'probe process("./uprog").function("twice") { printf("twice(%d)\n", $x) }' 2> err.txt); rc=$?
	if [ $rc = 0 ] && [ "$out" = $'twice(3)\nprog 6' ]; then
		ok "stap -c ./prog with a process probe on it, through pass 5"
	else
		bad "stap -c ./prog through pass 5" "rc=$rc stdout=$out" "$(cat err.txt)"
	fi
fi
# -c NAME with a probe on NAME's shared library: the guest runs the host's
# program (not busybox's applet), whose libc the probe is on
if full; then   # a guest
	out=$("$STAP" -e 'global n; probe process("/bin/ls").library("libc.so.6").function("malloc") { n++ }
		probe end { printf("mallocs: %d\n", n > 10) }' -c 'ls /' 2> err.txt | tail -1); rc=$?
	if [ "$out" = "mallocs: 1" ]; then
		ok "stap -c ls with a probe on ls's libc runs the host's ls in the guest"
	else
		bad "stap -c ls with a libc probe" "rc=$rc stdout=$out" "$(cat err.txt)"
	fi
fi
# process(PID) and -x PID: the probes are on that process's program (this
# host's /proc/PID/exe), as SystemTap names them
if [ -x uprog ]; then
	printf '#include <unistd.h>\nint tick(int x) { return x + 1; }\nint main(void) { int s = 0; for (;;) { s = tick(s); sleep(1); } }\n' > uloop.c
	gcc -g -O0 -o uloop uloop.c && { ./uloop & lp=$!; }
	want="process(\"$PWD/uloop\").function(\"tick@$PWD/uloop.c:2\")"
	a=$("$STAP" -l "process($lp).function(\"t*\")" 2>&1)
	b=$("$STAP" -p2 -x "$lp" -e 'probe process.function("tick") { println($x) }' 2>&1 | grep -o '^process([^ ]*)')
	kill "$lp" 2>/dev/null
	if [ "$a" = "$want" ] && [ "$b" = "$want" ]; then
		ok "process(PID) and -x PID name that process's program"
	else
		bad "process(PID) / -x PID" "wanted: $want" "got: $a / $b"
	fi
fi
# pass 4 tests the kernel's features (stp_kfeatures.h): every STP_HAVE_ macro
# the runtime decides on is tested, on every installed kernel, from a cold
# cache, and a second build takes the cached verdicts
used=$(grep -ho 'STP_HAVE_[A-Z0-9][A-Z0-9_]*' "$src"/runtime/*.h | sort -u)
for rel in $(full && "$build/translator/stap-vm" --releases 2>/dev/null); do   # (kbuild)
	kc=$(mktemp -d)
	e1=$(cd "$kc" && XDG_CACHE_HOME=$kc/cache "$STAP" -vv -k -p4 -r "$rel" -e 'probe begin { println(1) }' 2>&1)
	e2=$(cd "$kc" && XDG_CACHE_HOME=$kc/cache "$STAP" -vv -p4 -r "$rel" -e 'probe begin { exit() }' 2>&1)
	kept=$(printf '%s\n' "$e1" | sed -n 's/^Keeping temporary directory "\(.*\)"$/\1/p')
	untested=""
	for m in $used; do
		grep -q "^#define $m 1$\|^/\* #undef $m \*/$" "$kept/stp_kfeatures.h" 2>/dev/null || untested="$untested $m"
	done
	if [ -z "$untested" ] && grep -qF "kernel features of $rel tested" <<<"$e1" &&
	   ! grep -qF "kernel features of $rel tested" <<<"$e2"; then
		ok "kernel features of $rel tested once, each STP_HAVE_ the runtime uses"
	else
		bad "kernel features of $rel" "untested:${untested:- none}" "$(printf '%s\n' "$e1" | grep -i "feature\|error" | head -5)"
	fi
	# the second build (another script, so another module name) replays the
	# first one's kbuild recipe
	if grep -qF "built with the cached kbuild recipe" <<<"$e2"; then
		ok "a module of another name builds with the cached kbuild recipe ($rel)"
	else
		bad "kbuild recipe not replayed for another module name ($rel)" "$(grep "Pass 4" <<<"$e2")"
	fi
	# ... through the kernel headers precompiled then (pch.c), also with a -D
	# the headers never look at (the first build of each set of -D runs kbuild);
	# one they do look at (CONFIG_SMP: autoconf.h's own value) makes GCC read
	# them as text
	e3=$(cd "$kc" && XDG_CACHE_HOME=$kc/cache "$STAP" -vv -p4 -DMAXSTRINGLEN=99 -r "$rel" -e 'probe begin { exit() }' 2>&1)
	e4=$(cd "$kc" && XDG_CACHE_HOME=$kc/cache "$STAP" -vv -p4 -DMAXSTRINGLEN=99 -r "$rel" -e 'probe begin { println(1) exit() }' 2>&1)
	e5=$(cd "$kc" && XDG_CACHE_HOME=$kc/cache "$STAP" -vv -p4 -DCONFIG_SMP=1 -r "$rel" -e 'probe begin { exit() }' 2>&1)
	e6=$(cd "$kc" && XDG_CACHE_HOME=$kc/cache "$STAP" -vv -p4 -DCONFIG_SMP=1 -r "$rel" -e 'probe begin { println(1) exit() }' 2>&1)
	if grep -qF "compiled with the precompiled kernel headers" <<<"$e2" && ls "$kc"/cache/cstap/pch-*.h.gch > /dev/null 2>&1 &&
	   grep -qF "compiled with the precompiled kernel headers" <<<"$e4" &&
	   grep -qF "the precompiled kernel headers were not used: \`CONFIG_SMP' is defined" <<<"$e6"; then
		ok "the kernel's headers precompiled once, used with -D NAME where they can be ($rel)"
	else
		bad "precompiled kernel headers ($rel)" "$(grep -h "^stap:\|rror" <<<"$e2"$'\n'"$e3"$'\n'"$e4"$'\n'"$e5"$'\n'"$e6")"
	fi
	rm -rf "$kc" "$kept"
done
# stap -l over a wildcard of aliases leaves out those that resolve to
# nothing (optional or not), as SystemTap 4.8; named alone, one is an error
zz=$(mktemp -d)
printf '%s\n' 'probe zzz.a = kernel.function("vfs_read") {}' 'probe zzz.b = kernel.function("nosuch_fn_xyz") ? {}' \
	'probe zzz.c = kernel.function("nosuch_fn_xyz2") {}' > "$zz/zzz.stp"
a=$("$STAP" -I "$zz" -l 'zzz.*' 2>&1); ra=$?
b=$("$STAP" -I "$zz" -l 'zzz.c' 2>&1); rb=$?
if [ "$a" = zzz.a ] && [ $ra = 0 ] && [ $rb != 0 ] && grep -q 'E_PROBE_POINT' <<<"$b"; then
	ok "-l over a wildcard of aliases skips the ones that do not resolve"
else
	bad "-l over a wildcard of aliases" "zzz.*: rc=$ra $a" "zzz.c: rc=$rb $b"
fi
rm -rf "$zz"
# make install must carry every runtime header and tapset file
missing=""
for f in "$src"/runtime/*.h "$src"/tapsets/*.stp "$src"/tapsets/*.stpm; do
	[ -e "$f" ] || continue
	rel=${f#$src/}
	grep -q "$rel" "$src/runtime/local.mk" "$src/tapsets/local.mk" || missing="$missing $rel"
done
if [ -z "$missing" ]; then ok "runtime and tapsets listed for make install"; else bad "not installed:$missing"; fi
# --dump-*: the library and the probe families, no script needed
for d in "functions|^execname:string () /\* unprivileged \*/$" "probe-types|^kernel.function()$" \
	"probe-aliases|^vfs.read = kernel.function(\"vfs_read\")"; do
	opt=${d%%|*}; want=${d#*|}
	if out=$("$STAP" --dump-$opt 2>&1) && grep -q "$want" <<<"$out" && [ "$(sort -u <<<"$out")" = "$out" ]; then
		ok "--dump-$opt"
	else
		bad "--dump-$opt" "want a sorted list with a line matching $want" "$(head -3 <<<"$out")"
	fi
done
# options that are refused say why, tagged
for d in "--rlimit-cpu=12X|--rlimit-cpu takes a number" "--rlimit-as=|--rlimit-as takes a number" \
	"-T 0|-T takes a timeout" "-i --dump-probe-aliases|cannot be used with -l/-L/--dump-*" \
	"--monitor --dump-functions|cannot be used with -l/-L/--dump-*" "-i|interactive mode) is not supported" \
	"-a arm64|cstap builds for x86_64 only" "-B novalue|-B takes NAME=VALUE" \
	"--privilege=root|--privilege takes stapusr, stapsys or stapdev" "--sysroot=/nonexistent|--sysroot: '/nonexistent' is not a directory" \
	"--sysenv=PATH|--sysenv takes VAR=VALUE" "--sysenv=PATH=/bin|it needs --sysroot=DIR" \
	"--tmpdir=/nonexistent|--tmpdir '/nonexistent' is not a writable directory" \
	"-S 1,2|-S switches output files: it needs -o FILE" "-o x -S 0|-S takes MB[,N]" \
	"--remote=libvirt://dom|--remote supports 'qemu' and ssh://" \
	"--remote=qemu --remote=root@h|cannot be used together" \
	"-g --privilege=stapusr|-g (guru mode) is not allowed with --privilege=stapusr" \
	"--unprivileged -g|-g (guru mode) is not allowed with --privilege=stapusr" \
	"--privilege=stapsys -D MAXACTION=10|-D (a macro for the module's build) is not allowed with --privilege=stapsys" \
	"--privilege=stapusr -I /tmp|-I (tapset directories of your own) is not allowed" \
	"--privilege=stapusr -R /tmp|-R (another runtime) is not allowed" \
	"--privilege=stapusr -B V=1|-B (kbuild variables) is not allowed"; do
	args=${d%%|*}; want=${d#*|}
	# shellcheck disable=SC2086 # the options are split on purpose
	out=$("$STAP" -p1 $args -e 'probe begin {}' 2>&1)
	if [ $? != 0 ] && grep -qF "usage error [O_USAGE]: " <<<"$out" && grep -qF -- "$want" <<<"$out"; then
		ok "stap $args: $want"
	else
		bad "stap $args" "want a tagged '$want', got: $out"
	fi
done
# pass 5 in a guest: -w reaches staprun (-vv shows its command) and drops the
# script's warnings; -F (flight recorder) is refused, the guest powers off
if full && [ ! -e /proc/modules ] && command -v qemu-system-x86_64 > /dev/null; then
	out=$("$STAP" -vv -w -e 'probe begin { warn("boo"); println("x"); exit() }' 2> "$work/w.err")
	# (stdout apart: -vv's lines would split the output's line)
	if grep -q '^Running staprun .*-w /ko/' "$work/w.err" && ! grep -q 'WARNING: boo' "$work/w.err" && [ "$out" = x ]; then
		ok "stap -w: staprun -w, the script's warning dropped"
	else
		bad "stap -w" "$out" "$(grep -v "^Pass" "$work/w.err" | head -12)"
	fi
	for o in "-F|-F (flight recorder)" "-b|-b (per-CPU files)"; do
		out=$("$STAP" "${o%%|*}" -e 'probe begin { exit() }' 2>&1)
		if [ $? != 0 ] && grep -qF "usage error [O_USAGE]: ${o#*|} needs a host that loads modules" <<<"$out"; then
			ok "stap ${o%%|*} with a guest: refused, tagged"
		else
			bad "stap ${o%%|*} with a guest" "$out"
		fi
	done
fi
# --tmpdir: the build directory goes there; -B: a make variable for kbuild
# (so kbuild runs: a replayed recipe has none); -a x86_64 is accepted
td=$(mktemp -d)
out=$("$STAP" -k -p3 -a x86_64 --tmpdir="$td" -e 'probe begin { exit() }' 2>&1 >/dev/null)
if grep -q "^Keeping temporary directory \"$td/stap" <<<"$out"; then ok "--tmpdir, -a x86_64"; else bad "--tmpdir" "$out"; fi
if full; then   # kbuild
	out=$(cd "$td" && "$STAP" -vv -p4 --disable-cache -B KBUILD_VERBOSE=0 -m cli_b -e 'probe begin { exit() }' 2>&1)
	if [ -s "$td/cli_b.ko" ] && ! grep -q "cached kbuild recipe" <<<"$out"; then ok "-B NAME=VALUE builds with kbuild"; else bad "-B" "$(tail -3 <<<"$out")"; fi
fi
rm -rf "$td"
# --privilege=stapusr: what it allows builds, and says so in .modinfo
# (-g, -D, -I, -R, -B are refused with it: the O_USAGE list above; -b's
# own define is not a -D)
out=$("$STAP" -p2 -b --privilege=stapusr -e 'probe begin { exit() }' 2>&1)
if [ $? = 0 ]; then ok "-b with --privilege=stapusr"; else bad "-b with --privilege" "$out"; fi
td=$(mktemp -d)
if ! full; then :   # (kbuild)
elif (cd "$td" && "$STAP" -p4 --unprivileged -m cli_usr -e 'probe begin { printf("%d %s\n", uid(), execname()) } probe process.begin { exit() }' > /dev/null 2>&1) &&
   strings "$td/cli_usr.ko" | grep -qx 'stap_privilege=stapusr'; then
	ok "--unprivileged builds begin/process probes, modinfo stap_privilege=stapusr"
else
	bad "--unprivileged module"
fi
rm -rf "$td"
# --example NAME: a script of examples/
if out=$("$STAP" -p2 --example who_opens /etc 2>&1) && grep -q '^# probes' <<<"$out"; then
	ok "--example NAME runs examples/NAME.stp"
else
	bad "--example" "$(head -3 <<<"$out")"
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
