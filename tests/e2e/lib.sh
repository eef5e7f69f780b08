# Helpers shared by the end-to-end tests (sourced).  A script's exit status
# agrees with its lines: non-zero when a check failed (the EXIT trap).
MSPROF=${MSPROF:-$PWD/build/bin/msprof}
SAMPLE=$PWD/build/bin/npu_sample
WORK=$(mktemp -d /tmp/msprof-e2e.XXXXXX)
PIDS_TO_KILL=()
CLEANUP_CMDS=()
CHECKS_FAILED=0

# alive PID: the process exists and has not exited (a zombie has).
alive() {
	local stat
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	stat=${stat##*) }
	[ "${stat%% *}" != Z ]
}

# gone PID [SECONDS]: until PID has exited (5 s at most).
gone() {
	local i
	for i in $(seq $((${2:-5} * 20))); do
		alive "$1" || return 0
		sleep 0.05
	done
	return 1
}

# wait_pid PID [SECONDS]: waits for a child of this shell (30 s at most)
# and returns its exit status; one that outlives the bound is killed, and
# the status is then 124.
wait_pid() {
	if ! gone "$1" "${2:-30}"; then
		echo "pid $1 still running after ${2:-30} s: killed"
		kill -KILL "$1" 2>/dev/null
		wait "$1" 2>/dev/null
		return 124
	fi
	wait "$1"
}

# cleanup [STATUS]: the EXIT trap; ends the test's processes (TERM, then
# KILL after 5 s), runs CLEANUP_CMDS, and exits non-zero when a check
# failed.
cleanup() {
	local rc=${1:-$?} p
	{
		for p in "${PIDS_TO_KILL[@]}"; do
			kill "$p"
		done
		for p in "${PIDS_TO_KILL[@]}"; do
			gone "$p" || kill -KILL "$p"
		done
	} 2>/dev/null	# and bash's word on each job it ended
	for p in "${CLEANUP_CMDS[@]}"; do
		$p 2>/dev/null
	done
	[ -n "$KEEP_WORK" ] || rm -rf "$WORK"	# KEEP_WORK=1: kept for a look
	if [ "$rc" -eq 0 ] && [ "$CHECKS_FAILED" -gt 0 ]; then
		rc=1
	fi
	exit "$rc"
}
trap cleanup EXIT

check() {	# check "what" [!] command...
	local what=$1 want=0
	shift
	if [ "$1" = "!" ]; then
		want=1
		shift
	fi
	"$@"
	if [ $(($? != 0)) -eq $want ]; then
		echo "ok $what"
	else
		echo "FAIL $what"
		CHECKS_FAILED=$((CHECKS_FAILED + 1))
	fi
}

# one_line FILE PATTERN: FILE is one line, and it holds PATTERN (grep's),
# for check (which runs one command: "[ ... ] && grep" would check the
# first only).
one_line() {
	[ "$(wc -l <"$1")" = 1 ] && grep -q -- "$2" "$1"
}

# A check that could not run here says so; the runner counts it apart.
skip() {	# skip "what" "why"
	echo "skip $1 ($2)"
}

# db_check_line PREFIX STATUS WHAT: one line of db_check.py's, counted:
# PASS ok, SKIP skip (its reason in WHAT), anything else a failure.
db_check_line() {
	if [ "$2" = SKIP ]; then
		echo "skip $1$3"
	else
		check "$1$3" [ "$2" = PASS ]
	fi
}

# wait_socket DIR PID: until DIR holds PID's agent socket (10 s at most).
wait_socket() {
	local i
	for i in $(seq 100); do
		[ -S "$1/dynamic_profiling_socket_$2" ] && return 0
		sleep 0.1
	done
	echo "task $2 never opened its socket in $1"
	return 1
}

# Starts npu_sample in the background with the agent enabled; sets TASK_PID.
start_task() {
	PROFILING_MODE=dynamic "$SAMPLE" "$@" >"$WORK/task.out" 2>&1 &
	TASK_PID=$!
	PIDS_TO_KILL+=("$TASK_PID")
	wait_socket "$HOME" "$TASK_PID"
}

# Shows logs; a log ending at the (msprof) prompt gets its line ended, so
# the next "ok"/"FAIL" starts a line of its own (the runner counts those).
show() {
	cat "$@"
	echo
}

# Feeds msprof a script of commands, one "cmd" or "sleep N" per argument.
feed() {
	local c
	for c in "$@"; do
		case $c in
		sleep*) $c ;;
		*) echo "$c" ;;
		esac
	done
}

