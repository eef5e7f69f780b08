#!/bin/bash
# A window that holds a known stretch of the task sees exactly its calls:
# npu_sample starts its steps on SIGUSR1, after the window opened, and ends
# inside it, so every per-step and teardown call must be in the PROF_ dir.
source tests/e2e/lib.sh

STEPS=57
PROFILING_MODE=dynamic start_waiting "$WORK/task.out" "$SAMPLE" --steps $STEPS --step-ms 0 --wait-signal
msprof_open "$WORK/msprof.log" --dynamic=on --pid="$TASK_PID" --output="$WORK/out"
say start
wait_for "$WORK/msprof.log" "collection started"
kill -USR1 "$TASK_PID"
wait_pid "$TASK_PID" 60
msprof_close
check "msprof finishes when the task exits" [ $? -eq 0 ]
show "$WORK/msprof.log"

d=$(prof_dirs "$WORK/out")
check "the directory says the task exited" [ "$(jq .target_exited "$d/info.json")" = true ]
"$MSPROF" --export=on --output="$d" >/dev/null
for api in aclrtLaunchKernel aclrtMemcpyAsync aclrtMemcpy aclrtSynchronizeStream \
	   aclrtDestroyStream aclrtFree aclrtResetDevice aclFinalize; do
	want=$(sed -n "s/^calls $api //p" "$WORK/task.out")
	got=$(timeline "$d" --arg n "$api" '[.[] | select(.ph=="X" and .name==$n)] | length')
	check "exactly $want $api calls in the window (got $got)" [ "$got" = "$want" ]
done
check "3 launches a step" [ "$(sed -n 's/^calls aclrtLaunchKernel //p' "$WORK/task.out")" = $((3 * STEPS)) ]
# Every successful driver-reaching call issued one ioctl (npusim_ioctl.h).
want=$(timeline "$d" '[.[] | select(.ph=="X" and .args.return==0 and (.name |
	IN("aclrtSetDevice","aclrtResetDevice","aclrtMalloc","aclrtFree","aclrtMemcpy",
	   "aclrtLaunchKernel","aclrtMemcpyAsync","aclrtSynchronizeStream",
	   "aclrtSynchronizeDevice")))] | length')
got=$(timeline "$d" '[.[] | select(.ph=="X" and .name=="ioctl")] | length')
check "one ioctl per driver-reaching call ($want = $got)" [ "$want" = "$got" ]
check "ioctls decoded as npusim's ('Y' = 89)" [ "$(timeline "$d" '[.[] | select(.name=="ioctl") | .args.type] | unique')" = "$(printf '[\n  89\n]')" ]
# The agent flushed as the task exited: every launch and async copy ran as
# one device task.
got=$(timeline "$d" '[.[] | select(.ph=="X" and .cat=="device")] | length')
check "exactly $((4 * STEPS)) device tasks (got $got)" [ "$got" = $((4 * STEPS)) ]
got=$(timeline "$d" '[.[] | select(.ph=="s")] | length')
check "each linked to its launch (got $got)" [ "$got" = $((4 * STEPS)) ]
