#!/bin/bash
# btf-tests.sh - kernel.function probes and their target variables without
# debuginfo, through the kernel's BTF (translator/target/btf.c,
# translator/probes/kfunc_btf.c), on every installed kernel: the debuginfo
# is hidden (CSTAP_DEBUGINFO_DIR=an empty directory, no debuginfod) and the
# BTF comes out of /boot/vmlinuz-REL (then from the cache). Checked: -L
# lists the parameters DWARF lists (without @file:line and locals), a run
# of testsuite/btf/params.stp in the guest prints what the same script
# prints with DWARF, and what BTF cannot give is refused with its tag. With
# --runtime=bpf too: testsuite/btf/params-bpf.stp built through BTF and run
# by stapbpf prints what its module built through DWARF prints.
# usage: btf-tests.sh    env: CSTAP_BUILD (build dir), RELEASES, KEEP=1
set -u
. "$(dirname "$0")/lib.sh"

export XDG_CACHE_HOME=$work/cache   # a cold BTF cache; modules built here only
mkdir -p "$work/nodebug"
nodebug() { CSTAP_DEBUGINFO_DIR=$work/nodebug DEBUGINFOD_URLS= "$@"; }
releases=${RELEASES:-$("$STAPVM" --releases 2>/dev/null)}
[ -n "$releases" ] || { echo "btf-tests: SKIP: no kernel"; exit 77; }

for rel in $releases; do
	# -L: BTF's parameters are DWARF's, which then lists locals
	for p in 'kernel.function("vfs_read")' 'kernel.function("vfs_write").return' 'kernel.function("ksys_read")'; do
		btf=$(nodebug "$STAP" -r "$rel" -L "$p" 2>&1)
		dwarf=$("$STAP" -r "$rel" -L "$p" 2>&1 | sed 's/@[^"]*")/")/')
		if [ -n "$btf" ] && [[ "$btf" != *error* ]] && [[ "$dwarf " == "$btf "* ]]; then
			ok "-L $p on $rel through BTF: $btf"
		else
			bad "-L $p on $rel through BTF" "BTF:   $btf" "DWARF: $dwarf"
		fi
	done
	ncached=$((${ncached:-0} + 1))
	n=$(ls "$XDG_CACHE_HOME"/cstap/btf-*.bin 2>/dev/null | wc -l)
	[ "$n" = "$ncached" ] && ok "the BTF of $rel is cached" || bad "$n btf-*.bin in $XDG_CACHE_HOME/cstap, not $ncached"

	# refusals, tagged
	out=$(nodebug "$STAP" -r "$rel" -p2 -e 'probe kernel.function("ksys_read") { println($f) }' 2>&1)
	grep -q 'E_TARGET_VAR.*BTF knows parameters only' <<<"$out" && ok "a local through BTF on $rel: E_TARGET_VAR" ||
		bad "a local through BTF on $rel" "$out"
	out=$(nodebug "$STAP" -r "$rel" -p2 -u -e 'probe kernel.function("vfs_read@fs/read_write.c") {}' 2>&1)
	grep -q 'E_PROBE_POINT.*BTF gives' <<<"$out" && ok "@FILE through BTF on $rel: E_PROBE_POINT" ||
		bad "@FILE through BTF on $rel" "$out"

	# the same run, through BTF and through DWARF
	d=$work/$rel
	mkdir -p "$d"
	if ! (cd "$d" && nodebug "$STAP" -p4 -r "$rel" -m btf_params "$src/testsuite/btf/params.stp" &&
	      "$STAP" -p4 -r "$rel" -m dwarf_params "$src/testsuite/btf/params.stp" &&
	      nodebug "$STAP" --runtime=bpf -p4 -r "$rel" -m bpf_params "$src/testsuite/btf/params-bpf.stp" &&
	      "$STAP" -p4 -r "$rel" -m dwarf_bparams "$src/testsuite/btf/params-bpf.stp") > "$d/build.log" 2>&1; then
		bad "build params.stp on $rel" "$(tail -5 "$d/build.log")"
		continue
	fi
	tab=$(printf '\t')
	cat > "$d/jobs" <<JOBS
btf${tab}60${tab}staprun -c 'sh -c "dd if=/init of=/dev/null bs=64 count=2; /bin/true"' /ko/btf_params.ko
dwarf${tab}60${tab}staprun -c 'sh -c "dd if=/init of=/dev/null bs=64 count=2; /bin/true"' /ko/dwarf_params.ko
bpf${tab}60${tab}stapbpf -c 'sh -c "dd if=/init of=/dev/null bs=64 count=2 2>/dev/null; /bin/true"' /ko/bpf_params.bo
dwarfb${tab}60${tab}staprun -c 'sh -c "dd if=/init of=/dev/null bs=64 count=2 2>/dev/null; /bin/true"' /ko/dwarf_bparams.ko
JOBS
	"$STAPVM" -r "$rel" -t 200 -f /bin/true -f "$d/btf_params.ko:/ko/btf_params.ko" -f "$d/dwarf_params.ko:/ko/dwarf_params.ko" \
		-f "$d/bpf_params.bo:/ko/bpf_params.bo" -f "$d/dwarf_bparams.ko:/ko/dwarf_bparams.ko" \
		-f "$build/stapbpf/stapbpf:/bin/stapbpf" \
		-b "$d/jobs" -O "$d/res" > "$d/vm.log" 2>&1 || bad "guest on $rel" "$(tail -5 "$d/vm.log")"
	if [ -s "$d/res/btf.out" ] && [ "$(grep -c '^read 64 init len=4 parms=1$' "$d/res/btf.out")" = 2 ] &&
	   grep -q '^return 64 count=64$' "$d/res/btf.out" && grep -q '^vfs.read ino=' "$d/res/btf.out" &&
	   grep -q '^mmap len=[1-9].* populate=1 uf=1$' "$d/res/btf.out" &&
	   cmp -s "$d/res/btf.out" "$d/res/dwarf.out"; then
		ok "params.stp on $rel: through BTF as through DWARF ($(wc -l < "$d/res/btf.out") lines)"
	else
		bad "params.stp on $rel" "BTF:" "$(cat "$d/res/btf.out" "$d/res/btf.err" 2>/dev/null | head -8)" \
			"DWARF:" "$(head -8 "$d/res/dwarf.out" 2>/dev/null)"
	fi
	if [ -s "$d/res/bpf.out" ] && grep -q '^read 64 init len=4$' "$d/res/bpf.out" &&
	   grep -q '^mmap len=[1-9].* populate=1 uf=1$' "$d/res/bpf.out" && cmp -s "$d/res/bpf.out" "$d/res/dwarfb.out"; then
		ok "params-bpf.stp on $rel: --runtime=bpf through BTF as a module through DWARF ($(wc -l < "$d/res/bpf.out") lines)"
	else
		bad "params-bpf.stp on $rel" "BPF, BTF:" "$(cat "$d/res/bpf.out" "$d/res/bpf.err" 2>/dev/null | head -8)" \
			"module, DWARF:" "$(head -8 "$d/res/dwarfb.out" 2>/dev/null)"
	fi
done
finish
