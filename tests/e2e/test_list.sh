#!/bin/bash
# msprof --list: the tasks with a profiling socket, for every user and
# container (a task of another user, one with a rank id, one in a pid
# namespace of its own), which controller holds each, and names planted in
# a home that must not count; then --job=<pid>: a running job's ranks
# attached through their launcher.
source tests/e2e/lib.sh
RUN=tools/npusim/sample/run_ranks.sh

# row PID: PID's line of $WORK/list.out, its fields tab-separated.
row() {
	awk -F '\t' -v p="$1" '$1 == p' "$WORK/list.out"
}
# field PID N: field N of PID's row.
field() {
	row "$1" | cut -f "$2"
}
list() {
	timeout 20 "$MSPROF" --list >"$WORK/list.out" 2>"$WORK/list.err"
}
# lock_left PID NSPID: a lock file named for the task is in /run/msprof.
lock_left() {
	local ino
	ino=$(stat -L -c %i "/proc/$1/ns/pid") &&
		[ -e "/run/msprof/pidns_${ino}_pid_$2.lock" ]
}

# --- three tasks: another user's, a rank's, a container's -----------------
add_user || { check "a throwaway user" false; exit 1; }
run_as env PROFILING_MODE=dynamic "$SAMPLE" --steps 0 --step-ms 10 \
	>"$WORK/user.out" 2>&1 &
PIDS_TO_KILL+=($!)
# run_as is a function: $! is the subshell running it; the task says its pid.
wait_for "$WORK/user.out" "npu_sample pid=" 30
USER_PID=$(sed -n 's/^npu_sample pid=//p' "$WORK/user.out")
wait_socket "$TEST_HOME" "$USER_PID" || { show "$WORK/user.out"; exit 1; }

RANK_ID=1 RANK_SIZE=2 start_task --steps 0 --step-ms 10 --no-allreduce || exit 1
RANK_PID=$TASK_PID

# A pid namespace of its own (and, with --mount-proc, a mount namespace):
# the task is pid 2 there, its socket named so, in a home of its own.
CTR_PID=
CTR_HOME=$WORK/ctr-home
mkdir "$CTR_HOME"
if unshare --pid --mount-proc --kill-child true 2>/dev/null; then
	unshare --pid --fork --mount-proc --kill-child env HOME="$CTR_HOME" \
		PROFILING_MODE=dynamic bash -c '"$1" --steps 0 --step-ms 10 & wait' \
		ctr "$SAMPLE" >"$WORK/ctr.out" 2>&1 &
	UNSHARE_PID=$!
	# unshare ignores SIGTERM; its SIGKILL takes the namespace along.
	# Disowned: bash would report the kill.
	disown "$UNSHARE_PID"
	CLEANUP_CMDS+=("kill -KILL $UNSHARE_PID")
	for i in $(seq 100); do
		for p in $(cat /proc/$UNSHARE_PID/task/*/children 2>/dev/null); do
			for c in $(cat /proc/$p/task/*/children 2>/dev/null); do
				[ "$(cat /proc/$c/comm 2>/dev/null)" = npu_sample ] && CTR_PID=$c
			done
		done
		[ -n "$CTR_PID" ] && break
		sleep 0.1
	done
	CTR_NSPID=$(awk '/^NSpid:/ { print $NF }' "/proc/$CTR_PID/status" 2>/dev/null)
	wait_socket "$CTR_HOME" "$CTR_NSPID" || CTR_PID=
	check "the container's task started (host pid $CTR_PID, pid $CTR_NSPID inside)" \
		[ -n "$CTR_PID" -a "$CTR_PID" != "$CTR_NSPID" ]
else
	skip "the task in a pid namespace" "unshare cannot make one here"
fi

# A process without a socket, and two of the user's with names planted in
# its home: a FIFO (which would hang an open) and a link to a real socket
# (root's task's, in root's home).
sleep 60 &
PLAIN_PID=$!
PIDS_TO_KILL+=("$PLAIN_PID")
# Exec'd by the subshell run_as runs in, so $! is the sleep itself.
(exec setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --clear-groups sleep 60) &
FIFO_PID=$!
(exec setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --clear-groups sleep 60) &
LINK_PID=$!
PIDS_TO_KILL+=("$FIFO_PID" "$LINK_PID")
run_as mkfifo "$TEST_HOME/dynamic_profiling_socket_$FIFO_PID"
run_as ln -s "$HOME/dynamic_profiling_socket_$RANK_PID" \
	"$TEST_HOME/dynamic_profiling_socket_$LINK_PID"

