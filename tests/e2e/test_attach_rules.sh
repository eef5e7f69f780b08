#!/bin/bash
# Attach-mode rules: several PIDs start and stop together with a PROF_
# directory each per window, a target that exits mid-window is finished and
# marked while the others go on, a task's socket is found in the task's
# own home, the documented PID discovery works and stale sockets are
# cleaned, and --host-only profiles a task that has no agent at all.
source tests/e2e/lib.sh

# --- several PIDs, one exits during the window --------------------------
start_task --steps 0 --step-ms 10 || exit 1
a=$TASK_PID
start_task --steps 0 --step-ms 10 || exit 1
b=$TASK_PID
PROFILING_MODE=dynamic "$SAMPLE" --steps 0 --step-ms 10 --devices 2 >"$WORK/c.out" 2>&1 &
c=$!
PIDS_TO_KILL+=("$c")
wait_socket "$HOME" "$c" || exit 1

# The documented discovery pipeline lists them.
found=$(ls ~/dynamic_profiling_socket_* 2>/dev/null | awk -F '_' '{print $4}' | paste -sd ',' -)
for p in $a $b $c; do
	check "PID discovery lists $p" grep -qw "$p" <<<"${found//,/ }"
done

# c ends a second into the window, not before its probes are attached (a
# start may take longer than that on a loaded machine).
( feed start; wait_for "$WORK/multi.log" "collection started" 30 >&2
  feed "sleep 1"; kill -TERM "$c"; feed "sleep 1" stop "sleep 3" start "sleep 1" stop quit ) |
	"$MSPROF" --dynamic=on --pid="$a,$b,$c" --output="$WORK/multi" >"$WORK/multi.log" 2>&1
rc=$?
show "$WORK/multi.log"
check "several pids: exit 0" [ $rc -eq 0 ]
for p in $a $b; do
	n=$(grep -l "\"pid\": $p," "$WORK"/multi/PROF_*/msprof_ebpf_window.json | wc -l)
	check "pid $p has a PROF_ directory per window ($n)" [ "$n" -eq 2 ]
done
cdir=$(dirname "$(grep -l "\"pid\": $c," "$WORK"/multi/PROF_*/msprof_ebpf_window.json)")
check "the exiting pid has one PROF_ directory" [ "$(echo "$cdir" | wc -l)" -eq 1 ]
check "it is marked: target_exited" [ "$(jq .target_exited "$cdir/msprof_ebpf_window.json")" = true ]
check "it still holds what was collected" [ "$(jq .host.api_events "$cdir/msprof_ebpf_window.json")" -gt 0 ]
check "the user was told" grep -q "pid $c exited" "$WORK/multi.log"
check "its device_status says the task exited" \
	grep -q '"device_status": "the task exited' "$cdir/msprof_ebpf_window.json"
check "no window's device_status is a bare socket error" \
	! grep -q 'Transport endpoint' "$WORK"/multi/PROF_*/msprof_ebpf_window.json
check "its device data was flushed as it exited, both devices" cann_data "$cdir" 0 1
check "the other targets kept running" kill -0 "$a"
check "the second window still covers the others" \
	[ "$(ls -d "$WORK"/multi/PROF_000002_* | wc -l)" -eq 2 ]

# --- a --uprobe found nowhere is named, per target -------------------------
feed start "sleep 1" stop quit |
	"$MSPROF" --dynamic=on --pid="$a" --uprobe=libnope:nope,libc:msprof_no_such_fn \
		--output="$WORK/uprobe" >"$WORK/uprobe.log" 2>&1
check "unknown uprobes: still exit 0" [ $? -eq 0 ]
show "$WORK/uprobe.log"
check "a library no target maps is named" \
	grep -q "msprof: warning: --uprobe libnope:nope: no library matching libnope is mapped by pid $a" "$WORK/uprobe.log"
check "a function missing from a mapped library is named" \
	grep -q "msprof: warning: --uprobe libc:msprof_no_such_fn: no function msprof_no_such_fn in any library matching libc that pid $a maps" "$WORK/uprobe.log"

# --- the socket lives in the task's home, not msprof's --------------------
mkdir -p "$WORK/userhome"
chown nobody "$WORK/userhome"
chmod 755 "$WORK"
su -s /bin/sh nobody -c "HOME=$WORK/userhome PROFILING_MODE=dynamic $SAMPLE --steps 0 --step-ms 10 >/dev/null 2>&1 & echo \$!" >"$WORK/nobody.pid"
u=$(cat "$WORK/nobody.pid")
PIDS_TO_KILL+=("$u")
wait_socket "$WORK/userhome" "$u" || exit 1
feed start "sleep 1" stop quit |
	"$MSPROF" --dynamic=on --pid="$u" --output="$WORK/other" >"$WORK/other.log" 2>&1
check "another user's task: attached through its HOME" [ $? -eq 0 ]
d=$(prof_dirs "$WORK/other")
check "another user's task: device data (agent wrote as its user)" cann_data "$d"
check "another user's task: host data" [ "$(jq .host.api_events "$d/msprof_ebpf_window.json")" -gt 0 ]

# --- stale sockets: ignored by msprof, cleaned by the next agent ----------
start_task --steps 0 || exit 1
dead=$TASK_PID
kill -KILL "$dead"
{ wait_pid "$dead"; } 2>/dev/null
check "a killed task leaves its socket" [ -S "$HOME/dynamic_profiling_socket_$dead" ]
"$MSPROF" --dynamic=on --pid="$dead" --output="$WORK/stale" </dev/null >/dev/null 2>"$WORK/stale.err"
show "$WORK/stale.err"
check "msprof refuses the dead pid" grep -q "no process with pid $dead" "$WORK/stale.err"
start_task --steps 0 || exit 1
for i in $(seq 50); do [ -e "$HOME/dynamic_profiling_socket_$dead" ] || break; sleep 0.1; done
check "the next agent removed the stale socket" [ ! -e "$HOME/dynamic_profiling_socket_$dead" ]
check "live sockets are kept" [ -S "$HOME/dynamic_profiling_socket_$a" ]

# --- a task without any agent: --host-only ------------------------------
"$SAMPLE" --steps 0 --step-ms 10 >/dev/null 2>&1 &
h=$!
PIDS_TO_KILL+=("$h")
sleep 0.5
msprof_open "$WORK/host.log" --dynamic=on --host-only=on --pid="$h" --output="$WORK/host"
say start
wait_for "$WORK/host.log" "collection started"
check "host-only: uprobes in the window" probes_attached "$MSPROF_PID"
sleep 1
say stop
wait_for "$WORK/host.log" "collection stopped"
check "host-only: after stop no uprobe or link is left, msprof still running" probes_detached "$MSPROF_PID"
say quit
msprof_close
check "host-only: exit 0" [ $? -eq 0 ]
d=$(prof_dirs "$WORK/host")
check "host-only: API calls captured without an agent" [ "$(jq .host.api_events "$d/msprof_ebpf_window.json")" -gt 20 ]
check "host-only: the window's account says no device data" grep -q "host-only" "$d/msprof_ebpf_window.json"
check "host-only: the task holds no BPF descriptor" fds_none "$h"
