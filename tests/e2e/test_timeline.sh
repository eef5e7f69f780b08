#!/bin/bash
# The timeline of a real npu_sample window follows msprof's conventions
# (docs/output/timeline.md): check_timeline.py checks its format, its
# processes and threads, its counts against our facts, its flows, its
# Overlap Analysis and its clock.
source tests/e2e/lib.sh

out=$WORK/out
feed start "sleep 1.5" stop quit |
	"$MSPROF" --dynamic=on --output="$out" "$SAMPLE" --steps 300 --step-ms 10 \
	>"$WORK/msprof.log" 2>&1
rc=$?
show "$WORK/msprof.log" | grep -v '^calls '
check "msprof exits 0" [ $rc -eq 0 ]
mapfile -t dirs < <(prof_dirs "$out")
check "one PROF_ directory" [ ${#dirs[@]} -eq 1 ]
d=${dirs[0]}
"$MSPROF" --export=on --output="$d" >"$WORK/export.log" 2>&1
rc=$?
show "$WORK/export.log"
check "export exits 0" [ $rc -eq 0 ]
python3 tests/e2e/check_timeline.py "$d"
check "the timeline checks ran and passed" [ $? -eq 0 ]
n=$(timeline "$d" '[.[] | select(.ph=="X" and (.args["Task Type"] // "") == "MEMCPY_ASYNC" and has("args") and (.args | has("size(B)")))] | length')
check "npu_sample's async copies say their size ($n)" [ "$n" -gt 0 ]
