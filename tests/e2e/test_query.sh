#!/bin/bash
# --query=on: msprof's query table, a row per window, for a PROF_
# directory or the directory holding them; what is no window is named.
source tests/e2e/lib.sh

RANK_ID=3 start_task --steps 0 --step-ms 10 || exit 1
out=$WORK/out
feed start "sleep 1" stop "sleep 1.2" start "sleep 1" stop "sleep 0.5" quit |
	"$MSPROF" --dynamic=on --pid="$TASK_PID" --output="$out" >"$WORK/msprof.log" 2>&1
check "msprof session exits 0" [ $? -eq 0 ]
kill -TERM "$TASK_PID"
mapfile -t dirs < <(prof_dirs "$out")
check "two PROF_ directories" [ ${#dirs[@]} -eq 2 ]

# query DIR: sets rc; the table in $WORK/q, errors in $WORK/err.
query() {
	timeout 20 "$MSPROF" --query=on --output="$1" >"$WORK/q" 2>"$WORK/err"
	rc=$?
	show "$WORK/err"
}
# cells N: line N of the table, its cells without padding, one a line.
cells() { sed -n "${1}p" "$WORK/q" | tr '\t' '\n' | sed 's/ *$//'; }

query "$out"
check "the parent of two windows: exit 0" [ $rc -eq 0 -a ! -s "$WORK/err" ]
check "msprof's header, each cell then a tab" \
	[ "$(cells 1 | paste -sd'|')" = "Job Info|Device ID|Dir Name|Collection Time|Model ID|Iteration Number|Top Time Iteration|Rank ID|" ]
check "a blank line after the header and after each row (as msprof prints)" \
	[ "$(sed -n '2p;4p;6p' "$WORK/q" | tr -d '\n')" = "" -a "$(wc -l <"$WORK/q")" = 6 ]
check "columns padded to one width" [ "$(awk -F'\t' 'NF { print length($3) }' "$WORK/q" | sort -u | wc -l)" = 1 ]
for i in 0 1; do
	mapfile -t row < <(cells $((3 + 2 * i)))
	name=$(basename "${dirs[$i]}")
	check "row $((i + 1)) names ${name:0:30}... (in collection order)" [ "${row[2]}" = "$name" ]
	check "row $((i + 1)): job NA, device 0, no model or iterations" \
		[ "${row[0]}|${row[1]}|${row[4]}|${row[5]}|${row[6]}" = "NA|0|N/A|N/A|N/A" ]
	# The directory's name holds its local creation time, at the start.
	stamp=$(sed -E 's/^PROF_[0-9]+_([0-9]{4})([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2})([0-9]{2}).*/\1-\2-\3 \4:\5:\6/' <<<"$name")
	diff=$(($(date -d "${row[3]%.*}" +%s) - $(date -d "$stamp" +%s)))
	check "row $((i + 1)): collection time ${row[3]}, as msprof writes dates" \
		grep -Eqx '[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}' <<<"${row[3]}"
	check "row $((i + 1)): collection time, as the window began (${diff}s)" [ "${diff#-}" -le 1 ]
	if grep -rqsE '"rank_id": ?3\b' "${dirs[$i]}"; then
		check "row $((i + 1)): rank id 3, from the task's RANK_ID" [ "${row[7]}" = 3 ]
	else
		skip "row $((i + 1)): rank id from RANK_ID" "this tree records no rank_id yet"
	fi
done

query "${dirs[1]}"
check "one PROF_ directory: exit 0, one row" [ $rc -eq 0 -a "$(wc -l <"$WORK/q")" = 4 ]
check "one PROF_ directory: its row" [ "$(cells 3 | sed -n 3p)" = "$(basename "${dirs[1]}")" ]

# What is no window is named and makes the exit non-zero; the rest is listed.
mkdir "$out/PROF_empty"
ln -s "${dirs[0]}" "$out/PROF_link"
query "$out"
check "entries that are no window: exit non-zero" [ $rc -ne 0 -a $rc -ne 124 ]
check "an empty PROF_ directory is named" grep -q "PROF_empty: not queried: not a window" "$WORK/err"
check "a link is named, not followed" grep -q "PROF_link: not queried: a symbolic link (not followed)" "$WORK/err"
check "the windows are still listed" [ "$(wc -l <"$WORK/q")" = 6 ]

mkdir "$WORK/none"
query "$WORK/none"
check "a directory without PROF_ entries: exit non-zero" [ $rc -ne 0 -a $rc -ne 124 ]
check "a directory without PROF_ entries: one line" [ "$(wc -l <"$WORK/err")" = 1 ]
check "a directory without PROF_ entries: saying so" grep -q "no PROF_ directory to query" "$WORK/err"
check "a directory without PROF_ entries: no table" [ ! -s "$WORK/q" ]
query "$WORK/missing"
check "a missing directory: exit non-zero, one line" [ $rc -ne 0 -a "$(wc -l <"$WORK/err")" = 1 ]
