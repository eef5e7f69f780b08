#!/bin/bash
# The agent's socket against a client that holds it: silent, sitting in a
# window, trickling bytes, filling the accept queue, or of another user.
# msprof (root) must attach, start and stop in bounded time or fail in
# bounded time with a one-line error naming the problem, end promptly on
# SIGTERM while it waits, and profile normally once the client is gone.
# The attacker is the task's own user; the socket is opened to all for the
# other-user case only.
source tests/e2e/lib.sh

command -v python3 >/dev/null || { skip "agent socket attacks" "python3 is missing"; exit 0; }
add_user || { skip "agent socket attacks" "cannot add a user"; exit 0; }
chmod 755 "$WORK"

# client.py SOCKET MODE [OUT]: one bad client; prints what it saw.
cat >"$WORK/client.py" <<'PY'
import socket, struct, sys, time
path, mode = sys.argv[1], sys.argv[2]
out = (sys.argv[3] if len(sys.argv) > 3 else "/nonexistent").encode()
js = b'{"result_dir":"' + out + b'"}'
params = struct.pack("=I", len(js)) + js.ljust(4096, b"\0")
start = struct.pack("=ii", 1, 0)
if mode == "flood":
    held = []
    for i in range(8):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.connect(path)
            held.append(s)
        except BlockingIOError:
            pass
    print("queued", len(held), flush=True)
    time.sleep(3600)
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
print("connected", flush=True)
if mode == "silent":
    time.sleep(3600)
elif mode == "started":
    s.sendall(params)
    s.recv(8)
    s.sendall(start)
    print("started", struct.unpack("=ii", s.recv(8)), flush=True)
    time.sleep(3600)
elif mode == "trickle":
    t0 = time.monotonic()
    try:
        for b in params:
            s.send(bytes([b]))
            time.sleep(2)
    except OSError:
        print("dropped after %d s" % (time.monotonic() - t0), flush=True)
    time.sleep(3600)
elif mode == "foreign":
    s.settimeout(5)
    try:
        s.sendall(params + start)
        r = s.recv(8)
    except OSError:
        r = b""
    print("answered" if r else "closed", flush=True)
PY

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# run_as is a function: $! is a subshell; the socket names the task.
run_as env PROFILING_MODE=dynamic "$SAMPLE" --steps 0 --step-ms 10 >"$WORK/task.out" 2>&1 &
PIDS_TO_KILL+=("$!")
for i in $(seq 100); do
	SOCK=$(ls "$TEST_HOME"/dynamic_profiling_socket_* 2>/dev/null)
	[ -S "$SOCK" ] && break
	sleep 0.1
