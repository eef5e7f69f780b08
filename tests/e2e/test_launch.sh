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
check "info.json names the launched task" [ "$(jq .pid "$d/info.json")" = "$pid" ]
check "API calls captured" [ "$(jq .host.api_events "$d/info.json")" -gt 20 ]
check "device raw data written" [ -s "$d/device_0/data/task_time.data" ]
check "no BPF program left" no_bpf_left

"$MSPROF" --export=on --output="$d" >"$WORK/export.log" 2>&1
check "export of one PROF_ directory" [ $? -eq 0 ]
check "timeline is a JSON array with API, ioctl and device slices" [ "$(timeline "$d" -r '
	[.[] | select(.ph=="X") | .cat] | unique | join(",")')" = "AscendCL,device,driver" ]
