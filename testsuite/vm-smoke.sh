#!/bin/bash
# vm-smoke.sh - smoke test of the QEMU guest runner: boots the guest with
# stap-vm and checks interactive mode (stdout/stderr/status, byte-exact
# streams, files and their libraries, the guest environment, Ctrl-C
# forwarding, panic, kernel-trouble and timeout detection) and batch mode (results,
# byte-exact, per-job timeouts) with plain shell commands. ~50 s, 8 boots.
# Prints "N passed, N failed"; exit 0 if none failed, 77 (skip) if the
# guest cannot be booted here (no qemu or kernel).
#
# env: STAP_VM (default: the build tree's translator/stap-vm),
#      CSTAP_STAPRUN/CSTAP_STAPIO (default: the build tree's, else /bin/true
#      placeholders), KEEP=1 keeps the work directory.
set -u
export CSTAP_DEFAULT_RUNTIME=kernel   # modules in a guest where this host loads none (native-tests.sh: the default)
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${STAP_VM:-}" ]; then vm=$STAP_VM
elif [ -x ./translator/stap-vm ]; then vm=$(pwd)/translator/stap-vm
else vm=$here/../translator/stap-vm
fi
[ -x "$vm" ] || { echo "vm-smoke: no stap-vm at $vm (make translator/stap-vm)" >&2; exit 2; }
command -v qemu-system-x86_64 >/dev/null || { echo "vm-smoke: SKIP: no qemu-system-x86_64"; exit 77; }
rel=$("$vm" --default-release) || { echo "vm-smoke: SKIP: no bootable kernel"; exit 77; }
tree=$(dirname "$vm")/../staprun
if [ -z "${CSTAP_STAPRUN:-}" ] && [ ! -x "$tree/staprun" ]; then export CSTAP_STAPRUN=/bin/true; fi
if [ -z "${CSTAP_STAPIO:-}" ] && [ ! -x "$tree/stapio" ]; then export CSTAP_STAPIO=/bin/true; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/vm-smoke.XXXXXX")
[ "${KEEP:-0}" = 1 ] && echo "work dir: $work" || trap 'rm -rf "$work"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "PASS: $1"; }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; shift; for m in "$@"; do echo "      $m"; done; }
# check NAME EXPECTED-FILE ACTUAL-FILE
same() { if cmp -s "$2" "$3"; then ok "$1"; else ko "$1" "expected: $(head -c 200 "$2" | od -c | head -3)" "got:      $(head -c 200 "$3" | od -c | head -3)"; fi; }
S=$work

echo "kernel $rel, stap-vm $vm"
# all 256 byte values (CR, LF, ^C, XON/XOFF, NUL...) and no final newline
printf '%b' "$(for i in $(seq 0 255); do printf '\\%03o' "$i"; done)" > "$S/bytes"
printf 'x\r\n\r\ny' >> "$S/bytes"
[ "$(stat -c %s "$S/bytes")" = 262 ] || ko "test data" "bytes file has $(stat -c %s "$S/bytes") bytes"

# --- interactive -------------------------------------------------------------
t0=$(date +%s.%N)
"$vm" -- sh -c 'printf "out\n"; printf "err\n" >&2; exit 3' > "$S/i1.out" 2> "$S/i1.err"; rc=$?
t1=$(date +%s.%N)
printf 'out\n' > "$S/exp"; same "interactive: stdout" "$S/exp" "$S/i1.out"
printf 'err\n' > "$S/exp"; same "interactive: stderr apart from stdout" "$S/exp" "$S/i1.err"
[ "$rc" = 3 ] && ok "interactive: exit status" || ko "interactive: exit status" "expected 3, got $rc"
echo "      (boot + command + poweroff: $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}') s wall)"

"$vm" -f "$S/bytes:/data/bytes" -f /bin/true:/opt/dyn/true \
  -- sh -c 'cat /data/bytes; cat /data/bytes >&2; /opt/dyn/true && echo dynamic-ok >&2' \
  > "$S/i2.out" 2> "$S/i2.err"; rc=$?
same "interactive: stdout byte-exact" "$S/bytes" "$S/i2.out"
{ cat "$S/bytes"; echo dynamic-ok; } > "$S/exp"
same "interactive: stderr byte-exact; -f program runs with its libraries" "$S/exp" "$S/i2.err"

"$vm" -- sh -c 'test -x /usr/bin/staprun && test -x /usr/libexec/cstap/stapio && echo tools
  echo "$CSTAP_STAPIO $TERM"; grep -o " /sys/kernel/debug debugfs" /proc/mounts
  grep -o " /sys/kernel/tracing tracefs" /proc/mounts; uname -r' > "$S/i3.out" 2> "$S/i3.err"
