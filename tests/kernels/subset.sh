#!/bin/sh
# shellcheck shell=dash
# subset.sh TREE: the end-to-end subset the kernel matrix runs on each kernel,
# with only busybox at hand (no bash, jq or python): attach mode with exact
# counts, launch mode, host-only attach (also with --host-sys=osrt), and
# export; and, where the image
# has a Debian Python root in /py (initramfs.sh), the Python stack case.
# TREE holds bin/msprof, bin/npu_sample and lib/.  Prints "kt: ok|FAIL ..."
# per check and one "kt-result: ok|FAIL (...)" line at the end; exits
# non-zero on a failure.
# Every wait is bounded: under QEMU's TCG a BPF load or attach takes seconds.
tree=$1
MSPROF=$tree/bin/msprof
SAMPLE=$tree/bin/npu_sample
STEPS=${KT_STEPS:-57}
WAIT_S=${KT_WAIT_S:-90}
work=$(mktemp -d /tmp/msprof-kt.XXXXXX) || exit 1
# Also when matrix.sh's timeout ends the run (TERM).
trap 'rm -rf "$work"' EXIT
trap 'exit 1' TERM INT
failed=""
summary=""

say() { echo "kt: $*"; }

# expect NAME WANT GOT: an exact count; adds "NAME GOT/WANT" to the summary.
expect() {
	summary="$summary${summary:+, }$1 $3/$2"
	if [ "$2" = "$3" ]; then
		say "ok $1 ($3/$2)"
	else
		say "FAIL $1 (got $3, want $2)"
		failed="$failed${failed:+; }$1 $3/$2"
	fi
}

fail() {
	say "FAIL $1"
	failed="$failed${failed:+; }$1"
}

# wait_text FILE TEXT SECONDS [GONE]: until FILE holds TEXT; 1 if it never
# does, or as soon as the file GONE exists (msprof has exited).
wait_text() {
	local n=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		n=$((n + 1))
		[ $n -gt $(($3 * 5)) ] && return 1
		[ -n "$4" ] && [ -e "$4" ] && return 1
		sleep 0.2
	done
}

# wait_gone PID SECONDS: until PID has ended (a zombie counts as ended).
wait_gone() {
	local n=0
	while [ -d "/proc/$1" ] && ! grep -q '^State:.*Z' "/proc/$1/status" 2>/dev/null; do
		n=$((n + 1))
		[ $n -gt $(($2 * 5)) ] && return 1
		sleep 0.2
	done
}

# drive DIR: msprof's stdin. Opens a window, lets the task whose pid is in
# DIR/pid (launch mode: the one msprof started) run its steps inside it, then
# quits, so the window holds exactly the task's steps and teardown.  A task
# left waiting (no window) is ended, so that msprof's quit can finish.
drive() {
	local started=yes
	echo start
	# so does a refusal: "collection not started", "msprof: cannot ..."
	wait_text "$1/msprof.log" "collection \(not \)*started\|msprof: cannot" \
		"$WAIT_S" "$1/exited"
	grep -q "collection started" "$1/msprof.log" || started=""
	[ -s "$1/pid" ] || sed -n 's/^npu_sample pid=//p' "$1/msprof.log" | head -1 >"$1/pid"
	pid=$(cat "$1/pid")
	if [ -n "$started" ]; then
		kill -USR1 "$pid"
		wait_gone "$pid" "$WAIT_S"
		sleep 1
	else
		kill "$pid"
	fi
	echo quit
}

# run_msprof DIR ARGS...: msprof with a bound, its output in DIR/msprof.log;
# DIR/exited tells drive that it has ended.
run_msprof() {
	local w=$1
	shift
	timeout $((WAIT_S * 3)) "$MSPROF" "$@" >"$w/msprof.log" 2>&1
	touch "$w/exited"
}

# why LOG: msprof's first refusal in LOG, else its last message (the task's
# own lines are mixed in in launch mode), else LOG's last line.
why() {
	grep -o 'msprof: .*\(cannot\|not started\).*' "$1" | head -1 | grep . ||
		grep -o 'msprof: .*' "$1" | tail -1 | grep . || tail -1 "$1"
}

