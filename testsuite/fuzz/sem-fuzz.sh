#!/bin/bash
# sem-fuzz.sh - fuzz passes 2 and 3 of the translator: scripts made by
# sem_mutate.c (SystemTap's conformance files, the run tests and the packaged
# examples mutated at the token level, plus scripts generated from the
# grammar) go through `stap -p3` (no kbuild) with a timeout. A finding is a
# signal (crash), a sanitizer report, a hang (timeout), or a failure without
# a tagged diagnostic ("... [TAG]: ..."): the translator must never crash and
# must say why it refuses a script.
#
# usage: sem-fuzz.sh [-n COUNT | -t SECONDS] [-s SEED] [-j JOBS] [-f] [-k]
#   -n COUNT    make and run COUNT inputs (default 200), deterministic for a SEED
#   -t SECONDS  run batches of inputs until SECONDS have passed (seeds SEED, SEED+1, ...)
#   -s SEED     first seed (default 1)
#   -j JOBS     stap runs at a time (default 2)
#   -f          full: keep expensive probe points (kernel.function...: pass 2
#               reads the kernel's DWARF, seconds a run); default is sem_mutate -q
#   -k          keep going after a finding (default: stop after the batch)
# env: STAP (default: the build's translator/stap; use asan/translator/stap
#      from `make asan-stap` to catch memory errors), CC, CSTAP_SHARED,
#      EXAMPLES (default /usr/share/systemtap/examples), CSTAP_SEMFUZZ_DIR
#      (work directory, default /tmp/cstap-semfuzz), TIMEOUT (seconds a run
#      may take, default 60; 300 with -f).
# Findings are left in $CSTAP_SEMFUZZ_DIR/findings/ (the script and its
# stderr); reproduce with `stap $(sed -n '1s/^#! stap//p' F) F 1 2`, fix, and
# keep the script in testsuite/fuzz/regressions-sem/ (regress-sem.sh runs them).
# Exit status: 0 no finding, 1 findings, 77 nothing to fuzz with.
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${CSTAP_BUILD:-$(pwd)}
[ -x "$build/translator/stap" ] || build=$src
stap=${STAP:-$build/translator/stap}
case $stap in /*) ;; *) stap=$(pwd)/$stap ;; esac
shared=${CSTAP_SHARED:-$src/../shared/conformance}/systemtap-testsuite
examples=${EXAMPLES:-/usr/share/systemtap/examples}
work=${CSTAP_SEMFUZZ_DIR:-/tmp/cstap-semfuzz}
count=200 seconds='' seed=1 jobs=2 quick=-q keep=''
while getopts n:t:s:j:fk o; do
	case $o in
	n) count=$OPTARG ;;
	t) seconds=$OPTARG ;;
	s) seed=$OPTARG ;;
	j) jobs=$OPTARG ;;
	f) quick= ;;
	k) keep=1 ;;
	*) sed -n '10,17s/^# //p' "$0" >&2; exit 2 ;;
	esac
done
[ -x "$stap" ] || { echo "sem-fuzz: no stap at $stap (set STAP)" >&2; exit 1; }

mkdir -p "$work/findings" || exit 1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cstap-semfuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
"${CC:-cc}" -std=gnu11 -O2 -o "$tmp/sem_mutate" "$src/testsuite/fuzz/sem_mutate.c" || exit 1

# the seed scripts, in a fixed order (shell scripts among them are skipped)
for f in "$shared"/{parseok,semok,semko,transok,transko,buildok,buildko}/*.stp \
	"$src"/testsuite/run/*.stp "$src"/testsuite/fuzz/regressions-sem/*.stp \
	$(find "$examples" -name '*.stp' 2>/dev/null | LC_ALL=C sort); do
	[ -f "$f" ] || continue
	case $(head -n 1 "$f") in "#!"*sh*) continue ;; esac
	echo "$f"
done > "$tmp/seeds"
[ -s "$tmp/seeds" ] || { echo "sem-fuzz: no seed scripts" >&2; exit 77; }

export CSTAP_TAPSETS=${CSTAP_TAPSETS:-$src/tapsets} CSTAP_RUNTIME=${CSTAP_RUNTIME:-$src/runtime}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
# a full run's kernel and module DWARF can take a minute of a loaded machine
[ -n "$quick" ] || : "${TIMEOUT:=300}"
export stap work TIMEOUT=${TIMEOUT:-60}

# run_one FILE: stap -p3 with line 1's options; prints "FINDING: why FILE"
run_one() {
	local f=$1 opts rc why=
	opts=$(sed -n '1s/^#! stap//p' "$f")
	# shellcheck disable=SC2086 # options are split on purpose
	(cd "$(dirname "$f")" && timeout -k 5 "$TIMEOUT" "$stap" $opts "$f" 1 2) \
		>/dev/null 2>"$f.err" </dev/null
	rc=$?
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then why=hang
	elif [ $rc -gt 128 ]; then why="signal $((rc - 128))"
	elif grep -q -e 'Sanitizer' -e 'runtime error:' "$f.err"; then why=sanitizer
	elif [ $rc -ne 0 ] && ! grep -q '\[[PETBRWO]_[A-Z0-9_]*\]: ' "$f.err"; then why="untagged error"
	fi
	if [ -n "$why" ]; then
		cp "$f" "$f.err" "$work/findings/"
		echo "FINDING: $why $work/findings/$(basename "$f")"
	fi
	rm -f "$f" "$f.err"
}
export -f run_one

# batch SEED N: make N inputs with SEED and run them
batch() {
	mkdir -p "$tmp/in"
	# shellcheck disable=SC2046 # one word a seed file
	"$tmp/sem_mutate" $quick -s "$1" -n "$2" -o "$tmp/in" $(cat "$tmp/seeds") || exit 1
	find "$tmp/in" -name '*.stp' | LC_ALL=C sort |
		xargs -P "$jobs" -I{} bash -c 'run_one {}' | tee -a "$tmp/findings"
}

start=$(date +%s) runs=0 first_seed=$seed
if [ -n "$seconds" ]; then
	while [ $(($(date +%s) - start)) -lt "$seconds" ]; do
		batch "$seed" 100
		runs=$((runs + 100)) seed=$((seed + 1))
		[ -s "$tmp/findings" ] && [ -z "$keep" ] && break
	done
else
	batch "$seed" "$count"
	runs=$count
fi
n=$(grep -c . "$tmp/findings" 2>/dev/null || true)
echo "sem-fuzz: $runs inputs (seeds from $first_seed), ${n:-0} findings, $(($(date +%s) - start)) s"
[ "${n:-0}" -eq 0 ]
