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
# Exits with pdsh's status: non-zero when a node had no FIFO there or did
# not take the line within 5 s (a FIFO an msprof killed left behind).
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
# the node's short name is put in here.  The FIFO must be there (a write
# never makes a file: conv=nocreat) and is not followed if a link.
# shellcheck disable=SC2016 # expanded by the node's shell, not this one
write='f=$1
case $f in *%[h]*) f=$(printf %s "$f" | sed "s/%[h]/$(hostname -s)/g") ;; esac
if ! [ -p "$f" ] || [ -L "$f" ]; then
	echo "no msprof control FIFO at $f" >&2
	exit 1
fi
printf "%s\n" "$2" | timeout 5 dd of="$f" conv=nocreat oflag=nofollow status=none ||
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
