#!/bin/bash
# The simulated runtime's CANN raw files: a window of npu_sample holding
# more than 65536 tasks on one stream, so its 16-bit task ids wrap.
# check_cann_raw.py (written from the format sheet) checks that every
# stars start has its end, the ids wrap with a flip on both sides, every
# device task has its task_track with the same (stream, task, batch) and
# every type and hash id is named; then a window whose slices are made
# small keeps whole records in every slice.
source tests/e2e/lib.sh

# Stream 0 takes three tasks a step (vector_add, relu, the copy back).
STEPS=22000
PROFILING_MODE=dynamic start_waiting "$WORK/task.out" "$SAMPLE" --steps $STEPS --step-ms 0 --wait-signal
window_to_exit "$WORK/msprof.log" 300 --dynamic=on --runtime-api=on --pid="$TASK_PID" --output="$WORK/out"
msprof_close
check "msprof finishes when the task exits" [ $? -eq 0 ]
show "$WORK/msprof.log"
d=$(prof_dirs "$WORK/out")
check "no task_time.data of ours for npusim" [ ! -e "$d/device_0/data/task_time.data" ]
check "stars_soc and task_track written" [ -s "$d/device_0/data/stars_soc.data.0.slice_0" -a \
	-s "$d/host/data/aging.compact.task_track.slice_0" ]
check "slices rotated at 2 MiB" [ -s "$d/device_0/data/stars_soc.data.0.slice_1" ]
check "nothing lost" [ "$(jq '.lost + .host_lost + .host_refused' "$d/agent_stats_npusim.json")" = 0 ]
python3 tests/e2e/check_cann_raw.py "$d" --min-tasks $((4 * STEPS)) --min-flips 1 >"$WORK/raw.json"
check "the raw files agree with each other (check_cann_raw.py)" [ $? -eq 0 ]
show "$WORK/raw.json"
check "every task is there: 4 a step, 3 of them on stream 0" [ "$(jq .device_tasks "$WORK/raw.json")" = $((4 * STEPS)) ]
check "one flip, on stream 0" [ "$(jq '[.flips, .max_batch] | join(",")' "$WORK/raw.json")" = '"1,1"' ]
check "an acl record a call, a runtime record a submit" [ "$(jq '.runtime == .device_tasks and .acl > .device_tasks' "$WORK/raw.json")" = true ]
check "node launches with their info and shapes" [ "$(jq '.node == .node_basic_info and .node == .tensor_info and .node == 3 * '$STEPS "$WORK/raw.json")" = true ]

# Slices of 1000 bytes: no record is ever split between two.
MSPROF_TEST_SLICE_BYTES=1000 PROFILING_MODE=dynamic start_waiting "$WORK/small.out" "$SAMPLE" --steps 20 --step-ms 0 --wait-signal
window_to_exit "$WORK/small.log" 60 --dynamic=on --pid="$TASK_PID" --output="$WORK/small"
msprof_close
d=$(prof_dirs "$WORK/small")
n=$(ls "$d/host/data" | grep -c '^aging\.compact\.task_track\.slice_')
check "small slices: many of them ($n)" [ "$n" -gt 2 ]
check "each at most 1000 bytes" [ -z "$(find "$d" -name '*.slice_*' -size +1000c)" ]
python3 tests/e2e/check_cann_raw.py "$d" --min-tasks 80 >/dev/null
check "whole records in every slice, all still agreeing" [ $? -eq 0 ]
