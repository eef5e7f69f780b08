#!/bin/bash
# SPDX-License-Identifier: MIT
# run_ranks.sh N [npu_sample options]: a job of N ranks on this machine, as
# a training job's run.sh starts them: each rank is an npu_sample with
# RANK_ID, RANK_SIZE and RANK_TABLE_FILE (a rank table naming the N ranks,
# which HcclCommInitClusterInfo reads) in its environment; with N > 1 each
# step ends with an all-reduce.  Waits for every rank, at most
# RUN_RANKS_TIMEOUT seconds (default 3600), then stops them; exits non-zero
# when a rank failed or had to be stopped.  A TERM or INT is passed on to
# every rank.  RUN_RANKS_LOGS=DIR: rank R's output goes to DIR/rank_R.log.
# NPU_SAMPLE: the program to run (default: the one beside this script, or
# the build tree's).
set -u
usage() {
	echo "run_ranks: $1 (usage: run_ranks.sh N [npu_sample options], 1 <= N <= 64)" >&2
	exit 2
}
[ $# -ge 1 ] || usage "no rank count"
n=$1
shift
case $n in
'' | *[!0-9]* | 0*) usage "bad rank count '$n'" ;;
esac
[ "$n" -le 64 ] || usage "bad rank count '$n'"
limit=${RUN_RANKS_TIMEOUT:-3600}
case $limit in
'' | *[!0-9]* | 0*) usage "bad RUN_RANKS_TIMEOUT '$limit'" ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
sample=${NPU_SAMPLE:-}
for s in "$here/npu_sample" "$here/../../../build/bin/npu_sample"; do
	[ -n "$sample" ] && break
	[ -x "$s" ] && sample=$s
done
[ -n "$sample" ] || { echo "run_ranks: no npu_sample beside $here or in its build tree (set NPU_SAMPLE)" >&2; exit 2; }
if [ -n "${RUN_RANKS_LOGS:-}" ] && [ ! -d "$RUN_RANKS_LOGS" ]; then
	echo "run_ranks: RUN_RANKS_LOGS '$RUN_RANKS_LOGS' is not a directory" >&2
	exit 2
fi

# The rank table lives in a directory of our own (mktemp: 0700, new).
tmp=$(mktemp -d "${TMPDIR:-/tmp}/run_ranks.XXXXXX") || exit 1
pids=()
stop_ranks() {	# stop_ranks SIGNAL
	local p
	for p in "${pids[@]}"; do
		kill "-$1" "$p" 2>/dev/null
	done
}
trap 'rm -rf "$tmp"' EXIT
trap 'stop_ranks TERM' TERM INT

table=$tmp/rank_table.json
{
	printf '{"version": "1.0", "status": "completed", "server_count": "1",\n'
	printf ' "server_list": [{"server_id": "127.0.0.1", "device": [\n'
	for ((r = 0; r < n; r++)); do
		printf '  {"device_id": "0", "device_ip": "127.0.0.%d", "rank_id": "%d"}%s\n' \
			$((r + 1)) "$r" "$([ $r -lt $((n - 1)) ] && echo ,)"
	done
	printf ']}]}\n'
} >"$table" || exit 1

for ((r = 0; r < n; r++)); do
	if [ -n "${RUN_RANKS_LOGS:-}" ]; then
		RANK_ID=$r RANK_SIZE=$n RANK_TABLE_FILE=$table \
			"$sample" "$@" >"$RUN_RANKS_LOGS/rank_$r.log" 2>&1 &
	else
		RANK_ID=$r RANK_SIZE=$n RANK_TABLE_FILE=$table "$sample" "$@" &
	fi
	pids+=($!)
done

# Bounded: polled (a trapped signal interrupts a sleep, not a plain wait).
deadline=$((SECONDS + limit))
alive() {
	local p
	for p in "${pids[@]}"; do
		kill -0 "$p" 2>/dev/null && return 0
	done
	return 1
}
while alive && [ $SECONDS -lt $deadline ]; do
	sleep 0.1
done
if alive; then
	echo "run_ranks: ranks still running after ${limit} s: stopped" >&2
	stop_ranks TERM
	sleep 2
	stop_ranks KILL
fi
failed=0
for ((r = 0; r < n; r++)); do
	wait "${pids[r]}"
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "run_ranks: rank $r (pid ${pids[r]}) exited with status $rc" >&2
		failed=1
	fi
done
exit $failed
