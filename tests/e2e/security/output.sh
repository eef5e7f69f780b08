#!/bin/bash
# The output directory and the staging directory against a task's user and
# anyone who can write where --output is: root's files stay untouched, no
# one else's entry lands in a PROF_ directory, and windows say whether they
# are complete.
source tests/e2e/lib.sh

if ! add_user; then
	skip "output and staging attacks" "cannot add a user"
	exit 0
fi
# Where the task's user can reach its stage: $WORK is root's alone.
PUB=$(mktemp -d /tmp/msprof-pub.XXXXXX)
chmod 755 "$PUB"
CLEANUP_CMDS+=("rm -rf $PUB")

# Root's victims: a 0600 file with known content and an empty 0700 dir.
VICTIM=$WORK/victim
VDIR=$WORK/rootonly
echo "root's secret $$" >"$VICTIM"
chmod 600 "$VICTIM"
touch -d '2001-01-01' "$VICTIM"
mkdir -m 700 "$VDIR"
VSTAT=$(stat -c '%Y %s %a %U' "$VICTIM")
victim_untouched() {
	[ "$(cat "$VICTIM")" = "root's secret $$" ] &&
		[ "$(stat -c '%Y %s %a %U' "$VICTIM")" = "$VSTAT" ] &&
		[ -z "$(ls -A "$VDIR")" ]
}
# Nothing in the PROF_ dirs of DIR is the user's, a link, a FIFO...
only_roots() {
	[ -n "$(prof_dirs "$1")" ] &&
		[ -z "$(find "$1"/PROF_* -user "$TEST_USER")" ] &&
		[ -z "$(find "$1"/PROF_* ! -type d ! -type f)" ]
}

# The task runs as the user; sets UTASK.
start_user_task() {
	run_as env PROFILING_MODE=dynamic "$SAMPLE" --steps 0 --step-ms 10 \
		>"$WORK/utask.out" 2>&1 &
	# run_as is a function: $! is a shell; the task says its own pid.
	PIDS_TO_KILL+=($!)
	wait_for "$WORK/utask.out" "npu_sample pid=" || return 1
	UTASK=$(sed -n 's/^npu_sample pid=//p' "$WORK/utask.out")
	PIDS_TO_KILL+=("$UTASK")
	timeout 10 sh -c "until [ -S '$TEST_HOME/dynamic_profiling_socket_$UTASK' ]; do sleep 0.1; done" ||
		{ echo "the user's task $UTASK never opened its socket"; return 1; }
}
start_user_task || exit 1

# --- 1: entries planted in the agent's PROF_ dir in the staging directory -
out=$PUB/planted
msprof_open "$WORK/planted.log" --dynamic=on --pid="$UTASK" --output="$out"
say start
wait_for "$WORK/planted.log" "collection started"
stage=$(stages "$out")
check "one staging directory, the user's, mode 700" \
	[ "$(stat -c '%U %a' "$stage" 2>/dev/null)" = "$TEST_USER 700" ]
d=$(prof_dirs "$out")
check "the window's account says collecting during the window" \
	[ "$(jq -r .state "$d/msprof_ebpf_window.json")" = collecting ]
# The names export writes through for the next minute (local time stamps).
now=$(date +%s)
stamps=$(for i in $(seq -5 60); do date -d "@$((now + i))" +%Y%m%d%H%M%S; done)
# The agent made its window's PROF_ directory in the stage at start, as a
# runtime does: what is planted beside its files there is what msprof reads.
run=$(find "$stage" -mindepth 1 -maxdepth 1 -name 'PROF_*' -type d)
check "the agent made its window's PROF_ directory in the stage" [ -n "$run" ]
run_as sh -c "cd '$run' &&
	mkdir mindstudio_profiler_output userdir &&
	for s in $(echo $stamps); do
		ln -s '$VICTIM' mindstudio_profiler_output/msprof_\$s.json.tmp
	done &&
	ln -s '$VICTIM' agent_stats_evil.json &&
	mkfifo agent_stats_fifo.json &&
	echo two >agent_stats_two.json && ln agent_stats_two.json two_link &&
	ln -s '$VDIR' device_7 && touch userdir/f"
check "the user planted its entries" [ -L "$run/device_7" ]
sleep 1
say stop
wait_for "$WORK/planted.log" "collection stopped"
msprof_close
check "msprof exits 0 after a planted stage" [ $? -eq 0 ]
show "$WORK/planted.log"
check "the planted entries are reported once" \
	[ "$(grep -c 'ignored [0-9]* unexpected entries in the staging directory' "$WORK/planted.log")" -eq 1 ]
