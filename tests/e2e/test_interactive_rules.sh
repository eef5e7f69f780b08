#!/bin/bash
# Interactive-mode rules: the prompt and its commands, start/stop out of
# order, status, the idle timeout, one controller per task (a killed one
# frees the task at once), and quit / q / SIGTERM / end of input all
# finishing a running window and leaving the task running; SIGINT, as at
# msprof's own prompt, is answered and does not leave.
source tests/e2e/lib.sh

start_task --steps 0 --step-ms 10 || exit 1
run_msprof() {	# run_msprof LOG ARGS...: msprof on the task, commands on stdin
	local log=$1
	shift
	"$MSPROF" --dynamic=on --pid="$TASK_PID" "$@" >"$log" 2>&1
}

# --- commands and their messages ----------------------------------------
feed help h stop start "sleep 0.5" start status bogus stop stop quit |
	run_msprof "$WORK/cmds.log" --output="$WORK/cmds"
check "commands: exit 0" [ $? -eq 0 ]
check "the prompt is (msprof)" grep -q '^(msprof) ' "$WORK/cmds.log"
check "help lists the commands" grep -q "status  state, window" "$WORK/cmds.log"
check "h is help too, as at msprof's prompt" [ "$(grep -c "status  state, window" "$WORK/cmds.log")" -eq 3 ]
check "stop while stopped is refused politely" grep -q "collection is not running; type start first" "$WORK/cmds.log"
check "start while started is refused politely" grep -q "collection is already running (window 1); type stop first" "$WORK/cmds.log"
# The result lines msprof's own prompt prints, in order, after the prompt.
sed -E 's/^(\(msprof\) )+//' "$WORK/cmds.log" |
	grep -E '^(\[(WARNING|ERROR)\] )?dynamic profiling ' >"$WORK/cmds.said"
check "msprof's own result lines, in order" diff - "$WORK/cmds.said" <<'END'
[WARNING] dynamic profiling has not started......
dynamic profiling start success......
[WARNING] dynamic profiling already started......
dynamic profiling stop success......
[WARNING] dynamic profiling has not started......
dynamic profiling quit success......
END
check "status shows the window" grep -q "state: collecting, window 1" "$WORK/cmds.log"
check "status shows the target and its events" grep -Eq "pid $TASK_PID \(npu_sample\): [0-9]+ API calls" "$WORK/cmds.log"
check "an unknown command is named as msprof names it" grep -qx "(msprof) invalid option -- 'bogus'" "$WORK/cmds.log"
usage_follows() { [ "$(grep -A1 -xF "(msprof) invalid option -- 'bogus'" "$WORK/cmds.log" | tail -1)" = Usage: ]; }
check "and the usage follows" usage_follows
check "one start/stop pair, one PROF_ directory" [ "$(prof_dirs "$WORK/cmds" | wc -l)" -eq 1 ]

# --- no start within the idle timeout -------------------------------------
# Its input stays open and silent.
msprof_open "$WORK/idle.log" --dynamic=on --pid="$TASK_PID" --output="$WORK/idle" --idle-timeout=2
check "idle timeout: msprof left on its own" gone "$MSPROF_PID" 6
msprof_close
check "idle timeout: the user is told" grep -q "no start for 2 s: leaving the interactive mode" "$WORK/idle.log"
check "idle timeout: the task keeps running" kill -0 "$TASK_PID"

# --- one controller per task ----------------------------------------------
mkfifo "$WORK/first.cmd"
"$MSPROF" --dynamic=on --pid="$TASK_PID" --output="$WORK/first" \
	<"$WORK/first.cmd" >"$WORK/first.log" 2>&1 &
first=$!
exec 3>"$WORK/first.cmd"
wait_for "$WORK/first.log" "attached to pid"
run_msprof "$WORK/second.log" --output="$WORK/second" </dev/null
check "a second msprof is refused" [ $? -ne 0 ]
check "the refusal names the controlling msprof" grep -q "already being profiled by msprof pid $first" "$WORK/second.log"
check "the refused one created nothing" [ ! -e "$WORK/second" ]
kill -KILL "$first"
{ wait_pid "$first"; } 2>/dev/null
exec 3>&-
feed start "sleep 0.5" stop quit | run_msprof "$WORK/third.log" --output="$WORK/third"
check "a killed controller frees the task at once" [ $? -eq 0 ]
check "and the next one collects" [ "$(prof_dirs "$WORK/third" | wc -l)" -eq 1 ]

# --- every way out finishes the window --------------------------------
for how in quit q eof SIGINT SIGTERM; do
	mkfifo "$WORK/$how.cmd"
	"$MSPROF" --dynamic=on --pid="$TASK_PID" --output="$WORK/$how" \
		<"$WORK/$how.cmd" >"$WORK/$how.log" 2>&1 &
	m=$!
	exec 3>"$WORK/$how.cmd"
	echo start >&3
	wait_for "$WORK/$how.log" "collection started"
	check "$how: probes on in the window" probes_attached "$m"
	sleep 0.5
	case $how in
	quit | q) echo $how >&3 ;;
	eof) exec 3>&- ;;
	SIGINT)
		kill -INT "$m"
		check "SIGINT: answered as msprof's prompt answers it" wait_for "$WORK/$how.log" "Use 'quit' or 'q' to exit dynamic profiling."
		check "SIGINT: msprof stays, the window open" probes_attached "$m"
		echo quit >&3 ;;
	*) kill -"${how#SIG}" "$m" ;;
	esac
	wait_pid "$m"
	rc=$?
	exec 3>&- 2>/dev/null
	d=$(prof_dirs "$WORK/$how")
	check "$how: exit 0" [ $rc -eq 0 ]
	check "$how: the window was written" [ -s "$d/msprof_ebpf_window.json" -a -s "$d/host/end_info" ]
	check "$how: with its data" [ "$(jq .host.api_events "$d/msprof_ebpf_window.json")" -gt 0 ]
	check "$how: the task runs on" kill -0 "$TASK_PID"
	check "$how: the task holds no BPF descriptor" fds_none "$TASK_PID"
done
feed start "sleep 0.3" stop quit | run_msprof "$WORK/again.log" --output="$WORK/again"
check "the task can be attached again" [ "$(prof_dirs "$WORK/again" | wc -l)" -eq 1 ]