printf 'tools\n/usr/libexec/cstap/stapio dumb\n /sys/kernel/debug debugfs\n /sys/kernel/tracing tracefs\n%s\n' "$rel" > "$S/exp"
same "interactive: guest environment (staprun, stapio, TERM, debugfs, tracefs, kernel)" "$S/exp" "$S/i3.out"

# Ctrl-C: forwarded once to the command's process group as SIGINT
"$vm" -- sh -c 'trap "echo got-INT; exit 7" INT; echo started; while :; do sleep 0.2; done' \
  > "$S/i4.out" 2> "$S/i4.err" &
pid=$!
for _ in $(seq 1 600); do grep -q started "$S/i4.out" 2>/dev/null && break; sleep 0.1; done
kill -INT "$pid"; wait "$pid"; rc=$?
printf 'started\ngot-INT\n' > "$S/exp"
if cmp -s "$S/exp" "$S/i4.out" && [ "$rc" = 7 ]; then ok "interactive: SIGINT forwarded to the guest command"
else ko "interactive: SIGINT forwarded to the guest command" "rc=$rc (want 7), stdout: $(tr '\n' '|' < "$S/i4.out")" "stderr: $(head -5 "$S/i4.err")"; fi

"$vm" -- sh -c 'echo c > /proc/sysrq-trigger; sleep 30' > "$S/i5.out" 2> "$S/i5.err"; rc=$?
log=$(sed -n 's/.*console log: \([^ ]*\).*/\1/p' "$S/i5.err" | head -1)
if [ "$rc" = 125 ] && grep -q "panicked" "$S/i5.err" && grep -q "Kernel panic" "$S/i5.err" && [ -s "$log" ]; then
  ok "interactive: guest panic detected, console log kept and shown"
else ko "interactive: guest panic detected" "rc=$rc (want 125)" "stderr: $(head -3 "$S/i5.err")"; fi
[ -n "$log" ] && rm -f "$log"

# kernel trouble on the console fails the run even when the command succeeded:
# a WARN() report (KERN_WARNING: shown because the guest boots with loglevel=5)
# and an RCU stall report
"$vm" -- sh -c 'echo "<4>WARNING: CPU: 0 PID: 1 at fake.c:1 smoke" > /dev/kmsg
  echo "<3>rcu: INFO: rcu_sched self-detected stall on CPU" > /dev/kmsg; echo fine' > "$S/i7.out" 2> "$S/i7.err"; rc=$?
log=$(sed -n 's/.*console log: \([^ ]*\).*/\1/p' "$S/i7.err" | head -1)
if [ "$rc" = 125 ] && grep -q "reported problems" "$S/i7.err" && grep -q "WARNING: CPU: 0 PID: 1 at fake.c:1 smoke" "$S/i7.err" &&
   grep -q "rcu_sched self-detected stall" "$S/i7.err" && [ "$(cat "$S/i7.out")" = fine ]; then
  ok "interactive: kernel WARNING and RCU stall on the console fail the run"
else ko "interactive: kernel WARNING and RCU stall on the console fail the run" "rc=$rc (want 125)" "stderr: $(head -5 "$S/i7.err")"; fi
[ -n "$log" ] && rm -f "$log"

# (30 s: a boot beside another suite's guest has taken more than 8 s)
t0=$(date +%s)
"$vm" -t 30 -- sh -c 'echo started; sleep 100' > "$S/i6.out" 2> "$S/i6.err"; rc=$?
t1=$(date +%s)
log=$(sed -n 's/.*console log: \([^ ]*\).*/\1/p' "$S/i6.err" | head -1)
if [ "$rc" = 125 ] && grep -q "timed out after 30 s" "$S/i6.err" && [ $((t1 - t0)) -lt 45 ] && [ "$(cat "$S/i6.out")" = started ]; then
  ok "interactive: whole-VM timeout kills the guest"
else ko "interactive: whole-VM timeout" "rc=$rc (want 125), $((t1 - t0)) s" "stderr: $(head -3 "$S/i6.err")"; fi
[ -n "$log" ] && rm -f "$log"

"$vm" > /dev/null 2> "$S/u.err"; rc=$?
[ "$rc" = 125 ] && grep -q "no command" "$S/u.err" && ok "usage error" || ko "usage error" "rc=$rc: $(cat "$S/u.err")"

# --- batch -------------------------------------------------------------------
tab=$(printf '\t')
cat > "$S/jobs" <<EOF
# NAME TIMEOUT CMD
a${tab}10${tab}echo hello; echo world >&2; exit 4

