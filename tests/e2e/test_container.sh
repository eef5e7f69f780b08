#!/bin/bash
# A task in a pid and mount namespace of its own, as in a container, attached
# from the host by its host pid, then from inside by the pid it sees.  Its
# libraries, /etc/passwd, home and /tmp exist only in its namespace: msprof
# on the host reaches them through /proc/<pid>/root.
source tests/e2e/lib.sh

skip_all() {	# skip_all "why": nothing of this test can run here
	skip "container test" "$1"
	exit 0
}

command -v unshare >/dev/null || skip_all "unshare is missing"
if ! err=$(unshare --pid --mount-proc --kill-child true 2>&1); then
	case $err in
	*"not permitted"* | *"Permission denied"*) skip_all "$err" ;;
	esac
	check "unshare makes a pid and mount namespace ($err)" false
	exit 1
fi

# The container's init: a private tmpfs on /tmp holds the task's runtime and
# home; HOME is unset and only the container's own /etc/passwd names that
# home.  The task is not the init, which would ignore SIGTERM.
# The checkout is read through a descriptor opened before the tmpfs covers
# /tmp, so the test also runs from a checkout under /tmp.
CTR_INIT='
set -e
exec 9<"$1"
mount -t tmpfs msprof-ctr /tmp
src=/proc/self/fd/9
mkdir -p /tmp/ctr/bin /tmp/ctr/lib /tmp/home
cp "$src"/build/lib/*.so /tmp/ctr/lib/
cp "$src"/build/bin/npu_sample "$src"/build/bin/msprof /tmp/ctr/bin/
awk -F: -v OFS=: "\$3 == $(id -u) { \$6 = \"/tmp/home\" } 1" /etc/passwd >/tmp/ctr/passwd
mount --bind /tmp/ctr/passwd /etc/passwd
env -u HOME PROFILING_MODE=dynamic /tmp/ctr/bin/npu_sample --steps 0 --step-ms 10 --devices 2 &
wait	# until the test SIGKILLs unshare (its EXIT trap)
'
unshare --pid --mount-proc --kill-child bash -c "$CTR_INIT" ctr "$PWD" \
	>"$WORK/task.out" 2>&1 &
UNSHARE_PID=$!
# unshare ignores SIGTERM; its SIGKILL kills the init, which takes the whole
# namespace, tmpfs included, with it.
trap 'rc=$?; kill -KILL "$UNSHARE_PID" 2>/dev/null; cleanup $rc' EXIT

children() {	# children PID: its child processes
	cat "/proc/$1"/task/*/children 2>/dev/null
}

# Sets TASK_PID (host view) and NS_PID once the task's socket is there.
find_task() {
	local i init p sock
	for i in $(seq 100); do
		init=$(children "$UNSHARE_PID")
		TASK_PID=
		for p in $([ -n "$init" ] && children $init); do
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = npu_sample ] && TASK_PID=$p
		done
		if [ -n "$TASK_PID" ]; then
			NS_PID=$(awk '/^NSpid:/ { print $NF }' "/proc/$TASK_PID/status")
			sock=/proc/$TASK_PID/root/tmp/home/dynamic_profiling_socket_$NS_PID
			[ -S "$sock" ] && return 0
		fi
		sleep 0.1
	done
	return 1
}
if ! find_task; then
	check "the task starts in its namespace" false
	show "$WORK/task.out"
	exit 1
fi
ctr_root=/proc/$TASK_PID/root

check "task has a pid of its own ($TASK_PID on the host, $NS_PID inside)" \
	[ "$TASK_PID" != "$NS_PID" ]
check "its runtime library exists only in its namespace" \
	[ ! -e /tmp/ctr/lib/libnpusim.so -a -e "$ctr_root/tmp/ctr/lib/libnpusim.so" ]

# --- from the host, by host pid -----------------------------------------------
out=$WORK/out
feed start "sleep 1.5" stop "sleep 3" start "sleep 1.5" stop quit |
	"$MSPROF" --dynamic=on --pid="$TASK_PID" --output="$out" >"$WORK/msprof.log" 2>&1
rc=$?
show "$WORK/msprof.log"
check "msprof exits 0" [ $rc -eq 0 ]
check "attach message names both pids" grep -qF \
	"attached to pid $TASK_PID (pid $NS_PID in its namespace, npu_sample)" "$WORK/msprof.log"
