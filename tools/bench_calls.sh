#!/bin/bash
# make bench, per-call part: what one probed call costs, as ratios to the
# floor measured in the same run.  build/tools/call_driver calls
# libbench_call.so's bench_call() CALLS times in a tight loop; each round
# times that loop in four settings, one after the other: untraced; the floor
# (build/tools/floor: an empty uprobe and uretprobe of our own); bpftrace
# recording what msprof records (entry time by tid, one line per return with
# tid and duration); msprof collecting (--host-only=on --uprobe, a window
# open).  Each figure is the median over ROUNDS rounds.  Prints a table and
# writes the figures under "per_call" in RESULTS (bench/results.json; its
# other keys are kept).  BPFTRACE names the bpftrace to run.
set -u
cd "$(dirname "$0")/.." || exit 1
CALLS=${CALLS:-200000}
ROUNDS=${ROUNDS:-5}
RESULTS=${RESULTS:-bench/results.json}
BPFTRACE=${BPFTRACE:-bpftrace}
TOOLS=$PWD/build/tools
MSPROF=$PWD/build/bin/msprof
LIB=$TOOLS/libbench_call.so
FUNC=bench_call
SETTINGS="untraced floor bpftrace msprof"
# A loop's bound: 100 us a call is several times the slowest seen here.
LOOP_S=$((30 + CALLS / 10000))

BENCH=bench_calls
source tools/bench/lib.sh
need_tools "$TOOLS/call_driver" "$TOOLS/floor" "$LIB" "$MSPROF"

work=$(mktemp -d /tmp/msprof-bench-calls.XXXXXX) || exit 1
trap finish EXIT

bpftrace_loop() {
	cat >"$work/calls.bt" <<-BT
	uprobe:$LIB:$FUNC { @entry[tid] = nsecs; }
	uretprobe:$LIB:$FUNC /@entry[tid]/ {
		printf("%d %d\n", tid, nsecs - @entry[tid]);
		delete(@entry[tid]);
	}
	BEGIN { printf("bench attached\n"); }
	BT
	# BEGIN runs once every probe is attached.
	"$BPFTRACE" -p "$driver" "$work/calls.bt" >"$work/bpftrace.log" 2>&1 &
	helper=$!
	await "$work/bpftrace.log" 'bench attached' 60 "$helper"
	one_loop
	end_helper bpftrace INT
	bt_lines=$((bt_lines + $(grep -cE '^[0-9]+ [0-9]+$' "$work/bpftrace.log")))
}

start_driver

have_bpftrace=1
command -v "$BPFTRACE" >/dev/null 2>&1 || have_bpftrace=

# Interleaved: every setting once a round, so that what else the machine
# does weighs on all four alike.
declare -A ns
bt_lines=0	# bpftrace's records, all rounds together
for _ in $(seq "$ROUNDS"); do
	for s in $SETTINGS; do
		case $s in
		untraced) one_loop ;;
		bpftrace) [ -n "$have_bpftrace" ] || continue
			bpftrace_loop ;;
		msprof) msprof_loop "$work/out" ;;
		*) "${s}_loop" ;;
		esac
		ns[$s]+="$last "
	done
done
events=$(host_sum "$work/out" api_events)
lost=$(host_sum "$work/out" lost_events)

mkdir -p "$(dirname "$RESULTS")" || exit 1
python3 - "$work/part.json" "$CALLS" "$ROUNDS" "$events" "$lost" "$bt_lines" \
	"${ns[untraced]}" "${ns[floor]}" "${ns[bpftrace]:-}" "${ns[msprof]}" <<'PY' || exit 1
import json, statistics, sys

path, calls, rounds, events, lost, bt_lines = sys.argv[1:7]
names = ("untraced", "floor", "bpftrace", "msprof")
runs = {n: [float(v) for v in a.split()] for n, a in zip(names, sys.argv[7:11])}
floor = statistics.median(runs["floor"])
rows = []
for n in names:
    if not runs[n]:
        rows.append({"setting": n, "ns_per_call": "not installed",
                     "x_floor": "not installed", "rounds_ns": []})
        continue
    med = statistics.median(runs[n])
    rows.append({"setting": n, "ns_per_call": round(med, 2),
                 "x_floor": round(med / floor, 4), "rounds_ns": runs[n]})
part = {
    "calls": int(calls), "rounds": int(rounds),
    "rows": rows,
    "msprof_events": int(events), "msprof_lost": int(lost),
    "bpftrace_records": int(bt_lines) if runs["bpftrace"] else "not installed",
    "goal": "msprof <= 1.08 x floor and below bpftrace",
}
with open(path, "w") as f:
    json.dump(part, f)

print(f"{calls} calls of bench_call() a round, median of {rounds} rounds")
print(f"{'setting':<10} {'ns/call':>12} {'x floor':>9}")
for r in rows:
    if isinstance(r["ns_per_call"], str):
        print(f"{r['setting']:<10} {'not installed':>12}")
    else:
        print(f"{r['setting']:<10} {r['ns_per_call']:>12.1f} {r['x_floor']:>9.3f}")
if runs["bpftrace"]:
    print(f"bpftrace printed {bt_lines} records over its {rounds} runs")
print(f"msprof recorded {events} calls ({lost} lost) over its {rounds} windows;"
      " goal: msprof <= 1.08 x floor, and below bpftrace")
PY
tools/bench/results_put.py "$RESULTS" per_call <"$work/part.json" || exit 1
echo "written to $RESULTS under \"per_call\""
