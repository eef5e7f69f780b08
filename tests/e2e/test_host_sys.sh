#!/bin/bash
# --host-sys=cpu,mem,disk,network and --host-sys-usage=cpu,mem: the
# sampler's files in msprof's formats, read back line by line
# (check_host_sys.py); the export's tracks, CSVs and db tables from them,
# the spinner of hostsys_cases seen; a target that exits inside the window
# (its samples end there, the other's go on); a thread whose name holds a
# space and a line break; launch mode; every option's bad values (the
# --osrt-threshold's too): one line,
# exit 1, nothing created.
source tests/e2e/lib.sh
CASES=$PWD/build/tests/hostsys_cases
[ -x "$CASES" ] || { skip "host-sys" "no $CASES (make build/tests/hostsys_cases)"; exit 0; }

# cases NAME ARGS...: a hostsys_cases waiting for its SIGUSR1; sets NAME_PID.
cases() {
	local name=$1
	shift
	"$CASES" "$@" >"$WORK/$name.out" 2>&1 &
	PIDS_TO_KILL+=($!)
	printf -v "${name}_PID" %d $!
	wait_for "$WORK/$name.out" ready
}

# --- two targets, one that exits inside the window ------------------------
cases stay --wait both --idle-threads 8
cases leave --wait start
# The spinner's 200 ms of CPU, less the two samples' worth it may fall
# between and a tick: at 100 ticks a second.
SPIN=$(sed -n 's/^expect spin_ms //p' "$WORK/stay.out")
TICKS=$(getconf CLK_TCK)
SPIN_TICKS=$(((SPIN - 2 * 20) * TICKS / 1000 - 2))
msprof_open "$WORK/msprof.log" --dynamic=on --host-only=on \
	--pid="$stay_PID,$leave_PID" --output="$WORK/out" \
	--host-sys=cpu,mem,disk,network --host-sys-usage=cpu,mem \
	--host-sys-usage-freq=25
say start
wait_for "$WORK/msprof.log" "collection started" 30
# Past the first usage sample, which opens every process's files.
sleep 0.3
kill -USR1 "$stay_PID" "$leave_PID"
wait_for "$WORK/stay.out" "hostsys_cases done" 30
wait_pid "$leave_PID" 30
wait_for "$WORK/msprof.log" "pid $leave_PID exited" 10
# The window goes on with the other target: a few more of its samples.
sleep 0.5
say stop
wait_for "$WORK/msprof.log" "collection stopped" 30
say quit
msprof_close
rc=$?
kill -USR1 "$stay_PID"
wait_pid "$stay_PID" 30
show "$WORK/msprof.log"
check "msprof exits 0" [ $rc -eq 0 ]
check "nothing on stderr but the prompt's words" ! grep -q "warning\|cannot\|incomplete" "$WORK/msprof.log"
stay=$(grep -l "\"pid\": $stay_PID," "$WORK"/out/PROF_*/msprof_ebpf_window.json | xargs dirname)
leave=$(grep -l "\"pid\": $leave_PID," "$WORK"/out/PROF_*/msprof_ebpf_window.json | xargs dirname)
check "a PROF_ directory for each target" [ -d "$stay" -a -d "$leave" ]
check "each window complete" [ "$(jq -r .state "$stay/msprof_ebpf_window.json" "$leave/msprof_ebpf_window.json" | sort -u)" = complete ]
check "the target that left: its samples ended as it exited (msprof said so)" \
	grep -q "pid $leave_PID: host-sys: [0-9]* samples, ended as the task exited" "$WORK/msprof.log"
n_stay=$(grep -c '^time ' "$stay"/host/data/host_cpu.data.slice_*)
n_leave=$(grep -c '^time ' "$leave"/host/data/host_cpu.data.slice_*)
check "the other's samples went on after ($n_stay against $n_leave)" [ "$n_stay" -gt "$n_leave" ]
check "sample.json: host_disk_freq 50, the usage's 40 ms, host_sys_pid" \
	[ "$(jq -c '[.host_disk_freq, .hostProfilingSamplingInterval, .host_sys_pid, .host_sys]' "$stay/host/sample.json")" = "[50,40,$stay_PID,\"cpu,mem,disk,network\"]" ]
check "info.json: cpuNums, sysClockFreq, memoryTotal, netCard" \
	jq -e '(.cpuNums > 0) and (.sysClockFreq > 0) and (.memoryTotal > 0) and (.netCard | type == "array")' "$stay/host/info.json"
for d in "$stay" "$leave"; do
	"$MSPROF" --export=on --type=db --output="$d" >"$WORK/export.log" 2>&1
	check "export of $(basename "$d") exits 0" [ $? -eq 0 ]
