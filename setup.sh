#!/bin/sh
# setup.sh - install what cstap needs on Debian 12 (idempotent), then build it.
#
# Packages: the compiler and autotools, elfutils and CUnit headers, and what
# the QEMU guest needs: qemu, a static busybox, and a Debian cloud kernel with
# its headers (the kbuild tree modules are built against) and debuginfo
# (-dbg: System.map and DWARF for kernel probes); the debuginfod client
# library, and the server (with bsdtar for .deb archives) the tests run;
# gcc-multilib builds the run tests' 32-bit programs (a 32-bit task's system
# calls); systemtap-sdt-dev's <sys/sdt.h> builds the SDT marker test program;
# libbpf-dev is the static libbpf stapbpf links (with libelf and zlib);
# libc6-dbg is libc's DWARF (process probes in libc), g++ builds the C++ test
# program, python3.11-minimal's interpreter carries SDT markers (list tests);
# man-db and groff render the manual pages (man-tests), prometheus's promtool
# checks what stap-exporter serves (exporter-tests), dropbear-bin is the SSH
# server of the guests stap --remote=ssh reaches (remote-ssh-tests; openssh-client
# is the client).
# A second kernel series ($CSTAP_SERIES, default 6.12: Debian 12's newer cloud
# kernel, from bookworm-security) is installed too when apt has it: cstap
# builds for every installed kernel and the tests run on each of them.
# CSTAP_SERIES= (empty) installs the default kernel only.
set -eu
cd "$(dirname "$0")"
pkgs="gcc make autoconf automake libc6-dev libdw-dev libelf-dev libcunit1-dev pkg-config libbpf-dev
      gcc-multilib libc6-dbg g++ python3.11-minimal cpio gzip qemu-system-x86 busybox-static bc flex bison
      linux-image-cloud-amd64 linux-headers-cloud-amd64 linux-image-cloud-amd64-dbg
      libdebuginfod-dev debuginfod libarchive-tools systemtap-doc systemtap-sdt-dev xz-utils zstd
      man-db groff-base dropbear-bin openssh-client prometheus libssl-dev openssl kmod bpftrace gawk"
series=${CSTAP_SERIES-6.12}
optional=""
for v in $series; do
	optional="$optional linux-image-$v-cloud-amd64 linux-headers-$v-cloud-amd64 linux-image-$v-cloud-amd64-dbg"
done
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }
missing=""
for p in $pkgs $optional; do
	installed "$p" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	want=""
	for p in $missing; do	# the optional series only if this apt knows it
		case " $optional " in
		*" $p "*) apt-cache show "$p" > /dev/null 2>&1 || { echo "setup.sh: no $p here, skipped"; continue; };;
		esac
		want="$want $p"
	done
	[ -z "$want" ] || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $want
	updated=1
fi
# Each installed kernel's own headers and -dbg, by exact release: Debian's
# metapackages can point at different releases for a while (the -dbg one at
# 6.12.118 while the image one is still at 6.12.117), and a kernel without
# its own debuginfo has no kernel probes.
exact=""
for img in $(dpkg-query -W -f='${Package} ${Status}\n' 'linux-image-[0-9]*-cloud-amd64' 2>/dev/null |
	     awk '/ok installed/ { print $1 }'); do
	rel=${img#linux-image-}
	for p in "$img-dbg" "linux-headers-$rel"; do
		installed "$p" || exact="$exact $p"
	done
done
if [ -n "$exact" ]; then
	SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
	[ -n "${updated:-}" ] || $SUDO apt-get update -qq
	want=""
	for p in $exact; do
		apt-cache show "$p" > /dev/null 2>&1 && want="$want $p" || echo "setup.sh: no $p here, skipped"
	done
	[ -z "$want" ] || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $want
fi
[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure
make -j2
