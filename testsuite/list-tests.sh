#!/bin/bash
# list-tests.sh - stap -l / -L and kernel probe resolution on the host (no
# guest needed, but the kernel's -dbg package): testsuite/list/cases.txt
# names the points; NAME.expect holds what SystemTap 4.8 printed for them.
# Also: the "similar" names of an unmatched point, and pass-2/3 resolution
# of module(...) and kprobe.module(...) points (run/module_function.stp
# probes a module loaded in the guest).
# usage: list-tests.sh    env: CSTAP_BUILD (build dir)
set -u
export CSTAP_DEFAULT_RUNTIME=kernel   # modules in a guest where this host loads none (native-tests.sh: the default)
src=$(cd "$(dirname "$0")/.." && pwd)
build=${CSTAP_BUILD:-$(pwd)}
[ -x "$build/translator/stap" ] || build=$src
STAP=$build/translator/stap
if ! ls /usr/lib/debug/boot/vmlinux-* > /dev/null 2>&1; then
	echo "SKIP: no kernel debuginfo (apt-get install linux-image-cloud-amd64-dbg)"; exit 77
fi
pass=0; fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cstap-list.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
bad() { echo "FAIL: $1"; shift; printf '    %s\n' "$@"; fail=$((fail + 1)); }

# cases.txt on every installed kernel (stap-vm --releases); on a kernel of
# another series than SystemTap's 6.1, NAME.expect.SERIES (e.g. .6.12: cstap's
# own listing there, checked by hand when written) replaces NAME.expect where
# the kernel changes the listing (source lines, functions, members)
default=$("$build/translator/stap-vm" --default-release 2>/dev/null)
for rel in ${RELEASES:-$("$build/translator/stap-vm" --releases 2>/dev/null)}; do
	series=$(echo "$rel" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
	[ "$rel" = "$default" ] && at="" || at=" ($rel)"
	# two stap at a time (each reads the kernel's DWARF), compared in order
	mkdir -p "$tmp/$rel"
	grep -v -e '^#' -e '^$' "$src/testsuite/list/cases.txt" | tr '\n' '\0' |
		STAP=$STAP REL=$rel OUTD=$tmp/$rel xargs -0 -P 2 -n 1 bash -c \
		'IFS="|" read -r name opt point <<< "$1"; "$STAP" -r "$REL" "$opt" "$point" > "$OUTD/$name" 2>&1' _
	while IFS='|' read -r name opt point; do
		case "$name" in '#'*|'') continue;; esac
		exp=$src/testsuite/list/$name.expect
		[ -f "$exp.$series" ] && exp=$exp.$series
		if d=$(diff "$exp" "$tmp/$rel/$name"); then ok "list/$name$at"; else bad "list/$name$at" "$d"; fi
	done < "$src/testsuite/list/cases.txt"
	echo "list cases: kernel $rel"
done
# the rest on the default kernel (its line numbers and symbols)

# stap -l 'syscall.*': SystemTap 4.8's names, and the newer calls it has no alias for
out=$("$STAP" -l 'syscall.*' 2>&1 | grep -vxF -f <(grep -v '^#' "$src/testsuite/list/syscall_star.extra"))
if d=$(diff "$src/testsuite/list/syscall_star.expect" - <<< "$out"); then ok list/syscall_star
else bad list/syscall_star "$d"; fi

