#!/bin/bash
# Faults: msprof SIGKILLed at named steps of open, start, collecting, stop,
# quit and export (MSPROF_TEST_PAUSE makes it wait there); a full output
# filesystem; the task SIGKILLed inside a window; more start/stop pairs than
# the agent serves on one connection.  Each time the task lives, no BPF
# object msprof held outlives it, the window exports (complete, or marked
# incomplete), and a new controller attaches.
source tests/e2e/lib.sh

# A command to an msprof that is gone must fail, not end this script.
trap '' PIPE

# Killed before the BPF object is loaded: there is nothing to unload.
PRE_BPF_POINTS="before-lock after-lock"
OPEN_POINTS="after-bpf-load after-stage after-connect"
# Killed before a PROF_ directory exists: the start leaves none.
START_POINTS_NODIR="start-begin"
START_POINTS="after-profdir after-attach after-gate-open after-start-req collecting"
STOP_POINTS="stop-begin after-gate-close after-stop-req after-detach after-drain
	after-device-copy before-info-json replace-before-rename"
QUIT_POINTS="quit-begin after-quit-req"
# The agent serves 100 requests a connection: after 49 windows msprof
# reconnects at the 50th start.
RECONNECT_POINTS="before-reconnect"
EXPORT_POINTS="export-begin export-after-load export-before-rename"

# wait_pause LOG STEP: until msprof says it waits at STEP (30 s at most).
wait_pause() {
	wait_for "$1" "msprof: test pause at $2" 30
}

# bpf_ids PID: "prog N", "map N", "link N" for each BPF object PID holds.
bpf_ids() {
	grep -hE '^(prog|map|link)_id:' /proc/"$1"/fdinfo/* 2>/dev/null |
		sed -E 's/_id:[[:space:]]*/ /' | sort -u
}

# all_gone "IDS": each BPF object listed is freed (5 s at most); these are
# msprof's own, so other sessions on the machine cannot confuse this.
all_gone() {
	local kind id i
	while read -r kind id; do
		[ -n "$id" ] || continue
		for i in $(seq 50); do
			bpftool "$kind" show id "$id" >/dev/null 2>&1 || break
			sleep 0.1
		done
		if bpftool "$kind" show id "$id" >/dev/null 2>&1; then
			echo "$kind $id still loaded"
			return 1
		fi
	done <<<"$1"
}

# A task that died in an earlier case would fail every later one: start
# another, after saying so through the check that failed.
ensure_task() {
	kill -0 "$TASK_PID" 2>/dev/null || start_task --steps 0 --step-ms 10
}

# attach_again OUT: a new controller takes the task, one window, quits.
attach_again() {
	local out=$1 log=$WORK/again.log new
	prof_dirs "$out" >"$WORK/before" 2>/dev/null
	feed start "sleep 1" stop quit |
		"$MSPROF" --dynamic=on --pid="$TASK_PID" --output="$out" >"$log" 2>&1 ||
		{ show "$log"; return 1; }
	new=$(prof_dirs "$out" | comm -13 "$WORK/before" -)
	[ "$(wc -w <<<"$new")" -eq 1 ] || { echo "not one new window"; show "$log"; return 1; }
	# Its window is whole: device data from this window's agent too.
	jq -e '.device_status == "success"' "$new/msprof_ebpf_window.json" >/dev/null ||
		{ show "$log"; return 1; }
}

# exports_window DIR yes|no|any: export writes DIR's timeline; a window cut
# before its end must be said to be incomplete, a whole one must not.
exports_window() {
	local dir=$1 incomplete=$2 log=$WORK/export.log
	"$MSPROF" --export=on --output="$dir" >"$log" 2>&1
	local rc=$?
	if ! ls "$dir"/mindstudio_profiler_output/msprof_*.json >/dev/null 2>&1 ||
		! timeline "$dir" -e 'length > 0' >/dev/null; then
		echo "no timeline for $dir (exit $rc)"
		show "$log"
		return 1
	fi
	if [ "$incomplete" = yes ] && ! grep -qi incomplete "$log"; then
		echo "export of a cut window does not say incomplete (exit $rc)"
		show "$log"
		return 1
	fi
	if [ "$incomplete" = no ] && { [ $rc -ne 0 ] || grep -qi incomplete "$log"; }; then
		echo "export of a whole window failed or says incomplete (exit $rc)"
		show "$log"
		return 1
	fi
}

