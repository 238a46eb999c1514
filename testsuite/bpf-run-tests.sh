#!/bin/bash
# bpf-run-tests.sh - the run tests again with stap --runtime=bpf (stapbpf in
# the guest): every test whose script BPF can run must give the output its
# NAME.expect gives the module; the others are refused in pass 2
# (E_BPF_UNSUPPORTED) and counted. The summary line of each kernel says how
# many ran both ways (run-tests.sh, RUNTIME=bpf). The default kernel runs
# them from a `make install` (DESTDIR under the build's testsuite/): its
# stap, stap-vm, tapsets, runtime and the stapbpf the guest gets are the
# installed ones; the other kernels from the build tree.
# usage: bpf-run-tests.sh [NAME ...]     env: as run-tests.sh
build=${CSTAP_BUILD:-$(pwd)}
dest=$build/testsuite/installed-bpf
rm -rf "$dest"
if [ -f "$build/Makefile" ] && make -C "$build" -s install DESTDIR="$dest" > "$dest.log" 2>&1; then
	INSTALLED_BIN=$(dirname "$(find "$dest" -path '*/bin/stap' | head -1)")
	export INSTALLED_BIN
else
	echo "FAIL: make install DESTDIR=$dest: $(tail -3 "$dest.log")"
	exit 1
fi
RUNTIME=bpf exec "$(dirname "$0")/run-tests.sh" "$@"
