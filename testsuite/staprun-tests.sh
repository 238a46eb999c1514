#!/bin/bash
# staprun-tests.sh - a module built once and run by staprun the ways a
# production host does (testsuite/staprun/guest.sh, one guest boot per
# installed kernel): -L load and detach, -A attach (twice detached again
# with SIGQUIT, then ended with SIGINT and its end probe, whose
# exit_status(3) staprun exits with), -d remove a
# detached module, -D in the background with -o, -S SIZE,N output
# rotation (files named and kept as SystemTap's staprun does). staprun's
# usage errors, each tagged, are checked on the host.
# usage: staprun-tests.sh    env: CSTAP_BUILD (build dir), RELEASES
set -u
. "$(dirname "$0")/lib.sh"

# usage errors: tagged, and for the reason given
usage() {   # expected-words, then staprun's arguments
	local want=$1 out
	shift
	out=$("$STAPRUN" "$@" 2>&1)
	if [ $? != 0 ] && grep -q '^usage error \[O_USAGE\]: staprun: ' <<<"$out" && grep -qF -- "$want" <<<"$out"; then
		ok "staprun $*: $want"
	else
		bad "staprun $*" "want a tagged error saying '$want', got: $out"
	fi
}
usage "-L and -A cannot be used together" -L -A m
usage "-b/-s cannot be used with -A" -A -b 2 m
usage "-c cannot be used with -A" -A -c ls m
usage "-c and -x cannot be used together" -c ls -x 1 m.ko
usage "-D needs -o FILE" -D m.ko
usage "-r wants N:URI" -r 1 m.ko
usage "-r wants N:URI" -r x:y m.ko
usage "-D cannot be used with -L" -L -D m.ko
usage "-R cannot be used with -A" -A -R m
usage "-S needs -o FILE" -S 1,1 m.ko
usage "-b wants a number from 1 to 4095" -b 0 m.ko
usage "longer than 55 characters" stap_123456789012345678901234567890123456789012345678901234567890
usage "unknown option '-q'" -q m.ko
usage "is not letters, digits and '_'" -d bad-name

command -v qemu-system-x86_64 >/dev/null || { echo "$pass passed, $fail failed (guest part: SKIP, no qemu)"; [ $fail = 0 ]; exit; }
releases=${RELEASES:-$("$STAPVM" --releases 2>/dev/null)}
tab=$(printf '\t')
cat > "$work/jobs" <<JOBS
detach${tab}120${tab}sh /t/guest.sh detach
remove${tab}60${tab}sh /t/guest.sh remove
daemon${tab}60${tab}sh /t/guest.sh daemon
rotate${tab}120${tab}sh /t/guest.sh rotate
rename${tab}60${tab}sh /t/guest.sh rename
JOBS
cat > "$work/detach.expect" <<'EOF'
-L: rc=0
begin
1
after -L: loaded
attach (QUIT): rc=0
Disconnecting from systemtap module.
after detach 1: loaded
attach (QUIT): rc=0
Disconnecting from systemtap module.
after detach 2: loaded
attach (INT): rc=3
end: ticks many
after SIGINT: not loaded
EOF
cat > "$work/remove.expect" <<'EOF'
after -L: loaded
-d: rc=0
after -d: not loaded
ERROR: no cstap module nosuch_module_xyz is loaded 
EOF
cat > "$work/daemon.expect" <<'EOF'
-D: rc=0
daemon running
begin
end: ticks many
after SIGTERM: not loaded
EOF
cat > "$work/rename.expect" <<'EOF'
loaded: 2
control file: yes
control file: yes
-d: rc=0
left: 0
EOF
cat > "$work/rotate.expect" <<'EOF'
-S: rc=0
files: 3
numbered, consecutive, at most 1 MiB each: yes
end 1
last three of a sequence from r.out.0: yes
EOF
# The files of a stap -b run (bulk.out: base64 of /tmp/b_N after '== /tmp/b_N'):
# FILE_0 and FILE_1 only; each holds its CPU's lines; stap-merge gives every
# line once, as SystemTap's stap-merge does on the same files.
check_bulk() {
	local d=$1 rel=$2 f
	head -2 "$d/res/bulk.out" > "$d/bulk.head"
	if [ "$(cat "$d/bulk.head")" != "$(printf -- '-b: rc=0\nb_0 b_1 ')" ]; then
		bad "staprun bulk (stap -b) on $rel: files" "$(cat "$d/bulk.head")" "$(cat "$d/res/bulk.err")"
		return
	fi
	for f in 0 1; do
		sed -n "/^== \/tmp\/b_$f\$/,/^==/p" "$d/res/bulk.out" | grep -v '^==' | base64 -d > "$d/b_$f"
	done
	local merged want
	merged=$("$build/staprun/stap-merge" "$d/b_0" "$d/b_1" | sort)
	want=$(printf 'begin\ncpu 0 tick 1\ncpu 0 tick 2\ncpu 0 tick 3\ncpu 1 tick 1\ncpu 1 tick 2\ncpu 1 tick 3\nend')
	if [ "$merged" = "$want" ] && ! "$build/staprun/stap-merge" "$d/b_0" | grep -q 'cpu 1' &&
	   ! "$build/staprun/stap-merge" "$d/b_1" | grep -q 'cpu 0'; then
		ok "staprun bulk (stap -b) on $rel: a file per CPU, stap-merge"
	else
		bad "staprun bulk (stap -b) on $rel: content" "$merged" "$(cat "$d/res/bulk.err")"
	fi
	if [ -x /usr/bin/stap-merge ]; then   # SystemTap's, when installed: the same stream
		if cmp -s <("$build/staprun/stap-merge" -v "$d/b_0" "$d/b_1") <(/usr/bin/stap-merge -v "$d/b_0" "$d/b_1"); then
			ok "staprun bulk on $rel: SystemTap's stap-merge reads the files the same"
		else
			bad "staprun bulk on $rel: SystemTap's stap-merge differs" "$(/usr/bin/stap-merge -v "$d/b_0" "$d/b_1" | head -5)"
		fi
	fi
}

