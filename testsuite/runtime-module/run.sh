#!/bin/bash
# run.sh - end-to-end test of the runtime spine and staprun/stapio: builds the
# hand-written module rtmod.c with kbuild against the installed kernel, boots a
# QEMU/TCG guest from a busybox initramfs, runs the scenarios below with
# staprun/stapio in it and compares their output. Exit 0 = all passed.
#
# env: CSTAP_KREL   kernel release (default: newest /lib/modules/*/build)
#      CSTAP_RUNTIME runtime headers dir (default: ../../runtime)
#      STAPRUN, STAPIO  static binaries (default: ../../staprun/ if built,
#                   else compiled here with gcc -static)
#      QEMU (qemu-system-x86_64), CSTAP_SMP (guest CPUs, default 1),
#      TCG_THREAD (single or multi; default single: see shared/anchor README),
#      KEEP=1 keep the work directory
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
runtime=${CSTAP_RUNTIME:-$top/runtime}
QEMU=${QEMU:-qemu-system-x86_64}
smp=${CSTAP_SMP:-1}

fail() { echo "run.sh: $*" >&2; exit 2; }

if [ -n "${CSTAP_KREL:-}" ]; then
  krel=$CSTAP_KREL
else
  krel=$(for d in /lib/modules/*/build; do [ -d "$d" ] && basename "$(dirname "$d")"; done | sort -V | tail -n 1)
fi
[ -n "$krel" ] && [ -d "/lib/modules/$krel/build" ] || fail "no kernel build tree (set CSTAP_KREL)"
kernel=/boot/vmlinuz-$krel
[ -r "$kernel" ] || fail "cannot read $kernel"
busybox=$(command -v busybox) || fail "busybox not found (apt-get install busybox-static)"
if ldd "$busybox" >/dev/null 2>&1; then fail "$busybox is not static (busybox-static)"; fi

work=$(mktemp -d "${TMPDIR:-/tmp}/rtmod-test.XXXXXX")
[ "${KEEP:-0}" = 1 ] && echo "work dir: $work" || trap 'rm -rf "$work"' EXIT

# --- module --------------------------------------------------------------
mkdir -p "$work/mod"
cp "$here/rtmod.c" "$work/mod/"
# the runtime decides on the kernel's features as stap's pass 4 finds them
kept=$(cd "$work" && "$top/translator/stap" -k -p4 -r "$krel" -e 'probe begin {}' 2>&1 |
	sed -n 's/^Keeping temporary directory "\(.*\)"$/\1/p')
[ -f "$kept/stp_kfeatures.h" ] || fail "stap found no kernel features for $krel"
cp "$kept/stp_kfeatures.h" "$work/mod/" && rm -rf "$kept"
printf 'obj-m := rtmod.o\nccflags-y := -I%s -include %s/mod/stp_kfeatures.h\n' "$runtime" "$work" > "$work/mod/Kbuild"
t0=$(date +%s.%N)
if ! make -s -C "/lib/modules/$krel/build" M="$work/mod" modules > "$work/build.log" 2>&1; then
  cat "$work/build.log"; fail "module build failed"
fi
t1=$(date +%s.%N)
build_warnings=0
if grep -q "warning:" "$work/build.log"; then
  echo "FAIL build: compiler warnings (bugs):"; grep -A3 "warning:" "$work/build.log"; build_warnings=1
fi
echo "kbuild of rtmod.ko for $krel: $(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}') s"

# --- staprun / stapio ----------------------------------------------------
is_static() { [ -x "$1" ] && ! ldd "$1" >/dev/null 2>&1; }
staprun=${STAPRUN:-$top/staprun/staprun}
stapio=${STAPIO:-$top/staprun/stapio}
if ! is_static "$staprun" || ! is_static "$stapio"; then
  cflags="-std=gnu11 -O2 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -static -I$runtime"
  staprun=$work/staprun; stapio=$work/stapio
  gcc $cflags -o "$staprun" "$top/staprun/staprun.c" "$top/staprun/modinfo.c" || fail "cannot build staprun"
  gcc $cflags -o "$stapio" "$top/staprun/stapio.c" "$top/staprun/stapio_cmd.c" || fail "cannot build stapio"
fi

# --- guest ----------------------------------------------------------------
root=$work/root
mkdir -p "$root"/{bin,sbin,usr/bin,proc,sys,dev,tmp,ko}
cp "$busybox" "$root/bin/busybox"
for a in $("$busybox" --list); do [ -e "$root/bin/$a" ] || ln -s busybox "$root/bin/$a"; done
cp "$staprun" "$root/usr/bin/staprun"
cp "$stapio" "$root/usr/bin/stapio"
cp "$work/mod/rtmod.ko" "$root/ko/"
cat > "$root/init" <<'EOF'
#!/bin/sh
export PATH=/bin:/sbin:/usr/bin TERM=dumb
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev; mount -t tmpfs tmp /tmp
dmesg -n 1
R=/tmp/results
# long runs of "burst N"/"drop N" lines -> one line; lines of b's -> their length
summ() {
  awk 'function flush() { if (inrun) printf "[%s %d..%d: %d lines, %d bytes]\n", rk, start, nx - 1, cnt, bytes; inrun = 0 }
       /^(burst|drop) [0-9]+$/ { s = $2; sub(/^0+/, "", s); v = s + 0  # not octal
         if (inrun && $1 == rk && v == nx) { nx++; cnt++; bytes += length($0) + 1; next }
         flush(); inrun = 1; rk = $1; start = v; nx = v + 1; cnt = 1; bytes = length($0) + 1; next }
       /^b+$/ { flush(); print "[b x" length($0) "]"; next }
       { flush(); print } END { flush() }'
}
run() {
  name=$1; shift
  "$@" > /tmp/$name.raw 2>&1; rc=$?
  { echo "===== BEGIN $name ====="; summ < /tmp/$name.raw
    [ -d /sys/module/rtmod ] && { echo "[module rtmod still loaded]"; rmmod rtmod; }
    echo "===== END $name rc=$rc ====="; } >> $R
}
sigint() { staprun /ko/rtmod.ko mode=3 & p=$!; sleep 3; kill -INT $p; wait $p; }
killio() { staprun /ko/rtmod.ko mode=3 & p=$!; sleep 3; kill -KILL $(pidof stapio); wait $p; }
concur() {
  staprun -c "dd if=/dev/zero of=/dev/null bs=1 count=20000 & dd if=/dev/zero of=/dev/null bs=1 count=20000; wait" \
    /ko/rtmod.ko mode=6 > /tmp/c.out 2>&1; rc=$?
  grep -v -E -e '^rd [ 0-9]{8} [ 0-9]{8}$' -e 'records in' -e 'records out' -e 'bytes.*copied' /tmp/c.out
  grep -E '^rd [ 0-9]{8} [ 0-9]{8}$' /tmp/c.out | awk '{print $3}' | sort -n |
    awk '{ n++; if ($1 == prev) dup++; prev = $1 } END { print "rd lines " n " dup " dup + 0 " max " prev }'
  return $rc
}
ofile() { staprun -o /tmp/o.txt /ko/rtmod.ko mode=5; rc=$?; echo "-- /tmp/o.txt:"; cat /tmp/o.txt; return $rc; }
run basic staprun -c 'echo cmd-ran' /ko/rtmod.ko mode=0
run error staprun /ko/rtmod.ko mode=1
run drop staprun -s 1 /ko/rtmod.ko mode=2
run sigint sigint
run timeout timeout -s INT 2 staprun /ko/rtmod.ko mode=3
run skip staprun -c 'echo x' /ko/rtmod.ko mode=4
run printf ofile
run exitcmd staprun -c 'echo should-not-run' /ko/rtmod.ko mode=5
run killio killio
run concur concur
run badparam staprun /ko/rtmod.ko nosuch=1
run badvalue staprun /ko/rtmod.ko mode=abc
echo "===== BEGIN dmesg =====" >> $R
dmesg | grep -E "BUG|WARNING|Oops|Call Trace|RIP|general protection|rtmod|soft lockup" >> $R
echo "===== END dmesg rc=0 =====" >> $R
echo "===== RESULTS ====="; cat $R; echo "===== RESULTS END ====="
poweroff -f
EOF
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$work/initrd.gz"

t0=$(date +%s)
timeout -k 5 240 "$QEMU" -accel "tcg,thread=${TCG_THREAD:-single}" -cpu max -m 512 -smp "$smp" -nographic -no-reboot \
  -kernel "$kernel" -initrd "$work/initrd.gz" -append "console=ttyS0 quiet panic=-1" \
  < /dev/null > "$work/console.log" 2>&1
echo "guest ran $(( $(date +%s) - t0 )) s"
tr -d '\r' < "$work/console.log" | sed -n '/===== RESULTS =====$/,/^===== RESULTS END =====$/p' \
  | sed '1d;$d' > "$work/results"
[ -s "$work/results" ] || { tail -n 40 "$work/console.log"; fail "guest produced no results"; }

# section NAME -> its output lines; rc NAME -> its exit status
section() { sed -n "/^===== BEGIN $1 =====\$/,/^===== END $1 rc=/p" "$work/results" | sed '1d;$d'; }
rc_of() { sed -n "s/^===== END $1 rc=\\([0-9]*\\) =====\$/\\1/p" "$work/results"; }

failures=$build_warnings
check() {  # NAME RC: compare with the expected text on stdin
  local name=$1 want_rc=$2 got_rc
  got_rc=$(rc_of "$name")
  if diff -u - <(section "$name") > "$work/$name.diff" && [ "$got_rc" = "$want_rc" ]; then
    echo "PASS $name"
  else
    echo "FAIL $name (rc $got_rc, want $want_rc)"; cat "$work/$name.diff"; failures=$((failures + 1))
  fi
}
check_fn() {  # NAME RESULT MESSAGE: a check that is not a plain diff
  if [ "$2" = ok ]; then echo "PASS $1"; else
    echo "FAIL $1: $3"; section "$1" | head -n 20; failures=$((failures + 1)); fi
}

check basic 0 <<'EOF'
begin: execname=stapio target_ok=1
[burst 0..49999: 50000 lines, 588890 bytes]
begin2
cmd-ran
normal: execname=echo
end: hits=1
EOF
check error 1 <<'EOF'
begin: execname=stapio target_ok=0
before
ERROR: division by 0 near operator '/' at rt.stp:1:60
error probe ran
WARNING: Number of errors: 1, skipped probes: 0
EOF
# drop: 150000 lines of 12 bytes; what arrived plus what was reported dropped
# must be all of it, each piece in order, and the end probe still ran
drop_ok=$(section drop | awk '
  /^\[drop [0-9]+\.\.[0-9]+: [0-9]+ lines, [0-9]+ bytes\]$/ { split($2, r, "\\.\\."); if (r[1] + 0 < last) bad = 1
      last = r[2] + 1; got += $5 + 0; next }
  /^WARNING: [0-9]+ bytes of output were dropped \(buffer full; try -s 2\)$/ { dropped = $2; next }
  /^begin: execname=stapio target_ok=0$/ || /^end: hits=0$/ { seen++; next }
  { bad = 1 }
  END { print (!bad && seen == 2 && dropped > 0 && got + dropped == 1800000) ? "ok" : "bad" }')
[ "$(rc_of drop)" = 0 ] || drop_ok=bad
check_fn drop "$drop_ok" "received + dropped bytes != 1800000, or disorder, or rc != 0"
check sigint 0 <<'EOF'
begin: execname=stapio target_ok=0
begin2
end: hits=0
EOF
check timeout 0 <<'EOF'
begin: execname=stapio target_ok=0
begin2
end: hits=0
EOF
check skip 0 <<'EOF'
begin: execname=stapio target_ok=1
begin2
x
normal: execname=echo
end: hits=1
WARNING: Number of errors: 0, skipped probes: 2
EOF
check printf 0 <<'EOF'
-- /tmp/o.txt:
begin: execname=stapio target_ok=0
d=-42 x=0xff s=str  | w=      3 c=Z %
[b x8290]
after big
end: hits=0
EOF
# exit() in a begin probe: the -c command never starts
check exitcmd 0 <<'EOF'
begin: execname=stapio target_ok=1
d=-42 x=0xff s=str  | w=      3 c=Z %
[b x8290]
after big
end: hits=0
EOF
check killio 137 <<'EOF'
begin: execname=stapio target_ok=0
begin2
ERROR: stapio killed by signal 9
EOF
check badparam 1 <<'EOF'
ERROR: module /ko/rtmod.ko has no parameter 'nosuch' (not a global the script lets you set)
EOF
check badvalue 1 <<'EOF'
ERROR: cannot load module /ko/rtmod.ko: invalid parameter value or module (see dmesg)
EOF
# concur: no line torn or duplicated; lines that did not arrive (21 bytes
# each) are exactly the dropped bytes reported
concur_ok=$(section concur | awk '
  /^begin: execname=stapio target_ok=1$/ || /^begin2$/ { next }
  /^end: hits=[0-9]+$/ { split($2, h, "="); hits = h[2]; next }
  /^rd lines [0-9]+ dup 0 max [0-9]+$/ { lines = $3; max = $7; next }
  /^WARNING: [0-9]+ bytes of output were dropped / { dropped = $2; next }
  /^WARNING: Number of errors: 0, skipped probes: [0-9]+$/ { skipped = $NF; next }
  { bad = 1 }
  END { print (!bad && lines * 21 + dropped == hits * 21 && max <= hits && hits + skipped >= 40000) ? "ok" : "bad" }')
[ "$(rc_of concur)" = 0 ] || concur_ok=bad
check_fn concur "$concur_ok" "torn, duplicated or silently lost lines (or fewer than 40000 reads seen)"
if section dmesg | grep -qE "BUG|WARNING|Oops|Call Trace|RIP|general protection|soft lockup"; then
  echo "FAIL dmesg"; section dmesg; failures=$((failures + 1))
else
  echo "PASS dmesg (no oops/BUG/WARNING)"
fi
[ $failures = 0 ] && { echo "all passed"; exit 0; }
echo "$failures failed"; exit 1