done
[ -S "$SOCK" ] || { check "the task opened its socket" false; exit 1; }
TASK_PID=${SOCK##*_}
PIDS_TO_KILL+=("$TASK_PID")

# bad MODE [UID]: starts a bad client as the task's user (or UID).
bad() {
	local uid=${2:-$TEST_USER}
	# setpriv and env exec: $! is the client itself, which bad_gone ends.
	setpriv --reuid="$uid" --regid="$uid" --clear-groups env HOME="$TEST_HOME" \
		python3 "$WORK/client.py" "$SOCK" "$1" "$TEST_HOME/bad" \
		>"$WORK/bad.out" 2>&1 &
	BAD_PID=$!
	PIDS_TO_KILL+=("$BAD_PID")
}
bad_gone() { kill "$BAD_PID" 2>/dev/null; wait_pid "$BAD_PID" 5 >/dev/null; }

# profile NAME: one window of 1 s once attached; sets RC and MS, the time
# from start to exit.  Every wait is bounded (60 s to attach).
profile() {
	local t0 i
	t0=$(now_ms)
	msprof_open "$WORK/$1.log" --dynamic=on --pid="$TASK_PID" --output="$WORK/$1"
	for i in $(seq 600); do
		grep -q "attached to\|cannot\|accepted no\|did not answer" "$WORK/$1.log" && break
		kill -0 "$MSPROF_PID" 2>/dev/null || break
		sleep 0.1
	done
	if grep -q "attached to" "$WORK/$1.log"; then
		say start
		sleep 1
		say stop
		say quit
	fi
	gone "$MSPROF_PID" 60
	kill -KILL "$MSPROF_PID" 2>/dev/null
	msprof_close
	RC=$?
	MS=$(($(now_ms) - t0))
}

# attached NAME LIMIT_S: the window was profiled, device data included.
attached() {
	local d
	show "$WORK/$1.log"
	check "$1: msprof done within $2 s (${MS} ms)" [ "$MS" -lt $(($2 * 1000)) ]
	check "$1: exit 0" [ "$RC" -eq 0 ]
	d=$(prof_dirs "$WORK/$1")
	check "$1: host data written" [ -n "$d" ] && [ "$(jq .host.api_events "$d/msprof_ebpf_window.json")" -gt 0 ]
	check "$1: device data written" [ -n "$d" ] && cann_data "$d"
	check "$1: no failure reported" ! grep -q "failed\|did not answer\|accepted no" "$WORK/$1.log"
}

# Each case ends with the client gone and a plain session that must work.
after() {
	bad_gone
	profile "$1-after"
	attached "$1-after" 15
}

# --- a silent client, connected first ------------------------------------
bad silent
wait_for "$WORK/bad.out" connected
profile silent
attached silent 20
after silent

# --- a client in a window that sits --------------------------------------
bad started
wait_for "$WORK/bad.out" started
check "started: the bad client's window began" grep -q "started (2, 0)" "$WORK/bad.out"
profile started
attached started 30
after started

# --- a client trickling a byte every 2 s ---------------------------------
bad trickle
wait_for "$WORK/bad.out" connected
profile trickle
attached trickle 20
sleep 3
check "trickle: the agent dropped it within its params deadline" grep -q "dropped after [0-9] s" "$WORK/bad.out"
after trickle

# --- a full accept queue, behind a silent client --------------------------
bad silent
wait_for "$WORK/bad.out" connected
first=$BAD_PID
bad flood
wait_for "$WORK/bad.out" queued
profile flood
show "$WORK/flood.log"
check "flood: done within 30 s (${MS} ms)" [ "$MS" -lt 30000 ]
if [ "$RC" -eq 0 ]; then
	check "flood: attached once the queue drained" [ -n "$(prof_dirs "$WORK/flood")" ]
else
	check "flood: a one-line error naming the problem" \
		grep -q "accepted no connection within\|did not answer the parameters within" "$WORK/flood.log"
fi
kill "$first" 2>/dev/null
after flood

# --- an agent that accepts nothing: msprof's own deadlines ---------------
# A stopped task neither accepts nor answers; msprof connects into its
# queue and waits for the parameters' answer, or finds the queue full.
kill -STOP "$TASK_PID"
profile stopped
show "$WORK/stopped.log"
check "stopped task: msprof gave up within 20 s (${MS} ms)" [ "$MS" -lt 20000 ]
check "stopped task: non-zero exit" [ "$RC" -ne 0 ]
check "stopped task: one line names the problem" \
	[ "$(grep -c "did not answer the parameters within 15 s" "$WORK/stopped.log")" -eq 1 ]
bad flood
wait_for "$WORK/bad.out" queued
profile full
show "$WORK/full.log"
check "full queue: msprof gave up within 15 s (${MS} ms)" [ "$MS" -lt 15000 ]
check "full queue: non-zero exit" [ "$RC" -ne 0 ]
check "full queue: one line names the problem" \
	[ "$(grep -c "accepted no connection within 10 s" "$WORK/full.log")" -eq 1 ]
kill -CONT "$TASK_PID"
after full

# --- SIGTERM while msprof waits for the agent -----------------------------
bad started
wait_for "$WORK/bad.out" started
msprof_open "$WORK/term.log" --dynamic=on --pid="$TASK_PID" --output="$WORK/term"
sleep 1
t0=$(now_ms)
kill -TERM "$MSPROF_PID"
gone "$MSPROF_PID" 2
MS=$(($(now_ms) - t0))
check "SIGTERM in a socket wait: msprof ended within 2 s (${MS} ms)" ! kill -0 "$MSPROF_PID" 2>/dev/null
kill -KILL "$MSPROF_PID" 2>/dev/null
msprof_close
show "$WORK/term.log"
check "SIGTERM in a socket wait: it said why it stopped" grep -qi "interrupted\|signal\|terminated" "$WORK/term.log"
after term

# --- a client of another user -----------------------------------------
chmod 0666 "$SOCK"
bad foreign 65534	# nobody
for i in $(seq 100); do grep -q "answered\|closed" "$WORK/bad.out" && break; sleep 0.1; done
check "another user's client: closed without an answer" grep -q closed "$WORK/bad.out"
profile foreign
attached foreign 15
bad_gone
chmod 0600 "$SOCK"

# --- the socket's name linked to a socket of root's -----------------------
# msprof must not connect (as root) where the task's user points it.
RSOCK_DIR=$(mktemp -d /run/msprof-rootsock.XXXXXX)
chmod 700 "$RSOCK_DIR"
CLEANUP_CMDS+=("rm -rf $RSOCK_DIR")
python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(1)
s.settimeout(60)
c, _ = s.accept()
print("root-only socket reached:", len(c.recv(8192)), "bytes", flush=True)
' "$RSOCK_DIR/root.sock" >"$WORK/rootsock.out" 2>&1 &
PIDS_TO_KILL+=("$!")
for i in $(seq 50); do [ -S "$RSOCK_DIR/root.sock" ] && break; sleep 0.1; done
run_as env PROFILING_MODE=dynamic sleep 60 &
PIDS_TO_KILL+=("$!")
for i in $(seq 50); do
	LPID=$(pgrep -P "$!" -x sleep || { [ "$(cat /proc/$!/comm 2>/dev/null)" = sleep ] && echo $!; })
	[ -n "$LPID" ] && break
	sleep 0.1
done
run_as ln -s "$RSOCK_DIR/root.sock" "$TEST_HOME/dynamic_profiling_socket_$LPID"
printf 'quit\n' | timeout 30 "$MSPROF" --dynamic=on --pid="$LPID" --output="$WORK/rootsock" \
	>"$WORK/rootsock.log" 2>&1
show "$WORK/rootsock.log"
sleep 0.5
check "a link to root's socket: never connected to" ! grep -q reached "$WORK/rootsock.out"
check "a link to root's socket: msprof said why" grep -q "not a socket of the task's user" "$WORK/rootsock.log"
