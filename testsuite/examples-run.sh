#!/bin/bash
# examples-run.sh - SystemTap's packaged examples run to the end, each as its
# .meta's test_installcheck line says (what SystemTap's own installcheck
# runs), in a guest of every installed kernel: built on this host, run with
# staprun in one guest boot a kernel. The BPF runtime runs the examples that
# have a test_installcheck_bpf line (stapbpf, the default kernel's guest).
#
# An example's status: ok (exit 0 and no ERROR line), build (stap failed
# before a module was made), run:N (exit N, or 0 with an ERROR line), timeout.
# testsuite/examples/installcheck-SERIES.txt (SERIES: 6.1, 6.12) has one line
# an example: NAME SYSTEMTAP CSTAP BPF OUT [REASON]: SystemTap 4.8's status in
# the same guest (its own staprun and stapio; made by --systemtap), the status
# cstap has, the BPF runtime's ("-": no bpf line, or not run on that kernel);
# OUT the sha256 (12 digits) of SystemTap's stdout where cstap's was the same
# when the table was made (what it prints does not depend on the run: headers,
# counts of nothing), which cstap's must stay, else "-"; REASON is there
# where cstap's is not ok though SystemTap's is.
# The test: every example's cstap (and BPF) status is the table's, its stdout
# SystemTap's where OUT says, and no probe of it warns of a registration
# error; a line whose statuses differ from SystemTap's without a reason
# fails too.
#
# usage: examples-run.sh [NAME ...]        the test (make check-full: all of
#                                          them; else only NAMEs given)
#        examples-run.sh --systemtap [-r REL] [NAME ...]
#                print "SERIES NAME STATUS SHA" with SystemTap 4.8 (default: every kernel)
#        examples-run.sh --cstap [-r REL] [NAME ...]
#                print "SERIES NAME STATUS BPF-STATUS SHA" with cstap (to remake the table)
# env: CSTAP_BUILD, EXAMPLES (default /usr/share/systemtap/examples), JOBS
#   (parallel builds, default 2), KEEP=1, SYSTEMTAP (default /usr/bin/stap).
# Skipped (77) without the examples (systemtap-doc) or a kernel to boot.
set -u
. "$(dirname "$0")/lib.sh"
examples=${EXAMPLES:-/usr/share/systemtap/examples}
systemtap=${SYSTEMTAP:-/usr/bin/stap}
jobs=${JOBS:-2}
[ -d "$examples" ] || { echo "examples-run: SKIP: no $examples (systemtap-doc)"; exit 77; }
mode=test rels=()
while [ $# -gt 0 ]; do
	case $1 in
	--systemtap) mode=systemtap;;
	--cstap) mode=cstap;;
	-r) rels+=("$2"); shift;;
	-*) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 2;;
	*) break;;
	esac
	shift
