#!/bin/bash
# Bad input: one line on stderr, non-zero exit, nothing created.
source tests/e2e/lib.sh

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

expect_error "unknown pid" "no process with pid 999999" --dynamic=on --pid=999999 --output="$WORK/out"
expect_error "pid without agent" "PROFILING_MODE=dynamic" --dynamic=on --pid=$$ --output="$WORK/out"
expect_error "bad switch" "--dynamic takes on or off" --dynamic=maybe --pid=1 --output="$WORK/out"
expect_error "no mode" "no mode given" --output="$WORK/out"
expect_error "pid and app" "cannot be combined" --dynamic=on --pid=1 --output="$WORK/out" /bin/true
expect_error "app that does not exist" "cannot run" --dynamic=on --output="$WORK/out" /nonexistent/app
check "no BPF program left" no_bpf_left
