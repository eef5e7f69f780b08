# SPDX-License-Identifier: MIT
# shellcheck shell=sh
# Sourced by tools/gen-vmlinux-h.sh, tools/kernels/fetch.sh and
# tools/pyroots.sh: apt on a private configuration in a folder of the
# caller's, so that the host's own sources, package state and cache are
# neither used nor changed.

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

# apt_private_download DIR DEST PKG...: the PKGs' .debs into DEST (apt-get
# options may come first among them).  apt downloads as _apt where it can,
# so that user is given DEST (every folder above it must let _apt through).
apt_private_download() {
	_ap_dir=$1 _ap_dest=$2
	shift 2
	if [ "$(id -u)" -eq 0 ] && id _apt >/dev/null 2>&1; then
		chown _apt "$_ap_dest"
	fi
	(cd "$_ap_dest" && apt_private "$_ap_dir" apt-get download "$@")
}

# apt_host_mirror ARCHIVE: the first URI in the host's own apt sources
# (/etc/apt/sources.list, sources.list.d/*.list and *.sources, binary and
# enabled entries only) whose path
# ends in /ARCHIVE ("debian", "debian-security"), without a trailing slash,
# so that no mirror's name is written in the tree; fails, printing
# nothing, when none is configured.
apt_host_mirror() {
	{
		for _am_f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$_am_f" ] || continue
			sed -n 's/^[[:space:]]*deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]\{1,\}\)\{0,1\}\([^[:space:]]\{1,\}\).*/\2/p' "$_am_f"
		done
		for _am_f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$_am_f" ] || continue
			# deb822: a stanza's URIs count if its Types hold deb and it
			# is not Enabled: no; stanzas end at a blank line.
			awk 'function flush() { if (deb && on) printf "%s", uris; uris = ""; deb = 0; on = 1 }
			     BEGIN { on = 1 }
			     /^[[:space:]]*$/ { flush(); next }
			     tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
			     tolower($1) == "enabled:" { on = tolower($2) != "no" }
			     tolower($1) == "uris:" { for (i = 2; i <= NF; i++) uris = uris $i "\n" }
			     END { flush() }' "$_am_f"
		done
	} | sed 's#/*$##' | grep -m1 "^[a-z+]*://[^/]*\(/.*\)\{0,1\}/$1\$"
}
