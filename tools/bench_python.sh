#!/bin/bash
# make bench, Python part: what walking the caller's Python stack adds to a
# probed call.  tools/bench/py_driver.py (under PYTHON, Debian's python3 by
# default) calls libbench_call.so's bench_call() CALLS times through ctypes
# from FRAMES nested Python calls; each round times that loop in each
# setting, one after the other: untraced; the floor (build/tools/floor's
# empty uprobe and uretprobe); msprof with --python-stack=off; msprof with
# --python-depth=N for each N in DEPTHS (default 8 and 32).  FRAMES is deeper than
# any depth asked, so every walk takes as many frames as it may.  Each
# figure is the median over ROUNDS rounds, in the driver's CPU time (the
# traps and the BPF programs run in its context, other work on the machine
# does not) with the wall-clock time beside it.  Each window's record
# counts come from its msprof_ebpf_window.json and its stack counts from
# msprof's "Python stacks: X of Y calls" line, so a fast row that walked
# nothing shows; the deepest setting's windows, each an unpaced loop (as
# fast as Python makes the call: no Python task launches faster), are the
# check that nothing is lost.  Prints a table and writes the figures under
# "python" in RESULTS (bench/results.json; its other keys are kept).
set -u
cd "$(dirname "$0")/.." || exit 1
CALLS=${CALLS:-200000}
ROUNDS=${ROUNDS:-5}
FRAMES=${FRAMES:-64}
DEPTHS=${DEPTHS:-8 32}
PYTHON=${PYTHON:-/usr/bin/python3}
RESULTS=${RESULTS:-bench/results.json}
TOOLS=$PWD/build/tools
MSPROF=$PWD/build/bin/msprof
LIB=$TOOLS/libbench_call.so
FUNC=bench_call
DRIVER=("$PYTHON" "$PWD/tools/bench/py_driver.py" --frames="$FRAMES" "$LIB")
# A loop's bound: 100 us a call is several times the slowest seen here.
LOOP_S=$((30 + CALLS / 10000))
LOOP_FIELD=cpu_ns_per_call

BENCH=bench_python
source tools/bench/lib.sh
need_tools "$TOOLS/floor" "$LIB" "$MSPROF"
[ -x "$PYTHON" ] || fail "no $PYTHON (PYTHON names the Python to drive the calls)"
case "$FRAMES" in
'' | *[!0-9]*) fail "FRAMES is a whole number" ;;
esac
settings="untraced floor off"
for d in $DEPTHS; do
	case $d in
	'' | *[!0-9]*) fail "DEPTHS are whole numbers" ;;
	esac
	# 3.12 and 3.13 take 16 frames past the depth, for their shims.
	[ $((d + 16)) -lt "$FRAMES" ] ||
		fail "FRAMES ($FRAMES) must exceed each depth by more than 16 ($d)"
	settings+=" depth$d"
done
deepest=${settings##* }
pyversion=$("$PYTHON" -c 'import platform; print(platform.python_version())') ||
	fail "$PYTHON does not run"

work=$(mktemp -d /tmp/msprof-bench-python.XXXXXX) || exit 1
trap finish EXIT

# py_stacks: "X Y L" of the window's "Python stacks: X of Y calls (...,
# L lost: ring buffer full)" line in msprof.log; 0 each where msprof took
# no stacks (off, or a Python it cannot walk: py_why says why).
py_stacks() {
	local l x y lost
	l=$(grep -o 'Python stacks: .*' "$work/msprof.log" | tail -1)
	x=$(sed -n 's/^Python stacks: \([0-9]*\) of .*/\1/p' <<<"$l")
	y=$(sed -n 's/^Python stacks: [0-9]* of \([0-9]*\) calls.*/\1/p' <<<"$l")
	lost=$(sed -n 's/.*[^0-9]\([0-9][0-9]*\) lost: ring buffer full.*/\1/p' <<<"$l")
	echo "${x:-0} ${y:-0} ${lost:-0}"
}

start_driver
# One line a loop: SETTING CPU_NS WALL_NS CALLS_PER_S STACKS PY_CALLS PY_LOST.
: >"$work/loops"
for _ in $(seq "$ROUNDS"); do
	for s in $settings; do
		case $s in
		untraced) one_loop ;;
		floor) floor_loop ;;
		off) msprof_loop "$work/out_$s" --python-stack=off ;;
		*) msprof_loop "$work/out_$s" --python-depth="${s#depth}" ;;
		esac
		counts="0 0 0"
		if [ "$s" != untraced ] && [ "$s" != floor ]; then
			counts=$(py_stacks)
			sed -n 's/.*no Python stacks: //p' "$work/msprof.log" >>"$work/py_why"
		fi
		echo "$s $last $(loop_field ns_per_call) $rate $counts" >>"$work/loops"
	done
done
# One line a msprof setting: SETTING RECORDED LOST, over its windows.
: >"$work/windows"
for s in $settings; do
	[ -d "$work/out_$s" ] || continue
	echo "$s $(host_sum "$work/out_$s" api_events) $(host_sum "$work/out_$s" lost_events)" \
		>>"$work/windows"
done
py_why=$(head -1 "$work/py_why" 2>/dev/null)

mkdir -p "$(dirname "$RESULTS")" || exit 1
python3 - "$work/part.json" "$CALLS" "$ROUNDS" "$FRAMES" "$pyversion" \
	"$deepest" "$work/loops" "$work/windows" "$py_why" <<'PY' || exit 1
import json, statistics, sys

