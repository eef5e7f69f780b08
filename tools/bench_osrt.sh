#!/bin/bash
# make bench, osrt part (issue 21): what a target's own syscalls cost with
# --host-sys=osrt, and whether a window loses any at npu_sample's rate.
# build/tools/call_driver in its getppid mode (the target) times CALLS
# getppid() syscalls a loop, in the CPU time of its thread (the hooks'
# work is charged there; the machine's other work is not); each round
# times one loop in each setting, one after the other: untraced; beside
# build/tools/floor --syscalls=raw (empty programs on the raw
# sys_enter/sys_exit tracepoints: part 3's floor); inside a window of
# msprof without osrt (the ioctl hooks alone) and with it, the driver its
# target.  Each figure is the median over ROUNDS rounds, and a ratio to the
# floor.  Then two npu_sample processes (SAMPLE_STEPS steps each, no
# padding) in one --host-sys=osrt window, as part 5 runs them: every
# syscall of theirs recorded, and what was lost.  Prints a table and writes
# the figures under "osrt" in RESULTS (bench/results.json).
set -u
cd "$(dirname "$0")/.." || exit 1
CALLS=${CALLS:-200000}
ROUNDS=${ROUNDS:-5}
SAMPLE_STEPS=${SAMPLE_STEPS:-10000}
RESULTS=${RESULTS:-bench/results.json}
TOOLS=$PWD/build/tools
MSPROF=$PWD/build/bin/msprof
SAMPLE=$PWD/build/bin/npu_sample
LOOP_S=$((30 + CALLS / 5000))
LOOP_FIELD=cpu_ns_per_call
SETTINGS="untraced raw_hooks window osrt"

BENCH=bench_osrt
source tools/bench/lib.sh
need_tools "$TOOLS/call_driver" "$TOOLS/floor" "$MSPROF" "$SAMPLE"
case $SAMPLE_STEPS in
'' | *[!0-9]*) fail "SAMPLE_STEPS is a whole number" ;;
esac

work=$(mktemp -d /tmp/msprof-bench-osrt.XXXXXX) || exit 1
trap finish EXIT

# window_loop OUT ARG...: one msprof window (ARGs) around one loop of the
# driver, its target; what it recorded is read from its stop lines.
window_loop() {
	msprof_open --host-only=on --ascendcl=off --pid="$driver" --output="$1" "${@:2}"
	msprof_say start 'collection started' 30
	one_loop
	msprof_say stop 'collection stopped' 120
	msprof_quit
}

"$TOOLS/call_driver" "$CALLS" 1 0 getppid >"$work/driver.log" 2>&1 &
driver=$!
await "$work/driver.log" 'waiting for SIGUSR1' 10 "$driver"

declare -A ns
recorded=0
lost=0
for r in $(seq "$ROUNDS"); do
	one_loop
	ns[untraced]+="$last "
	"$TOOLS/floor" --syscalls=raw >"$work/floor.log" 2>&1 &
	helper=$!
	await "$work/floor.log" 'floor attached' 30 "$helper"
	one_loop
	ns[raw_hooks]+="$last "
	end_helper floor INT
	window_loop "$work/plain$r"
	ns[window]+="$last "
	window_loop "$work/osrt$r" --host-sys=osrt
	ns[osrt]+="$last "
	# Each osrt window must hold the loop's calls: a fast row that
	# recorded nothing would show here.
	n=$(sed -n 's/.*OS runtime: \([0-9]*\) syscalls.*/\1/p' "$work/msprof.log")
	recorded=$((recorded + ${n:-0}))
	lost=$((lost + $(host_sum "$work/osrt$r" lost_events)))
	rm -rf "$work/plain$r" "$work/osrt$r"
done
stop_pids "$driver"
driver=

# Two npu_sample processes in one osrt window, released together.
sample_pair "$work/sample_out" --host-sys=osrt
sample_sys=$(sed -n 's/.*OS runtime: \([0-9]*\) syscalls.*/\1/p' "$work/msprof.log" | paste -sd+ | bc)
sample_lost=$(host_sum "$work/sample_out" lost_events)

mkdir -p "$(dirname "$RESULTS")" || exit 1
args=()
for s in $SETTINGS; do
	args+=("$s" "${ns[$s]}")
done
python3 - "$work/part.json" "$CALLS" "$ROUNDS" "$recorded" "$lost" "$SAMPLE_STEPS" \
	"$sample_ms" "${sample_sys:-0}" "$sample_lost" "${args[@]}" <<'PY' || exit 1
import json, statistics, sys

(path, calls, rounds, recorded, lost, steps, sample_ms, sample_sys,
 sample_lost) = sys.argv[1:10]
a = sys.argv[10:]
runs = {a[i]: [float(v) for v in a[i + 1].split()] for i in range(0, len(a), 2)}
floor = statistics.median(runs["raw_hooks"])
rows = [{"setting": k, "cpu_ns_per_syscall": round(statistics.median(v), 2),
         "x_raw_hooks": round(statistics.median(v) / floor, 4), "rounds": v}
        for k, v in runs.items()]
x = next(r["x_raw_hooks"] for r in rows if r["setting"] == "osrt")
rate = int(sample_sys) / (float(sample_ms) / 1000)
part = {"calls": int(calls), "rounds": int(rounds), "rows": rows,
        "osrt_recorded": int(recorded), "osrt_lost": int(lost),
        "goal": "osrt <= 1.3 x the raw hooks per target syscall",
        "goal_met": x <= 1.3,
        "npu_sample": {"processes": 2, "steps_each": int(steps),
                       "syscalls_per_s": round(rate),
                       "syscalls": int(sample_sys), "lost": int(sample_lost),
                       "goal_met": int(sample_lost) == 0}}
with open(path, "w") as f:
    json.dump(part, f)

print(f"a target's {calls} getppid() syscalls a loop, its CPU time, median of {rounds} rounds")
print(f"{'setting':<10} {'ns/syscall':>11} {'x raw hooks':>12}")
for r in rows:
    print(f"{r['setting']:<10} {r['cpu_ns_per_syscall']:>11.1f} {r['x_raw_hooks']:>12.3f}")
print(f"osrt windows recorded {recorded} syscalls of {int(calls) * int(rounds)} "
      f"made (and the driver's own), {lost} lost; goal: osrt <= 1.3 x raw hooks: "
      + ("met" if x <= 1.3 else "not met"))
print(f"npu_sample x2 ({steps} steps each) with osrt: {round(rate)} syscalls/s, "
      f"{sample_sys} recorded, {sample_lost} records lost; goal (zero loss): "
      + ("met" if int(sample_lost) == 0 else "not met"))
PY
tools/bench/results_put.py "$RESULTS" osrt <"$work/part.json" || exit 1
echo "written to $RESULTS under \"osrt\""
