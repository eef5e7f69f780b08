# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# make bench's shell helpers: arguments, bounded waits on what a part
# starts, the per-call driver (build/tools/call_driver) and an interactive
# msprof driven through a fifo.  The sourcing script sets BENCH (its name,
# for messages), work (its temporary directory), and, for the driver,
# TOOLS, CALLS, LOOP_S (a loop's bound), maybe DRIVER (an array: the
# driver's command before CALLS, build/tools/call_driver by default; any
# driver that prints call_driver's lines will do, such as
# tools/bench/py_driver.py) and maybe LOOP_FIELD (the figure one_loop
# takes: ns_per_call, the default, is wall-clock; cpu_ns_per_call is the
# driver's CPU time, which the machine's other work does not stretch);
# driver is the driver's pid, helper the pid of what the current setting
# runs beside it (floor, bpftrace, msprof), while it runs.
# shellcheck disable=SC2034,SC2154  # last, rate, loop_line are the caller's; work too
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
	if [ "$CALLS" -lt 1 ] || [ "$ROUNDS" -lt 1 ]; then
		fail "CALLS and ROUNDS must be at least 1"
	fi
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

# Ends what the script started and still runs, by pid, and removes its
# directory; for trap ... EXIT.
finish() {
	exec 3>&-	# msprof's fifo, if one is open
	# shellcheck disable=SC2086  # each holds pids or nothing
	stop_pids $helper ${driver:-}
	wait 2>/dev/null
	rm -rf "$work"
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

# start_driver: a driver (DRIVER) of CALLS calls a loop, waiting for its
# first SIGUSR1; sets driver.
start_driver() {
	local -a cmd=("$TOOLS/call_driver")
	[ -n "${DRIVER+set}" ] && cmd=("${DRIVER[@]}")
	"${cmd[@]}" "$CALLS" >"$work/driver.log" 2>&1 &
	driver=$!
	await "$work/driver.log" 'waiting for SIGUSR1' 10 "$driver"
}

# loop_field NAME: the figure NAME (ns_per_call, cpu_ns_per_call) of the
# last loop's line.
loop_field() {
	sed -n "s/^calls .* $1 \\([0-9.]*\\) .*/\\1/p" <<<"$loop_line"
}

# one_loop: releases the driver once; sets loop_line to the line it
# printed, last to its LOOP_FIELD and rate to the calls a second of all
# its threads.
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
		fail "the driver's loop took more than $LOOP_S s"
	loop_line=$(grep '^calls ' "$work/driver.log" | tail -1)
	last=$(loop_field "${LOOP_FIELD:-ns_per_call}")
	rate=$(sed -n 's/.* calls_per_s \([0-9]*\)$/\1/p' <<<"$loop_line")
}

# floor_loop: one loop with build/tools/floor's empty uprobe and
# uretprobe on the driver's $FUNC in $LIB: the traps and nothing else.
floor_loop() {
	"$TOOLS/floor" "$LIB" "$FUNC" "$driver" >"$work/floor.log" 2>&1 &
	helper=$!
	await "$work/floor.log" 'floor attached' 30 "$helper"
	one_loop
	end_helper floor INT
}

# host_sum DIR FIELD: the sum of FIELD of the host accounts of DIR's
# windows (msprof_ebpf_window.json's "host").
host_sum() {
	jq -s "map(.host.$2) | add" "$1"/PROF_*/msprof_ebpf_window.json
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

# msprof_loop OUT [ARG...]: one window of msprof (given ARGs too)
# collecting the driver's calls to $FUNC in $LIB around one loop, into
# OUT; quits after it.
msprof_loop() {
	msprof_open --host-only=on --uprobe="$(basename "$LIB" .so):$FUNC" \
		--ascendcl=off --pid="$driver" --output="$1" "${@:2}"
	msprof_say start 'collection started' 30
	one_loop
	msprof_say stop 'collection stopped' 60
	msprof_quit
}

# sample_pair OUT [ARG...]: two npu_sample processes (SAMPLE, SAMPLE_STEPS
# steps each, no padding, PROFILING_MODE=dynamic) released together inside
# one window of msprof (ARGs too) into OUT, which ends with them; sets
# sample_ms, the longer of their loops.
sample_pair() {
	local out=$1 i p
	shift
	sample_pids=
	for i in 1 2; do
		PROFILING_MODE=dynamic "$SAMPLE" --steps "$SAMPLE_STEPS" --step-ms 0 \
			--wait-signal >"$work/sample$i.log" 2>&1 &
		sample_pids+="$! "
	done
	driver=$sample_pids	# finish() ends them too
	for i in 1 2; do
		await "$work/sample$i.log" 'waiting for SIGUSR1' 30 "$(cut -d' ' -f"$i" <<<"$sample_pids")"
	done
	msprof_open --pid="$(tr ' ' ',' <<<"${sample_pids% }")" --output="$out" "$@"
	for i in 1 2; do
		await "$work/msprof.log" "attached to pid $(cut -d' ' -f"$i" <<<"$sample_pids") " 30 "$helper"
	done
	msprof_say start 'collection started' 30
	# shellcheck disable=SC2086
	kill -USR1 $sample_pids
	for p in $sample_pids; do
		gone "$p" $((60 + SAMPLE_STEPS / 100)) || fail "npu_sample $p still runs"
		wait "$p" || fail "npu_sample $p exited with status $?"
	done
	driver=
	msprof_say stop 'collection stopped' 120
	# With its targets gone msprof ends by itself: a quit would meet a
	# closed pipe.
	exec 3>&-
	end_helper msprof
	sample_ms=$(sed -n 's/^steps [0-9]* loop_ms \([0-9.]*\)$/\1/p' "$work"/sample[12].log |
		sort -g | tail -1)
}
