#!/bin/bash
# dtrace-provider-tests.sh - DTrace's providers on cstap's probes
# (translator/d/d_provider.h): what dtrace -l lists (IDs 1-3 for BEGIN, END,
# ERROR, the columns, -lv's argument types), the probes --dump-lowered
# writes for descriptions of each family (one raw_syscalls probe for many
# system calls, each clause under the condition telling its calls apart,
# clauses in program order; profile-N per CPU, tick-N timers, the 200 us
# floor; proc, sched, rawtp tracepoints with their args[]); an error's
# line read by a program (DTrace's) and on a terminal (tag, caret); as root on a
# host running BPF, syscall, proc, pid and USDT probes traced natively.
# usage: dtrace-provider-tests.sh    env: CSTAP_BUILD (build dir), KEEP=1
set -u
. "$(dirname "$0")/lib.sh"
unset CSTAP_DEFAULT_RUNTIME   # the native runs below: BPF on this host
DTRACE=$build/translator/dtrace
[ -x "$DTRACE" ] || { echo "dtrace-provider-tests: SKIP: no $DTRACE"; exit 77; }
cd "$work" || exit 1

# has NAME FILE PATTERN...: ok when FILE has a line matching each grep -E PATTERN
has() {
	has_name=$1 has_file=$2
	shift 2
	for has_pat do
		if ! grep -Eq -- "$has_pat" "$has_file"; then
			bad "$has_name" "no line matches: $has_pat" "$(head -c 2000 "$has_file")"
			return
		fi
	done
	ok "$has_name"
}

# count PATTERN FILE: the lines matching
count() { grep -Ec -- "$1" "$2"; }

# --- -l ------------------------------------------------------------------------
"$DTRACE" -l -n BEGIN -n END -n ERROR > l.out 2> l.err
has "-l: BEGIN, END, ERROR are probes 1, 2, 3" l.out \
	'^   ID   PROVIDER            MODULE                          FUNCTION NAME$' \
	'^    1     dtrace {53}BEGIN$' '^    2     dtrace {53}END$' '^    3     dtrace {53}ERROR$'
"$DTRACE" -l -n 'profile:::tick-1000' -n 'fight:' > l2.out 2> l2.err
has "-l: tick-1000 made when named, a description matching nothing said" l2.out ' profile .* tick-1000$'
has "-l: the message of a description matching nothing" l2.err \
	'^dtrace: failed to match ::fight:: No probe matches description$'
"$DTRACE" -lvn sched:::dequeue > lv.out 2>&1
has "-lv: sched:::dequeue's attributes and arguments" lv.out 'Identifier Names: Private' \
	'args\[0\]: lwpsinfo_t \*' 'args\[1\]: psinfo_t \*' 'args\[2\]: cpuinfo_t \*' 'args\[3\]: int'
"$DTRACE" -lP proc > lp.out 2>&1
has "-lP proc: DTrace's probes" lp.out ' proc +vmlinux +exec-success$' ' proc +vmlinux +signal-send$'

# --- the lowered probes -------------------------------------------------------
"$DTRACE" --dump-lowered -n 'syscall::read:entry, syscall::write:entry { @[probefunc] = count(); }' \
	-n 'syscall::read:entry /arg0 == 0/ { @[probefunc] = count(); }' > sc.stp 2>&1
if [ "$(count '^probe kernel.trace\("raw_syscalls:sys_enter"\)' sc.stp)" = 1 ]; then
	ok "syscall: one probe for the clauses of two calls"
else
	bad "syscall: one probe for the clauses of two calls" "$(cat sc.stp)"
fi
has "syscall: each clause under its calls' numbers, arg0 from the registers" sc.stp \
	'\$id >= 0 && \$id <= 1' '\(\$id == 0\)\) && \(\(\$regs->di == 0\)\)' '__d_syscall\[\$id\]'
"$DTRACE" --dump-lowered -n 'syscall:::entry { @[probefunc] = count(); }' > all.stp 2>&1
if grep -q '\$id ==\|\$id >=' all.stp; then
	bad "syscall:::entry: no condition" "$(cat all.stp)"
else
	ok "syscall:::entry: no condition"
fi
"$DTRACE" --dump-lowered -n 'syscall::read:return { trace(arg1); trace(errno); }' > ret.stp 2>&1
has "syscall return: its value and errno" ret.stp 'raw_syscalls:sys_exit' '\$regs->orig_ax == 0' '\$ret'

# clauses run in program order on the probe that fired
"$DTRACE" --dump-lowered -n 'syscall::read:entry { printf("A"); }' -n 'syscall:::entry { printf("B"); }' \
	-n 'syscall::read:entry { printf("C"); }' > order.stp 2>&1
