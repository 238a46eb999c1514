#!/bin/bash
# exporter-tests.sh - stap-exporter (staprun/stap_exporter.c) in the guest:
# a module built once (testsuite/exporter/prom_ex.stp, its metrics through
# the prometheus tapset) is started by the first scrape of /prom_ex
# (staprun -L), /metrics serves it, / lists it, an unknown module is a 404,
# and stopping the exporter removes what it started. Hostile clients are
# refused: by default it listens on 127.0.0.1 and ::1 only (not reachable
# from another address of the guest; -a 0.0.0.0 is), a client sending a
# byte a second neither delays another's scrape nor stays past the request's
# 5 s (408), a request over 8 KiB is a 431, and a 33rd client at once a 503. The scraped text must
# pass `promtool check metrics` (Debian's prometheus package) with no
# problem at all. One guest boot on the default kernel.
# usage: exporter-tests.sh    env: CSTAP_BUILD (build dir)
set -u
. "$(dirname "$0")/lib.sh"
command -v qemu-system-x86_64 >/dev/null || { echo "exporter-tests: SKIP: no qemu"; exit 77; }
command -v promtool >/dev/null || { echo "exporter-tests: SKIP: no promtool (apt-get install prometheus)"; exit 77; }

rel=$("$STAPVM" --default-release)
if ! (cd "$work" && "$STAP" -p4 -r "$rel" -m prom_ex "$src/testsuite/exporter/prom_ex.stp") > "$work/build.log" 2>&1; then
	bad "build prom_ex" "$(cat "$work/build.log")"
	echo "$pass passed, $fail failed"; exit 1
fi
printf 'scrape\t120\tsh /t/guest.sh\n' > "$work/jobs"
"$STAPVM" -r "$rel" -t 200 -f "$work/prom_ex.ko:/ko/prom_ex.ko" -f "$build/staprun/stap-exporter:/usr/bin/stap-exporter" \
	-f "$src/testsuite/exporter/guest.sh:/t/guest.sh" -b "$work/jobs" -O "$work/res" > "$work/vm.log" 2>&1 ||
	bad "guest" "$(tail -20 "$work/vm.log")"
out=$work/res/scrape.out
if [ ! -f "$out" ]; then
	bad "no result from the guest" "$(tail -20 "$work/vm.log")"
	echo "$pass passed, $fail failed"; exit 1
fi
steps=$(sed -n '1,/^== index$/p' "$out" | grep -v '^== index$')
want='0100007F:26AC 00000000000000000000000001000000:26AC listen by default
default exporter from 10.9.9.9: refused
first scrape: rc=0
module started by the scrape
metrics: rc=0
index: rc=0
unknown module: rc=1
scrape beside a slow client: rc=0
slow client: HTTP/1.0 408 Request Timeout
oversized request: HTTP/1.0 431 Request Header Fields Too Large
33rd client: HTTP/1.0 503 Service Unavailable
after the 32: rc=0
exporter: rc=0
module removed with the exporter
idle exporter, first scrape: rc=0
module started
idle module removed
exporter still running
scrape after removal: rc=0
module started again
idle exporter: rc=0
00000000:26AF listen with -a 0.0.0.0
-a 0.0.0.0 from 10.9.9.9: HTTP/1.0 200 OK'
[ "$steps" = "$want" ] && ok "scrape starts the module, /metrics, /, 404, stop removes it, -t removes an idle one; loopback only by default, slow, oversized and excess clients refused" ||
	bad "the exporter's steps" "$(diff <(echo "$want") <(echo "$steps"))"
index=$(sed -n '/^== index$/,/^== metrics$/p' "$out" | sed '1d;$d')
[ "$index" = "prom_ex running" ] && ok "/ lists the running module" || bad "/ lists" "$index"
sed -n '/^== metrics$/,$p' "$out" | sed 1d > "$work/metrics"
if grep -q '^cstap_reads_total{process="dd"} [1-9]' "$work/metrics" &&
   grep -q '^cstap_ticks_total{source="timer"} [1-9]' "$work/metrics"; then
	ok "/metrics has the script's counters"
else
	bad "/metrics content" "$(head -20 "$work/metrics")"
fi
if lint=$(promtool check metrics < "$work/metrics" 2>&1); then
	ok "promtool check metrics: no problem"
else
	bad "promtool check metrics (rc=$?)" "$lint"
fi
finish
