#!/bin/bash
# --host-sys=osrt on build/tests/hostsys_cases (host only: it has no
# agent), a window around all of its work: exactly its `expect` counts of
# each syscall and pthread call in msprof's raw files (host_syscall.data,
# host_pthreadcall.data, each begun with its sentinel at start_info's
# time), in our osrt_statistic, the OS Runtime API track and OSRT_API; on
# the names msprof keeps, in os_runtime_statistic too (and equal to what
# Huawei's analysis makes of a copy, where it is at hand); the waiter's
# pthread_mutex_lock kept with about the holder's 100 ms, the short locks
# not kept at the default --osrt-threshold and kept with 0; a target that
# exits in the window; no osrt without the switch; a task's driver
# ioctls once each among its syscalls.
# shellcheck disable=SC2016  # the $names in jq programs are jq's
source tests/e2e/lib.sh

CASES=$PWD/build/tests/hostsys_cases
PY=/usr/bin/python3
HW=${HW_ANALYSIS:-/tmp/hw/analysis}
SYSCALLS=(write read getppid openat close clock_nanosleep prctl)
PTHREAD=(pthread_mutex_init pthread_attr_init pthread_create pthread_join)
# Of them, what msprof's list and ltrace keep (getppid and close it drops).
MSPROF_NAMES=(write read openat clock_nanosleep prctl "${PTHREAD[@]}")

# cases_window NAME WAIT ARGS...: hostsys_cases --wait WAIT attached with
# --host-sys=osrt ARGS, one window from before its SIGUSR1 to after its
# work (WAIT start: to its exit), exported with --type=db; sets d and
# writes check_osrt.py's reading to $WORK/NAME.json.
cases_window() {
	local name=$1 wait=$2
	shift 2
	"$CASES" --wait "$wait" >"$WORK/$name.task" 2>&1 &
	TASK_PID=$!
	PIDS_TO_KILL+=("$TASK_PID")
	wait_for "$WORK/$name.task" ready || return 1
	msprof_open "$WORK/$name.log" --dynamic=on --host-only=on --pid="$TASK_PID" \
		--output="$WORK/$name" "$@"
	say start
	wait_for "$WORK/$name.log" "collection started" 30
	kill -USR1 "$TASK_PID"
	if [ "$wait" = start ]; then
		wait_pid "$TASK_PID" 60
	else
		wait_for "$WORK/$name.task" "hostsys_cases done" 60
	fi
	say stop
	wait_for "$WORK/$name.log" "collection stopped" 60
	say quit
	msprof_close
	check "$name: msprof exits 0" [ $? -eq 0 ]
	if [ "$wait" = both ]; then
		kill -USR1 "$TASK_PID"
		wait_pid "$TASK_PID" 30
	fi
	show "$WORK/$name.log"
	d=$(prof_dirs "$WORK/$name")
	"$MSPROF" --export=on --type=db --output="$d" >"$WORK/$name.export" 2>&1
	check "$name: exported" [ $? -eq 0 ]
	"$PY" tests/e2e/check_osrt.py "$d" >"$WORK/$name.json"
}

# got NAME [JQ-ARGS...] JQ: a value of check_osrt.py's reading of window NAME.
got() {
	local w=$1
	shift
	jq -r "$@" "$WORK/$w.json"
}

expect() {	# expect NAME: the task's count of NAME
	sed -n "s/^expect $1 //p" "$WORK/osrt.task"
}

