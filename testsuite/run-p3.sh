#!/bin/bash
# run-p3.sh - passes 1-3 of every run test: testsuite/run/NAME.stp through
# `stap -p3` with its NAME.opts and NAME.args read as run-tests.sh reads
# them (shell words; $REL and $UPROGS set, the NAME.EXT.SERIES variants of
# the target kernel's series preferred), against the default target kernel.
# Meant for `make check-asan` with the ASan+UBSan stap (STAP=...): every test
# must translate (exit 0, as it does before kbuild in run-tests.sh) with no
# crash and no sanitizer report.
# With BASE=DIR (the build tree of an earlier commit, e.g. a git worktree),
# it checks instead that a change leaves what the translator makes the same:
# each test's -p2 output, its -p3 module C and its --runtime=bpf bundle, from
# this build and from BASE's (each with its own tapsets and runtime; their
# paths read as SRC), must be byte for byte the same, exit status included;
# a difference is "DIFF: NAME (p2|p3|bpf)" with its first lines.
#   usage: run-p3.sh [NAME ...]
# With SET=buildok it takes SystemTap's testsuite files that must build
# (../shared/conformance/systemtap-testsuite/buildok/NAME.stp, no options or
# arguments) instead of the run tests: with BASE, a second body of scripts
# whose translation a change must leave the same.
#   env: STAP (default: the build's translator/stap), CSTAP_BUILD, REL (the
#        target release, default stap-vm --default-release), JOBS (default 2),
#        VERBOSE=1 shows the stderr of failures, BASE (see above)
set -u
export CSTAP_DEFAULT_RUNTIME=kernel   # modules in a guest where this host loads none (native-tests.sh: the default)
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CSTAP_BUILD:-$(pwd)}
[ -x "$build/translator/stap" ] || build=$src
STAP=${STAP:-$build/translator/stap}
case $STAP in /*) ;; *) STAP=$(pwd)/$STAP ;; esac
REL=${REL:-$("$build/translator/stap-vm" --default-release 2>/dev/null)}
[ -n "$REL" ] || { echo "run-p3: no target kernel (stap-vm --default-release)"; exit 77; }
if [ -z "${BASE:-}" ]; then
	export CSTAP_TAPSETS=${CSTAP_TAPSETS:-$src/tapsets} CSTAP_RUNTIME=${CSTAP_RUNTIME:-$src/runtime}
else	# each build finds its own tapsets and runtime beside its stap
	BASE=$(cd "$BASE" && pwd) || exit 1
	[ -x "$BASE/translator/stap" ] || { echo "run-p3: no $BASE/translator/stap"; exit 1; }
	unset CSTAP_TAPSETS CSTAP_RUNTIME SYSTEMTAP_TAPSET SYSTEMTAP_RUNTIME
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
out=$(mktemp -d "${TMPDIR:-/tmp}/cstap-run-p3.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT INT TERM

case ${SET:-run} in
run)	tests=$src/testsuite/run ;;
buildok) tests=${CONFORMANCE:-$src/../shared/conformance}/systemtap-testsuite/buildok
	[ -d "$tests" ] || { echo "run-p3: no $tests"; exit 77; } ;;
*)	echo "run-p3: SET is run or buildok"; exit 1 ;;
esac
tests=$(cd "$tests" && pwd)
if [ $# -gt 0 ]; then names=("$@"); else
	names=(); for f in "$tests"/*.stp; do names+=("$(basename "$f" .stp)"); done
fi

# the programs process probes name ($UPROGS/P, P_nodebug, lib*.so), built as
# run-tests.sh builds them: pass 2 reads their DWARF and symbols
export UPROGS=$out/uprogs; mkdir -p "$UPROGS"; ulibs=()
for c in "$src"/testsuite/run/uprogs/lib*.c; do
	[ -f "$c" ] || continue
	p=$(basename "$c" .c)
	gcc -g -O0 -shared -fPIC -o "$UPROGS/$p.so" "$c" -Wl,--as-needed ${ulibs[@]+"${ulibs[@]}"} \
		-Wl,-rpath,"$UPROGS" && ulibs+=("$UPROGS/$p.so")
done
for c in "$src"/testsuite/run/uprogs/*.c; do
	[ -f "$c" ] || continue
	p=$(basename "$c" .c)
	case $p in lib*) continue;; esac
	gcc -g -O0 -o "$UPROGS/$p" "$c" -Wl,--as-needed ${ulibs[@]+"${ulibs[@]}"} -Wl,-rpath,"$UPROGS"
	gcc -O0 -o "$UPROGS/${p}_nodebug" "$c" -Wl,--as-needed ${ulibs[@]+"${ulibs[@]}"} -Wl,-rpath,"$UPROGS"
done
for c in "$src"/testsuite/run/uprogs/*.cc; do
	[ -f "$c" ] || continue
	g++ -g -O0 -o "$UPROGS/$(basename "$c" .cc)" "$c"
done

series=$(echo "$REL" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')

# same_test NAME OPTS... -- ARGS...: with BASE, each mode's output from both
# builds; prints "DIFF: NAME (mode)" and the first lines of the difference
same_test() {
	local n=$1 d=$out/$1 mode stap tag diff
	shift
	local opts=() args=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	args=("$@")
	for mode in p2 p3 bpf; do
		local flags=(-p3)
		[ $mode = p2 ] && flags=(-p2)
		if [ $mode = bpf ]; then
			case " ${opts[*]-} " in *" --runtime"*) continue;; esac
			flags=(--runtime=bpf -p3)
		fi
		for tag in new base; do
			stap=$STAP; [ $tag = base ] && stap=$BASE/translator/stap
			(cd "$d" && timeout -k 5 600 "$stap" "${flags[@]}" -r "$REL" -m "t_$n" "${opts[@]}" "$n.stp" \
				"${args[@]}") < /dev/null > "$d/$mode.$tag" 2> "$d/$mode.$tag.err"
			echo "exit $?" >> "$d/$mode.$tag"
			# the build directory's name (mkdtemp) is the one part that changes
			sed -i -e "s|$src|SRC|g" -e "s|$BASE|SRC|g" -e 's|/stap[A-Za-z0-9]\{6\}/|/stapXXXXXX/|g' \
				"$d/$mode.$tag"
		done
		if ! diff=$(diff "$d/$mode.base" "$d/$mode.new"); then
			echo "DIFF: $n ($mode)"
			printf '%s\n' "$diff" | head -n 12 | sed 's/^/    | /'
		fi
	done
}

# one_test NAME: prints "FAIL: NAME (why)" and the stderr head, or nothing
one_test() {
	local n=$1 t=$tests/$1 d=$out/$1 opts=() args=() rc why=
	local o=$t.opts a=$t.args
	[ -f "$o.$series" ] && o=$o.$series
	[ -f "$a.$series" ] && a=$a.$series
	mkdir -p "$d"; cp "$t.stp" "$d/"
	[ -f "$o" ] && eval "opts=($(cat "$o"))"
	[ -f "$a" ] && eval "args=($(cat "$a"))"
	if [ -n "${BASE:-}" ]; then
		same_test "$n" ${opts[@]+"${opts[@]}"} -- ${args[@]+"${args[@]}"}
		return 0
	fi
	(cd "$d" && timeout -k 5 600 "$STAP" -p3 -r "$REL" -m "t_$n" "${opts[@]}" "$n.stp" "${args[@]}") \
		>/dev/null 2>"$d/err" </dev/null
	rc=$?
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then why=hang
	elif [ $rc -gt 128 ]; then why="signal $((rc - 128))"
	elif grep -q -e 'Sanitizer' -e 'runtime error:' "$d/err"; then why=sanitizer
	elif [ $rc -ne 0 ]; then why="exit $rc"
	fi
	if [ -n "$why" ]; then
		echo "FAIL: $n ($why)"
		[ -n "${VERBOSE:-}" ] && head -n 30 "$d/err" | sed 's/^/    | /'
	fi
	return 0
}
export -f one_test same_test; export src out STAP REL series UPROGS BASE tests

start=$(date +%s)
printf '%s\n' "${names[@]}" | xargs -P "${JOBS:-2}" -I{} bash -c 'one_test {}' | tee "$out/fails"
# tests, not lines: one test may differ in p2, p3 and bpf
fail=$(grep -e '^FAIL' -e '^DIFF' "$out/fails" | awk '{print $2}' | sort -u | wc -l)
if [ -n "${BASE:-}" ]; then
	echo "run-p3: $((${#names[@]} - fail)) the same as $BASE's, $fail different (kernel $REL, $(($(date +%s) - start)) s)"
else
	echo "run-p3: $((${#names[@]} - fail)) passed, $fail failed (kernel $REL, $(($(date +%s) - start)) s)"
fi
[ "$fail" -eq 0 ]
