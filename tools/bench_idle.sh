#!/bin/bash
# make bench, idle part: what msprof costs a task while no window is open.
# Each round starts a fresh build/tools/call_driver (CALLS calls of
# libbench_call.so's bench_call() a loop) and times its loop in four
# states, one after the other: untraced (no msprof yet); attached (msprof
# --host-only=on --uprobe=libbench_call:bench_call attached, before any
# window); between (after a start and a stop: the window's probes were
# attached and are gone again); after_quit (msprof has quit and exited).
# Each loop is timed in the driver's CPU time (a probe's trap is the
# driver's CPU time too; other work on a busy machine is not), each figure
# is the median over ROUNDS rounds and a ratio to untraced;
# the goal is at most 1.02.  Prints a table and writes the figures under
# "idle" in RESULTS (bench/results.json; its other keys are kept).
set -u
cd "$(dirname "$0")/.." || exit 1
BENCH=bench_idle
source tools/bench/lib.sh
CALLS=${CALLS:-10000000}
ROUNDS=${ROUNDS:-5}
RESULTS=${RESULTS:-bench/results.json}
TOOLS=$PWD/build/tools
MSPROF=$PWD/build/bin/msprof
# A loop's bound: 100 us a call is thousands of times an untraced one.
LOOP_S=$((30 + CALLS / 10000))
LOOP_FIELD=cpu_ns_per_call

need_tools "$TOOLS/call_driver" "$TOOLS/libbench_call.so" "$MSPROF"

work=$(mktemp -d /tmp/msprof-bench-idle.XXXXXX) || exit 1
driver=
trap finish EXIT

declare -A ns
for _ in $(seq "$ROUNDS"); do
	start_driver
	one_loop
	ns[untraced]+="$last "
	msprof_open --host-only=on --uprobe=libbench_call:bench_call \
		--ascendcl=off --pid="$driver" --output="$work/out"
	one_loop
	ns[attached]+="$last "
	msprof_say start 'collection started' 30
	msprof_say stop 'collection stopped' 60
	one_loop
	ns[between]+="$last "
	msprof_quit
	one_loop
	ns[after_quit]+="$last "
	kill "$driver"
	gone "$driver" 10 || fail "the driver did not end at SIGTERM"
	wait "$driver"
	driver=
done

mkdir -p "$(dirname "$RESULTS")" || exit 1
python3 - "$work/part.json" "$CALLS" "$ROUNDS" "${ns[untraced]}" \
	"${ns[attached]}" "${ns[between]}" "${ns[after_quit]}" <<'PY' || exit 1
import json, statistics, sys

path, calls, rounds = sys.argv[1:4]
names = ("untraced", "attached", "between", "after_quit")
runs = {n: [float(v) for v in a.split()] for n, a in zip(names, sys.argv[4:8])}
base = statistics.median(runs["untraced"])
rows = []
for n in names:
    med = statistics.median(runs[n])
    rows.append({"state": n, "ns_per_call": round(med, 3),
                 "x_untraced": round(med / base, 4), "rounds_ns": runs[n]})
part = {"calls": int(calls), "rounds": int(rounds), "rows": rows,
        "goal": "attached, between and after_quit <= 1.02 x untraced"}
with open(path, "w") as f:
    json.dump(part, f)

print(f"{calls} calls of bench_call() a loop, median of {rounds} rounds "
      "(a fresh driver each)")
print(f"{'state':<11} {'ns/call':>9} {'x untraced':>11}")
for r in rows:
    print(f"{r['state']:<11} {r['ns_per_call']:>9.2f} {r['x_untraced']:>11.3f}")
print("goal: <= 1.02 x untraced outside a window")
PY
tools/bench/results_put.py "$RESULTS" idle <"$work/part.json" || exit 1
echo "written to $RESULTS under \"idle\""
