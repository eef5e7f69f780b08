#!/bin/sh
# SPDX-License-Identifier: MIT
# Sends one prompt command to the msprof of every node, through pdsh, by
# writing it to the --control FIFO each was started with (docs/cluster.md).
# Usage: msprofctl.sh [-R rcmd] -w hosts [-c path] command...
#   -w hosts  pdsh's host list (node[1-4],gpu7)
#   -c path   the --control path given to msprof; %h is the node's name
#             (default /tmp/msprof.%h.ctl)
#   -R rcmd   pdsh's remote command module (default: pdsh's own, ssh);
#             exec runs each host's write here, with %h the host's name
# Exits with pdsh's status: non-zero when a node had no FIFO there, one
# msprof would not have made (another user's, open to others, in a
# directory others can write), or did not take the line within 5 s (a
# FIFO an msprof killed left behind).
set -eu
usage() {
	echo "usage: $0 [-R rcmd] -w hosts [-c path] command..." >&2
	exit 2
}
rcmd=
hosts=
path=/tmp/msprof.%h.ctl
while getopts R:w:c: opt; do
	case $opt in
	R) rcmd=$OPTARG ;;
	w) hosts=$OPTARG ;;
	c) path=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
if [ -z "$hosts" ] || [ $# -eq 0 ]; then
	usage
fi
line=$*
case $line in
*"
"*) echo "$0: one command line only" >&2; exit 2 ;;
esac
# As msprof bounds a control line.
if [ ${#line} -gt 256 ]; then
	echo "$0: the command is longer than 256 bytes" >&2
	exit 2
fi

# Run on each node.  pdsh's exec module puts the host's name for every
# "%h" in its arguments, so this text spells the pattern %[h]; elsewhere
# the node's short name is put in here; it puts the user's name for "%u"
# too, so stat's formats are spelled through $P.  The FIFO must be msprof's as
# msprof makes it (docs/security.md): a FIFO, not a link, of one link,
# root's or the caller's, no group or other bits; and no one else may have
# put it there or be able to swap it: every directory above it, as the
# path names it and as it resolves, root's or the caller's and writable by
# no one else unless sticky, and a link on the way root's.  A write never
# makes a file (conv=nocreat) nor follows a link.
# shellcheck disable=SC2016 # expanded by the node's shell, not this one
write='f=$1 line=$2 me=$(id -u) P=%
case $f in *%[h]*) f=$(printf %s "$f" | sed "s/%[h]/$(hostname -s)/g") ;; esac
case $f in /*) ;; *) f=$(pwd -P)/$f ;; esac
refuse() { echo "msprof control FIFO $f refused: $1" >&2; exit 1; }
mine() { case $(stat -c "${P}u" -- "$1") in 0 | "$me") return 0 ;; esac; return 1; }
if ! [ -p "$f" ] || [ -L "$f" ]; then
	echo "no msprof control FIFO at $f" >&2
	exit 1
fi
mine "$f" || refuse "it belongs to $(stat -c "${P}U" -- "$f"), not to root or the caller"
case $(stat -c "${P}a" -- "$f") in *00) ;; *) refuse "its group or others have access to it" ;; esac
[ "$(stat -c "${P}h" -- "$f")" = 1 ] || refuse "it has more than one link"
d=$f
while [ "$d" != / ]; do
	d=$(dirname -- "$d")
	if [ -L "$d" ] && [ "$(stat -c "${P}u" -- "$d")" != 0 ]; then
		refuse "$d on its path is a link of another user"
	fi
done
d=$(cd -P -- "$(dirname -- "$f")" && pwd -P) || refuse "its directory cannot be entered"
while :; do
	mine "$d" || refuse "$d above it belongs to another user"
	[ -z "$(find "$d" -maxdepth 0 -perm /022 ! -perm -1000)" ] ||
		refuse "$d above it is writable by others"
	[ "$d" != / ] || break
	d=$(dirname -- "$d")
done
printf "%s\n" "$line" | timeout 5 dd of="$f" conv=nocreat oflag=nofollow status=none ||
	{ echo "msprof at $f did not take the line within 5 s" >&2; exit 1; }'

# A word quoted for the remote shell ssh hands the command to.
quote() {
	printf "'%s'" "$(printf %s "$1" | sed "s/'/'\\\\''/g")"
}

if [ "$rcmd" = exec ]; then
	exec pdsh -S -R exec -w "$hosts" sh -c "$write" msprofctl "$path" "$line"
fi
exec pdsh -S ${rcmd:+-R "$rcmd"} -w "$hosts" \
	"sh -c $(quote "$write") msprofctl $(quote "$path") $(quote "$line")"
