#!/bin/bash
# --host-sys=sched: the thread states of build/tests/hostsys_cases inside a
# window that holds all of its work (its header says what each thread
# does): the sleeper's time asleep in clock_nanosleep, the spinner's time
# running, the waiter's time blocked on the mutex and the holder as its
# waker, each within 5 % of what the program asked for; every thread's
# spans tiling its time; the CSVs, the timeline's Thread States process
# and the db's THREAD_STATE agreeing; hooks only inside the window and
# only when asked; a target that exits inside the window; npu_sample's
# threads beside their API calls.  hostsys_cases maps no runtime, so it
# has no agent: --host-only=on.
source tests/e2e/lib.sh

CASES=$PWD/build/tests/hostsys_cases
[ -x "$CASES" ] || { echo "FAIL $CASES is not built (make build/tests/hostsys_cases)"; exit 1; }

# cases_start LOG ARGS...: hostsys_cases ARGS, waiting for its SIGUSR1;
# sets TASK_PID.
cases_start() {
	WAIT_TEXT=ready start_waiting "$@"
}

# tracing_links: the tp_btf links msprof ($MSPROF_PID) holds now.
tracing_links() {
	bpf_fds "$MSPROF_PID" 'bpf-link:raw_tracepoint' | wc -l
}

# run_window OUT LOG WAIT ARGS...: one window around all of the task's work;
# the task was started with --wait WAIT: "both" stops the window, "start"
# lets the task end in it, and msprof with it.  Sets LINKS_IN (tp_btf
# links during the window) and LINKS_AFTER (links after the stop); returns
# msprof's status.
run_window() {
	local out=$1 log=$2 wait=$3
	shift 3
	msprof_open "$log" --dynamic=on --pid="$TASK_PID" --output="$out" "$@"
	say start
	wait_for "$log" "collection started" 30
	LINKS_IN=$(tracing_links)
	kill -USR1 "$TASK_PID"
	wait_for "$WORK/task.out" "hostsys_cases done" 30
	if [ "$wait" = start ]; then
		wait_pid "$TASK_PID" 10
		msprof_close
		return
	fi
	say stop
	wait_for "$log" "collection stopped" 60
	LINKS_AFTER=$(bpf_fds "$MSPROF_PID" 'bpf-link' | wc -l)
	say quit
	msprof_close
	local rc=$?
	kill -USR1 "$TASK_PID"
	wait_pid "$TASK_PID" 10
	return $rc
}

expect() { sed -n "s/^expect $1 //p" "$WORK/task.out"; }

cases_start "$WORK/task.out" "$CASES" --wait both
run_window "$WORK/out" "$WORK/msprof.log" both --host-only=on --host-sys=sched
check "msprof exits 0" [ $? -eq 0 ]
show "$WORK/msprof.log"
check "no record lost" ! grep -q "lost" "$WORK/msprof.log"
check "three more tp_btf links in the window than the syscall hooks' three (got $LINKS_IN)" \
	[ "$LINKS_IN" = 6 ]
check "no link left after stop (got $LINKS_AFTER)" [ "$LINKS_AFTER" = 0 ]
d=$(prof_dirs "$WORK/out")
"$MSPROF" --export=on --type=db --output="$d" >"$WORK/export.log" 2>&1
check "export succeeds" [ $? -eq 0 ]
out=$d/mindstudio_profiler_output
state_csv=$(ls "$out"/thread_state_*.csv 2>/dev/null)
off_csv=$(ls "$out"/thread_off_cpu_*.csv 2>/dev/null)
check "thread_state and thread_off_cpu CSVs written" [ -f "$state_csv" -a -f "$off_csv" ]
check "thread_state's header" [ "$(head -1 "$state_csv")" = \
	"Pid,Tid,Thread Name,Running(us),Runnable(us),Sleeping(us),Uninterruptible(us),Stopped(us),Unknown(us),Total(us),Switches,Wake-ups,Exited" ]
check "README.txt names both" [ "$(grep -cE '^[0-9]+\.thread_(state|off_cpu)\.csv:' "$out/README.txt")" = 2 ]
check "thread_off_cpu's header" [ "$(head -1 "$off_csv")" = \
	"Pid,Tid,Thread Name,Rank,Start Time(us),Duration(us),State,Syscall,API,Woken By,Runnable(us),Began Before Window,Lasted Past Window" ]

