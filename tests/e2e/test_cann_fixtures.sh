#!/bin/bash
# --export=on (text and --type=db) on PROF_ directories written as a 910B
# CANN runtime and Huawei's msprof write them, with no file of ours in them
# (tests/fixtures/cann_fixture.py, written from the raw format sheet alone,
# sharing nothing with the simulator's writer): exact API slices, device
# tasks per stream, op names, task types, durations within a device tick,
# HostToDevice flows, Communication ops, CSV and db rows; wrapped 16-bit task
# ids, a CPU-counter host clock, data over slices and both aging groups.  Each
# bad case spoils one thing of `basic`: it costs only itself, is named in one
# line (file, offset, what), and the exit status is 1.
source tests/e2e/lib.sh

fixture=tests/fixtures/cann_fixture.py
mapfile -t cases < <("$fixture" 2>&1 | sed -n 's/^cases: //p' | tr ' ' '\n')
check "the fixture writer names its cases (${#cases[@]})" [ ${#cases[@]} -ge 16 ]

for c in "${cases[@]}"; do
	for type in text db; do
		out=$WORK/$c.$type
		mkdir -p "$out"
		mapfile -t made < <("$fixture" "$out" "$c")
		d=${made[0]} exp=${made[1]}
		if [ ! -d "$d" ] || [ ! -f "$exp" ]; then
			check "$c: the fixture is written" false
			continue
		fi
		want=$(jq .exit_status "$exp")
		timeout 300 "$MSPROF" --export=on --type=$type --output="$d" \
			>"$out/stdout" 2>"$out/stderr"
		rc=$?
		check "$c ($type): export exits $want (got $rc)" [ "$rc" = "$want" ]
		[ "$rc" = "$want" ] || head -5 "$out/stderr"
		db=
		[ $type = db ] && db=--db
		while read -r status what; do
			check "$what" [ "$status" = PASS ]
		done < <(python3 tests/e2e/check_cann_fixture.py $db "$d" "$exp" \
				"$out/stderr" 2>&1 ||
			echo "FAIL cann $c: check_cann_fixture.py ran to its end")
		if [ $type = db ]; then
			f=$(ls "$d"/msprof_*.db 2>/dev/null | head -1)
			tl=$(ls -t "$d"/mindstudio_profiler_output/msprof_*.json 2>/dev/null | head -1)
			if [ -n "$f" ] && [ -n "$tl" ]; then
				while read -r status what; do
					db_check_line "cann $c db: " "$status" "$what"
				done < <(python3 tests/e2e/db_check.py "$f" "$tl" 2>&1 ||
					echo "FAIL db_check.py ran to its end")
			fi
		fi
		rm -rf "$out"	# the wrapped case is 25 MB a copy
	done
done
