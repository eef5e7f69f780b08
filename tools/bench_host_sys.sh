#!/bin/bash
# make bench, host-sys part: what the /proc sampler of --host-sys costs.
# The target is build/tests/hostsys_cases with 255 idle threads (256 in
# all); msprof --host-only=on attaches to it and opens a window of SECS
# seconds, ROUNDS times for each setting:
#   target: --host-sys=cpu,mem,disk,network (msprof's 50 Hz, the goal's);
#   usage:  the same and --host-sys-usage=cpu,mem at 50 Hz (every process
#           of the machine, as msprof's collector reads them: no goal).
# The figure is the sampler thread's own CPU time (msprof-hostsys, its
# schedstat) over the window's wall time, as % of one core; each is the
# median over ROUNDS.  The goal: the target setting <= 2 % of a core.
# Prints a table and writes the figures under "host_sys" in RESULTS
# (bench/results.json; its other keys are kept).
set -u
cd "$(dirname "$0")/.." || exit 1
BENCH=bench_host_sys
source tools/bench/lib.sh
SECS=${SECS:-10}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-256}
RESULTS=${RESULTS:-bench/results.json}
MSPROF=$PWD/build/bin/msprof
CASES=$PWD/build/tests/hostsys_cases

for f in "$MSPROF" "$CASES"; do
	[ -x "$f" ] || fail "$f is missing: make all ${f#"$PWD"/}"
done
case "$SECS$ROUNDS$THREADS" in
*[!0-9]*) fail "SECS, ROUNDS and THREADS are whole numbers" ;;
esac
[ "$SECS" -gt 0 ] && [ "$ROUNDS" -gt 0 ] && [ "$THREADS" -gt 0 ] ||
	fail "SECS, ROUNDS and THREADS must be at least 1"

work=$(mktemp -d /tmp/msprof-bench-host-sys.XXXXXX) || exit 1
driver=
trap finish EXIT

"$CASES" --idle-threads $((THREADS - 1)) --wait both --wait-s 3600 \
	>"$work/driver.log" 2>&1 &
driver=$!
await "$work/driver.log" ready 30 "$driver"

# sampler_ns: the sampler thread's CPU ns (schedstat), "" while it is not there.
sampler_ns() {
	local t
	for t in /proc/"$helper"/task/*; do
		[ "$(cat "$t/comm" 2>/dev/null)" = msprof-hostsys ] || continue
		cut -d' ' -f1 "$t/schedstat"
		return
	done
}

# one_round OPTS...: a window of SECS with msprof OPTS; sets last_pct (the
# sampler's CPU %) and last_rate (its samples a second).
one_round() {
	local c0 c1 t0 t1 rate
	msprof_open --host-only=on --ascendcl=off --pid="$driver" \
		--output="$work/out" "$@"
	msprof_say start 'collection started' 30
	for _ in $(seq 100); do
		c0=$(sampler_ns)
		[ -n "$c0" ] && break
		sleep 0.05
	done
	[ -n "$c0" ] || fail "no msprof-hostsys thread in msprof $helper"
	t0=$(date +%s%N)
	sleep "$SECS"
	c1=$(sampler_ns)
	t1=$(date +%s%N)
	msprof_say stop 'collection stopped' 60
	msprof_quit
	# The period from the memory file's times: its first and last sample.
	rate=$(cat "$work"/out/PROF_*/host/data/host_mem.data.slice_* |
		awk 'NR == 1 { a = $1 } { b = $1; n = NR } END { if (n > 1) printf "%.1f", (n - 1) * 1e9 / (b - a); else print 0 }')
	rm -rf "$work/out"
	last_pct=$(awk -v c="$((c1 - c0))" -v w="$((t1 - t0))" 'BEGIN { printf "%.4f", c * 100 / w }')
	last_rate=$rate
}

declare -A pct rate
for _ in $(seq "$ROUNDS"); do
	one_round --host-sys=cpu,mem,disk,network
	pct[target]+="$last_pct "
	rate[target]+="$last_rate "
	one_round --host-sys=cpu,mem,disk,network --host-sys-usage=cpu,mem
	pct[usage]+="$last_pct "
	rate[usage]+="$last_rate "
done
procs=$(ls -d /proc/[0-9]* | wc -l)

mkdir -p "$(dirname "$RESULTS")" || exit 1
python3 - "$work/part.json" "$THREADS" "$SECS" "$ROUNDS" "$procs" \
	"${pct[target]}" "${rate[target]}" "${pct[usage]}" "${rate[usage]}" <<'PY' || exit 1
import json, statistics, sys

path, threads, secs, rounds, procs = sys.argv[1:6]
rows = []
for name, p, r in (("target", sys.argv[6], sys.argv[7]), ("usage", sys.argv[8], sys.argv[9])):
    p = [float(v) for v in p.split()]
    r = [float(v) for v in r.split()]
    rows.append({"setting": name, "cpu_pct": round(statistics.median(p), 3),
                 "samples_per_s": statistics.median(r), "rounds_pct": p})
part = {"threads": int(threads), "secs": int(secs), "rounds": int(rounds),
        "processes": int(procs), "rows": rows,
        "goal": "target: the sampler's thread <= 2 % of one core at 50 Hz, 256 threads"}
with open(path, "w") as f:
    json.dump(part, f)
print(f"a task of {threads} threads, {secs} s windows, median of {rounds} rounds "
      f"({procs} processes on the machine)")
print(f"{'setting':<8} {'sampler CPU %':>14} {'samples/s':>10}")
for r in rows:
    print(f"{r['setting']:<8} {r['cpu_pct']:>14.3f} {r['samples_per_s']:>10.1f}")
print("goal: target <= 2 % of one core")
PY
tools/bench/results_put.py "$RESULTS" host_sys <"$work/part.json" || exit 1
echo "written to $RESULTS under \"host_sys\""
