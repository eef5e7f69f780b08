#!/bin/bash
# A 4-rank job (tools/npusim/sample/run_ranks.sh, libhccl's all-reduce each
# step) under one launch-mode window: every rank profiled, each with its
# rank id, the same number of HcclAllReduce calls and HCCL device tasks.
source tests/e2e/lib.sh
RUN=tools/npusim/sample/run_ranks.sh
shm_left() { ls /dev/shm | grep -q "^npusim-hccl-$(id -u)-"; }
shm_left && skip "rendezvous files checks" "an npusim-hccl file was there before" || shm_before=0

# --- the job alone -----------------------------------------------------
mkdir "$WORK/alone"
RUN_RANKS_LOGS=$WORK/alone RUN_RANKS_TIMEOUT=60 $RUN 4 --steps 10 --step-ms 5 --slow-rank=1
check "4 ranks, all-reduce checked by each: exit 0" [ $? -eq 0 ]
check "each rank made 10 all-reduces" [ "$(cat "$WORK"/alone/rank_*.log | grep -c '^calls HcclAllReduce 10$')" = 4 ]
[ -n "${shm_before+x}" ] && check "no rendezvous file left in /dev/shm" ! shm_left
$RUN 0 2>"$WORK/bad.err"
check "rank count 0: exit 2, one line" [ $? -eq 2 -a "$(wc -l <"$WORK/bad.err")" = 1 ]
# A rank that never comes: the others give up within HCCL_CONNECT_TIMEOUT.
printf '{"rank_id":"0"},{"rank_id":"1"}' >"$WORK/table.json"
RANK_ID=0 RANK_SIZE=2 RANK_TABLE_FILE=$WORK/table.json HCCL_CONNECT_TIMEOUT=1 \
	timeout 20 "$SAMPLE" --steps 1 >"$WORK/lone.out" 2>&1
check "a rank alone fails at init (HCCL_E_TIMEOUT), bounded" [ $? -eq 1 ]
check "  and says so" grep -q "HcclCommInitClusterInfo failed: error 9" "$WORK/lone.out"
[ -n "${shm_before+x}" ] && check "  and leaves no rendezvous file" ! shm_left

# --- one launch-mode window over every rank ----------------------------
mkdir "$WORK/logs"
msprof_open "$WORK/job.log" --dynamic=on --hccl=on --output="$WORK/out" \
	env RUN_RANKS_LOGS="$WORK/logs" RUN_RANKS_TIMEOUT=120 \
	$RUN 4 --wait-signal --steps 20 --step-ms 10 --slow-rank=2
for r in 0 1 2 3; do
	wait_for "$WORK/logs/rank_$r.log" "npu_sample waiting for SIGUSR1" 30
done
say start
wait_for "$WORK/job.log" "collection started (window 1)" 30
pids=$(sed -n 's/^npu_sample pid=//p' "$WORK"/logs/rank_*.log)
kill -USR1 $pids
for r in 0 1 2 3; do
	wait_for "$WORK/logs/rank_$r.log" "calls HcclCommDestroy" 60
done
wait_for "$WORK/job.log" "no task left to profile" 30
say quit
msprof_close
check "msprof: exit 0" [ $? -eq 0 ]
show "$WORK/job.log"
check "4 PROF_ directories" [ "$(prof_dirs "$WORK/out" | wc -l)" = 4 ]
ranks=
for d in $(prof_dirs "$WORK/out"); do
	"$MSPROF" --export=on --output="$d" >>"$WORK/export.log" 2>&1
	ranks="$ranks $(jq .rank_id "$d/host/info.json")"
	got=$(timeline "$d" '[.[] | select(.ph=="X" and .args.id=="HcclAllReduce")] | length')
	check "$(basename "$d"): 20 HcclAllReduce calls (got $got)" [ "$got" = 20 ]
	got=$(timeline "$d" '[.[] | select(.ph=="X" and .args["Task Type"]=="HCCL")] | length')
	check "  20 HCCL device tasks (got $got)" [ "$got" = 20 ]
	got=$(timeline "$d" '[.[] | select(.ph=="X" and .args["Task Type"]=="HCCL" and .args.connection_id != 0)] | length')
	check "  each linked to its HcclAllReduce (got $got)" [ "$got" = 20 ]
done
check "rank ids 0-3 (got$ranks)" [ "$(echo $ranks | tr ' ' '\n' | sort | tr '\n' ' ')" = "0 1 2 3 " ]
