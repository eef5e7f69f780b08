#!/bin/bash
# --export=on --type=db: PROF_X/msprof_<ts>.db with msprof's tables and
# columns, its rows agreeing with the timeline exported beside it; a
# re-export leaves one db, a text export none; a refused export nothing.
source tests/e2e/lib.sh

one_window 2
dbs() { find "$d" -maxdepth 1 -name '*.db*' -printf '%f\n' | sort; }

# export ARGS...: into $d with a bound; sets rc, stdout in $WORK/out.log.
export_db() {
	timeout 60 "$MSPROF" --export=on --output="$d" "$@" >"$WORK/out.log" 2>"$WORK/err"
	rc=$?
	show "$WORK/err"
}

export_db --type=db
check "--type=db exports with exit 0" [ $rc -eq 0 -a ! -s "$WORK/err" ]
db=$(dbs)
check "one msprof_<14 digits>.db in the PROF_ directory ($db)" grep -Eqx 'msprof_[0-9]{14}\.db' <<<"$db"
check "its path is printed with the other files" grep -qx "$d/$db" "$WORK/out.log"
check "the db is root's, not others'" [ "$(stat -c %U:%a "$d/$db")" = root:640 ]
tl=$(ls -t "$d"/mindstudio_profiler_output/msprof_*.json | head -1)
while read -r status what; do
	db_check_line "" "$status" "$what"
done < <(python3 tests/e2e/db_check.py "$d/$db" "$tl" 2>&1 || echo "FAIL db_check.py ran to its end")

# HOST_INFO and RANK_DEVICE_MAP say what the metadata says (msprof-analyze
# merges ranks by them and skips a host without a name).
host=$(python3 -c 'import json, sys
for f in sys.argv[1:]:
    try:
        h = json.loads(open(f).readline()).get("hostname")
    except (ValueError, OSError, AttributeError):
        continue
    if h:
        print(h)
        break' $(find "$d" -maxdepth 2 -name 'info.json*' ! -name '*.done'))
dbq() { python3 -c 'import sqlite3, sys; print("|".join(str(r[0]) for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2])))' "$d/$db" "$1"; }
if [ -n "$host" ]; then
	check "HOST_INFO names the host the metadata names ($host)" [ "$(dbq 'SELECT hostName FROM HOST_INFO')" = "$host" ]
else
	skip "HOST_INFO names the host" "this tree's metadata records no hostname yet"
fi
check "RANK_DEVICE_MAP: rank -1 (no RANK_ID) for devices 0 and 1" [ "$(dbq 'SELECT rankId || ":" || deviceId FROM RANK_DEVICE_MAP')" = "-1:0|-1:1" ]

# A re-export replaces the db; a text export removes it (readers prefer one).
sleep 1.1
export_db --type=db
check "a re-export exits 0" [ $rc -eq 0 ]
check "a re-export leaves one db, a new one" [ "$(dbs | wc -l)" = 1 -a "$(dbs)" != "$db" ]
export_db --type=text
check "a text export exits 0" [ $rc -eq 0 ]
check "a text export leaves no db behind" [ -z "$(dbs)" ]

# A PROF_ directory others can write: refused, nothing left.
chmod o+w "$d"
export_db --type=db
check "a PROF_ directory others can write: exit non-zero" [ $rc -ne 0 -a $rc -ne 124 ]
check "a PROF_ directory others can write: one line saying so" \
	[ "$(grep -c 'others can write it: refused' "$WORK/err")" = 1 ]
check "a PROF_ directory others can write: no db, no temporary file" [ -z "$(dbs)" ]
chmod o-w "$d"

# A full disk: no db and no temporary file left, one line saying why.
json=$(du -sk "$d/mindstudio_profiler_output" | cut -f1)
if mkdir -p "$WORK/tiny" && mount -t tmpfs -o size=$(( $(du -sk --exclude=mindstudio_profiler_output "$d" | cut -f1) + json + 48 ))k tmpfs "$WORK/tiny" 2>/dev/null; then
	CLEANUP_CMDS=("umount $WORK/tiny" "${CLEANUP_CMDS[@]}")
	full=$WORK/tiny/PROF_full
	cp -a "$d" "$full"
	rm -rf "$full/mindstudio_profiler_output"
	timeout 60 "$MSPROF" --export=on --type=db --output="$full" >"$WORK/out.log" 2>"$WORK/err"
	rc=$?
	show "$WORK/err"
	check "a full disk: exit non-zero" [ $rc -ne 0 -a $rc -ne 124 ]
	# the db and the text outputs are written side by side: either may
	# meet the full disk first
	check "a full disk: one line saying why" \
		[ "$(grep -c . "$WORK/err")" = 1 -a \
		  "$(grep -cE "PROF_full: (cannot write msprof_[0-9]*\.db|not exported: cannot write .*): No space left on device" "$WORK/err")" = 1 ]
	check "a full disk: no db, no temporary file" [ -z "$(find "$full" -maxdepth 1 -name '*.db*')" ]
	umount "$WORK/tiny"
else
	skip "a full disk" "cannot mount a small tmpfs"
fi

# Bad --type values: one line naming the option, exit non-zero.
for bad in csv "" DB; do
	"$MSPROF" --export=on --type="$bad" --output="$d" >"$WORK/out.log" 2>"$WORK/err"
	rc=$?
	check "--type='$bad': exit non-zero" [ $rc -ne 0 ]
	check "--type='$bad': one line naming --type" \
		[ "$(wc -l <"$WORK/err")" = 1 -a "$(grep -c -- '--type' "$WORK/err")" = 1 ]
done
"$MSPROF" --type=db --output="$d" >/dev/null 2>"$WORK/err"
rc=$?
check "--type without --export: exit non-zero" [ $rc -ne 0 ]
check "--type without --export: says it goes with --export=on" grep -q "goes with --export=on" "$WORK/err"
