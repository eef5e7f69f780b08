#!/bin/bash
# Following children: in launch mode every rank the app starts is
# profiled (each with its own agent and PROF_ directory), and a process a
# target starts during a window is a target from its first instruction.
source tests/e2e/lib.sh

# --- a launcher with two ranks ------------------------------------------
cat >"$WORK/launcher.sh" <<SH
#!/bin/bash
"$SAMPLE" --steps 400 --step-ms 10 >"$WORK/rank0.out" 2>&1 &
"$SAMPLE" --steps 400 --step-ms 10 >"$WORK/rank1.out" 2>&1 &
wait	# for the two ranks, 400 steps each
SH
chmod +x "$WORK/launcher.sh"
feed "sleep 1" start "sleep 1" stop quit |
	"$MSPROF" --dynamic=on --output="$WORK/ranks" "$WORK/launcher.sh" >"$WORK/ranks.log" 2>&1
check "launcher: exit 0" [ $? -eq 0 ]
show "$WORK/ranks.log"
r0=$(sed -n 's/^npu_sample pid=//p' "$WORK/rank0.out")
r1=$(sed -n 's/^npu_sample pid=//p' "$WORK/rank1.out")
for r in $r0 $r1; do
	check "rank $r attached" grep -q "attached to pid $r (npu_sample)" "$WORK/ranks.log"
	d=$(dirname "$(grep -l "\"pid\": $r," "$WORK"/ranks/PROF_*/msprof_ebpf_window.json)")
	check "rank $r has its window with API calls" [ "$(jq .host.api_events "$d/msprof_ebpf_window.json")" -gt 20 ]
	check "rank $r has device data from its own agent" cann_data "$d"
done

# --- a child started during a window -------------------------------------
# The parent, like an AI task, maps the runtime (so its driver node is
# filtered in), keeps starting short helpers, and at SIGUSR1 starts a
# worker that runs npu_sample without an agent.
cat >"$WORK/parent.py" <<'PY'
import ctypes, os, signal, subprocess, sys, time
ctypes.CDLL(os.environ["LIBNPUSIM"])
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
print("ready", flush=True)
env = {k: v for k, v in os.environ.items() if k != "PROFILING_MODE"}
end = time.monotonic() + 120   # the test kills it long before
while not signal.sigtimedwait({signal.SIGUSR1}, 0.1):
    subprocess.run(["true"])
    if time.monotonic() > end:
        sys.exit("no SIGUSR1")
subprocess.Popen([os.environ["SAMPLE"], "--steps", "0", "--step-ms", "10"],
                 stdout=open(os.environ["CHILD_OUT"], "w"),
                 stderr=subprocess.STDOUT, env=env)
while time.monotonic() < end:
    subprocess.run(["true"])
    time.sleep(0.1)
PY
follow_py "$WORK/parent.py" kids SAMPLE="$SAMPLE" CHILD_OUT="$WORK/child.out"
parent=$PY_PID
kill -USR1 $parent
wait_for "$WORK/child.out" "npu_sample pid="
child=$(sed -n 's/^npu_sample pid=//p' "$WORK/child.out")
PIDS_TO_KILL+=("$child")
sleep 1
check "window 1: msprof holds uprobes" probes_attached "$MSPROF_PID"
say stop
wait_for "$WORK/kids.log" "collection stopped (window 1)"
check "after stop no uprobe or link is left (fork and exit ones too)" probes_detached "$MSPROF_PID"
say start
wait_for "$WORK/kids.log" "collection started (window 2)"
check "window 2: uprobes again" probes_attached "$MSPROF_PID"
sleep 1
say quit
msprof_close
check "following children: exit 0" [ $? -eq 0 ]
show "$WORK/kids.log"
# A helper gone before its probes were placed is no failure to report.
check "no 'cannot attach probes' for helpers that exited ($(grep -c 'cannot attach probes' "$WORK/kids.log"))" \
	[ "$(grep -c 'cannot attach probes' "$WORK/kids.log")" -eq 0 ]
check "the short helpers (true) left no directories" \
	[ "$(ls -d "$WORK"/kids/PROF_* | wc -l)" -eq 4 ]
w1=$(dirname "$(grep -l "\"pid\": $child," "$WORK"/kids/PROF_000001_*/msprof_ebpf_window.json)")
w2=$(dirname "$(grep -l "\"pid\": $child," "$WORK"/kids/PROF_000002_*/msprof_ebpf_window.json)")
check "window 1: the child's ioctls from its first instruction" [ "$(jq .host.ioctl_events "$w1/msprof_ebpf_window.json")" -gt 10 ]
check "window 2: the child's API calls too" [ "$(jq .host.api_events "$w2/msprof_ebpf_window.json")" -gt 20 ]
check "the parent holds no BPF descriptor" fds_none "$parent"
check "nor does its child" fds_none "$child"