done
python3 tests/e2e/check_host_sys.py "$stay" "$stay_PID" "$SPIN_TICKS"
check "the stayer's files, tracks, CSVs and tables checked" [ $? -eq 0 ]
python3 tests/e2e/check_host_sys.py "$leave" "$leave_PID"
check "the leaver's files, tracks, CSVs and tables checked" [ $? -eq 0 ]

# --- a thread whose name holds a space, a line break and no UTF-8 ----------
python3 -c '
import ctypes, os, signal, sys, threading, time
libc = ctypes.CDLL(None)
def named():
    libc.prctl(15, b"a b\ntime 1 \xff", 0, 0, 0)
    time.sleep(30)
threading.Thread(target=named, daemon=True).start()
print("ready", flush=True)
time.sleep(30)' >"$WORK/evil.out" 2>&1 &
EVIL=$!
PIDS_TO_KILL+=("$EVIL")
wait_for "$WORK/evil.out" ready
timed_window 0.3 "$WORK/evil.log" --dynamic=on --host-only=on --pid="$EVIL" \
	--output="$WORK/evil" --host-sys=cpu
kill "$EVIL"
d=$(prof_dirs "$WORK/evil")
check "a hostile thread name: every stat line has its fields, the name made safe" \
	python3 -c '
import sys
ls = open(sys.argv[1], "rb").read().decode("ascii").split("\n")[:-1]
ok = all(l.startswith("time ") or len(l.split(" ")) >= 52 or
         (i and ls[i - 1].startswith("time ")) for i, l in enumerate(ls))
sys.exit(0 if ok and any("(a_b_time_1_" in l for l in ls) else 1)' "$d"/host/data/host_cpu.data.slice_0

# --- launch mode ------------------------------------------------------------
# Each step waited for: msprof's start (its BPF load) takes its time.
msprof_open "$WORK/launch.log" --dynamic=on --output="$WORK/launch" \
	--host-sys=cpu,mem "$SAMPLE" --steps 300 --step-ms 10
wait_for "$WORK/launch.log" "attached to pid" 30
app=$(sed -n 's/^npu_sample pid=//p' "$WORK/launch.log")
PIDS_TO_KILL+=("$app")
say start
wait_for "$WORK/launch.log" "collection started" 30
sleep 1
say stop
wait_for "$WORK/launch.log" "collection stopped" 30
say quit
msprof_close
rc=$?
check "launch mode: msprof exits 0" [ $rc -eq 0 ]
d=$(prof_dirs "$WORK/launch")
check "launch mode: the app's host_cpu and host_mem written" \
	[ -s "$d/host/data/host_cpu.data.slice_0" -a -s "$d/host/data/host_mem.data.slice_0" ]
