# lib.sh - what the shell test scripts share; sourced, after `set -u`, as
#   . "$(dirname "$0")/lib.sh"
# Sets src (the source tree), build (the build tree: $CSTAP_BUILD, else
# the current directory when it has a stap, else src), STAP, STAPVM,
# STAPRUN, and work (a fresh directory, removed at exit unless KEEP=1);
# defines ok NAME and bad NAME DETAIL... (one PASS/FAIL line each, counted)
# and finish (the "N passed, M failed" line, and the exit status).
export CSTAP_DEFAULT_RUNTIME=kernel   # modules in a guest where this host loads none (native-tests.sh: the default)
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CSTAP_BUILD:-$(pwd)}
[ -x "$build/translator/stap" ] || build=$src
STAP=$build/translator/stap
STAPVM=$build/translator/stap-vm
STAPRUN=$build/staprun/staprun
work=$(mktemp -d "${TMPDIR:-/tmp}/cstap-$(basename "$0" .sh).XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then echo "work dir: $work"; else trap 'rm -rf "$work"' EXIT; fi
pass=0
fail=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; shift; printf '    %s\n' "$@"; fail=$((fail + 1)); }
finish() { echo "$pass passed, $fail failed"; [ "$fail" = 0 ]; exit; }
