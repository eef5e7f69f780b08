#!/bin/bash
# The parameters msprof sends are the keys a CANN runtime reads, and the
# PROF_ directory a runtime makes under result_dir joins msprof's own: a
# fake runtime (python, speaking the socket protocol as the real server
# does) records the payload and writes a runtime's files, strays, a second
# PROF_ directory and a link; then our own agent with task time on and off.
source tests/e2e/lib.sh

command -v python3 >/dev/null || { skip "params and runtime PROF_ join" "python3 is missing"; exit 0; }

echo "root's secret $$" >"$WORK/secret"
cat >"$WORK/runtime.py" <<'PY'
import os, sys, time
sys.path.insert(0, sys.argv[2])
from fake_agent import serve
work = sys.argv[1]
def put(p, text):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)
# On START, a runtime's PROF_ directory and its files, as the real one
# names and writes them; then what no runtime writes, and what must never
# be followed or taken.
def start(result_dir):
    t = time.time()
    stamp = time.strftime("%Y%m%d%H%M%S", time.localtime(t)) + "%03d" % (t * 1000 % 1000)
    run = "%s/PROF_000001_%s_%08dABCDEFGH" % (result_dir, stamp, os.getpid())
    d = run + "/device_0"
    for f in ("info.json.0", "sample.json", "start_info.0", "host_start.log.0", "dev_start.log.0"):
        put("%s/%s" % (d, f), "runtime %s\n" % f)
        put("%s/%s.done" % (d, f), "filesize:0\n")
    put(d + "/data/hwts.data.0.slice_0", "runtime hwts\n")
    put(d + "/data/hwts.data.0.slice_0.done", "filesize:13\n")
    put(run + "/host/data/unaging.api_event.data.slice_0", "runtime api\n")
    put(run + "/host/info.json", "runtime host info\n")
    put(d + "/evil.bin", "stray\n")
    os.symlink(work + "/secret", d + "/data/ts_track.data.0.slice_0")
    put(result_dir + "/PROF_000001_20000101000000000_00000001ABCDEFGH/device_0/info.json.0", "old run\n")
    put(result_dir + "/stray_at_top", "stray\n")
    return run
state = {}
def params(text):
    with open(work + "/payload", "wb") as f:
        f.write(text)
    state["dir"] = text.split(b'"result_dir":"')[1].split(b'"')[0].decode()
def request(t):
    if t == 1:
        state["run"] = start(state["dir"])
    elif t == 3:
        put(state["run"] + "/device_0/end_info.0", "runtime end_info.0\n")
    return 0
serve(params, request)
PY

python3 "$WORK/runtime.py" "$WORK" "$PWD/tests/e2e" >"$WORK/runtime.out" 2>&1 &
PIDS_TO_KILL+=($!)
wait_for "$WORK/runtime.out" "agent pid=" || exit 1
RPID=$(sed -n 's/^agent pid=//p' "$WORK/runtime.out")
out=$WORK/out
msprof_open "$WORK/msprof.log" --dynamic=on --pid="$RPID" --output="$out" \
	--runtime-api=on --task-time=l0
say start
wait_for "$WORK/msprof.log" "collection started (window 1)"
sleep 0.5
say stop
wait_for "$WORK/msprof.log" "collection stopped (window 1)"
say quit
msprof_close
rc=$?
show "$WORK/msprof.log"
check "msprof exits 0" [ $rc -eq 0 ]

# --- the payload ----------------------------------------------------------
cat "$WORK/payload"; echo
check "the payload is one line of at most 4095 bytes, without escapes" \
	python3 -c '
import sys
b = open(sys.argv[1], "rb").read()
sys.exit(not (0 < len(b) <= 4095 and b"\n" not in b and b"\\" not in b))' "$WORK/payload"
check "the payload holds the collector's keys, from msprof's options" \
	python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
want = {"devices": "all", "acl": "on", "runtimeApi": "on", "taskTime": "on",
        "taskTrace": "on", "hcclTrace": "off", "msproftx": "off",
        "ai_core_profiling": "on", "ai_core_profiling_mode": "task-based",
        "ai_core_metrics": "PipeUtilization", "aiv_metrics": "PipeUtilization",
        "prof_level": "l0", "host_sys": "", "llc_profiling": "",
        "storageLimit": "", "jobInfo": "", "msprofBinPid": int(sys.argv[2]),
        "isCancel": False, "hostProfiling": False}
