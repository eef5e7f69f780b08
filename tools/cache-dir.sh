# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Sourced by tools/kernels/fetch.sh and tools/pyroots.sh: the folder root
# unpacks downloaded packages into and then boots or runs them from.

# cache_dir TOOL WHAT PATH: makes PATH (absolute, or from here) if need be
# and prints it; refuses, in one line "TOOL: ..." naming WHAT ("the kernel
# cache"), a cache someone else could write to (say under /tmp).  Every
# directory above it counts too: whoever can rename one could swap the
# cache for their own while root works in it.  Each component is checked
# before it is made or entered, so that a link or a directory another user
# put on the way (a link at /tmp/msprof-kernels to a directory of root's,
# say) is refused before root writes anything through it.  Run it in a
# subshell: a refusal exits.
cache_dir() {
	local tool=$1 what=$2 cache=$3 p d i
	local -a parts names=()
	case $cache in /*) ;; *) cache=$(pwd -P)/$cache ;; esac
	IFS=/ read -ra parts <<<"$cache"
	for p in "${parts[@]}"; do
		case $p in
		"" | .) ;;
		..) _cache_refuse "$cache: a path with .. is not taken" ;;
		*) names+=("$p") ;;
		esac
	done
	[ ${#names[@]} -gt 0 ] || _cache_refuse "$what cannot be /"
	d=
	_cache_check / above
	for i in "${!names[@]}"; do
		d=$d/${names[$i]}
		# mkdir, not -p: something made there meanwhile fails it, is not used.
		[ -e "$d" ] || [ -L "$d" ] || mkdir -m 755 "$d" || exit 1
		if [ "$i" -eq $((${#names[@]} - 1)) ]; then
			_cache_check "$d" last
		else
			_cache_check "$d" above
		fi
	done
	echo "$d"
}

_cache_refuse() {	# uses cache_dir's tool
	echo "$tool: $1" >&2
	exit 1
}

# _cache_check DIR LAST: DIR is a directory, no link, root's or ours, and
# writable by no one else (one above the cache: unless sticky).
_cache_check() {
	[ ! -L "$1" ] || _cache_refuse "$1, on the way to $what, is a symbolic link"
	[ -d "$1" ] || _cache_refuse "$1, on the way to $what, is not a directory"
	case $(stat -c %u "$1") in 0 | "$(id -u)") ;; *)
		_cache_refuse "$1, on the way to $what, belongs to another user" ;;
	esac
	if [ "$2" = last ]; then
		[ -z "$(find "$1" -maxdepth 0 -perm /022)" ] ||
			_cache_refuse "$1 must be writable by no one but $(id -un)"
	elif [ -n "$(find "$1" -maxdepth 0 -perm /022 ! -perm -1000)" ]; then
		_cache_refuse "$1, above $what, is writable by others"
	fi
}
