#!/bin/bash
# A user's process whose /proc entries hang whoever reads them: its exec is
# stuck flushing a file on a FUSE file system whose daemon never answers
# (the kernel holds the exec locks meanwhile, and /proc/<pid>/stat, maps,
# environ, ns/* and root wait on them), and one whose HOME is on such a
# mount (allow_other), where looking for its socket never returns.  msprof
# (root) must finish --list, --job and an attach within their deadlines
# beside them, skip each and say so in one line.
source tests/e2e/lib.sh
STALL=$PWD/build/tests/fuse_stall

[ -x "$STALL" ] || { skip "hanging /proc reads" "no $STALL (make all)"; exit 0; }
grep -qw fuse /proc/filesystems 2>/dev/null ||
	{ skip "hanging /proc reads" "no FUSE in this kernel"; exit 0; }
[ -c /dev/fuse ] || { skip "hanging /proc reads" "no /dev/fuse"; exit 0; }
add_user || { skip "hanging /proc reads" "cannot add a user"; exit 0; }

# The daemon (fuse_stall serve) mounts as root, so /dev/fuse's mode (0600
# on some machines) does not matter; it then serves as the test user.
MNT=$TEST_HOME/mnt
mkdir "$MNT"
# The mount goes before the home it is in is removed; the daemon's end
# (it is killed first, in PIDS_TO_KILL) aborts the connection, which frees
# every process waiting on it.  While they wait, whatever reads every
# process's stat (ps, pkill) waits with them: the test keeps that short.
CLEANUP_CMDS=("umount -l $MNT" "${CLEANUP_CMDS[@]}")
FUSE_PID=

# release: the daemon ends, and with it every wait on the file system.
release() {
	kill -TERM "$FUSE_PID" 2>/dev/null
	gone "$FUSE_PID" 5 || kill -KILL "$FUSE_PID" 2>/dev/null
}
# hangs FILE: root's read of FILE waits (for 2 s at least).
hangs() {
	(timeout -s KILL 2 cat "$1" >/dev/null 2>&1)
	[ $? -eq 137 ]
}
# stall_up: unless they are there already, the daemon on MNT and its two
# victims: STUCK, the user's process stuck in exec (it opened f
# close-on-exec, and exec's flush of it waits for the daemon for good),
# and HOMED, a process of the user's whose HOME is on the mount, where its
# socket's name is looked up and never answered.  A check that released
# the daemon (msprof would not end otherwise) leaves the next to make new
# ones.
stall_up() {
	[ -n "$FUSE_PID" ] && alive "$FUSE_PID" && return 0
	[ -n "$FUSE_PID" ] && umount -l "$MNT" 2>/dev/null
	"$STALL" serve "$MNT" "$(id -u "$TEST_USER")" "$(id -g "$TEST_USER")" \
		>"$WORK/fuse.log" 2>&1 &
	FUSE_PID=$!
	PIDS_TO_KILL=("$FUSE_PID" "${PIDS_TO_KILL[@]}")
	wait_for "$WORK/fuse.log" ready 10 || return 1
	run_as "$STALL" exec "$MNT/f" sleep 120 >"$WORK/exec.out" 2>&1 &
	wait_for "$WORK/exec.out" "exec pid " 10 || return 1
	STUCK=$(sed -n 's/^exec pid //p' "$WORK/exec.out")
	PIDS_TO_KILL+=("$STUCK")
	wait_for "$WORK/fuse.log" "stalled FLUSH $STUCK" 10 || return 1
	(HOME=$MNT/d exec setpriv --reuid="$TEST_USER" --regid="$TEST_USER" \
		--clear-groups sleep 120) &
	HOMED=$!
	PIDS_TO_KILL+=("$HOMED")
}
# bounded PID SECONDS: waits for PID (a child) that long; one still
# running then is freed (the daemon ended: a wait on FUSE can outlast even
# SIGKILL) and killed, and the status is 124.
bounded() {
	if gone "$1" "$2"; then
		wait "$1"
		return
	fi
	echo "pid $1 still running after $2 s: the file system released, it killed"
	release
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	return 124
}
# took START: whole seconds since START (date +%s).
took() {
	echo $(($(date +%s) - $1))
}

if ! stall_up; then
	show "$WORK/fuse.log" "$WORK/exec.out"
	skip "hanging /proc reads" "cannot mount FUSE or stall an exec on it here"
	exit 0
fi
# What the kernel does (6.18): root's read of its stat and maps waits
# (killably) on the exec lock.  Elsewhere the checks below mean nothing.
if ! hangs "/proc/$STUCK/stat" 2>/dev/null || ! hangs "/proc/$STUCK/maps" 2>/dev/null; then
	skip "hanging /proc reads" "reading /proc/$STUCK/stat of a process stuck in exec does not wait on this kernel ($(uname -r))"
	exit 0
fi
echo "ok root's read of /proc/$STUCK/stat and maps hangs (the kernel's exec lock)"

# A task of the user's after both (a higher pid): found, so the scan went on.
run_as env PROFILING_MODE=dynamic "$SAMPLE" --steps 0 --step-ms 10 \
	>"$WORK/task.out" 2>&1 &