for rel in $releases; do
	d=$work/$rel
	mkdir -p "$d"
	if ! (cd "$d" && "$STAP" -p4 -r "$rel" -m session "$src/testsuite/staprun/session.stp" &&
		"$STAP" -p4 -r "$rel" -m rotate "$src/testsuite/staprun/rotate.stp") > "$d/build.log" 2>&1; then
		bad "staprun sessions on $rel: build" "$(cat "$d/build.log")"
		continue
	fi
	"$STAPVM" -r "$rel" -t 400 -f "$d/session.ko:/ko/session.ko" -f "$d/rotate.ko:/ko/rotate.ko" \
		-f "$src/testsuite/staprun/guest.sh:/t/guest.sh" -b "$work/jobs" -O "$d/res" > "$d/vm.log" 2>&1 ||
		bad "staprun sessions on $rel: guest" "$(tail -20 "$d/vm.log")"
	# stap -b: a file per CPU, in a boot with 2 CPUs
	printf 'bulk\t60\tsh /t/guest.sh bulk\n' > "$d/bulk.jobs"
	if (cd "$d" && "$STAP" -p4 -b -r "$rel" -m bulk "$src/testsuite/staprun/bulk.stp") >> "$d/build.log" 2>&1 &&
	   "$STAPVM" -r "$rel" -s 2 -t 200 -f "$d/bulk.ko:/ko/bulk.ko" -f "$src/testsuite/staprun/guest.sh:/t/guest.sh" \
		-b "$d/bulk.jobs" -O "$d/res" > "$d/vm-bulk.log" 2>&1 && [ -f "$d/res/bulk.out" ]; then
		check_bulk "$d" "$rel"
	else
		bad "staprun bulk (stap -b) on $rel" "$(tail -5 "$d/build.log")" "$(tail -10 "$d/vm-bulk.log")"
	fi
	for j in detach remove daemon rotate rename; do
		if [ ! -f "$d/res/$j.out" ]; then
			bad "staprun $j on $rel" "no result"
		elif diff=$(diff "$work/$j.expect" "$d/res/$j.out"); then
			ok "staprun $j on $rel"
		else
			bad "staprun $j on $rel" "$diff" "$(cat "$d/res/$j.err" 2>/dev/null)"
		fi
	done
done
finish
