#!/bin/bash
# A task's user with a user and mount namespace of its own mounts what it
# likes where msprof (root) goes: over a directory of the staging directory
# and over its /tmp, where the stage is made; it stages a sparse file.  A
# fake agent of that user answers msprof.  Root's files and directories
# must stay untouched, and root's disk must not pay for the user's holes.
source tests/e2e/lib.sh

command -v python3 >/dev/null || { skip "namespace attacks" "python3 is missing"; exit 0; }
add_user || { skip "namespace attacks" "cannot add a user"; exit 0; }
chmod 755 "$WORK"
if ! err=$(run_as unshare -Urm mount -t tmpfs probe /mnt 2>&1); then
	skip "namespace attacks" "no user namespaces for users here: $err"
	exit 0
fi
# The task's home is outside /tmp, which one attack covers.
NSHOME=$(mktemp -d /var/tmp/msprof-nshome.XXXXXX)
chown "$TEST_USER:" "$NSHOME"
chmod 755 "$NSHOME"
CLEANUP_CMDS+=("rm -rf $NSHOME")

# agent.py CMD: answers every request with success; runs CMD with $STAGE,
# the stage as the task sees it, when the parameters come.
cp tests/e2e/fake_agent.py "$NSHOME/"
cat >"$NSHOME/agent.py" <<'PY'
import json, os, subprocess, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_agent import serve
def params(text):
    os.environ["STAGE"] = json.loads(text)["result_dir"]
    subprocess.run(["sh", "-c", sys.argv[1]])
serve(params)
PY

VDIR=$WORK/rootonly
mkdir -m 700 "$VDIR"
echo "root's secret $$" >"$VDIR/secret"
chmod 600 "$VDIR/secret"
VROOT=$WORK/rootdir
mkdir -m 755 "$VROOT"

# start_agent LOG SETUP CMD: the agent in a namespace of its own, after
# SETUP; sets APID.
start_agent() {
	run_as env HOME="$NSHOME" unshare -Urm sh -c "$2
		exec python3 $NSHOME/agent.py '$3'" >"$1" 2>&1 &
	PIDS_TO_KILL+=($!)
	wait_for "$1" "agent pid=" || return 1
	APID=$(sed -n 's/^agent pid=//p' "$1")
	PIDS_TO_KILL+=("$APID")
}

# --- root's directory mounted over one of the stage ---------------------
# A runtime's PROF_ directory in the stage, as the fake agent makes it.
RUN=PROF_000001_20260101120000000_00000001ABCDEFGH
start_agent "$WORK/a1.out" : 'mkdir -p $STAGE/'$RUN'/device_0 && mount --bind '"$VDIR"' $STAGE/'$RUN'/device_0 && echo mounted'
printf 'start\nstop\nquit\n' |
	timeout 60 "$MSPROF" --dynamic=on --pid="$APID" --output="$WORK/out1" >"$WORK/m1.log" 2>&1
check "the agent mounted root's directory in its stage" grep -q mounted "$WORK/a1.out"
check "msprof took nothing from it and removed nothing in it" \
	[ "$(cat "$VDIR/secret" 2>/dev/null)" = "root's secret $$" ]
check "no device data from another user's directory" \
	[ -z "$(find "$WORK"/out1/PROF_* -name secret)" ]
check "the stage it could not empty is said to be left" \
	grep -q "the staging directory .* is left in place: Invalid cross-device link" "$WORK/m1.log"

# --- root's directory mounted over the task's /tmp ----------------------
start_agent "$WORK/a2.out" "mount --bind $VROOT /tmp" 'touch $STAGE/planted && echo planted'
printf 'start\nstop\nquit\n' |
	timeout 60 "$MSPROF" --dynamic=on --pid="$APID" --output="$WORK/out2" >"$WORK/m2.log" 2>&1
check "no directory of the user's made in root's directory mounted as its /tmp" \
	! grep -q planted "$WORK/a2.out"