"$MSPROF" --export=on --output="$d" >"$WORK/export.log" 2>&1
check "launch mode: CPU and Memory Usage beside the app's calls" [ "$(timeline "$d" -r '
	[.[] | select(.ph=="M" and .name=="process_name") | .args.name] |
	map(select(. == "CPU Usage" or . == "Memory Usage" or . == "CANN")) | sort | join(",")')" = "CANN,CPU Usage,Memory Usage" ]

# --- without --host-sys: no file of it, no track ---------------------------
cases plain --wait both
timed_window 0.2 "$WORK/none.log" --dynamic=on --host-only=on --pid="$plain_PID" \
	--output="$WORK/none"
d=$(prof_dirs "$WORK/none")
check "without --host-sys: a window, and no host system file in it" \
	[ -d "$d/host/data" -a -z "$(ls "$d/host/data" | grep -v host_trace)" ]
kill -USR1 "$plain_PID"
kill -USR1 "$plain_PID"

# --- a process stuck in exec: the sampler waits, the stop does not ---------
# A user's process whose exec flushes a file on a FUSE mount that never
# answers holds its stat: --host-sys-usage reads every process's.  The
# stop waits 1 s for the sampler, the window is incomplete, msprof ends.
STALL=$PWD/build/tests/fuse_stall
if [ ! -x "$STALL" ] || ! grep -qw fuse /proc/filesystems || [ ! -c /dev/fuse ] ||
	! add_user; then
	skip "a process stuck in exec beside a window" "no fuse_stall, FUSE or test user here"
else
	MNT=$TEST_HOME/mnt
	mkdir "$MNT"
	CLEANUP_CMDS=("umount -l $MNT" "${CLEANUP_CMDS[@]}")
	"$STALL" serve "$MNT" "$(id -u "$TEST_USER")" "$(id -g "$TEST_USER")" \
		>"$WORK/fuse.log" 2>&1 &
	FUSE_PID=$!
	PIDS_TO_KILL=("$FUSE_PID" "${PIDS_TO_KILL[@]}")
	wait_for "$WORK/fuse.log" ready 10
	cases held --wait both
	msprof_open "$WORK/stuck.log" --dynamic=on --host-only=on --pid="$held_PID" \
		--output="$WORK/stuck" --host-sys=cpu --host-sys-usage=cpu
	say start
	wait_for "$WORK/stuck.log" "collection started" 30
	run_as "$STALL" exec "$MNT/f" sleep 120 >"$WORK/exec.out" 2>&1 &
	wait_for "$WORK/exec.out" "exec pid " 10
	STUCK=$(sed -n 's/^exec pid //p' "$WORK/exec.out")
	PIDS_TO_KILL+=("$STUCK")
	wait_for "$WORK/fuse.log" "stalled FLUSH $STUCK" 10
	# Long enough for the sampler's next scan of /proc to reach it.
	sleep 0.5
	t0=$(date +%s%N)
	say stop
	wait_for "$WORK/stuck.log" "collection stopped" 20
	t1=$(date +%s%N)
	before=$(cat "$(prof_dirs "$WORK/stuck")"/host/data/host_cpu.data.slice_* 2>/dev/null | wc -c)
	# The daemon gone, the stuck read returns: the thread left behind ends
	# by itself, writing nothing (and leaks nothing, under ASan).
	kill -TERM "$FUSE_PID"
	gone "$FUSE_PID" 5 || kill -KILL "$FUSE_PID"
	sleep 0.5
	say quit
	msprof_close
	rc=$?
	kill -USR1 "$held_PID"
	kill -USR1 "$held_PID"
	show "$WORK/stuck.log"
	check "stuck exec: msprof stopped within 5 s ($(((t1 - t0) / 1000000)) ms) and exits 0" \
		[ $((t1 - t0)) -lt 5000000000 -a "$rc" = 0 ]
	check "stuck exec: the samples cut, said in one line" \
		[ "$(grep -c "host-sys samples cut: the sampler did not answer" "$WORK/stuck.log")" = 1 ]
	after=$(cat "$(prof_dirs "$WORK/stuck")"/host/data/host_cpu.data.slice_* 2>/dev/null | wc -c)
	check "stuck exec: the thread left behind wrote nothing after the stop ($before bytes before, $after after)" \
		[ "$before" = "$after" ]
	check "stuck exec: the window incomplete, saying why" \
		[ "$(jq -r .incomplete_reason "$(prof_dirs "$WORK/stuck")"/msprof_ebpf_window.json)" = "host-sys data: the sampler did not answer at stop" ]
fi

# --- bad values: one line on stderr, exit 1, nothing created ---------------
bad() {
	local what=$1 made
	shift
	"$MSPROF" "$@" --output="$WORK/bad" >"$WORK/bad.out" 2>"$WORK/bad.err"
	rc=$?
	made=$([ -e "$WORK/bad" ] && echo made)
	check "$what: exit 1, one line ($(head -c 120 "$WORK/bad.err")), nothing created" \
		[ "$rc $(wc -l <"$WORK/bad.err") $(wc -c <"$WORK/bad.out") $made" = "1 1 0 " ]
}
for v in gpu 'cpu,' 'cpu,cpu' '' ',mem' 'cpu,,mem' CPU; do
	bad "--host-sys='$v'" --dynamic=on --pid="$stay_PID" --host-sys="$v"
done
bad "--host-sys given twice" --dynamic=on --pid="$stay_PID" --host-sys=cpu --host-sys=mem
for v in disk '' 'cpu,cpu' 'mem,'; do
	bad "--host-sys-usage='$v'" --dynamic=on --pid="$stay_PID" --host-sys-usage="$v"
done
for v in 0 51 -1 abc '' 1.5 99999999999999999999; do
	bad "--host-sys-usage-freq='$v'" --dynamic=on --pid="$stay_PID" \
		--host-sys-usage=cpu --host-sys-usage-freq="$v"
done
bad "--host-sys-usage-freq without --host-sys-usage" --dynamic=on --pid="$stay_PID" \
	--host-sys-usage-freq=10
for v in -1 10000001 abc '' 1.5 5us; do
	bad "--osrt-threshold='$v'" --dynamic=on --pid="$stay_PID" \
		--host-sys=osrt --osrt-threshold="$v"
done
bad "--osrt-threshold without osrt" --dynamic=on --pid="$stay_PID" \
	--host-sys=cpu --osrt-threshold=5
bad "--host-sys without --dynamic=on" --pid="$stay_PID" --host-sys=cpu
bad "--host-sys in launch mode, bad" --dynamic=on --host-sys=nope "$SAMPLE" --steps 1
