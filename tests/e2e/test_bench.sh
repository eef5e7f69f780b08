#!/bin/bash
# make bench's per-call part (tools/bench_calls.sh) on a tiny size: it runs,
# writes its four rows under "per_call" with numbers (bpftrace's may say
# "not installed"), keeps the results file's other keys, and says "not
# installed" when bpftrace is missing.  The neighbours' part
# (tools/bench_neighbours.sh) the same way: its five rows under
# "neighbours".  No time is asserted: the figures belong to docs/bench.md.
source tests/e2e/lib.sh

for t in call_driver floor libbench_call.so neighbour; do
	if [ ! -x "build/tools/$t" ]; then
		skip "make bench's parts" "build/tools/$t not built: make build/tools/call_driver build/tools/floor build/tools/neighbour"
		exit 0
	fi
done

# check_results FILE PART [BPFTRACE]: the checks on one run's file, for
# PART per_call or neighbours; BPFTRACE is "measured" or "not installed",
# what per_call's bpftrace row must hold.
check_results() {
	python3 - "$@" <<'PY'
import json, numbers, sys

path, part_name = sys.argv[1:3]
failed = 0

def check(what, cond):
    global failed
    print(("ok " if cond else "FAIL ") + what)
    failed += not cond

def number(v):
    return isinstance(v, numbers.Real) and not isinstance(v, bool) and v > 0

def per_call(part, bpftrace):
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

def neighbours(part):
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
              all(number(r.get(k)) for k in fields)
              and len(r.get("rounds_syscall_ns", [])) == 1)
    base = dict(zip(names, rows)).get("no_window", {})
    check("no_window's ratios to itself are 1",
          base.get("x_no_window_syscall") == 1 and base.get("x_no_window_ioctl") == 1)

try:
    with open(path) as f:
        doc = json.load(f)
except (OSError, ValueError) as e:
    check("%s is well-formed JSON (%s)" % (path, e), False)
    sys.exit(1)
check("the results file's other keys are kept", doc.get("other") == {"kept": 1})
if part_name == "per_call":
    per_call(doc.get("per_call", {}), sys.argv[3])
else:
    neighbours(doc.get("neighbours", {}))
sys.exit(1 if failed else 0)
PY
}

# The results file as another part left it.
seed() {
	echo '{"other": {"kept": 1}}' >"$WORK/results.json"
}

# run_bench LOG ENV...: one tiny run of the per-call part into
# $WORK/results.json.
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
	check_results "$WORK/results.json" per_call measured || CHECKS_FAILED=$((CHECKS_FAILED + 1))
else
	skip "bpftrace's row holds numbers" "bpftrace not installed: make deps"
	check_results "$WORK/results.json" per_call "not installed" || CHECKS_FAILED=$((CHECKS_FAILED + 1))
fi

run_bench "$WORK/nobt.log" BPFTRACE=/nonexistent/bpftrace
check "without bpftrace the bench exits 0" [ $? -eq 0 ]
show "$WORK/nobt.log"
check_results "$WORK/results.json" per_call "not installed" || CHECKS_FAILED=$((CHECKS_FAILED + 1))


# The neighbours' part (its ioctl tracepoints' row may be unavailable
# where tracefs cannot be mounted).
seed
CALLS=2000 ROUNDS=1 RESULTS="$WORK/results.json" \
	timeout 300 tools/bench_neighbours.sh >"$WORK/neighbours.log" 2>&1
check "the neighbours' bench exits 0" [ $? -eq 0 ]
show "$WORK/neighbours.log"
check "it prints the table's five rows" \
	[ "$(grep -cE '^(untraced|no_window|window|raw_hooks|ioctl_tracepoints) +([0-9]|unavailable)' "$WORK/neighbours.log")" = 5 ]
check_results "$WORK/results.json" neighbours || CHECKS_FAILED=$((CHECKS_FAILED + 1))
