#!/bin/bash
# Probe packs and switches: nested calls keep their nesting (an acl call
# and the driver wrapper it calls, added with --uprobe), --ascendcl=off
# leaves the acl layer out, ioctls are kept only for the pack's device
# node and decoded, and a library loaded after start is probed from the
# next start on.
source tests/e2e/lib.sh

start_task --steps 0 --step-ms 10 || exit 1
timed_window 1 "$WORK/nest.log" --dynamic=on --pid="$TASK_PID" \
	--output="$WORK/nest" --uprobe=libnpusim:npusim_drv_ioctl
check "--uprobe: exit 0" [ $? -eq 0 ]
d=$(prof_dirs "$WORK/nest")
"$MSPROF" --export=on --output="$d" >/dev/null
inner=$(timeline "$d" '[.[] | select(.args.id=="npusim_drv_ioctl")] | length')
check "--uprobe probes an internal function ($inner calls)" [ "$inner" -gt 20 ]
# The window may open in the middle of an acl call: then its inner call is
# the outermost the probes saw.  One thread, so at most one such call.
check "it is on the Custom layer" [ "$(timeline "$d" -c '[.[] | select(.args.id=="npusim_drv_ioctl") | .name] | unique')" = '["Api@npusim_drv_ioctl"]' ]
check "one level down (but for a call the window cut)" [ "$(timeline "$d" '[.[] | select(.args.id=="npusim_drv_ioctl" and .args.depth != 1)] | length')" -le 1 ]
# The gate may also close between a wrapper's return and its acl call's:
# the acl call is then running at stop and not drawn, so one wrapper may
# stand alone at the end.
check "every nested call lies inside an acl call on its thread (but at the window's end)" [ "$(timeline "$d" '
	([.[] | select(.ph=="X") | .ts | split(".")[0] | tonumber] | min) as $b |
	def ns: (.ts | split(".")) as $p | (($p[0] | tonumber) - $b) * 1000 + ($p[1] | tonumber);
	def stop: ns + (.dur * 1000 | round);
	[.[] | select(.ph=="X" and .args.depth==0)] as $outer |
	[.[] | select(.args.id=="npusim_drv_ioctl" and .args.depth==1) as $c |
	 select([$outer[] | select(.tid==$c.tid and ns<=($c|ns) and stop>=($c|stop))] | length == 0)] | length')" -le 1 ]
# Each edge of the window may cut one pair (one thread): the wrapper entered
# before the gate opened, or its ioctl came after the gate closed.
io=$(timeline "$d" '[.[] | select(.name=="ioctl")] | length')
check "one driver wrapper call per ioctl ($inner, $io)" [ $((inner - io)) -le 2 -a $((io - inner)) -le 2 ]
check "ioctls decoded: npusim's type and the submit command" \
	[ "$(timeline "$d" -c '[.[] | select(.name=="ioctl") | .args.type] | unique')" = "[89]" -a \
	  "$(timeline "$d" '[.[] | select(.name=="ioctl" and .args.nr==6 and .args.dir==3 and .args.size==32)] | length')" -gt 0 ]

# --ioctl-payload: the argument struct of each driver call, as bytes.
timed_window 1 "$WORK/payload.log" --dynamic=on --pid="$TASK_PID" \
	--output="$WORK/payload" --ioctl-payload=on
d=$(prof_dirs "$WORK/payload")
"$MSPROF" --export=on --output="$d" >/dev/null
# As many bytes as the command's size field says: npusim's struct is 32.
check "--ioctl-payload: every ioctl carries its 32-byte argument" [ "$(timeline "$d" -c '[.[] | select(.name=="ioctl") | .args.payload | length] | unique')" = "[64]" ]
# struct npusim_ioctl_arg: size at bytes 16..23, little-endian; the sample
# copies 65536 bytes host to device each step.
check "--ioctl-payload: the memcpy's size (65536) is in it" [ "$(timeline "$d" -r '[.[] | select(.name=="ioctl" and .args.nr==5) | .args.payload[32:56]] | unique | join(",")')" = "000001000000000000000000" ]

timed_window 1 "$WORK/off.log" --dynamic=on --pid="$TASK_PID" \
	--output="$WORK/off" --ascendcl=off
d=$(prof_dirs "$WORK/off")
check "--ascendcl=off: no API calls" [ "$(jq .host.api_events "$d/msprof_ebpf_window.json")" = 0 ]
check "--ascendcl=off: ioctls still kept" [ "$(jq .host.ioctl_events "$d/msprof_ebpf_window.json")" -gt 0 ]

# Only the packs' device nodes: a task (here a Python one, host-only, that
# loads npusim) making 50 ioctls on /dev/null and 50 on a pipe has just the
# 50 kept.
LIBNPUSIM=$PWD/build/lib/libnpusim.so /usr/bin/python3 -c '
import ctypes, fcntl, os, signal, sys, termios
ctypes.CDLL(os.environ["LIBNPUSIM"])
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
print("ready", flush=True)
if not signal.sigtimedwait({signal.SIGUSR1}, 120):
    sys.exit("no SIGUSR1")
null = os.open("/dev/null", os.O_RDWR)
r, w = os.pipe()
for fd in [null] * 50 + [r] * 50:
    try:
        fcntl.ioctl(fd, termios.TCGETS, bytes(64))
    except OSError:
        pass
print("done", flush=True)
if not signal.sigtimedwait({signal.SIGUSR1}, 120):
    sys.exit("no SIGUSR1")
' >"$WORK/py.out" 2>&1 &
py=$!
PIDS_TO_KILL+=("$py")
wait_for "$WORK/py.out" ready
msprof_open "$WORK/dev.log" --dynamic=on --host-only=on --pid=$py --output="$WORK/dev"
say start
wait_for "$WORK/dev.log" "collection started"
kill -USR1 $py
wait_for "$WORK/py.out" done
say quit
msprof_close
kill -USR1 $py
d=$(prof_dirs "$WORK/dev")
"$MSPROF" --export=on --output="$d" >/dev/null
check "ioctls kept only on a device node: 50 of 100" [ "$(jq .host.ioctl_events "$d/msprof_ebpf_window.json")" = 50 ]
check "all on 1:3 (/dev/null)" [ "$(timeline "$d" -c '[.[] | select(.name=="ioctl") | .args.dev] | unique')" = '["1:3"]' ]

# A library loaded after start.
"$PWD/build/tests/late_loader" "$PWD/build/lib/libnpusim.so" 17 >"$WORK/late.out" 2>&1 &
late=$!
PIDS_TO_KILL+=("$late")
wait_for "$WORK/late.out" "late_loader pid"
msprof_open "$WORK/late.log" --dynamic=on --host-only=on --pid=$late --output="$WORK/late"
for round in 1 2; do
	say start
	wait_for "$WORK/late.log" "collection started (window $round)"
	kill -USR1 $late
	wait_for "$WORK/late.out" "round $round done"
	say stop
	wait_for "$WORK/late.log" "collection stopped (window $round)"
done
say quit
msprof_close
first=$(ls -d "$WORK"/late/PROF_000001_*)
second=$(ls -d "$WORK"/late/PROF_000002_*)
check "loaded during window 1: not probed in it" [ "$(jq .host.api_events "$first/msprof_ebpf_window.json")" = 0 ]
"$MSPROF" --export=on --output="$second" >/dev/null
check "probed from the next start: exactly 17 calls" [ "$(timeline "$second" '[.[] | select(.args.id=="aclrtSetDevice")] | length')" = 17 ]

# A call still running at stop is not in the window, and the window says so;
# the next window neither counts it again nor pairs a return with it.
/usr/bin/python3 -c '
import ctypes, signal, sys
libc = ctypes.CDLL("libc.so.6")
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
print("ready", flush=True)
for secs, said in ((3, "slept"), (0, "done")):
    if not signal.sigtimedwait({signal.SIGUSR1}, 120):
        sys.exit("no SIGUSR1")
    libc.sleep(secs)
    print(said, flush=True)
' >"$WORK/sleeper.out" 2>&1 &
sleeper=$!
PIDS_TO_KILL+=("$sleeper")
wait_for "$WORK/sleeper.out" ready
msprof_open "$WORK/unfinished.log" --dynamic=on --host-only=on --ascendcl=off \
	--uprobe=libc.so:sleep --pid=$sleeper --output="$WORK/unfinished"
say start
wait_for "$WORK/unfinished.log" "collection started (window 1)"
kill -USR1 $sleeper
sleep 1
say stop
wait_for "$WORK/unfinished.log" "collection stopped (window 1)"
wait_for "$WORK/sleeper.out" slept
say start
wait_for "$WORK/unfinished.log" "collection started (window 2)"
kill -USR1 $sleeper
wait_for "$WORK/sleeper.out" done
say stop
wait_for "$WORK/unfinished.log" "collection stopped (window 2)"
say quit
msprof_close
first=$(prof_dirs "$WORK/unfinished" | head -1)
second=$(prof_dirs "$WORK/unfinished" | tail -1)
check "a call running at stop is counted, not lost silently" [ "$(jq .host.unfinished_at_stop "$first/msprof_ebpf_window.json")" = 1 ]
check "and the user is told" grep -q "1 calls were still running at stop" "$WORK/unfinished.log"
check "the next window records its own call" [ "$(jq .host.api_events "$second/msprof_ebpf_window.json")" = 1 ]
check "and counts nothing of the last window's as running" [ "$(jq .host.unfinished_at_stop "$second/msprof_ebpf_window.json")" = 0 ]
"$MSPROF" --export=on --output="$second" >/dev/null
check "at depth 0: the cut call left no frame under it" [ "$(timeline "$second" -c '[.[] | select(.name | test("sleep$")) | .args.depth]')" = '[0]' ]

# A function the kernel will not probe: start fails, and says so in one
# line naming the file (not a tracer line and then a session line).
if [ "$(uname -m)" = x86_64 ]; then
	"$PWD/build/tests/unprobeable" >"$WORK/unprobeable.out" 2>&1 &
	bad=$!
	PIDS_TO_KILL+=("$bad")
	wait_for "$WORK/unprobeable.out" "unprobeable pid"
	msprof_open "$WORK/unprobeable.log" --dynamic=on --host-only=on \
		--ascendcl=off --uprobe=unprobeable:badfn --pid=$bad \
		--output="$WORK/unprobeable"
	say start
	wait_for "$WORK/unprobeable.log" "collection not started"
	say quit
	msprof_close
	check "a refused probe is reported once, naming its file" [ "$(grep -c "cannot.*probe" "$WORK/unprobeable.log")" = 1 -a \
		"$(grep -c "pid $bad: cannot attach probes in $PWD/build/tests/unprobeable: " "$WORK/unprobeable.log")" = 1 ]
else
	skip "a refused probe is reported once" "its int3 function is x86_64's"
fi
