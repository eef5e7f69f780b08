#!/bin/bash
# make bench's parts on tiny sizes, each checked for the JSON it writes,
# never for a time (the figures belong to docs/bench.md):
# - per call (tools/bench_calls.sh): its four rows under "per_call" with
#   numbers (bpftrace's may say "not installed"), the results file's other
#   keys kept, and "not installed" when bpftrace is missing;
# - idle (tools/bench_idle.sh): its four states under "idle", in order;
# - neighbours (tools/bench_neighbours.sh): its five rows under
#   "neighbours" (the ioctl tracepoints' may be unavailable where tracefs
#   cannot be mounted);
# - thread states (tools/bench_sched.sh): its four rows under "sched",
#   CPU and wall-clock times with their ratios;
# - osrt (tools/bench_osrt.sh): its four rows under "osrt" in order, the
#   raw hooks' ratio 1, every syscall of the osrt windows recorded, and
#   npu_sample's pair's syscalls with their losses;
# - latency (tools/bench_latency.sh): a run for 1 and for 2 targets under
#   "latency", each with its samples, p50 <= p99 and the goals beside them;
# - loss (tools/bench_loss.sh): with a 4K buffer, so that the search for
#   the rate without loss runs, every point's records and losses add up to
#   the calls made, and npu_sample's pair to the calls its steps make;
# - host-sys (tools/bench_host_sys.sh): its two rows under "host_sys";
# - export (tools/bench_export.sh): both exports' rows, the window's size
#   as the exporter saw it, and the note that it is under the goal's size;
# - python (tools/bench_python.sh): its five settings under "python", every
#   window's calls recorded, stacks counted for the depth rows and none
#   for --python-stack=off (skip where this Python's stacks cannot be
#   taken, or there is no /usr/bin/python3), and the loss check's verdict
#   its counts';
# - the goals table (tools/bench/goals.py) on what ran.
source tests/e2e/lib.sh

for t in call_driver floor libbench_call.so synth_window neighbour pingpong; do
	if [ ! -x "build/tools/$t" ]; then
		skip "the bench" "build/tools/$t not built: make build/tools/call_driver build/tools/floor build/tools/synth_window build/tools/neighbour build/tools/pingpong"
		exit 0
	fi
done

# The checks' common part, in python: check(), number() (a real >= 0),
# positive(), and part, the results file's key argv[2]; arg is argv[3].
read -r -d '' CHECK_PY <<'PY'
import json, numbers, sys

path, key, arg = sys.argv[1:4]
failed = 0

def check(what, cond):
    global failed
    print(("ok " if cond else "FAIL ") + what)
    failed += not cond

