#!/bin/bash
# make bench, thread states' part: what two processes that are no target
# pay for their context switches while msprof's thread-state hooks
# (--host-sys=sched: sched_switch, sched_waking, sched_wakeup_new) are
# attached.  build/tools/pingpong hands a byte back and forth TRIPS times
# between a parent and a child on one CPU (two switches and two wake-ups
# a round trip); each round runs it once in each setting, one after the
# other: untraced; msprof --host-sys=sched attached to another process
# (build/tools/call_driver, --host-only=on) with no window; the same msprof
# with a window open; and a window of an msprof without --host-sys=sched,
# whose syscall hooks alone the pipes' reads and writes pay.  The figure
# is the CPU time both processes take a round trip (the machine's other
# work, which shares their CPU, stretches the wall-clock time beside it
# but not that); each is the median over ROUNDS rounds, and its ratio the
# median of each round's to that round's "no window".  Prints a table and writes the figures under "sched" in
# RESULTS (bench/results.json; its other keys are kept).
set -u
cd "$(dirname "$0")/.." || exit 1
TRIPS=${TRIPS:-200000}
CALLS=${CALLS:-1000000}	# the driver's loop, which no setting releases
ROUNDS=${ROUNDS:-5}
RESULTS=${RESULTS:-bench/results.json}
TOOLS=$PWD/build/tools
MSPROF=$PWD/build/bin/msprof
SETTINGS="untraced no_window window window_no_sched"

BENCH=bench_sched
source tools/bench/lib.sh
need_tools "$TOOLS/call_driver" "$TOOLS/pingpong" "$MSPROF"
case $TRIPS in
''|*[!0-9]*|0) fail "TRIPS is a whole number of at least 1" ;;
esac

work=$(mktemp -d /tmp/msprof-bench-sched.XXXXXX) || exit 1
trap finish EXIT

# pingpong_run: one timed run; sets ns to its CPU time per round trip and
# wall to its wall-clock time.  Bounded: 1 ms a trip is far beyond the
# slowest seen.
pingpong_run() {
	local line
	line=$(timeout $((30 + TRIPS / 1000)) "$TOOLS/pingpong" "$TRIPS") ||
		fail "pingpong failed or ran too long: $line"
	wall=$(echo "$line" | sed -n 's/.* roundtrip_ns \([0-9.]*\) .*/\1/p')
	ns=$(echo "$line" | sed -n 's/.* cpu_ns \([0-9.]*\)$/\1/p')
	[ -n "$ns" ] && [ -n "$wall" ] || fail "pingpong said: $line"
}

# window_run ARG...: pingpong inside a window of msprof ARG... on the driver.
window_run() {
	msprof_open --host-only=on --uprobe=libbench_call:bench_call \
		--ascendcl=off --pid="$driver" --output="$work/out" "$@"
	msprof_say start 'collection started' 30
	pingpong_run
	msprof_say stop 'collection stopped' 60
	msprof_quit
}

start_driver

# Interleaved, so that what else the machine does weighs on every setting
# alike; one msprof session a round serves "no window" and "window".
declare -A runs walls
keep() { runs[$1]+="$ns "; walls[$1]+="$wall "; }
for _ in $(seq "$ROUNDS"); do
	pingpong_run
	keep untraced
	msprof_open --host-only=on --host-sys=sched --uprobe=libbench_call:bench_call \
		--ascendcl=off --pid="$driver" --output="$work/out"
	pingpong_run
	keep no_window
	msprof_say start 'collection started' 30
	pingpong_run
	keep window
	msprof_say stop 'collection stopped' 60
	msprof_quit
	window_run
	keep window_no_sched
done

mkdir -p "$(dirname "$RESULTS")" || exit 1
args=()
for s in $SETTINGS; do
	args+=("$s" "${runs[$s]}" "${walls[$s]}")
done
python3 - "$work/part.json" "$TRIPS" "$ROUNDS" "${args[@]}" <<'PY' || exit 1
import json, statistics, sys

path, trips, rounds = sys.argv[1:4]
a = sys.argv[4:]
runs = {a[i]: ([float(v) for v in a[i + 1].split()],
               [float(v) for v in a[i + 2].split()]) for i in range(0, len(a), 3)}
base = runs["no_window"]
# Each round's ratio to its own no_window run, a few seconds apart: the
# machine's slower and faster spells weigh on both alike.
x = lambda v, b: statistics.median(a / c for a, c in zip(v, b))
rows = []
for name, (cpu, wall) in runs.items():
    rows.append({"setting": name, "cpu_ns": round(statistics.median(cpu), 2),
                 "x_no_window": round(x(cpu, base[0]), 4),
                 "wall_ns": round(statistics.median(wall), 2),
                 "x_no_window_wall": round(x(wall, base[1]), 4),
                 "x_window_no_sched": round(x(cpu, runs["window_no_sched"][0]), 4),
                 "rounds_cpu_ns": cpu, "rounds_wall_ns": wall})
part = {"trips": int(trips), "rounds": int(rounds), "rows": rows,
        "goal": "window <= 1.10 x no window on a neighbour's context switches"}
with open(path, "w") as f:
    json.dump(part, f)

print(f"two neighbours' {trips} pipe round trips on one CPU a round"
      f" (two switches and two wake-ups each), median of {rounds} rounds")
print(f"{'setting':<16} {'CPU ns':>9} {'x':>6} {'wall ns':>9} {'x':>6} {'x own':>6}")
for r in rows:
    print(f"{r['setting']:<16} {r['cpu_ns']:>9.1f} {r['x_no_window']:>6.3f}"
          f" {r['wall_ns']:>9.1f} {r['x_no_window_wall']:>6.3f}"
          f" {r['x_window_no_sched']:>6.3f}")
print("CPU ns: both processes' CPU time a round trip; x: median of each round's"
      " ratio to its no_window;"
      " goal: window (thread-state hooks on) <= 1.10 x in CPU time;"
      " window_no_sched: the syscall hooks alone; x own: CPU time's ratio to"
      " window_no_sched, the thread-state hooks' own share")
PY
tools/bench/results_put.py "$RESULTS" sched <"$work/part.json" || exit 1
echo "written to $RESULTS under \"sched\""
