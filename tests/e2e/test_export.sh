#!/bin/bash
# --export=on on PROF_ directories that are whole, cut short, unfinished,
# or planted with FIFOs and links by the task's user: never a hang, never a
# write through a link, lost data always said, the exit status non-zero
# whenever less than everything was exported.
source tests/e2e/lib.sh

one_window 1
src=$d
api=$(jq .host.api_events "$src/msprof_ebpf_window.json")
check "the window holds API calls ($api)" [ "$api" -gt 20 ]

# copy NAME [PARENT]: a fresh copy of the window, not yet exported.
copy() {
	local to=${2:-$WORK/c}/$1
	mkdir -p "$(dirname "$to")"
	cp -a "$src" "$to"
	rm -rf "$to/mindstudio_profiler_output"
	echo "$to"
}

# export DIR: msprof --export=on with a bound; sets rc, log in $WORK/err.
export_dir() {
	timeout 20 "$MSPROF" --export=on --output="$1" >"$WORK/out.log" 2>"$WORK/err"
	rc=$?
	show "$WORK/err"
}
api_in() { timeline "$1" '[.[] | select(.ph=="X" and (.name | startswith("AscendCL@")))] | length'; }
outputs() { ls -A "$1/mindstudio_profiler_output" 2>/dev/null; }

d=$(copy PROF_whole)
export_dir "$d"
check "a whole window exports with exit 0" [ $rc -eq 0 -a ! -s "$WORK/err" ]
check "its timeline holds every API call" [ "$(api_in "$d")" = "$api" ]
check "only the timeline, the summaries and README.txt are left in the output directory" \
	[ "$(outputs "$d" | sed -E 's/_[0-9]{14}\./_TS./' | LC_ALL=C sort | tr '\n' ' ')" = \
	  "README.txt api_statistic_TS.csv msprof_TS.json op_statistic_TS.csv op_summary_TS.csv task_time_TS.csv " ]
check "the output directory is root's, 0750" [ "$(stat -c %U:%a "$d/mindstudio_profiler_output")" = root:750 ]

# A cut host file: exported up to its last whole record, and said.
d=$(copy PROF_cut)
f=$d/host/data/host_trace.data
truncate -s -7 "$f"
export_dir "$d"
check "a cut host file: exit non-zero" [ $rc -ne 0 -a $rc -ne 124 ]
check "a cut host file: one line naming the file and offset" \
	[ "$(grep -c "PROF_cut/host/data/host_trace.data: offset [0-9]*: record of [0-9]* bytes runs past the end of the file" "$WORK/err")" = 1 ]
n=$(api_in "$d")
check "a cut host file: the rest is exported ($n of $api)" [ "$n" -ge $((api - 1)) ]
check "a cut host file: the timeline says so" \
	[ "$(timeline "$d" '[.[] | select(.args.file=="host/data/host_trace.data")] | length')" = 1 ]

# A corrupt record header (the first record's size) is said, not skipped.
d=$(copy PROF_corrupt)
printf '\xff\xff' | dd of="$d/host/data/host_trace.data" bs=1 seek=34 conv=notrunc status=none
export_dir "$d"
check "a corrupt record header: exit non-zero" [ $rc -ne 0 -a $rc -ne 124 ]
check "a corrupt record header: one line naming the file and offset" \
	[ "$(grep -c "PROF_corrupt/host/data/host_trace.data: offset 32: corrupt record (type 1, 65539 bytes)" "$WORK/err")" = 1 ]
check "a corrupt record header: the timeline is still written" [ -n "$(outputs "$d")" ]

# FIFOs: never waited on; the error names the file.
for f in host/data/host_trace.data device_0/data/stars_soc.data.0.slice_0; do
	d=$(copy PROF_fifo)
	rm "$d/$f"
	mkfifo "$d/$f"
	export_dir "$d"
	check "a FIFO as $f: export returns, non-zero" [ $rc -ne 0 -a $rc -ne 124 ]
	check "a FIFO as $f: the error names it" grep -q "PROF_fifo/$f: not a regular file" "$WORK/err"
	check "a FIFO as $f: the rest is exported" [ -n "$(outputs "$d")" ]
	rm -rf "$d"
done
d=$(copy PROF_fifo)
rm "$d/msprof_ebpf_window.json"
mkfifo "$d/msprof_ebpf_window.json"
export_dir "$d"
check "a FIFO as msprof_ebpf_window.json: refused in one line naming it" \
	[ $rc -ne 0 -a $rc -ne 124 -a "$(grep -c 'PROF_fifo: not exported: msprof_ebpf_window.json: not a regular file' "$WORK/err")" = 1 ]
check "a FIFO as msprof_ebpf_window.json: nothing written" [ -z "$(outputs "$d")" ]

# Windows a killed controller left.
d=$(copy PROF_noinfo)
rm "$d/msprof_ebpf_window.json" "$d/host/end_info"
export_dir "$d"
check "no msprof_ebpf_window.json: exported" [ -n "$(outputs "$d")" ]
check "no msprof_ebpf_window.json: said incomplete" \
	grep -q "PROF_noinfo: incomplete window (.*): exported what was recorded" "$WORK/err"
check "no msprof_ebpf_window.json: marked incomplete in the timeline" \
	[ "$(timeline "$d" -r '[.[] | select(.args.state=="incomplete")] | length')" = 1 ]
check "no msprof_ebpf_window.json: every API call exported" [ "$(api_in "$d")" = "$api" ]
check "no msprof_ebpf_window.json: the host process keeps its pid" \
	[ "$(timeline "$d" -r '.[] | select(.name=="process_name" and .args.name=="CANN") | .pid / 1024 | floor')" = "$TASK_PID" ]

