#!/bin/bash
# A window that holds a known stretch of the task sees exactly its calls:
# npu_sample starts its steps on SIGUSR1, after the window opened, and ends
# inside it, so every per-step and teardown call must be in the PROF_ dir.
source tests/e2e/lib.sh

STEPS=57
PROFILING_MODE=dynamic start_waiting "$WORK/task.out" "$SAMPLE" --steps $STEPS --step-ms 0 --wait-signal
window_to_exit "$WORK/msprof.log" 60 --dynamic=on --pid="$TASK_PID" --output="$WORK/out"
msprof_close
check "msprof finishes when the task exits" [ $? -eq 0 ]
show "$WORK/msprof.log"

d=$(prof_dirs "$WORK/out")
check "the directory says the task exited" [ "$(jq .target_exited "$d/msprof_ebpf_window.json")" = true ]
"$MSPROF" --export=on --output="$d" >/dev/null
check_exact_counts "$d" "$WORK/task.out" $STEPS
