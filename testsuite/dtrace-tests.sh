#!/bin/sh
# dtrace-tests.sh - DTrace's own unit tests (dtrace-utils' test/unittest, read
# from ../shared/dtrace-testsuite) against cstap's dtrace front end.
#
# usage: dtrace-tests.sh [-v] [--update-known] [--list-groups] [CATEGORY|TEST ...]
#   CATEGORY  a directory under test/unittest (aggs, funcs/copyout)
#   TEST      a test's path under it (trace/tst.string.d)
#   -v        under each failure, 20 lines of its diff (or stderr), not 4
#   --update-known  rewrite testsuite/dtrace/known.txt from this run: every
#             unlisted failure added (its reason: how it failed), every listed
#             test that passed dropped, the other reasons kept
#   --list-groups   print each test's group (language, err, provider), run nothing
# Environment: DTRACE (default $build/translator/dtrace), JOBS (default the
# CPU count), KEEP=1 (keep the work directory: each test's output, under
# t/CAT%FILE/), VERBOSE=1 (as -v), DTRACE_RUNTIME=kernel (the language
# tests with the module runtime in a QEMU guest, known-kernel.txt their
# known failures), DTRACE_SAMPLE=N (every Nth test of those selected).
# Exit status: 0 when every failure is listed in known.txt; 1 on an unlisted
# failure or a listed test that passes (XPASS: the list only shrinks); 77
# (skip) without ../shared/dtrace-testsuite, without root (BPF) or without a
# dtrace to test.
#
# How a test runs and is judged is the suite's README.md; where it is silent,
# dtrace-utils' runtest.sh (what the .r files were made with):
# - tst.NAME.d: `dtrace -s test/unittest/CAT/tst.NAME.d [@@runtest-opts]
#   [-c TRIGGER]`, cwd a directory whose test/unittest is the
#   suite's and whose test/triggers holds the built triggers (so the relative
#   paths the .r files and the .sh tests use resolve), stdin /dev/null,
#   _DTRACE_TESTING set, under timeout(1): 41 s, or @@timeout when larger.
#   Its stdout, then "-- @@stderr --" and stderr when stderr is not empty, goes
#   through the executable .r.p filter (run with the interpreter its #! line
#   names), then every 0x... becomes {ptr}; both sides sorted unless
#   @@nosort; it must equal tst.NAME.x86_64.r (else tst.NAME.r) and exit 0.
#   No .r: exit status 0 alone.
# - err.D_TAG.NAME.d: `dtrace -xerrtags -s ...`; exit status 1 and "[D_TAG]" on
#   stderr. Other err.*: exit status 1. A .r beside an err test holds the
#   original's message: matching it is counted apart ("word for word"), not
#   required.
# - drp.DTRACEDROP_X.NAME.d: `dtrace -xdroptags -s ...`; exit status 0 and
#   "[DTRACEDROP_X]" on stderr (its .r: counted like an err test's).
# - tst.NAME.sh, err.NAME.sh: `test/unittest/CAT/tst.NAME.sh DTRACE` (by its #!
#   line), with dt_flags, tmpdir, _test, tst and _pid in the environment; the
#   same .r rules. Exit status 67 is the test saying it cannot run: a failure.
# - @@trigger: PROG [ARGS]: test/triggers/PROG.c built once (cached in
#   $build/testsuite/dtrace-triggers, flags from test/triggers/Build; USDT
#   triggers through `dtrace -h`/`-G`), passed as -c "PROG ARGS"; with
#   @@trigger-timing: before it is started first, with after (or N seconds)
#   started that long after dtrace (the original's one-second delay), and its
#   pid replaces $_pid in @@runtest-opts. A trigger that does not build skips
#   its tests (a failure when dtrace -h/-G failed).
# - @@skip, and a .x script (test.x up the tree too) exiting 2: skipped, as in
#   the original; @@xfail and .x exiting 1 (the original's expected failures)
#   run anyway, the reason shown beside a failure. @@reinvoke-failure: N runs
#   a failing test up to N more times. @@options come from the test file, else
#   the nearest test.options up to test/.
# - Files that were symbolic links in dtrace-utils are plain files naming
#   their target here (a one-line relative path): followed.
#
# Groups (--list-groups, and the pass rates at the end):
# - language: tst.*.d with a .r whose probe descriptions are all BEGIN, END,
#   ERROR (provider dtrace or none), tick-* or profile-* (provider profile or
#   none). The descriptions are read from the clause heads: the D text at
#   brace depth 0 (comments, strings and # lines left out) before each "{"
#   that does not open a struct/union/enum/translator/provider body, cut at
#   the predicate's first "/", split at commas and blanks; a word there is a
#   probe description when it has a ":" or is a bare BEGIN, END, ERROR,
#   tick-N or profile-N (so the C code of a .d that is also a C program is
#   none). A macro as a description (-D) is none either.
# - err: err.D_* tests.
# - provider: the rest (other tst.*.d and tst.*.sh, other err.*, drp.*).
set -u

# The work of one test, or of one trigger build: this script runs itself
# once per test (xargs -P), with what it needs in the environment (DT_*).
case ${1:-} in
--run-one|--build-trigger) mode=$1; shift ;;
*) mode=main ;;
esac

arch=$(uname -m)