if [ "$(grep -o 'printf("[ABC]")' order.stp | tr -d '\n')" = 'printf("A")printf("B")printf("C")' ]; then
	ok "clauses of one site in program order"
else
	bad "clauses of one site in program order" "$(cat order.stp)"
fi

"$DTRACE" --dump-lowered -n 'profile-97 { @[cpu] = count(); } tick-10ms { exit(0); } tick-2s {}' > prof.stp 2>&1
has "profile-97 on every CPU, tick-N a timer" prof.stp 'perf.sw.cpu_clock.sample\(10309278\)' \
	'^probe timer.ms\(10\)' '^probe timer.s\(2\)'
if "$DTRACE" -xerrtags -n 'tick-1us { exit(0); }' > floor.out 2>&1; then
	bad "tick-1us: no probe (200 us at least)" "$(cat floor.out)"
else
	has "tick-1us: no probe (200 us at least)" floor.out 'D_PDESC_ZERO'
fi

"$DTRACE" --dump-lowered -n 'proc:::signal-send /args[1]->pr_fname == "sleep"/ { trace(args[2]); }' \
	-n 'sched:::on-cpu { self->n++; }' -n 'proc:::exec-success { trace(execname); }' > ps.stp 2>&1
has "proc and sched on tracepoints, psinfo_t translated, on-cpu's thread" ps.stp \
	'kernel.trace\("signal:signal_generate"\)' 'task_execname\(\$task\) == "sleep"' \
	'kernel.trace\("sched:sched_process_exec"\)' '__d_s_n\[task_tid\(\$next\)\]'

# --- errors: DTrace's line where a program reads them, the tag and caret on a terminal ---
"$DTRACE" -n 'BEGIN { x = ; }' > plain.out 2>&1
has "an error read by a program: DTrace's line, no tag, no line number" plain.out \
	'^dtrace: invalid probe specifier BEGIN \{ x = ; \}: syntax error near ";"$'
if [ "$(count 'D_SYNTAX|\^' plain.out)" != 0 ]; then bad "an error read by a program: no tag, no caret" "$(cat plain.out)"; fi
"$DTRACE" -xerrtags -n 'BEGIN { x = ; }' > tags.out 2>&1
has "-xerrtags: the tag" tags.out '^dtrace: invalid probe specifier .*: \[D_SYNTAX\] syntax error near ";"$'
if command -v script > /dev/null; then
	script -qec "$DTRACE -n 'BEGIN { x = ; }'" /dev/null > tty.out 2>&1
	has "an error on a terminal: its tag, line and caret" tty.out '\[D_SYNTAX\] line 1: syntax error' \
		'^    BEGIN \{ x = ; \}' '^ {16}\^'
fi

# --- natively (root, BPF) ----------------------------------------------------------
if [ "$(id -u)" != 0 ] || [ ! -e /sys/kernel/btf/vmlinux ]; then
	echo "dtrace-provider-tests: the native runs need root and BPF: skipped"
	finish
fi
timeout 60 "$DTRACE" -qn 'syscall::exit_group:entry /pid == $target/ { printf("%s %s %d\n", probeprov, probefunc, arg0); }' \
	-c /bin/false > run1.out 2> run1.err
has "syscall::exit_group:entry traced natively" run1.out '^syscall exit_group 1$'
timeout 60 "$DTRACE" -qn 'proc:::exec-success /ppid == $target/ { printf("%s\n", execname); }' \
	-n 'proc:::exit /pid == $target/ { printf("exit %d\n", args[0]); }' \
	-c '/bin/sh -c /bin/true;exit' > run2.out 2> run2.err
has "proc:::exec-success and exit traced natively" run2.out '^true$' '^exit 1$'
if command -v cc > /dev/null; then
	cat > prog.c <<'EOF'
#include <sys/sdt.h>
static int twice(int x) { return 2 * x; }
int main(void)
{
	int n = 0;
	for (int i = 0; i < 3; i++) {
		n += twice(i);
		DTRACE_PROBE1(myprov, step, i);
	}
	return n == 6 ? 0 : 1;
}
EOF
	if cc -O0 -o prog prog.c 2> /dev/null; then
		timeout 60 "$DTRACE" -qn 'pid$target:a.out:twice:return { printf("%s %d\n", probefunc, arg1); }' \
			-n 'myprov$target:::step { printf("%s:%s %d\n", probemod, probename, arg0); }' -c ./prog \
			> run3.out 2> run3.err
		has "pid and USDT probes traced natively" run3.out '^twice 4$' '^prog:step 2$'
	fi
fi
finish
