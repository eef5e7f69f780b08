#!/bin/bash
# torch_npu's shape (TASK_QUEUE_ENABLE): npu_sample --task-queue enqueues
# each launch and copy on its main thread and the queue's worker makes the
# ACL call.  A window around the steps holds exactly the task's calls, both
# ends of the queue among them, and the export gives each call the worker
# made inside a run the enqueue that asked for it: the timeline's
# enqueue_connection_id names the npusimQueueEnqueue of the same sequence
# number, on the other thread.
source tests/e2e/lib.sh

STEPS=23
PROFILING_MODE=dynamic start_waiting "$WORK/task.out" "$SAMPLE" --steps $STEPS \
	--step-ms 0 --wait-signal --task-queue
window_to_exit "$WORK/msprof.log" 60 --dynamic=on --pid="$TASK_PID" --output="$WORK/out"
check "the task ran its steps through the queue" [ $? -eq 0 ]
msprof_close
check "msprof finishes when the task exits" [ $? -eq 0 ]
show "$WORK/msprof.log"

d=$(prof_dirs "$WORK/out")
"$MSPROF" --export=on --output="$d" >/dev/null
check_exact_counts "$d" "$WORK/task.out" $STEPS
for api in npusimQueueEnqueue npusimQueueRun; do
	want=$(sed -En "s/^calls $api //p" "$WORK/task.out")
	got=$(timeline "$d" --arg n "$api" '[.[] | select(.ph=="X" and .args.id==$n)] | length')
	check "exactly $want $api calls in the window (got $got)" [ "$got" = "$want" ]
done
check "four ops a step queued" [ "$want" = $((4 * STEPS)) ]

# Each run, and each call inside it, names its op's enqueue.
pairs='([.[] | select(.ph=="X" and .args.id=="npusimQueueEnqueue")] |
	map({key: (.args.connection_id | tostring), value: .}) | from_entries) as $enq |
	[.[] | select(.ph=="X" and .args.enqueue_connection_id) |
	 {id: .args.id, tid, seq: .args.seq,
	  enq: $enq[.args.enqueue_connection_id | tostring]}]'
got=$(timeline "$d" "$pairs"' | map(select(.id=="npusimQueueRun" and .enq.args.seq==.seq)) | length')
check "every run paired with the enqueue of its sequence number ($got of $want)" [ "$got" = "$want" ]
got=$(timeline "$d" "$pairs"' | map(select(.id=="aclrtLaunchKernel" and .enq)) | length')
check "every launch given its enqueue ($got of $((3 * STEPS)))" [ "$got" = $((3 * STEPS)) ]
got=$(timeline "$d" "$pairs"' | map(select(.id=="aclrtMemcpyAsync" and .enq)) | length')
check "every queued copy given its enqueue ($got of $STEPS)" [ "$got" = $STEPS ]
got=$(timeline "$d" "$pairs"' | map(select(.enq == null or .enq.tid == .tid)) | length')
check "each names an enqueue on another thread (bad: $got)" [ "$got" = 0 ]
got=$(timeline "$d" '[.[] | select(.ph=="X" and .args.enqueue_connection_id and
	(.args.id | IN("npusimQueueRun","aclrtLaunchKernel","aclrtMemcpyAsync") | not))] | length')
check "no other call is given one (got $got)" [ "$got" = 0 ]

# TASK_QUEUE_ENABLE=0, as torch_npu takes it: each op is the caller's own
# ACL call, with no enqueue or run, and the results are still right.
TASK_QUEUE_ENABLE=0 timeout 60 "$SAMPLE" --steps 3 --step-ms 0 --task-queue >"$WORK/direct.out" 2>&1
check "TASK_QUEUE_ENABLE=0: the steps run right" [ $? -eq 0 ]
check "with no queue call" [ "$(grep -c '^calls npusimQueue' "$WORK/direct.out")" = 0 ]
check "each launch the caller's own" grep -qx "calls aclrtLaunchKernel 9" "$WORK/direct.out"
