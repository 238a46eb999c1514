#!/bin/sh
# parse.sh - how long pass 1 takes over all tapsets plus a 1,000-line script.
# The goal (issue 3) is under 20 ms.
#
# Parsed, in one run, as one stap run would: cstap's tapsets/*.stp (with the
# tapsets/*.stpm macros), SystemTap 4.8's tapsets when installed
# (/usr/share/systemtap/tapset: the top level, linux/, ARCH/ and linux/ARCH/,
# the set SystemTap itself reads for a kernel on this machine; its .stpm
# macros too), and a generated 1,000-line user script.
#
# Measured by bench/parse_bench.c (built here with $CC -O2 from the pass-1
# sources): files are read first, then preprocessed and parsed REPS times;
# the best and the median are printed. Then the same with `stap -p1 -I DIR`
# end to end (process start, file reading, printing the user script), best
# of REPS, when a built stap is found.
#
# usage: bench/parse.sh [REPS]      (default 10)
# env:   CC (default cc), CSTAP_BUILD (build dir with translator/stap),
#        SYSTEMTAP_TAPSETS (default /usr/share/systemtap/tapset)
set -u
export CSTAP_DEFAULT_RUNTIME=kernel   # modules (for the guest) where this host loads none: what SystemTap is compared with
reps=${1:-10}
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CSTAP_BUILD:-$src}
st=${SYSTEMTAP_TAPSETS:-/usr/share/systemtap/tapset}
arch=$(uname -m)
work=$(mktemp -d "${TMPDIR:-/tmp}/cstap-bench.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT INT TERM

srcs=
for f in util diag ast parse/lexer parse/preprocess parse/parse parse/unparse; do
	srcs="$srcs $src/translator/$f.c"
done
# shellcheck disable=SC2086 # srcs is a list
${CC:-cc} -O2 -std=gnu11 -D_GNU_SOURCE -I"$src/translator" "$src/bench/parse_bench.c" $srcs \
	-o "$work/parse_bench" || exit 1

# a 1,000-line user script using most of the language
awk 'BEGIN {
	print "global counts, totals[100], stats"
	print "@define square(x) %( ((@x) * (@x)) %)"
	n = 2
	for (i = 0; n < 990; i++) {
		printf "function f%d(a, b:long, s:string) {\n", i
		printf "\tx = a * %d + b - (b >> 2) %% 7\n", i
		printf "\tif (x > 10 && !(x & 1) || s == \"k%d\") x += @square(a)\n", i
		printf "\telse { x = x ? -x : ~x; }\n"
		printf "\tfor (j = 0; j < 3; j++) counts[j, s] <<< x + j\n"
		printf "\tforeach ([k, v] in counts- limit 5) totals[k] += @count(counts[k, v])\n"
		printf "\ttry { y = %d / x; } catch (e) { y = strlen(e) }\n", i
		printf "\treturn sprintf(\"%%d:%%s\", x + y, s . \"suffix\")\n"
		printf "}\n"
		printf "probe timer.ms(%d), begin(%d) ? if (x%d > 0) {\n", i + 1, i, i
		printf "\tstats <<< f%d(%d, 0x%x, \"s%d\"); delete totals[%d]\n", i, i, i, i, i
		printf "\twhile (i < %d) { i++; if (i == 3) continue; else break }\n", i
		printf "\tprintf(\"%%d %%s\\n\", @sum(stats), @hist_log(stats) ? \"\" : \"x\")\n"
		printf "}\n"
		n += 14
	}
	while (n++ < 1000) print "# padding comment"
}' >"$work/gen1000.stp"

echo "parse: cstap's tapsets and a $(wc -l <"$work/gen1000.stp")-line script"
"$work/parse_bench" -r "$reps" -I "$src/tapsets" "$src"/tapsets/*.stp "$work/gen1000.stp"
rc=$?

set -- "-I" "$src/tapsets" "$src"/tapsets/*.stp
have_st=no
if [ -d "$st" ]; then
	have_st=yes
	set -- "$@" "-I" "$st"
	for d in "$st" "$st/linux" "$st/$arch" "$st/linux/$arch"; do
		for f in "$d"/*.stp; do
			[ -f "$f" ] && set -- "$@" "$f"
		done
	done
fi
if [ "$have_st" = yes ]; then
	echo "parse: cstap's tapsets, SystemTap's ($st: top, linux/, $arch/, linux/$arch/) and the script"
	"$work/parse_bench" -r "$reps" "$@" "$work/gen1000.stp" || rc=1
fi

stap=$build/translator/stap
if [ -x "$stap" ]; then
	istap=
	[ "$have_st" = yes ] && istap="-I $st"
	best=
	for i in $(seq "$reps"); do
		t0=$(date +%s%N)
		# shellcheck disable=SC2086
		"$stap" -p1 $istap "$work/gen1000.stp" >/dev/null 2>"$work/stap.err"
		t1=$(date +%s%N)
		ms=$(((t1 - t0) / 1000000))
		if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
	done
	files=$(sed -n 's/.*parsed user script and \([0-9]*\) library.*/\1/p' "$work/stap.err")
	echo "stap -p1 $istap (end to end, every tapset subdirectory${files:+, $files library files}): best $best ms"
	[ -n "$files" ] || "$stap" -v -p1 $istap "$work/gen1000.stp" 2>&1 >/dev/null | grep '^Pass 1' || true
fi
exit $rc
