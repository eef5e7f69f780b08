#!/bin/bash
# The controller lock cannot be taken from root: a local user who makes,
# locks or links the old /tmp lock name stops nothing and reaches nothing;
# the lock in /run/msprof keeps one controller per task, names the holder,
# passes on when the holder dies, and is refused if not root's alone.
source tests/e2e/lib.sh

add_user || { skip "controller lock attacks" "cannot add a user"; exit 0; }
start_task --steps 0 --step-ms 20 || exit 1
a=$TASK_PID
start_task --steps 0 --step-ms 20 || exit 1
b=$TASK_PID

# The user holds a flock on the old name for task a ...
run_as sh -c "exec 9>/tmp/.msprof_ctl_$a.lock; flock -n 9 || exit 1; echo locked; exec sleep 120" \
	>"$WORK/flock.out" 2>&1 &
holder=$!
PIDS_TO_KILL+=("$holder")
CLEANUP_CMDS+=("rm -f /tmp/.msprof_ctl_$a.lock /tmp/.msprof_ctl_$b.lock")
wait_for "$WORK/flock.out" locked
# ... and plants a link to a file of root's under the old name for task b.
echo "root's secret" >"$WORK/victim"
chmod 600 "$WORK/victim"
before=$(stat -c '%s %Y %a %U' "$WORK/victim")
run_as ln -s "$WORK/victim" "/tmp/.msprof_ctl_$b.lock"

for p in $a $b; do
	feed start "sleep 1" stop quit |
		"$MSPROF" --dynamic=on --pid="$p" --output="$WORK/out_$p" >"$WORK/attach_$p.log" 2>&1
	rc=$?
	show "$WORK/attach_$p.log"
	check "pid $p: root attaches despite the user's /tmp lock file" [ $rc -eq 0 ]
	check "pid $p: a window was written" [ -n "$(prof_dirs "$WORK/out_$p")" ]
done
check "the user's flock holder was left alone" kill -0 "$holder"
check "the linked victim is untouched" [ "$(stat -c '%s %Y %a %U' "$WORK/victim")" = "$before" ]
check "the victim's content is intact" [ "$(cat "$WORK/victim")" = "root's secret" ]
check "/run/msprof is root's, 0700" [ "$(stat -c '%U %a' /run/msprof)" = "root 700" ]

# --- one controller per task; a dead holder's lock is taken over ----------
msprof_open "$WORK/first.log" --dynamic=on --pid="$a" --output="$WORK/first"
wait_for "$WORK/first.log" "attached to pid $a"
first=$MSPROF_PID
lock=/run/msprof/pidns_$(stat -L -c %i /proc/$a/ns/pid)_pid_$a.lock
check "the lock file is root's, 0600" [ -f "$lock" -a ! -L "$lock" -a "$(stat -c '%U %a' "$lock")" = "root 600" ]
"$MSPROF" --dynamic=on --pid="$a" --output="$WORK/second" </dev/null >"$WORK/second.log" 2>&1
rc=$?
show "$WORK/second.log"
check "a second controller is refused" [ $rc -ne 0 ]
check "it names the holder" grep -q "pid $a is already being profiled by msprof pid $first" "$WORK/second.log"
check "the refused one created nothing" [ ! -e "$WORK/second" ]
kill -KILL "$first"
wait "$first" 2>/dev/null
exec 3>&-
feed start "sleep 1" stop quit |
	"$MSPROF" --dynamic=on --pid="$a" --output="$WORK/third" >"$WORK/third.log" 2>&1
rc=$?
show "$WORK/third.log"
check "after the holder was killed, a new controller takes over" [ $rc -eq 0 ]
check "and collects a window" [ -n "$(prof_dirs "$WORK/third")" ]

# --- a lock place that is not root's alone is refused ----------------------
CLEANUP_CMDS+=("chmod 0700 /run/msprof")
chmod 0777 /run/msprof
"$MSPROF" --dynamic=on --pid="$b" --output="$WORK/loose" </dev/null >"$WORK/loose.log" 2>&1
rc=$?
chmod 0700 /run/msprof
show "$WORK/loose.log"
check "a group/other-writable /run/msprof is refused" [ $rc -ne 0 ]
check "with one line" [ "$(wc -l <"$WORK/loose.log")" -eq 1 ]
check "naming /run/msprof" grep -q "/run/msprof or the lock file in it is not root's alone" "$WORK/loose.log"
lock=/run/msprof/pidns_$(stat -L -c %i /proc/$b/ns/pid)_pid_$b.lock
touch "$lock"
chown "$TEST_USER" "$lock"
"$MSPROF" --dynamic=on --pid="$b" --output="$WORK/loose" </dev/null >"$WORK/loose2.log" 2>&1
rc=$?
rm -f "$lock"
show "$WORK/loose2.log"
check "a lock file not root's is refused" [ $rc -ne 0 ]
check "with the reason" grep -q "not root's alone" "$WORK/loose2.log"
check "nothing was created" [ ! -e "$WORK/loose" ]
