#!/bin/bash
# SPDX-License-Identifier: MIT
# pyroots.sh CACHE [NAME...]: Debian's own Python interpreters, each with the
# packages it needs (its libpython, the libc of its release...), unpacked
# into a root of its own under CACHE, for the Python call stack tests to run
# them in with chroot.  The packages come from the Debian archive this
# machine's own apt sources name, through a private apt configuration
# (tools/apt-private.sh: neither the host's sources nor its package state
# are touched); nothing is installed, no maintainer script runs.  A root
# already unpacked is not fetched again (remove it for newer packages).
#
#   bullseye-amd64  Debian 11's python3.9, with gcc, make and the shell
#                   tools make runs: the host's libnpusim.so wants a newer
#                   libc, so the test builds one in the root, against
#                   Debian 11's
#   trixie-amd64    Debian 13's python3.13
#   bookworm-arm64  Debian 12's python3.11 for arm64 (the kernel matrix's
#                   arm64 guests)
#
# Prints one line per root made or found, "pyroot NAME PYTHON DIR" (PYTHON
# the interpreter's path inside the root), and fails if one is missing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/cache-dir.sh
. "$here/cache-dir.sh"
# shellcheck source=tools/apt-private.sh
. "$here/apt-private.sh"
# Root runs what is unpacked here.
cache=$(cache_dir pyroots "the Python root cache" "$1") || exit 1
shift
# name release arch interpreter packages
roots="bullseye-amd64 bullseye amd64 /usr/bin/python3.9 python3.9,gcc,make,libc6-dev,dash,coreutils,diffutils,sed,grep
trixie-amd64 trixie amd64 /usr/bin/python3.13 python3.13
bookworm-arm64 bookworm arm64 /usr/bin/python3.11 python3.11"
wanted=" ${*:-bullseye-amd64 trixie-amd64 bookworm-arm64} "

debian=$(apt_host_mirror debian) || {
	echo "pyroots: no Debian archive (a URI ending in /debian) in /etc/apt/sources.list or sources.list.d/" >&2
	exit 1
}
security=$(apt_host_mirror debian-security) || security=

updated=""
ensure_lists() {	# once per release and run: fresh package lists
	local rel=$1 d=$cache/apt/$1
	case " $updated " in *" $rel "*) return 0 ;; esac
	if [ -n "$security" ]; then
		apt_private_init "$d" "deb [arch=amd64,arm64] $debian $rel main" \
			"deb [arch=amd64,arm64] $security $rel-security main"
	else
		apt_private_init "$d" "deb [arch=amd64,arm64] $debian $rel main"
	fi
	apt_private "$d" apt-get update >"$d/update.log" 2>&1 ||
		{ echo "pyroots: apt-get update for $rel failed (see $d/update.log)" >&2; return 1; }
	updated="$updated $rel"
}

# closure REL ARCH PKG...: PKG and everything they depend on (pre-depends
# too, no recommends), ARCH's only: the target is apt's own architecture
# here, so its packages are the ones named without a suffix.
closure() {
	local rel=$1 arch=$2
	shift 2
	apt_private "$cache/apt/$rel" apt-cache -o APT::Architecture="$arch" depends \
		--recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
		--no-replaces --no-enhances "$@" |
		grep -v -e '^ ' -e '^<' -e ':' | sort -u
}

# unpack NAME REL ARCH PKGS: the root, from nothing.
unpack() {
	local name=$1 rel=$2 arch=$3 dir=$cache/$1 dl=$cache/debs/$1 d
	local -a pkgs
	ensure_lists "$rel" || return 1
	mapfile -t pkgs < <(closure "$rel" "$arch" ${4//,/ })
	[ ${#pkgs[@]} -gt 0 ] || { echo "pyroots: $name: no packages for ${4//,/ }" >&2; return 1; }
	rm -rf "$dl" "$dir"
	mkdir -p "$dl" "$dir"
	# ARCH as apt's own, so that Architecture: all packages are found too
	apt_private_download "$cache/apt/$rel" "$dl" -o APT::Architecture="$arch" \
		"${pkgs[@]}" >"$dl.log" 2>&1 ||
		{ echo "pyroots: $name: cannot download its ${#pkgs[@]} packages (see $dl.log)" >&2; return 1; }
	for d in "$dl"/*.deb; do
		dpkg-deb -x "$d" "$dir"
	done
	ls "$dl" >"$cache/$name.debs"	# what the root holds, for the record
	rm -rf "$dl" "$dl.log" "$dir"/usr/share/{doc,man,info,locale}
	# A merged /usr release ships /usr/lib only: its programs still name
	# /lib64/ld-linux-x86-64.so.2 (base-files makes these links).
	for d in bin sbin lib lib64; do
		if [ ! -e "$dir/$d" ] && [ ! -L "$dir/$d" ] && [ -d "$dir/usr/$d" ]; then
			ln -s "usr/$d" "$dir/$d"
		fi
	done
	# dash's maintainer script makes /bin/sh, which make's recipes run
	if [ -e "$dir/bin/dash" ] && [ ! -e "$dir/bin/sh" ]; then
		ln -s dash "$dir/bin/sh"
	fi
	# npusim's driver is /dev/null; HOME for the agent's socket
	# (and /t, where a test mounts what it runs)
	mkdir -p "$dir/dev" "$dir/tmp" "$dir/root" "$dir/t"
	chmod 1777 "$dir/tmp"
	mknod -m 666 "$dir/dev/null" c 1 3
	touch "$dir/.done"
}

missing=0
while read -r name rel arch python pkgs; do
	case $wanted in *" $name "*) ;; *) continue ;; esac
	if [ ! -e "$cache/$name/.done" ]; then
		unpack "$name" "$rel" "$arch" "$pkgs" || { missing=1; continue; }
	fi
	if [ ! -e "$cache/$name$python" ] && [ ! -L "$cache/$name$python" ]; then
		echo "pyroots: $name has no $python" >&2
		missing=1
		continue
	fi
	echo "pyroot $name $python $cache/$name"
done <<<"$roots"
exit $missing
