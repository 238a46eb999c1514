#!/bin/sh
# conformance-sem.sh - SystemTap's semok / semko / transok / transko files
# through stap -p2 / -p3 (judged and listed as conformance-parse.sh does;
# expected failures in testsuite/conformance-xfail.txt, with their reasons),
# on every installed kernel (stap-vm --releases; $RELEASES overrides), each
# through CSTAP_RELEASE.
here=$(dirname "$0")
stapvm=${CSTAP_BUILD:-$(pwd)}/translator/stap-vm
[ -x "$stapvm" ] || stapvm=$here/../translator/stap-vm
releases=${RELEASES:-$("$stapvm" --releases 2>/dev/null)}
[ -n "$releases" ] || exec "$here/conformance-parse.sh" semok semko transok transko
rc=0
for rel in $releases; do
	echo "== kernel $rel"
	CSTAP_RELEASE=$rel "$here/conformance-parse.sh" semok semko transok transko || rc=1
done
exit $rc
