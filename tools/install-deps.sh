#!/bin/sh
# Installs the Debian packages msprof builds and tests with, if any is missing.
set -e
pkgs="clang libclang-rt-dev llvm libbpf-dev bpftool libelf-dev zlib1g-dev libcunit1-dev libedit-dev make gcc jq tmux python3 procps util-linux"
# make test-kernels: QEMU, the initramfs's busybox and cpio, and the arm64
# cross build its arm64 VMs run (multiarch libraries: arm64 must be added)
pkgs="$pkgs qemu-system-x86 qemu-system-arm busybox-static cpio binutils gcc-aarch64-linux-gnu
libc6-dev:arm64 libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 libedit-dev:arm64 libcunit1-dev:arm64"
missing=""
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "installing:$missing"
if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: run as root (or: sudo apt-get install$missing)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
