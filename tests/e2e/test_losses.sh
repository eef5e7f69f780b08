#!/bin/bash
# Lost data is never silent: with a deliberately tiny ring buffer, and
# msprof's reader held still for a moment (SIGSTOP), a window of known
# calls loses records, and produced = written + lost exactly; stop says
# so, the window's account stores it, the timeline shows it.
source tests/e2e/lib.sh

STEPS=2000
# A second target that makes no call in the window: its window loses
# nothing, whatever the busy one lost.
PROFILING_MODE=dynamic start_waiting "$WORK/idle.out" "$SAMPLE" --wait-signal
IDLE_PID=$TASK_PID
PROFILING_MODE=dynamic start_waiting "$WORK/task.out" "$SAMPLE" --steps $STEPS --step-ms 0 --wait-signal
msprof_open "$WORK/msprof.log" --dynamic=on --pid="$TASK_PID,$IDLE_PID" --output="$WORK/out" --buffer-size=4K
say start
wait_for "$WORK/msprof.log" "collection started"
kill -STOP "$MSPROF_PID"
kill -USR1 "$TASK_PID"
sleep 0.3
kill -CONT "$MSPROF_PID"
wait_pid "$TASK_PID" 60
msprof_close
show "$WORK/msprof.log"

d=$(prof_dirs "$WORK/out" | grep "_0*${TASK_PID}[A-Z]*$")
idle=$(prof_dirs "$WORK/out" | grep "_0*${IDLE_PID}[A-Z]*$")
check "the task that exited in the window has its device metadata" \
	[ -f "$d/device_0/info.json.0" ] && [ -f "$d/device_0/start_info.0" ]
check "the idle target's window loses nothing" [ "$(jq .host.lost_events "$idle/msprof_ebpf_window.json")" = 0 ]
api=$(jq .host.api_events "$d/msprof_ebpf_window.json")
io=$(jq .host.ioctl_events "$d/msprof_ebpf_window.json")
lost=$(jq .host.lost_events "$d/msprof_ebpf_window.json")
# In the window: 8 API calls and 8 ioctls a step, 8 calls and 5 ioctls to
# tear down (see test_exact_counts.sh and npusim_ioctl.h).
produced=$((8 * STEPS + 8 + 8 * STEPS + 5))
check "a 4K buffer loses records ($lost)" [ "$lost" -gt 0 ]
check "produced $produced = written $api + $io + lost $lost" [ $((api + io + lost)) -eq $produced ]
check "stop says how many were lost" grep -q "warning: $lost host events were lost" "$WORK/msprof.log"
"$MSPROF" --export=on --output="$d" >/dev/null 2>"$WORK/export.err"
check "export exits non-zero: less than the window was exported" [ $? -ne 0 ]
check "export says how many were lost" grep -q "$lost host events were lost in the window" "$WORK/export.err"
check "the timeline shows the loss" [ "$(timeline "$d" '[.[] | select(.ph=="i") | .args.lost_events] | add')" = "$lost" ]
