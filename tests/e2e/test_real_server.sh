#!/bin/bash
# msprof against a server that behaves on the wire as a real CANN task's
# does (tests/programs/real_dynserver.c, from the spec's §1): three
# replies after QUIT, its own DISCONNECT+QUIT when it ends a session (the
# request past its limit, idle outside collection), a connection it never
# closes, its answers NOT_SET_DEVICE / NOT_START / FAIL, and its accept
# cap.  The server maps no runtime library: each window is host-side only,
# and still gets its PROF_ directory.
source tests/e2e/lib.sh

SERVER=$PWD/build/tests/real_dynserver
if [ ! -x "$SERVER" ]; then
	echo "FAIL $SERVER is not built (make $SERVER)"
	exit 1
fi

# start_server NAME ARGS...: the server, with a $HOME that is not its
# user's home (the real one binds in the home the user database gives,
# never in $HOME: msprof must look there too); sets SRV_PID, logs to
# $WORK/NAME.srv.
start_server() {
	local name=$1
	shift
	env HOME="$WORK/not-home" "$SERVER" "$@" >"$WORK/$name.srv" 2>&1 &
	SRV_PID=$!
	PIDS_TO_KILL+=("$SRV_PID")
	# Killed, it leaves its socket file, as a real task does.
	CLEANUP_CMDS+=("rm -f $(getent passwd "$(id -u)" | cut -d: -f6)/dynamic_profiling_socket_$SRV_PID")
	wait_for "$WORK/$name.srv" "listening"
}

# The server's messages from its first accept on, its parameters' text
# left out: one "accept N", "params", "send T S", "recv T" ... a line.
wire() {
	sed -E -n '/^accept 1$/,$p' "$WORK/$1.srv" | sed -E 's/^params [0-9]+ bytes: .*/params/'
}
# msprof's own result lines, in order: as msprof's, ours may follow a
# prompt on its line (a prompt ends no line when stdin is not a terminal).
said() {
	sed -E 's/^(\(msprof\) )+//' "$1" | grep -E '^(\[(WARNING|ERROR)\] )?dynamic profiling '
}
# followed_by FILE LINE TEXT: msprof's LINE is followed by a line holding
# our TEXT.
followed_by() {
	sed -E 's/^(\(msprof\) )+//' "$1" | grep -A1 -xF -- "$2" | tail -1 |
		grep -qF -- "$3"
}
expect() {	# expect FILE LINES...: FILE holds exactly these lines
	diff <(printf '%s\n' "${@:2}") "$1" >/dev/null || {
		echo "--- got:"
		cat "$1"
		return 1
	}
}

# --- start, stop, quit: three replies after QUIT, read and dropped ------
start_server plain --max-accepts 2
t0=$(date +%s)
feed start "sleep 0.3" stop quit |
	"$MSPROF" --dynamic=on --pid="$SRV_PID" --output="$WORK/plain" >"$WORK/plain.log" 2>&1
rc=$?
check "plain: exit 0" [ $rc -eq 0 ]
check "plain: quit took no wait for replies that came at once" [ $(($(date +%s) - t0)) -lt 10 ]
said "$WORK/plain.log" >"$WORK/plain.said"
check "plain: msprof's result lines, in order" expect "$WORK/plain.said" \
	"dynamic profiling start success......" \
	"dynamic profiling stop success......" \
	"dynamic profiling quit success......"
check "plain: our detail after the start line" followed_by "$WORK/plain.log" "dynamic profiling start success......" "collection started (window 1)"
wire plain >"$WORK/plain.wire"
check "plain: the exact sequence on the wire" expect "$WORK/plain.wire" \
	"accept 1" params "send 0 0" "recv 1" "send 2 0" "recv 3" "send 4 0" \
	"recv 5" "send 6 0" "send 7 0" "send 6 0"
check "plain: one PROF_ directory for the window" [ "$(prof_dirs "$WORK/plain" | wc -l)" -eq 1 ]
check "plain: it is complete" ! grep -rq "ended the session" "$WORK/plain"
check "plain: no word of the session ending on its own" ! grep -q "ended the session" "$WORK/plain.log"
check "plain: the server runs on" alive "$SRV_PID"