# A process of root's whose HOME the user can write (a daemon with HOME=/tmp,
# say): a real socket the user binds there under its name is the user's, and
# attach mode would never connect to it, so it does not make root's process
# a task to list.
(HOME="$TEST_HOME" exec sleep 60) &
ROOTS_PID=$!
PIDS_TO_KILL+=("$ROOTS_PID")
run_as python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX).bind(sys.argv[1])' \
	"$TEST_HOME/dynamic_profiling_socket_$ROOTS_PID"

# --- the table -------------------------------------------------------------
list
check "--list exits 0" [ $? -eq 0 ]
check "  and says nothing on stderr" [ ! -s "$WORK/list.err" ]
show "$WORK/list.out"
check "a header line" [ "$(head -1 "$WORK/list.out")" = "$(printf 'PID\tNSPID\tUSER\tCOMMAND\tRANK_ID\tHELD_BY')" ]
check "six tab-separated fields a row" [ -z "$(awk -F '\t' 'NF != 6' "$WORK/list.out")" ]
check "rows sorted by host pid" sort -n -c <(tail -n +2 "$WORK/list.out" | cut -f 1)
check "the user's task: one row" [ "$(row "$USER_PID" | wc -l)" = 1 ]
check "  its user, command, no rank, not held" [ "$(row "$USER_PID" | cut -f 2-)" = \
	"$(printf '%s\t%s\tnpu_sample\t-\t-' "$USER_PID" "$TEST_USER")" ]
check "the rank's task: rank 1, root's, not held" [ "$(row "$RANK_PID" | cut -f 2-)" = \
	"$(printf '%s\troot\tnpu_sample\t1\t-' "$RANK_PID")" ]
if [ -n "$CTR_PID" ]; then
	check "the container's task: its own pid ($CTR_NSPID) beside the host's" \
		[ "$(field "$CTR_PID" 2)" = "$CTR_NSPID" -a "$(field "$CTR_PID" 4)" = npu_sample ]
fi
check "a process without a socket is not listed" [ -z "$(row "$PLAIN_PID")" ]
check "a FIFO under a socket's name does not count" [ -z "$(row "$FIFO_PID")" ]
check "nor a link to another task's socket" [ -z "$(row "$LINK_PID")" ]
check "nor a socket of another user's (the user's, in a home root's process took)" \
	[ -S "$TEST_HOME/dynamic_profiling_socket_$ROOTS_PID" -a -z "$(row "$ROOTS_PID")" ]
check "the FIFO is still there, unopened" [ -p "$TEST_HOME/dynamic_profiling_socket_$FIFO_PID" ]
check "listing made no lock file" ! lock_left "$RANK_PID" "$RANK_PID"
check "  nor one for the user's task" ! lock_left "$USER_PID" "$USER_PID"
# A user may list: only its own tasks can be read, the rest left out.
run_as timeout 20 "$MSPROF" --list >"$WORK/user-list.out" 2>"$WORK/user-list.err"
check "as the task's user: exit 0, nothing on stderr" [ $? -eq 0 -a ! -s "$WORK/user-list.err" ]
check "  its own task listed" grep -q "^$USER_PID	" "$WORK/user-list.out"
check "  root's tasks left out" ! grep -q "^$RANK_PID	" "$WORK/user-list.out"

"$MSPROF" --list >/dev/full 2>"$WORK/full.err"
check "--list to a full device: exit 1, one line" [ $? -eq 1 -a "$(wc -l <"$WORK/full.err")" = 1 ]

"$MSPROF" --list --pid="$RANK_PID" >"$WORK/bad.out" 2>"$WORK/bad.err"
check "--list with --pid: exit 1, one line naming it" [ $? -eq 1 -a \
	"$(cat "$WORK/bad.err")" = "msprof: --list takes no other option (--pid given)" ]

# --- held by a controller ----------------------------------------------------
msprof_open "$WORK/attach.log" --dynamic=on --pid="$RANK_PID" --output="$WORK/out"
wait_for "$WORK/attach.log" "attached to pid $RANK_PID" 30
list
check "while attached: held by msprof $MSPROF_PID" [ "$(field "$RANK_PID" 6)" = "$MSPROF_PID" ]
check "  the others are not" [ "$(field "$USER_PID" 6)" = - ]
say quit
msprof_close
list
check "after quit: not held" [ "$(field "$RANK_PID" 6)" = - ]

# --- --job=<launcher>: a job's ranks -----------------------------------------
mkdir "$WORK/logs"
env PROFILING_MODE=dynamic RUN_RANKS_LOGS="$WORK/logs" RUN_RANKS_TIMEOUT=120 \
	$RUN 2 --steps 0 --step-ms 10 >"$WORK/job.out" 2>&1 &
