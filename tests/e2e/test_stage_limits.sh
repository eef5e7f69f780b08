#!/bin/bash
# What a window takes from its targets' stages is bounded per window, not
# per target (issue 22, item 8): three fake runtimes (python, speaking the
# socket protocol) stage 100 KiB each under a copy budget lowered to 250 KB
# (MSPROF_TEST_LIMITS, which can only lower msprof's limits): two fit, the
# third is left out and its window says so.  And a window whose stage is
# past a cap (65 device directories, more files than the cap) is
# incomplete with the cap named, not "complete" with "unexpected entries".
source tests/e2e/lib.sh

command -v python3 >/dev/null || { skip "the stage's limits" "python3 is missing"; exit 0; }

RUN=PROF_000001_20260101120000000_00000001ABCDEFGH
cat >"$WORK/runtime.py" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[1])
from fake_agent import serve
kind, n = sys.argv[2], int(sys.argv[3])
state = {}
def put(p, size):
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "wb") as f:
        f.write(b"x" * size)
# On START, a runtime's PROF_ directory: one slice of n bytes, n device
# directories, or n slices.
def request(t):
    if t != 1:
        return 0
    run = state["dir"] + "/" + sys.argv[4]
    if kind == "bytes":
        put(run + "/device_0/data/hwts.data.0.slice_0", n)
    elif kind == "devices":
        for d in range(n):
            put("%s/device_%d/info.json.%d" % (run, d, d), 10)
    else:
        for i in range(n):
            put("%s/device_0/data/hwts.data.0.slice_%d" % (run, i), 10)
    return 0
def params(text):
    state["dir"] = text.split(b'"result_dir":"')[1].split(b'"')[0].decode()
serve(params, request)
PY

# runtime NAME KIND N: a fake runtime staging KIND N at START; sets RPID.
runtime() {
	python3 "$WORK/runtime.py" "$PWD/tests/e2e" "$2" "$3" "$RUN" \
		>"$WORK/$1.out" 2>&1 &
	PIDS_TO_KILL+=($!)
	wait_for "$WORK/$1.out" "agent pid=" || exit 1
	RPID=$(sed -n 's/^agent pid=//p' "$WORK/$1.out")
}

# window LOG OUT PIDS [VAR=VALUE...]: one window of msprof on PIDS into OUT.
window() {
	local log=$1 out=$2 pids=$3
	shift 3
	rm -f "$WORK/msprof.cmd"
	mkfifo "$WORK/msprof.cmd"
	env "$@" "$MSPROF" --dynamic=on --pid="$pids" --output="$out" \
		<"$WORK/msprof.cmd" >"$log" 2>&1 &
	MSPROF_PID=$!
	exec 3>"$WORK/msprof.cmd"
	say start
	wait_for "$log" "collection started (window 1)" 30
	sleep 0.3
	say stop
	wait_for "$log" "collection stopped (window 1)" 60
	say quit
	msprof_close
}

# facts OUT: each window's state and incomplete_reason, one a line.
facts() {
	jq -r '.state + " " + (.incomplete_reason // "")' "$1"/PROF_*/msprof_ebpf_window.json
}

# --- three targets, one budget -------------------------------------------
pids=
for i in 1 2 3; do
	runtime "r$i" bytes 102400
	pids=$pids${pids:+,}$RPID
done
window "$WORK/shared.log" "$WORK/shared" "$pids" MSPROF_TEST_LIMITS=stage_bytes=250000
show "$WORK/shared.log"
check "three targets' windows" [ "$(prof_dirs "$WORK/shared" | wc -l)" = 3 ]
taken=$(find "$WORK/shared" -name hwts.data.0.slice_0 -size 102400c | wc -l)
check "two slices of 100 KiB fit the window's 250 KB, the third does not (got $taken)" \
	[ "$taken" = 2 ]
check "  said once, naming the window's budget" \
	[ "$(grep -c "left out 1 staged entry: past the window's 244.1 KiB copy budget (all targets')" "$WORK/shared.log")" = 1 ]
check "  that window is incomplete, the budget named" \
	[ "$(facts "$WORK/shared" | grep -c "^incomplete device data: 1 staged entry left out (past the window's 244.1 KiB copy budget")" = 1 ]
check "  the other two are complete" [ "$(facts "$WORK/shared" | grep -c '^complete')" = 2 ]
check "  no stage left" [ -z "$(stages "$WORK/shared")" ]
for p in ${pids//,/ }; do kill "$p"; done

# --- 65 device directories ----------------------------------------------
runtime dev devices 65
window "$WORK/dev.log" "$WORK/dev" "$RPID"
show "$WORK/dev.log"
check "65 device directories: 64 taken" \
	[ "$(find "$WORK/dev" -mindepth 2 -maxdepth 2 -name 'device_*' | wc -l)" = 64 ]
check "  the window is incomplete, the cap named" \
	[ "$(facts "$WORK/dev")" = "incomplete device data: 1 staged entry left out (past 64 device directories)" ]
check "  not reported as unexpected entries" ! grep -q "unexpected entries" "$WORK/dev.log"
check "  said in one line" grep -q "left out 1 staged entry: past 64 device directories" "$WORK/dev.log"
kill "$RPID"

# --- more files than the cap (lowered: 65536 files take a while) ----------
runtime files files 5
window "$WORK/files.log" "$WORK/files" "$RPID" MSPROF_TEST_LIMITS=stage_files=3
show "$WORK/files.log"
check "5 slices past a cap of 3: 3 taken" \
	[ "$(find "$WORK/files" -name 'hwts.data.0.slice_*' | wc -l)" = 3 ]
check "  the window is incomplete, the cap named" \
	[ "$(facts "$WORK/files")" = "incomplete device data: 2 staged entries left out (past 3 files)" ]
kill "$RPID"

# --- a file over the size cap (lowered: 2 GiB of real data is too much) ---
runtime big bytes 4096
window "$WORK/big.log" "$WORK/big" "$RPID" MSPROF_TEST_LIMITS=stage_file_bytes=1000,stage_file_bytes=99999999
check "a slice over the size cap: not taken" [ -z "$(find "$WORK/big" -name 'hwts.data.0.slice_0')" ]
check "  the window is incomplete, the cap named" \
	[ "$(facts "$WORK/big")" = "incomplete device data: 1 staged entry left out (over 1000 bytes a file)" ]
kill "$RPID"