# option_files FILE: the files FILE's @@options may come from, nearest first:
# FILE, then test.ARCH.options or test.options in its directory and each
# parent up to test/ (runtest.sh's exist_options).
option_files() {
	echo "$DT_SUITE/$1"
	of_dir=${1%/*}
	while :; do
		if [ -e "$DT_SUITE/$of_dir/test.$arch.options" ]; then
			echo "$DT_SUITE/$of_dir/test.$arch.options"
		elif [ -e "$DT_SUITE/$of_dir/test.options" ]; then
			echo "$DT_SUITE/$of_dir/test.options"
		fi
		case $of_dir in */*) of_dir=${of_dir%/*} ;; *) break ;; esac
	done
}

# option NAME: prints the value of @@NAME (as in "@@NAME: value", "@@NAME */"
# or "@@NAME") from the nearest of $opt_files that has it; status 1 if none.
option() {
	for opt_file in $opt_files; do
		if grep -Eq "@@$1( *:| |\$)" "$opt_file"; then
			grep -E "@@$1( *:| |\$)" "$opt_file" |
				sed "s,.*@@$1 *: *,,; s,.*@@$1\( .*\)*\$,,; s,\*/\$,,; s,  *\$,," |
				tr '\n' ' ' | sed 's/ *$//'
			return 0
		fi
	done
	return 1
}

# resolve FILE: prints FILE, or the file it names when FILE stands for a
# symbolic link of dtrace-utils (a short one-line relative path without a
# newline, not executable, naming a file that exists).
resolve() {
	rs_file=$1
	while [ -f "$rs_file" ] && [ ! -x "$rs_file" ] && [ "$(wc -c < "$rs_file")" -lt 256 ] &&
		[ "$(wc -l < "$rs_file")" -eq 0 ]; do
		rs_target=$(cat "$rs_file")
		case $rs_target in '' | *[!A-Za-z0-9_./+-]*) break ;; esac
		[ -e "${rs_file%/*}/$rs_target" ] || break
		rs_file=${rs_file%/*}/$rs_target
	done
	echo "$rs_file"
}

# is_link_to_missing FILE: FILE stands for a symbolic link whose target is not
# in the suite (a .r.p of test/utils, say): said beside the test's failure.
is_link_to_missing() {
	[ -f "$1" ] && [ ! -x "$1" ] && [ "$(wc -l < "$1")" -eq 0 ] &&
		[ "$(wc -c < "$1")" -lt 256 ] && ! [ -e "${1%/*}/$(cat "$1")" ]
}

# run_filter FILTER IN OUT: the .r.p filter run by the interpreter its #!
# line names (some are sed or gawk scripts); status: the filter's, or 127
# when that interpreter is not installed (reason in $filter_error).
run_filter() {
	rf_line=$(head -n 1 "$1" | sed 's/[[:space:]]*$//')
	filter_error=
	case $rf_line in
	'#!'*)
		rf_line=${rf_line#??}
		rf_interp=${rf_line%% *}
		rf_arg=
		[ "$rf_interp" = "$rf_line" ] || rf_arg=${rf_line#* }
		if [ ! -x "$rf_interp" ]; then
			filter_error="its interpreter $rf_interp is not installed"
			return 127
		fi
		if [ -n "$rf_arg" ]; then "$rf_interp" "$rf_arg" "$1" < "$2" > "$3"
		else "$rf_interp" "$1" < "$2" > "$3"; fi ;;
	*) sh "$1" < "$2" > "$3" ;;
	esac
}

# compare_output WANT GOT: status 0 when they are the same (sorted first
# unless $nosort); the first differing line in $first_diff, the diff in
# $tdir/diff.
compare_output() {
	if [ -n "$nosort" ]; then
		cp "$1" "$tdir/want"; cp "$2" "$tdir/have"
	else
		LC_ALL=C sort "$1" > "$tdir/want"; LC_ALL=C sort "$2" > "$tdir/have"
	fi
	cmp -s "$tdir/want" "$tdir/have" && return 0
	diff "$tdir/want" "$tdir/have" > "$tdir/diff"
	first_diff=$({ grep -m 1 '^[<>] *[^ ]' "$tdir/diff" || grep -m 1 '^[<>]' "$tdir/diff"; } | sed 's/^< /missing: /; s/^> /unexpected: /' | cut -c 1-120)
	return 1
}

# first_stderr_line: the first non-blank line dtrace wrote to stderr, short.
first_stderr_line() {
	grep -m 1 -v '^[[:space:]]*$' "$tdir/err.clean" | cut -c 1-120
}

# verdict STATUS SHORT DETAIL: the test's result line (STATUS, test, short
# reason, detail, wording), read back by the summary. SHORT is what
# --update-known writes as a new entry's reason.
verdict() {
	printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$id" "$2" "$(printf '%s' "$3" | tr '\t\n' '  ')" "${wording:--}" > "$DT_WORK/v/$key"
	exit 0
}

# run_test: one run of the test (dtrace or the .sh, a trigger beside it if
# any); leaves $status and $tdir/out, $tdir/err.
run_test() {
	trigger_pid=
	opts=$runtest_opts
	if [ -n "$trigger_cmd" ] && [ "$trigger_timing" != synchro ]; then
		# started apart: its pid is $_pid (runtest.sh's "before"/"after")
		if [ "$trigger_timing" = before ]; then
			setsid $trigger_cmd < /dev/null > "$tdir/trigger.out" 2>&1 &
		else
			setsid sh -c 'sleep "$0"; exec "$@"' "$trigger_timing" $trigger_cmd \
				< /dev/null > "$tdir/trigger.out" 2>&1 &
		fi
		trigger_pid=$!
		opts=$(printf '%s' "$opts" | sed "s/\\\$_pid/$trigger_pid/g")
	fi
	export _pid="$trigger_pid"
	set -f
	if [ "$kind" = sh ]; then
		export dt_flags="$dtrace_flags $opts"
		timeout --signal=TERM --kill-after=5 "$test_timeout" "$file" "$DTRACE" \
			< /dev/null > "$tdir/out" 2> "$tdir/err"
	elif [ -n "$trigger_cmd" ] && [ "$trigger_timing" = synchro ]; then
		timeout --signal=TERM --kill-after=5 "$test_timeout" "$DTRACE" $dtrace_flags -s "$file" $opts \
			-c "$trigger_cmd" < /dev/null > "$tdir/out" 2> "$tdir/err"
	else
		timeout --signal=TERM --kill-after=5 "$test_timeout" "$DTRACE" $dtrace_flags -s "$file" $opts \
			< /dev/null > "$tdir/out" 2> "$tdir/err"
	fi
	status=$?
	set +f
	[ -z "$trigger_pid" ] || { kill -9 -"$trigger_pid" 2> /dev/null; wait "$trigger_pid" 2> /dev/null; }
	# what the test left running (a -c command outlives a dtrace killed by the
	# timeout, in a process group of its own): every process working in the
	# test's directory (not this shell: it works there too)
	for p in /proc/[0-9]*; do
		[ "${p#/proc/}" != "$$" ] && [ "$(readlink "$p/cwd" 2> /dev/null)" = "$tdir/root" ] &&
			kill -9 "${p#/proc/}" 2> /dev/null
	done
	return 0
}

# judge: the failure of the last run (status 1, reason in $short and
# $detail), or status 0; the .r comparison's result in $wording for err and
# drp tests.
judge() {
	grep -Ev '^[a-z_]+ DEBUG [0-9]+: ' "$tdir/err" |
		sed 's/Invalid member name/Member name not found/' > "$tdir/err.clean"
	{ cat "$tdir/out"; if [ -s "$tdir/err.clean" ]; then echo '-- @@stderr --'; cat "$tdir/err.clean"; fi; } > "$tdir/combined"
	filter_failed=
	cp "$tdir/combined" "$tdir/filtered"
	if [ -n "$filter" ] && [ -x "$filter" ]; then
		run_filter "$filter" "$tdir/combined" "$tdir/filtered"
		filter_status=$?
		if [ "$filter_status" != 0 ]; then
			filter_failed="${filter_error:-${filter#test/unittest/} exit status $filter_status}"
			cp "$tdir/combined" "$tdir/filtered"
		fi
	fi
	sed -e '/^==[0-9][0-9]*== /!s,0x[0-9a-f][0-9a-f]*,{ptr},g' -e 's,at BPF pc [1-9][0-9]*,at BPF pc NNN,' \
		"$tdir/filtered" > "$tdir/got"
	output_same=
	first_diff=
	if [ -n "$expected" ] && compare_output "$expected" "$tdir/got"; then output_same=1; fi
	case $type in err*|drp) if [ -z "$expected" ]; then wording=-; elif [ -n "$output_same" ]; then wording=same; else wording=differs; fi ;; esac
	short= detail=
	if [ "$status" = 124 ] || [ "$status" = 137 ]; then
		short=timeout detail="killed after ${test_timeout}s"
		cp "$tdir/err.clean" "$tdir/detail"
	elif [ "$kind" = sh ] && [ "$status" = 67 ]; then
		short="exit status 67 (the test says it cannot run here)" detail=$(first_stderr_line)
		cp "$tdir/combined" "$tdir/detail"
	elif [ "$status" != "$want_status" ]; then
		if [ "$status" -gt 128 ] && [ "$status" -lt 194 ]; then
			short="killed by signal $((status - 128))"
		else
			short="exit status $status, expected $want_status"
		fi
		detail=$(first_stderr_line)
		cp "$tdir/err.clean" "$tdir/detail"
	elif [ -n "$tag" ] && ! grep -qF "[$tag]" "$tdir/err.clean"; then
		short="no [$tag] in stderr" detail=$(first_stderr_line)
		cp "$tdir/err.clean" "$tdir/detail"
	elif [ "$type" = tst ] && [ -n "$filter_failed" ]; then
		short="filter failed" detail=$filter_failed
	elif [ "$type" = tst ] && [ -n "$expected" ] && [ -z "$output_same" ]; then
		short="output differs" detail=$first_diff
		[ -z "$filter_note" ] || detail="$detail; $filter_note"
		cp "$tdir/diff" "$tdir/detail"
	else
		return 0
	fi
	return 1
}

# x_files: the .x scripts that say whether the test can run here: its own
# (NAME.ARCH.x, else NAME.x), then test.ARCH.x or test.x in its directory and
# each parent up to test/.
x_files() {
	if [ -e "$base.$arch.x" ]; then echo "$base.$arch.x"; elif [ -e "$base.x" ]; then echo "$base.x"; fi
	xf_dir=${file%/*}
	while :; do
		if [ -e "$xf_dir/test.$arch.x" ]; then echo "$xf_dir/test.$arch.x"
		elif [ -e "$xf_dir/test.x" ]; then echo "$xf_dir/test.x"; fi
		case $xf_dir in */*) xf_dir=${xf_dir%/*} ;; *) break ;; esac
	done
}

# run_one ID: runs test ID (its path under test/unittest) and writes its
# verdict into $DT_WORK/v/.
run_one() {
	id=$1
	file=test/unittest/$id
	name=${id##*/}
	key=$(printf '%s' "$id" | tr / %)
	tdir=$DT_WORK/t/$key
	mkdir -p "$tdir/root/test" "$tdir/tmp"
	ln -s "$DT_SUITE/test/unittest" "$tdir/root/test/unittest"
	ln -s "$DT_WORK/triggers" "$tdir/root/test/triggers"
	cd "$tdir/root" || exit 1
	wording=
	case $name in
	*.sh) kind=sh base=${file%.sh} ;;
	*) kind=d base=${file%.d} ;;
	esac
	dtrace_flags= tag= want_status=0
	case $name in
	err.D_*) type=errtag want_status=1 dtrace_flags=-xerrtags tag=${name#err.} tag=${tag%%.*} ;;
	err.*) type=err want_status=1 ;;
	drp.*) type=drp dtrace_flags=-xdroptags tag=${name#drp.} tag=${tag%%.*} ;;
	*) type=tst ;;
	esac
	opt_files=$(option_files "$file")

	if skip_reason=$(option skip); then verdict SKIP "@@skip: $skip_reason" ""; fi
	# the .x scripts: exit status 2 skips the test (the most "faily" wins in
	# runtest.sh); 1, an expected failure, runs it anyway
	xfail_note=
	if xfail_reason=$(option xfail) && ! option no-xfail > /dev/null; then xfail_note="the original's @@xfail: $xfail_reason"; fi
	for x_file in $(x_files); do
		x_file=$(resolve "$x_file")
		[ -x "$x_file" ] || continue
		x_out=$(_test=$file env "BASH_FUNC_check_provider%%=() { \"\$DTRACE\" -l -P \"\$1\" > /dev/null 2>&1; }" \
			timeout 30 "$x_file" 2> /dev/null)
		x_status=$?
		x_out=$(printf '%s\n' "$x_out" | head -n 1)
		case $x_status in
		2) verdict SKIP "${x_file#test/unittest/} says skip${x_out:+: $x_out}" "" ;;
		1) xfail_note="${x_file#test/unittest/} expects a failure${x_out:+: $x_out}" ;;
		esac
	done

	test_timeout=41
	if t=$(option timeout) && [ "$t" -gt "$test_timeout" ] 2> /dev/null; then test_timeout=$t; fi
	runtest_opts=$(option runtest-opts) || runtest_opts=
	nosort=
	option nosort > /dev/null && nosort=1

	# the trigger: @@trigger (default none), or an executable .t beside the test
	trigger_cmd= trigger_timing=synchro
	trigger=$(option trigger) || trigger=none
	if [ -x "$base.t" ]; then
		trigger_cmd=$base.t
	elif [ "$trigger" != none ] && [ -n "$trigger" ]; then
		trigger_name=${trigger%% *}
		if [ ! -x "test/triggers/$trigger_name" ]; then
			why=$(cat "$DT_WORK/trigger-fail/$trigger_name" 2> /dev/null) || why="not in test/triggers"
			case $why in
			dtrace*) verdict FAIL "trigger $trigger_name: $why" "" ;;
			*) verdict SKIP "trigger $trigger_name did not build: $why" "" ;;
			esac
		fi
		trigger_cmd=test/triggers/$trigger
	fi
	if [ -n "$trigger_cmd" ] && t=$(option trigger-timing); then
		case $t in before|after|synchro) trigger_timing=$t ;; *[!0-9]*|'') ;; *) trigger_timing=$t ;; esac
		[ "$trigger_timing" != after ] || trigger_timing=1
	fi
	# .sh tests get no -c: their triggers are started apart
	[ "$kind" != sh ] || [ "$trigger_timing" != synchro ] || trigger_cmd=

	expected=
	for r in "$base.$arch.r" "$base.r"; do
		if [ -e "$r" ]; then expected=$(resolve "$r"); break; fi
	done
	filter= filter_note=
	if [ -e "$base.r.p" ]; then
		filter=$(resolve "$base.r.p")
		if is_link_to_missing "$filter"; then filter_note="its .r.p names $(cat "$filter"), not in the suite"; filter=; fi
	fi

	# a test that runs make (pid/tst.provregex3.sh) is no part of the make
	# check that may run this script: no jobserver of its to warn about
	unset MAKEFLAGS MFLAGS MAKELEVEL MAKE_TERMOUT MAKE_TERMERR
	export _DTRACE_TESTING=1 LANGUAGE=C LC_COLLATE=C
	export dtrace="$DTRACE" tmpdir="$tdir/tmp" _test="$file" tst="$base" timeout="$test_timeout"
	export test_cppflags= test_ldflags= test_libdir=installed
	reinvoke=$(option reinvoke-failure) || reinvoke=0
	case $reinvoke in ''|*[!0-9]*) reinvoke=0 ;; esac
	while :; do
		run_test
		judge && verdict PASS "" ""
		[ "$reinvoke" -gt 0 ] || break
		reinvoke=$((reinvoke - 1))
	done
	option tags 2> /dev/null | grep -q unstable && detail="$detail (tagged unstable)"
	[ -z "$xfail_note" ] || detail="$detail [$xfail_note]"
	verdict FAIL "$short" "$detail"
}

