#!/bin/bash
# native-tests.sh - stap --bpf on this host, natively (no guest): the host a
# user is on, here one with BPF and BTF but maybe no kprobes, no BPF
# trampolines and no debuginfo (as CI's). Checked: the running kernel is
# the default target (no guest notice); begin, timer and end probes,
# timer.profile, a process probe; exit_status()'s status;
# kernel.trace through BTF (no DWARF) with its arguments as $vars, -L and
# -l of them; tapset functions in a tracepoint probe; a run-time error
# (its message, status 1); kernel.function and syscall probes either
# running (where the kernel attaches them) or, where it cannot, never
# silent: the registration warning with its reason, ERROR [B_ATTACH], and
# the -c command not run; two scripts (tracepoint and syscall variables;
# the string, formatting and aggregate functions, timers, a run-time error)
# and -D MAXSTRINGLEN=256's long strings;
# printing what the module prints in a guest of the default kernel.
# Skipped (77) without root, bpf() or BTF.
# usage: native-tests.sh    env: CSTAP_BUILD (build dir), KEEP=1
set -u
. "$(dirname "$0")/lib.sh"
unset CSTAP_DEFAULT_RUNTIME   # the default is what is tested
[ "$(id -u)" = 0 ] || { echo "native-tests: SKIP: needs root (bpf(), perf events)"; exit 77; }
[ -r /sys/kernel/btf/vmlinux ] || { echo "native-tests: SKIP: the running kernel has no BTF"; exit 77; }
cd "$work" || exit 1
# bpf() allowed at all? (a begin program loads no kernel program: a timer does)
if ! out=$("$STAP" --bpf -e 'probe timer.ms(1) { exit() }' 2>&1); then
	echo "native-tests: SKIP: stapbpf cannot run BPF programs here: $out"
	exit 77
fi

# run NAME EXPECTED-RC STAP-ARGS...: stdout in $work/NAME.out, stderr in .err
run() {
	local name=$1 want=$2 rc
	shift 2
	timeout -k 5 120 "$STAP" --bpf "$@" > "$name.out" 2> "$name.err" < /dev/null
	rc=$?
	[ "$rc" = "$want" ] || { bad "$name: exit status $rc, not $want" "$(head -5 "$name.err")"; return 1; }
}

# the running kernel, natively: no guest; and by default (no --bpf) where
# this host loads no modules, with one notice line
if run default 0 -e 'global n probe begin { println("begin") } probe timer.ms(20) { if (++n == 3) exit() }
		      probe end { println("end ", n) }' &&
   [ "$(cat default.out)" = $'begin\nend 3' ] && ! grep -q . default.err; then
	ok "begin, timer and end probes on the running kernel $(uname -r), no guest"
else
	bad "begin/timer/end natively" "$(cat default.out default.err)"
fi
if [ -e /proc/modules ] && [ "$(cat /proc/sys/kernel/modules_disabled 2>/dev/null)" != 1 ]; then
	ok "(this host loads modules: a plain stap runs a module here, not checked)"
elif timeout -k 5 120 "$STAP" -e 'probe begin { println(execname() == "stapbpf") ; exit() }' > plain.out 2> plain.err &&
     [ "$(cat plain.out)" = 1 ] && [ "$(cat plain.err)" = "stap: this kernel loads no modules; running the script with the BPF runtime (--runtime=kernel runs a module in a QEMU guest)" ]; then
	ok "a plain stap -e runs natively with BPF where this host loads no modules, and says so"
else
	bad "a plain stap -e where this host loads no modules" "$(cat plain.out plain.err)"
fi
if ! timeout -k 5 120 "$STAP" -e 'function f(x) { return x ? f(x - 1) : 0 } probe begin { println(f(2)) }' \
	> rec.out 2> rec.err && grep -q 'E_BPF_UNSUPPORTED' rec.err &&
   grep -q -- '--runtime=kernel runs it in a QEMU guest' rec.err; then
	ok "what BPF cannot run says how to run it in a guest"
else
	bad "a refusal of the default BPF runtime" "$(cat rec.err)"
fi

# timer.profile (a perf event on every CPU) and a process probe (a uprobe on
# a function of a program built here, through its own DWARF)
if run prof 0 -e 'global n probe timer.profile { n++ } probe timer.ms(200) { exit() } probe end { println(n > 0) }' &&
   [ "$(cat prof.out)" = 1 ]; then
	ok "timer.profile fires on this host"
