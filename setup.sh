#!/bin/sh
# setup.sh - install what cstap needs on Debian 12 (idempotent), then build it.
#
# Packages: the compiler and autotools, elfutils and CUnit headers, and what
# the QEMU guest needs: qemu, a static busybox, and a Debian cloud kernel with
# its headers (the kbuild tree modules are built against) and debuginfo
# (-dbg: System.map and DWARF for kernel probes); the debuginfod client
# library, and the server (with bsdtar for .deb archives) the tests run.
set -eu
cd "$(dirname "$0")"
pkgs="gcc make autoconf automake libc6-dev libdw-dev libelf-dev libcunit1-dev pkg-config
      cpio gzip qemu-system-x86 busybox-static bc flex bison
      linux-image-cloud-amd64 linux-headers-cloud-amd64 linux-image-cloud-amd64-dbg
      libdebuginfod-dev debuginfod libarchive-tools systemtap-doc"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
fi
[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure
make -j2
