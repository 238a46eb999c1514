#!/bin/bash
# examples.sh - SystemTap's packaged examples (Debian's systemtap-doc,
# /usr/share/systemtap/examples), each run as its .meta's test_check line
# says, with -p4 turned into the pass asked for.
#
#   examples.sh              the test: every example SystemTap 4.8 accepts at
#                            -p2 on this kernel (testsuite/examples/systemtap-p2.txt)
#                            must pass cstap's -p2 and -p4, except those in
#                            testsuite/examples/xfail.txt (NAME REASON); a listed
#                            example that passes fails the test, so the list
#                            only shrinks.
#   examples.sh --list N     print "NAME ok" or "NAME fail FIRST-ERROR" for every example at -pN with
#                            $STAP (e.g. STAP=/usr/bin/stap, SystemTap 4.8, to
#                            remake systemtap-p2.txt: --list 2 | sed -n 's/ ok$//p')
#   examples.sh NAME ...     the test, for these examples only
# Then, on every other installed kernel (stap-vm --releases), each example
# that passed is checked at -p2 (the tapsets must resolve there too), except
# those in testsuite/examples/xfail-SERIES.txt (e.g. xfail-6.12.txt: the
# example itself names a function that kernel renamed).
# env: STAP (default: the build's translator/stap), CSTAP_BUILD, EXAMPLES
# (default /usr/share/systemtap/examples), REL (the target kernel release).
# Without systemtap-doc the test is skipped (automake's 77), saying so.
set -u
export CSTAP_DEFAULT_RUNTIME=kernel   # modules in a guest where this host loads none (native-tests.sh: the default)
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CSTAP_BUILD:-$(pwd)}
[ -x "$build/translator/stap" ] || build=$src
stap=${STAP:-$build/translator/stap}
examples=${EXAMPLES:-/usr/share/systemtap/examples}
rel=${REL:-$("$build/translator/stap-vm" --default-release 2>/dev/null)}
accepted=$src/testsuite/examples/systemtap-p2.txt
xfail_list=$src/testsuite/examples/xfail.txt

if [ ! -d "$examples" ]; then
	echo "SKIP: no $examples (install Debian's systemtap-doc)"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cstap-examples.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# meta_of NAME: the .meta file of example NAME (its script's base name)
meta_of() {
	local m
	for m in "$examples"/*/"$1".meta; do
		[ -f "$m" ] && { echo "$m"; return 0; }
	done
	return 1
}

# run_example META PASS: run its test_check command at -pPASS; sets rc, and
# leaves stderr in $tmp/err. A test_check line is shell words: "stap -p4 x.stp ARGS".
run_example() {
	local meta=$1 pass=$2 line words=() cmd=()
	line=$(sed -n 's/^test_check: *//p' "$meta" | head -1)
	if [ -z "$line" ]; then
		rc=255
		echo "no test_check line" > "$tmp/err"
		return
	fi
	eval "words=($line)"
	cmd=("$stap")
	[ -n "$rel" ] && cmd+=(-r "$rel")
	for w in "${words[@]:1}"; do
		case $w in
		-p[0-9]) cmd+=("-p$pass") ;;
		*) cmd+=("$w") ;;
		esac
	done
	# in a copy of the example's directory: -p4 leaves the module where it runs
	rm -rf "$tmp/dir"; cp -r "$(dirname "$meta")" "$tmp/dir"
	(cd "$tmp/dir" && timeout 600 "${cmd[@]}") > /dev/null 2> "$tmp/err" < /dev/null
	rc=$?
	rm -rf "$tmp/dir"
}

