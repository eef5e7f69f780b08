# Helpers shared by the end-to-end tests (sourced).
MSPROF=${MSPROF:-$PWD/build/bin/msprof}
SAMPLE=$PWD/build/bin/npu_sample
WORK=$(mktemp -d /tmp/msprof-e2e.XXXXXX)
PIDS_TO_KILL=()
CLEANUP_CMDS=()

cleanup() {
	local p
	for p in "${PIDS_TO_KILL[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	for p in "${CLEANUP_CMDS[@]}"; do
		$p 2>/dev/null
	done
	rm -rf "$WORK"
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
	fi
}

# Starts npu_sample in the background with the agent enabled; sets TASK_PID.
start_task() {
	PROFILING_MODE=dynamic "$SAMPLE" "$@" >"$WORK/task.out" 2>&1 &
	TASK_PID=$!
	PIDS_TO_KILL+=("$TASK_PID")
	local i
	for i in $(seq 100); do
		[ -S "$HOME/dynamic_profiling_socket_$TASK_PID" ] && return 0
		sleep 0.1
	done
	echo "task $TASK_PID never opened its socket"
	return 1
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

# None of our programs may stay loaded once msprof has quit.  The kernel
# frees a program after its last reference, a moment after the exit.  (Run
# the tests alone: another msprof's programs have the same names, and this
# bpftool cannot tell which process holds them.)
no_bpf_left() {
	local i
	for i in $(seq 20); do
		bpftool prog show 2>/dev/null |
			grep -Eq 'name (api_enter|api_exit|ioctl_enter|ioctl_exit|thread_exit|task_fork) ' || return 0
		sleep 0.1
	done
	return 1
}

# jq over the newest exported timeline of a PROF dir
timeline() {
	local dir=$1
	shift
	jq "$@" "$(ls -t "$dir"/mindstudio_profiler_output/msprof_*.json | head -1)"
}

# wait_for FILE TEXT: until FILE holds TEXT (10 s at most).
wait_for() {
	local i
	for i in $(seq 200); do
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
say() { echo "$1" >&3; }
msprof_close() {
	exec 3>&-
	wait "$MSPROF_PID"
}

# start_waiting LOG PROGRAM ARGS...: a program that prints TEXT when it
# waits for SIGUSR1 (npu_sample --wait-signal, cuda_sample); sets TASK_PID.
start_waiting() {
	local log=$1
	shift
	"$@" >"$log" 2>&1 &
	TASK_PID=$!
	PIDS_TO_KILL+=("$TASK_PID")
	wait_for "$log" "waiting for SIGUSR1"
}

# A check that could not run here says so; the runner counts it apart.
skip() {	# skip "what" "why"
	echo "skip $1 ($2)"
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
	CLEANUP_CMDS+=("userdel $TEST_USER" "rm -rf $TEST_HOME")
}
run_as() {
	setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --clear-groups \
		env HOME="$TEST_HOME" "$@"
}
