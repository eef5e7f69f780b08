#!/bin/bash
# make bench's parts on tiny sizes.  The per-call part
# (tools/bench_calls.sh) runs, writes its four rows under "per_call" with
# numbers (bpftrace's may say "not installed"), keeps the results file's
# other keys, and says "not installed" when bpftrace is missing; the idle
# part (bench_idle.sh) writes its four states under "idle", the latency
# part (bench_latency.sh) its runs under "latency".  No time is asserted:
# the figures belong to docs/bench.md.
source tests/e2e/lib.sh

for t in call_driver floor libbench_call.so; do
	if [ ! -x "build/tools/$t" ]; then
		skip "the per-call bench" "build/tools/$t not built: make build/tools/call_driver build/tools/floor"
		exit 0
	fi
done

# check_results FILE BPFTRACE: the checks on one run's file; BPFTRACE is
# "measured" or "not installed", what its row must hold.
check_results() {
	python3 - "$1" "$2" <<'PY'
import json, numbers, sys

path, bpftrace = sys.argv[1:3]
failed = 0

def check(what, cond):
    global failed
    print(("ok " if cond else "FAIL ") + what)
    failed += not cond

def number(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and v > 0

try:
    with open(path) as f:
        doc = json.load(f)
except (OSError, ValueError) as e:
    check("%s is well-formed JSON (%s)" % (path, e), False)
    sys.exit(1)
check("the results file's other keys are kept", doc.get("other") == {"kept": 1})
part = doc.get("per_call", {})
check("per_call names its size", part.get("calls") == 2000 and part.get("rounds") == 1)
rows = {r.get("setting"): r for r in part.get("rows", [])}
check("four rows: untraced, floor, bpftrace, msprof (%s)" % sorted(rows),
      sorted(rows) == ["bpftrace", "floor", "msprof", "untraced"]
      and len(part.get("rows", [])) == 4)
for name in ("untraced", "floor", "msprof"):
    r = rows.get(name, {})
    check("%s: ns per call and ratio to the floor are numbers (%s)" % (name, r),
          number(r.get("ns_per_call")) and number(r.get("x_floor")))
check("the floor's ratio to itself is 1", rows.get("floor", {}).get("x_floor") == 1)
r = rows.get("bpftrace", {})
if bpftrace == "not installed":
    check("bpftrace's row says not installed (%s)" % r,
          r.get("ns_per_call") == "not installed"
          and part.get("bpftrace_records") == "not installed")
else:
    check("bpftrace's row holds numbers (%s)" % r,
          number(r.get("ns_per_call")) and number(r.get("x_floor")))
    check("bpftrace printed every call (%s of 2000)" % part.get("bpftrace_records"),
          number(part.get("bpftrace_records"))
          and part.get("bpftrace_records") >= 2000)
check("msprof recorded every call (%s of 2000)" % part.get("msprof_events"),
      part.get("msprof_events", 0) >= 2000)
sys.exit(1 if failed else 0)
PY
}

# run_bench LOG ENV...: one tiny run into $WORK/results.json, seeded with
# another part's key.
run_bench() {
	local log=$1
	shift
	echo '{"other": {"kept": 1}}' >"$WORK/results.json"
	env CALLS=2000 ROUNDS=1 RESULTS="$WORK/results.json" "$@" \
		timeout 300 tools/bench_calls.sh >"$log" 2>&1
}

run_bench "$WORK/bench.log"
check "the bench exits 0" [ $? -eq 0 ]
show "$WORK/bench.log"
check "it prints the table's four rows" \
	[ "$(grep -cE '^(untraced|floor|bpftrace|msprof) +([0-9]|not installed)' "$WORK/bench.log")" = 4 ]
if command -v bpftrace >/dev/null; then
	check_results "$WORK/results.json" measured || CHECKS_FAILED=$((CHECKS_FAILED + 1))
else
	skip "bpftrace's row holds numbers" "bpftrace not installed: make deps"
	check_results "$WORK/results.json" "not installed" || CHECKS_FAILED=$((CHECKS_FAILED + 1))
fi

run_bench "$WORK/nobt.log" BPFTRACE=/nonexistent/bpftrace
check "without bpftrace the bench exits 0" [ $? -eq 0 ]
show "$WORK/nobt.log"
check_results "$WORK/results.json" "not installed" || CHECKS_FAILED=$((CHECKS_FAILED + 1))

# The idle part (tools/bench_idle.sh) and the latency part
# (tools/bench_latency.sh) on tiny sizes, into one file seeded with another
# key: each writes its own key and keeps the others.  Shapes only.
echo '{"other": {"kept": 1}}' >"$WORK/parts.json"
CALLS=20000 ROUNDS=1 RESULTS="$WORK/parts.json" timeout 300 tools/bench_idle.sh \
	>"$WORK/idle.log" 2>&1
check "the idle bench exits 0" [ $? -eq 0 ]
show "$WORK/idle.log"
check "it prints the table's four rows" \
	[ "$(grep -cE '^(untraced|attached|between|after_quit) +[0-9]' "$WORK/idle.log")" = 4 ]
WINDOWS=3 COUNTS="1 2" HOLD_S=0.05 GAP_S=0.05 RESULTS="$WORK/parts.json" timeout 300 \
	tools/bench_latency.sh >"$WORK/latency.log" 2>&1
check "the latency bench exits 0" [ $? -eq 0 ]
show "$WORK/latency.log"
check "it prints a row for 1 and for 2 targets" \
	[ "$(grep -cE '^ +[12] +3 +[0-9]' "$WORK/latency.log")" = 2 ]
python3 - "$WORK/parts.json" <<'PY' || CHECKS_FAILED=$((CHECKS_FAILED + 1))
import json, numbers, sys

failed = 0

def check(what, cond):
    global failed
    print(("ok " if cond else "FAIL ") + what)
    failed += not cond

def number(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and v > 0

try:
    with open(sys.argv[1]) as f:
        doc = json.load(f)
except (OSError, ValueError) as e:
    check("%s is well-formed JSON (%s)" % (sys.argv[1], e), False)
    sys.exit(1)
check("both parts keep the file's other keys", doc.get("other") == {"kept": 1})
idle = doc.get("idle", {})
check("idle names its size", idle.get("calls") == 20000 and idle.get("rounds") == 1)
rows = idle.get("rows", [])
check("idle: untraced, attached, between, after_quit in order (%s)"
      % [r.get("state") for r in rows],
      [r.get("state") for r in rows] ==
      ["untraced", "attached", "between", "after_quit"])
for r in rows:
    check("idle %s: ns per call and ratio are numbers, one a round (%s)"
          % (r.get("state"), r),
          number(r.get("ns_per_call")) and number(r.get("x_untraced"))
          and len(r.get("rounds_ns", [])) == 1)
check("idle: untraced's ratio to itself is 1",
      rows[:1] and rows[0].get("x_untraced") == 1)
runs = doc.get("latency", {}).get("runs", [])
check("latency: a run for 1 and for 2 targets (%s)"
      % [r.get("targets") for r in runs],
      [r.get("targets") for r in runs] == [1, 2])
for r in runs:
    for key in ("start_to_armed_ms", "stop_to_written_ms"):
        v = r.get(key, {})
        s = v.get("samples", [])
        check("latency, %s targets, %s: 3 samples, p50 <= p99, all numbers (%s)"
              % (r.get("targets"), key, v),
              r.get("windows") == 3 and len(s) == 3 and all(map(number, s))
              and number(v.get("p50")) and number(v.get("p99"))
              and v["p50"] <= v["p99"])
    check("latency, %s targets: the goals beside the figures" % r.get("targets"),
          r.get("goal_armed_p99_ms") == 10 and
          r.get("goal_written_p99_ms") == (100 if r.get("targets") == 1 else 300))
sys.exit(1 if failed else 0)
PY