check "root's file and dir untouched after stop" victim_untouched
check "no entry of the user's, no link, no FIFO in the PROF_ dir" only_roots "$out"
check "device data still taken, root's" \
	[ "$(stat -c %U "$d/device_0/data/stars_soc.data.0.slice_0" 2>/dev/null)" = root ]
check "... and not empty" cann_data "$d"
check "the window's account says complete after stop" [ "$(jq -r .state "$d/msprof_ebpf_window.json")" = complete ]
check "the staging directory is removed at the end" [ -z "$(stages "$out")" ]
"$MSPROF" --export=on --output="$out" >"$WORK/export.log" 2>&1
check "export exits 0" [ $? -eq 0 ]
check "root's file and dir untouched after export" victim_untouched

# --- 2: a writable parent; links at the output and swaps mid-window -------
sticky=$PUB/sticky
mkdir -m 1777 "$sticky"
run_as ln -s "$VDIR" "$sticky/prof"
"$MSPROF" --dynamic=on --pid="$UTASK" --output="$sticky/prof" </dev/null \
	>"$WORK/link.log" 2>&1
rc=$?
show "$WORK/link.log"
check "a link planted at --output: refused" [ $rc -ne 0 ]
check "... in one line naming it" \
	[ "$(wc -l <"$WORK/link.log")" -eq 1 -a "$(grep -c 'symbolic link' "$WORK/link.log")" -eq 1 ]
check "... and root's dir untouched" victim_untouched
run_as rm "$sticky/prof"

out=$sticky/prof
msprof_open "$WORK/swap.log" --dynamic=on --pid="$UTASK" --output="$out"
say start
wait_for "$WORK/swap.log" "collection started (window 1)"
d=$(prof_dirs "$out")
# Only root could swap these here: what counts is that msprof holds them.
mv "$d" "$out/held"
ln -s "$VDIR" "$d"
sleep 1
say stop
wait_for "$WORK/swap.log" "collection stopped (window 1)"
check "PROF_ swapped for a link mid-window: root's dir untouched" victim_untouched
held=$out/held
check "the window is finished where it was made" \
	[ "$(jq -r .state "$held/msprof_ebpf_window.json")" = complete -a -s "$held/host/end_info" ]
check "... with its device data" cann_data "$held"
mv "$out" "$sticky/prof.moved"
ln -s "$VDIR" "$out"
say start
wait_for "$WORK/swap.log" "collection started (window 2)"
sleep 1
say stop
wait_for "$WORK/swap.log" "collection stopped (window 2)"
msprof_close
check "msprof exits 0 after the swaps" [ $? -eq 0 ]
show "$WORK/swap.log"
check "--output swapped for a link between windows: root's dir untouched" victim_untouched
# (The agent, which writes its stage by path, lost its device data.)
check "the next window is made where --output was opened" \
	[ "$(jq -r .state "$(ls -d "$sticky"/prof.moved/PROF_000002_*)/msprof_ebpf_window.json")" = complete ]
rm "$out"

# --- 3: a staging directory made beforehand -------------------------------
out=$PUB/open
mkdir -m 1777 "$out"
old=$out/.msprof_stage_$UTASK
run_as mkdir -m 777 "$old"
run_as touch "$old/mine"
chmod 777 "$old"
msprof_open "$WORK/premade.log" --dynamic=on --pid="$UTASK" --output="$out"
say start
wait_for "$WORK/premade.log" "collection started"
new=$(stages "$out" | grep -vx "$old")
check "a new staging directory, mode 700" [ "$(stat -c %a "$new" 2>/dev/null)" = 700 ]
sleep 1
say stop
wait_for "$WORK/premade.log" "collection stopped"
msprof_close
show "$WORK/premade.log"
check "the one made beforehand is neither used nor removed" \
	[ "$(ls -A "$old")" = mine ]
check "the window has its device data, all root's" only_roots "$out"
check "... device data" cann_data "$(prof_dirs "$out")"