tl=$(ls "$out"/msprof_*.json | head -1)
db=$(ls "$d"/msprof_*.db | head -1)
# Every figure the checks below compare, from the three outputs.
python3 - "$state_csv" "$off_csv" "$tl" "$db" "$(expect sleep_ms)" "$(expect spin_ms)" \
	"$(expect hold_ms)" >"$WORK/checks" <<'PY'
import csv, json, sqlite3, sys

state_csv, off_csv, tl, db, sleep_ms, spin_ms, hold_ms = sys.argv[1:8]
rows = {r["Thread Name"]: r for r in csv.DictReader(open(state_csv))}
offs = list(csv.DictReader(open(off_csv)))
events = json.load(open(tl))
procs = {e["pid"]: e["args"]["name"] for e in events
         if e["ph"] == "M" and e["name"] == "process_name"}
sorts = {e["pid"]: e["args"]["sort_index"] for e in events
         if e["ph"] == "M" and e["name"] == "process_sort_index"}
ts_pid = [p for p, n in procs.items() if n == "Thread States"]
slices = [e for e in events if e["ph"] == "X" and e["pid"] in ts_pid]

def say(ok, what):
    print(("ok " if ok else "FAIL ") + what)

def near(got, want, what):
    say(abs(got - want) <= 0.05 * want, f"{what}: {got:.1f} ms, asked {want} ms")

say(len(ts_pid) == 1 and sorts[ts_pid[0]] == 8,
    "one Thread States process, sort index 8")
say(set(rows) >= {"sleeper", "spinner", "holder", "waiter"},
    f"a row per worker ({sorted(rows)})")
tid = {n: int(r["Tid"]) for n, r in rows.items()}

def on(name, state, syscall=None):
    return [e for e in slices if e["tid"] == tid[name] and e["name"] == state
            and (syscall is None or e["args"].get("syscall") == syscall)]

ms = lambda ev: sum(e["dur"] for e in ev) / 1000
near(ms(on("sleeper", "Sleeping", "clock_nanosleep")), int(sleep_ms),
     "the sleeper asleep in clock_nanosleep")
near(float(rows["spinner"]["Running(us)"]) / 1000, int(spin_ms),
     "the spinner running (thread_state)")
near(ms(on("spinner", "Running")), int(spin_ms), "the spinner running (timeline)")
near(ms(on("holder", "Sleeping", "clock_nanosleep")), int(hold_ms),
     "the holder asleep in clock_nanosleep, holding the mutex")
blocked = max(on("waiter", "Sleeping", "futex"), key=lambda e: e["dur"])
near(blocked["dur"] / 1000, int(hold_ms), "the waiter blocked in futex")
want = f"Thread {tid['holder']} (holder)"
say(blocked["args"].get("woken by") == want,
    f"woken by {want} (got {blocked['args'].get('woken by')})")
top = [r for r in offs if int(r["Tid"]) == tid["waiter"] and r["Rank"] == "1"]
say(len(top) == 1 and top[0]["Syscall"] == "futex" and top[0]["Woken By"] == want
    and abs(float(top[0]["Duration(us)"]) / 1000 - int(hold_ms)) <= 0.05 * int(hold_ms),
    f"thread_off_cpu: the waiter's longest, futex, by the holder ({top})")
sleeps = [r for r in offs if int(r["Tid"]) == tid["sleeper"]
          and r["Syscall"] == "clock_nanosleep" and r["Woken By"] == "interrupt"]
say(len(sleeps) == 5, f"the sleeper's 5 sleeps, each ended by its timer ({len(sleeps)})")
# A thread's slices follow each other without a gap or an overlap, in ns
# (a double holds a ts in µs to a quarter of a µs only).
ns = lambda ts: int(ts.replace(".", ""))
bad = 0
for t in set(e["tid"] for e in slices):
    mine = sorted((e for e in slices if e["tid"] == t), key=lambda e: ns(e["ts"]))
    for a, b in zip(mine, mine[1:]):
        bad += ns(a["ts"]) + round(a["dur"] * 1000) != ns(b["ts"])
say(bad == 0, f"each thread's slices tile its time ({bad} gaps or overlaps)")
for n in ("sleeper", "spinner", "holder", "waiter"):
    r = rows[n]
    parts = sum(float(r[k]) for k in ("Running(us)", "Runnable(us)", "Sleeping(us)",
                                      "Uninterruptible(us)", "Stopped(us)", "Unknown(us)"))
    say(abs(parts - float(r["Total(us)"])) < 0.01 and r["Exited"] == "yes",
        f"{n}: its states add up to its total, and it exited")
    say(abs(ms(e for e in slices if e["tid"] == tid[n]) - float(r["Total(us)"]) / 1000) < 0.01,
        f"{n}: the timeline's slices hold the CSV's total")
