#!/bin/bash
# --msproftx=on: the task's mstx marks and ranges (npu_sample --mstx, on
# npusim's libms_tools_ext) inside a window that holds a known stretch of
# it, exactly, with their messages, in msprof_tx's CSV, the timeline's
# MsprofTx process and the db's MSTX_EVENTS; hostile messages kept escaped
# and cut; a Python caller's line on each mark; off by default; bad values
# refused.
source tests/e2e/lib.sh

STEPS=23
# Quotes, a comma, a backslash, a line break, a control byte, bytes that are
# no UTF-8, and a formula's '=' first: the CSV and JSON must stay whole.
EVIL=$'=mark,"q"\\ \n\x01\xff\xfe end'
PROFILING_MODE=dynamic start_waiting "$WORK/task.out" "$SAMPLE" --steps $STEPS --step-ms 0 \
	--wait-signal --mstx="$EVIL"
window_to_exit "$WORK/msprof.log" 60 --dynamic=on --pid="$TASK_PID" --output="$WORK/out" --msproftx=on
msprof_close
check "msprof finishes when the task exits" [ $? -eq 0 ]
show "$WORK/msprof.log"

d=$(prof_dirs "$WORK/out")
"$MSPROF" --export=on --type=db --output="$d" >"$WORK/export.log" 2>&1
check "export succeeds" [ $? -eq 0 ]
calls() { sed -En "s/^calls $1 //p" "$WORK/task.out"; }
check "the task made $STEPS marks of each kind" \
	[ "$(calls mstxMarkA) $(calls mstxDomainMarkA) $(calls mstxRangeEnd)" = "$STEPS $STEPS $STEPS" ]

csv=$(ls "$d"/mindstudio_profiler_output/msprof_tx_*.csv 2>/dev/null | head -1)
check "msprof_tx_<ts>.csv written" [ -f "$csv" ]
check "its header is msprof's" [ "$(head -1 "$csv")" = \
	"Device_id,pid,tid,category,event_type,payload_type,payload_value,Start_time(us),End_time(us),message_type,message" ]
rows=$(python3 - "$csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))
body = rows[1:]
print(len([r for r in body if r[4] == "marker"]), len([r for r in body if r[4] == "start/end"]),
      len({len(r) for r in rows}))
PY
)
check "exactly $((2 * STEPS)) marks and $((2 * STEPS)) ranges in the CSV, every row whole (got $rows)" \
	[ "$rows" = "$((2 * STEPS)) $((2 * STEPS)) 1" ]

msg=$(python3 - "$csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='', encoding='utf-8')))
print(rows[1][10])
PY
)
check "the message kept, its hostile bytes made '?' and its formula defused (got $msg)" \
	[ "$msg" = "'=mark,\"q\"\\ ???? end 0" ]