# timeline DIR: the exported timeline of the PROF_ directory in DIR (export
# prints every file it wrote: the timeline is msprof_<stamp>.json).
timeline() {
	local d
	d=$(find "$1" -maxdepth 1 -name "PROF_*" -type d | head -1)
	[ -n "$d" ] && "$MSPROF" --export=on --output="$d" 2>>"$1.export.err" |
		grep '/msprof_[0-9]*\.json$'
}

# events JSON KIND [NAME]: trace events of one kind: "s" flow starts,
# "device" task slices, "driver" ioctl slices, else API slices of a layer
# ("AscendCL"), of one API if NAME is given; the export writes one event a
# line, keys in msprof's order (docs/output.md).
events() {
	case $2 in
	s) grep -c '^{"name":"HostToDevice[0-9]*","pid":[0-9]*,"tid":[0-9]*,"ph":"s"' "$1" ;;
	device) grep -c '"ph":"X","args":{"Model Id":' "$1" ;;
	driver) grep -c '^{"name":"ioctl",.*"ph":"X"' "$1" ;;
	*) grep -c "^{\"name\":\"$2@${3:-[^\"]*}\"," "$1" ;;
	esac
}

# calls TASKOUT API: how often the task called API (its own count).
calls() { sed -n "s/^calls $2 //p" "$1"; }

# driver_calls JSON: the successful API calls that reach the driver, each
# one ioctl (npusim_ioctl.h).
driver_calls() {
	grep '^{"name":"AscendCL@' "$1" | grep '"return":0[,}]' |
		grep -cE '"name":"AscendCL@aclrt(SetDevice|ResetDevice|Malloc|Free|Memcpy|LaunchKernel|MemcpyAsync|SynchronizeStream|SynchronizeDevice)"'
}

# check_api JSON TASKOUT DIR: the per-step and teardown calls, each exactly
# as often as the task made them; one ioctl per driver-reaching call; and the
# 6th argument read right (aclrtMemcpyAsync's stream is one the launches
# used: arm64 and x86_64 pass it in different registers).
check_api() {
	local j=$1 out=$2 want got
	expect launches "$(calls "$out" aclrtLaunchKernel)" "$(events "$j" AscendCL aclrtLaunchKernel)"
	for api in aclrtMemcpyAsync aclrtMemcpy aclrtSynchronizeStream \
		   aclrtDestroyStream aclrtFree aclrtResetDevice aclFinalize; do
		want=$(calls "$out" $api)
		got=$(events "$j" AscendCL $api)
		[ "$want" = "$got" ] || expect "$api" "$want" "$got"
	done
	expect ioctls "$(driver_calls "$j")" "$(events "$j" driver ioctl)"
	grep '"name":"AscendCL@aclrtLaunchKernel"' "$j" | grep -o '"stream":"0x[0-9a-f]*"' |
		sort -u >"$3/streams"
	want=$(events "$j" AscendCL aclrtMemcpyAsync)
	got=$(grep '"name":"AscendCL@aclrtMemcpyAsync"' "$j" | grep -o '"stream":"0x[0-9a-f]*"' |
		grep -cxFf "$3/streams")
	expect "6th args" "$want" "$got"
}

# fallbacks LOG: what msprof (MSPROF_VERBOSE=1) said it does without, as
# "cookies+uprobe_multi", "uprobe_multi" or "none".
fallbacks() {
	local f=""
	grep -q 'has no BPF attach cookies' "$1" && f=cookies
	grep -q 'has no uprobe_multi links' "$1" && f=${f:+$f+}uprobe_multi
	echo "${f:-none}"
}

