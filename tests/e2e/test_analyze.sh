#!/bin/bash
# --analyze=on: each window of a job without collectives gets
# analyze/communication.json and analyze/communication_matrix.json holding
# {} (and said so) beside communication_analyzer.db, written as safely as the export's files: replaced on
# a second run, never through a link or into a directory someone else can
# write.
source tests/e2e/lib.sh

one_window 1
src=$d

# copy NAME [PARENT]: a fresh copy of the window, not yet analyzed.
copy() {
	local to=${2:-$WORK/c}/$1
	mkdir -p "$(dirname "$to")"
	cp -a "$src" "$to"
	rm -rf "$to/analyze"
	echo "$to"
}
# analyze DIR [OPTION...]: msprof --analyze=on with a bound; sets rc.
analyze() {
	local dir=$1
	shift
	timeout 20 "$MSPROF" --analyze=on --output="$dir" "$@" >"$WORK/out.log" 2>"$WORK/err"
	rc=$?
	show "$WORK/err"
}
is_empty_object() { python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != {})' "$1"; }
# failed_with NEEDLE: the last run failed with one stderr line holding NEEDLE.
failed_with() {
	[ $rc -ne 0 -a $rc -ne 124 ] && [ "$(wc -l <"$WORK/err")" = 1 ] &&
		grep -q -- "$1" "$WORK/err"
}
files() { ls -A "$1/analyze" 2>/dev/null | LC_ALL=C sort | tr '\n' ' '; }

d=$(copy PROF_one)
analyze "$d"
check "a window analyzes with exit 0" [ $rc -eq 0 ]
check "analyze/ holds exactly the three files" \
	[ "$(files "$d")" = "communication.json communication_analyzer.db communication_matrix.json " ]
for f in communication communication_matrix; do
	check "$f.json is {} (not [])" is_empty_object "$d/analyze/$f.json"
	check "$f.json printed" grep -qx "$d/analyze/$f.json" "$WORK/out.log"
done
check "one stderr line: no communication operators recorded" \
	[ "$(wc -l <"$WORK/err")" = 1 -a "$(grep -c "PROF_one: no communication operators recorded" "$WORK/err")" = 1 ]
check "analyze/ is root's, 0750" [ "$(stat -c %U:%a "$d/analyze")" = root:750 ]
check "the window's other files are untouched" \
	diff <(cd "$src" && find . -path ./analyze -prune -o -print | sort) \
	     <(cd "$d" && find . -path ./analyze -prune -o -print | sort)

# Again: an earlier run's files are replaced, no temp file left.
echo stale >"$d/analyze/communication.json"
echo '[]' >"$d/analyze/communication_matrix.json"
analyze "$d"
check "a second run: exit 0" [ $rc -eq 0 ]
check "a second run replaces communication.json" is_empty_object "$d/analyze/communication.json"
check "a second run replaces communication_matrix.json" is_empty_object "$d/analyze/communication_matrix.json"
check "a second run: still exactly the three files" \
	[ "$(files "$d")" = "communication.json communication_analyzer.db communication_matrix.json " ]

# Killed between writing and renaming: an earlier run's files stay whole,
# no new one is half there.
# (The pause itself ends after 60 s.)
MSPROF_TEST_PAUSE=analyze-before-rename "$MSPROF" --analyze=on \
	--output="$d" >/dev/null 2>"$WORK/pause" &
pid=$!
if wait_for "$WORK/pause" "msprof: test pause at analyze-before-rename" 20; then
	echo stale >"$d/analyze/communication.json"
	kill -KILL $pid
	wait $pid 2>/dev/null
	check "killed before the rename: temporary files only" \
		[ "$(ls -A "$d/analyze" | grep -c '^\.communication.*\.tmp$')" = 3 ]
	check "killed before the rename: the earlier file is left as it was" \
		[ "$(cat "$d/analyze/communication.json")" = stale ]
	check "killed before the rename: the matrix is still whole" \
		is_empty_object "$d/analyze/communication_matrix.json"
	analyze "$d"
	check "a run after the kill: exit 0" [ $rc -eq 0 ]
	check "a run after the kill replaces the file" is_empty_object "$d/analyze/communication.json"
	check "a run after the kill: the killed run's temporary files removed" \
		[ "$(files "$d")" = "communication.json communication_analyzer.db communication_matrix.json " ]
