#!/bin/bash
# On a terminal the prompt has line editing and history (libedit): typed
# under tmux, with the arrow keys.
source tests/e2e/lib.sh

start_task --steps 0 --step-ms 10 || exit 1
session=msprof-e2e-$$
tmux new-session -d -s "$session" -x 160 -y 40 \
	"$MSPROF --dynamic=on --pid=$TASK_PID --output=$WORK/out; echo msprof-exit=\$?; sleep 60"
CLEANUP_CMDS+=("tmux kill-session -t $session")
screen() { tmux capture-pane -t "$session" -p; }
on_screen() {	# on_screen TEXT: until the screen shows it (5 s at most)
	local i
	for i in $(seq 50); do
		screen | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	return 1
}
on_screen "(msprof)"
tmux send-keys -t "$session" "strt" Left Left "a" Enter	# "start", mended in place
check "cursor keys edit the line" on_screen "collection started (window 1)"
sleep 0.5
tmux send-keys -t "$session" "stop" Enter
on_screen "collection stopped (window 1)"
tmux send-keys -t "$session" Up Up Enter	# history: start again
check "history recalls an earlier command" on_screen "collection started (window 2)"
sleep 0.5
tmux send-keys -t "$session" Up Up Enter	# and stop
on_screen "collection stopped (window 2)"
tmux send-keys -t "$session" "quit" Enter
check "quit leaves with exit 0" on_screen "msprof-exit=0"
tmux kill-session -t "$session"
check "two windows written" [ "$(prof_dirs "$WORK/out" | wc -l)" -eq 2 ]