else
	bad "timer.profile natively" "$(cat prof.out prof.err)"
fi
# exit_status(n): stap exits with the status the script chose (stapbpf's,
# which pass 5 passes on), from a begin program and from a kernel one
if run exitst 3 -e 'probe begin { exit_status(3); exit() }' &&
   run exitst_kernel 4 -e 'probe timer.profile { exit_status(4); exit() }'; then
	ok "exit_status(n): stap exits with status n (a begin program, a kernel program)"
fi
gcc -O1 -g -o ucall "$src/bench/ucall_loop.c" 2> /dev/null
if run uprobe 0 -e "global n probe process(\"$work/ucall\").function(\"hot\") { n++ } probe end { println(n) }" \
	-c "$work/ucall 1000" && [ "$(grep -vx 'ns_per_call=.*' uprobe.out | grep -v '^ns_per' | tail -1)" = 1000 ]; then
	ok "process(\"...\").function(\"hot\"): 1000 calls, 1000 hits"
else
	bad "a process probe natively" "$(cat uprobe.out uprobe.err)"
fi

# print_ubacktrace() in a kernel probe: the user frames (frame pointers)
# named by stapbpf from the process's mappings and the program's symbols
cat > ustk.c <<'EOF2'
#include <unistd.h>
__attribute__((noinline)) void ustk_leaf(void) { for (;;) { write(1, "", 0); usleep(2000); } }
__attribute__((noinline)) void ustk_mid(void) { ustk_leaf(); asm volatile(""); }
int main(void) { ustk_mid(); return 0; }
EOF2
gcc -O0 -fno-omit-frame-pointer -o ustk ustk.c 2> /dev/null
if run ustack 0 -e 'probe kernel.trace("raw_syscalls:sys_enter") {
		   if (pid() == target() && $id == 1) { print_ubacktrace(); exit() } }' -c "$work/ustk" &&
   grep -Eq "^ 0x[0-9a-f]+ : ustk_mid\+0x[0-9a-f]+/0x[0-9a-f]+ \[$work/ustk\]$" ustack.out &&
   grep -Eq "^ 0x[0-9a-f]+ : main\+0x[0-9a-f]+/0x[0-9a-f]+ \[$work/ustk\]$" ustack.out; then
	ok "print_ubacktrace() in a kernel probe: $(wc -l < ustack.out) frames, named"
else
	bad "print_ubacktrace() natively" "$(cat ustack.out ustack.err)"
fi

# kernel.trace through BTF: the arguments as $vars, tapset functions
if run trace 0 -e 'probe kernel.trace("sched:sched_process_exec") {
		   if (pid() == target())
			   printf("%s %s %d %d\n", execname(), kernel_string($bprm->filename), $old_pid == pid(), $p->pid == tid())
		   }' -c /bin/true &&
   [ "$(cat trace.out)" = "true /bin/true 1 1" ]; then
	ok "kernel.trace(\"sched:sched_process_exec\") with \$bprm->filename, \$old_pid, \$p->pid"
else
	bad "kernel.trace with \$vars" "$(cat trace.out trace.err)"
fi
out=$("$STAP" --bpf -L 'kernel.trace("sched:sched_process_exec")' 2>&1)
if [ "$out" = 'kernel.trace("sched:sched_process_exec") $p:struct task_struct* $old_pid:pid_t $bprm:struct linux_binprm*' ]; then
	ok "-L kernel.trace through BTF: $out"
else
	bad "-L kernel.trace through BTF" "$out"
fi
out=$("$STAP" --bpf -l 'kernel.trace("sched:*")' 2>&1)
if grep -qx 'kernel.trace("sched:sched_switch")' <<< "$out" && ! grep -qv '^kernel.trace("sched:' <<< "$out"; then
	ok "-l kernel.trace(\"sched:*\"): $(wc -l <<< "$out") tracepoints of the sched system"
else
	bad "-l kernel.trace(\"sched:*\")" "$(head -5 <<< "$out")"
