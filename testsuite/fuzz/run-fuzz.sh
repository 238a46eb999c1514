#!/bin/sh
# run-fuzz.sh - fuzz pass 1 (lexer, preprocessor, parser, unparser) with libFuzzer.
#
# Usage: testsuite/fuzz/run-fuzz.sh [SECONDS] [LIBFUZZER-OPTION...]
#   SECONDS   how long to fuzz (default 600); 0 only builds the harness
#   options   passed to libFuzzer as they are, e.g. -jobs=2 -workers=2
#
# Builds testsuite/fuzz/parse_fuzz.c with the pass-1 sources using
# clang -fsanitize=fuzzer,address,undefined (Debian: apt-get install clang
# libclang-rt-14-dev), seeds a corpus at run time from every .stp/.stpm file
# it can find (cstap's tapsets/ and testsuite/, ../shared/conformance,
# /usr/share/systemtap/tapset) and fuzzes. The work directory keeps the
# growing corpus between runs.
#
# Environment:
#   CSTAP_FUZZ_DIR        work directory (default /tmp/cstap-fuzz)
#   CSTAP_SHARED          the conformance directory (default ../shared/conformance)
#   CSTAP_FUZZ_ROUNDTRIP  1: also check that unparsed text re-parses to the same text
#   CC                    a clang (default clang)
#
# A crash, hang (timeout-*), or sanitizer report stops the run and leaves the
# input in $CSTAP_FUZZ_DIR/artifacts/. Reproduce with
#   $CSTAP_FUZZ_DIR/parse_fuzz FILE
# and, once fixed, copy it to testsuite/fuzz/regressions/ (regress.sh, run by
# make check, keeps feeding it to the parser).
set -e

here=$(cd "$(dirname "$0")/../.." && pwd)
seconds=${1:-600}
[ $# -gt 0 ] && shift
work=${CSTAP_FUZZ_DIR:-/tmp/cstap-fuzz}
shared=${CSTAP_SHARED:-$here/../shared/conformance}
cc=${CC:-clang}

mkdir -p "$work/corpus" "$work/seeds" "$work/artifacts"

# shellcheck disable=SC2086 # the sources are a list on purpose
srcs=$(for f in util diag ast parse/lexer parse/preprocess parse/parse parse/unparse; do printf '%s ' "$here/translator/$f.c"; done)
# shellcheck disable=SC2086
"$cc" -g -O1 -std=gnu11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I"$here/translator" \
	-DTAPSET_DIR="\"$here/tapsets\"" \
	"$here/testsuite/fuzz/parse_fuzz.c" $srcs -o "$work/parse_fuzz"
echo "run-fuzz: built $work/parse_fuzz"
[ "$seconds" -eq 0 ] && exit 0

# seeds: every script we can read, named by content so reruns dedupe
for dir in "$here/tapsets" "$here/testsuite" "$here/examples" "$shared" /usr/share/systemtap/tapset; do
	[ -d "$dir" ] || continue
	find "$dir" -type f \( -name '*.stp' -o -name '*.stpm' \) | while read -r f; do
		cp "$f" "$work/seeds/$(md5sum <"$f" | cut -c1-16)"
	done
done
[ -d "$here/testsuite/fuzz/regressions" ] && cp "$here"/testsuite/fuzz/regressions/* "$work/seeds/" 2>/dev/null || true
echo "run-fuzz: $(ls "$work/seeds" | wc -l) seed files, $(ls "$work/corpus" | wc -l) in the corpus"

# leaks: the parser never frees its tree (stap is short-lived); the harness
# frees each input's blocks itself, so leak checking is off.
cd "$work"
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
exec ./parse_fuzz -max_total_time="$seconds" -timeout=10 -max_len=65536 \
	-close_fd_mask=2 -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
	"$@" "$work/corpus" "$work/seeds"
