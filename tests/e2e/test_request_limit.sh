#!/bin/bash
# The seed's limit of 100 start/stop commands per connection: msprof warns
# ahead of it, reconnects before a window would cross it (the count
# restarts, as the seed says reconnecting does), and never loses a window.
source tests/e2e/lib.sh

start_task --steps 0 --step-ms 5 || exit 1
WINDOWS=55
cmds=()
for i in $(seq $WINDOWS); do cmds+=(start stop); done
feed "${cmds[@]}" status quit |
	"$MSPROF" --dynamic=on --pid="$TASK_PID" --output="$WORK/out" >"$WORK/log" 2>&1
rc=$?
check "exit 0" [ $rc -eq 0 ]
check "every window has its PROF_ directory" [ "$(prof_dirs "$WORK/out" | wc -l)" -eq $WINDOWS ]
check "warned ten requests ahead, once" [ "$(grep -c "90 of the agent's 100 requests per connection used" "$WORK/log")" -eq 1 ]
check "reconnected before the limit" [ "$(grep -c "reconnected to its agent (request count restarted)" "$WORK/log")" -eq 1 ]
check "the agent never refused or dropped us" ! grep -Eq "failed|answered" "$WORK/log"
check "status counts the new connection" grep -Eq "[0-9]+ of 100 agent requests used" "$WORK/log"
check "every window's device request succeeded" \
	[ "$(grep -l '"device_status": "success"' "$WORK"/out/PROF_*/msprof_ebpf_window.json | wc -l)" -eq $WINDOWS ]
