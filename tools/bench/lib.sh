# Sourced by make bench's scripts: their arguments, waiting on what they
# start, and driving an interactive msprof through a fifo.  The script sets
# BENCH (its name, for messages), CALLS, ROUNDS and MSPROF, and work (its
# temporary directory) once need_tools has passed; helper is the pid of
# the tool the current setting runs, while it runs.
helper=

fail() {
	echo "$BENCH: $*" >&2
	exit 1
}

# need_tools FILE...: each is built, and CALLS and ROUNDS are sizes.
need_tools() {
	local f
	for f in "$@"; do
		[ -x "$f" ] || fail "$f is missing: make all ${f#"$PWD"/}"
	done
	case "$CALLS$ROUNDS" in
	*[!0-9]*) fail "CALLS and ROUNDS are whole numbers" ;;
	esac
	[ "$ROUNDS" -gt 0 ] || fail "ROUNDS must be at least 1"
}

# gone PID SECONDS: until PID has ended, SECONDS at most.
gone() {
	for _ in $(seq $(($2 * 20))); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	return 1
}

# stop_pids PID...: ends each (TERM, then KILL after 5 s).
stop_pids() {
	local p
	for p in "$@"; do
		kill "$p" 2>/dev/null
		gone "$p" 5 || kill -KILL "$p" 2>/dev/null
	done
}

# await FILE TEXT SECONDS [PID]: until FILE holds TEXT; fails the bench
# after SECONDS, or as soon as PID (the process that should write it) ends.
await() {
	for _ in $(seq $(($3 * 20))); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		[ -n "${4:-}" ] && ! kill -0 "$4" 2>/dev/null && break
		sleep 0.05
	done
	echo "$BENCH: no '$2' in $1 (${4:+its writer ended or }$3 s passed):" >&2
	cat "$1" >&2
	exit 1
}

# end_helper WHAT [SIGNAL]: sends the helper SIGNAL (none: it ends on its
# own) and waits for its end, 30 s at most; fails the bench unless it
# exits 0.
end_helper() {
	[ -n "${2:-}" ] && kill "-$2" "$helper" 2>/dev/null
	gone "$helper" 30 || fail "$1 still running 30 s after ${2:-quit}"
	wait "$helper" || fail "$1 exited with status $?: $(cat "$work/$1.log")"
	helper=
}

# msprof_open ARG...: msprof --dynamic=on ARG... as the helper, reading
# its commands from fd 3, once it has attached; its output goes to
# $work/msprof.log.
msprof_open() {
	rm -f "$work/cmd"
	mkfifo "$work/cmd" || fail "mkfifo $work/cmd"
	"$MSPROF" --dynamic=on "$@" <"$work/cmd" >"$work/msprof.log" 2>&1 &
	helper=$!
	exec 3>"$work/cmd"
	await "$work/msprof.log" 'attached to pid' 30 "$helper"
}

# msprof_say COMMAND TEXT SECONDS: until msprof has answered with TEXT.
msprof_say() {
	echo "$1" >&3
	await "$work/msprof.log" "$2" "$3" "$helper"
}

msprof_quit() {
	echo quit >&3
	exec 3>&-
	end_helper msprof
}