names_all() {
	for m in "$examples"/*/*.meta; do
		grep -q '^test_check:' "$m" && basename "$m" .meta
	done | sort -u
}

if [ "${1:-}" = --list ]; then
	pass=${2:-2}
	for n in $(names_all); do
		run_example "$(meta_of "$n")" "$pass"
		if [ "$rc" = 0 ]; then echo "$n ok"; else
			echo "$n fail $(grep -m1 -E 'error|ERROR' "$tmp/err" | cut -c1-160)"
		fi
	done
	exit 0
fi

if [ $# -gt 0 ]; then names=("$@"); else
	mapfile -t names < <(grep -v '^#' "$accepted" | sed '/^$/d')
fi

# judge NAME: one line "PASS|FAIL|XFAIL: NAME ..." (and FAIL's first error
# lines) into $tmp/res/NAME; run two at a time (kbuild takes one core)
judge() {
	local n=$1 meta reason why out=$tmp/res/$1
	tmp=$tmp/w.$1; mkdir -p "$tmp"
	meta=$(meta_of "$n") || { echo "FAIL: $n (no such example)" > "$out"; return; }
	# -p4; -p2 only to say where a failure is
	local t0=$SECONDS
	run_example "$meta" 4
	echo "$((SECONDS - t0))" > "$out.secs"
	why="-p4"
	if [ "$rc" != 0 ]; then
		local rc4=$rc
		mv "$tmp/err" "$tmp/err4"
		run_example "$meta" 2
		[ "$rc" != 0 ] && why="-p2"
		rc=$rc4
		mv "$tmp/err4" "$tmp/err"
	fi
	reason=$(sed -n "s/^$n //p" "$xfail_list" 2>/dev/null)
	if [ "$rc" = 0 ] && [ -z "$reason" ]; then
		echo "PASS: $n" > "$out"
	elif [ "$rc" = 0 ]; then
		echo "FAIL: $n passes now: take it off testsuite/examples/xfail.txt" > "$out"
	elif [ -n "$reason" ]; then
		echo "XFAIL: $n ($reason)" > "$out"
	else
		{ echo "FAIL: $n ($why, exit $rc)"; grep -m3 -E 'error|ERROR' "$tmp/err" | sed 's/^/    /'; } > "$out"
	fi
}
mkdir -p "$tmp/res"
export -f judge run_example meta_of
export tmp stap rel examples xfail_list
printf '%s\n' "${names[@]}" | xargs -P "${JOBS:-2}" -I{} bash -c 'judge {}'

passed=0 failed=0 xfailed=0 failures=""
for n in "${names[@]}"; do
	cat "$tmp/res/$n"
	case $(head -c 5 "$tmp/res/$n") in
	PASS:) passed=$((passed + 1)) ;;
	XFAIL) xfailed=$((xfailed + 1)) ;;
	*) failed=$((failed + 1)); failures="$failures $n" ;;
	esac
done
echo "$passed passed, $failed failed, $xfailed expected failures"
# where the time went: the longest -p4 builds
echo "slowest at -p4: $(for n in "${names[@]}"; do [ -f "$tmp/res/$n.secs" ] && echo "$(cat "$tmp/res/$n.secs") $n"; done |
	sort -rn | head -6 | awk '{printf "%s%s %s s", (NR > 1 ? ", " : ""), $2, $1}')"
[ -n "$failures" ] && echo "failed:$failures"

# other_release REL: the examples that passed, at -p2 on kernel REL
other_release() {
	local r=$1 series n reason list p=0 f=0 x=0
	series=$(echo "$r" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
	list=$src/testsuite/examples/xfail-$series.txt
	# two at a time: each result (rc, stderr) in $tmp/r.NAME
	for n in "${names[@]}"; do
		[ "$(head -c 5 "$tmp/res/$n")" = PASS: ] && echo "$n"
	done | R=$r xargs -P "${JOBS:-2}" -I{} bash -c \
		'tmp=$tmp/r.{}; mkdir -p "$tmp"; rel=$R run_example "$(meta_of {})" 2; echo "$rc" > "$tmp/rc"'
	for n in "${names[@]}"; do
		[ "$(head -c 5 "$tmp/res/$n")" = PASS: ] || continue
		rc=$(cat "$tmp/r.$n/rc"); cp "$tmp/r.$n/err" "$tmp/err"
		reason=$(sed -n "s/^$n //p" "$list" 2>/dev/null)
		if [ "$rc" = 0 ] && [ -n "$reason" ]; then
			echo "FAIL: $n passes -p2 on $r now: take it off $(basename "$list")"; f=$((f + 1))
		elif [ "$rc" = 0 ]; then
			p=$((p + 1))
		elif [ -n "$reason" ]; then
			echo "XFAIL: $n on $r ($reason)"; x=$((x + 1))
		else
			echo "FAIL: $n (-p2 on $r, exit $rc)"; grep -m3 -E 'error|ERROR' "$tmp/err" | sed 's/^/    /'
			f=$((f + 1))
		fi
	done
	echo "kernel $r: $p passed -p2, $f failed, $x expected failures"
	[ "$f" = 0 ]
}
for r in $("$build/translator/stap-vm" --releases 2>/dev/null); do
	[ "$r" = "$rel" ] && continue
	other_release "$r" || failed=$((failed + 1))
done
[ "$failed" = 0 ]
