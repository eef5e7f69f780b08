# SPDX-License-Identifier: MIT
# What make bench's per-call parts (tools/bench_calls.sh, bench_idle.sh)
# share: bounded waits and the per-call driver.  The sourcing script sets
# BENCH (its name, for messages), work (its scratch directory), CALLS and
# LOOP_S, and may set LOOP_FIELD (the driver's figure one_loop takes:
# ns_per_call, wall-clock, or cpu_ns_per_call, the driver's CPU time);
# driver is the running driver's pid.

fail() {
	echo "$BENCH: $*" >&2
	exit 1
}

# gone PID SECONDS: until PID has ended, SECONDS at most.
gone() {
	for _ in $(seq $(($2 * 20))); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	return 1
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

# start_driver: a call_driver of CALLS calls a loop, waiting for its first
# SIGUSR1; sets driver.
start_driver() {
	"$TOOLS/call_driver" "$CALLS" >"$work/driver.log" 2>&1 &
	driver=$!
	await "$work/driver.log" 'waiting for SIGUSR1' 10 "$driver"
}

# one_loop: releases the driver once; sets last to its LOOP_FIELD.
one_loop() {
	local n
	n=$(grep -c '^calls ' "$work/driver.log")
	kill -USR1 "$driver"
	for _ in $(seq $((LOOP_S * 20))); do
		[ "$(grep -c '^calls ' "$work/driver.log")" -gt "$n" ] && break
		kill -0 "$driver" 2>/dev/null || fail "the driver ended: $(cat "$work/driver.log")"
		sleep 0.05
	done
	[ "$(grep -c '^calls ' "$work/driver.log")" -gt "$n" ] ||
		fail "the driver's loop of $CALLS calls took more than $LOOP_S s"
	last=$(sed -n "s/^calls .* ${LOOP_FIELD:-ns_per_call} \\([0-9.]*\\) .*/\\1/p" \
		"$work/driver.log" | tail -1)
}
