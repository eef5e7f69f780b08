#!/bin/sh
# Installs the Debian packages msprof builds and tests with, if any is missing.
# Usage: tools/install-deps.sh [cross] [kernels]
#   cross: also the arm64 cross build's (make ARCH=arm64
#          CROSS_COMPILE=aarch64-linux-gnu-): its compiler, arm64 libraries
#          through multiarch, and qemu-user for its unit tests.
#   kernels: also make test-kernels' QEMU, busybox-static and cpio (its arm64
#          VMs run a cross-built tree: give cross too).
set -e
pkgs="clang libclang-rt-dev llvm libbpf-dev bpftool libelf-dev zlib1g-dev libcunit1-dev libedit-dev libsqlite3-dev make gcc dpkg-dev man-db jq tmux python3 procps util-linux time bpftrace pdsh"
foreign=""
for arg in "$@"; do
	case $arg in
	cross)
		foreign=arm64
		pkgs="$pkgs gcc-aarch64-linux-gnu qemu-user-static libc6-dev:arm64 libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 libedit-dev:arm64 libsqlite3-dev:arm64 libcunit1-dev:arm64" ;;
	kernels)
		pkgs="$pkgs qemu-system-x86 qemu-system-arm busybox-static cpio binutils" ;;
	*)
		echo "usage: $0 [cross] [kernels]" >&2
		exit 2 ;;
	esac
done
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: run as root (or: sudo${foreign:+ dpkg --add-architecture $foreign; sudo} apt-get install$missing)" >&2
	exit 1
fi
if [ -n "$foreign" ] && ! dpkg --print-foreign-architectures | grep -qx "$foreign"; then
	dpkg --add-architecture "$foreign"
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
