#!/bin/bash
# make bench: what profiling costs the sample task, measured side by side in
# one run.  npu_sample's step loop (6 API calls and 6 ioctls a step, no
# padding) is timed in four settings; each figure is the median of RUNS.
set -u
cd "$(dirname "$0")/.."
STEPS=${STEPS:-2000}
RUNS=${RUNS:-3}
SAMPLE=build/bin/npu_sample
MSPROF=build/bin/msprof
work=$(mktemp -d /tmp/msprof-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

loop_ms() { sed -n 's/^steps [0-9]* loop_ms //p' "$1"; }

# await FILE TEXT: until FILE holds TEXT; 30 s at most, then the bench fails.
await() {
	local i
	for i in $(seq 600); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "bench: no '$2' in $1 after 30 s" >&2
	exit 1
}

# run_task MODE: one timed run of the step loop; prints loop_ms.
run_task() {
	local mode=$1 log=$work/task.log pid
	case $mode in
	plain)
		"$SAMPLE" --steps "$STEPS" --step-ms 0 >"$log"
		loop_ms "$log"
		return ;;
	agent)
		PROFILING_MODE=dynamic "$SAMPLE" --steps "$STEPS" --step-ms 0 >"$log"
		loop_ms "$log"
		return ;;
	esac
	PROFILING_MODE=dynamic "$SAMPLE" --steps "$STEPS" --step-ms 0 --wait-signal >"$log" &
	pid=$!
	await "$log" 'waiting for SIGUSR1'
	rm -f "$work/cmd"
	mkfifo "$work/cmd"
	"$MSPROF" --dynamic=on --pid="$pid" --output="$work/out" <"$work/cmd" >"$work/msprof.log" 2>&1 &
	exec 3>"$work/cmd"
	await "$work/msprof.log" 'attached to pid'
	if [ "$mode" = window ]; then
		echo start >&3
		await "$work/msprof.log" 'collection started'
	fi
	kill -USR1 "$pid"
	# The step loop's own length is what is measured: bounded generously.
	timeout 600 tail --pid="$pid" -f /dev/null || exit 1
	exec 3>&-
	timeout 60 tail --pid="$!" -f /dev/null || exit 1
	wait
	loop_ms "$log"
}

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

declare -A ms
for mode in plain agent attached window; do
	ms[$mode]=$(for _ in $(seq "$RUNS"); do run_task "$mode"; done | median)
done
events=$(jq '.host.api_events + .host.ioctl_events' "$(ls -d "$work"/out/PROF_* | tail -1)/msprof_ebpf_window.json")
lost=$(jq '.host.lost_events' "$(ls -d "$work"/out/PROF_* | tail -1)/msprof_ebpf_window.json")

printf '%d steps of npu_sample, median of %d runs\n' "$STEPS" "$RUNS"
printf '%-34s %10s %8s\n' setting loop_ms ratio
for mode in plain agent attached window; do
	case $mode in
	plain) what="no profiling" ;;
	agent) what="agent listening (PROFILING_MODE)" ;;
	attached) what="msprof attached, no window" ;;
	window) what="inside a window (probes on)" ;;
	esac
	awk -v w="$what" -v m="${ms[$mode]}" -v p="${ms[plain]}" \
		'BEGIN { printf "%-34s %10.1f %8.2f\n", w, m, m / p }'
done
awk -v e="$events" -v l="$lost" -v w="${ms[window]}" -v p="${ms[plain]}" \
	'BEGIN { printf "events in the last window: %d, lost: %d, cost per event: %.1f us\n", e, l, (w - p) * 1000 / e }'