done
if [ "$mode" = test ] && [ "${CSTAP_FULL:-0}" != 1 ] && [ $# = 0 ]; then
	echo "examples-run: SKIP: make check-full runs it (CSTAP_FULL=1; or name examples)"
	exit 77
fi
[ ${#rels[@]} -gt 0 ] || mapfile -t rels < <("$STAPVM" --releases 2>/dev/null)
[ ${#rels[@]} -gt 0 ] || { echo "examples-run: SKIP: no kernel a guest can boot"; exit 77; }
default_rel=$("$STAPVM" --default-release)
series() { echo "$1" | cut -d. -f1-2 | sed 's/-.*//'; }

# The examples (category/name) with a test_installcheck line that runs stap,
# those named on the command line only if any
names=()
for meta in "$examples"/*/*.meta; do
	n=$(basename "$meta" .meta)
	grep -q '^test_installcheck: stap ' "$meta" || continue
	[ -f "${meta%.meta}.stp" ] || continue
	if [ $# -gt 0 ]; then
		for want in "$@"; do [ "$want" = "$n" ] && names+=("$(basename "$(dirname "$meta")")/$n"); done
	else
		names+=("$(basename "$(dirname "$meta")")/$n")
	fi
done

# split NAME's line (KEY: test_installcheck or test_installcheck_bpf) into
# build words (bw: what stap is given, the script and its arguments too)
# and the staprun words (rw: -c CMD, -x PID; VAR=VAL for -G), with $$
# (the installcheck's shell: a process of the host) the guest's init, and
# a trailing "|| echo ..." (the harness's remark) dropped; pass: -pN given
nopass=0
split_line() {
	local line words i w
	if [ "$1" = hello/hello_probe ]; then line="hello_probe.stp"
	else line=$(sed -n "s/^$2: stap //p" "$examples/$1.meta" | head -1); fi
	[ -n "$line" ] || return 1
	line=$(printf '%s' "$line" | sed -E 's/\$\$([^A-Za-z_]|$)/1\1/g')   # $$ not $$vars
	line=$(printf '%s' "$line" | sed -E 's/ \|\| echo [^"'\'']*$//')
	eval "words=($line)" 2> /dev/null || return 1
	bw=() rw=() nopass=0
	for ((i = 0; i < ${#words[@]}; i++)); do
		w=${words[i]}
		case $w in
		-c|-x) rw+=("$w" "${words[i+1]}"); bw+=("$w" "${words[i+1]}"); i=$((i + 1));;
		-G) rw+=("${words[i+1]}"); bw+=("$w" "${words[i+1]}"); i=$((i + 1));;
		-G?*) rw+=("${w#-G}"); bw+=("$w");;
		-p[0-9]) nopass=1; bw+=("$w");;
		*) bw+=("$w");;
		esac
	done
}

# run IMPL REL OUT: every example built for REL by IMPL (cstap, bpf,
# systemtap) and run in one guest boot; "NAME STATUS" lines in OUT
run_all() {
	local impl=$1 rel=$2 out=$3 d=$work/$1-$2 key=test_installcheck
	local files=() jf n c ex names=("${names[@]}")
	if [ $# -gt 3 ]; then	# hello_probe: the translator builds a module at all
		d=$d-hello names=(hello/hello_probe)
		mkdir -p "$d/src/hello"
		echo 'probe begin { println("hello") exit() }' > "$d/src/hello/hello_probe.stp"
	fi
	mkdir -p "$d/ko" "$d/src" "$d/out"
	: > "$out"; : > "$out.sha"; : > "$d/jobs"
	[ "$impl" = bpf ] && { key=test_installcheck_bpf; files+=(-f "$build/stapbpf/stapbpf:/bin/stapbpf"); }
	if [ "$impl" = systemtap ]; then
		if [ ! -d "$work/st-runtime" ]; then
			cp -a /usr/share/systemtap/runtime "$work/st-runtime"
			for p in "$src"/../shared/anchor/patches/runtime-*.patch; do
				[ -f "$p" ] && patch -s -d "$work/st-runtime" -p1 < "$p"
			done
		fi
		# SystemTap's staprun as the guest's /usr/bin/staprun (its stapio
		# runs that one to remove the module), its stapio where it looks
		files+=(-f "$(readlink -f /usr/lib/systemtap/stapio):/usr/lib/systemtap/stapio")
	fi
	# the builds, JOBS at a time: each in a copy of its category's
	# directory (tapset/ and included files beside it; the module lands there)
	for c in "${names[@]}"; do
		split_line "$c" $key || continue
		n=${c#*/}
		[ -d "$d/src/${c%/*}" ] || cp -a "$examples/${c%/*}" "$d/src/"
		printf '%s\0' "$c" "$nopass" "${bw[@]}" > "$d/$n.bw"
		: > "$d/$n.rw"
		[ ${#rw[@]} = 0 ] || printf '%s\0' "${rw[@]}" > "$d/$n.rw"
		echo "$c"
	done | xargs -P "$jobs" -I{} bash -c '
		c={} d='"$d"' impl='"$impl"' rel='"$rel"' n=${c#*/} m=ex_${n//[-.]/_}
		mapfile -d "" -t w < "$d/$n.bw"
		bw=("${w[@]:2}")
		cd "$d/src/${c%/*}" || exit
		case $impl in
		cstap) cmd=("'"$STAP"'" -p4 -r "$rel" -m "$m" "${bw[@]}");;
		bpf) cmd=("'"$STAP"'" --runtime=bpf -p4 -r "$rel" -m "$m" "${bw[@]}");;
		systemtap) cmd=("'"$systemtap"'" -r "$rel" -R "'"$work"'/st-runtime" -m "$m" -p4 "${bw[@]}");;
		esac
		timeout -k 5 600 "${cmd[@]}" > "$d/$n.build.out" 2> "$d/$n.build.err" < /dev/null
		echo $? > "$d/$n.build.rc"
		f=$(ls $m.ko $m.bo 2> /dev/null | head -1)
		[ -n "$f" ] && mv "$f" "$d/ko/"'
	for c in "${names[@]}"; do
		n=${c#*/}
		[ -f "$d/$n.build.rc" ] || continue
		ex=$(ls "$d/ko/ex_${n//[-.]/_}".* 2> /dev/null | head -1)
		mapfile -d "" -t w < "$d/$n.bw"
		if [ "${w[1]}" = 1 ]; then	# -pN: the translator's status is the example's
			[ "$(cat "$d/$n.build.rc")" = 0 ] && echo "$n ok" >> "$out" || echo "$n build" >> "$out"
			continue
		fi
		if [ -z "$ex" ]; then
			echo "$n build" >> "$out"
			continue
		fi
		mapfile -d "" -t rw < "$d/$n.rw"
		case $impl in
		cstap) jf="exec staprun";;
		bpf) jf="exec stapbpf";;
		systemtap) jf="staprun";;
		esac
		for ((i = 0; i < ${#rw[@]}; i++)); do
			case ${rw[i]} in
			-c|-x) jf+=" ${rw[i]} $(printf %q "${rw[i+1]}")"; i=$((i + 1));;
			esac
		done
		jf+=" /ko/$(basename "$ex")"
		if [ "$impl" != bpf ]; then
			for ((i = 0; i < ${#rw[@]}; i++)); do
				case ${rw[i]} in
				-c|-x) i=$((i + 1));;
				*) jf+=" $(printf %q "${rw[i]}")";;
				esac
			done
		fi
		[ "$impl" = systemtap ] && jf+="; rc=\$?; rmmod ex_${n//[-.]/_} 2> /dev/null; exit \$rc"
		printf '%s\t%s\t%s\n' "$n" 90 "$jf" >> "$d/jobs"
		files+=(-f "$ex:/ko/$(basename "$ex")")
	done
	if [ -s "$d/jobs" ]; then
		staprun=$STAPRUN; [ "$impl" = systemtap ] && staprun=$(readlink -f /usr/bin/staprun)
		CSTAP_STAPRUN=$staprun "$STAPVM" -r "$rel" -t 0 "${files[@]}" -b "$d/jobs" -O "$d/out" > "$d/vm.log" 2>&1 ||
			{ echo "examples-run: the $rel guest failed:" >&2; tail -5 "$d/vm.log" >&2; }
	fi
	while IFS=$'\t' read -r n _ _; do
		echo "$n $(sha256sum < "$d/out/$n.out" 2> /dev/null | cut -c1-12)" >> "$out.sha"
		rc=$(cat "$d/out/$n.rc" 2> /dev/null || echo none)
		if grep -q "job $n timed out" "$d/vm.log" || [ "$rc" = none ]; then
			echo "$n timeout"
		elif [ "$rc" = 0 ] && ! grep -q '^ERROR' "$d/out/$n.err" "$d/out/$n.out" 2> /dev/null; then
			echo "$n ok"
		else
			echo "$n run:$rc"
		fi
	done < "$d/jobs" >> "$out"
	sort -o "$out" "$out"
	sort -o "$out.sha" "$out.sha"
}

case $mode in
systemtap)
	for rel in "${rels[@]}"; do
		# a kernel SystemTap 4.8 builds no module for (6.12: its runtime
		# does not compile there) fails every example in pass 4
		run_all systemtap "$rel" "$work/st.$rel" hello_probe
		if [ "$(cat "$work/st.$rel")" != "hello_probe ok" ]; then
			for c in "${names[@]}"; do echo "$(series "$rel") ${c#*/} build"; done
			continue
		fi
		run_all systemtap "$rel" "$work/st.$rel"
		join -a 1 -e - -o 0,1.2,2.2 "$work/st.$rel" "$work/st.$rel.sha" | sed "s/^/$(series "$rel") /"
	done
	exit 0;;
cstap)
	for rel in "${rels[@]}"; do
		run_all cstap "$rel" "$work/c.$rel"
		: > "$work/b.$rel"
		[ "$rel" = "$default_rel" ] && run_all bpf "$rel" "$work/b.$rel"
		join -a 1 -e - -o 0,1.2,2.2 "$work/c.$rel" "$work/b.$rel" | join -a 1 -e - -o 0,1.2,1.3,2.2 - "$work/c.$rel.sha" |
			sed "s/^/$(series "$rel") /"
	done
	exit 0;;
esac

for rel in "${rels[@]}"; do
	table=$src/testsuite/examples/installcheck-$(series "$rel").txt
	[ -f "$table" ] || { bad "$rel: no table $table (examples-run.sh --systemtap and --cstap make one)"; continue; }
	run_all cstap "$rel" "$work/c.$rel"
	: > "$work/b.$rel"
	[ "$rel" = "$default_rel" ] && run_all bpf "$rel" "$work/b.$rel"
	join -a 1 -e - -o 0,1.2,2.2 "$work/c.$rel" "$work/b.$rel" > "$work/got.$rel"
	nok=0 nst=0 nboth=0 nsame=0 diffs=()
	while read -r n st want wantb sum why; do
		case $n in ''|'#'*) continue;; esac
		[ $# -gt 0 ] && ! grep -q "^$n " "$work/got.$rel" && continue
		got=$(grep "^$n " "$work/got.$rel" | cut -d' ' -f2-3)
		[ "$st" = ok ] && nst=$((nst + 1))
		[ "$got" = "$want ${wantb:-}" ] || [ "$got" = "$want -" -a "$wantb" = - ] ||
			{ diffs+=("$n: cstap ${got:-not run}, the table: $want ${wantb:-}"); continue; }
		# a registration warning SystemTap 4.8 does not print (it prints its own
		# for functions cstap keeps out or registers: none of cstap's here)
		if grep -q 'registration error' "$work/cstap-$rel/out/$n.err" 2> /dev/null; then
			diffs+=("$n: $(grep -m1 'registration error' "$work/cstap-$rel/out/$n.err")")
			continue
		fi
		if [ "${sum:--}" != - ]; then	# SystemTap's stdout, which cstap's was the same as
			nsame=$((nsame + 1))
			[ "$(sed -n "s/^$n //p" "$work/c.$rel.sha")" = "$sum" ] ||
				{ diffs+=("$n: its output is not SystemTap 4.8's (sha256 $sum); cstap's: $work/cstap-$rel/out/$n.out"); continue; }
		fi
		[ "$want" = ok ] && nok=$((nok + 1))
		[ "$want" = ok ] && [ "$st" = ok ] && nboth=$((nboth + 1))
		[ "$st" = ok ] && [ "$want" != ok ] && [ -z "$why" ] &&
			diffs+=("$n: SystemTap 4.8 completes it, cstap ends $want, and the table gives no reason")
	done < "$table"
	if [ ${#diffs[@]} = 0 ]; then
		ok "$rel: every example ends as $(basename "$table") says: cstap completes $nok, SystemTap 4.8 $nst ($nboth both); $nsame print what SystemTap's printed"
	else
		bad "$rel: examples that end otherwise than $(basename "$table") says" "${diffs[@]}"
	fi
done
finish