fi
# $$parms, and an event of a class (sched_wakeup_new is sched_wakeup_template's)
if run parms 0 -e 'probe kernel.trace("sched:sched_process_fork") { if (pid() == target()) { println($$parms); exit() } }
		   probe kernel.trace("sched_wakeup_new") { if (pid() == target()) n++ }' \
	-c 'sh -c "true & wait"' && grep -qE '^parent=0x[0-9a-f]+ child=0x[0-9a-f]+$' parms.out; then
	ok "\$\$parms of kernel.trace: $(cat parms.out)"
else
	bad "\$\$parms of kernel.trace" "$(cat parms.out parms.err)"
fi

# syscall probes: kprobes where the kernel has them, else its syscalls
# trace events (syscalls.stp), with SystemTap's argstr and retstr; cat
# fails, which ends the session with status 1 and SystemTap's warning
if run sc 1 -e 'global want
		probe syscall.openat { if (pid() == target() && isinstr(argstr, "cstap-none")) {
			want[tid()] = 1; printf("%s: %s\n", name, argstr) } }
		probe syscall.openat.return { if (want[tid()]) { printf("%s = %s\n", name, retstr); delete want[tid()] } }' \
	-c 'cat /cstap-none' &&
   [ "$(cat sc.out)" = $'openat: AT_FDCWD, "/cstap-none", O_RDONLY\nopenat = -2 (ENOENT)' ] &&
   grep -qx 'WARNING: Child process exited with status 1' sc.err; then
	ok "syscall.openat and .return: argstr and retstr of cat's open (its failure: status 1, warned)"
else
	bad "syscall.openat natively" "$(cat sc.out sc.err)"
fi

# the same scripts through the module runtime in a guest of the default
# kernel (DWARF, kprobes) print the same, stdout and their ERROR lines: a
# tracepoint's $vars and the syscall tapset's variables, string and
# formatting functions, timers, aggregates and their histogram, sorted
# foreach, a run-time error's message (each script one guest boot)
# same_as_module NAME STAP-ARGS...: NAME.stp run both ways
same_as_module() {
	local name=$1
	shift
	timeout -k 5 120 "$STAP" --bpf "$name.stp" "$@" > "$name.bpf" 2> "$name.bpf.err" < /dev/null
	timeout -k 5 600 "$STAP" --runtime=kernel --remote=qemu "$name.stp" "$@" > "$name.mod" 2> "$name.mod.err" < /dev/null
	if [ -s "$name.bpf" ] && cmp -s "$name.bpf" "$name.mod" &&
	   [ "$(grep '^ERROR' "$name.bpf.err")" = "$(grep '^ERROR' "$name.mod.err")" ]; then
		ok "$name.stp natively (BPF, BTF, trace events) as the module prints it in a guest of $("$STAPVM" --default-release)"
	else
		bad "$name.stp natively against the module in a guest" "BPF: $(cat "$name.bpf" "$name.bpf.err")" \
			"module: $(cat "$name.mod" "$name.mod.err")"
	fi
}
cat > cmp-sys.stp <<'STP'
global want
probe kernel.trace("sched:sched_process_exec") { if (pid() == target()) printf("exec %s %d %d\n", execname(), $old_pid == pid(), isinstr(kernel_string($bprm->filename), "cat")) }
probe syscall.openat { if (pid() == target() && isinstr(argstr, "cstap-none")) { want[tid()] = 1; printf("%s: %s\n", name, argstr) } }
probe syscall.openat.return { if (want[tid()]) { printf("%s = %s\n", name, retstr); delete want[tid()] } }
STP
same_as_module cmp-sys -c '/bin/cat /cstap-none'
cat > cmp-lib.stp <<'STP'
global n, agg, cnt
probe begin { printf("begin %s %d %s %s\n", substr("abcdef", 1, 3), strlen("hello"),
		     sprintf("%5d|%-4s|%x|%c|%3.3s|", 42, "ab", 255, 65, "abcdef"), tokenize("a b c", " ")) }
probe begin { printf("%s %d %s %d %s\n", text_str("x\ny"), isinstr("foobar", "oba"), str_replace("aXbX", "X", "yz"),
		     strtol("ff", 16), string_quoted("q\"t")) }
