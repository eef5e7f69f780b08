#!/bin/bash
# make demo: launch the bundled sample task under msprof, collect one
# window, export it (timeline, CSV summaries) and print the timeline's path.
set -e
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
	echo "demo: BPF needs root (or CAP_BPF+CAP_PERFMON)" >&2
	exit 1
fi
out=${DEMO_OUTPUT:-$PWD/build/demo}
rm -rf "$out"
mkdir -p "$out"
echo "== msprof --dynamic=on --output=$out build/bin/npu_sample --steps 200 --step-ms 10"
(echo start; sleep 1.5; echo stop; echo quit) |
	build/bin/msprof --dynamic=on --output="$out" build/bin/npu_sample \
		--steps 200 --step-ms 10 | grep -Ev '(^|\) )calls '
echo
echo "== msprof --export=on --output=$out"
files=$(build/bin/msprof --export=on --output="$out")
echo "$files"
# Every file export wrote is printed: the timeline is msprof_<stamp>.json.
json=$(grep '/msprof_[0-9]*\.json$' <<<"$files")
[ -f "$json" ] || { echo "demo: export printed no timeline" >&2; exit 1; }
count() { jq "[.[] | select($1)] | length" "$json"; }
echo "API slices:         $(count '.ph=="X" and (.name | startswith("AscendCL@"))')"
echo "ioctl slices:       $(count '.ph=="X" and .name=="ioctl"')"
echo "device task slices: $(count '.ph=="X" and .args["Task Type"] != null')"
echo "launch flows:       $(count '.ph=="s"')"
echo "timeline (open it in Perfetto or chrome://tracing):"
echo "$json"
