#!/bin/bash
# What a task writes about itself reaches root's msprof: its environment
# (NPUSIM_DEVICE names its device node, HOME its socket's directory), its
# comm and the names of the libraries it maps.  A device path is one path
# looked up inside the task's root, never a glob that could make root's
# start walk every process's root; text is printed with its control
# characters made '?'.
source tests/e2e/lib.sh

add_user || { skip "task environment attacks" "cannot add a user"; exit 0; }
cat >"$WORK/evil.py" <<'PY'
import ctypes, os, shutil, time
# A runtime's name is all it takes to be asked for its device nodes.
lib = os.path.join(os.environ["EVIL_DIR"], "libnpusim_evil\x1b[2J.so")
shutil.copy(os.environ["LIBNPUSIM"], lib)
# Its agent, found by the original's $ORIGIN, comes first.
ctypes.CDLL(os.path.join(os.path.dirname(os.environ["LIBNPUSIM"]), "libmsprof_agent.so"))
ctypes.CDLL(lib)
with open("/proc/self/comm", "w") as f:
    f.write("\x1b]0;pwn\x07\x1b[2J")
print("ready", os.getpid(), flush=True)
time.sleep(120)
PY
mkdir "$WORK/evil" && chown "$TEST_USER" "$WORK/evil"
chmod 755 "$WORK"
glob='/../../proc/*/root/proc/*/root/proc/*/root/proc/*/root/dev/null'
run_as env EVIL_DIR="$WORK/evil" LIBNPUSIM="$PWD/build/lib/libnpusim.so" \
	NPUSIM_DEVICE="$glob" HOME=$'/tmp/x\e]0;pwn\a\e[2J' \
	/usr/bin/python3 "$WORK/evil.py" >"$WORK/evil.out" 2>&1 &
evil=$!
PIDS_TO_KILL+=("$evil")
wait_for "$WORK/evil.out" ready || { cat "$WORK/evil.out"; exit 1; }
pid=$(sed -n 's/^ready //p' "$WORK/evil.out")
PIDS_TO_KILL+=("$pid")

timed_window 0.5 "$WORK/host.log" --dynamic=on --host-only=on --pid="$pid" \
	--uprobe=libnpusim_evil:no_such_function --output="$WORK/out"
rc=$?
show "$WORK/host.log"
check "a glob in NPUSIM_DEVICE does not hold up start (session exits 0)" [ $rc -eq 0 ]
check "the window starts" grep -qF "collection started" "$WORK/host.log"
check "the task's comm is shown with its control characters as '?'" \
	grep -qF "(?]0;pwn??[2J)" "$WORK/host.log"
check "so is the name of the library it maps" \
	grep -qF "(first: $WORK/evil/libnpusim_evil?[2J.so)" "$WORK/host.log"

"$MSPROF" --dynamic=on --pid="$pid" --output="$WORK/out2" </dev/null >"$WORK/agent.log" 2>&1
show "$WORK/agent.log"
check "no socket in a home with control characters: refused" grep -qF "has no profiling socket /proc/$pid/root/tmp/x?]0;pwn??[2J/" "$WORK/agent.log"
check "no escape byte reaches root's terminal" \
	[ "$(cat "$WORK/host.log" "$WORK/agent.log" | tr -dc '\033\233' | wc -c)" -eq 0 ]