# build_trigger NAME: test/triggers/NAME.c compiled into $DT_TRIGGER_CACHE,
# kept while newer than its sources and this script (and, for a USDT
# trigger, than dtrace), with the flags test/triggers/Build gives it; a
# failure's reason in $DT_WORK/trigger-fail/NAME ("dtrace -h ..." when it was
# dtrace's part).
build_trigger() {
	name=$1
	dir=$DT_SUITE/test/triggers
	out=$DT_TRIGGER_CACHE/$name
	source=$(resolve "$dir/$name.c")
	flags() { sed -n "s/^${name}_$1 *:= *//p" "$dir/Build"; }
	cflags=$(flags CFLAGS) ldflags=$(flags LDFLAGS) libs=$(flags LIBS) prov=$(flags PROV)
	failed() { printf '%s\n' "$1" > "$DT_WORK/trigger-fail/$name"; rm -rf "$tmp"; exit 0; }
	tmp=
	if [ "$out" -nt "$source" ] && [ "$out" -nt "$DT_SELF" ] &&
		{ [ -z "$prov" ] || { [ "$out" -nt "$dir/$prov" ] && [ "$out" -nt "$DTRACE" ]; }; }; then
		exit 0
	fi
	case "$cflags $ldflags $libs" in *'$('*) failed "needs dtrace-utils' own build (libproc)" ;; esac
	tmp=$(mktemp -d "$DT_TRIGGER_CACHE/.build-$name.XXXXXX")
	cc="cc -std=gnu99 -D_GNU_SOURCE -O2 -g"
	set -f
	if [ -n "$prov" ]; then
		if grep -q "\"$name-prov.h\"" "$dir/$name.c"; then
			"$DTRACE" -h -s "$dir/$prov" -o "$tmp/$name-prov.h" > "$tmp/log" 2>&1 ||
				failed "dtrace -h -s $prov failed: $(head -n 1 "$tmp/log")"
		fi
		$cc $cflags -I"$tmp" -c -o "$tmp/$name.o" "$source" > "$tmp/log" 2>&1 ||
			failed "$(grep -m 1 'error' "$tmp/log" || head -n 1 "$tmp/log")"
		"$DTRACE" -G -s "$dir/$prov" -o "$tmp/$name-prov.o" "$tmp/$name.o" > "$tmp/log" 2>&1 ||
			failed "dtrace -G -s $prov failed: $(head -n 1 "$tmp/log")"
		$cc -o "$tmp/$name" "$tmp/$name.o" "$tmp/$name-prov.o" $ldflags $libs > "$tmp/log" 2>&1 ||
			failed "$(grep -m 1 'error' "$tmp/log" || head -n 1 "$tmp/log")"
	else
		$cc $cflags -o "$tmp/$name" "$source" $ldflags $libs > "$tmp/log" 2>&1 ||
			failed "$(grep -m 1 'error' "$tmp/log" || head -n 1 "$tmp/log")"
	fi
	mv -f "$tmp/$name" "$out"
	rm -rf "$tmp"
}

