#!/bin/bash
# debuginfod-tests.sh - kernel and module probe resolution through a real
# debuginfod server, with no debuginfo found locally: Debian's `debuginfod`
# runs on 127.0.0.1 (a free port) indexing a folder that holds the kernel's
# debug vmlinux and brd.ko (hard links, else copies, of the -dbg package's
# files); stap gets DEBUGINFOD_URLS pointing at it and CSTAP_DEBUGINFO_DIR
# pointing at an empty folder instead of /usr/lib/debug.
# CSTAP_TEST_DEBUGINFOD_DEB=1: index the -dbg .deb from the apt cache instead
# (the issue's setting: here the whole test takes ~66 s instead of ~10 s: 33 s to
# index the 283 MB .deb, ~15 s for the server to extract vmlinux, ~13 s brd.ko).
# Every wait is bounded; the server is killed on exit.
# usage: debuginfod-tests.sh    env: CSTAP_BUILD (build dir)
set -u
export CSTAP_DEFAULT_RUNTIME=kernel   # modules in a guest where this host loads none (native-tests.sh: the default)
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CSTAP_BUILD:-$(pwd)}
[ -x "$build/translator/stap" ] || build=$src
STAP=$build/translator/stap
if ! command -v debuginfod > /dev/null; then
	echo "SKIP: no debuginfod server binary (apt-get install debuginfod)"; exit 77
fi
rel=$("$build/translator/stap-vm" --default-release 2>/dev/null)
vmlinux=/usr/lib/debug/boot/vmlinux-$rel
brd=$(ls /usr/lib/debug/lib/modules/"$rel"/kernel/drivers/block/brd.ko 2>/dev/null)
deb=$(ls /var/cache/apt/archives/linux-image-"$rel"-dbg_*.deb 2>/dev/null | head -1)
use_deb=${CSTAP_TEST_DEBUGINFOD_DEB:-$([ -n "$deb" ] && echo 1 || echo 0)}
if [ "$use_deb" = 1 ] && [ -z "$deb" ]; then
	echo "SKIP: no linux-image-$rel-dbg .deb in /var/cache/apt/archives"; exit 77
fi
if [ "$use_deb" != 1 ] && [ ! -r "$vmlinux" ]; then
	echo "SKIP: no kernel debuginfo to serve (apt-get install linux-image-cloud-amd64-dbg)"; exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/cstap-dbgd.XXXXXX")
srv=
cleanup() {
	[ -n "$srv" ] && kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
pass=0; fail=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; shift; printf '    %s\n' "$@"; fail=$((fail + 1)); }

mkdir -p "$work/src" "$work/nodebug"
put() { ln "$1" "$work/src/" 2>/dev/null || cp "$1" "$work/src/"; }
if [ "$use_deb" = 1 ]; then put "$deb"; scan=(-U); kind='.deb archive'; limit=600
else put "$vmlinux"; [ -n "$brd" ] && put "$brd"; scan=(-F); kind=file; limit=60; fi

# GET /metrics from the server (bash's /dev/tcp: no curl needed).
metrics() {
	{ exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || return 1
	printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3
	timeout 5 cat <&3; exec 3<&-
}

# Start the server on a free port (another try if it loses a race for it).
t0=$(date +%s)
for try in 1 2 3; do
	port=$((20000 + RANDOM % 40000))
	{ (exec 3<>"/dev/tcp/127.0.0.1/$port"); } 2>/dev/null && continue   # taken
	debuginfod -p "$port" "${scan[@]}" "$work/src" -d "$work/db.sqlite" -t0 -g0 -c1 \
		> "$work/server.log" 2>&1 &
	srv=$!
	for _ in $(seq 50); do metrics > /dev/null && break; kill -0 $srv 2>/dev/null || break; sleep 0.2; done
	metrics > /dev/null && break
	kill $srv 2>/dev/null; wait $srv 2>/dev/null; srv=
done
if [ -z "$srv" ]; then
	echo "FAIL: debuginfod did not start"; tail -5 "$work/server.log"; exit 1
fi
# Wait (bounded) until the folder is indexed.
n=0
until m=$(metrics) && grep -q "^scanned_files_total{source=\"$kind\"} [1-9]" <<< "$m" &&
	grep -q '^thread_busy{role="scan"} 0' <<< "$m"; do
	n=$((n + 1))
	if [ $n -gt $((limit * 2)) ]; then echo "FAIL: debuginfod indexed nothing in $limit s"; exit 1; fi
	sleep 0.5
done
echo "debuginfod on port $port indexed $kind in $(($(date +%s) - t0)) s"

export DEBUGINFOD_URLS=http://127.0.0.1:$port DEBUGINFOD_CACHE_PATH=$work/cache
export CSTAP_DEBUGINFO_DIR=$work/nodebug
check() {   # name, expected substring, stap args... (no progress: not a tty)
	local name=$1 want=$2; shift 2
	local out t=$(date +%s)
	out=$(timeout 600 "$STAP" "$@" 2>&1)
	if ! grep -qF -- "$want" <<< "$out"; then bad "$name" "wanted: $want" "got: $out"
	elif grep -q Downloading <<< "$out"; then bad "$name" "progress shown on a pipe: $out"
	else ok "$name ($(($(date +%s) - t)) s)"; fi
}
check debuginfod_kernel_p2 'kernel.function("ksys_read@fs/read_write.c:' \
	-p2 -u -e 'probe kernel.function("ksys_read") {}'
check debuginfod_kernel_L "$(cat "$src/testsuite/list/vfs_read_return_L.expect")" \
	-L 'kernel.function("vfs_read").return'
check debuginfod_kprobe_l 'kprobe.function("ksys_read")' -l 'kprobe.function("ksys_read")'
if [ -n "$brd" ] || [ "$use_deb" = 1 ]; then
	check debuginfod_module_L 'module("brd").function("brd_submit_bio@drivers/block/brd.c:287") $bio:struct bio*' \
		-L 'module("brd").function("brd_submit_bio")'
fi
# On a terminal (script(1) gives one) the download shows its progress.
if command -v script > /dev/null && { [ -n "$brd" ] || [ "$use_deb" = 1 ]; }; then
	cmd="$(printf %q "$STAP") -p2 -u -e 'probe module(\"brd\").function(\"brd_submit_bio\") {}'"
	out=$(DEBUGINFOD_CACHE_PATH=$work/cache2 timeout 600 script -qec "$cmd" /dev/null 2>&1)
	if grep -q 'Downloading debuginfo for module brd: .* MB' <<< "$out"; then ok debuginfod_progress_tty
	else bad debuginfod_progress_tty "no progress line in: $out"; fi
fi
# What was downloaded is cached: it resolves with the server gone.
kill $srv; wait $srv 2>/dev/null; srv=
check debuginfod_cached 'kernel.function("ksys_read@fs/read_write.c:' \
	-p2 -u -e 'probe kernel.function("ksys_read") {}'
# No server configured and nothing local: the error says why (for a point
# the kernel's BTF cannot stand in for: it has no source files).
unset DEBUGINFOD_URLS
check debuginfod_unset 'debuginfod: DEBUGINFOD_URLS is not set' \
	-p2 -u -e 'probe kernel.function("ksys_read@fs/read_write.c") {}'
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