# The server never closed: msprof did, and the server takes the next one.
feed start stop q | "$MSPROF" --dynamic=on --pid="$SRV_PID" --output="$WORK/again" >"$WORK/again.log" 2>&1
check "again: a second session on the same server, q to quit" [ $? -eq 0 ]
check "again: the server accepted it" grep -qx "accept 2" "$WORK/plain.srv"
check "again: and quit was said as msprof says it" grep -qxF "(msprof) dynamic profiling quit success......" "$WORK/again.log"
# Its accept cap (128 for real, 2 here): then it removes its socket.
wait_for "$WORK/plain.srv" "server ended after 2 accepts"
"$MSPROF" --dynamic=on --pid="$SRV_PID" --output="$WORK/capped" </dev/null >"$WORK/capped.log" 2>&1
check "capped: a server past its accepts is refused" [ $? -ne 0 ]
check "capped: saying it has no socket" grep -q "has no profiling socket" "$WORK/capped.log"
check "capped: nothing made" [ ! -e "$WORK/capped" ]

# --- the request past the server's limit ends its session mid-window ------
# Its limit is 100 for real, 2 here: the third request (the second
# START) is answered, then followed by DISCONNECT and QUIT, unasked.
start_server limit --max-msgs 2
msprof_open "$WORK/limit.log" --dynamic=on --pid="$SRV_PID" --output="$WORK/limit"
say start
wait_for "$WORK/limit.log" "collection started (window 1)"
say stop
wait_for "$WORK/limit.log" "collection stopped (window 1)"
say start
wait_for "$WORK/limit.log" "collection started (window 2)"
check "limit: msprof notices the server's session end between commands" \
	wait_for "$WORK/limit.log" "the task's profiling server ended the session and stopped its collection: the window's device data ends here (marked incomplete)" 5