# kernel_fallbacks: what this kernel's version should make msprof do
# without: attach cookies came in 5.15, uprobe_multi links in 6.6.
kernel_fallbacks() {
	uname -r | awk -F. '{ v = $1 * 1000 + $2; f = "";
		if (v < 5015) f = "cookies";
		if (v < 6006) f = f (f == "" ? "" : "+") "uprobe_multi";
		print (f == "" ? "none" : f) }'
}

# attach: a task started with PROFILING_MODE=dynamic, its whole run of steps
# inside one window: exact API, ioctl, device task and flow counts.
case_attach() {
	local w=$work/attach j
	mkdir -p "$w"
	PROFILING_MODE=dynamic "$SAMPLE" --steps "$STEPS" --step-ms 0 --wait-signal \
		>"$w/task.out" 2>&1 &
	echo $! >"$w/pid"
	if ! wait_text "$w/task.out" "waiting for SIGUSR1" "$WAIT_S"; then
		fail "attach: the sample never got ready"
		return
	fi
	export MSPROF_VERBOSE=1	# it names the fallbacks it takes
	drive "$w" | run_msprof "$w" --dynamic=on --pid="$(cat "$w/pid")" \
		--output="$w/out"
	unset MSPROF_VERBOSE
	grep -q "collection started" "$w/msprof.log" ||
		{ fail "attach: no window ($(why "$w/msprof.log"))"; return; }
	j=$(timeline "$w/out")
	[ -f "$j" ] || { fail "export: no timeline ($(tail -1 "$w/out.export.err"))"; return; }
	say "ok export ($(wc -l <"$j") events)"
	expect fallbacks "$(kernel_fallbacks)" "$(fallbacks "$w/msprof.log")"
	check_api "$j" "$w/task.out" "$w"
	expect "device tasks" $((4 * STEPS)) "$(events "$j" device)"
	expect flows $((4 * STEPS)) "$(events "$j" s)"
}

# launch: msprof starts the sample itself (agent preloaded); same counts.
case_launch() {
	local w=$work/launch j n
	mkdir -p "$w"
	drive "$w" | run_msprof "$w" --dynamic=on --output="$w/out" \
		"$SAMPLE" --steps 20 --step-ms 0 --wait-signal
	grep -q "collection started" "$w/msprof.log" ||
		{ fail "launch: no window ($(why "$w/msprof.log"))"; return; }
	j=$(timeline "$w/out")
	[ -f "$j" ] || { fail "launch: no timeline"; return; }
	n=$(events "$j" AscendCL aclrtLaunchKernel)
	expect "launch-mode launches" 60 "$n"
	expect "launch-mode device tasks" 80 "$(events "$j" device)"
}

# host_only_window NAME ARGS...: a sample without an agent (20 steps)
# attached host only, with ARGS, its run inside one window; sets j to the
# exported timeline, or fails NAME and returns 1.
host_only_window() {
	local name=$1 w=$work/$1
	shift
	mkdir -p "$w"
	"$SAMPLE" --steps 20 --step-ms 0 --wait-signal >"$w/task.out" 2>&1 &
	echo $! >"$w/pid"
	if ! wait_text "$w/task.out" "waiting for SIGUSR1" "$WAIT_S"; then
		fail "$name: the sample never got ready"
		return 1
	fi
	drive "$w" | run_msprof "$w" --dynamic=on --host-only=on \
		--pid="$(cat "$w/pid")" --output="$w/out" "$@"
	grep -q "collection started" "$w/msprof.log" ||
		{ fail "$name: no window ($(why "$w/msprof.log"))"; return 1; }
	j=$(timeline "$w/out")
	[ -f "$j" ] || { fail "$name: no timeline"; return 1; }
}

# host-only: a task without an agent, eBPF data only: exact API and ioctl
# counts, no device data; with thread states (--host-sys=sched), whose hooks
# must load and attach on every kernel: slices, and syscalls named.
case_host_only() {
	host_only_window host-only --host-sys=sched || return
	expect "host-only launches" 60 "$(events "$j" AscendCL aclrtLaunchKernel)"
	expect "host-only ioctls" "$(driver_calls "$j")" "$(events "$j" driver ioctl)"
	expect "host-only device tasks" 0 "$(events "$j" device)"
	expect "thread-state slices" yes "$(grep -q '^{"name":"Running",' "$j" && echo yes)"
	expect "syscalls named" yes \
		"$(grep -q '^{"name":"Sleeping",.*"syscall":"[a-z_0-9]*"' "$j" && echo yes)"
}