case $mode in
--run-one) run_one "$1" ;;
--build-trigger) build_trigger "$1"; exit 0 ;;
esac

. "$(dirname "$0")/lib.sh"
unset CSTAP_DEFAULT_RUNTIME   # dtrace runs natively (BPF)

update_known= list_groups= verbose=${VERBOSE:-}
selection=
for arg do
	case $arg in
	--update-known) update_known=1 ;;
	--list-groups) list_groups=1 ;;
	-v) verbose=1 ;;
	-h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) echo "dtrace-tests.sh: unknown option $arg" >&2; exit 2 ;;
	*) selection="$selection $arg" ;;
	esac
done

suite=$src/../shared/dtrace-testsuite
if [ ! -d "$suite/test/unittest" ]; then
	echo "SKIP: no DTrace test suite at $suite"
	exit 77
fi
suite=$(cd "$suite" && pwd)
known=$src/testsuite/dtrace/known.txt
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

# list_tests: every test, by its path under test/unittest, sorted.
list_tests() {
	(cd "$suite/test/unittest" && find . -type f \( -name 'tst.*.d' -o -name 'err.*.d' -o -name 'drp.*.d' \
		-o -name 'tst.*.sh' -o -name 'err.*.sh' \) ! -path '*/.*') |
		sed 's,^\./,,' | LC_ALL=C sort
}
list_tests > "$work/all"

