#!/bin/sh
# Installs the Debian packages msprof builds and tests with, if any is missing.
set -e
pkgs="clang libclang-rt-dev llvm libbpf-dev bpftool libelf-dev zlib1g-dev libcunit1-dev libedit-dev make gcc jq tmux python3 procps util-linux"
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
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