say stop
wait_for "$WORK/limit.log" "collection stopped (window 2)"
say start
wait_for "$WORK/limit.log" "collection started (window 3)"
say stop
wait_for "$WORK/limit.log" "collection stopped (window 3)"
say quit
msprof_close
check "limit: exit 0" [ $? -eq 0 ]
check "limit: said once" [ "$(grep -c "ended the session" "$WORK/limit.log")" -eq 1 ]
check "limit: the next start connected again" grep -q "pid $SRV_PID: reconnected to its agent" "$WORK/limit.log"
mapfile -t dirs < <(prof_dirs "$WORK/limit")
check "limit: three windows, three PROF_ directories" [ ${#dirs[@]} -eq 3 ]
check "limit: window 2 is marked incomplete for it" grep -rq "ended the session during the window" "${dirs[1]}"
check "limit: windows 1 and 3 are not" ! grep -rq "ended the session" "${dirs[0]}" "${dirs[2]}"
said "$WORK/limit.log" >"$WORK/limit.said"
check "limit: msprof's result lines" expect "$WORK/limit.said" \
	"dynamic profiling start success......" "dynamic profiling stop success......" \
	"dynamic profiling start success......" "dynamic profiling stop success......" \
	"dynamic profiling start success......" "dynamic profiling stop success......" \
	"dynamic profiling quit success......"
wire limit >"$WORK/limit.wire"
check "limit: the exact sequence on the wire" expect "$WORK/limit.wire" \
	"accept 1" params "send 0 0" "recv 1" "send 2 0" "recv 3" "send 4 0" \
	"recv 1" "send 2 0" "request 3: session ends" "send 7 0" "send 6 0" \
	"accept 2" params "send 0 0" "recv 1" "send 2 0" "recv 3" "send 4 0" \
	"recv 5" "send 6 0" "send 7 0" "send 6 0"

# --- idle outside collection: the server ends the session -----------------
# 1800 one-second timeouts for real, 2 here.
start_server idle --idle 2
msprof_open "$WORK/idle.log" --dynamic=on --pid="$SRV_PID" --output="$WORK/idle"
check "idle: msprof notices the idle session end" \
	wait_for "$WORK/idle.log" "the task's profiling server ended the session and stopped its collection; msprof connects again at the next start" 10
say start
wait_for "$WORK/idle.log" "collection started (window 1)"
say stop
wait_for "$WORK/idle.log" "collection stopped (window 1)"
say q
msprof_close
check "idle: exit 0" [ $? -eq 0 ]
check "idle: the start connected again" grep -q "reconnected to its agent" "$WORK/idle.log"
check "idle: the window is complete" ! grep -rq "ended the session" "$WORK/idle"
check "idle: the server ended it by its idle count" grep -qx "idle 3: session ends" "$WORK/idle.srv"
wire idle >"$WORK/idle.wire"
check "idle: the exact sequence on the wire" expect "$WORK/idle.wire" \
	"accept 1" params "send 0 0" "idle 3: session ends" "send 7 0" "send 6 0" \
	"accept 2" params "send 0 0" "recv 1" "send 2 0" "recv 3" "send 4 0" \
	"recv 5" "send 6 0" "send 7 0" "send 6 0"

# --- its answers: no device set, collection not started, failures ---------
start_server nodev --no-device
feed start stop quit |
	"$MSPROF" --dynamic=on --pid="$SRV_PID" --output="$WORK/nodev" >"$WORK/nodev.log" 2>&1
check "no device: exit 0" [ $? -eq 0 ]
check "no device: the host window still starts" grep -qx "dynamic profiling start success......" "$WORK/nodev.log"
check "no device: the server's answer is said" grep -q "answered START_RSP: no device set in the task" "$WORK/nodev.log"
check "no device: and its answer to stop" grep -q "answered STOP_RSP: collection not started" "$WORK/nodev.log"
check "no device: one PROF_ directory" [ "$(prof_dirs "$WORK/nodev" | wc -l)" -eq 1 ]

start_server fail --fail-stop
feed start stop quit |
	"$MSPROF" --dynamic=on --pid="$SRV_PID" --output="$WORK/fail" >"$WORK/fail.log" 2>&1
check "failed stop: exit 0" [ $? -eq 0 ]
said "$WORK/fail.log" >"$WORK/fail.said"
check "failed stop: said as msprof says it, at stop and at quit" expect "$WORK/fail.said" \
	"dynamic profiling start success......" \
	"[ERROR] dynamic profiling stop failed......" \
	"[ERROR] dynamic profiling stop failed......"
wire fail >"$WORK/fail.wire"
check "failed stop: the exact sequence on the wire" expect "$WORK/fail.wire" \
	"accept 1" params "send 0 0" "recv 1" "send 2 0" "recv 3" "send 4 1" \
	"recv 5" "send 6 1" "send 7 0" "send 6 0"

# --- the prompt: already started, not started, Ctrl-C ---------------------
start_server prompt
msprof_open "$WORK/prompt.log" --dynamic=on --pid="$SRV_PID" --output="$WORK/prompt"
say stop
wait_for "$WORK/prompt.log" "collection is not running"
say start
wait_for "$WORK/prompt.log" "collection started (window 1)"
say start
wait_for "$WORK/prompt.log" "collection is already running"
kill -INT "$MSPROF_PID"
check "Ctrl-C: answered as msprof answers it" wait_for "$WORK/prompt.log" "Use 'quit' or 'q' to exit dynamic profiling."
check "Ctrl-C: msprof stays" alive "$MSPROF_PID"
say stop
wait_for "$WORK/prompt.log" "collection stopped (window 1)"
say q
msprof_close
check "prompt: exit 0" [ $? -eq 0 ]
said "$WORK/prompt.log" >"$WORK/prompt.said"
check "prompt: msprof's result lines, in order" expect "$WORK/prompt.said" \
	"[WARNING] dynamic profiling has not started......" \
	"dynamic profiling start success......" \
	"[WARNING] dynamic profiling already started......" \
	"dynamic profiling stop success......" \
	"dynamic profiling quit success......"
check "prompt: each followed by our detail" followed_by "$WORK/prompt.log" "[WARNING] dynamic profiling has not started......" "collection is not running; type start first"
wire prompt >"$WORK/prompt.wire"
check "prompt: refusals never reach the server" expect "$WORK/prompt.wire" \
	"accept 1" params "send 0 0" "recv 1" "send 2 0" "recv 3" "send 4 0" \
	"recv 5" "send 6 0" "send 7 0" "send 6 0"

# --- the real limit: msprof never sends the 101st request -----------------
# It reconnects before a START that would not fit, ending the session with
# QUIT first (a QUIT is not counted), so that no window is cut.
start_server many
cmds=()
for i in $(seq 55); do cmds+=(start stop); done
feed "${cmds[@]}" quit |
	"$MSPROF" --dynamic=on --pid="$SRV_PID" --output="$WORK/many" >"$WORK/many.log" 2>&1
check "many: exit 0" [ $? -eq 0 ]
check "many: 55 windows" [ "$(prof_dirs "$WORK/many" | wc -l)" -eq 55 ]
check "many: the server never ended a session on its own" ! grep -q "session ends" "$WORK/many.srv"
check "many: none is marked incomplete" ! grep -rq "ended the session" "$WORK/many"
check "many: one reconnect" [ "$(grep -c '^accept' "$WORK/many.srv")" -eq 2 ]
check "many: the first session ended by QUIT and its three replies" \
	[ "$(grep -B4 -x 'accept 2' "$WORK/many.srv" | tr '\n' ' ')" = "recv 5 send 6 0 send 7 0 send 6 0 accept 2 " ]

# --- bad parameters end the real server for good ---------------------------
# msprof always sends the whole 4100 bytes; a client that sends fewer gets
# {0,FAIL}, and the server stops accepting and removes its socket.
start_server bad
sock=$(sed -n 's/^listening //p' "$WORK/bad.srv")
reply=$(timeout 10 python3 - "$sock" <<'END'
import socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.settimeout(5)
s.connect(sys.argv[1])
s.sendall(struct.pack("=I", 3) + b"{}x")
print("%d %d" % struct.unpack("=ii", s.recv(8)))
END
)
check "bad params: answered {0,FAIL}" [ "$reply" = "0 1" ]
check "bad params: the server ended for good" wait_for "$WORK/bad.srv" "server ended after 1 accepts"
check "bad params: its socket is gone" [ ! -e "$sock" ]
check "bad params: the task runs on" alive "$SRV_PID"

# --- our agent starting in the same home leaves real servers be -------------
# It removes stale socket files, found by connecting: a real server takes
# a hang-up before the parameters for bad parameters and ends for good.
# One named for a live process is not probed; one named for a pid not seen
# here (a key pid, another namespace's) is held past the server's 1 s wait.
start_server near
near=$SRV_PID
sleep 0 &
dead=$!
wait "$dead"
DYNAMIC_PROFILING_KEY_PID=$dead start_server keyed
home=$(getent passwd "$(id -u)" | cut -d: -f6)
HOME=$home PROFILING_MODE=dynamic "$SAMPLE" --steps 0 --step-ms 10 >"$WORK/agent.out" 2>&1 &
agent=$!
PIDS_TO_KILL+=("$agent")
wait_socket "$home" "$agent"
sleep 2	# its probe is let go after 1.5 s
check "a live task's server was not probed" ! grep -q "^accept" "$WORK/near.srv"
check "a keyed server was probed, and waited out" grep -qx "params timeout" "$WORK/keyed.srv"
check "neither server ended" ! grep -q "server ended" "$WORK/near.srv" "$WORK/keyed.srv"
feed start stop q | "$MSPROF" --dynamic=on --pid="$near" --output="$WORK/near" >"$WORK/near.log" 2>&1
check "msprof still works with the live one" [ "$(prof_dirs "$WORK/near" | wc -l)" -eq 1 ]

# What msprof and the servers said, for a failure's diagnosis.
[ "$CHECKS_FAILED" -eq 0 ] || for f in "$WORK"/*.log "$WORK"/*.srv; do
	echo "--- $f"
	show "$f"
done
