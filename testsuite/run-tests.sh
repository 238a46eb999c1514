#!/bin/bash
# run-tests.sh - the run tests: every testsuite/run/NAME.stp is built with
# `stap -p4`, then all modules run in ONE QEMU guest boot (stap-vm -b), and
# each result is compared with NAME.expect (stdout), NAME.experr (stderr,
# empty if absent) and NAME.rc (exit status, 0 if absent).
#   NAME.opts  stap options, shell-quoted (-G VAR=VAL, -c CMD and -o FILE also go to staprun)
#   NAME.args  script arguments ($1, @2 ...), shell-quoted
#   NAME.nobpf why the test, which builds with --runtime=bpf, is not run so
#              (counted among the module runtime's only)
#   NAME.timeout  seconds the test may take in the guest with a core of its
#              own (default 30); the job's limit is twice that (make check
#              runs two suites at once: a guest that shares the cores is slower)
# On a kernel other than the default one (stap-vm --default-release), make
# check builds and runs only the tests the kernel decides: those with a
# NAME.EXT.SERIES file and those testsuite/run/every-kernel.txt lists; every
# other is taken to pass 3 there. A test with a NAME.full file (it says why:
# minutes of a TCG guest) goes to pass 3 only on every kernel. CSTAP_FULL=1
# (make check-full) builds and runs every test on every kernel
# (testsuite/README.md).
#   NAME.modules  modules of the guest kernel loaded at boot (stap-vm -M), one a line
#   NAME.boot  extra guest kernel arguments (stap-vm -a): such tests get a boot of
#              their own per distinct NAME.boot (e.g. "nokaslr" for .absolute addresses)
# NAME.args and NAME.opts are shell words: $(...) is expanded on the host, with
# $REL set to the guest's kernel release.
#   NAME.EXT.SERIES  (e.g. NAME.expect.6.12, NAME.args.6.12) replaces NAME.EXT
#              on kernels of that series: for what the kernel itself changes
#              (source lines, struct layouts, flags its uapi headers define)
# The tests run on every installed kernel series (stap-vm --releases: each
# /boot/vmlinuz-REL with a kbuild tree), one after the other; $RELEASES (a
# list) overrides.
#   NAME.stdin  staprun's standard input (the script's input.* probes)
#   NAME.filter  sed -E script run on stdout (and on stderr if NAME.experr
#              exists) before the comparison (masks addresses, cycle counts,
#              paths: what varies from run to run)
# testsuite/run/progs/P.c are the tests' workload programs: built static on
# the host, as /progs/P (64-bit) and /progs/P32 (-m32: a 32-bit task) in the
# guest.
# testsuite/run/uprogs/P.c are the programs process probes are put on:
# built on the host with debuginfo (-g -O0, dynamically linked, PIE) as
# $UPROGS/P, and put in the guest at the same path with their shared
# libraries; $UPROGS/P_nodebug is the same without debuginfo (its symbol
# table only). P.cc (C++, g++) are built as $UPROGS/P only. Tests name them through $UPROGS in NAME.args and NAME.opts
# (process(@1) in the script), as a user names a program by its path.
# testsuite/run/uprogs/lib*.c are shared libraries ($UPROGS/lib*.so, -g -O0)
# that the programs link as they need them (rpath $UPROGS).
# RUNTIME=bpf runs them with stap --runtime=bpf and stapbpf instead: a test
# whose script BPF cannot run (stap says E_BPF_UNSUPPORTED in pass 2) is
# left out and counted, unless testsuite/bpf-both-ways.txt lists it (then it
# fails); every other must give the same output.
# INSTALLED_BIN=DIR (bpf-run-tests.sh sets it: a make install's bin) runs
# the default kernel's tests (the most) with DIR's stap and stap-vm, the
# other kernels' with the build's: the installed layout (its tapsets,
# runtime and the stapbpf the guest gets) passes the same tests.
# usage: run-tests.sh [NAME ...]     env: CSTAP_BUILD (build dir), OUT,
#   RUN_DIR (where the NAME.* files are; default testsuite/run), RUNTIME,
#   INSTALLED_BIN
set -u
export CSTAP_DEFAULT_RUNTIME=kernel   # modules in a guest where this host loads none (native-tests.sh: the default)
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CSTAP_BUILD:-$(pwd)}
[ -x "$build/translator/stap" ] || build=$src
STAP=$build/translator/stap
STAPVM=$build/translator/stap-vm
releases=${RELEASES:-$("$STAPVM" --releases 2>/dev/null)}
default_rel=$("$STAPVM" --default-release 2>/dev/null)
rundir=${RUN_DIR:-$src/testsuite/run}
case $rundir in /*) ;; *) rundir=$(pwd)/$rundir ;; esac
runtime=${RUNTIME:-kernel}
ext=ko; runner=staprun; [ "$runtime" = bpf ] && ext=bo runner=stapbpf
top=${OUT:-$build/testsuite/out$([ "$runtime" = bpf ] && echo -bpf)}
rm -rf "$top"

if [ $# -gt 0 ]; then names=("$@"); else
	names=(); for f in "$rundir"/*.stp; do n=$(basename "$f" .stp); names+=("$n"); done
fi

# the workload programs, for every boot
mkdir -p "$top/progs"; progs=()
for c in "$src"/testsuite/run/progs/*.c; do
	[ -f "$c" ] || continue
	p=$(basename "$c" .c)
	gcc -static -O -o "$top/progs/$p" "$c" && progs+=(-f "$top/progs/$p:/progs/$p")
	gcc -m32 -static -O -o "$top/progs/${p}32" "$c" && progs+=(-f "$top/progs/${p}32:/progs/${p}32")
done

mkdir -p "$top/uprogs"; export UPROGS=$top/uprogs
# lib*.c first: shared libraries $UPROGS/lib*.so, in name order, each linked
# with the ones before it; every program links them all as needed, with an
# rpath so that the guest finds them at the same path
ulibs=()
for c in "$src"/testsuite/run/uprogs/lib*.c; do
	[ -f "$c" ] || continue
	p=$(basename "$c" .c)
	gcc -g -O0 -shared -fPIC -o "$UPROGS/$p.so" "$c" -Wl,--as-needed ${ulibs[@]+"${ulibs[@]}"} \
		-Wl,-rpath,"$UPROGS" && progs+=(-f "$UPROGS/$p.so") && ulibs+=("$UPROGS/$p.so")
done
for c in "$src"/testsuite/run/uprogs/*.c; do
	[ -f "$c" ] || continue
	p=$(basename "$c" .c)
	case $p in lib*) continue;; esac
	gcc -g -O0 -o "$UPROGS/$p" "$c" -Wl,--as-needed ${ulibs[@]+"${ulibs[@]}"} -Wl,-rpath,"$UPROGS" &&
		progs+=(-f "$UPROGS/$p")
	gcc -O0 -o "$UPROGS/${p}_nodebug" "$c" -Wl,--as-needed ${ulibs[@]+"${ulibs[@]}"} -Wl,-rpath,"$UPROGS" &&
		progs+=(-f "$UPROGS/${p}_nodebug")
done
for c in "$src"/testsuite/run/uprogs/*.cc; do   # C++: libstdc++'s SDT markers
	[ -f "$c" ] || continue
	p=$(basename "$c" .cc)
	g++ -g -O0 -o "$UPROGS/$p" "$c" && progs+=(-f "$UPROGS/$p")
done

# tools REL: $STAP and $STAPVM for kernel REL: the installed ones
# ($INSTALLED_BIN) on the default kernel, else the build's
tools() {
	if [ -n "${INSTALLED_BIN:-}" ] && [ "$1" = "$default_rel" ]; then
		STAP=$INSTALLED_BIN/stap STAPVM=$INSTALLED_BIN/stap-vm
	else
		STAP=$build/translator/stap STAPVM=$build/translator/stap-vm
	fi
}

# build_release REL OUT JOBS: this kernel's view of the test files (OUT/spec)
# and the modules of the tests of $names, built JOBS at a time into OUT/ko
build_release() {
REL=$1
tools "$REL"
out=$2
rm -rf "$out/res"   # no result of an earlier run taken for this one's
mkdir -p "$out/ko" "$out/res"
series=$(echo "$REL" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
# this kernel's view of the test files: NAME.EXT.SERIES over NAME.EXT
spec=$out/spec; mkdir -p "$spec"
cp "$rundir"/*.* "$spec/"
for f in "$rundir"/*."$series"; do
	[ -f "$f" ] && cp "$f" "$spec/$(basename "$f" ".$series")"
done

# Does run/every-kernel.txt list test $1 for this runtime? (a line with
# "[module runtime]" is the module runtime's only)
on_every_kernel() {
	local line
	line=$(grep "^$1 " "$every") || return 1
	[ "$runtime" != bpf ] || [[ $line != *"[module runtime]"* ]]
}

# Each test builds in its own directory from a copy of its script, so
# messages say "NAME.stp:L:C".
build_one() {
	local n=$1 d=$out/build/$1 t=$spec/$1
	mkdir -p "$d"; cp "$t.stp" "$d/"
	local opts=() args=()
	[ -f "$t.opts" ] && eval "opts=($(cat "$t.opts"))"
	[ -f "$t.args" ] && eval "args=($(cat "$t.args"))"
	if [ "$runtime" = bpf ] && [ -f "$t.nobpf" ]; then   # builds, but cannot run in the guest's time
		echo "[E_BPF_UNSUPPORTED] not run with --runtime=bpf: $(cat "$t.nobpf")" > "$d/build.log"
		return 1
	fi
	if { [ "$not_full" = 1 ] && [ -f "$t.full" ]; } ||
	   { [ "$skip_full" = 1 ] && ! on_every_kernel "$n" && ! ls "$rundir/$n".*.[0-9]*.[0-9]* > /dev/null 2>&1; }; then
		# the language's test, on a kernel other than the default: to pass 3
		# here (make check-full builds and runs it)
		(cd "$d" && "$STAP" -p3 -r "$REL" --runtime="$runtime" -m "t_$n" "${opts[@]}" "$n.stp" "${args[@]}") \
			> "$d/p3.log" 2>&1 && echo "[FULL_ONLY] passes pass 3 here" > "$d/build.log" ||
			{ echo "pass 3 failed:"; cat "$d/p3.log"; } > "$d/build.log"
		return 1
	fi
	(cd "$d" && "$STAP" -p4 -r "$REL" --runtime="$runtime" -m "t_$n" "${opts[@]}" "$n.stp" "${args[@]}") > "$d/build.log" 2>&1 &&
		cp "$d/t_$n.$ext" "$out/ko/"
}
skip_full=0   # this kernel is not the default one, and not make check-full
[ "${CSTAP_FULL:-0}" = 1 ] || [ "$REL" = "$default_rel" ] || skip_full=1
not_full=1; [ "${CSTAP_FULL:-0}" = 1 ] && not_full=0   # NAME.full: make check-full's
every=$src/testsuite/run/every-kernel.txt
[ "$rundir" = "$src/testsuite/run" ] || every=/dev/null
export -f build_one on_every_kernel; export out spec STAP REL UPROGS runtime ext skip_full not_full every rundir
printf '%s\n' "${names[@]}" | xargs -P "$3" -I{} bash -c 'build_one {}'
}

# run_release REL OUT: run the modules build_release left in OUT and check
# the tests of $names on kernel REL; prints PASS/FAIL lines and a count,
# fails if any failed. One job per module that built; one boot per
# distinct NAME.boot.
run_release() {
REL=$1
tools "$REL"
out=$2
spec=$out/spec
failed=(); trouble=0
boots=("")
for n in "${names[@]}"; do
	f=$spec/$n.boot
	[ -f "$f" ] || continue
	b=$(cat "$f"); seen=0
	for x in "${boots[@]}"; do [ "$x" = "$b" ] && seen=1; done
	[ $seen = 1 ] || boots+=("$b")
done
vmfail=0	# a boot that failed (guest trouble: BUG, WARNING, stall ...) fails the run
for bi in "${!boots[@]}"; do
boot=${boots[bi]}
jobs=$out/jobs.$bi; : > "$jobs"; files=(); mods=()
[ "$runtime" = bpf ] && files+=(-f "$build/stapbpf/stapbpf:/bin/stapbpf")
for n in "${names[@]}"; do
	[ -f "$out/ko/t_$n.$ext" ] || continue
	t=$spec/$n
	b=""; [ -f "$t.boot" ] && b=$(cat "$t.boot")
	[ "$b" = "$boot" ] || continue
	cmd="exec $runner"
	opts=()
	if [ -f "$t.opts" ]; then
		eval "opts=($(cat "$t.opts"))"
		for ((i = 0; i < ${#opts[@]}; i++)); do
			case "${opts[i]}" in
			-c) cmd+=" -c $(printf %q "${opts[i+1]}")"; i=$((i + 1));;
			-o) cmd+=" -o $(printf %q "${opts[i+1]}")"; i=$((i + 1));;
			esac
		done
	fi
	cmd+=" /ko/t_$n.$ext"
	if [ -f "$t.stdin" ]; then
		files+=(-f "$t.stdin:/stdin/$n")
		cmd+=" < /stdin/$n"
	fi
	if [ -f "$t.opts" ] && [ "$runtime" != bpf ]; then   # (bpf: -G is in the bundle)
		for ((i = 0; i < ${#opts[@]}; i++)); do
			[ "${opts[i]}" = -G ] && { cmd+=" $(printf %q "${opts[i+1]}")"; i=$((i + 1)); }
		done
	fi
	# NAME.timeout (default 30 s) is the time the test takes with a core of
	# its own; make check runs two suites at once on 2 cores, and a TCG
	# guest that shares them runs slower: twice that is the job's limit
	timeout=30; [ -f "$t.timeout" ] && timeout=$(cat "$t.timeout")
	timeout=$((timeout * 2))
	printf '%s\t%s\t%s\n' "$n" "$timeout" "$cmd" >> "$jobs"
	files+=(-f "$out/ko/t_$n.$ext:/ko/t_$n.$ext")
	if [ -f "$t.modules" ]; then
		while read -r m; do [ -n "$m" ] && mods+=(-M "$m"); done < "$t.modules"
	fi
done
if [ -s "$jobs" ]; then
	append=(); [ -n "$boot" ] && append=(-a "$boot")
	"$STAPVM" -r "$REL" "${files[@]}" ${progs[@]+"${progs[@]}"} ${mods[@]+"${mods[@]}"} ${append[@]+"${append[@]}"} -b "$jobs" \
		-O "$out/res" > "$out/vm.$bi.log" 2>&1 ||
		{ [ $? = 125 ] && trouble=1
		  echo "FAIL: stap-vm (boot $bi) failed:"; tail -30 "$out/vm.$bi.log"; vmfail=1; }
fi
done

pass=0; fail=0; nobpf=0; fullonly=0
both=$src/testsuite/bpf-both-ways.txt   # the tests BPF must run (default RUN_DIR only)
for n in "${names[@]}"; do
	t=$spec/$n r=$out/res/$n why=""
	if [ ! -f "$out/ko/t_$n.$ext" ] && grep -q '^\[FULL_ONLY\]' "$out/build/$n/build.log"; then
		fullonly=$((fullonly + 1))   # make check-full's on this kernel
		continue
	elif [ "$runtime" = bpf ] && [ ! -f "$out/ko/t_$n.$ext" ] &&
	   grep -q '\[E_BPF_UNSUPPORTED\]' "$out/build/$n/build.log"; then
		if [ "$rundir" = "$src/testsuite/run" ] && grep -qx "$n" "$both"; then
			why="refused by --runtime=bpf, but listed in testsuite/bpf-both-ways.txt:"$'\n'"$(cat "$out/build/$n/build.log")"
		else
			nobpf=$((nobpf + 1))   # the module runtime's only
			continue
		fi
	elif [ ! -f "$out/ko/t_$n.$ext" ]; then
		why="build failed:"$'\n'"$(cat "$out/build/$n/build.log")"
	elif [ ! -f "$r.rc" ]; then
		why="no result from the guest"
	else
		exp_rc=0; [ -f "$t.rc" ] && exp_rc=$(cat "$t.rc")
		[ "$(cat "$r.rc")" = "$exp_rc" ] || why+="exit status $(cat "$r.rc"), expected $exp_rc"$'\n'
		got=$r.out
		if [ -f "$t.filter" ]; then	# shape check: mask what varies (sed -E script)
			sed -E -f "$t.filter" "$r.out" > "$r.filtered"; got=$r.filtered
		fi
		d=$(diff "$t.expect" "$got") || why+="stdout differs:"$'\n'"$d"$'\n'
		if [ -f "$t.experr" ]; then
			goterr=$r.err
			if [ -f "$t.filter" ]; then
				sed -E -f "$t.filter" "$r.err" > "$r.errfiltered"; goterr=$r.errfiltered
			fi
			d=$(diff "$t.experr" "$goterr") || why+="stderr differs:"$'\n'"$d"$'\n'
		elif [ -s "$r.err" ]; then
			why+="unexpected stderr:"$'\n'"$(cat "$r.err")"$'\n'
		fi
	fi
	if [ -z "$why" ]; then
		echo "PASS: $n"; pass=$((pass + 1))
	else
		echo "FAIL: $n"; printf '%s\n' "$why" | sed 's/^/    /'; fail=$((fail + 1)); failed+=("$n")
	fi
done
echo "$pass passed, $fail failed (kernel $REL$([ "$runtime" = bpf ] && echo ", --runtime=bpf: $pass of $((pass + fail + nobpf + fullonly)) run tests run both ways, $nobpf not BPF's")$([ $fullonly = 0 ] || echo ", $fullonly left to make check-full here")$([ $vmfail = 0 ] || echo ", and a guest boot failed"))"
# where the guest's time went (stap-vm's NAME.secs)
slow=$(for n in "${names[@]}"; do [ -f "$out/res/$n.secs" ] && echo "$(cat "$out/res/$n.secs") $n"; done |
	sort -rn | head -6 | awk '{printf "%s%s %s s", (NR > 1 ? ", " : ""), $2, $1}')
[ -z "$slow" ] || echo "slowest in the guest: $slow"
[ "$fail" = 0 ] && [ "$vmfail" = 0 ]
}

[ -n "$releases" ] || { echo "no kernel to run the tests on (stap-vm --releases)"; exit 1; }
status=0
# A test that fails is run once more, in a boot with only the failed ones
# (TCG's timing on a slow or busy host can make a timed test miss); one that
# passes then is reported FLAKY, not hidden. No second chance when the
# guest's console showed kernel trouble, or for more than 20 failures.
# The next kernel's modules are built, one at a time, while this kernel's
# guest runs (TCG keeps one core busy; the builds take the other).
read -r -a rels <<< "$(echo $releases)"
build_release "${rels[0]}" "$top/${rels[0]}" 2
for i in "${!rels[@]}"; do
	rel=${rels[i]} next=${rels[i + 1]:-} bpid=""
	if [ -n "$next" ]; then
		build_release "$next" "$top/$next" 1 &
		bpid=$!
	fi
	echo "== kernel $rel$([ -n "${INSTALLED_BIN:-}" ] && [ "$rel" = "$default_rel" ] && echo " (installed: $INSTALLED_BIN)")"
	all=("${names[@]}")
	if ! run_release "$rel" "$top/$rel"; then
		if [ ${#failed[@]} -gt 0 ] && [ ${#failed[@]} -le 20 ] && [ "$trouble" = 0 ]; then
			again=("${failed[@]}"); names=("${again[@]}")
			echo "== kernel $rel: the ${#again[@]} failed test(s) once more"
			build_release "$rel" "$top/$rel.again" 2
			if run_release "$rel" "$top/$rel.again"; then
				for n in "${again[@]}"; do echo "FLAKY: $n (failed, then passed)"; done
			else
				status=1
			fi
			names=("${all[@]}")
		else
			status=1
		fi
	fi
	[ -z "$bpid" ] || wait "$bpid"
done
exit $status