path, calls, rounds, frames, pyversion, deepest, loops, windows, why = sys.argv[1:10]
calls, rounds = int(calls), int(rounds)
EXTRA_NS, X_FLOOR = 1000, 1.15
runs = {}
for line in open(loops):
    s, cpu, wall, rate, stacks, pycalls, pylost = line.split()
    r = runs.setdefault(s, {"cpu": [], "wall": [], "rate": [], "stacks": 0,
                            "py_calls": 0, "py_lost": 0})
    r["cpu"].append(float(cpu))
    r["wall"].append(float(wall))
    r["rate"].append(int(rate))
    r["stacks"] += int(stacks)
    r["py_calls"] += int(pycalls)
    r["py_lost"] += int(pylost)
recs = {s: (int(a), int(b)) for s, a, b in (l.split() for l in open(windows))}
med = {s: {k: statistics.median(r[k]) for k in ("cpu", "wall", "rate")}
       for s, r in runs.items()}
floor = med["floor"]


def paired_extra(s, k):
    """The median of the rounds' differences from off: a round's two loops
    ran one after the other, so what the machine did then weighs on both."""
    return statistics.median(a - b for a, b in zip(runs[s][k], runs["off"][k]))


rows = []
for s, r in runs.items():
    row = {"setting": s,
           "python_depth": int(s[5:]) if s.startswith("depth") else
           ("off" if s == "off" else None),
           "cpu_ns_per_call": round(med[s]["cpu"], 2),
           "wall_ns_per_call": round(med[s]["wall"], 2),
           "x_floor_cpu": round(med[s]["cpu"] / floor["cpu"], 4),
           "x_floor_wall": round(med[s]["wall"] / floor["wall"], 4),
           "calls_per_s": round(med[s]["rate"]),
           "rounds_cpu_ns": r["cpu"], "rounds_wall_ns": r["wall"]}
    if s in recs:
        row.update(recorded=recs[s][0], lost=recs[s][1], with_stack=r["stacks"],
                   stack_calls=r["py_calls"], stacks_lost=r["py_lost"])
    if s.startswith("depth"):
        ex = paired_extra(s, "cpu")
        row.update(extra_cpu_ns_over_off=round(ex, 2),
                   extra_wall_ns_over_off=round(paired_extra(s, "wall"), 2),
                   stacks_taken=r["stacks"] > 0,
                   goal_met=r["stacks"] > 0 and ex <= EXTRA_NS
                   and row["x_floor_cpu"] <= X_FLOOR)
    rows.append(row)
deep = next(r for r in rows if r["setting"] == deepest)
loss = {"setting": deepest, "windows": rounds, "calls_per_window": calls,
        "calls_per_s": deep["calls_per_s"], "recorded": deep["recorded"],
        "lost": deep["lost"], "with_stack": deep["with_stack"],
        "stacks_lost": deep["stacks_lost"],
        "goal_met": deep["lost"] == 0 and deep["stacks_lost"] == 0
        and deep["with_stack"] > 0 and deep["recorded"] == calls * rounds}
part = {"calls": calls, "rounds": rounds, "frames": int(frames),
        "python": pyversion, "figure": "cpu_ns_per_call",
        "no_stacks_why": why or None, "rows": rows, "loss": loss,
        "goal": f"depth N: <= {EXTRA_NS} ns a call over off and "
                f"<= {X_FLOOR} x the floor (CPU time); zero loss unpaced",
        "goal_extra_ns": EXTRA_NS, "goal_x_floor": X_FLOOR}
with open(path, "w") as f:
    json.dump(part, f)

print(f"{calls} calls of bench_call() a round from Python {pyversion}, "
      f"{frames} frames deep, median of {rounds} rounds")
print(f"{'setting':<9} {'cpu ns':>9} {'x floor':>8} {'wall ns':>9} {'x floor':>8}"
      f" {'over off':>9} {'recorded':>9} {'lost':>6} {'stacks':>9}")
for r in rows:
    over = (f"{r['extra_cpu_ns_over_off']:+9.1f}"
            if "extra_cpu_ns_over_off" in r else f"{'':>9}")
    counts = (f" {r['recorded']:>9} {r['lost']:>6} {r['with_stack']:>9}"
              if "recorded" in r else "")
    print(f"{r['setting']:<9} {r['cpu_ns_per_call']:>9.1f} {r['x_floor_cpu']:>8.3f}"
          f" {r['wall_ns_per_call']:>9.1f} {r['x_floor_wall']:>8.3f} {over}{counts}".rstrip())
print("(cpu: the driver's CPU time a call, the goals' figure; wall beside it;"
      " over off: the median of the rounds' CPU differences)")
if why:
    print(f"msprof took no stacks: {why}")
for r in rows:
    if r["setting"].startswith("depth"):
        print(f"{r['setting']}: {r['extra_cpu_ns_over_off']:+.1f} ns a call over off "
              f"(wall {r['extra_wall_ns_over_off']:+.1f}), {r['x_floor_cpu']:.3f} x the floor"
              f"; goal (<= {EXTRA_NS} ns, <= {X_FLOOR} x): "
              + ("met" if r["goal_met"] else
                 "not met" if r["stacks_taken"] else "no stacks were taken"))
print(f"unpaced at {deepest}: {loss['calls_per_s']} calls/s, {loss['recorded']} of "
      f"{calls * rounds} recorded, {loss['lost']} lost, {loss['with_stack']} with a stack, "
      f"{loss['stacks_lost']} stacks lost; goal (zero loss): "
      + ("met" if loss["goal_met"] else "not met"))
PY
tools/bench/results_put.py "$RESULTS" python <"$work/part.json" || exit 1
echo "written to $RESULTS under \"python\""