# kill_at STEP KIND: one session paused at STEP and SIGKILLed there.
kill_at() {
	local step=$1 kind=$2 out=$WORK/kill-$1 log=$WORK/kill-$1.log ids dirs i
	ensure_task || return
	MSPROF_TEST_PAUSE=$step msprof_open "$log" --dynamic=on \
		--pid="$TASK_PID" --output="$out"
	case $kind in
	start*) say start ;;
	stop) say start; wait_for "$log" "collection started" && say stop ;;
	reconnect)
		for i in $(seq 49); do say start; say stop; done
		say start ;;
	quit)
		say start
		wait_for "$log" "collection started" && say stop &&
			wait_for "$log" "collection stopped" && say quit ;;
	esac
	if ! wait_pause "$log" "$step"; then
		show "$log"
		check "$step: msprof paused there" false
		kill -KILL "$MSPROF_PID"
		msprof_close 2>/dev/null
		return
	fi
	ids=$(bpf_ids "$MSPROF_PID")
	kill -KILL "$MSPROF_PID"
	msprof_close 2>/dev/null
	check "$step: the task lives on" kill -0 "$TASK_PID"
	case $kind in
	pre-bpf) check "$step: no BPF object was loaded yet" [ -z "$ids" ] ;;
	*) check "$step: msprof held BPF objects" [ -n "$ids" ] ;;
	esac
	check "$step: none of them outlives msprof" all_gone "$ids"
	mapfile -t dirs < <(prof_dirs "$out" 2>/dev/null)
	case $kind in
	pre-bpf|open|start-nodir)
		check "$step: no PROF_ directory" [ ${#dirs[@]} -eq 0 ] ;;
	start|stop)
		check "$step: one PROF_ directory" [ ${#dirs[@]} -eq 1 ]
		[ ${#dirs[@]} -eq 1 ] &&
			check "$step: the cut window exports, marked incomplete" \
				exports_window "${dirs[0]}" yes ;;
	reconnect)
		check "$step: one PROF_ directory a window" [ ${#dirs[@]} -eq 50 ]
		check "$step: the last window exports, marked incomplete" \
			exports_window "${dirs[49]}" yes
		check "$step: the one before exports whole" \
			exports_window "${dirs[48]}" no ;;
	quit)
		check "$step: one PROF_ directory" [ ${#dirs[@]} -eq 1 ]
		[ ${#dirs[@]} -eq 1 ] &&
			check "$step: the stopped window exports whole" \
				exports_window "${dirs[0]}" no ;;
	esac
	check "$step: a new controller attaches, collects and quits" \
		attach_again "$out"
}

# A finished window, then its export killed at STEP: no timeline is
# half-written, and the next export succeeds.
kill_export_at() {
	local step=$1 out=$WORK/export-$1 log=$WORK/export-$1.log pid dir
	ensure_task || return
	check "$step: a window to export" attach_again "$out"
	dir=$(prof_dirs "$out" | tail -1)
	[ -n "$dir" ] || return
	MSPROF_TEST_PAUSE=$step "$MSPROF" --export=on --output="$dir" >"$log" 2>&1 &
	pid=$!
	if ! wait_pause "$log" "$step"; then
		show "$log"
		check "$step: msprof paused there" false
		kill -KILL "$pid"
		wait "$pid" 2>/dev/null
		return
	fi
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
	check "$step: no timeline left half-written" \
		[ -z "$(ls "$dir"/mindstudio_profiler_output/msprof_*.json 2>/dev/null)" ]
	check "$step: the next export writes it whole" exports_window "$dir" no
	check "$step: the task lives on" kill -0 "$TASK_PID"
	check "$step: a new controller attaches, collects and quits" \
		attach_again "$out"
}

# --- a full output filesystem --------------------------------------------
# A window fills a tmpfs of 300 KB; the starts after it fail.  Every error
# is said, a failed start leaves no PROF_ directory, the cut window exports
# as incomplete once there is room, and msprof still ends cleanly.
enospc() {
	local mnt=$WORK/small out log=$WORK/enospc.log ids dirs d
	mkdir -p "$mnt"
	if ! mount -t tmpfs -o size=300k msprof-e2e "$mnt"; then
		skip "output on a full filesystem" "cannot mount a tmpfs"
		return
	fi
	CLEANUP_CMDS+=("umount $mnt")
	out=$mnt/out
	kill -TERM "$TASK_PID"
	start_task --steps 0 --step-ms 1 || return
	msprof_open "$log" --dynamic=on --pid="$TASK_PID" --output="$out"
	say start
	wait_for "$log" "collection started (window 1)"
	ids=$(bpf_ids "$MSPROF_PID")
	feed "sleep 1" stop start "sleep 1" stop start "sleep 0.5" stop quit >&3
	msprof_close 2>/dev/null
	show "$log"
	check "full disk: msprof says so" grep -q "No space left on device" "$log"
	check "full disk: each failed start says why" \
		grep -q "cannot create a PROF_ directory.*No space left" "$log"
	mapfile -t dirs < <(prof_dirs "$out")
	check "full disk: a PROF_ directory only for each window that started" \
		[ ${#dirs[@]} -eq "$(grep -c "collection started" "$log")" ]
	check "full disk: the task lives on" kill -0 "$TASK_PID"
	check "full disk: msprof held BPF objects" [ -n "$ids" ]
	check "full disk: none of them outlives msprof" all_gone "$ids"
	# Room to export: the windows the disk cut must say so.
	mount -o remount,size=16m "$mnt"
	for d in "${dirs[@]}"; do
		check "full disk: $(basename "$d") exports" exports_window "$d" any
		cat "$WORK/export.log" >>"$WORK/enospc-export.log"
	done
	check "full disk: the window the disk cut exports marked incomplete" \
		grep -qi incomplete "$WORK/enospc-export.log"
	check "full disk: a new controller attaches, collects and quits" \
		attach_again "$out"
}

# --- the task SIGKILLed inside a window ----------------------------------
task_killed() {
	local out=$WORK/task-killed log=$WORK/task-killed.log ids dirs i
	ensure_task || return
	msprof_open "$log" --dynamic=on --pid="$TASK_PID" --output="$out"
	say start
	wait_for "$log" "collection started"
	sleep 0.5
	ids=$(bpf_ids "$MSPROF_PID")
	kill -KILL "$TASK_PID"
	wait "$TASK_PID" 2>/dev/null
	# msprof ends the window and the session when its last target is gone.
	check "task killed: msprof ends by itself" gone "$MSPROF_PID" 10
	alive "$MSPROF_PID" && say quit
	msprof_close 2>/dev/null
	check "task killed: msprof exits 0" [ $? -eq 0 ]
	show "$log"
	check "task killed: msprof held BPF objects" [ -n "$ids" ]
	check "task killed: none of them outlives msprof" all_gone "$ids"
	mapfile -t dirs < <(prof_dirs "$out")
	check "task killed: one PROF_ directory" [ ${#dirs[@]} -eq 1 ]
	[ ${#dirs[@]} -eq 1 ] || return
	check "task killed: the window's account says the task exited" \
		jq -e '.target_exited == true' "${dirs[0]}/msprof_ebpf_window.json" >/dev/null
	check "task killed: its host calls were kept" \
		jq -e '.host.api_events > 0' "${dirs[0]}/msprof_ebpf_window.json" >/dev/null
	"$MSPROF" --export=on --output="${dirs[0]}" >"$WORK/export.log" 2>&1
	check "task killed: the window exports" exports_window "${dirs[0]}" any
}

# --- more start/stop pairs than the agent serves on one connection --------
many_windows() {
	local out=$WORK/many log=$WORK/many.log cmds=() i n=105
	ensure_task || return
	for i in $(seq $n); do cmds+=(start stop); done
	feed "${cmds[@]}" quit |
		"$MSPROF" --dynamic=on --pid="$TASK_PID" --output="$out" >"$log" 2>&1
	check "$n windows: msprof exits 0" [ $? -eq 0 ]
	check "$n windows: a PROF_ directory each" [ "$(prof_dirs "$out" | wc -l)" -eq $n ]
	check "$n windows: reconnected twice within the agent's limit" \
		[ "$(grep -c "request count restarted" "$log")" -eq 2 ]
	check "$n windows: the agent never refused or dropped us" \
		! grep -Eq "failed|answered" "$log"
	check "$n windows: every window's device request succeeded" \
		[ "$(grep -l '"device_status": "success"' "$out"/PROF_*/msprof_ebpf_window.json | wc -l)" -eq $n ]
	check "$n windows: the task lives on" kill -0 "$TASK_PID"
}

start_task --steps 0 --step-ms 10 || exit 1

for p in $PRE_BPF_POINTS; do kill_at "$p" pre-bpf; done
for p in $OPEN_POINTS; do kill_at "$p" open; done
for p in $START_POINTS_NODIR; do kill_at "$p" start-nodir; done
for p in $START_POINTS; do kill_at "$p" start; done
for p in $STOP_POINTS; do kill_at "$p" stop; done
for p in $RECONNECT_POINTS; do kill_at "$p" reconnect; done
for p in $QUIT_POINTS; do kill_at "$p" quit; done
for p in $EXPORT_POINTS; do kill_export_at "$p"; done
enospc
task_killed
many_windows
