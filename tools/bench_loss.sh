#!/bin/bash
# make bench, loss part: the highest rate at which a window loses nothing
# with the default ring buffer, and the losses beyond it.  THREADS threads
# of build/tools/call_driver (default 2) call libbench_call.so's
# bench_call() CALLS times each (default 200000) inside one msprof window
# per point: first as fast as they can, then, if that lost records, paced
# (a rate per thread), bisected BISECT times (default 5) between nothing
# and the unpaced rate.  Each point reads what the window recorded and
# lost from its msprof_ebpf_window.json.  Then the issue's own case: two
# npu_sample processes (one thread each, SAMPLE_STEPS steps each, no
# padding) in one window, and the rate they produced.  BUFFER, if set, is
# passed as --buffer-size (a test makes losses with a tiny one).  Prints a
# table and writes the figures under "loss" in RESULTS.
set -u
cd "$(dirname "$0")/.." || exit 1
CALLS=${CALLS:-200000}
THREADS=${THREADS:-2}
BISECT=${BISECT:-5}
SAMPLE_STEPS=${SAMPLE_STEPS:-10000}
BUFFER=${BUFFER:-}
RESULTS=${RESULTS:-bench/results.json}
TOOLS=$PWD/build/tools
MSPROF=$PWD/build/bin/msprof
SAMPLE=$PWD/build/bin/npu_sample
LIB=$TOOLS/libbench_call.so
FUNC=bench_call
# A paced point lasts about this long at most: fewer calls at low rates.
POINT_S=10
# A loop's bound: 1 ms a call is far slower than any seen here.
LOOP_S=$((30 + CALLS / 1000))
BENCH=bench_loss
source tools/bench/lib.sh

for f in "$TOOLS/call_driver" "$LIB" "$MSPROF" "$SAMPLE"; do
	[ -x "$f" ] || fail "$f is missing: make all $TOOLS/call_driver"
done
case "$CALLS$THREADS$BISECT$SAMPLE_STEPS" in
*[!0-9]*) fail "CALLS, THREADS, BISECT and SAMPLE_STEPS are whole numbers" ;;
esac
if [ "$CALLS" -eq 0 ] || [ "$THREADS" -eq 0 ] || [ "$SAMPLE_STEPS" -eq 0 ]; then
	fail "CALLS, THREADS and SAMPLE_STEPS must be at least 1"
fi
# The buffer a window has: BUFFER, or the default msprof is built with.
if [ -n "$BUFFER" ]; then
	buffer_arg=--buffer-size=$BUFFER
	case $BUFFER in
	*[Kk]) buffer=$((${BUFFER%?} << 10)) ;;
	*[Mm]) buffer=$((${BUFFER%?} << 20)) ;;
	*) buffer=$((BUFFER)) ;;
	esac
else
	buffer_arg=
	buffer=$(($(sed -n 's/^#define MSPROF_RINGBUF_BYTES[[:space:]]*//p' include/msprof/events.h | tr -d u)))
fi

work=$(mktemp -d /tmp/msprof-bench-loss.XXXXXX) || exit 1
trap finish EXIT

# point RATE: one window of the driver's threads at RATE calls a second
# each (0: unpaced); appends "RATE CALLS CALLS_PER_S RECORDED LOST" to
# points (CALLS: each thread's) and sets lost.
npoints=0
point() {
	local calls=$CALLS out=$work/out$npoints
	if [ "$1" -gt 0 ] && [ $(($1 * POINT_S)) -lt "$calls" ]; then
		calls=$(($1 * POINT_S))
	fi
	"$TOOLS/call_driver" "$calls" "$THREADS" "$1" >"$work/driver.log" 2>&1 &
	driver=$!
	await "$work/driver.log" 'waiting for SIGUSR1' 10 "$driver"
	# shellcheck disable=SC2086
	msprof_loop "$out" $buffer_arg
	kill "$driver"
	gone "$driver" 10 || fail "the driver still runs 10 s after SIGTERM"
	wait "$driver"
	driver=
	lost=$(host_sum "$out" lost_events)
	points+="$1 $calls $rate $(host_sum "$out" api_events) $lost "
	npoints=$((npoints + 1))
}

