# guest.sh - exporter-tests.sh's step, run by busybox sh in the guest: a
# stap-exporter with the prebuilt module in /ko, scraped with wget; then
# what a hostile client tries (slow, oversized, many at once, from another
# address than loopback) is refused.
# 10.9.9.9 is an address of this guest that is not loopback's
ip link set lo up
ip addr add 10.9.9.9/32 dev lo
# status ADDR PORT: the status line of GET / there, "refused" if none
# (nc: busybox wget crashes on the 10.9.9.9 address)
status() {
	line=$(printf 'GET / HTTP/1.0\r\n\r\n' | timeout 3 nc "$1" "$2" 2>/dev/null | head -1 | tr -d '\r')
	echo "${line:-refused}"
}
# wait_up PORT [ADDR]: until the exporter there answers
wait_up() {
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		[ "$(status "${2:-127.0.0.1}" "$1")" != refused ] && break
		sleep 0.1
	done
}
# listening PORT: the local addresses of the sockets listening on PORT (hex,
# as /proc/net/tcp and tcp6 write them)
listening() {
	hex=$(printf '%04X' "$1")
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { print $2 }'
}
stap-exporter -p 9900 -d /ko > /tmp/ex.log 2>&1 &
ex=$!
wait_up 9900
listening 9900 | tr '\n' ' ' | sed 's/ $//'; echo " listen by default"
echo "default exporter from 10.9.9.9: $(status 10.9.9.9 9900)"
wget -q -O /tmp/first http://127.0.0.1:9900/prom_ex
echo "first scrape: rc=$?"
[ -d /sys/module/prom_ex ] && echo "module started by the scrape"
dd if=/proc/cpuinfo of=/dev/null 2>/dev/null
sleep 1
wget -q -O /tmp/all http://127.0.0.1:9900/metrics
echo "metrics: rc=$?"
wget -q -O /tmp/index http://127.0.0.1:9900/
echo "index: rc=$?"
wget -q -O /tmp/none http://127.0.0.1:9900/nosuch_module 2>/dev/null
echo "unknown module: rc=$?"
# a slowloris (a byte a second, never a whole line) does not hold the
# exporter: a scrape beside it is answered at once, and it is cut off with
# 408 after the request's time (5 s in all, not per byte)
(while :; do printf G; sleep 1; done) | timeout 15 nc 127.0.0.1 9900 > /tmp/slow.out 2>/dev/null &
slow=$!
sleep 0.3
timeout 2 wget -q -O /dev/null http://127.0.0.1:9900/metrics
echo "scrape beside a slow client: rc=$?"
wait $slow
echo "slow client: $(head -1 /tmp/slow.out | tr -d '\r')"
# a request of more than 8 KiB
{
	printf 'GET /metrics HTTP/1.0\r\n'
	i=0
	while [ $i -lt 90 ]; do printf 'X-Pad-%d: %0100d\r\n' $i 0; i=$((i + 1)); done
	printf '\r\n'
} | timeout 5 nc 127.0.0.1 9900 > /tmp/big.out 2>/dev/null
echo "oversized request: $(head -1 /tmp/big.out | tr -d '\r')"
# 32 clients at once, the 33rd is refused; once they go, it is served again
# connected: how many connections the exporter on 9900 has
connected() { awk '$4 == "01" && $2 ~ /:26AC$/' /proc/net/tcp | wc -l; }
i=0
idle=""
while [ $i -lt 32 ]; do
	sleep 4 | nc 127.0.0.1 9900 > /dev/null 2>&1 &
	idle="$idle $!"
	i=$((i + 1))
done
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	[ "$(connected)" -ge 32 ] && break
	sleep 0.1
done
sleep 0.3   # the accept loop takes them in
printf 'GET / HTTP/1.0\r\n\r\n' | timeout 3 nc 127.0.0.1 9900 > /tmp/busy.out 2>/dev/null
echo "33rd client: $(head -1 /tmp/busy.out | tr -d '\r')"
kill $idle 2>/dev/null
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	[ "$(connected)" -lt 32 ] && break
	sleep 0.1
done
timeout 3 wget -q -O /dev/null http://127.0.0.1:9900/
echo "after the 32: rc=$?"
kill $ex
wait $ex
echo "exporter: rc=$?"
[ -d /sys/module/prom_ex ] && echo "module left loaded" || echo "module removed with the exporter"
# -t 2: a module this exporter started and nobody scrapes for 2 s is removed
# while the exporter runs on; the next scrape starts it again
stap-exporter -p 9901 -d /ko -t 2 > /tmp/ex2.log 2>&1 &
ex=$!
wait_up 9901
wget -q -O /tmp/idle1 http://127.0.0.1:9901/prom_ex
echo "idle exporter, first scrape: rc=$?"
[ -d /sys/module/prom_ex ] && echo "module started"
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
	[ -d /sys/module/prom_ex ] || break
	sleep 0.5
done
[ -d /sys/module/prom_ex ] && echo "idle module left loaded" || echo "idle module removed"
kill -0 $ex 2>/dev/null && echo "exporter still running"
wget -q -O /tmp/idle2 http://127.0.0.1:9901/prom_ex
echo "scrape after removal: rc=$?"
[ -d /sys/module/prom_ex ] && echo "module started again"
kill $ex
wait $ex
echo "idle exporter: rc=$?"
# -a 0.0.0.0: reachable from 10.9.9.9 too (what the default refuses)
stap-exporter -p 9903 -a 0.0.0.0 > /tmp/ex3.log 2>&1 &
ex=$!
wait_up 9903 10.9.9.9
listening 9903 | tr '\n' ' ' | sed 's/ $//'; echo " listen with -a 0.0.0.0"
echo "-a 0.0.0.0 from 10.9.9.9: $(status 10.9.9.9 9903)"
kill $ex
wait $ex
echo "== index"
cat /tmp/index
echo "== metrics"
cat /tmp/all
