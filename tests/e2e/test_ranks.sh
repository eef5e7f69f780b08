#!/bin/bash
# A 4-rank job (tools/npusim/sample/run_ranks.sh, libhccl's all-reduce each
# step, rank 2 slower) under one window, launched by msprof and then
# attached with --pid= to every rank: every rank profiled with its rank id,
# the same number of HcclAllReduce calls and HCCL device tasks, each task's
# flow from its call, the slow rank's extra compute and the others' wait.
source tests/e2e/lib.sh
RUN=tools/npusim/sample/run_ranks.sh
# shm_ino PID: the inode of the rendezvous file PID holds open (10 s at
# most); shm_gone INO: /dev/shm no longer names it.  By inode, not by any
# npusim-hccl name: other jobs may make theirs there meanwhile.
shm_ino() {
	local i f
	for i in $(seq 100); do
		for f in /proc/$1/fd/*; do
			case $(readlink "$f") in
			/dev/shm/*) stat -L -c %i "$f" && return 0 ;;
			esac
		done 2>/dev/null
		sleep 0.1
	done
	return 1
}
shm_gone() { [ -n "$1" ] && [ -z "$(find /dev/shm -maxdepth 1 -inum "$1")" ]; }

# --- the job alone -----------------------------------------------------
mkdir "$WORK/alone"
RUN_RANKS_LOGS=$WORK/alone RUN_RANKS_TIMEOUT=60 $RUN 4 --wait-signal --steps 10 --step-ms 5 --slow-rank=1 &
job=$!
PIDS_TO_KILL+=("$job")
for r in 0 1 2 3; do
	wait_for "$WORK/alone/rank_$r.log" "npu_sample waiting for SIGUSR1" 30
done
ino=$(shm_ino "$(sed -n 's/^npu_sample pid=//p' "$WORK/alone/rank_0.log")")
kill -USR1 $(sed -n 's/^npu_sample pid=//p' "$WORK"/alone/rank_*.log)
wait_pid "$job" 60
check "4 ranks, all-reduce checked by each: exit 0" [ $? -eq 0 ]
check "each rank made 10 all-reduces" [ "$(cat "$WORK"/alone/rank_*.log | grep -c '^calls HcclAllReduce 10$')" = 4 ]
check "no rendezvous file left in /dev/shm (inode $ino)" shm_gone "$ino"
$RUN 0 2>"$WORK/bad.err"
check "rank count 0: exit 2, one line" [ $? -eq 2 -a "$(wc -l <"$WORK/bad.err")" = 1 ]
# A rank that never comes: the others give up within HCCL_CONNECT_TIMEOUT.
printf '{"rank_id":"0"},{"rank_id":"1"}' >"$WORK/table.json"
RANK_ID=0 RANK_SIZE=2 RANK_TABLE_FILE=$WORK/table.json HCCL_CONNECT_TIMEOUT=3 \
	"$SAMPLE" --steps 1 >"$WORK/lone.out" 2>&1 &
lone=$!
ino=$(shm_ino $lone)
wait_pid $lone 30
check "a rank alone fails at init (HCCL_E_TIMEOUT), bounded" [ $? -eq 1 ]
check "  and says so" grep -q "HcclCommInitClusterInfo failed: error 9" "$WORK/lone.out"
check "  and leaves no rendezvous file (inode $ino)" shm_gone "$ino"

# check_job NAME: the PROF_ directories in $WORK/NAME, from one window over
# every step of a 4-rank job with rank 2 slow by $SLOW_MS, exported, then
# checked (check_ranks.py: ranks, counts, flows, the slow rank's compute
# and the others' wait; check_timeline.py on each rank's timeline).
STEPS=20
SLOW=2
SLOW_MS=20
JOB_ARGS="--steps $STEPS --step-ms 10 --slow-rank=$SLOW --slow-ms=$SLOW_MS"
check_job() {
	local d dirs
	mapfile -t dirs < <(prof_dirs "$WORK/$1")
	for d in "${dirs[@]}"; do
		"$MSPROF" --export=on --output="$d" >>"$WORK/$1.export.log" 2>&1
		check "$1: $(basename "$d") exported" [ $? -eq 0 ]
		python3 tests/e2e/check_timeline.py --every-task-launched "$d" |
			grep -v '^ok '
		check "$1: rank $(jq .rank_id "$d/host/info.json")'s timeline as msprof's" \
			[ "${PIPESTATUS[0]}" -eq 0 ]
	done
	python3 tests/e2e/check_ranks.py 4 $STEPS $SLOW $SLOW_MS "${dirs[@]}"
	check "$1: the job's ranks, counts, flows, slow rank and waits" [ $? -eq 0 ]
}

# --- one launch-mode window over every rank ----------------------------
job_window "$WORK/job.log" "$WORK/out" "$WORK/logs" 4 $JOB_ARGS
check "launch: msprof exit 0" [ $? -eq 0 ]
show "$WORK/job.log"
check_job out

# --- attach: --pid= every rank of a running job, one window -------------
mkdir "$WORK/alogs"
PROFILING_MODE=dynamic RUN_RANKS_LOGS="$WORK/alogs" RUN_RANKS_TIMEOUT=180 $RUN 4 --wait-signal $JOB_ARGS &
job=$!
PIDS_TO_KILL+=("$job")
for r in 0 1 2 3; do
	wait_for "$WORK/alogs/rank_$r.log" "npu_sample waiting for SIGUSR1" 30
done
pids=$(sed -n 's/^npu_sample pid=//p' "$WORK"/alogs/rank_*.log)
for p in $pids; do
	wait_socket "$HOME" "$p"
done
msprof_open "$WORK/attach.log" --dynamic=on --hccl=on --output="$WORK/aout" \
	--pid="$(echo $pids | tr ' ' ,)"
say start
wait_for "$WORK/attach.log" "collection started (window 1)" 30
release_ranks "$WORK/alogs" 4
wait_pid "$job" 60
check "attach: the job ends, exit 0" [ $? -eq 0 ]
say stop
say quit
msprof_close
check "attach: msprof exit 0" [ $? -eq 0 ]
show "$WORK/attach.log"
check_job aout