mapfile -t dirs < <(prof_dirs "$out")
check "one PROF_ directory per window" [ ${#dirs[@]} -eq 2 ]
d=${dirs[0]}
check "the window's account names the host pid" [ "$(jq .pid "$d/msprof_ebpf_window.json")" = "$TASK_PID" ]
check "the window's account names the namespace pid" [ "$(jq .ns_pid "$d/msprof_ebpf_window.json")" = "$NS_PID" ]
api=$(jq .host.api_events "$d/msprof_ebpf_window.json")
io=$(jq .host.ioctl_events "$d/msprof_ebpf_window.json")
check "API calls captured in the container's library ($api)" [ "$api" -gt 20 ]
check "ioctls captured ($io)" [ "$io" -gt 5 ]
check "device data staged in the task's /tmp reaches PROF_" \
	cann_data "$d" 0 1
check "... with the agent's stats" [ -s "$d/agent_stats_npusim.json" ]
check "second window has device data too" cann_data "${dirs[1]}"
check "no staging directory left in the task's /tmp" [ -z "$(stages "$ctr_root/tmp")" ]
check "no staging directory left in the output" [ -z "$(stages "$out")" ]
check "the task holds no BPF descriptor after quit" fds_none "$TASK_PID"
check "task still running after quit" kill -0 "$TASK_PID"

"$MSPROF" --export=on --output="$d" >"$WORK/export.log" 2>&1
check "export exits 0" [ $? -eq 0 ]
n=$(timeline "$d" '[.[] | select(.ph=="X" and .args["Task Type"])] | length')
check "timeline holds device tasks ($n)" [ "$n" -gt 10 ]
# The calls were seen from the host, the tasks' launching threads by the
# task itself: each flow must still start inside its launch's slice.
python3 tests/e2e/check_timeline.py --every-task-launched "$d"
check "the timeline follows msprof's conventions (two devices, flows bound)" [ $? -eq 0 ]
check "its pids are the task's own pid's, as host/info.json's ($NS_PID)" [ "$(timeline "$d" -r '
	[.[] | .pid / 1024 | floor] | unique | map(tostring) | join(",")')" = "$NS_PID" ]
# The db's API calls sit on the same threads as the timeline's.
"$MSPROF" --export=on --type=db --output="$d" >"$WORK/export-db.log" 2>&1
check "db export exits 0" [ $? -eq 0 ]
db_tids=$(python3 -c 'import glob, sqlite3, sys
db = sqlite3.connect(glob.glob(sys.argv[1] + "/msprof_*.db")[0])
print(",".join(str(t) for (t,) in db.execute(
    "SELECT DISTINCT globalTid & 4294967295 FROM CANN_API ORDER BY 1")))' "$d")
tl_tids=$(timeline "$d" -r '[.[] | select(.ph=="X" and .args.connection_id != null and .args["Task Type"] == null)
	| .tid] | unique | map(tostring) | join(",")')
check "CANN_API's threads are the timeline's API threads ($db_tids = $tl_tids)" \
	[ -n "$db_tids" -a "$db_tids" = "$tl_tids" ]

# --- from inside the namespaces, by the pid the task sees ----------------------
inside=/tmp/out-inside
feed start "sleep 1.5" stop quit |
	nsenter --target "$TASK_PID" --pid --mount -- \
		/tmp/ctr/bin/msprof --dynamic=on --pid="$NS_PID" --output="$inside" \
		>"$WORK/inside.log" 2>&1
rc=$?
show "$WORK/inside.log"
check "msprof in the container exits 0" [ $rc -eq 0 ]
check "it attaches to pid $NS_PID" grep -qF "attached to pid $NS_PID (npu_sample)" "$WORK/inside.log"
mapfile -t dirs < <(prof_dirs "$ctr_root$inside")
check "it writes one PROF_ directory" [ ${#dirs[@]} -eq 1 ]
d=${dirs[0]}
api=$(jq .host.api_events "$d/msprof_ebpf_window.json")
check "it captures API calls ($api)" [ "$api" -gt 20 ]
check "it gets device data" cann_data "$d"
"$MSPROF" --export=on --output="$d" >"$WORK/export-inside.log" 2>&1
check "its window exports" [ $? -eq 0 ]
python3 tests/e2e/check_timeline.py --every-task-launched "$d"
check "its timeline follows msprof's conventions (flows bound)" [ $? -eq 0 ]
check "it leaves no staging directory" [ -z "$(stages "$ctr_root$inside")" ]
check "the task holds no BPF descriptor after it quit" fds_none "$TASK_PID"

# --- the host's controller and one inside meet at the same lock ------------
# (Both see the host's /run here; a container with a /run of its own would
# not.)  --host-only: the lock alone is under test, not finding the agent.
msprof_open "$WORK/hostlock.log" --dynamic=on --host-only=on --pid="$TASK_PID" \
	--output="$WORK/hostlock"
wait_for "$WORK/hostlock.log" "attached to pid $TASK_PID"
nsenter --target "$TASK_PID" --pid --mount -- \
	/tmp/ctr/bin/msprof --dynamic=on --host-only=on --pid="$NS_PID" \
	--output=/tmp/out-refused </dev/null >"$WORK/refused.log" 2>&1
rc=$?
show "$WORK/refused.log"
check "inside, a second controller is refused" [ $rc -ne 0 ]
check "naming the host's controller" grep -q "pid $NS_PID is already being profiled by msprof pid" "$WORK/refused.log"
say quit
msprof_close
check "the host's controller quits cleanly" [ $? -eq 0 ]

kill -TERM "$TASK_PID"
check "task exits on SIGTERM" timeout 5 tail --pid="$TASK_PID" -f /dev/null