def number(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and v >= 0

def positive(v):
    return number(v) and v > 0

try:
    with open(path) as f:
        doc = json.load(f)
except (OSError, ValueError) as e:
    check("%s is well-formed JSON (%s)" % (path, e), False)
    sys.exit(1)
check("the results file's other keys are kept", doc.get("other") == {"kept": 1})
part = doc.get(key, {})
check("the part is under %s" % key, isinstance(part, dict) and part)
PY

# check_part KEY CODE [ARG]: CODE's checks (python, after CHECK_PY) on
# $WORK/results.json; counts a failed one.
check_part() {
	python3 -c "$CHECK_PY
$2
sys.exit(1 if failed else 0)" "$WORK/results.json" "$1" "${3:-}" ||
		CHECKS_FAILED=$((CHECKS_FAILED + 1))
}

# seed: a results file holding another part's key.
seed() {
	echo '{"other": {"kept": 1}}' >"$WORK/results.json"
}

# run_part NAME WHAT [VAR=VALUE...]: tools/bench_NAME.sh once, with the
# VARs, into $WORK/results.json, its output in $WORK/NAME.log and shown;
# checks that WHAT (the part) exits 0.
run_part() {
	local name=$1 what=$2
	shift 2
	env RESULTS="$WORK/results.json" "$@" timeout 300 \
		"tools/bench_$name.sh" >"$WORK/$name.log" 2>&1
	check "$what exits 0" [ $? -eq 0 ]
	show "$WORK/$name.log"
}

# printed NAME WHAT N REGEX: $WORK/NAME.log has N lines matching REGEX.
printed() {
	check "it prints $2" [ "$(grep -cE "$4" "$WORK/$1.log")" = "$3" ]
}

# The per-call part's checks; arg is "measured" or "not installed", what
# bpftrace's row must hold.
read -r -d '' PER_CALL <<'PY'
check("per_call names its size", part.get("calls") == 2000 and part.get("rounds") == 1)
rows = {r.get("setting"): r for r in part.get("rows", [])}
check("four rows: untraced, floor, bpftrace, msprof (%s)" % sorted(rows),
      sorted(rows) == ["bpftrace", "floor", "msprof", "untraced"]
      and len(part.get("rows", [])) == 4)
for name in ("untraced", "floor", "msprof"):
    r = rows.get(name, {})
    # untraced's ratio may round to 0 beside a slow floor
    check("%s: ns per call and ratio to the floor are numbers (%s)" % (name, r),
          positive(r.get("ns_per_call")) and number(r.get("x_floor")))
check("the floor's ratio to itself is 1", rows.get("floor", {}).get("x_floor") == 1)
r = rows.get("bpftrace", {})
if arg == "not installed":
    check("bpftrace's row says not installed (%s)" % r,
          r.get("ns_per_call") == "not installed"
          and part.get("bpftrace_records") == "not installed")
else:
    check("bpftrace's row holds numbers (%s)" % r,
          positive(r.get("ns_per_call")) and positive(r.get("x_floor")))
    check("bpftrace printed every call (%s of 2000)" % part.get("bpftrace_records"),
          number(part.get("bpftrace_records"))
          and part.get("bpftrace_records") >= 2000)
check("msprof recorded every call (%s of 2000)" % part.get("msprof_events"),
      part.get("msprof_events", 0) >= 2000)
PY

# run_bench LOG ENV...: one tiny run into $WORK/results.json, seeded with
# another part's key.
run_bench() {
	local log=$1
	shift
	seed
	env CALLS=2000 ROUNDS=1 RESULTS="$WORK/results.json" "$@" \
		timeout 300 tools/bench_calls.sh >"$log" 2>&1
}

run_bench "$WORK/bench.log"
check "the bench exits 0" [ $? -eq 0 ]
show "$WORK/bench.log"
check "it prints the table's four rows" \
	[ "$(grep -cE '^(untraced|floor|bpftrace|msprof) +([0-9]|not installed)' "$WORK/bench.log")" = 4 ]
if command -v bpftrace >/dev/null; then
	check_part per_call "$PER_CALL" measured
else
	skip "bpftrace's row holds numbers" "bpftrace not installed: make deps"
	check_part per_call "$PER_CALL" "not installed"
fi

run_bench "$WORK/nobt.log" BPFTRACE=/nonexistent/bpftrace
check "without bpftrace the bench exits 0" [ $? -eq 0 ]
show "$WORK/nobt.log"
check_part per_call "$PER_CALL" "not installed"

seed
run_part idle "the idle bench" CALLS=20000 ROUNDS=1
printed idle "the table's four rows" 4 '^(untraced|attached|between|after_quit) +[0-9]'
read -r -d '' IDLE <<'PY'
check("idle names its size", part.get("calls") == 20000 and part.get("rounds") == 1)
rows = part.get("rows", [])
check("untraced, attached, between, after_quit in order (%s)"
      % [r.get("state") for r in rows],
      [r.get("state") for r in rows] ==
      ["untraced", "attached", "between", "after_quit"])
for r in rows:
    check("%s: ns per call and ratio are numbers, one a round (%s)" % (r.get("state"), r),
          positive(r.get("ns_per_call")) and positive(r.get("x_untraced"))
          and len(r.get("rounds_ns", [])) == 1)
check("untraced's ratio to itself is 1", rows[:1] and rows[0].get("x_untraced") == 1)
PY
check_part idle "$IDLE"

seed
run_part neighbours "the neighbours' bench" CALLS=2000 ROUNDS=1
printed neighbours "the table's five rows" 5 \
	'^(untraced|no_window|window|raw_hooks|ioctl_tracepoints) +([0-9]|unavailable)'
read -r -d '' NEIGHBOURS <<'PY'
check("neighbours names its size", part.get("calls") == 2000 and part.get("rounds") == 1)
rows = part.get("rows", [])
names = [r.get("setting") for r in rows]
check("five rows in order (%s)" % names, names == [
    "untraced", "no_window", "window", "raw_hooks", "ioctl_tracepoints"])
fields = ("syscall_ns", "x_no_window_syscall", "ioctl_ns", "x_no_window_ioctl")
for r in rows:
    if r.get("setting") == "ioctl_tracepoints" and r.get("syscall_ns") == "unavailable":
        print("skip the ioctl tracepoints' row (tracefs could not be mounted)")
        continue
    check("%s: times and ratios are numbers (%s)" % (r.get("setting"), r),
          all(positive(r.get(k)) for k in fields)
          and len(r.get("rounds_syscall_ns", [])) == 1)
base = dict(zip(names, rows)).get("no_window", {})
check("no_window's ratios to itself are 1",
      base.get("x_no_window_syscall") == 1 and base.get("x_no_window_ioctl") == 1)
PY
check_part neighbours "$NEIGHBOURS"

seed
run_part sched "the thread states' bench" TRIPS=2000 ROUNDS=1
printed sched "the table's four rows" 4 '^(untraced|no_window|window|window_no_sched) +[0-9]'
read -r -d '' SCHED <<'PY'
check("sched names its size", part.get("trips") == 2000 and part.get("rounds") == 1)
rows = part.get("rows", [])
names = [r.get("setting") for r in rows]
check("four rows in order (%s)" % names,
      names == ["untraced", "no_window", "window", "window_no_sched"])
fields = ("cpu_ns", "x_no_window", "wall_ns", "x_no_window_wall",
          "x_window_no_sched")
for r in rows:
    check("%s: times and ratios are numbers, one a round (%s)" % (r.get("setting"), r),
          all(positive(r.get(k)) for k in fields)
          and len(r.get("rounds_cpu_ns", [])) == 1)
base = dict(zip(names, rows)).get("no_window", {})
check("no_window's ratios to itself are 1",
      base.get("x_no_window") == 1 and base.get("x_no_window_wall") == 1)
PY
check_part sched "$SCHED"

seed
run_part osrt "the osrt bench" CALLS=2000 ROUNDS=1 SAMPLE_STEPS=50
printed osrt "the table's four rows" 4 '^(untraced|raw_hooks|window|osrt) +[0-9]'
read -r -d '' OSRT <<'PY'
check("osrt names its size", part.get("calls") == 2000 and part.get("rounds") == 1)
rows = part.get("rows", [])
names = [r.get("setting") for r in rows]
check("four rows in order (%s)" % names, names == ["untraced", "raw_hooks", "window", "osrt"])
for r in rows:
    check("%s: a time and a ratio (%s)" % (r.get("setting"), r),
          positive(r.get("cpu_ns_per_syscall")) and positive(r.get("x_raw_hooks"))
          and len(r.get("rounds", [])) == 1)
check("the raw hooks' ratio to themselves is 1",
      dict(zip(names, rows)).get("raw_hooks", {}).get("x_raw_hooks") == 1)
check("the osrt window recorded every syscall of its loop (%s)" % part.get("osrt_recorded"),
      number(part.get("osrt_recorded")) and part["osrt_recorded"] >= 2000
      and number(part.get("osrt_lost")))
s = part.get("npu_sample", {})
check("npu_sample's pair: its syscalls and losses (%s)" % s,
      positive(s.get("syscalls")) and number(s.get("lost"))
      and isinstance(s.get("goal_met"), bool) and isinstance(part.get("goal_met"), bool))
PY
check_part osrt "$OSRT"

seed
run_part latency "the latency bench" WINDOWS=3 COUNTS="1 2" HOLD_S=0.05 GAP_S=0.05
printed latency "a row for 1 and for 2 targets" 2 '^ +[12] +3 +[0-9]'
read -r -d '' LATENCY <<'PY'
runs = part.get("runs", [])
check("a run for 1 and for 2 targets (%s)" % [r.get("targets") for r in runs],
      [r.get("targets") for r in runs] == [1, 2])
for r in runs:
    for key in ("start_to_armed_ms", "stop_to_written_ms"):
        v = r.get(key, {})
        s = v.get("samples", [])
        check("%s targets, %s: 3 samples, p50 <= p99, all numbers (%s)"
              % (r.get("targets"), key, v),
              r.get("windows") == 3 and len(s) == 3 and all(map(positive, s))
              and positive(v.get("p50")) and positive(v.get("p99"))
              and v["p50"] <= v["p99"])
    check("%s targets: the goals beside the figures" % r.get("targets"),
          r.get("goal_armed_p99_ms") == 10 and
          r.get("goal_written_p99_ms") == (100 if r.get("targets") == 1 else 300))
PY
check_part latency "$LATENCY"

seed
run_part loss "the loss bench" CALLS=2000 BISECT=1 SAMPLE_STEPS=50 BUFFER=4K
printed loss "the unpaced point and npu_sample's" 2 \
	'^ +unpaced +[0-9]+ +[0-9]+ +[0-9]+$|^npu_sample x2 '
read -r -d '' LOSS <<'PY'
points = part.get("points", [])
check("threads 2, a 4K buffer (%s, %s)" % (part.get("threads"), part.get("ringbuf_bytes")),
      part.get("threads") == 2 and part.get("ringbuf_bytes") == 4096)
check("the unpaced point comes first (%s)" % points[:1],
      points and points[0].get("rate_per_thread") == "unpaced"
      and part.get("unpaced_calls_per_s") == points[0].get("calls_per_s")
      and part.get("unpaced_lost") == points[0].get("lost"))
check("one point more if the unpaced one lost records: the bisection (%d)" % len(points),
      len(points) == (2 if points and points[0].get("lost") else 1))
for p in points:
    check("%s: recorded + lost = the calls made (%s)" % (p.get("rate_per_thread"), p),
          all(number(p.get(k)) for k in ("calls_per_s", "recorded", "lost"))
          and p["recorded"] + p["lost"] == 2 * p.get("calls_per_thread", -1))
clean = [p["calls_per_s"] for p in points if p.get("lost") == 0]
check("the highest rate without loss is the best clean point (%s)" % part.get("max_zero_loss_calls_per_s"),
      part.get("max_zero_loss_calls_per_s") == (max(clean) if clean else 0))
s = part.get("npu_sample", {})
# 8 API calls and 8 ioctls a step, 8 calls and 5 ioctls to tear down.
check("npu_sample x2: recorded + lost = 2 x (16 x 50 + 13) (%s)" % s,
      number(s.get("events_per_s")) and s.get("processes") == 2
      and s.get("recorded", 0) + s.get("lost", 0) == 2 * (16 * 50 + 13))
check("the goal is met exactly when npu_sample lost nothing",
      part.get("goal_met") == (s.get("lost") == 0))
PY
check_part loss "$LOSS"

seed
run_part host_sys "the host-sys bench" SECS=1 ROUNDS=1 THREADS=16
read -r -d '' HOST_SYS <<'PY'
check("host_sys names its size", part.get("threads") == 16 and part.get("secs") == 1
      and part.get("rounds") == 1 and positive(part.get("processes")))
rows = part.get("rows", [])
check("two rows, target and usage (%s)" % [r.get("setting") for r in rows],
      [r.get("setting") for r in rows] == ["target", "usage"])
for r in rows:
    check("%s: the sampler's CPU and its samples a second are numbers (%s)" % (r.get("setting"), r),
          number(r.get("cpu_pct")) and positive(r.get("samples_per_s")))
PY
check_part host_sys "$HOST_SYS"

seed
run_part export "the export bench" EXPORT_STEPS=2000
check "it says the window is under the goal's size" \
	grep -q '^note: fewer than 1000000 events' "$WORK/export.log"
read -r -d '' EXPORT <<'PY'
# A step: our 2 calls and ioctl, its device task, the runtime's call
# and, but every fourth (a copy), its node launch.
check("11500 events, all in the db (%s, %s)" % (part.get("events"), part.get("events_exported")),
      part.get("steps") == 2000 and part.get("events") == 11500
      and part.get("events_exported") == 11500)
check("huawei's export not given (%s)" % part.get("huawei"),
      part.get("huawei") == {"given": False})
check("too small a window for the goal", part.get("window_large_enough") is False)
rows = part.get("rows", [])
check("two rows, text and db (%s)" % [r.get("export") for r in rows],
      [r.get("export") for r in rows] == ["text", "db"])
for r in rows:
    check("%s: numbers, and the goal not met on a small window (%s)" % (r.get("export"), r),
          all(number(r.get(k)) for k in ("seconds", "events_per_s", "x_target", "peak_rss_kib", "x_limit"))
          and r["peak_rss_kib"] > 0 and r.get("goal_met") is False)
PY
check_part export "$EXPORT"

# The Python part adds its key beside the export's (no new seed), so that
# the goals table below has both.
# BENCH_PYTHON names another Python to drive it (one that is not there
# shows the skip).  At 2000 calls a window's records fit the ring buffer
# however late msprof reads them, so "none lost" is no timing.
py=${BENCH_PYTHON:-/usr/bin/python3}
ran_python=
if [ ! -x "$py" ]; then
	skip "the Python bench" "no $py: make deps"
else
	ran_python=1
	run_part python "the Python bench" CALLS=2000 ROUNDS=1 PYTHON="$py"
	printed python "the table's five rows" 5 '^(untraced|floor|off|depth8|depth32) +[0-9]'
	read -r -d '' PYTHON <<'PY'
check("python names its size", part.get("calls") == 2000 and part.get("rounds") == 1
      and part.get("frames") == 64 and isinstance(part.get("python"), str))
check("the export's key is kept beside it", "export" in doc)
rows = part.get("rows", [])
names = [r.get("setting") for r in rows]
check("five rows in order (%s)" % names,
      names == ["untraced", "floor", "off", "depth8", "depth32"])
for r in rows:
    check("%s: CPU and wall times and ratios are numbers, one a round (%s)"
          % (r.get("setting"), r),
          all(positive(r.get(k)) for k in ("cpu_ns_per_call", "wall_ns_per_call",
                                           "x_floor_cpu", "x_floor_wall", "calls_per_s"))
          and len(r.get("rounds_cpu_ns", [])) == 1)
rows = dict(zip(names, rows))
check("the floor's ratios to itself are 1",
      rows.get("floor", {}).get("x_floor_cpu") == 1
      and rows.get("floor", {}).get("x_floor_wall") == 1)
for name in ("off", "depth8", "depth32"):
    r = rows.get(name, {})
    check("%s: every call recorded, none lost (%s of 2000, %s lost)"
          % (name, r.get("recorded"), r.get("lost")),
          r.get("recorded") == 2000 and r.get("lost") == 0)
check("off: no stacks taken (%s)" % rows.get("off", {}).get("with_stack"),
      rows.get("off", {}).get("with_stack") == 0)
for name in ("off", "depth8", "depth32"):
    b = rows.get(name, {}).get("bpf_ns_per_call")
    check("%s: the call programs' own time a call, or why not (%s)" % (name, b),
          positive(b) or b == "not kept")
why = part.get("no_stacks_why")
for name in ("depth8", "depth32"):
    r = rows.get(name, {})
    # over off may be below 0 at this size: a number, any sign
    check("%s: its extra over off is a number, its goal a verdict (%s)" % (name, r),
          isinstance(r.get("extra_cpu_ns_over_off"), (int, float))
          and isinstance(r.get("goal_met"), bool))
    if why:
        print("skip %s: stacks counted (msprof took none: %s)" % (name, why))
        continue
    check("%s: stacks counted, no more than the calls (%s of %s)"
          % (name, r.get("with_stack"), r.get("stack_calls")),
          0 < r.get("with_stack", 0) <= r.get("stack_calls", -1) == 2000
          and r.get("stacks_taken") is True)
s = part.get("loss", {})
check("loss: the deepest setting's window, its verdict its counts' (%s)" % s,
      s.get("setting") == "depth32" and s.get("recorded") == 2000
      and number(s.get("calls_per_s")) and number(s.get("lost"))
      and s.get("goal_met") == (s.get("lost") == 0 and s.get("stacks_lost") == 0
                                and s.get("with_stack", 0) > 0))
PY
	check_part python "$PYTHON"
fi

# make bench's last word: a row per goal from the results file, and a part
# that did not run said to be so (here only the export and the Python part
# ran).
tools/bench/goals.py "$WORK/results.json" >"$WORK/goals.log" 2>&1
check "the goals table exits 0" [ $? -eq 0 ]
show "$WORK/goals.log"
check "the export's goals, not met on a small window" \
	[ "$(grep -c '^export .*NOT met$' "$WORK/goals.log")" = 2 ]
if [ -n "$ran_python" ]; then
	check "the Python part's five goals, each met or not" \
		[ "$(grep -cE '^(Python depth (8|32): |zero loss, unpaced Python ).* (met|NOT met)$' "$WORK/goals.log")" = 5 ]
	check "the eight parts that did not run say so" \
		[ "$(grep -c ' not run ' "$WORK/goals.log")" = 8 ]
else
	check "the nine parts that did not run say so" \
		[ "$(grep -c ' not run ' "$WORK/goals.log")" = 9 ]
fi