# stap -l 'kernel.function("*@fs/*")' on each installed kernel of fs_star.sums: its
# line count and checksum (6.1: SystemTap 4.8's listing less fs_star.missing),
# and none of the functions SystemTap 4.8 refuses there (fs_star.refused)
while read -r rel lines sum; do
	case "$rel" in '#'*|'') continue;; esac
	[ -e "/usr/lib/debug/boot/vmlinux-$rel" ] || continue
	out=$("$STAP" -r "$rel" -l 'kernel.function("*@fs/*")' 2>&1 | LC_ALL=C sort -u)
	n=$(grep -c . <<< "$out"); got=$(sha256sum <<< "$out" | cut -c1-64)
	refused=$(grep -F -f <(grep -v '^#' "$src/testsuite/list/fs_star.refused" |
		sed 's/.*/kernel.function("&@/') <<< "$out")
	missing=$(grep -xF -f <(grep -v '^#' "$src/testsuite/list/fs_star.missing") <<< "$out")
	if [ -n "$refused" ]; then bad "list/fs_star $rel" "lists functions SystemTap 4.8 refuses:" $refused
	elif [ -n "$missing" ]; then bad "list/fs_star $rel" "lists what fs_star.missing says it does not:" $missing
	elif [ "$n $got" != "$lines $sum" ]; then
		bad "list/fs_star $rel" "$n lines, sha256 $got; expected $lines, $sum" \
			"(6.1: compare with /usr/bin/stap -r $rel -l 'kernel.function(\"*@fs/*\")')"
	else ok "list/fs_star $rel"; fi
done < "$src/testsuite/list/fs_star.sums"

check_err() {   # name, expected substring, stap args...
	local n=$1 want=$2; shift 2
	local out; out=$("$STAP" "$@" 2>&1)
	if grep -qF -- "$want" <<< "$out"; then ok "$n"; else bad "$n" "wanted: $want" "got: $out"; fi
}
check_err similar_dwarf 'no match for probe point kernel.function("vfs_rea") (similar: vfs_read, vcs_read, vfs_readv)' \
	-u -p2 -e 'probe kernel.function("vfs_rea") {}'
check_err similar_kprobe 'no match for probe point kprobe.function("ksys_rea") (similar: ksys_read)' \
	-u -p2 -e 'probe kprobe.function("ksys_rea") {}'
check_err module_dwarf_p2 'module("xfs").function("xfs_file_open@fs/xfs/xfs_file.c:1206").return' \
	-u -p2 -e 'probe module("xfs").function("xfs_file_open").return {}'
check_err module_kprobe_p3 '.symbol = "xfs:xfs_file_open"' \
	-u -p3 -e 'probe kprobe.module("xfs").function("xfs_file_open") {}'
check_err kernel_p3_stext '.symbol = "_stext"' -u -p3 -e 'probe kernel.function("vfs_read") {}'
check_err module_wild_nomatch 'no match for probe point module("*").function("no_such_fn_xyz")' \
	-u -p2 -e 'probe module("*").function("no_such_fn_xyz") {}'
check_err statement_try 'no line records for fs/read_write.c:612 (try :611 or :613)' \
	-u -p2 -e 'probe kernel.statement("ksys_read@fs/read_write.c:612") {}'
# kernel.statement(ADDR): a link-time address, registered KASLR-proof
rel=$("$build/translator/stap-vm" --default-release 2>/dev/null)
addr=0x$(awk '$3 == "ksys_read" { print $1 }' "/usr/lib/debug/boot/System.map-$rel")
check_err statement_addr_p3 "{ .symbol = \"_stext\", .offset = 0x$(printf %x $((addr - 0x$(awk '$3 == "_stext" { print $1 }' "/usr/lib/debug/boot/System.map-$rel"))))U" \
	-u -p3 -e "probe kernel.statement($addr) {}"
check_err statement_addr_l "kernel.statement($addr)" -l "kernel.statement($addr)"
check_err statement_absolute_p3 ".addr = ${addr}UL, .verify = NULL, .probe = &stp_probes[0]" \
	-g -u -p3 -e "probe kernel.statement($addr).absolute {}"
# a .cold part is probed at its own symbol, without target variables
check_err cold_p3 '.verify = "vfs_get_tree.cold", .probe = &stp_probes[0]' \
	-p3 -e 'probe kernel.function("vfs_get_tree.cold") { println(pp()) }'
