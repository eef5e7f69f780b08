#!/bin/bash
# Lost data is never silent: with a deliberately tiny ring buffer, and
# msprof's reader held still for a moment (SIGSTOP), a window of known
# calls loses records, and produced = written + lost exactly; stop says
# so, info.json stores it, the timeline shows it.
source tests/e2e/lib.sh

STEPS=2000
PROFILING_MODE=dynamic "$SAMPLE" --steps $STEPS --step-ms 0 --wait-signal >"$WORK/task.out" 2>&1 &
TASK_PID=$!
PIDS_TO_KILL+=("$TASK_PID")
until grep -q 'waiting for SIGUSR1' "$WORK/task.out"; do sleep 0.05; done
mkfifo "$WORK/cmd"
"$MSPROF" --dynamic=on --pid="$TASK_PID" --output="$WORK/out" --buffer-size=4K \
	<"$WORK/cmd" >"$WORK/msprof.log" 2>&1 &
m=$!
exec 3>"$WORK/cmd"
echo start >&3
until grep -q 'collection started' "$WORK/msprof.log"; do sleep 0.05; done
kill -STOP $m
kill -USR1 "$TASK_PID"
sleep 0.3
kill -CONT $m
wait "$TASK_PID"
exec 3>&-
wait $m
cat "$WORK/msprof.log"

d=$(prof_dirs "$WORK/out")
api=$(jq .host.api_events "$d/info.json")
io=$(jq .host.ioctl_events "$d/info.json")
lost=$(jq .host.lost_events "$d/info.json")
# In the window: 8 API calls and 8 ioctls a step, 8 calls and 5 ioctls to
# tear down (see test_exact_counts.sh and npusim_ioctl.h).
produced=$((8 * STEPS + 8 + 8 * STEPS + 5))
check "a 4K buffer loses records ($lost)" [ "$lost" -gt 0 ]
check "produced $produced = written $api + $io + lost $lost" [ $((api + io + lost)) -eq $produced ]
check "stop says how many were lost" grep -q "warning: $lost host events were lost" "$WORK/msprof.log"
"$MSPROF" --export=on --output="$d" >/dev/null
check "the timeline shows the loss" [ "$(timeline "$d" '[.[] | select(.ph=="i") | .args.lost_events] | add')" = "$lost" ]