probe timer.ms(10) { n++; agg <<< n * 10; cnt[n % 3] += n; if (n == 5) exit() }
probe end {
	printf("n=%d count=%d sum=%d min=%d max=%d avg=%d\n", n, @count(agg), @sum(agg), @min(agg), @max(agg), @avg(agg))
	foreach (k+ in cnt) printf("%d: %d\n", k, cnt[k])
	foreach (k in cnt- limit 1) printf("top %d\n", k)
	print(@hist_log(agg))
	println(kernel_int(0))
}
STP
same_as_module cmp-lib

# a system call no alias of the library writes: generated from the
# kernel's DWARF, or here from its syscalls trace events' formats
if run gen 0 -e 'probe syscall.uname { if (pid() == target()) printf("%s %d\n", name, name_arg != 0) }
		 probe syscall.uname.return { if (pid() == target()) println(retstr) }' -c 'uname -r' &&
   [ "$(grep -vxF "$(uname -r)" gen.out)" = $'uname 1\n0' ]; then
	ok "syscall.uname and .return, an alias generated for this kernel"
else
	bad "syscall.uname natively" "$(cat gen.out gen.err)"
fi

# SystemTap's packaged examples that its installcheck runs with --bpf, run
# as their .meta says, natively: each ends with status 0 (probes this
# kernel cannot attach only warned of), but those SystemTap cannot run on
# a current kernel either (below, with why)
declare -A cannot=(
	[libguestfs_log]="no libguestfs installed (process(\"/usr/lib*/libguestfs.so.0*\").mark)"
	[cachestat]="find_get_entry left the kernel in 5.x"
	[mmwriteback]="mm_pagereclaim_pgout is RHEL5's tracepoint")