bytes${tab}10${tab}cat /data/bytes; printf 'e\te' >&2
empty${tab}10${tab}true
slow${tab}2${tab}trap 'echo got-INT; exit 9' INT; echo start; while :; do sleep 0.2; done
stubborn${tab}2${tab}trap '' INT; echo start; sleep 100; echo not-reached
after${tab}10${tab}echo still-running-jobs
EOF
mkdir -p "$S/out"; echo stale > "$S/out/a.out"
t0=$(date +%s.%N)
"$vm" -f "$S/bytes:/data/bytes" -b "$S/jobs" -O "$S/out" > "$S/b.out" 2> "$S/b.err"; rc=$?
t1=$(date +%s.%N)
echo "      (batch of 6 jobs: $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}') s wall)"
[ "$rc" = 0 ] && ok "batch: guest finished" || ko "batch: guest finished" "rc=$rc: $(head -5 "$S/b.err")"
printf 'hello\n' > "$S/exp"; same "batch: stdout" "$S/exp" "$S/out/a.out"
printf 'world\n' > "$S/exp"; same "batch: stderr" "$S/exp" "$S/out/a.err"
printf '4\n' > "$S/exp"; same "batch: exit status" "$S/exp" "$S/out/a.rc"
same "batch: stdout byte-exact" "$S/bytes" "$S/out/bytes.out"
printf 'e\te' > "$S/exp"; same "batch: stderr byte-exact" "$S/exp" "$S/out/bytes.err"
if [ -f "$S/out/empty.out" ] && [ ! -s "$S/out/empty.out" ] && [ ! -s "$S/out/empty.err" ] && [ "$(cat "$S/out/empty.rc" 2>/dev/null)" = 0 ]; then
  ok "batch: empty outputs"; else ko "batch: empty outputs" "$(ls -l "$S/out" | grep empty)"; fi
printf 'start\ngot-INT\n' > "$S/exp"
if cmp -s "$S/exp" "$S/out/slow.out" && [ "$(cat "$S/out/slow.rc" 2>/dev/null)" = 9 ]; then
  ok "batch: per-job timeout sends SIGINT"; else ko "batch: per-job timeout sends SIGINT" "rc=$(cat "$S/out/slow.rc" 2>/dev/null) out=$(tr '\n' '|' < "$S/out/slow.out" 2>/dev/null)"; fi
if [ "$(cat "$S/out/stubborn.out" 2>/dev/null)" = start ] && [ "$(cat "$S/out/stubborn.rc" 2>/dev/null)" = 137 ]; then
  ok "batch: SIGKILL when SIGINT is ignored"; else ko "batch: SIGKILL when SIGINT is ignored" "rc=$(cat "$S/out/stubborn.rc" 2>/dev/null)"; fi
grep -q "job slow timed out after 2 s" "$S/b.err" && ok "batch: timeouts reported" || ko "batch: timeouts reported" "$(head -3 "$S/b.err")"
printf 'still-running-jobs\n' > "$S/exp"; same "batch: jobs after a timed-out one still run" "$S/exp" "$S/out/after.out"

printf 'bad name\t5\ttrue\n' > "$S/badjobs"
"$vm" -b "$S/badjobs" -O "$S/out2" > /dev/null 2> "$S/bad.err"; rc=$?
[ "$rc" = 125 ] && grep -q "expected NAME<TAB>TIMEOUT<TAB>CMD\|bad job name" "$S/bad.err" && ok "batch: malformed job file rejected" || ko "batch: malformed job file rejected" "rc=$rc: $(cat "$S/bad.err")"

# -M: modules of the guest kernel, their dependencies (modules.dep) first
"$vm" -r "$rel" -M null_blk -- cut -d' ' -f1 /proc/modules > "$S/mods.out" 2> "$S/mods.err"; rc=$?
printf 'null_blk\nconfigfs\n' > "$S/exp"
if [ "$rc" = 0 ] && cmp -s "$S/exp" "$S/mods.out"; then ok "-M loads a module and its dependencies"
else ko "-M loads a module and its dependencies" "rc=$rc out=$(tr '\n' '|' < "$S/mods.out") err=$(cat "$S/mods.err")"; fi
"$vm" -r "$rel" -M no_such_module_x -- true > /dev/null 2> "$S/mods.err"; rc=$?
[ "$rc" = 125 ] && grep -q "no module 'no_such_module_x'" "$S/mods.err" && ok "-M: unknown module rejected" ||
  ko "-M: unknown module rejected" "rc=$rc: $(cat "$S/mods.err")"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
