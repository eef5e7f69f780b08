#!/bin/bash
# fetch.sh CACHE: downloads the Debian kernels of the matrix into CACHE with a
# private apt configuration (the host's own sources name the archive, but
# neither they nor the host's package state are touched) and extracts each one's /boot; a kernel already extracted is not
# fetched again.
# Prints one line per kernel, "kernel <arch> <release> <extracted dir>", and
# "busybox arm64 <path>" for the arm64 initramfs (the host's busybox-static
# serves x86_64).
set -euo pipefail
# shellcheck source=tools/cache-dir.sh
. "$(dirname "$0")/../cache-dir.sh"
# Root unpacks kernels here and boots them.
cache=$(cache_dir fetch "the kernel cache" "$1") || exit 1
# release:suite list:meta package:architecture
kernels="bullseye:cloud-amd64:amd64 bullseye:arm64:arm64 bookworm:cloud-amd64:amd64 bookworm:arm64:arm64"

# shellcheck source=tools/apt-private.sh
. "$(dirname "$0")/../apt-private.sh"

# The Debian archive and its security archive as this machine's own apt
# sources name them: no mirror is written here.
debian=$(apt_host_mirror debian) || {
	echo "fetch: no Debian archive (a URI ending in /debian) in /etc/apt/sources.list or sources.list.d/" >&2
	exit 1
}
echo "fetch: Debian archive from this machine's apt sources: $debian" >&2
security=
if security=$(apt_host_mirror debian-security); then
	echo "fetch: security archive from this machine's apt sources: $security" >&2
	security="
deb [arch=amd64,arm64] $security bullseye-security main"
else
	echo "fetch: no security archive (a URI ending in /debian-security) in this machine's apt sources: bullseye's kernels from $debian only" >&2
fi
declare -A sources=(
	[bullseye]="deb [arch=amd64,arm64] $debian bullseye main$security"
	[bookworm]="deb [arch=amd64,arm64] $debian bookworm main"
)

# apt_in RELEASE TOOL ARGS...: apt-get/apt-cache on RELEASE's private state.
apt_in() {
	local rel=$1
	shift
	apt_private "$cache/apt/$rel" "$@"
}

updated=""
missing=0
ensure_lists() {	# once per release and run: fresh package lists
	local d=$cache/apt/$1
	case " $updated " in *" $1 "*) return 0 ;; esac
	mapfile -t lines <<<"${sources[$1]}"
	apt_private_init "$d" "${lines[@]}"
	apt_in "$1" apt-get update >"$d/update.log" 2>&1 ||
		{ echo "fetch: apt-get update for $1 failed (see $d/update.log)" >&2; return 1; }
	updated="$updated $1"
}

# candidates REL FLAVOUR ARCH: the image packages the meta package has
# pointed to, newest first, each then as its -unsigned build (a mirror may
# lack one of them).
candidates() {
	apt_in "$1" apt-cache show "linux-image-$2:$3" |
		sed -n 's/^Depends: \(linux-image-[0-9][^ ,:]*\).*/\1/p' |
		while read -r p; do echo "$p"; echo "$p-unsigned"; done
}

# download DIR REL PKG...: the first of PKG... that downloads, into DIR.
# apt downloads as _apt where it can: that user must be able to write DIR.
download() {
	local dir=$1 rel=$2 p
	shift 2
	for p in "$@"; do
		apt_private_download "$cache/apt/$rel" "$dir" "$p" && return 0
	done
	return 1
}

mkdir -p "$cache/debs"
for k in $kernels; do
	IFS=: read -r rel flavour arch <<<"$k"
	stamp=$cache/$rel-$flavour.pkg	# what was extracted, for offline reruns
	if [ -s "$stamp" ] && [ -e "$cache/$(cat "$stamp")/.done" ]; then
		echo "kernel $arch $(cat "$stamp") $cache/$(cat "$stamp")"
		continue
	fi
	ensure_lists "$rel" || { missing=1; continue; }
	mapfile -t pkgs < <(candidates "$rel" "$flavour" "$arch" | sed "s/\$/:$arch/")
	[ ${#pkgs[@]} -gt 0 ] ||
		{ echo "fetch: cannot find linux-image-$flavour for $rel $arch" >&2; missing=1; continue; }
	tmp=$cache/debs/$rel-$flavour
	rm -rf "$tmp"
	mkdir -p "$tmp"
	download "$tmp" "$rel" "${pkgs[@]}" >"$tmp.log" 2>&1 ||
		{ echo "fetch: cannot download any of ${pkgs[*]} (see $tmp.log)" >&2; missing=1; continue; }
	deb=$(ls "$tmp"/*.deb)
	case $(basename "$deb") in
	"${pkgs[0]%:*}"_*) ;;
	*) echo "fetch: note: ${pkgs[0]%:*} is not downloadable (see $tmp.log), took $(basename "$deb")" >&2 ;;
	esac
	kver=$(basename "$deb" | sed -e 's/^linux-image-//' -e 's/_.*//' -e 's/-unsigned$//')
	# It names a folder that root boots from: nothing but a release.
	if ! [[ $kver =~ ^[0-9][0-9A-Za-z.+~-]*$ ]]; then
		echo "fetch: $(basename "$deb") does not name a kernel release" >&2
		missing=1
		continue
	fi
	dir=$cache/$kver
	rm -rf "$dir"
	mkdir -p "$dir"
	# the kernel, its config and System.map: the VMs need no modules
	dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dir" ./boot
	rm -rf "$tmp"	# the extracted tree is the cache
	touch "$dir/.done"
	echo "$kver" >"$stamp"
	echo "kernel $arch $kver $dir"
done

bb=$cache/busybox-arm64
if [ ! -e "$bb/.done" ] && ! ensure_lists bookworm; then
	missing=1
elif [ ! -e "$bb/.done" ]; then
	rm -rf "$bb"
	mkdir -p "$bb/deb"
	if download "$bb/deb" bookworm busybox-static:arm64 >"$bb.log" 2>&1; then
		dpkg-deb -x "$bb"/deb/*.deb "$bb" && rm -rf "$bb/deb" && touch "$bb/.done"
	else
		echo "fetch: cannot download busybox-static:arm64 (see $bb.log)" >&2
		missing=1
	fi
fi
[ -e "$bb/.done" ] && echo "busybox arm64 $bb/bin/busybox"
# A kernel left out of the matrix fails it, even if the others pass.
exit $missing
