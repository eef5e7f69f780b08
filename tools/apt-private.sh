# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Sourced by tools/gen-vmlinux-h.sh and tools/kernels/fetch.sh: apt on a
# private configuration in a folder of the caller's, so that the host's own
# sources, package state and cache are neither used nor changed.

# apt_private_init DIR LINE...: DIR's sources.list holds the LINEs; no state.
apt_private_init() {
	_ap_dir=$1
	shift
	mkdir -p "$_ap_dir/lists/partial" "$_ap_dir/cache/archives/partial"
	printf '%s\n' "$@" >"$_ap_dir/sources.list"
	: >"$_ap_dir/status"
}

# apt_private DIR TOOL ARGS...: apt-get or apt-cache on DIR's configuration.
apt_private() {
	_ap_dir=$1 _ap_tool=$2
	shift 2
	"$_ap_tool" -q -o Dir::Etc::SourceList="$_ap_dir/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$_ap_dir/lists" \
		-o Dir::Cache="$_ap_dir/cache" \
		-o Dir::State::Status="$_ap_dir/status" \
		-o APT::Architectures::=amd64 -o APT::Architectures::=arm64 "$@"
}

# apt_private_download DIR DEST PKG: PKG's .deb into DEST.  apt downloads as
# _apt where it can, so that user is given DEST (every folder above it must
# let _apt through).
apt_private_download() {
	if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then
		chown _apt "$2"
	fi
	(cd "$2" && apt_private "$1" apt-get download "$3")
}