# --- bad --output values: one line, non-zero, nothing made ----------------
touch "$PUB/file"
ln -s "$PUB/target" "$PUB/link"
mkdir "$PUB/target" "$PUB/users" "$PUB/wide"
chown "$TEST_USER" "$PUB/users"
chmod 777 "$PUB/wide"
for o in file:'is not a directory' link:'symbolic link' \
	 users:'owned by another user' wide:'writable by group or others'; do
	name=${o%%:*}
	"$MSPROF" --dynamic=on --pid="$UTASK" --output="$PUB/$name" </dev/null \
		>"$WORK/bad.log" 2>&1
	rc=$?
	check "--output $name: refused" [ $rc -ne 0 ]
	check "--output $name: one line saying it ${o#*:}" \
		[ "$(wc -l <"$WORK/bad.log")" -eq 1 -a "$(grep -c "${o#*:}" "$WORK/bad.log")" -eq 1 ]
	[ "$(wc -l <"$WORK/bad.log")" -eq 1 ] || cat "$WORK/bad.log"
done
check "nothing made in any of them" \
	[ ! -s "$PUB/file" -a -z "$(find "$PUB/target" "$PUB/users" "$PUB/wide" -mindepth 1)" ]

# --- a killed controller: its window says collecting, its stage stays ----
out=$PUB/killed
msprof_open "$WORK/killed.log" --dynamic=on --pid="$UTASK" --output="$out"
say start
wait_for "$WORK/killed.log" "collection started"
kill -KILL "$MSPROF_PID"
msprof_close
d=$(prof_dirs "$out")
check "a killed controller's window says collecting" \
	[ "$(jq -r .state "$d/msprof_ebpf_window.json")" = collecting ]
check "... and names the stage its device data went to" \
	jq -e '.device_status | test("flushes it into .*/\\.msprof_stage_[0-9]+_[0-9]+_")' "$d/msprof_ebpf_window.json"
left=$(stages "$out")
check "its staging directory is left" [ -n "$left" ]
flushed() {	# the agent flushes the cut window when its connection ends
	local i f
	for i in $(seq 100); do
		# Into the window's PROF_ directory it made in the stage.
		for f in "$1"/PROF_*/device_0/data/stars_soc.data.0.slice_0; do
			[ -s "$f" ] && return 0
		done
		sleep 0.05
	done
	return 1
}
check "... holding the cut window's device data, where the window's account says" \
	flushed "$(jq -r '.device_status | sub(".*flushes it into "; "")' "$d/msprof_ebpf_window.json")"
feed start "sleep 1" stop quit |
	"$MSPROF" --dynamic=on --pid="$UTASK" --output="$out" >"$WORK/after.log" 2>&1
check "the next session works" [ $? -eq 0 ]
show "$WORK/after.log"
check "... without touching the stage left before" [ "$(stages "$out")" = "$left" ]
check "... and its own window is complete" \
	[ "$(jq -r .state "$(prof_dirs "$out" | grep -vx "$d")/msprof_ebpf_window.json")" = complete ]

# --- a start that fails leaves nothing; a full disk at stop ---------------
# A tmpfs whose inodes run out in the middle of the second target's PROF_.
small=$WORK/small
mkdir "$small"
if ! mount -t tmpfs -o size=64m,mode=0755 msprof-e2e "$small" 2>/dev/null; then
	skip "failed start, full disk" "cannot mount a tmpfs"
	exit 0
fi
CLEANUP_CMDS+=("umount $small")
start_task --steps 0 --step-ms 10 || exit 1
t1=$TASK_PID
start_task --steps 0 --step-ms 10 || exit 1
t2=$TASK_PID
used() { echo $(($(stat -f -c %c "$small") - $(stat -f -c %d "$small"))); }
out=$small/out
msprof_open "$WORK/full.log" --dynamic=on --pid="$t1,$t2" --output="$out"
wait_for "$WORK/full.log" "attached to pid $t2"
# A PROF_ dir takes 13: itself, host, data, msprof_ebpf_window.json, the host
# file, host/'s info.json, sample.json, start_info, host_start.log and their .done.
mount -o remount,nr_inodes=$(($(used) + 13 + 3)) "$small"
say start
wait_for "$WORK/full.log" "collection not started"
say status
wait_for "$WORK/full.log" "windows written"
check "a start that failed at its second target leaves no PROF_ dir" \
	[ -z "$(prof_dirs "$out")" ]
check "failed start: the reason is given" \
	grep -q "cannot create .*No space left on device" "$WORK/full.log"
check "failed start: no stop is pretended" \
	! grep -Eq "collection stopped|STOP_RSP|collection not running" "$WORK/full.log"
check "failed start: no window counted" grep -q "0 windows written" "$WORK/full.log"
mount -o remount,nr_inodes=100000 "$small"
say start
wait_for "$WORK/full.log" "collection started"
check "the next start works, as window 1" [ "$(prof_dirs "$out" | grep -c PROF_000001_)" -eq 2 ]
sleep 1
mount -o remount,nr_inodes=$(used) "$small"
say stop
wait_for "$WORK/full.log" "collection stopped"
mount -o remount,nr_inodes=100000 "$small"
say quit
msprof_close
show "$WORK/full.log"
check "a full disk at stop is reported" grep -q "No space left on device" "$WORK/full.log"
for d in $(prof_dirs "$out"); do
	check "a full disk at stop: no window says complete" \
		[ "$(jq -r .state "$d/msprof_ebpf_window.json")" != complete ]
done
