#!/bin/bash
# Attach mode: two windows on a running npu_sample, then quit; the task runs on.
source tests/e2e/lib.sh

start_task --steps 0 --step-ms 10 || exit 1
out=$WORK/out
# stop waits for the probes to detach: the sleeps keep the windows apart.
msprof_open "$WORK/msprof.log" --dynamic=on --pid="$TASK_PID" --output="$out"
say start
wait_for "$WORK/msprof.log" "collection started (window 1)"
check "in the window msprof holds the task's uprobes" probes_attached "$MSPROF_PID"
check "the task holds none of msprof's BPF descriptors" fds_none "$TASK_PID"
sleep 1.5
say stop
wait_for "$WORK/msprof.log" "collection stopped (window 1)"
check "after stop no uprobe or link is left, msprof still running" probes_detached "$MSPROF_PID"
sleep 3
say start
wait_for "$WORK/msprof.log" "collection started (window 2)"
check "the second start attaches again" probes_attached "$MSPROF_PID"
sleep 1.5
say stop
say quit
msprof_close
rc=$?
show "$WORK/msprof.log"
check "msprof exits 0" [ $rc -eq 0 ]
mapfile -t dirs < <(prof_dirs "$out")
check "one PROF_ directory per window" [ ${#dirs[@]} -eq 2 ]
check "task still running after quit" kill -0 "$TASK_PID"
check "the task holds no BPF descriptor after quit" fds_none "$TASK_PID"
check "staging directory removed" [ -z "$(ls -A "$out" | grep -v '^PROF_')" ]

d=${dirs[0]}
check "PROF_ name follows msprof" grep -Eq "^PROF_000001_[0-9]{17}_$(printf %08d "$TASK_PID")[A-R]{8}$" <<<"$(basename "$d")"
check "the window's account names the task" [ "$(jq .pid "$d/msprof_ebpf_window.json")" = "$TASK_PID" ]
check "start_info and end_info written" [ -s "$d/host/start_info" -a -s "$d/host/end_info" ]
check "host raw data written" [ -s "$d/host/data/host_trace.data" ]
check "device raw data written (stars_soc, task_track)" cann_data "$d"
api=$(jq .host.api_events "$d/msprof_ebpf_window.json")
io=$(jq .host.ioctl_events "$d/msprof_ebpf_window.json")
check "API calls captured ($api)" [ "$api" -gt 20 ]
check "ioctls captured ($io)" [ "$io" -gt 5 ]
check "second window has data too" [ "$(jq .host.api_events "${dirs[1]}/msprof_ebpf_window.json")" -gt 20 ]
check "nothing lost" [ "$(jq .host.lost_events "$d/msprof_ebpf_window.json")" = 0 ]

"$MSPROF" --export=on --output="$out" >"$WORK/export.log" 2>&1
check "export exits 0" [ $? -eq 0 ]
check "export prints one JSON per PROF_ directory" [ "$(grep -c '\.json$' "$WORK/export.log")" -eq 2 ]
n=$(timeline "$d" '[.[] | select(.ph=="X" and (.name | startswith("AscendCL@")) and (.args | has("depth")))] | length')
check "timeline holds every API call of the account ($n)" [ "$n" = "$api" ]
n=$(timeline "$d" '[.[] | select(.ph=="X" and .name=="ioctl")] | length')
check "timeline holds every ioctl of the account ($n)" [ "$n" = "$io" ]
n=$(timeline "$d" '[.[] | select(.ph=="X" and .args["Task Type"])] | length')
check "timeline holds device tasks ($n)" [ "$n" -gt 10 ]
n=$(timeline "$d" '[.[] | select(.ph=="s" and .cat=="HostToDevice")] | length')
check "device tasks linked to their launches ($n)" [ "$n" -gt 10 ]
check "launch flows start on a launch call" [ "$(timeline "$d" -r '
	[.[] | select(.ph=="X" and (.name | startswith("AscendCL@")))] as $api |
	[.[] | select(.ph=="s") as $f | $api[] |
	 select(.pid==$f.pid and .tid==$f.tid and .ts==$f.ts) | .args.id] |
	unique | join(",")')" = "aclrtLaunchKernel,aclrtMemcpyAsync" ]
check "processes of host and device, numbered from the task's pid" [ "$(timeline "$d" -r '[.[] | select(.ph=="M" and .name=="process_name") | "\(.args.name) \(.pid / 1024 | floor)"] | join(",")')" = "CANN $TASK_PID,Ascend Hardware $TASK_PID,Overlap Analysis $TASK_PID,OS Runtime API $TASK_PID,AI Core Freq $TASK_PID" ]

kill -TERM "$TASK_PID"
wait_pid "$TASK_PID"
check "task exits cleanly on SIGTERM" [ $? -eq 0 ]
check "agent removed its socket at exit" [ ! -e "$HOME/dynamic_profiling_socket_$TASK_PID" ]