points=
point 0
unpaced_rate=$rate
unpaced_lost=$lost
# Bisect the rate per thread: lo lost nothing (0 trivially), hi lost some.
lo=0
hi=$((unpaced_rate / THREADS))
if [ "$unpaced_lost" -gt 0 ]; then
	for _ in $(seq "$BISECT"); do
		mid=$(((lo + hi) / 2))
		[ "$mid" -gt "$lo" ] || break
		point "$mid"
		if [ "$lost" -eq 0 ]; then lo=$mid; else hi=$mid; fi
	done
fi

# Two npu_sample processes in one window, released together.
# shellcheck disable=SC2086
sample_pair "$work/sample_out" $buffer_arg
# One PROF_ directory a target, each with its own records and losses.
sample_events=$(jq -s 'map(.host.api_events + .host.ioctl_events) | add' \
	"$work"/sample_out/PROF_*/msprof_ebpf_window.json)
sample_lost=$(host_sum "$work/sample_out" lost_events)

mkdir -p "$(dirname "$RESULTS")" || exit 1
# $points: five words a point, one argument each.
# shellcheck disable=SC2086
python3 - "$work/part.json" "$CALLS" "$THREADS" "$buffer" \
	"$SAMPLE_STEPS" "$sample_ms" "$sample_events" "$sample_lost" $points <<'PY' || exit 1
import json, sys

(path, calls, threads, buffer, steps, sample_ms, sample_events,
 sample_lost) = sys.argv[1:9]
v = sys.argv[9:]
points = [{"rate_per_thread": int(v[i]) or "unpaced",
           "calls_per_thread": int(v[i + 1]), "calls_per_s": int(v[i + 2]),
           "recorded": int(v[i + 3]), "lost": int(v[i + 4])}
          for i in range(0, len(v), 5)]
unpaced = points[0]
clean = [p for p in points if p["lost"] == 0]
best = max(clean, key=lambda p: p["calls_per_s"]) if clean else None
sample_events, sample_lost = int(sample_events), int(sample_lost)
sample_rate = (sample_events + sample_lost) / (float(sample_ms) / 1000)
part = {
    "threads": int(threads), "calls_per_thread": int(calls),
    "ringbuf_bytes": int(buffer),
    "points": points,
    "unpaced_calls_per_s": unpaced["calls_per_s"],
    "unpaced_lost": unpaced["lost"],
    "max_zero_loss_calls_per_s": best["calls_per_s"] if best else 0,
    "npu_sample": {"processes": 2, "steps_each": int(steps),
                   "events_per_s": round(sample_rate),
                   "recorded": sample_events, "lost": sample_lost},
    "goal": "zero loss at the rate two npu_sample threads produce",
    "goal_met": sample_lost == 0,
}
with open(path, "w") as f:
    json.dump(part, f)

print(f"{threads} threads calling bench_call(), up to {calls} calls each a "
      f"window, ring buffer {buffer} bytes")
print(f"{'rate/thread':>12} {'calls/s':>10} {'recorded':>10} {'lost':>9}")
for p in points:
    print(f"{p['rate_per_thread']:>12} {p['calls_per_s']:>10} "
          f"{p['recorded']:>10} {p['lost']:>9}")
if best is None:
    print("every rate tried lost records")
elif best is unpaced:
    print(f"no loss at the unpaced maximum, {best['calls_per_s']} calls/s: "
          "nothing faster was tried")
else:
    print(f"highest rate without loss: {best['calls_per_s']} calls/s; "
          f"unpaced, {unpaced['calls_per_s']} calls/s lost {unpaced['lost']}")
print(f"npu_sample x2 ({steps} steps each): {round(sample_rate)} events/s, "
      f"{sample_events} recorded, {sample_lost} lost; goal (zero loss): "
      + ("met" if sample_lost == 0 else "not met"))
PY
tools/bench/results_put.py "$RESULTS" loss <"$work/part.json" || exit 1
echo "written to $RESULTS under \"loss\""
