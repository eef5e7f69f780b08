#!/bin/bash
# Launch mode: msprof starts npu_sample, one window, quit waits for the app.
source tests/e2e/lib.sh

out=$WORK/out
feed start "sleep 1.5" stop quit |
	"$MSPROF" --dynamic=on --output="$out" "$SAMPLE" --steps 300 --step-ms 10 \
	>"$WORK/msprof.log" 2>&1
rc=$?
show "$WORK/msprof.log" | grep -v '^calls '
check "msprof exits 0" [ $rc -eq 0 ]
check "the app ran to its end" grep -q '^calls aclFinalize 1$' "$WORK/msprof.log"
mapfile -t dirs < <(prof_dirs "$out")
check "one PROF_ directory" [ ${#dirs[@]} -eq 1 ]
d=${dirs[0]}
pid=$(sed -n 's/^npu_sample pid=//p' "$WORK/msprof.log")
check "the window's account names the launched task" [ "$(jq .pid "$d/msprof_ebpf_window.json")" = "$pid" ]
check "API calls captured" [ "$(jq .host.api_events "$d/msprof_ebpf_window.json")" -gt 20 ]
check "device raw data written (stars_soc, task_track)" cann_data "$d"

"$MSPROF" --export=on --output="$d" >"$WORK/export.log" 2>&1
check "export of one PROF_ directory" [ $? -eq 0 ]
check "timeline is a JSON array with API, ioctl, device and overlap slices" [ "$(timeline "$d" -r '
	[.[] | select(.ph=="X") | .pid / 32 | floor % 32] | unique | map(tostring) | join(",")')" = "7,13,14,31" ]
# msprof's conventions (docs/output.md): check_timeline.py checks the
# format, processes and threads, counts against our facts, flows, Overlap
# Analysis and the clock.
python3 tests/e2e/check_timeline.py "$d"
check "the timeline checks ran and passed" [ $? -eq 0 ]
n=$(timeline "$d" '[.[] | select(.ph=="X" and (.args["Task Type"] // "") == "MEMCPY_ASYNC" and has("args") and (.args | has("size(B)")))] | length')
check "npu_sample's async copies say their size ($n)" [ "$n" -gt 0 ]

# What msprof leaves behind: in launch mode it waits after quit for the
# app, so its descriptors can be read after the session closed.  The app
# runs until told to end.
msprof_open "$WORK/left.log" --dynamic=on --output="$WORK/left" "$SAMPLE" --steps 0 --step-ms 10
wait_for "$WORK/left.log" "attached to pid"
app=$(sed -n 's/^npu_sample pid=//p' "$WORK/left.log")
PIDS_TO_KILL+=("$app")
say start
wait_for "$WORK/left.log" "collection started"
holds_all() {	# holds_all PID: programs, maps, and uprobe links
	[ -n "$(bpf_fds "$1" bpf-prog)" ] && [ -n "$(bpf_fds "$1" bpf-map)" ] &&
		probes_attached "$1"
}
check "in the window msprof holds BPF programs, maps and uprobes" holds_all "$MSPROF_PID"
check "the app holds none of them" fds_none "$app"
sleep 0.5
say stop
wait_for "$WORK/left.log" "collection stopped"
check "after stop no uprobe or link is left, msprof still running" probes_detached "$MSPROF_PID"
say quit
wait_for "$WORK/left.log" "waiting for $SAMPLE (pid $app) to exit"
check "after quit msprof holds no BPF descriptor, while it waits" fds_none "$MSPROF_PID"
check "nor does the app it launched" fds_none "$app"
kill -TERM "$app"
msprof_close
check "msprof leaves with the app" [ $? -eq 0 ]
