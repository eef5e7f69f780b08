#!/bin/bash
# Seed rules on options: every bad input is one line on stderr naming the
# problem, a non-zero exit, and nothing created: no PROF_ directory, no
# output directory, no socket, no BPF program, the target untouched.
source tests/e2e/lib.sh

# A home of the test's own: other tasks' sockets come and go in root's.
export HOME=$WORK/home
mkdir "$HOME"

start_task --steps 0 --step-ms 20 || exit 1
sockets_before=$(ls "$HOME"/dynamic_profiling_socket_* 2>/dev/null | sort)

expect_error() {	# expect_error "what" "needle" msprof-args...
	local what=$1 needle=$2
	shift 2
	"$MSPROF" "$@" </dev/null >"$WORK/stdout" 2>"$WORK/stderr"
	local rc=$?
	check "$what: non-zero exit" [ $rc -ne 0 ]
	check "$what: one line naming the problem" \
		[ "$(wc -l <"$WORK/stderr")" -eq 1 -a -n "$(grep -F -- "$needle" "$WORK/stderr")" ]
	check "$what: nothing created" [ ! -e "$WORK/out" ]
}

out=--output=$WORK/out
expect_error "unknown pid" "no process with pid 999999" --dynamic=on --pid=999999 "$out"
expect_error "pid list with one unknown" "no process with pid 999999" --dynamic=on --pid=$TASK_PID,999999 "$out"
expect_error "pid without agent" "PROFILING_MODE=dynamic" --dynamic=on --pid=$$ "$out"
expect_error "pid not a number" "--pid takes process ids" --dynamic=on --pid=12a "$out"
expect_error "dynamic not on/off" "--dynamic takes on or off" --dynamic=maybe --pid=1 "$out"
expect_error "no mode" "no mode given" "$out"
expect_error "dynamic without app or pid" "needs an app to launch or --pid" --dynamic=on "$out"
expect_error "pid and app" "--pid cannot be combined" --dynamic=on --pid=1 "$out" /bin/true
expect_error "dynamic with delay" "--dynamic=on cannot be combined with --delay" --dynamic=on --delay=5 --pid=$TASK_PID "$out"
expect_error "dynamic with duration" "--dynamic=on cannot be combined with --duration" --dynamic=on --duration=5 "$out" "$SAMPLE"
expect_error "unknown option" "unknown option '--frobnicate=1'" --dynamic=on --frobnicate=1 --pid=1 "$out"
expect_error "missing value" "needs a value" --dynamic=on --pid
expect_error "pid with a trailing comma" "--pid: element 2 of '$TASK_PID,' is empty" \
	--dynamic=on --pid=$TASK_PID, "$out"
expect_error "pid with a doubled comma" "--pid: element 2 of '$TASK_PID,,1' is empty" \
	--dynamic=on --pid=$TASK_PID,,1 "$out"
expect_error "uprobe with a trailing comma" "--uprobe: element 2 of 'libc:malloc,' is empty" \
	--dynamic=on --pid=$TASK_PID --uprobe=libc:malloc, "$out"

# Ids that are no process msprof can profile, each refused with its reason.
if [ "$(cat /proc/2/comm 2>/dev/null)" = kthreadd ]; then
	expect_error "kernel thread" "pid 2 (kthreadd) is a kernel thread" --dynamic=on --pid=2 "$out"
	expect_error "kernel thread, host-only" "pid 2 (kthreadd) is a kernel thread" \
		--dynamic=on --host-only=on --pid=2 "$out"
else
	skip "kernel thread" "pid 2 is not kthreadd here"
fi
# 4026531836: the initial pid namespace's inode, fixed by the kernel.
if [ "$(stat -L -c %i /proc/self/ns/pid)" = 4026531836 ]; then
	expect_error "the host's init" "pid 1 is the host's init: profiling init is not supported" \
		--dynamic=on --host-only=on --pid=1 "$out"
else
	skip "the host's init" "the tests do not run in the initial pid namespace"
fi
tid=$(ls /proc/$TASK_PID/task | grep -vx "$TASK_PID" | head -1)
if [ -n "$tid" ]; then
	expect_error "thread id" "pid $tid is a thread of process $TASK_PID: give the process id" \
		--dynamic=on --pid=$tid "$out"
	expect_error "thread id, host-only" "pid $tid is a thread of process $TASK_PID: give the process id" \
		--dynamic=on --host-only=on --pid=$tid "$out"
else
	skip "thread id" "npu_sample $TASK_PID runs a single thread"
fi
for bad in '$' '&' ';' '|' '>' '<' '%' '`' "'" '"' '\' '\n' '\$'; do
	expect_error "output with '$bad'" "--output must not contain" \
		--dynamic=on --pid=$TASK_PID --output="$WORK/out/a${bad}b"
done
expect_error "output with a newline" "control character 0x0a" \
	--dynamic=on --pid=$TASK_PID --output="$WORK/out/a
b"
expect_error "app that does not exist" "cannot run" --dynamic=on "$out" /nonexistent/app
PROFILING_MODE=dynamic expect_error "launch with PROFILING_MODE set" "unset PROFILING_MODE" --dynamic=on "$out" "$SAMPLE"
PROFILING_OPTIONS=x expect_error "launch with PROFILING_OPTIONS set" "unset PROFILING_MODE and PROFILING_OPTIONS" --dynamic=on "$out" "$SAMPLE"

check "the target holds no BPF descriptor" fds_none "$TASK_PID"
check "no socket created" [ "$(ls "$HOME"/dynamic_profiling_socket_* 2>/dev/null | sort)" = "$sockets_before" ]
check "the target is untouched and running" kill -0 "$TASK_PID"
"$MSPROF" --help >"$WORK/help" 2>&1
check "--help exits 0" [ $? -eq 0 ]
for opt in dynamic pid application output export host-only idle-timeout buffer-size delay duration; do
	check "--help lists --$opt" grep -q -- "--$opt" "$WORK/help"
done
"$MSPROF" --version >"$WORK/version" 2>&1
check "--version exits 0" [ $? -eq 0 ]
check "--version prints msprof and the VERSION file's" [ "$(cat "$WORK/version")" = "msprof $(cat VERSION)" ]