# osrt: the host-only run with --host-sys=osrt (the syscall hooks' osrt
# paths and libc's pthread probes, loaded as this kernel takes them):
# every driver ioctl among the task's syscall lines, once.
case_osrt() {
	host_only_window osrt --host-sys=osrt || return
	expect "osrt ioctl lines" "$(driver_calls "$j")" \
		"$(cat "$work"/osrt/out/PROF_*/host/data/host_syscall.data.slice_* | grep -c ' ioctl(')"
}

# python: the Python stack test's program under the Debian python3 in /py
# (initramfs.sh's PYROOT), in a chroot there, host side only; its window
# exported and checked by check_pystack.py with the same interpreter.  No
# /py: said, not counted.
case_python() {
	local w=/py/t/run py j out total
	py=$(cd /py && ls usr/bin/python3.* 2>/dev/null | grep -E 'python3\.[0-9]+$' | head -1)
	if [ -z "$py" ]; then
		say "skip python (no Python root in this image)"
		summary="$summary${summary:+, }python: none in the image"
		return
	fi
	mkdir -p "$w"
	chroot /py "/$py" /t/pystack_cases.py --lib /t/lib/libnpusim.so \
		--expect /t/run/expect.json --calls 3 --wait start >"$w/task.out" 2>&1 &
	echo $! >"$w/pid"
	if ! wait_text "$w/task.out" "pystack_cases pid=.* ready" "$WAIT_S"; then
		fail "python: the program never got ready ($(tail -1 "$w/task.out"))"
		return
	fi
	drive "$w" | run_msprof "$w" --dynamic=on --host-only=on \
		--pid="$(cat "$w/pid")" --output="$w/out"
	grep -q "collection started" "$w/msprof.log" ||
		{ fail "python: no window ($(why "$w/msprof.log"))"; return; }
	j=$(timeline "$w/out")
	[ -f "$j" ] || { fail "python: no timeline"; return; }
	[ -s "$w/expect.json" ] || { fail "python: no expectations ($(tail -1 "$w/task.out"))"; return; }
	# the PROF_ directory as the chroot sees it
	out=$(dirname "$(dirname "$j")")
	chroot /py "/$py" /t/check_pystack.py --label "python /$py" "${out#/py}" \
		/t/run/expect.json >"$w/check.out" 2>&1
	sed 's/^/kt: /' "$w/check.out"
	total=$(sed -n 's/.*: Python [0-9.]*: \([0-9]*\/[0-9]*\) calls as expected.*/\1/p' "$w/check.out")
	expect "python $(grep -o 'Python [0-9.]*' "$w/check.out" | tail -1 | cut -d' ' -f2) calls" \
		"${total#*/}" "${total%/*}"
	grep -q '^FAIL ' "$w/check.out" && fail "python: $(grep -c '^FAIL ' "$w/check.out") stack checks"
}

case_attach
case_launch
case_host_only
case_osrt
case_python
# a sample a failed case left waiting for its signal ends with the run
for f in "$work"/*/pid; do
	[ -s "$f" ] && kill "$(cat "$f")" 2>/dev/null
done
if [ -n "$failed" ]; then
	for f in "$work"/*/msprof.log; do
		echo "--- $f"
		tail -5 "$f"
		# what the window counted, before any export
		cat "$(dirname "$f")"/out/PROF_*/msprof_ebpf_window.json 2>/dev/null |
			grep -e '"host"' -e '"lost' -e 'unattributed'
	done
	echo "kt-result: FAIL ($failed)"
else
	echo "kt-result: ok ($summary)"
fi
rm -rf "$work"
[ -z "$failed" ]