check "nothing left there" [ -z "$(ls -A "$VROOT")" ]
check "msprof said why it could not stage there" \
	grep -q "its /tmp is neither" "$WORK/m2.log"

# --- root's directory mounted over the stage between its mkdir and open ---
# msprof pauses there (MSPROF_TEST_PAUSE, 60 s) while a loop of the task's
# user mounts over the new name; fchown must not hand the mount to it.
VOWN=$WORK/rootowned
mkdir -m 700 "$VOWN"
start_agent "$WORK/a3.out" "(for i in \$(seq 1200); do
		for d in /tmp/.msprof_stage_\$\$_*; do
			[ -d \"\$d\" ] && mount --bind $VOWN \"\$d\" && echo mounted && exit
		done
		sleep 0.05
	done) &" :
printf 'quit\n' | MSPROF_TEST_PAUSE=stage-made timeout 90 "$MSPROF" --dynamic=on \
	--pid="$APID" --output="$WORK/out3" >"$WORK/m3.log" 2>&1
check "the user mounted root's directory over the new stage" grep -q mounted "$WORK/a3.out"
check "root's directory is still root's" [ "$(stat -c %U "$VOWN")" = root ]

# --- a sparse file in the stage -------------------------------------------
# 2 GiB that cost the user nothing must not become 2 GiB of root's disk.
mkdir "$WORK/small"
if mount -t tmpfs -o size=64m msprof-small "$WORK/small"; then
	CLEANUP_CMDS=("umount -l $WORK/small" "${CLEANUP_CMDS[@]}")
	start_agent "$WORK/a4.out" : 'mkdir -p $STAGE/'$RUN'/device_0/data &&
		truncate -s 2G $STAGE/'$RUN'/device_0/data/task_time.data && echo sparse'
	printf 'start\nstop\nquit\n' | timeout 60 "$MSPROF" --dynamic=on \
		--pid="$APID" --output="$WORK/small" >"$WORK/m4.log" 2>&1
	show "$WORK/m4.log"
	check "the agent staged a sparse 2 GiB file" grep -q sparse "$WORK/a4.out"
	check "root's disk took none of it" \
		[ "$(du -sm "$WORK/small" | cut -f1)" -lt 2 ]
	check "the sparse file was said to be left" grep -q "ignored 1 unexpected" "$WORK/m4.log"
else
	skip "a sparse file in the stage" "cannot mount a tmpfs"
fi

# --- root's directory renamed over the new stage in the user's own /tmp ---
# The user's directory, root's beside it: its owner may rename that over
# the stage msprof just made (MSPROF_TEST_PAUSE holds msprof there).
UTMP=$NSHOME/tmp
mkdir -m 755 "$UTMP" "$UTMP/rootdir"
chown "$TEST_USER:" "$UTMP"
echo "root's secret $$" >"$UTMP/rootdir/secret"
chmod 600 "$UTMP/rootdir/secret"
chmod 700 "$UTMP/rootdir"
start_agent "$WORK/a5.out" "mount --bind $UTMP /tmp
	(for i in \$(seq 1200); do
		for d in /tmp/.msprof_stage_\$\$_*; do
			[ -d \"\$d\" ] && mv -T /tmp/rootdir \"\$d\" && echo renamed && exit
		done
		sleep 0.05
	done) &" :
printf 'quit\n' | MSPROF_TEST_PAUSE=stage-made timeout 90 "$MSPROF" --dynamic=on \
	--pid="$APID" --output="$WORK/out5" >"$WORK/m5.log" 2>&1
show "$WORK/m5.log"
check "the user renamed root's directory over the new stage" grep -q renamed "$WORK/a5.out"
moved=$(find "$UTMP" -maxdepth 1 -name '.msprof_stage_*' | head -1)
check "root's directory is still root's" [ -n "$moved" ] && [ "$(stat -c %U "$moved")" = root ]
check "root's file in it is still there" [ -f "$moved/secret" ]