check_err cold_pp_p3 '{ .pp = "kernel.function(\"vfs_get_tree.cold\")"' \
	-p3 -e 'probe kernel.function("vfs_get_tree.cold") { println(pp()) }'
# ... and in .return, @entry of an expression (fntimes.stp on kernel.function("sys_*"))
check_err cold_entry_p3 'static void dpentry_0(struct pt_regs *regs, void *data, unsigned long ubias)' \
	-p3 -e 'probe kernel.function("vfs_get_tree.cold").return { println(gettimeofday_us() - @entry(gettimeofday_us())) }'
# $$parms on a wildcard that takes in a .cold part: empty there, as SystemTap
check_err cold_parms_p2 'kernel.function("vfs_get_tree.cold")' -p2 -e 'probe kernel.function("vfs_get_tree*") { println($$parms$) }'
check_err cold_no_vars '[E_TARGET_UNAVAILABLE]' -p2 -e 'probe kernel.function("vfs_get_tree.cold") { println($fc) }'
# a wildcard point on a module's tracepoint: its module and DWARF arguments
check_err trace_module_wild_p3 '{ .name = "scsi_dispatch_cmd_start", .probe = (void *)dp_0, .pp = "scsi_dispatch_cmd_start", .module = "scsi_mod" }' \
	-p3 -e 'probe kernel.trace("scs*:scsi_dispatch_cmd_st*") { println($cmd->cmnd[0]) }'
check_err no_module 'no module' -u -p2 -e 'probe module("no_such_mod").function("f") {}'
check_err optional_nothing '# probes' -u -p2 -e 'probe kernel.function("no_such_fn_xyz")?, begin {}'

# the index of inlined functions (target/dwarf_inlines.c): made by the first
# run in a new cache, read by the next; each finds what the walk of every
# unit (CSTAP_NO_DWARF_INDEX) finds, for a wildcard and for one plain name
# (each of its inlined copies a probe at -p2); a damaged cache file
# is not believed
idx=$tmp/idx-cache
for args in "-l|kernel.function(\"*blk*\").inline" "-u|-p2|-e|probe kernel.function(\"blk_rq_bytes\") {}"; do
	IFS='|' read -r -a a <<< "$args"
	walk=$(CSTAP_NO_DWARF_INDEX=1 XDG_CACHE_HOME=$idx "$STAP" "${a[@]}" 2>&1)
	cold=$(XDG_CACHE_HOME=$idx "$STAP" "${a[@]}" 2>&1)
	made=$(ls "$idx"/cstap/dwinl-*.bin 2>/dev/null | wc -l)
	warm=$(XDG_CACHE_HOME=$idx "$STAP" "${a[@]}" 2>&1)
	n=$(grep -c '^kernel.function' <<< "$walk")
	if [ "$made" != 1 ] || [ "$n" -lt 2 ]; then bad "dwarf_index ${a[*]}" "index files: $made; walk: $walk"
	elif [ "$cold" != "$walk" ] || [ "$warm" != "$walk" ]; then
		bad "dwarf_index ${a[*]}" "$(diff <(echo "$walk") <(echo "$warm"))" "$(diff <(echo "$walk") <(echo "$cold"))"
	else ok "dwarf_index ${a[*]} ($n found)"; fi
done
f=$(ls "$idx"/cstap/dwinl-*.bin 2>/dev/null | head -1)
if [ -n "$f" ]; then
	head -c 100000 "$f" > "$f.cut" && mv "$f.cut" "$f"
	got=$(XDG_CACHE_HOME=$idx "$STAP" -l 'kernel.function("*blk*").inline' 2>&1)
	if [ "$got" = "$(CSTAP_NO_DWARF_INDEX=1 "$STAP" -l 'kernel.function("*blk*").inline' 2>&1)" ] &&
	   [ "$(stat -c %s "$f")" -gt 100000 ]; then ok "dwarf_index: a cut cache file is made again"
	else bad "dwarf_index: a cut cache file" "size $(stat -c %s "$f")"; fi
fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
