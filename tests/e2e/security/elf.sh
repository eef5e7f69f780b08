#!/bin/bash
# The files a task maps are parsed by root at each start, for their symbol
# tables.  A task's user maps crafted ELF files PROT_EXEC: four symbol
# tables of 256 MiB each in a 4 KiB sparse file (libelf read them whole:
# 1 GiB of root's memory), and six files of 48 MiB tables each, more than
# one start reads.  msprof's peak RSS must stay within a few MiB of a start
# on a task that maps none; a file no probe may be in is not read at all,
# one that a pack's name makes worth reading is refused in one line, and
# the start goes on.
source tests/e2e/lib.sh

command -v python3 >/dev/null || { skip "crafted ELF files" "python3 is missing"; exit 0; }
add_user || { skip "crafted ELF files" "cannot add a user"; exit 0; }
chmod 755 "$WORK"
mkdir "$WORK/evil" && chown "$TEST_USER" "$WORK/evil"

# mapper.py MODE: makes MODE's files in EVIL_DIR, maps each PROT_EXEC,
# says "ready <pid>" (or "cannot ..."), and waits 120 s at most.
cat >"$WORK/mapper.py" <<'PY'
import mmap, os, struct, sys, time

def craft(path, ntables, nbytes):
    """A 64-bit ELF header, a string table, ntables symbol tables (.dynsym
    and .symtab in turn) claiming nbytes each; nothing else but holes."""
    sh = [bytes(64), struct.pack("<IIQQQQIIQQ", 0, 3, 0, 0, 2048, 16, 0, 0, 1, 0)]
    for i in range(ntables):
        sh.append(struct.pack("<IIQQQQIIQQ", 0, 2 if i % 2 else 11, 0, 0,
                              4096 + i * nbytes, nbytes // 24 * 24, 1, 0, 8, 24))
    eh = struct.pack("<16sHHIQQQIHHHHHH", b"\x7fELF\x02\x01\x01", 3, 0, 1, 0,
                     0, 64, 0, 64, 0, 0, 64, len(sh), 0)
    with open(path, "wb") as f:
        f.write(eh + b"".join(sh))
        f.truncate(4096 + ntables * nbytes)

mode, d = sys.argv[1], os.environ["EVIL_DIR"]
files = {"none": [], "plain": [("libplain_huge.so", 4, 256 << 20)],
         "pack": [("libnpusim_huge.so", 4, 256 << 20)],
         "many": [("libnpusim_%d.so" % i, 1, 48 << 20) for i in range(1, 7)]}[mode]
maps = []
try:
    for name, n, size in files:
        craft(os.path.join(d, name), n, size)
        with open(os.path.join(d, name), "rb") as f:
            maps.append(mmap.mmap(f.fileno(), 4096, flags=mmap.MAP_PRIVATE,
                                  prot=mmap.PROT_READ | mmap.PROT_EXEC))
except OSError as e:
    print("cannot map a file PROT_EXEC here:", e, flush=True)
    sys.exit(0)
print("ready", os.getpid(), flush=True)
time.sleep(120)
PY

# one_start MODE: maps MODE's files as the test user, then one window of
# msprof on it (two for "many"); sets hwm (msprof's VmHWM in KiB after its
# last stop) and log.  Returns 1 (said) if the task could not be made.
one_start() {
	local mode=$1 pid w windows=1
	[ "$mode" = many ] && windows=2
	log=$WORK/$mode.log
	run_as env EVIL_DIR="$WORK/evil" /usr/bin/python3 "$WORK/mapper.py" "$mode" \
		>"$WORK/$mode.out" 2>&1 &
	PIDS_TO_KILL+=("$!")
	wait_for "$WORK/$mode.out" "ready" 30 || return 1
	pid=$(sed -n 's/^ready //p' "$WORK/$mode.out")
	PIDS_TO_KILL+=("$pid")
	msprof_open "$log" --dynamic=on --host-only=on --pid="$pid" --output="$WORK/out-$mode"
	for w in $(seq "$windows"); do
		say start
		wait_for "$log" "collection started (window $w)" 60
		say stop
		wait_for "$log" "collection stopped (window $w)" 60
	done
	hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$MSPROF_PID/status")
	say quit
	msprof_close
	rc=$?
	kill "$pid" 2>/dev/null
	show "$log"
}

one_start none || exit 1
if grep -q cannot "$WORK/none.out"; then
	skip "crafted ELF files" "$(cat "$WORK/none.out")"
	exit 0
fi
base=$hwm
echo "msprof's peak RSS on a task that maps nothing crafted: $base KiB"
# A few MiB: what msprof's own buffers (elfsym's 300 KiB) and noise take.
SLACK_KIB=8192

one_start plain || exit 1
check "a crafted file no probe may be in: session exits 0" [ "$rc" -eq 0 ]
check "its peak RSS within 8 MiB of that ($hwm KiB)" [ $((hwm - base)) -lt $SLACK_KIB ]
check "the file is not read, so nothing is said of it" ! grep -q "not reading the symbols" "$log"

one_start pack || exit 1
check "a crafted file named like npusim's library: session exits 0" [ "$rc" -eq 0 ]
check "the window still started" grep -qF "collection started (window 1)" "$log"
check "peak RSS within 8 MiB of a plain start ($hwm KiB, not 1 GiB)" [ $((hwm - base)) -lt $SLACK_KIB ]
check "one line names the file and the bound" [ "$(grep -c "not reading the symbols" "$log")" = 1 -a \
	"$(grep -cF "not reading the symbols of $WORK/evil/libnpusim_huge.so (symbol tables of 512 MiB, more than the 64 MiB read)" "$log")" = 1 ]

one_start many || exit 1
check "six files of 48 MiB tables: session exits 0" [ "$rc" -eq 0 ]
check "peak RSS within 8 MiB of a plain start ($hwm KiB)" [ $((hwm - base)) -lt $SLACK_KIB ]
check "five read, the last one walked past the start's 256 MiB and said, once in two windows" \
	[ "$(grep -c "not reading the symbols" "$log")" = 1 -a \
	"$(grep -cE "not reading the symbols of $WORK/evil/libnpusim_[1-6]\.so \(symbol tables of 48 MiB, more than the [0-9]+ MiB this start may still read\)" "$log")" = 1 ]