# exact NAME SOURCE CALL...: each CALL's count in SOURCE is the task's.
exact() {
	local w=$1 src=$2 c bad=
	shift 2
	for c in "$@"; do
		[ "$(got "$w" ".${src}[\"$c\"] // 0")" = "$(expect "$c")" ] ||
			bad+=" $c=$(got "$w" ".${src}[\"$c\"] // 0")/$(expect "$c")"
	done
	check "$w: $src: every call's count exact${bad:+ (got/want:$bad)}" [ -z "$bad" ]
}

cases_window osrt both --host-sys=osrt
for src in raw ours track db; do
	exact osrt "$src" "${SYSCALLS[@]}" "${PTHREAD[@]}"
done
exact osrt msprof "${MSPROF_NAMES[@]}"
check "os_runtime_statistic leaves out what msprof's list does (getppid, close)" \
	[ "$(got osrt '[.msprof.getppid, .msprof.close] | map(. // 0) | add')" = 0 ]
check "both files begin with the sentinel at start_info's clockMonotonicRaw" \
	[ "$(got osrt '.sentinels | length == 2 and all')" = true ]
ns_pid=$(jq -r .pid "$d/host/info.json")
check "the OS Runtime API process: sort index 13, pid $ns_pid << 10 | 13 << 5 | 31" \
	[ "$(got osrt '[.osrt_sort, .osrt_pid] | join(" ")')" = "13 $((ns_pid << 10 | 13 << 5 | 31))" ]
hold_us=$(($(expect hold_ms) * 1000))
waiter=$(got osrt '.threads.waiter[0]')
check "at the default threshold one pthread_mutex_lock is kept: the waiter's ($(got osrt -c .locks))" \
	[ "$(got osrt --argjson w "${waiter:-0}" '[.locks[] | select(.[0] == $w)] | length') $(got osrt '.locks | length')" = "1 1" ]
check "it blocked about the holder's $(expect hold_ms) ms" \
	[ "$(got osrt --argjson h $hold_us '.locks[0][1] >= 0.95 * $h and .locks[0][1] < 3 * $h')" = true ]
check "the short locks it left are said" grep -Eq "^msprof: [1-9][0-9]* lock and wait calls waited less than --osrt-threshold=1 us: not kept" "$WORK/osrt.log"
check "the stop line counts the calls" grep -Eq "OS runtime: [0-9]+ syscalls, 14 pthread calls, 1 blocking calls" "$WORK/osrt.log"
check "every thread with calls has its row" \
	[ "$(got osrt '.track_threads | length')" = "$(got osrt '[.threads[]] | add | unique | length')" ]

# Huawei's analysis on a copy without our outputs: the same CSV.
if [ -f "$HW/msprof/msprof.py" ]; then
	mkdir -p "$WORK/hw"
	cp -a "$d" "$WORK/hw/"
	hw=$WORK/hw/$(basename "$d")
	rm -rf "$hw/mindstudio_profiler_output" "$hw"/msprof_*.db "$hw"/host/sqlite
	(cd "$HW" && timeout 120 "$PY" msprof/msprof.py export summary -dir "$hw") >"$WORK/hw.log" 2>&1
	theirs=$(ls "$hw"/mindstudio_profiler_output/os_runtime_statistic_*.csv 2>/dev/null | head -1)
	ours=$(ls "$d"/mindstudio_profiler_output/os_runtime_statistic_*.csv | head -1)
	check "Huawei's analysis makes the same os_runtime_statistic, byte for byte" \
		cmp -s "$theirs" "$ours"
else
	skip "os_runtime_statistic against Huawei's analysis" "no $HW"
fi

# Every lock kept with --osrt-threshold=0: the holder's too.
cases_window zero both --host-sys=osrt --osrt-threshold=0
exact zero ours "${SYSCALLS[@]}" "${PTHREAD[@]}"
check "--osrt-threshold=0 keeps the holder's lock too ($(got zero '.locks | length') pthread_mutex_lock)" \
	[ "$(got zero '.locks | length >= 2')" = true ]
check "and more of the blocking calls than the default did" \
	[ "$(got zero '.ours.pthread_mutex_lock // 0')" -gt "$(got osrt '.ours.pthread_mutex_lock // 0')" ]
check "none said short at 0" ! grep -q "waited less than" "$WORK/zero.log"

# The target ends inside the window: all of it is there all the same.
cases_window gone start --host-sys=osrt
check "the exit is said" grep -q "the task exited during the window" "$WORK/gone.log"
exact gone raw "${SYSCALLS[@]}" "${PTHREAD[@]}"
exact gone ours "${SYSCALLS[@]}" "${PTHREAD[@]}"

# Without the switch: no OS runtime calls, no files.
cases_window none both
check "without --host-sys=osrt: no host_syscall.data" [ -z "$(ls "$d"/host/data/host_syscall* 2>/dev/null)" ]
check "no osrt_statistic, no OS Runtime API calls" \
	[ "$(got none '[(.ours | length), (.track | length)] | add')" = 0 ]

# A task's driver ioctls (npu_sample's) stand for their syscalls: once each.
PROFILING_MODE=dynamic start_waiting "$WORK/npu.out" "$SAMPLE" --steps 5 --step-ms 0 --wait-signal
window_to_exit "$WORK/npu.log" 60 --dynamic=on --pid="$TASK_PID" --output="$WORK/npu" --host-sys=osrt
msprof_close
check "npu_sample's window ends" [ $? -eq 0 ]
d=$(prof_dirs "$WORK/npu")
"$MSPROF" --export=on --type=db --output="$d" >"$WORK/npu.export" 2>&1
"$PY" tests/e2e/check_osrt.py "$d" >"$WORK/npu.json"
io=$(jq .host.ioctl_events "$d/msprof_ebpf_window.json")
check "its ioctls: as many lines as slices as rows, the driver's $io among them ($(got npu -c '[.raw.ioctl, .track.ioctl, .db.ioctl, .ours.ioctl]'))" \
	[ "$(got npu --argjson io "$io" '[.raw.ioctl, .track.ioctl, .db.ioctl, .ours.ioctl] | (unique | length == 1) and .[0] >= $io and $io > 0')" = true ]