prof_dirs() {	# prof_dirs DIR: the PROF_ directories in DIR, sorted
	find "$1" -maxdepth 1 -name 'PROF_*' -type d | sort
}
# timed_window SECONDS LOG ARGS...: msprof ARGS, one window of SECONDS
# counted from when collection started (not from when start was typed:
# connecting takes its time on a loaded machine), then quit; the status is
# msprof's.
timed_window() {
	local secs=$1 log=$2
	shift 2
	msprof_open "$log" "$@"
	say start
	wait_for "$log" "collection started" 30 >&2
	sleep "$secs"
	say stop
	wait_for "$log" "collection stopped" 60 >&2
	say quit
	msprof_close
}

# one_window DEVICES: one attached window (1.5 s) of an npu_sample on
# DEVICES devices; the task is ended after.  Sets d to its PROF_ directory
# (checked: the session exits 0, one directory); msprof's output is in
# $WORK/msprof.log.
one_window() {
	local -a dirs
	start_task --steps 0 --step-ms 10 --devices "$1" || exit 1
	timed_window 1.5 "$WORK/msprof.log" --dynamic=on --pid="$TASK_PID" \
		--output="$WORK/out"
	check "msprof session exits 0" [ $? -eq 0 ]
	kill -TERM "$TASK_PID"
	mapfile -t dirs < <(prof_dirs "$WORK/out")
	check "one PROF_ directory" [ ${#dirs[@]} -eq 1 ]
	d=${dirs[0]}
}
stages() {	# stages DIR: the staging directories msprof left in DIR, sorted
	find "$1" -maxdepth 1 -name '.msprof_stage_*' | sort
}

# bpf_fds PID [KIND]: PID's BPF descriptors, one "fd kind" a line, kind
# one of bpf-prog, bpf-map, btf, bpf-link:<link_type> (uprobe_multi,
# raw_tracepoint, perf_event...) and perf_event (a perf event, as a
# single uprobe is); only the kinds KIND (an ERE) matches when given.
# Fails when PID is gone, so that "none" is never said of a dead process.
bpf_fds() {
	local pid=$1 fd kind
	[ -d "/proc/$pid/fd" ] || { echo "pid $pid is gone"; return 1; }
	for fd in "/proc/$pid"/fd/*; do
		case $(readlink "$fd" 2>/dev/null) in
		anon_inode:bpf-prog) kind=bpf-prog ;;
		anon_inode:bpf-map) kind=bpf-map ;;
		anon_inode:btf) kind=btf ;;
		anon_inode:bpf_link | anon_inode:bpf-link)
			kind=bpf-link:$(awk '$1 == "link_type:" { print $2 }' \
				"/proc/$pid/fdinfo/${fd##*/}" 2>/dev/null) ;;
		anon_inode:\[perf_event\]) kind=perf_event ;;
		*) continue ;;
		esac
		grep -Eq -- "${2:-.}" <<<"$kind" && echo "${fd##*/} $kind"
	done
	alive "$pid" || { echo "pid $pid is gone"; return 1; }
}

# The checks made of it.  Each lists what it found when it fails.
fds_none() {	# fds_none PID [KIND]: PID holds no such descriptor
	local fds
	fds=$(bpf_fds "$@") && [ -z "$fds" ] && return 0
	echo "pid $1 holds: $(echo $fds)"
	return 1
}
probes_attached() {	# probes_attached PID: msprof PID holds uprobes now
	local fds
	fds=$(bpf_fds "$1" 'uprobe|perf_event') && [ -n "$fds" ]
}
probes_detached() {	# probes_detached PID: no link or perf event left
	fds_none "$1" 'bpf-link|perf_event'
}

# jq over the newest exported timeline of a PROF dir
timeline() {
	local dir=$1
	shift
	jq "$@" "$(ls -t "$dir"/mindstudio_profiler_output/msprof_*.json | head -1)"
}

