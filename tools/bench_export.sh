#!/bin/bash
# make bench, export part: how fast msprof --export=on turns a large window
# into its files, and the most memory it takes doing so.  The window is
# synthetic (build/tools/synth_window: npu_sample's shape, EXPORT_STEPS
# steps of 4 events each), so the figure is the exporter's alone.
set -u
cd "$(dirname "$0")/.."
EXPORT_STEPS=${EXPORT_STEPS:-300000}
MSPROF=build/bin/msprof
# What the issue asks of it: events per second, and peak RSS.
TARGET_RATE=1500000
TARGET_RSS_KIB=$((64 * 1024))
work=$(mktemp -d /tmp/msprof-bench-export.XXXXXX)
trap 'rm -rf "$work"' EXIT

read -r dir events < <(build/tools/synth_window "$work" "$EXPORT_STEPS") || exit 1

# run_export LABEL ARGS...: one export of the window, timed.
run_export() {
	local label=$1 s kib
	shift
	rm -rf "$dir/mindstudio_profiler_output" "$dir"/msprof_*.db
	sync
	/usr/bin/time -f '%e %M' -o "$work/time" "$MSPROF" --export=on "$@" \
		--output="$dir" >"$work/export.log" 2>&1 || {
		echo "bench: export ($label) failed:" >&2
		cat "$work/export.log" >&2
		exit 1
	}
	read -r s kib <"$work/time"
	awk -v l="$label" -v e="$events" -v s="$s" -v k="$kib" \
		-v tr="$TARGET_RATE" -v tk="$TARGET_RSS_KIB" 'BEGIN {
		r = s > 0 ? e / s : 0
		printf "%-22s %8.2f %12.2f %8.2f %10.1f %8.2f\n", l, s, r / 1e6,
			r / tr, k / 1024, k / tk }'
}

printf 'export of one synthetic window of %d events (%d steps)\n' "$events" "$EXPORT_STEPS"
printf '%-22s %8s %12s %8s %10s %8s\n' export seconds 'M events/s' 'x target' 'peak MiB' 'x limit'
run_export "text (json + csv)"
run_export "text + db (--type=db)" --type=db
awk -v tr="$TARGET_RATE" -v tk="$TARGET_RSS_KIB" 'BEGIN {
	printf "targets: >= %.1f M events/s (x target >= 1), <= %d MiB peak (x limit <= 1)\n", tr / 1e6, tk / 1024 }'