d=$(copy PROF_collecting)
jq '.state = "collecting" | del(.end, .host, .target_exited, .device_status)' \
	"$src/msprof_ebpf_window.json" >"$d/msprof_ebpf_window.json"
rm "$d/host/end_info"
export_dir "$d"
check "state collecting: exported" [ -n "$(outputs "$d")" ]
check "state collecting: said incomplete, with the reason" \
	grep -q "PROF_collecting: incomplete window (the controller ended before stop): exported what was recorded" "$WORK/err"
check "state collecting: the timeline's marker says so" \
	[ "$(timeline "$d" -r '.[] | select(.ph=="i" and .args.state=="incomplete") | .name')" = "msprof: incomplete window (the controller ended before stop)" ]
# ts and dur as exact ns past the first slice's whole µs (jq's numbers are
# doubles: an epoch in ns would not be exact).
check "state collecting: the marker is at its last record's end" [ "$(timeline "$d" '
	([.[] | select(.ph=="X") | .ts | split(".")[0] | tonumber] | min) as $b |
	def ns: (.ts | split(".")) as $p | (($p[0] | tonumber) - $b) * 1000 + ($p[1] | tonumber);
	([.[] | select(.ph=="X") | ns + (.dur * 1000 | round)] | max) ==
	(.[] | select(.args.state=="incomplete") | ns)')" = true ]

# What msprof writes at start: where the device data goes until stop.
d=$(copy PROF_collecting_stage)
jq '.state = "collecting" | del(.end, .host, .target_exited) |
	.device_status = "not copied yet: the agent flushes it into /x/.msprof_stage_1"' \
	"$src/msprof_ebpf_window.json" >"$d/msprof_ebpf_window.json"
export_dir "$d"
check "state collecting: says where the device data went" \
	grep -q "PROF_collecting_stage: incomplete window (the controller ended before stop; device data not copied yet: the agent flushes it into /x/.msprof_stage_1)" "$WORK/err"

# A parent with good and bad windows: every one exported or named.
p=$WORK/parent
good=$(copy PROF_good "$p")
bad=$(copy PROF_bad "$p")
rm "$bad/msprof_ebpf_window.json" "$bad/host/start_info"
ln -s "$good" "$p/PROF_link"
export_dir "$p"
check "parent: exit non-zero" [ $rc -ne 0 -a $rc -ne 124 ]
check "parent: the good window exported" [ -n "$(outputs "$good")" ]
check "parent: the good window printed" grep -q "PROF_good/mindstudio_profiler_output/msprof_[0-9]*\.json$" "$WORK/out.log"
check "parent: the bad window named, with why" \
	grep -q "PROF_bad: not exported: not a msprof window" "$WORK/err"
check "parent: a link named, not followed" \
	grep -q "PROF_link: not exported: a symbolic link" "$WORK/err"
check "parent: the count said" grep -q "1 of 3 PROF_ entries exported whole" "$WORK/err"
check "parent: nothing written in the bad window" [ -z "$(outputs "$bad")" ]

# The task's user plants links where the JSON goes.
if add_user; then
	victim=$WORK/victim
	echo "root's secret" >"$victim"
	chmod 600 "$victim"
	for how in own-dir dir-link; do
		d=$(copy PROF_attack "$TEST_HOME/out")
		chown -R "$TEST_USER:" "$TEST_HOME/out"
		o=$d/mindstudio_profiler_output
		if [ $how = own-dir ]; then
			run_as mkdir "$o"
			for s in $(seq -2 5); do
				stamp=$(date -d "$s sec" +%Y%m%d%H%M%S)
				run_as ln -s "$victim" "$o/msprof_$stamp.json.tmp"
				run_as ln -s "$victim" "$o/msprof_$stamp.json"
			done
		else
			mkdir -p "$WORK/rootdir"
			run_as ln -s "$WORK/rootdir" "$o"
		fi
		export_dir "$d"
		check "$how: export refused in one line" \
			[ $rc -ne 0 -a "$(grep -c "PROF_attack: not exported: mindstudio_profiler_output .*: refused" "$WORK/err")" = 1 ]
		check "$how: the 0600 victim is unchanged" \
			[ "$(cat "$victim")" = "root's secret" -a "$(stat -c %U:%a "$victim")" = root:600 ]
		check "$how: nothing of root's written" \
			[ -z "$(find "$TEST_HOME/out" "$WORK/rootdir" -mindepth 1 -user root 2>/dev/null)" ]
		rm -rf "$TEST_HOME/out"
	done
	# The user owns the window, not its output: root's output is safe.
	d=$(copy PROF_userwin "$TEST_HOME/out")
	chown -R "$TEST_USER:" "$TEST_HOME/out"
	export_dir "$d"
	check "a user's window exports into an output directory of root's" \
		[ $rc -eq 0 -a "$(stat -c %U "$d/mindstudio_profiler_output")" = root ]
else
	skip "links planted by the task's user" "cannot add a throwaway user"
fi

# A full disk: the export fails and leaves no JSON and no temp file.
if mkdir -p "$WORK/tiny" && mount -t tmpfs -o size=$(( $(du -sk "$src" | cut -f1) + 64 ))k tmpfs "$WORK/tiny" 2>/dev/null; then
	CLEANUP_CMDS=("umount $WORK/tiny" "${CLEANUP_CMDS[@]}")
	d=$(copy PROF_full "$WORK/tiny")
	export_dir "$d"
	check "a full disk: exit non-zero, one line saying why" \
		[ $rc -ne 0 -a "$(grep -c "PROF_full: not exported: cannot write .*: No space left on device" "$WORK/err")" = 1 ]
	check "a full disk: no JSON or temp file left" [ -z "$(outputs "$d")" ]
	umount "$WORK/tiny"
else
	skip "a full disk" "cannot mount a small tmpfs"
fi
