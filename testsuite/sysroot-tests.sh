#!/bin/bash
# sysroot-tests.sh - --sysroot=DIR and --sysenv (translator/target/sysroot.c):
# a root made here holds one kernel (links to an installed one: the
# non-default one when there are two, so that the root's is seen to be
# used) and a program with debuginfo that this system does not have at
# that path, reached through an absolute symbolic link and a bare name.
# Pass 2 resolves the target's paths, refuses a path that climbs out, finds
# libraries as the target's loader would; the module names the target's
# path; the guest boots the root's kernel and runs the program from it.
# usage: sysroot-tests.sh    env: CSTAP_BUILD (build dir)
set -u
. "$(dirname "$0")/lib.sh"
command -v gcc >/dev/null || { echo "sysroot-tests: SKIP: no gcc"; exit 77; }
mapfile -t rels < <("$STAPVM" --releases)
[ "${#rels[@]}" -gt 0 ] || { echo "sysroot-tests: SKIP: no kernel to build for"; exit 77; }
rel=${rels[${#rels[@]} - 1]}   # the default comes first: another one if any
root=$work/root
mkdir -p "$root/opt/app/bin" "$root/lib/modules" "$root/usr/lib" "$root/boot" "$root/lib/x86_64-linux-gnu"
ln -s "/lib/modules/$rel" "$root/lib/modules/$rel"
for f in /boot/*-"$rel"; do ln -s "$f" "$root/boot/"; done
ln -s /usr/lib/debug "$root/usr/lib/debug"
cp -L /lib/x86_64-linux-gnu/libc.so.6 "$root/lib/x86_64-linux-gnu/"
cat > "$work/hello.c" <<'C'
#include <stdio.h>
int greet(int n) { return printf("hello %d\n", n); }
int main(void) { return greet(7) < 0; }
C
gcc -g -O0 -o "$root/opt/app/bin/hello" "$work/hello.c" || { bad "gcc"; finish; }
ln -s /opt/app/bin/hello "$root/opt/app/bin/hi"   # absolute: resolved inside the root
cd "$work" || exit 1
probe='probe process("/opt/app/bin/hi").function("greet") { printf("greet(%d) in %s\n", $n, execname()) }'

# check NAME WANT-REGEX STAP-ARGS...: stap's output (stdout and stderr) matches
check() {
	local name=$1 want=$2 out
	shift 2
	out=$("$STAP" "$@" 2>&1)
	if grep -qE -- "$want" <<<"$out"; then ok "$name"; else bad "$name" "want /$want/, got:" "$out"; fi
}
check "a link in the root is followed in the root: the target's path" \
	'^process\("/opt/app/bin/hello"\)\.function\("greet@' --sysroot="$root" -p2 -e "$probe"
check "without --sysroot the program is not on this system" \
	"E_PROBE_POINT.*cannot find executable '/opt/app/bin/hi'" -p2 -e "$probe"
check "a path climbing out of the root is refused" \
	"E_PROBE_POINT.*leads out of the sysroot" --sysroot="$root" -p2 \
	-u -e 'probe process("/opt/app/bin/../../../../etc/hostname").function("*") {}'
check "--sysenv=PATH finds a bare name in the root" \
	'^process\("/opt/app/bin/hello"\)\.function\("greet@' --sysroot="$root" --sysenv=PATH=/usr/bin:/opt/app/bin \
	-p2 -u -e 'probe process("hi").function("greet") {}'
check "library(\"*\"): DT_NEEDED found in the root, named by the target's path" \
	'library\("/lib/x86_64-linux-gnu/libc\.so\.6"\)\.function\("' --sysroot="$root" -p2 \
	-u -e 'probe process("/opt/app/bin/hello").library("*").function("puts") {}'
check "a root without a kernel is B_NO_KERNEL, saying so" \
	"B_NO_KERNEL.*under the sysroot" --sysroot="$work" -p2 -u -e 'probe begin {}'

# the module: the root's kernel, the target's path, not the root's
if "$STAP" --sysroot="$root" -p4 -m sr_mod -e "$probe" > p4.log 2>&1; then
	vermagic=$(modinfo -F vermagic sr_mod.ko 2>/dev/null)
	[ "${vermagic%% *}" = "$rel" ] && ok "-p4 builds for the root's kernel ($rel)" ||
		bad "-p4 kernel" "vermagic '$vermagic', want $rel"
	# (the kbuild tree's path under the root may be in it: kbuild read it there)
	if grep -qa '/opt/app/bin/hello' sr_mod.ko && ! grep -qaF "$root/opt" sr_mod.ko; then
		ok "the module names /opt/app/bin/hello, not its path under the root"
	else
		bad "the module's path" "$(strings sr_mod.ko | grep -F /opt/app/bin | head -3)"
	fi
else
	bad "-p4 with --sysroot" "$(tail -5 p4.log)"
fi

# the run: the guest boots the root's kernel and gets the program at its path
out=$("$STAP" --sysroot="$root" -c /opt/app/bin/hello -e "$probe" 2>&1)
want="stap: this kernel cannot load modules; running in a QEMU guest (kernel $rel)
greet(7) in hello
hello 7"
if [ -e /proc/modules ] && ! grep -q 1 /proc/sys/kernel/modules_disabled 2>/dev/null; then
	echo "sysroot-tests: this host loads modules: the guest run is not tried"
elif [ "$(sort <<<"$out")" = "$(sort <<<"$want")" ]; then
	ok "the guest boots $rel and runs /opt/app/bin/hello from the root"
else
	bad "the guest run" "$out"
fi
finish