exdir=/usr/share/systemtap/examples
if [ -d "$exdir" ]; then
	nex=0 exbad=()
	while read -r meta; do
		line=$(sed -n 's/^test_installcheck_bpf: stap //p' "$meta")
		n=$(basename "$meta" .meta) want=0
		[ -n "$line" ] || continue
		[ -n "${cannot[$n]:-}" ] && want=1
		(cd "$(dirname "$meta")" && eval "timeout -k 5 120 \"\$STAP\" $line" > "$work/ex.out" 2> "$work/ex.err" < /dev/null)
		rc=$?
		if [ "$rc" != "$want" ] || { [ "$want" = 0 ] && grep -q '^ERROR' "$work/ex.err"; }; then
			exbad+=("$n: status $rc, not $want: $(head -2 "$work/ex.err" | tr '\n' ' ')")
		fi
		nex=$((nex + 1))
	done < <(grep -l '^test_installcheck_bpf:' -r "$exdir" --include='*.meta' | sort)
	if [ ${#exbad[@]} = 0 ] && [ "$nex" -gt 0 ]; then
		ok "SystemTap's $nex examples with a test_installcheck_bpf line, natively ($((nex - ${#cannot[@]})) run; ${!cannot[*]}: not on this kernel for SystemTap either)"
	else
		bad "SystemTap's --bpf examples natively" "${exbad[@]}"
	fi
fi

# installed (make install under DESTDIR: the tree found beside stap), natively
# and into a guest, whose stapbpf is the one installed beside stap
if [ -f "$build/Makefile" ] && make -C "$build" -s install DESTDIR="$work/dest" > "$work/install.log" 2>&1; then
	inst=$(find "$work/dest" -path '*/bin/stap' | head -1)
	a=$(cd "$work" && "$inst" --bpf -e 'probe begin { println("native"); exit() }' 2>&1)
	b=$(cd "$work" && "$inst" --bpf --remote=qemu -e 'probe begin { println("guest"); exit() }' 2>&1)
	if [ "$a" = native ] && [ "$(tail -1 <<< "$b")" = guest ]; then
		ok "installed: stap --bpf natively and into a guest (its stapbpf found beside stap)"
	else
		bad "installed stap --bpf" "$a" "$b"
	fi
else
	bad "make install DESTDIR=... failed" "$(tail -3 "$work/install.log")"
fi

# a run-time error: its message and status
if run fault 1 -e 'probe kernel.trace("sched:sched_process_exec") { if (pid() == target()) println(kernel_int(0)) }' \
	-c /bin/true && grep -q "^ERROR: kernel int copy fault at 0x0 .*near identifier 'kernel_int'" fault.err; then
	ok "a fault in a tracepoint probe is the script's error (status 1)"
else
	bad "a run-time error" "$(cat fault.out fault.err)"
fi

# -D MAXSTRINGLEN=256: strings of 255 bytes in a kernel (timer) probe and in
# begin's interpreter: a literal, a concatenation, substr, isinstr, a map's
# string key and value, printf's %s; 64 bytes of them without it (refused)
long=$(printf 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@#%.0s' 1 2)
if run longstr 0 -DMAXSTRINGLEN=256 -e "global a, n
	probe begin { s = \"$long\"; println(strlen(s . s)) }
	probe timer.ms(1) { s = \"$long\"; a[s . sprint(n)] = s; println(strlen(s), \" \", substr(s, 60, 8), \" \", isinstr(s, \"@#a\"))
	                    if (++n == 2) exit() }
	probe end { foreach (k in a) println(strlen(k), \" \", a[k] == \"$long\") }" &&
   [ "$(cat longstr.out)" = $'255\n128 89@#abcd 1\n128 89@#abcd 1\n129 1\n129 1' ] &&
   run longstr64 1 -e "probe begin { s = \"$long\"; println(s); exit() }" && grep -q 'holds 63' longstr64.err; then
	ok "-D MAXSTRINGLEN=256: 255-byte strings in kernel and begin probes, maps and printf"
else
	bad "-D MAXSTRINGLEN=256 strings" "$(cat longstr.out longstr.err longstr64.err 2>/dev/null | head -8)"
fi

# kernel.function: through a BPF trampoline (or a kprobe) where the kernel
# attaches one; where it cannot, never silent and the command never runs
if timeout -k 5 120 "$STAP" --bpf -e 'probe kernel.function("vfs_read") { if (pid() == target() && $count > 0) {
		println("read"); exit() } }' -c 'cat /etc/hostname > /dev/null' > kfunc.out 2> kfunc.err; then
	kfunc_attached=1
	[ "$(cat kfunc.out)" = read ] && ok "kernel.function(\"vfs_read\") attached here" ||
		bad "kernel.function(\"vfs_read\")" "$(cat kfunc.out kfunc.err)"
elif run kfunc 1 -e 'probe kernel.function("vfs_read") { println($count) }' -c 'touch ran' &&
     grep -q '^WARNING: probe kernel.function("vfs_read") registration error' kfunc.err &&
     grep -q '^ERROR \[B_ATTACH\]: none of the script' kfunc.err && [ ! -e ran ]; then
	ok "kernel.function without trampolines or kprobes: $(sed -n 2p kfunc.err | sed 's/^ *//')"
else
	bad "kernel.function that cannot attach" "$(cat kfunc.out kfunc.err)"
fi
# -l lists what this kernel can attach: kernel.function where it attaches
# it, else nothing and a warning saying why
"$STAP" --bpf -l 'kernel.function("vfs_rea*")' > kl.out 2> kl.err
if [ "${kfunc_attached:-}" ] && grep -qx 'kernel.function("vfs_read")' kl.out; then
	ok "-l kernel.function(\"vfs_rea*\"): $(wc -l < kl.out) functions this kernel attaches"
elif [ ! "${kfunc_attached:-}" ] && [ ! -s kl.out ] &&
     grep -q '^WARNING \[W_UNATTACHABLE\]: [0-9]* matching probe points not listed: this kernel cannot attach them: ' kl.err; then
	ok "-l kernel.function(\"vfs_rea*\") where none attaches: $(cut -d: -f2- kl.err)"
else
	bad "-l kernel.function(\"vfs_rea*\")" "$(cat kl.out kl.err)"
fi
# an optional point's failure alone is quiet, but not a probe none of whose points attached
if [ ! -d /sys/bus/event_source/devices/kprobe ] &&
   run kopt 0 -e 'probe kprobe.function("vfs_read") ? { n++ } probe timer.ms(10) { exit() }' &&
   grep -q '^WARNING: probe kprobe.function("vfs_read")?: none of its 1 point could be attached: .*no kprobe PMU' kopt.err; then
	ok "an optional probe none of whose points attached is warned of"
elif [ -d /sys/bus/event_source/devices/kprobe ]; then
	ok "(kprobes attach here: the optional-point warning is checked where they do not)"
else
	bad "an optional probe that cannot attach" "$(cat kopt.out kopt.err)"
fi
finish
