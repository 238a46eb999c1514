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
echo "== index"
cat /tmp/index
echo "== metrics"
cat /tmp/all