say(sum(float(r["Unknown(us)"]) for r in rows.values()) == 0, "no Unknown time")
q = sqlite3.connect("file:" + db + "?mode=ro", uri=True).execute
say(q("select count(*) from THREAD_STATE").fetchone()[0] == len(slices),
    f"THREAD_STATE has a row per slice ({len(slices)})")
n = q("""select count(*) from THREAD_STATE t join STRING_IDS s on s.id = t.syscall
         join ENUM_THREAD_STATE e on e.id = t.state
         where e.name = 'Sleeping' and s.value = 'clock_nanosleep'
         and t.globalTid & 4294967295 = ?""", (tid["sleeper"],)).fetchone()[0]
say(n == 5, f"THREAD_STATE: the sleeper's 5 sleeps in clock_nanosleep ({n})")
PY
while read -r verdict what; do
	check "$what" [ "$verdict" = ok ]
done <"$WORK/checks"
check "the checks ran" [ -s "$WORK/checks" ]

# A target that exits inside the window (--wait start).
cases_start "$WORK/task.out" "$CASES" --wait start
run_window "$WORK/out2" "$WORK/msprof2.log" start --host-only=on --host-sys=sched
check "exiting: msprof exits 0" [ $? -eq 0 ]
check "the window says the task exited in it" grep -q "the task exited during the window" "$WORK/msprof2.log"
d2=$(prof_dirs "$WORK/out2")
"$MSPROF" --export=on --output="$d2" >/dev/null 2>&1
check "exiting: exported" [ $? -eq 0 ]
csv2=$(ls "$d2"/mindstudio_profiler_output/thread_state_*.csv 2>/dev/null)
got=$(awk -F, 'NR > 1 && $13 == "yes"' "$csv2" | wc -l)
check "exiting: every thread, the main one too, ended in the window ($got of 5)" [ "$got" = 5 ]
got=$(awk -F, '$3 == "spinner" { print int($4 / 1000) }' "$csv2")
check "exiting: the spinner ran about $(expect spin_ms) ms (got $got)" \
	[ "${got:-0}" -ge $(($(expect spin_ms) * 95 / 100)) ] && [ "${got:-0}" -le $(($(expect spin_ms) * 105 / 100)) ]

# Not asked for: no hooks, no thread states.
cases_start "$WORK/task.out" "$CASES" --wait start
run_window "$WORK/out3" "$WORK/msprof3.log" start --host-only=on
check "without --host-sys=sched: only the syscall hooks in the window (got $LINKS_IN)" [ "$LINKS_IN" = 3 ]
d3=$(prof_dirs "$WORK/out3")
"$MSPROF" --export=on --output="$d3" >/dev/null 2>&1
check "without --host-sys=sched: no thread_state CSV" \
	[ -z "$(ls "$d3"/mindstudio_profiler_output/thread_state_*.csv 2>/dev/null)" ]
check "without --host-sys=sched: no Thread States process" \
	[ "$(timeline "$d3" '[.[] | select(.name=="process_name" and .args.name=="Thread States")] | length')" = 0 ]

# npu_sample with its agent: its threads' states beside their API calls.
start_task --steps 0 --step-ms 10 || exit 1
timed_window 1 "$WORK/msprof4.log" --dynamic=on --pid="$TASK_PID" --output="$WORK/out4" \
	--host-sys=sched
check "npu_sample: msprof exits 0" [ $? -eq 0 ]
kill -TERM "$TASK_PID"
d4=$(prof_dirs "$WORK/out4")
"$MSPROF" --export=on --output="$d4" >/dev/null 2>&1
check "npu_sample: exported" [ $? -eq 0 ]
got=$(timeline "$d4" '([.[] | select(.name=="process_name" and .args.name=="CANN") | .pid][0]) as $c |
	([.[] | select(.name=="process_name" and .args.name=="Thread States") | .pid][0]) as $s |
	([.[] | select(.pid==$c and .ph=="X") | .tid] | unique) as $api |
	([.[] | select(.pid==$s and .ph=="X") | .tid] | unique) as $st |
	($api - $st | length)')
check "npu_sample: every thread with API calls has a row of states ($got without)" [ "$got" = 0 ]
got=$(timeline "$d4" '[.[] | select(.ph=="X" and (.name=="Sleeping" or .name=="Runnable") and .args.API)] | length')
check "npu_sample: off-CPU spans name the API call they were in ($got)" [ "$got" -gt 0 ]
