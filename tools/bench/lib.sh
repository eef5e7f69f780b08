# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# make bench's shell helpers, sourced by the parts that drive
# build/tools/call_driver.  The sourcing script sets BENCH (its name, for
# messages), work (its temporary directory), LOOP_S (a driver loop's
# bound), and driver (the driver's pid) before it calls one_loop, and may
# set LOOP_FIELD (the driver's figure one_loop takes: ns_per_call, the
# default, is wall-clock; cpu_ns_per_call is the driver's CPU time, which
# the machine's other work does not stretch); helper is the pid of what is
# attached to the driver (floor, bpftrace, msprof) while it runs.
# shellcheck disable=SC2034,SC2154  # last and rate are the caller's; work too
helper=

# gone PID SECONDS: until PID has ended, SECONDS at most.
gone() {
	for _ in $(seq $(($2 * 20))); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	return 1
}

# Ends what the script started and still runs, by pid (TERM, then KILL
# after 5 s), and removes its directory; for trap ... EXIT.
finish() {
	local p
	exec 3>&-	# a prompt's fifo, if the script had one open
	for p in $helper ${driver:-}; do
		kill "$p" 2>/dev/null
		gone "$p" 5 || kill -KILL "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -rf "$work"
}

fail() {
	echo "$BENCH: $*" >&2
	exit 1
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

# start_driver: a call_driver of CALLS calls a loop, waiting for its first
# SIGUSR1; sets driver.
start_driver() {
	"$TOOLS/call_driver" "$CALLS" >"$work/driver.log" 2>&1 &
	driver=$!
	await "$work/driver.log" 'waiting for SIGUSR1' 10 "$driver"
}

# one_loop: releases the driver once; sets last to its LOOP_FIELD and
# rate to the calls a second of all its threads.
one_loop() {
	local n line
	n=$(grep -c '^calls ' "$work/driver.log")
	kill -USR1 "$driver"
	for _ in $(seq $((LOOP_S * 20))); do
		[ "$(grep -c '^calls ' "$work/driver.log")" -gt "$n" ] && break
		kill -0 "$driver" 2>/dev/null || fail "the driver ended: $(cat "$work/driver.log")"
		sleep 0.05
	done
	[ "$(grep -c '^calls ' "$work/driver.log")" -gt "$n" ] ||
		fail "the driver's loop took more than $LOOP_S s"
	line=$(grep '^calls ' "$work/driver.log" | tail -1)
	last=$(sed -n "s/^calls .* ${LOOP_FIELD:-ns_per_call} \\([0-9.]*\\) .*/\\1/p" <<<"$line")
	rate=$(sed -n 's/.* calls_per_s \([0-9]*\)$/\1/p' <<<"$line")
}

# msprof_loop OUT [ARGS...]: one window of msprof (given ARGS too)
# collecting the driver's calls to $FUNC in $LIB around one loop, into
# OUT; quits after it.
msprof_loop() {
	rm -f "$work/cmd"
	mkfifo "$work/cmd" || fail "mkfifo $work/cmd"
	"$MSPROF" --dynamic=on --host-only=on --uprobe="$(basename "$LIB" .so):$FUNC" \
		--ascendcl=off --pid="$driver" --output="$1" "${@:2}" \
		<"$work/cmd" >"$work/msprof.log" 2>&1 &
	helper=$!
	exec 3>"$work/cmd"
	await "$work/msprof.log" 'attached to pid' 30 "$helper"
	echo start >&3
	await "$work/msprof.log" 'collection started' 30 "$helper"
	one_loop
	echo stop >&3
	await "$work/msprof.log" 'collection stopped' 60 "$helper"
	echo quit >&3
	exec 3>&-
	end_helper msprof
}