# Timeline: the MsprofTx process (sort index 6, named as the task is).
tl=$(ls "$d"/mindstudio_profiler_output/msprof_*.json | grep -v msprof_tx | head -1)
check "the timeline is JSON" jq -e 'type == "array"' "$tl"
pid=$(jq '[.[] | select(.ph=="M" and .name=="process_sort_index" and .args.sort_index==6)][0].pid' "$tl")
check "a process of sort index 6" [ "$pid" != null ]
check "named as the task is" [ "$(jq -r --argjson p "$pid" '.[] | select(.ph=="M" and .pid==$p and .name=="process_name") | .args.name' "$tl")" = npu_sample ]
check "exactly $((2 * STEPS)) marker slices" [ "$(jq --argjson p "$pid" '[.[] | select(.pid==$p and .ph=="X" and .args.event_type=="marker")] | length' "$tl")" = $((2 * STEPS)) ]
check "exactly $((2 * STEPS)) range slices" [ "$(jq --argjson p "$pid" '[.[] | select(.pid==$p and .ph=="X" and .args.event_type=="start/end")] | length' "$tl")" = $((2 * STEPS)) ]
check "half of each in the sample's domain" [ "$(jq --argjson p "$pid" '[.[] | select(.pid==$p and .ph=="X" and .args.domain=="npu_sample")] | length' "$tl")" = $((2 * STEPS)) ]
check "marks take no time" [ "$(jq --argjson p "$pid" '[.[] | select(.pid==$p and .args.event_type=="marker") | .dur] | unique' "$tl" | jq -c .)" = "[0]" ]
# A range holds its step's calls: longer than nothing, shorter than the window.
bad=$(jq --argjson p "$pid" '[.[] | select(.pid==$p and .args.event_type=="start/end") | select(.dur <= 0 or .dur > 60000000)] | length' "$tl")
check "every range's duration is sane (bad: $bad)" [ "$bad" = 0 ]
steps_in=$(jq -r --argjson p "$pid" '[.[] | select(.pid==$p and .args.event_type=="start/end" and .args.domain=="default") | .name | split(" ") | last | tonumber] | sort | join(",")' "$tl")
check "a range per step, each named by its step" [ "$steps_in" = "$(seq -s, 0 $((STEPS - 1)))" ]
# A step's range encloses its launches.
inside=$(jq --argjson p "$pid" '
	[.[] | select(.pid==$p and .args.event_type=="start/end" and .args.domain=="default")] as $r |
	[.[] | select(.ph=="X" and .args.id=="aclrtLaunchKernel") | (.ts|tonumber) as $t |
	 select(any($r[]; ($t >= (.ts|tonumber)) and ($t <= ((.ts|tonumber) + .dur))))] | length' "$tl")
check "every launch lies inside a step's range ($inside of $((3 * STEPS)))" [ "$inside" = $((3 * STEPS)) ]

db=$(ls "$d"/msprof_*.db | head -1)
check "MSTX_EVENTS has $((4 * STEPS)) rows" [ "$(sqlite3 "$db" 'select count(*) from MSTX_EVENTS')" = $((4 * STEPS)) ]
check "of them $((2 * STEPS)) ranges (eventType 2), each with its id" \
	[ "$(sqlite3 "$db" 'select count(*) from MSTX_EVENTS where eventType=2 and rangeId > 0 and endNs > startNs')" = $((2 * STEPS)) ]
check "messages are STRING_IDS" [ "$(sqlite3 "$db" "select count(*) from MSTX_EVENTS e join STRING_IDS s on s.id=e.message where s.value like '%end 0'")" = 4 ]

# Off by default: the same run without --msproftx has no marks.
PROFILING_MODE=dynamic start_waiting "$WORK/task2.out" "$SAMPLE" --steps 3 --step-ms 0 --wait-signal --mstx
window_to_exit "$WORK/msprof2.log" 60 --dynamic=on --pid="$TASK_PID" --output="$WORK/out2"
msprof_close
d2=$(prof_dirs "$WORK/out2")
"$MSPROF" --export=on --output="$d2" >/dev/null 2>&1
check "without --msproftx=on: no msprof_tx CSV" [ -z "$(ls "$d2"/mindstudio_profiler_output/msprof_tx_*.csv 2>/dev/null)" ]

# A message past what CANN takes is cut where msprof keeps it (159 bytes).
LONG=$(printf 'L%.0s' $(seq 300))
PROFILING_MODE=dynamic start_waiting "$WORK/task3.out" "$SAMPLE" --steps 2 --step-ms 0 --wait-signal --mstx="$LONG"
window_to_exit "$WORK/msprof3.log" 60 --dynamic=on --pid="$TASK_PID" --output="$WORK/out3" --msproftx=on
msprof_close
d3=$(prof_dirs "$WORK/out3")
"$MSPROF" --export=on --output="$d3" >/dev/null 2>&1
tl3=$(ls "$d3"/mindstudio_profiler_output/msprof_*.json | grep -v msprof_tx | head -1)
check "a 300-byte message is cut to 159 bytes, and said so" [ "$(jq -c '[.[] | select(.args.event_type) |
	[(.name | length), .args.message_cut]] | unique' "$tl3")" = '[[159,true]]' ]

# The Python line of each mark: a script calling the library through
# ctypes from known lines, alive until the window ends (msprof reads its
# code objects while it lives).
if command -v python3 >/dev/null; then
	cat >"$WORK/marks.py" <<'PY'
import ctypes, signal, sys
lib = ctypes.CDLL(sys.argv[1])
lib.mstxRangeStartA.restype = ctypes.c_uint64
lib.mstxRangeStartA.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
lib.mstxRangeEnd.argtypes = [ctypes.c_uint64]
lib.mstxMarkA.argtypes = [ctypes.c_char_p, ctypes.c_void_p]

def step(i):
    lib.mstxMarkA(b"py mark %d" % i, None)
    r = lib.mstxRangeStartA(b"py range %d" % i, None)
    lib.mstxRangeEnd(r)

signal.signal(signal.SIGUSR1, lambda *a: None)
print("waiting for SIGUSR1", flush=True)
signal.pause()
for i in range(5):
    step(i)
print("marks done", flush=True)
signal.pause()
PY
	start_waiting "$WORK/py.out" python3 "$WORK/marks.py" "$PWD/build/lib/libms_tools_ext.so"
	msprof_open "$WORK/msprof4.log" --dynamic=on --host-only=on --msproftx=on --pid="$TASK_PID" --output="$WORK/out4"
	say start
	wait_for "$WORK/msprof4.log" "collection started"
	kill -USR1 "$TASK_PID"
	wait_for "$WORK/py.out" "marks done"
	say stop
	wait_for "$WORK/msprof4.log" "collection stopped" 30
	say quit
	msprof_close
	d4=$(prof_dirs "$WORK/out4")
	"$MSPROF" --export=on --output="$d4" >/dev/null 2>&1
	tl4=$(ls "$d4"/mindstudio_profiler_output/msprof_*.json | grep -v msprof_tx | head -1)
	got=$(jq -r '[.[] | select(.args.event_type) | (.args["Call stack"] // "none" | split(";")[0])] | unique | join("|")' "$tl4")
	check "each mark's Python line: step's mark at 9, its range at 10 (got $got)" \
		[ "$got" = "$WORK/marks.py(10): step|$WORK/marks.py(9): step" ]
	check "5 marks and 5 ranges from Python" [ "$(jq '[.[] | select(.args.event_type)] | length' "$tl4")" = 10 ]
else
	skip "the Python line of a mark" "no python3"
fi

# Bad values: one line, exit 1, nothing made.
for v in maybe ON 1 ""; do
	"$MSPROF" --dynamic=on --pid=$$ --output="$WORK/bad" --msproftx="$v" >"$WORK/bad.log" 2>&1
	rc=$?
	made=$([ -e "$WORK/bad" ] && echo made)
	check "--msproftx='$v': exit 1, one line, nothing created" \
		[ "$rc $(wc -l <"$WORK/bad.log") $made" = "1 1 " ]
done