JOB_PID=$!
PIDS_TO_KILL+=("$JOB_PID")
rank_pids=()
for r in 0 1; do
	wait_for "$WORK/logs/rank_$r.log" "npu_sample pid=" 30
	p=$(sed -n 's/^npu_sample pid=//p' "$WORK/logs/rank_$r.log")
	rank_pids+=("$p")
	wait_socket "$HOME" "$p"
done
timed_window 1.5 "$WORK/job.log" --dynamic=on --job="$JOB_PID" --output="$WORK/jobout"
check "--job: msprof exits 0" [ $? -eq 0 ]
show "$WORK/job.log"
check "  names the ranks it found" grep -qxF "msprof: job $JOB_PID: ${rank_pids[*]}" "$WORK/job.log"
check "  attached to both" [ "$(grep -c "^msprof: attached to pid" "$WORK/job.log")" = 2 ]
check "  one window: 2 PROF_ directories" [ "$(prof_dirs "$WORK/jobout" | wc -l)" = 2 ]
ranks=$(for d in $(prof_dirs "$WORK/jobout"); do jq .rank_id "$d/host/info.json"; done | sort | xargs)
check "  with rank ids 0 and 1 (got $ranks)" [ "$ranks" = "0 1" ]

# With --pid: both, each once.
msprof_open "$WORK/both.log" --dynamic=on --job="$JOB_PID" --pid="$RANK_PID,${rank_pids[0]}" \
	--output="$WORK/bothout"
wait_for "$WORK/both.log" "(msprof)" 30
say quit
msprof_close
check "--job with --pid: exit 0" [ $? -eq 0 ]
check "  the job's other rank added" grep -qxF "msprof: job $JOB_PID: ${rank_pids[1]}" "$WORK/both.log"
check "  three tasks attached, each once" [ "$(grep -c "^msprof: attached to pid" "$WORK/both.log")" = 3 ]

# A rank the job starts after msprof attached joins at the next start.
env PROFILING_MODE=dynamic bash -c '
	"$1" --steps 0 --step-ms 10 &
	for i in $(seq 600); do [ -e "$2" ] && break; sleep 0.1; done
	"$1" --steps 0 --step-ms 10 &
	wait' late "$SAMPLE" "$WORK/go" >"$WORK/late.out" 2>&1 &
LATE_PID=$!
PIDS_TO_KILL+=("$LATE_PID")
# late_ranks: the launcher's npu_sample children, by pid.
late_ranks() {
	local p
	for p in $(cat /proc/$LATE_PID/task/*/children 2>/dev/null); do
		[ "$(cat /proc/$p/comm 2>/dev/null)" = npu_sample ] && echo "$p"
	done | sort -n
}
wait_for "$WORK/late.out" "npu_sample pid=" 30
first=$(late_ranks)
wait_socket "$HOME" "$first"
msprof_open "$WORK/late.log" --dynamic=on --job="$LATE_PID" --output="$WORK/lateout"
wait_for "$WORK/late.log" "attached to pid $first" 30
touch "$WORK/go"
for i in $(seq 100); do
	second=$(late_ranks | grep -vx "$first")
	[ -n "$second" ] && break
	sleep 0.1
done
wait_socket "$HOME" "$second"
say start
wait_for "$WORK/late.log" "collection started" 30
sleep 1
say stop
wait_for "$WORK/late.log" "collection stopped" 60
say quit
msprof_close
check "--job, a rank started later: exit 0" [ $? -eq 0 ]
check "  attached at start" grep -qF "msprof: attached to pid $second (" "$WORK/late.log"
check "  a PROF_ directory each in the window" [ "$(prof_dirs "$WORK/lateout" | wc -l)" = 2 ]
kill -TERM "$first" "$second" "$LATE_PID"

"$MSPROF" --dynamic=on --job="$PLAIN_PID" --output="$WORK/none" >"$WORK/none.out" 2>"$WORK/none.err"
check "--job of a process without ranks: exit 1, one line" [ $? -eq 1 -a \
	"$(wc -l <"$WORK/none.err")" = 1 ]
check "  naming the problem" grep -q "^msprof: --job=$PLAIN_PID: neither it nor a process it started has a profiling socket" "$WORK/none.err"
check "  nothing created" [ ! -e "$WORK/none" ]
"$MSPROF" --dynamic=on --job=999999999 >"$WORK/gone.out" 2>"$WORK/gone.err"
check "--job of no process: exit 1, named" [ $? -eq 1 -a \
	"$(cat "$WORK/gone.err")" = "msprof: --job=999999999: no process with pid 999999999" ]
kill -TERM "$JOB_PID"