# check_exact_counts DIR TASK_OUT STEPS: DIR, an exported PROF_ directory
# of a window that held all of an `npu_sample --wait-signal --steps STEPS`
# run from its SIGUSR1 to its exit, holds exactly the per-step and teardown
# calls the task counted in TASK_OUT (its "calls <api> <n>" lines, also
# after a "(msprof) " prompt when msprof launched it), one ioctl per
# driver-reaching call, and a device task and flow per launch and copy.
check_exact_counts() {
	local d=$1 out=$2 steps=$3 api want got launches
	for api in aclrtLaunchKernel aclrtMemcpyAsync aclrtMemcpy aclrtSynchronizeStream \
		   aclrtDestroyStream aclrtFree aclrtResetDevice aclFinalize; do
		want=$(sed -En "s/^(.*\) )?calls $api //p" "$out")
		[ $api = aclrtLaunchKernel ] && launches=$want
		got=$(timeline "$d" --arg n "$api" '[.[] | select(.ph=="X" and .args.id==$n)] | length')
		check "exactly $want $api calls in the window (got $got)" [ "$got" = "$want" ]
	done
	check "3 launches a step" [ "$launches" = $((3 * steps)) ]
	# Every successful driver-reaching call issued one ioctl (npusim_ioctl.h).
	want=$(timeline "$d" '[.[] | select(.ph=="X" and .args.return==0 and (.args.id // "" |
		IN("aclrtSetDevice","aclrtResetDevice","aclrtMalloc","aclrtFree","aclrtMemcpy",
		   "aclrtLaunchKernel","aclrtMemcpyAsync","aclrtSynchronizeStream",
		   "aclrtSynchronizeDevice")))] | length')
	got=$(timeline "$d" '[.[] | select(.ph=="X" and .name=="ioctl")] | length')
	check "one ioctl per driver-reaching call ($want = $got)" [ "$want" = "$got" ]
	check "ioctls decoded as npusim's ('Y' = 89)" [ "$(timeline "$d" '[.[] | select(.name=="ioctl") | .args.type] | unique')" = "$(printf '[\n  89\n]')" ]
	# The agent flushed as the task exited: every launch and async copy ran
	# as one device task.
	got=$(timeline "$d" '[.[] | select(.ph=="X" and .args["Task Type"])] | length')
	check "exactly $((4 * steps)) device tasks (got $got)" [ "$got" = $((4 * steps)) ]
	got=$(timeline "$d" '[.[] | select(.ph=="s")] | length')
	check "each linked to its launch (got $got)" [ "$got" = $((4 * steps)) ]
}

# wait_for FILE TEXT [SECONDS]: until FILE holds TEXT (10 s at most).
wait_for() {
	local i
	for i in $(seq $((${3:-10} * 20))); do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	echo "timed out waiting for '$2' in $1"
	return 1
}

# msprof_open LOG ARGS...: msprof in the background, its commands written
# with `say`; sets MSPROF_PID.  msprof_close ends its input and waits.
msprof_open() {
	local log=$1
	shift
	rm -f "$WORK/msprof.cmd"
	mkfifo "$WORK/msprof.cmd"
	"$MSPROF" "$@" <"$WORK/msprof.cmd" >"$log" 2>&1 &
	MSPROF_PID=$!
	exec 3>"$WORK/msprof.cmd"
}
# A command to an msprof that has left (a launched app that ended takes it
# along) is not said; the test goes on to see how it ended.
say() {
	(trap '' PIPE; echo "$1" >&3) 2>/dev/null ||
		echo "msprof $MSPROF_PID has left: '$1' not said"
}
msprof_close() {
	exec 3>&-
	wait_pid "$MSPROF_PID"
}

# window_to_exit LOG SECONDS ARGS...: msprof attached with ARGS (its log
# LOG) starts a window, the waiting task ($TASK_PID, start_waiting
# --wait-signal) is let go and waited for; returns the task's status.
window_to_exit() {
	local log=$1 secs=$2
	shift 2
	msprof_open "$log" "$@"
	say start
	wait_for "$log" "collection started"
	kill -USR1 "$TASK_PID"
	wait_pid "$TASK_PID" "$secs"
}