else
	check "the pause before the rename is reached" false
	kill -KILL $pid
	wait $pid 2>/dev/null
fi

# A parent: every PROF_ entry analyzed or named, as the export walks them.
p=$WORK/parent
good=$(copy PROF_good "$p")
bad=$(copy PROF_bad "$p")
rm "$bad/msprof_ebpf_window.json" "$bad/host/start_info"
analyze "$p"
check "parent: exit non-zero" [ $rc -ne 0 -a $rc -ne 124 ]
check "parent: the good window analyzed" is_empty_object "$good/analyze/communication.json"
check "parent: the bad window named, with why" grep -q "PROF_bad: not analyzed: not a msprof window" "$WORK/err"
check "parent: nothing written in the bad window" [ ! -e "$bad/analyze" ]
check "parent: the count said" grep -q "1 of 2 PROF_ entries analyzed whole" "$WORK/err"
mkdir -p "$WORK/none"
analyze "$WORK/none"
check "no PROF_ entry: exit non-zero, one line saying so" failed_with "no PROF_ directory to analyze"

# analyze/ planted: a link, a file, a directory others can write.
mkdir -p "$WORK/rootdir"
d=$(copy PROF_link)
ln -s "$WORK/rootdir" "$d/analyze"
analyze "$d"
check "a link as analyze/: refused in one line" \
	[ $rc -ne 0 -a $rc -ne 124 -a "$(grep -c "PROF_link: not analyzed: analyze is a symbolic link: refused" "$WORK/err")" = 1 ]
check "a link as analyze/: nothing written where it points" [ -z "$(ls -A "$WORK/rootdir")" ]
d=$(copy PROF_file)
echo x >"$d/analyze"
analyze "$d"
check "a file as analyze: refused" \
	[ $rc -ne 0 -a "$(grep -c "PROF_file: not analyzed: analyze is not a directory: refused" "$WORK/err")" = 1 ]
d=$(copy PROF_open)
mkdir -m 0777 "$d/analyze"
chmod 0777 "$d/analyze"
analyze "$d"
check "an analyze/ others can write: refused" \
	[ $rc -ne 0 -a "$(grep -c "PROF_open: not analyzed: analyze belongs to another user or others can write it: refused" "$WORK/err")" = 1 ]
check "an analyze/ others can write: nothing written in it" [ -z "$(ls -A "$d/analyze")" ]

if add_user; then
	d=$(copy PROF_user "$TEST_HOME/out")
	chown -R "$TEST_USER:" "$TEST_HOME/out"
	run_as mkdir "$d/analyze"
	run_as ln -s "$WORK/rootdir/x" "$d/analyze/communication.json"
	analyze "$d"
	check "the task's user's own analyze/: refused" \
		[ $rc -ne 0 -a "$(grep -c "PROF_user: not analyzed: analyze belongs to another user" "$WORK/err")" = 1 ]
	check "the task's user's own analyze/: nothing of root's written" \
		[ -z "$(find "$TEST_HOME/out" "$WORK/rootdir" -mindepth 1 -user root 2>/dev/null)" ]
	rm -rf "$d/analyze"
	analyze "$d"
	check "a user's window gets an analyze/ of root's" \
		[ $rc -eq 0 -a "$(stat -c %U:%a "$d/analyze")" = root:750 ]
else
	skip "analyze/ planted by the task's user" "cannot add a throwaway user"
fi

# Bad combinations: one line, exit 1, nothing written.
d=$(copy PROF_combo)
for extra in --export=on --dynamic=on --query=on --type=db; do
	analyze "$d" "$extra"
	check "--analyze=on with $extra: exit 1, one line" failed_with "cannot be combined\|goes with --export=on"
	check "--analyze=on with $extra: nothing written" [ ! -e "$d/analyze" -a ! -e "$d/mindstudio_profiler_output" ]
done
analyze "$d" /bin/true
check "--analyze=on with an app: exit 1, one line" failed_with "cannot be combined"
analyze "$d" --analyze=yes
check "--analyze=yes: exit 1, one line" failed_with "--analyze takes on or off, not 'yes'"