PIDS_TO_KILL+=($!)
wait_for "$WORK/task.out" "npu_sample pid=" 30
TASK=$(sed -n 's/^npu_sample pid=//p' "$WORK/task.out")
PIDS_TO_KILL+=("$TASK")
wait_socket "$TEST_HOME" "$TASK" || { show "$WORK/task.out"; exit 1; }

# --- --list ----------------------------------------------------------------
# Through a pipe: a reader msprof left stuck must not hold it open.
t0=$(date +%s)
rm -f "$WORK/list.rc"
("$MSPROF" --list 2>"$WORK/list.err"; echo $? >"$WORK/list.rc") |
	cat >"$WORK/list.out" &
bounded $! 20
piped=$?
secs=$(took "$t0")
rc=$(cat "$WORK/list.rc" 2>/dev/null)
show "$WORK/list.out" "$WORK/list.err"
check "--list finishes beside them, within 10 s, its pipe closed (took $secs s)" \
	[ "$piped" -ne 124 -a "$secs" -le 10 ]
check "  exit 1: not every process was looked at (got $rc)" [ "$rc" = 1 ]
check "  the task after them is listed" grep -q "^$TASK	" "$WORK/list.out"
check "  the one stuck in exec: skipped, said in one line" \
	[ "$(grep -c "pid $STUCK " "$WORK/list.err")" = 1 ]
check "  the one with its HOME on the mount: skipped, said in one line" \
	[ "$(grep -c "pid $HOMED " "$WORK/list.err")" = 1 ]
check "  nothing else on stderr" [ "$(wc -l <"$WORK/list.err")" = 2 ]
check "  neither is listed" ! grep -qE "^($STUCK|$HOMED)	" "$WORK/list.out"

# --- attach ------------------------------------------------------------------
for mode in "" --host-only=on; do
	for which in STUCK HOMED; do
		stall_up || { check "the stalled processes again" false; break 2; }
		p=${!which}
		[ "$which" = STUCK ] && what="stuck in exec" || what="HOME on the mount"
		t0=$(date +%s)
		"$MSPROF" --dynamic=on $mode --pid="$p" --output="$WORK/out" \
			</dev/null >"$WORK/attach.out" 2>"$WORK/attach.err" &
		bounded $! 20
		rc=$?
		secs=$(took "$t0")
		show "$WORK/attach.out" "$WORK/attach.err"
		# --host-only looks for no socket: the HOME on the mount is never read.
		if [ -n "$mode" ] && [ "$which" = HOMED ]; then
			check "attach $mode to the one with its $what: finishes (took $secs s)" \
				[ "$rc" -ne 124 -a "$secs" -le 10 ]
			continue
		fi
		check "attach ${mode:+$mode }to the one $what: fails within 10 s (took $secs s, exit $rc)" \
			[ "$rc" -eq 1 -a "$secs" -le 10 ]
		check "  one line, naming the pid and the problem" \
			[ "$(wc -l <"$WORK/attach.err")" = 1 -a \
			  "$(grep -c "pid $p: .*did not answer" "$WORK/attach.err")" = 1 ]
		check "  no output directory made" [ ! -e "$WORK/out" ]
	done
done

# --- --job -------------------------------------------------------------------
# A launcher (root's) whose children are a process stuck the same way and a
# rank: the rank is attached, the stuck one skipped and said; the stuck
# processes outside the job are none of its business.
stall_up || check "the stalled processes again" false
bash -c '
	setpriv --reuid="$1" --regid="$1" --clear-groups "$2" exec "$3" sleep 120 &
	PROFILING_MODE=dynamic "$4" --steps 0 --step-ms 10 &
	wait' job "$TEST_USER" "$STALL" "$MNT/f" "$SAMPLE" >"$WORK/job.out" 2>&1 &
JOB=$!
PIDS_TO_KILL+=("$JOB")
wait_for "$WORK/job.out" "exec pid " 10
wait_for "$WORK/job.out" "npu_sample pid=" 30
JSTUCK=$(sed -n 's/^exec pid //p' "$WORK/job.out")
RANK=$(sed -n 's/^npu_sample pid=//p' "$WORK/job.out")
PIDS_TO_KILL+=("$JSTUCK" "$RANK")
wait_for "$WORK/fuse.log" "stalled FLUSH $JSTUCK" 10
wait_socket "$HOME" "$RANK"
t0=$(date +%s)
echo quit | "$MSPROF" --dynamic=on --job="$JOB" --output="$WORK/jobout" \
	>"$WORK/job.log" 2>&1 &
bounded $! 30
rc=$?
secs=$(took "$t0")
show "$WORK/job.log"
check "--job beside a stuck descendant: exits 0 within 20 s (took $secs s, exit $rc)" \
	[ "$rc" -eq 0 -a "$secs" -le 20 ]
check "  the stuck one skipped, said in one line" \
	[ "$(grep -c "pid $JSTUCK .*did not answer" "$WORK/job.log")" = 1 ]
check "  the rank attached" grep -qF "msprof: attached to pid $RANK" "$WORK/job.log"
check "  the stuck ones outside the job not named" \
	! grep -qE "pid ($STUCK|$HOMED) " "$WORK/job.log"
release