# follow_py SCRIPT NAME [VAR=VALUE...]: runs the python SCRIPT (LIBNPUSIM
# names the runtime for it) as PY_PID until it prints "ready", then msprof
# following it and its children, host only, into $WORK/NAME (log
# $WORK/NAME.log), and opens a window.
follow_py() {
	local script=$1 name=$2
	shift 2
	env LIBNPUSIM="$PWD/build/lib/libnpusim.so" "$@" /usr/bin/python3 \
		"$script" >"$WORK/$name.out" 2>&1 &
	PY_PID=$!
	PIDS_TO_KILL+=("$PY_PID")
	wait_for "$WORK/$name.out" ready
	msprof_open "$WORK/$name.log" --dynamic=on --host-only=on \
		--follow-children=on --pid=$PY_PID --output="$WORK/$name"
	say start
	wait_for "$WORK/$name.log" "collection started"
}

# cann_data DIR [N...]: the window in DIR has a CANN runtime's raw device
# files for each device N (default 0): its stars_soc and the host's
# task_track.
cann_data() {
	local d=$1 n
	shift
	[ -s "$d/host/data/aging.compact.task_track.slice_0" ] || return 1
	for n in "${@:-0}"; do
		[ -s "$d/device_$n/data/stars_soc.data.$n.slice_0" ] || return 1
	done
}

# start_waiting LOG PROGRAM ARGS...: a program that prints TEXT when it
# waits for SIGUSR1 (npu_sample --wait-signal, cuda_sample: "waiting for
# SIGUSR1", the default; hostsys_cases: WAIT_TEXT=ready); sets TASK_PID.
start_waiting() {
	local log=$1
	shift
	"$@" >"$log" 2>&1 &
	TASK_PID=$!
	PIDS_TO_KILL+=("$TASK_PID")
	wait_for "$log" "${WAIT_TEXT:-waiting for SIGUSR1}"
}

# add_user: a throwaway unprivileged user with a home of its own, for the
# attacks a task's user could make; sets TEST_USER, TEST_HOME.  Removed at
# exit.  run_as runs a command as that user.
add_user() {
	TEST_USER=msprofe2e$$
	TEST_HOME=$(mktemp -d /tmp/msprof-home.XXXXXX)
	useradd -M -d "$TEST_HOME" -s /bin/sh "$TEST_USER" || return 1
	chown "$TEST_USER:" "$TEST_HOME"
	chmod 755 "$TEST_HOME"
	# What the user still runs (a task a test started as it) would keep
	# userdel from removing it: the user is the test's own, and so are they.
	CLEANUP_CMDS+=("pkill -KILL -U $TEST_USER" "sleep 0.3" "userdel $TEST_USER" "rm -rf $TEST_HOME")
}
run_as() {
	setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --clear-groups \
		env HOME="$TEST_HOME" "$@"
}

# job_window LOG OUT LOGS N ARGS...: msprof (--hccl=on, output OUT) launches
# run_ranks.sh N --wait-signal ARGS (the ranks' logs in LOGS), opens one
# window, releases every rank's steps and waits for them to end, then quits;
# returns msprof's status.
job_window() {
	local log=$1 out=$2 logs=$3 n=$4 r
	shift 4
	mkdir -p "$logs"
	msprof_open "$log" --dynamic=on --hccl=on --output="$out" \
		env RUN_RANKS_LOGS="$logs" RUN_RANKS_TIMEOUT=180 \
		tools/npusim/sample/run_ranks.sh "$n" --wait-signal "$@"
	for r in $(seq 0 $((n - 1))); do
		wait_for "$logs/rank_$r.log" "npu_sample waiting for SIGUSR1" 30
	done
	say start
	wait_for "$log" "collection started (window 1)" 30
	release_ranks "$logs" "$n"
	wait_for "$log" "no task left to profile" 30
	say quit
	msprof_close
}
# release_ranks LOGS N: starts the steps of the N ranks waiting in LOGS and
# waits until each has ended its communicator.
release_ranks() {
	local r
	kill -USR1 $(sed -n 's/^npu_sample pid=//p' "$1"/rank_*.log)
	for r in $(seq 0 $(($2 - 1))); do
		wait_for "$1/rank_$r.log" "calls HcclCommDestroy" 120
	done
}