bad = {k: p.get(k) for k in want if p.get(k) != want[k] or type(p.get(k)) != type(want[k])}
print("wrong:", bad) if bad else None
sys.exit(bool(bad) or not p["result_dir"].startswith(sys.argv[3] + "/.msprof_stage_"))' \
	"$WORK/payload" "$MSPROF_PID" "$out"

# --- the runtime's PROF_ directory joins ours -----------------------------
mapfile -t dirs < <(prof_dirs "$out")
check "one PROF_ directory for the window" [ ${#dirs[@]} -eq 1 ]
d=${dirs[0]}
for f in info.json.0 info.json.0.done sample.json start_info.0 end_info.0 \
	host_start.log.0 dev_start.log.0 data/hwts.data.0.slice_0 \
	data/hwts.data.0.slice_0.done; do
	case $f in
	*.done) check "the runtime's device_0/$f is in it" grep -q filesize: "$d/device_0/$f" ;;
	*) check "the runtime's device_0/$f is in it" grep -q runtime "$d/device_0/$f" ;;
	esac
done
check "the runtime's host/data slice is in it" grep -q runtime "$d/host/data/unaging.api_event.data.slice_0"
check "beside msprof's own host data" [ -s "$d/host/data/host_trace.data" ]
check "copied by content into root's files" [ "$(stat -c %U "$d/device_0/info.json.0")" = root ]
check "a file no runtime writes is not taken" [ ! -e "$d/device_0/evil.bin" ]
check "the link planted there is not followed" [ ! -e "$d/device_0/data/ts_track.data.0.slice_0" ]
check "... nor its target copied anywhere" [ -z "$(grep -rl "root's secret $$" "$d")" ]
check "the second PROF_ directory in the stage is not taken" \
	[ "$(cat "$d/device_0/info.json.0")" = "runtime info.json.0" ]
check "nor the runtime's host control files (msprof writes its own)" \
	[ "$(cat "$d/host/info.json" 2>/dev/null)" != "runtime host info" ]
check "strays, the link, the second PROF_ dir and host/info.json are counted (5)" \
	grep -q "ignored 5 unexpected entries in the staging directory" "$WORK/msprof.log"
check "the staging directory is removed" [ -z "$(stages "$out")" ]

# --- a stage path the runtime's parser could not take ---------------------
# --output may not hold a '"', but the directory it is relative to may.
rm -f "$WORK/payload"
mkdir "$WORK/q\"uote"
cd "$WORK/q\"uote" || exit 1
msprof_open "$WORK/quote.log" --dynamic=on --pid="$RPID" --output=out
cd - >/dev/null || exit 1
say quit
msprof_close
rc=$?
show "$WORK/quote.log"
check "a '\"' in the stage path: refused with a clear error, not escaped" \
	grep -q "which a runtime's parameters cannot carry" "$WORK/quote.log"
check "... and msprof says it failed" [ $rc -ne 0 ]
check "... having sent the runtime nothing" [ ! -e "$WORK/payload" ]

# --- our own agent: device data in its PROF_ dir, and taskTime off --------
start_task --steps 0 --step-ms 10 || exit 1
for tt in on off; do
	o=$WORK/agent_$tt
	msprof_open "$WORK/agent_$tt.log" --dynamic=on --pid="$TASK_PID" \
		--output="$o" --task-time=$tt
	say start
	wait_for "$WORK/agent_$tt.log" "collection started (window 1)"
	sleep 1
	say stop
	wait_for "$WORK/agent_$tt.log" "collection stopped (window 1)"
	say quit
	msprof_close
	show "$WORK/agent_$tt.log"
	mapfile -t dirs < <(prof_dirs "$o")
	a=${dirs[0]}
	if [ $tt = on ]; then
		check "task time on: the agent's device data arrives" cann_data "$a"
		check "... with its stats beside, in the PROF_ directory" [ -s "$a/agent_stats_npusim.json" ]
		check "... and nothing is said to be ignored" ! grep -q "ignored" "$WORK/agent_$tt.log"
	else
		check "task time off: no device data" [ ! -e "$a/device_0" ]
		check "... but the host window is there" [ -s "$a/host/data/host_trace.data" ]
		check "... the runtime reports its acl calls, no task" \
			[ -s "$a/host/data/unaging.api_event.data.slice_0" -a \
			  ! -e "$a/host/data/aging.compact.task_track.slice_0" ]
	fi
done