# the tests to run: all, or those of the categories and tests named
if [ -z "$selection" ]; then
	cp "$work/all" "$work/selected"
else
	: > "$work/selected"
	for arg in $selection; do
		arg=${arg#test/unittest/}
		arg=${arg%/}
		if [ -d "$suite/test/unittest/$arg" ]; then
			grep "^$arg/" "$work/all" >> "$work/selected"
		elif grep -qxF "$arg" "$work/all"; then
			echo "$arg" >> "$work/selected"
		else
			echo "dtrace-tests.sh: no test or category $arg under $suite/test/unittest" >&2
			exit 2
		fi
	done
	LC_ALL=C sort -u -o "$work/selected" "$work/selected"
fi

# classify: "ID GROUP" for every selected test (the groups: the header).
classify() {
	: > "$work/language-candidates"
	while read -r id; do
		case ${id##*/} in
		tst.*.d)
			b=$suite/test/unittest/${id%.d}
			if [ -e "$b.$arch.r" ] || [ -e "$b.r" ]; then echo "$id" >> "$work/language-candidates"; fi ;;
		esac
	done < "$work/selected"
	[ -s "$work/language-candidates" ] || echo /dev/null > "$work/language-candidates"
	(cd "$suite/test/unittest" && xargs awk '
	# lang(d): a probe description of the language group
	function lang(d,   n, f, name, prov, i) {
		n = split(d, f, ":")
		name = f[n]; prov = (n == 4) ? f[1] : ""
		for (i = 2; i < n; i++) if (f[i] != "") return 0
		if ((name == "BEGIN" || name == "END" || name == "ERROR") && (prov == "" || prov == "dtrace")) return 1
		if (name ~ /^(tick|profile)-/ && (prov == "" || prov == "profile")) return 1
		return 0
	}
	# head(c): a clause head (the depth-0 text before a "{")
	function head(c,   n, p, k, d) {
		sub(/\/.*/, "", c)
		gsub(/^[ \t]+|[ \t]+$/, "", c)
		if (c == "" || c ~ /^(struct|union|enum|translator|provider|typedef|namespace)([^A-Za-z0-9_]|$)/) return
		n = split(c, p, /[, \t]+/)
		for (k = 1; k <= n; k++) {
			d = p[k]
			# a probe: a description with a ":", or a bare BEGIN, END, ERROR,
			# tick-N, profile-N (not C: a .d file that is also a C program)
			if (d !~ /^[A-Za-z0-9_$*?.:\[\]-]+$/ || (d !~ /:/ && !lang(d))) continue
			probes[FILENAME]++
			if (!lang(d)) other[FILENAME]++
		}
	}
	FNR == 1 { depth = 0; incomment = 0; continued = 0; instr = ""; chunk = ""; files[++nfiles] = FILENAME }
	{
		line = $0
		if (continued) { continued = (line ~ /\\$/); next }
		if (!incomment && instr == "" && line ~ /^[ \t]*#/) { continued = (line ~ /\\$/); next }
		len = length(line)
		for (i = 1; i <= len; i++) {
			c = substr(line, i, 1); c2 = substr(line, i, 2)
			if (incomment) { if (c2 == "*/") { incomment = 0; i++ } continue }
			if (instr != "") { if (c == "\\") i++; else if (c == instr) instr = ""; continue }
			if (c2 == "/*") { incomment = 1; i++; continue }
			if (c2 == "//") break
			if (c == "\"" || c == "\047") { instr = c; continue }
			if (c == "{") { if (depth == 0) { head(chunk); chunk = "" } depth++; continue }
			if (c == "}") { if (depth > 0) depth--; continue }
			if (c == ";" && depth == 0) { chunk = ""; continue }
			if (depth == 0) chunk = chunk c
		}
		if (depth == 0) chunk = chunk " "
	}
	END { for (f = 1; f <= nfiles; f++) if (probes[files[f]] > 0 && other[files[f]] == 0) print files[f] }
	' < "$work/language-candidates") > "$work/language"
	awk 'FILENAME == ARGV[1] { lang[$1] = 1; next }
	{
		n = split($1, p, "/"); t = p[n]
		if ($1 in lang) g = "language"; else if (t ~ /^err\.D_/) g = "err"; else g = "provider"
		print $1, g
	}' "$work/language" "$work/selected"
}
classify > "$work/groups"

# DTRACE_RUNTIME=kernel: the module runtime, in a QEMU guest of an installed
# kernel (stap's choice on a host that loads no modules); the language
# tests only (the others run triggers and scripts on this host), against
# their own known list
if [ "${DTRACE_RUNTIME:-bpf}" = kernel ]; then
	export CSTAP_DEFAULT_RUNTIME=kernel
	known=$src/testsuite/dtrace/known-kernel.txt
	awk '$2 == "language" { print $1 }' "$work/groups" > "$work/selected.lang"
	mv "$work/selected.lang" "$work/selected"
	awk '$2 == "language"' "$work/groups" > "$work/groups.lang"
	mv "$work/groups.lang" "$work/groups"
fi
# DTRACE_SAMPLE=N: every Nth of the tests (the first, the N+1st ...)
if [ "${DTRACE_SAMPLE:-1}" -gt 1 ] 2> /dev/null; then
	awk -v n="$DTRACE_SAMPLE" 'NR % n == 1' "$work/selected" > "$work/selected.sample"
	mv "$work/selected.sample" "$work/selected"
fi

if [ -n "$list_groups" ]; then
	awk '{ printf "%-9s %s\n", $2, $1; n[$2]++ }
	END { printf "language %d, err %d, provider %d\n", n["language"], n["err"], n["provider"] }' "$work/groups"
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: DTrace's tests need root (BPF)"
	exit 77
fi
DTRACE=${DTRACE:-$build/translator/dtrace}
case $DTRACE in /*) ;; *) DTRACE=$(pwd)/$DTRACE ;; esac
if [ ! -x "$DTRACE" ]; then
	echo "SKIP: no dtrace at $DTRACE (DTRACE=path to test another)"
	exit 77
fi
command -v timeout > /dev/null || { echo "FAIL: timeout(1) (coreutils) is needed"; exit 1; }

JOBS=${JOBS:-$(nproc 2> /dev/null || echo 1)}
export DT_SUITE="$suite" DT_WORK="$work" DT_SELF="$self" DTRACE
export DT_TRIGGER_CACHE="$build/testsuite/dtrace-triggers"
mkdir -p "$work/v" "$work/t" "$work/triggers" "$work/trigger-fail"

# test/triggers as the tests see it: the suite's files (its scripts) and the
# programs built from its C sources, built when a selected test uses one.
for f in "$suite"/test/triggers/*; do ln -s "$f" "$work/triggers/"; done
if (cd "$suite/test/unittest" && xargs grep -l -e '@@trigger' -e 'triggers/' < "$work/selected" 2> /dev/null) | grep -q .; then
	mkdir -p "$DT_TRIGGER_CACHE"
	ls "$suite/test/triggers" | sed -n 's/\.c$//p' | grep -v '^libproc-' |
		xargs -P "$JOBS" -n 1 sh "$self" --build-trigger
	for f in "$DT_TRIGGER_CACHE"/*; do
		[ -x "$f" ] && [ ! -e "$work/trigger-fail/${f##*/}" ] && ln -sf "$f" "$work/triggers/"
	done
	for f in "$work"/trigger-fail/*; do
		[ ! -f "$f" ] || echo "trigger ${f##*/} did not build: $(cat "$f")"
	done
fi

if ! command -v gawk > /dev/null; then
	uses_gawk=$(cd "$suite/test/unittest" && sed 'p; s/\.\(d\|sh\)$/.r.p/' "$work/selected" | xargs ls 2> /dev/null |
		xargs grep -l gawk 2> /dev/null | sed 's/\.r\.p$//; s/\.\(d\|sh\)$//' | sort -u | wc -l)
	[ "$uses_gawk" = 0 ] || echo "note: gawk is not installed; $uses_gawk of these tests (or their .r.p filters) use it"
fi
ulimit -l unlimited 2> /dev/null || true   # BPF maps on kernels that charge locked memory

echo "dtrace-tests: $(wc -l < "$work/selected") tests in $(cut -d/ -f1 "$work/selected" | sort -u | wc -l) categories, $JOBS jobs, dtrace $DTRACE"
xargs -P "$JOBS" -n 1 sh "$self" --run-one < "$work/selected"

# collect_verdicts: the verdicts in test order, into $work/verdicts
collect_verdicts() {
	awk -v dir="$work/v" '{
		f = $0; gsub(/\//, "%", f); f = dir "/" f
		if ((getline line < f) > 0) print line; else printf "FAIL\t%s\tno verdict (the runner failed)\t\t-\n", $0
		close(f)
	}' "$work/selected" > "$work/verdicts"
}
collect_verdicts

known_in=$known
[ -f "$known" ] || known_in=/dev/null
# summarize: the FAIL/XPASS/SKIP lines, the tables, the totals; with
# --update-known the new known list in $work/known.new. Exit status 1 when
# an unlisted test failed or a listed one passed.
summarize() {
LC_ALL=C awk -F '\t' -v verbose="$verbose" -v work="$work" -v update="$update_known" "$@" '
function listed(id,   i) {
	if (id in exact) return exact[id]
	for (i = 1; i <= nglob; i++) if (substr(id, 1, length(globprefix[i])) == globprefix[i]) return globentry[i]
	return 0
}
function pct(a, b) { return b ? sprintf("(%d%%)", 100 * a / b + 0.5) : "(-)" }
FILENAME == ARGV[1] {   # known.txt
	kline[++nk] = $0
	if ($0 ~ /^[ \t]*(#|$)/) next
	line = $0; sub(/^[ \t]+/, "", line)
	pat = line; sub(/[ \t].*/, "", pat)
	reason = line; if (!sub(/^[^ \t]+[ \t]+/, "", reason)) reason = ""
	entry[nk] = pat; ereason[nk] = reason
	if (pat ~ /\*$/) { globprefix[++nglob] = substr(pat, 1, length(pat) - 1); globentry[nglob] = nk; isglob[nk] = 1 }
	else exact[pat] = nk
	next
}
FILENAME == ARGV[2] { exists[$0] = 1; all[++nall] = $0; next }
FILENAME == ARGV[3] { split($0, g, " "); group[g[1]] = g[2]; next }
{
	st = $1; id = $2; short = $3; detail = $4; wording = $5
	n = split(id, p, "/"); cat = p[1]
	if (!(cat in seen)) { seen[cat] = 1; cats[++ncat] = cat }
	e = listed(id)
	if (st == "PASS" && e) st = "XPASS"
	else if (st == "FAIL" && e) st = "KNOWN"
	if (rerun_list != "") {
		if (st == "FAIL" || (st == "XPASS" && ereason[e] !~ /^(timeout|varies)/)) print id > rerun_list
		next
	}
	if (first != "") {
		f = id; gsub(/\//, "%", f); f = first "/" f
		if ((getline l < f) > 0 && substr(l, 1, 4) != substr($0, 1, 4)) {   # its result changed
			split(l, v, "\t")
			xpass[++nxp] = "note: " id " ran again alone: " (v[1] == "PASS" ? "passed" : "failed (" v[3] ")") " with the others, " (st == "PASS" || st == "XPASS" ? "passed" : "failed") " alone"
		}
		close(f)
	}
	result[id] = st; ids[++nids] = id; shortof[id] = short
	if (st == "SKIP") { cskip[cat]++; gskip[group[id]]++; nskip++; skips[++nskipl] = "SKIP: " id "  " short; next }
	ctotal[cat]++; gtotal[group[id]]++; total++
	if (st == "PASS" || st == "XPASS") { cpass[cat]++; gpass[group[id]]++; npass++ }
	if (st == "FAIL") {
		cfail[cat]++; gfail[group[id]]++; nfail++
		print "FAIL: " id "  " short (detail != "" ? ": " detail : "")
		# its first lines (all a log may keep to say why)
		f = id; gsub(/\//, "%", f); f = work "/t/" f "/detail"
		k = 0; while (k < (verbose ? 20 : 4) && (getline l < f) > 0) { print "    " l; k++ } close(f)
	}
	if (st == "KNOWN") { cknown[cat]++; gknown[group[id]]++; nknown++ }
	# a test listed as timing out or as varying (the load of the host decides)
	# that passes is noted, not an XPASS failure
	if (st == "XPASS" && ereason[e] ~ /^(timeout|varies)/) { st = "PASS"; xpass[++nxp] = "note: passed this time: " id "  (known.txt: " ereason[e] ")" }
	if (st == "XPASS") { nxpass++; xpass[++nxp] = "XPASS: " id "  (known.txt: " ereason[e] ")" }
	if (wording != "-") { wtotal++; if (wording == "same") wsame++ }
}
END {
	if (rerun_list != "") exit 0
	for (i = 1; i <= nxp; i++) print xpass[i]
	for (i = 1; i <= nskipl; i++) print skips[i]
	for (i = 1; i <= nk; i++) if (i in entry && !isglob[i] && !(entry[i] in exists)) print "note: known.txt lists " entry[i] ", not a test of the suite"
	printf "\n%-16s %6s %6s %6s %6s %6s  %s\n", "category", "total", "pass", "fail", "known", "skip", "(pass%)"
	for (i = 1; i <= ncat; i++) {
		c = cats[i]
		printf "%-16s %6d %6d %6d %6d %6d  %s\n", c, ctotal[c], cpass[c], cfail[c], cknown[c], cskip[c], pct(cpass[c], ctotal[c])
	}
	printf "%-16s %6d %6d %6d %6d %6d  %s\n", "all", total, npass, nfail, nknown, nskip, pct(npass, total)
	printf "\n%-16s %6s %6s %6s %6s %6s  %s\n", "group", "total", "pass", "fail", "known", "skip", "(pass%)"
	split("language err provider", gn, " ")
	for (i = 1; i <= 3; i++) {
		c = gn[i]
		printf "%-16s %6d %6d %6d %6d %6d  %s\n", c, gtotal[c], gpass[c], gfail[c], gknown[c], gskip[c], pct(gpass[c], gtotal[c])
	}
	if (wtotal) printf "err/drp tests with the original'\''s message word for word (.r): %d of %d\n", wsame, wtotal
	printf "\n%d tests: %d passed, %d failed, %d known failures, %d XPASS, %d skipped\n", total + nskip, npass, nfail, nknown, nxpass, nskip

	if (update) {
		out = work "/known.new"
		# new entries: unlisted failures, sorted (the ids come sorted)
		for (i = 1; i <= nids; i++) if (result[ids[i]] == "FAIL") { newid[++nnew] = ids[i]; newe[nnew] = ids[i] "  " shortof[ids[i]] }
		j = 1
		for (i = 1; i <= nk; i++) {
			if (!(i in entry)) { print kline[i] > out; continue }
			pat = entry[i]
			while (j <= nnew && newid[j] < pat) print newe[j++] > out
			if (!isglob[i]) {
				if (!(pat in exists)) { dropped++; continue }
				if (result[pat] == "PASS" || result[pat] == "XPASS") { dropped++; continue }
				print kline[i] > out; continue
			}
			# CAT/*: kept while none of its tests passed, else one line per test still failing
			pass_in = 0
			for (k = 1; k <= nids; k++) if (listed(ids[k]) == i && result[ids[k]] == "XPASS") pass_in = 1
			if (!pass_in) { print kline[i] > out; continue }
			for (k = 1; k <= nall; k++)
				if (listed(all[k]) == i && result[all[k]] != "XPASS") print all[k] "  " ereason[i] > out
			expanded++
		}
		while (j <= nnew) print newe[j++] > out
		close(out)
		printf "known.txt: %d added, %d dropped, %d whole-category lines split\n", nnew, dropped, expanded
		exit 0
	}
	exit (nfail || nxpass) ? 1 : 0
}' "$known_in" "$work/all" "$work/groups" "$work/verdicts"
}

# A test whose result is not the expected one (an unlisted failure, a listed
# test that passed) runs again alone, after the others: what the load of
# JOBS tests at once decides (a timer firing late, a probe attached late)
# is not a verdict. The second run is the verdict; the first is noted.
summarize -v rerun_list="$work/rerun"
if [ -s "$work/rerun" ] && [ -z "$update_known" ]; then
	mkdir -p "$work/first"
	while read -r id; do
		key=$(printf '%s' "$id" | tr / %)
		mv "$work/v/$key" "$work/first/$key"
		rm -rf "$work/t/$key"
	done < "$work/rerun"
	echo "running again, one at a time: $(wc -l < "$work/rerun") tests whose result was not the expected one"
	xargs -P 1 -n 1 sh "$self" --run-one < "$work/rerun"
	collect_verdicts
fi
summarize -v first="$work/first"
rc=$?
if [ -n "$update_known" ]; then
	mkdir -p "$(dirname "$known")"
	cp "$work/known.new" "$known"
	echo "wrote $known"
fi
exit $rc
