#!/bin/bash
# compare-builds.sh BASE_BUILD [N]: passes 1-3 of the same scripts with two
# builds of stap (a build of an earlier commit, and this one), the median of
# N whole-process runs each, and their ratio (after / before). For checking
# that a change leaves passes 1-3 no slower.
#   git worktree add /tmp/base HEAD~3 && (cd /tmp/base && ./setup.sh)
#   bench/compare-builds.sh /tmp/base
# env: CSTAP_BUILD (this build dir)
set -u
export CSTAP_DEFAULT_RUNTIME=kernel   # modules (for the guest) where this host loads none: what SystemTap is compared with
base=${1:?usage: compare-builds.sh BASE_BUILD [N]}
n=${2:-11}
src=$(cd "$(dirname "$0")/.." && pwd)
new=${CSTAP_BUILD:-$src}
hello='probe begin { printf("hello %s %d\n", "world", 42); exit() }'

# median wall time in ms of n runs of: stap ARGS
median_ms() {
	local stap=$1; shift
	for i in $(seq "$n"); do
		local t0 t1
		t0=$(date +%s%N)
		(cd /tmp && "$stap" "$@" > /dev/null 2>&1)
		t1=$(date +%s%N)
		echo $(((t1 - t0) / 1000))
	done | sort -n | awk '{a[NR]=$1} END {printf "%.1f", a[int((NR+1)/2)] / 1000}'
}

row() {
	local name=$1; shift
	local a b
	a=$(median_ms "$base/translator/stap" "$@")
	b=$(median_ms "$new/translator/stap" "$@")
	printf '%-28s %10s %10s %8s\n' "$name" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", b / a}')"
}

printf '%-28s %10s %10s %8s\n' "median ms (N=$n)" "before" "after" "ratio"
row "hello -p3" -p3 -e "$hello"
row "tapset functions -p3" -p3 "$src/testsuite/run/tapset_strings.stp"
row 'vfs_* $$parms$ -p3' -p3 -e 'probe kernel.function("vfs_*") { println($$parms$) }'
row "syscall.* -p2" -p2 -e 'probe syscall.* {}'
