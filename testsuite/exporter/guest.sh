# guest.sh - exporter-tests.sh's step, run by busybox sh in the guest: a
# stap-exporter with the prebuilt module in /ko, scraped with wget.
ip link set lo up
stap-exporter -p 9900 -d /ko > /tmp/ex.log 2>&1 &
ex=$!
for i in 1 2 3 4 5 6 7 8 9 10; do nc -z 127.0.0.1 9900 2>/dev/null && break; sleep 0.3; done
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
kill $ex
wait $ex
echo "exporter: rc=$?"
[ -d /sys/module/prom_ex ] && echo "module left loaded" || echo "module removed with the exporter"
# -t 2: a module this exporter started and nobody scrapes for 2 s is removed
# while the exporter runs on; the next scrape starts it again
stap-exporter -p 9901 -d /ko -t 2 > /tmp/ex2.log 2>&1 &
ex=$!
for i in 1 2 3 4 5 6 7 8 9 10; do nc -z 127.0.0.1 9901 2>/dev/null && break; sleep 0.3; done
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
echo "== index"
cat /tmp/index
echo "== metrics"
cat /tmp/all
