#!/bin/bash
# Launch-mode rules: the task is found as a descendant of the app msprof
# starts (run.sh starting the real service works), an app that never opens
# a socket or backgrounds itself gets the seed's advice, and the app keeps
# running either way.
source tests/e2e/lib.sh

# run.sh -> npu_sample: the agent is preloaded, the shell opens no socket.
cat >"$WORK/run.sh" <<SH
#!/bin/bash
echo wrapper pid=\$\$
"$SAMPLE" --steps 250 --step-ms 10
echo wrapper done
SH
chmod +x "$WORK/run.sh"
feed start "sleep 1" stop quit |
	"$MSPROF" --dynamic=on --output="$WORK/out" "$WORK/run.sh" >"$WORK/wrap.log" 2>&1
rc=$?
check "launch through a wrapper script exits 0" [ $rc -eq 0 ]
wrapper=$(sed -n 's/^wrapper pid=//p' "$WORK/wrap.log")
task=$(sed -n 's/^npu_sample pid=//p' "$WORK/wrap.log")
check "msprof attached to the service, not the wrapper" \
	grep -q "attached to pid $task (npu_sample)" "$WORK/wrap.log"
d=$(prof_dirs "$WORK/out")
check "its PROF_ directory names the service ($task, not $wrapper)" [ "$(jq .pid "$d/msprof_ebpf_window.json")" = "$task" ]
check "the service's API calls were captured" [ "$(jq .host.api_events "$d/msprof_ebpf_window.json")" -gt 20 ]
check "the wrapper ran to its end" grep -q "wrapper done" "$WORK/wrap.log"

# An app that never starts an agent: told to use attach mode, left running.
MSPROF_LAUNCH_WAIT_S=2 "$MSPROF" --dynamic=on --output="$WORK/out2" \
	/bin/sleep 30 </dev/null >"$WORK/nosock.log" 2>&1
rc=$?
check "no socket within the wait: non-zero exit" [ $rc -ne 0 ]
check "no socket within the wait: attach mode advised" grep -q "use attach mode" "$WORK/nosock.log"
sleeper=$(sed -n 's|^msprof: launched /bin/sleep (pid \([0-9]*\))$|\1|p' "$WORK/nosock.log")
running_as() {	# running_as PID COMM
	[ -n "$1" ] && [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ] && alive "$1"
}
check "no socket within the wait: the app keeps running" running_as "$sleeper" sleep
check "no socket within the wait: the app holds no BPF descriptor" fds_none "$sleeper"
[ -n "$sleeper" ] && PIDS_TO_KILL+=("$sleeper")
check "no socket within the wait: no PROF_ directory" [ -z "$(prof_dirs "$WORK/out2" 2>/dev/null)" ]

# An app that puts the service in the background and exits.
cat >"$WORK/daemon.sh" <<SH
#!/bin/bash
PROFILING_MODE= "$SAMPLE" --steps 0 >/dev/null 2>&1 &
echo \$! >"$WORK/daemon.pid"
SH
chmod +x "$WORK/daemon.sh"
"$MSPROF" --dynamic=on --output="$WORK/out3" "$WORK/daemon.sh" </dev/null >"$WORK/bg.log" 2>&1
rc=$?
daemon=$(cat "$WORK/daemon.pid")
PIDS_TO_KILL+=("$daemon")
check "backgrounded app: non-zero exit" [ $rc -ne 0 ]
check "backgrounded app: attach mode advised" grep -q "use attach mode" "$WORK/bg.log"
check "backgrounded app: the service keeps running" kill -0 "$daemon"
check "backgrounded app: the service holds no BPF descriptor" fds_none "$daemon"
