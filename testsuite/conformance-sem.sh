#!/bin/sh
# conformance-sem.sh - SystemTap's semok / semko / transok / transko files
# through stap -p2 / -p3 (judged and listed as conformance-parse.sh does;
# expected failures in testsuite/conformance-xfail.txt, with their reasons).
exec "$(dirname "$0")/conformance-parse.sh" semok semko transok transko
