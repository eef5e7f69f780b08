#!/bin/bash
# The developer tools root runs on paths another user may reach:
# tools/kernels/fetch.sh's kernel cache.  Every component of the cache's
# path is checked before root makes or enters it, so that a link planted
# in a sticky directory (as at /tmp/msprof-kernels) to a directory of
# root's, or a directory another user made on the way, is refused before
# anything is written through it.  Nothing here reaches the network: each
# case is refused first.
source tests/e2e/lib.sh

add_user || { skip "developer tool attacks" "cannot add a user"; exit 0; }
chmod 711 "$WORK"
mkdir -m 1777 "$WORK/tmp"		# as /tmp is
mkdir -m 755 "$WORK/roots"		# a directory of root's
fetch_refused() {	# fetch_refused WHAT CACHE NEEDLE
	timeout 60 tools/kernels/fetch.sh "$2" >"$WORK/fetch.out" 2>"$WORK/fetch.err"
	check "fetch.sh, $1: refused, exit non-zero" [ $? -ne 0 ]
	check "  said in one line naming it" [ "$(wc -l <"$WORK/fetch.err")" = 1 ] &&
		grep -q -- "$3" "$WORK/fetch.err" || cat "$WORK/fetch.err"
}
run_as ln -s "$WORK/roots" "$WORK/tmp/msprof-kernels"
fetch_refused "a link to root's directory in its place" "$WORK/tmp/msprof-kernels" \
	"$WORK/tmp/msprof-kernels, on the way to the kernel cache, is a symbolic link"
fetch_refused "a link on the way" "$WORK/tmp/msprof-kernels/cache" \
	"$WORK/tmp/msprof-kernels, on the way to the kernel cache, is a symbolic link"
check "  nothing made or written through the link" [ -z "$(ls -A "$WORK/roots")" ]
run_as mkdir "$WORK/tmp/theirs"
fetch_refused "a directory another user made on the way" "$WORK/tmp/theirs/cache" \
	"$WORK/tmp/theirs, on the way to the kernel cache, belongs to another user"
check "  nothing made in it" [ -z "$(ls -A "$WORK/tmp/theirs")" ]
fetch_refused "a cache others may write" "$WORK/tmp" \
	"$WORK/tmp must be writable by no one but"
mkdir -m 777 "$WORK/open"
fetch_refused "a directory above it others may write" "$WORK/open/cache" \
	"$WORK/open, above the kernel cache, is writable by others"
check "  nothing made in it" [ -z "$(ls -A "$WORK/open")" ]
