#!/bin/bash
# Every agent is asked at once: four agents that each take SLOW_S to answer
# START and STOP cost a start or a stop about one SLOW_S, not four, and
# each still gets its START and STOP and answers success.
source tests/e2e/lib.sh

SLOW_S=1.5
AGENTS=4
cat >"$WORK/slow_agent.py" <<'PY'
import sys, time
sys.path.insert(0, sys.argv[1])
from fake_agent import serve
def on_request(t):
    print("request %d" % t, flush=True)
    if t in (1, 3):	# START, STOP
        time.sleep(float(sys.argv[2]))
    return 0
serve(lambda payload: None, on_request)
PY

pids=()
for i in $(seq "$AGENTS"); do
	python3 "$WORK/slow_agent.py" "$PWD/tests/e2e" "$SLOW_S" >"$WORK/agent$i.log" 2>&1 &
	pids+=("$!")
	PIDS_TO_KILL+=("$!")
done
for i in $(seq "$AGENTS"); do
	wait_for "$WORK/agent$i.log" "agent pid=" 10 || CHECKS_FAILED=$((CHECKS_FAILED + 1))
done

# seconds_until LOG TEXT: waits for TEXT (30 s at most); prints the
# seconds it took.
seconds_until() {
	local t0
	t0=$(date +%s.%N)
	wait_for "$1" "$2" 30 >&2 || return 1
	awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'
}

# within S LOW HIGH: S is a number of seconds, LOW <= S < HIGH.
within() {
	[ -n "$1" ] && awk -v s="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(s >= lo && s < hi) }'
}

msprof_open "$WORK/msprof.log" --dynamic=on --pid="$(IFS=,; echo "${pids[*]}")" \
	--output="$WORK/out"
wait_for "$WORK/msprof.log" "attached to pid ${pids[-1]}" 30
say start
start_s=$(seconds_until "$WORK/msprof.log" "collection started")
say stop
stop_s=$(seconds_until "$WORK/msprof.log" "collection stopped")
say quit
msprof_close
show "$WORK/msprof.log"
echo "start took $start_s s, stop $stop_s s, $AGENTS agents of $SLOW_S s each"
# One at a time would take AGENTS * SLOW_S = 6 s; at once, about 1.5.
check "start waited for the agents, at once (${start_s:-none} s)" \
	within "$start_s" 1.4 4
check "stop waited for the agents, at once (${stop_s:-none} s)" \
	within "$stop_s" 1.4 4
for i in $(seq "$AGENTS"); do
	check "agent $i got START then STOP" \
		[ "$(grep '^request [13]$' "$WORK/agent$i.log" | head -2 | tr '\n' ' ')" = "request 1 request 3 " ]
done
check "each window says its agent answered success" \
	[ "$(jq -r .device_status "$WORK"/out/PROF_*/msprof_ebpf_window.json | grep -c '^success$')" = "$AGENTS" ]
