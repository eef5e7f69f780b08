#!/bin/bash
# make bench, neighbours' part: what a process that is no target pays for
# its syscalls while msprof collects.  build/tools/neighbour times CALLS
# getppid() syscalls and CALLS ioctls on a pipe; each round runs it once
# in each setting, one after the other: untraced; msprof attached to
# another process (build/tools/call_driver, --host-only=on) with no
# window; the same msprof with a window open; and, for choosing how msprof
# sees ioctls, build/tools/floor's empty hooks of each kind: the raw
# sys_enter/sys_exit tracepoints msprof uses, and syscalls/sys_*_ioctl
# (tracefs is mounted for them if it is not, and unmounted after).  Each
# figure is the median over ROUNDS rounds, and a ratio to "no window".
# Prints a table and writes the figures under "neighbours" in RESULTS
# (bench/results.json; its other keys are kept).
set -u
cd "$(dirname "$0")/.." || exit 1
CALLS=${CALLS:-1000000}
ROUNDS=${ROUNDS:-5}
RESULTS=${RESULTS:-bench/results.json}
TOOLS=$PWD/build/tools
MSPROF=$PWD/build/bin/msprof
TRACEFS=/sys/kernel/tracing
SETTINGS="untraced no_window window raw_hooks ioctl_tracepoints"

BENCH=bench_neighbours
source tools/bench/lib.sh
need_tools "$TOOLS/call_driver" "$TOOLS/floor" "$TOOLS/neighbour" "$MSPROF"

work=$(mktemp -d /tmp/msprof-bench-neighbours.XXXXXX) || exit 1
mounted=	# tracefs was mounted here, for the ioctl tracepoints

unmount_and_finish() {
	[ -n "$mounted" ] && umount "$TRACEFS"
	finish
}
trap unmount_and_finish EXIT

# neighbour_run: one timed run of the neighbour; sets sys and io to its ns
# per getppid() and per ioctl.  Bounded: 100 us a call is far beyond the
# slowest seen.
neighbour_run() {
	local line
	line=$(timeout $((30 + CALLS / 5000)) "$TOOLS/neighbour" "$CALLS") ||
		fail "the neighbour failed or ran too long: $line"
	sys=$(echo "$line" | sed -n 's/.* syscall_ns \([0-9.]*\) .*/\1/p')
	io=$(echo "$line" | sed -n 's/.* ioctl_ns \([0-9.]*\)$/\1/p')
	[ -n "$sys" ] && [ -n "$io" ] || fail "the neighbour said: $line"
}

# floor_run KIND: the neighbour beside build/tools/floor --syscalls=KIND.
floor_run() {
	"$TOOLS/floor" --syscalls="$1" >"$work/floor.log" 2>&1 &
	helper=$!
	await "$work/floor.log" 'floor attached' 30 "$helper"
	neighbour_run
	end_helper floor INT
}

# The ioctl tracepoints' ids are read from tracefs.
have_tracefs=1
if [ ! -d "$TRACEFS/events" ] && [ ! -d /sys/kernel/debug/tracing/events ]; then
	if mount -t tracefs tracefs "$TRACEFS" 2>"$work/mount.log"; then
		mounted=1
	else
		have_tracefs=
	fi
fi

start_driver

# Interleaved, so that what else the machine does weighs on every setting
# alike; one msprof session a round serves "no window" and "window".
declare -A ns_sys ns_io
for _ in $(seq "$ROUNDS"); do
	neighbour_run
	ns_sys[untraced]+="$sys "; ns_io[untraced]+="$io "
	msprof_open --host-only=on --uprobe=libbench_call:bench_call \
		--ascendcl=off --pid="$driver" --output="$work/out"
	neighbour_run
	ns_sys[no_window]+="$sys "; ns_io[no_window]+="$io "
	msprof_say start 'collection started' 30
	neighbour_run
	ns_sys[window]+="$sys "; ns_io[window]+="$io "
	msprof_say stop 'collection stopped' 60
	msprof_quit
	floor_run raw
	ns_sys[raw_hooks]+="$sys "; ns_io[raw_hooks]+="$io "
	[ -n "$have_tracefs" ] || continue
	floor_run ioctl
	ns_sys[ioctl_tracepoints]+="$sys "; ns_io[ioctl_tracepoints]+="$io "
done

mkdir -p "$(dirname "$RESULTS")" || exit 1
args=()
for s in $SETTINGS; do
	args+=("$s" "${ns_sys[$s]:-}" "${ns_io[$s]:-}")
done
python3 - "$work/part.json" "$CALLS" "$ROUNDS" "${args[@]}" <<'PY' || exit 1
import json, statistics, sys

path, calls, rounds = sys.argv[1:4]
a = sys.argv[4:]
runs = {a[i]: ([float(v) for v in a[i + 1].split()],
               [float(v) for v in a[i + 2].split()])
        for i in range(0, len(a), 3)}
base = [statistics.median(r) for r in runs["no_window"]]
rows = []
for name, (sys_ns, io_ns) in runs.items():
    if not sys_ns:
        rows.append({"setting": name, "syscall_ns": "unavailable",
                     "x_no_window_syscall": "unavailable",
                     "ioctl_ns": "unavailable",
                     "x_no_window_ioctl": "unavailable",
                     "rounds_syscall_ns": [], "rounds_ioctl_ns": []})
        continue
    s, i = statistics.median(sys_ns), statistics.median(io_ns)
    rows.append({"setting": name, "syscall_ns": round(s, 2),
                 "x_no_window_syscall": round(s / base[0], 4),
                 "ioctl_ns": round(i, 2),
                 "x_no_window_ioctl": round(i / base[1], 4),
                 "rounds_syscall_ns": sys_ns, "rounds_ioctl_ns": io_ns})
part = {"calls": int(calls), "rounds": int(rounds), "rows": rows,
        "goal": "window <= 1.05 x no window on the neighbour's syscalls"}
with open(path, "w") as f:
    json.dump(part, f)

print(f"a neighbour's {calls} getppid() and {calls} pipe ioctls a round,"
      f" median of {rounds} rounds")
print(f"{'setting':<18} {'getppid ns':>10} {'x':>6} {'ioctl ns':>9} {'x':>6}")
for r in rows:
    if isinstance(r["syscall_ns"], str):
        print(f"{r['setting']:<18} {'unavailable (no tracefs)':>33}")
        continue
    print(f"{r['setting']:<18} {r['syscall_ns']:>10.1f}"
          f" {r['x_no_window_syscall']:>6.3f} {r['ioctl_ns']:>9.1f}"
          f" {r['x_no_window_ioctl']:>6.3f}")
print("x: ratio to no_window; goal: window <= 1.05 x on syscalls;"
      " raw_hooks and ioctl_tracepoints are empty hooks of each kind")
PY
tools/bench/results_put.py "$RESULTS" neighbours <"$work/part.json" || exit 1
echo "written to $RESULTS under \"neighbours\""
