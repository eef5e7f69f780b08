#!/bin/bash
# make bench, export part: how fast msprof --export=on turns a large window
# into its files, and the most memory it takes doing so.  The window is
# synthetic (build/tools/synth_window: npu_sample's shape, our records and
# a CANN runtime's raw files, EXPORT_STEPS steps of 5.75 events each), so
# the figure is the exporter's alone.  Prints
# a table and writes the figures under "export" in RESULTS
# (bench/results.json; its other keys are kept).  With MSPROF_ANALYSIS
# naming a checkout of Huawei's msprof analysis (its root or its
# analysis/ folder; never part of this project), it also times that
# Python export and ours on one window of HUAWEI_STEPS device tasks and
# prints the ratio; without it the row says "not given".
set -u
cd "$(dirname "$0")/.." || exit 1
EXPORT_STEPS=${EXPORT_STEPS:-1000000}
RESULTS=${RESULTS:-bench/results.json}
MSPROF=${MSPROF:-build/bin/msprof}	# another build, to compare
# What the issue asks of it: events per second and peak RSS, on a window
# of at least MIN_EVENTS events.
TARGET_RATE=1500000
TARGET_RSS_KIB=$((64 * 1024))
MIN_EVENTS=1000000
HUAWEI_STEPS=${HUAWEI_STEPS:-20000}

for f in build/tools/synth_window "$MSPROF" /usr/bin/time; do
	[ -x "$f" ] || {
		echo "bench_export: $f is missing: make all build/tools/synth_window (/usr/bin/time: apt-get install time)" >&2
		exit 1
	}
done
case $EXPORT_STEPS in
'' | *[!0-9]*) echo "bench_export: EXPORT_STEPS is a whole number" >&2; exit 1 ;;
esac
work=$(mktemp -d /tmp/msprof-bench-export.XXXXXX) || exit 1
trap 'rm -rf "$work"' EXIT

read -r dir events < <(build/tools/synth_window "$work" "$EXPORT_STEPS")
[ -n "${events:-}" ] || { echo "bench_export: synth_window failed" >&2; exit 1; }

# run_export ARGS...: one export of the window, timed; appends
# "SECONDS PEAK_KIB" to runs.
runs=
run_export() {
	local s kib
	rm -rf "$dir/mindstudio_profiler_output" "$dir"/msprof_*.db
	sync
	/usr/bin/time -f '%e %M' -o "$work/time" "$MSPROF" --export=on "$@" \
		--output="$dir" >"$work/export.log" 2>&1 || {
		echo "bench_export: export ($*) failed:" >&2
		cat "$work/export.log" >&2
		exit 1
	}
	read -r s kib <"$work/time"
	runs+="$s $kib "
}

run_export
run_export --type=db

# huawei_vs_ours: "HUAWEI_SECONDS OURS_SECONDS" on one window of
# HUAWEI_STEPS steps, each exporter on a copy of its own (each writes
# into the window).
huawei_vs_ours() {
	local py=$1 hw ours a b
	mkdir "$work/hw" || return 1
	read -r hw _ < <(build/tools/synth_window "$work/hw" "$HUAWEI_STEPS")
	[ -n "$hw" ] || return 1
	mkdir "$work/ours" && cp -a "$hw" "$work/ours/" || return 1
	ours=$work/ours/$(basename "$hw")
	/usr/bin/time -f %e -o "$work/huawei.time" sh -c 'cd "$1" &&
		python3 -S -I msprof/msprof.py export timeline -dir "$2" &&
		python3 -S -I msprof/msprof.py export summary -dir "$2"' sh "$py" "$hw" \
		>"$work/huawei.log" 2>&1 || return 1
	/usr/bin/time -f %e -o "$work/ours.time" "$MSPROF" --export=on \
		--output="$ours" >"$work/ours.log" 2>&1 || return 1
	read -r a <"$work/huawei.time" && read -r b <"$work/ours.time" &&
	echo "$a $b"
}

