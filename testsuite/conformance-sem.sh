#!/bin/sh
# conformance-sem.sh - SystemTap's semok / semko / transok / transko files
# through stap -p2 / -p3 (judged and listed as conformance-parse.sh does;
# expected failures in testsuite/conformance-xfail.txt, with their reasons),
# on every installed kernel (stap-vm --releases; $RELEASES overrides), each
# through CSTAP_RELEASE, all at once (make check-quick: the default kernel).
here=$(dirname "$0")
export CSTAP_DEFAULT_RUNTIME=kernel   # modules in a guest where this host loads none (native-tests.sh: the default)
stapvm=${CSTAP_BUILD:-$(pwd)}/translator/stap-vm
[ -x "$stapvm" ] || stapvm=$here/../translator/stap-vm
# (make check-quick, CSTAP_QUICK=1: the default kernel only)
if [ "${CSTAP_QUICK:-0}" = 1 ]; then
	releases=${RELEASES:-$("$stapvm" --default-release 2>/dev/null)}
else
	releases=${RELEASES:-$("$stapvm" --releases 2>/dev/null)}
fi
[ -n "$releases" ] || exec "$here/conformance-parse.sh" semok semko transok transko
# the kernels at once (2 cores), their reports shown in order
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cstap-sem.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
# a file at a time per kernel when the kernels run at once (two stap per
# suite: make check runs another suite beside it), else two
set -- $releases
jobs=1; [ $# -gt 1 ] || jobs=2
i=0
for rel in $releases; do
	i=$((i + 1))
	( CSTAP_RELEASE=$rel JOBS=$jobs "$here/conformance-parse.sh" semok semko transok transko > "$tmp/$i.out" 2>&1
	  echo $? > "$tmp/$i.rc" ) &
done
wait
rc=0 i=0
for rel in $releases; do
	i=$((i + 1))
	echo "== kernel $rel"
	cat "$tmp/$i.out"
	[ "$(cat "$tmp/$i.rc")" = 0 ] || rc=1
done
exit $rc