huawei=
if [ -n "${MSPROF_ANALYSIS:-}" ]; then
	py=$MSPROF_ANALYSIS
	[ -f "$py/analysis/msprof/msprof.py" ] && py=$py/analysis
	[ -f "$py/msprof/msprof.py" ] || {
		echo "bench_export: MSPROF_ANALYSIS=$MSPROF_ANALYSIS holds no msprof/msprof.py" >&2
		exit 1
	}
	huawei=$(huawei_vs_ours "$py") || {
		echo "bench_export: the comparison with Huawei's export failed:" >&2
		tail -n 5 "$work/huawei.log" "$work/ours.log" >&2
		exit 1
	}
fi

mkdir -p "$(dirname "$RESULTS")" || exit 1
# The window's size as the exporter saw it: the db's rows of API calls,
# ioctls and device tasks, one an event.
# $runs: two words a run, one argument each.
# shellcheck disable=SC2086
HUAWEI="$huawei" python3 - "$work/part.json" "$EXPORT_STEPS" "$events" "$dir"/msprof_*.db \
	"$TARGET_RATE" "$TARGET_RSS_KIB" "$MIN_EVENTS" "$HUAWEI_STEPS" $runs <<'PY' || exit 1
import json, os, sqlite3, sys

path, steps, events, db, rate, rss, least, hw_steps = sys.argv[1:9]
events, rate, rss, least = int(events), int(rate), int(rss), int(least)
con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
exported = sum(con.execute("SELECT count(*) FROM %s" % t).fetchone()[0]
               for t in ("CANN_API", "OSRT_API", "TASK"))
con.close()
if exported != events:
    sys.exit("bench_export: the db holds %d events, the window %d" %
             (exported, events))
v = sys.argv[9:]
rows = []
for name, i in (("text", 0), ("db", 2)):
    s, kib = float(v[i]), int(v[i + 1])
    r = events / s if s > 0 else 0
    rows.append({"export": name, "seconds": s, "events_per_s": round(r),
                 "x_target": round(r / rate, 3), "peak_rss_kib": kib,
                 "x_limit": round(kib / rss, 3),
                 "goal_met": r >= rate and kib <= rss and events >= least})
part = {
    "steps": int(steps), "events": events, "events_exported": exported,
    "window_large_enough": events >= least,
    "rows": rows,
    "huawei": {"given": False},
    "goal": ">= %.1f M events/s at <= %d MiB peak RSS, on >= %d events" %
            (rate / 1e6, rss // 1024, least),
}
hw = os.environ.get("HUAWEI", "").split()
if hw:
    h, o = float(hw[0]), float(hw[1])
    part["huawei"] = {"given": True, "tasks": int(hw_steps),
                      "huawei_seconds": h, "ours_seconds": o,
                      "ratio": round(h / o, 1) if o > 0 else None}
with open(path, "w") as f:
    json.dump(part, f)

print("export of one synthetic window of %d events (%s steps; the db holds "
      "%d)" % (events, steps, exported))
if events < least:
    print("note: fewer than %d events: not the size the goal is set for" % least)
print("%-22s %8s %12s %8s %10s %8s" % ("export", "seconds", "M events/s",
                                       "x target", "peak MiB", "x limit"))
labels = {"text": "text (json + csv)", "db": "text + db (--type=db)"}
for r in rows:
    print("%-22s %8.2f %12.2f %8.2f %10.1f %8.2f" % (
        labels[r["export"]], r["seconds"], r["events_per_s"] / 1e6,
        r["x_target"], r["peak_rss_kib"] / 1024, r["x_limit"]))
print("goal: %s (x target >= 1, x limit <= 1): text %s, db %s" % (
    part["goal"], *("met" if r["goal_met"] else "not met" for r in rows)))
h = part["huawei"]
if h["given"]:
    print("huawei's python export (timeline + summary) of %d device tasks: "
          "%.2f s, ours %.2f s: %sx" % (h["tasks"], h["huawei_seconds"],
                                         h["ours_seconds"], h["ratio"]))
else:
    print("huawei's python export: not given (MSPROF_ANALYSIS=<its checkout>)")
PY
tools/bench/results_put.py "$RESULTS" export <"$work/part.json" || exit 1
echo "written to $RESULTS under \"export\""
